// Invariants of the core, checked where a build asks for them (CPCORE_DEBUG: the debug,
// sanitized and fuzzing builds), free elsewhere: CPCORE_ASSERT(condition) stops the process
// at once when the condition is false. The core is freestanding (it builds for wasm32 too),
// so a failed check traps; a host build that defines CPCORE_CHECK_REPORT as well first
// tells its own cpcore_check_failed (the sanitized module and the fuzz targets print the
// file, the line and the condition). Release builds compile the condition away, unevaluated.
#pragma once

#ifdef CPCORE_CHECK_REPORT
extern "C" void cpcore_check_failed(const char* file, int line, const char* condition);
#define CPCORE_CHECK_FAILED(condition) \
    (cpcore_check_failed(__FILE__, __LINE__, #condition), __builtin_trap())
#else
#define CPCORE_CHECK_FAILED(condition) __builtin_trap()
#endif

#ifdef CPCORE_DEBUG
#define CPCORE_ASSERT(condition) ((condition) ? (void)0 : CPCORE_CHECK_FAILED(condition))
#else
#define CPCORE_ASSERT(condition) ((void)sizeof(!(condition)))
#endif
