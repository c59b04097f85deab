/* The core's entry points: plain C functions over caller-owned buffers, so that the Python
 * module and a WebAssembly build call the same code. A search never allocates, throws or
 * uses the standard library; it reads the stop flag the caller hands in. */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this build uses the popcnt instruction (the module checks the processor has it). */
int cpcore_needs_popcnt(void);

#ifdef __cplusplus
}
#endif
