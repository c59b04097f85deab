// Word helpers every search shares: freestanding (no standard library, no allocation, no
// exceptions), so the same header builds for CPython and for WebAssembly.
//
// The data. A ``word`` is 64 bits, bit k the set's member k (cells, items, pieces); sets of
// more are arrays of words, member k in word k / 64, bit k % 64. A stop flag is an int64 the
// caller owns: 0 to go on, anything else to stop, written by another thread at any time and
// read here without a lock (stopped).
#pragma once

#include <stdint.h>

namespace cpcore {

typedef uint64_t word;

inline __attribute__((always_inline)) unsigned popcount(word x) {
    return (unsigned)__builtin_popcountll(x);
}

// The index of the lowest set bit of a nonzero word.
inline __attribute__((always_inline)) unsigned lowest(word x) {
    return (unsigned)__builtin_ctzll(x);
}

// Whether another thread has asked the search to stop (a flag it may write at any time).
inline __attribute__((always_inline)) bool stopped(const int64_t* flag) {
    return __atomic_load_n(flag, __ATOMIC_RELAXED) != 0;
}

}  // namespace cpcore
