// Invariants of the core, checked where a build asks for them (CPCORE_DEBUG: the debug and
// sanitized builds), free elsewhere: CPCORE_ASSERT(condition) stops the process at once when
// the condition is false. The core is freestanding, so a failed check traps (the sanitized
// build prints where); release builds compile the condition away unevaluated.
#pragma once

#ifdef CPCORE_DEBUG
#define CPCORE_ASSERT(condition) ((condition) ? (void)0 : __builtin_trap())
#else
#define CPCORE_ASSERT(condition) ((void)sizeof(!(condition)))
#endif
