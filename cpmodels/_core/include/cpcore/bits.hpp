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

// The 64-bit lanes of the widest vector the target tests words in at once: 8 with AVX-512,
// 4 with AVX2, else 1 (WebAssembly, the wheels' x86-64-v2: one word at a time).
#if defined(__AVX512F__)
const unsigned WORD_LANES = 8;
#elif defined(__AVX2__)
const unsigned WORD_LANES = 4;
#else
const unsigned WORD_LANES = 1;
#endif

// Bit i (i < n <= 64): whether word p[i] has no bit of ``a`` and word q[i] none of ``b``.
// Whole vectors (WORD_LANES words) may read past p[n - 1] and q[n - 1], never past p[m - 1]
// and q[m - 1] (m: the arrays' length from p and q); the rest one by one.
inline __attribute__((always_inline)) word disjoint_bits(const word* p, const word* q,
                                                         uint64_t n, uint64_t m, word a,
                                                         word b) {
    word bits = 0;
    uint64_t j = 0;
#if defined(__AVX512F__)
    typedef long long Eight __attribute__((vector_size(64)));
    const long long sa = (long long)a, sb = (long long)b;
    const Eight va = {sa, sa, sa, sa, sa, sa, sa, sa}, vb = {sb, sb, sb, sb, sb, sb, sb, sb};
    for (; j < n && j + 8 <= m; j += 8) {
        Eight x, y;
        __builtin_memcpy(&x, p + j, sizeof x);
        __builtin_memcpy(&y, q + j, sizeof y);
        const unsigned clear = __builtin_ia32_ptestnmq512(x, va, 0xFF);
        bits |= (word)__builtin_ia32_ptestnmq512(y, vb, (unsigned char)clear) << j;
    }
#elif defined(__AVX2__)
    typedef long long Four __attribute__((vector_size(32)));
    typedef double FourD __attribute__((vector_size(32)));
    const long long sa = (long long)a, sb = (long long)b;
    const Four va = {sa, sa, sa, sa}, vb = {sb, sb, sb, sb};
    for (; j < n && j + 4 <= m; j += 4) {
        Four x, y;
        __builtin_memcpy(&x, p + j, sizeof x);
        __builtin_memcpy(&y, q + j, sizeof y);
        const Four clear = ((x & va) | (y & vb)) == 0;
        bits |= (word)__builtin_ia32_movmskpd256((FourD)clear) << j;
    }
#endif
    for (; j < n; ++j) bits |= (word)(((p[j] & a) | (q[j] & b)) == 0) << j;
    return n < 64 ? bits & (((word)1 << n) - 1) : bits;
}

// Whether another thread has asked the search to stop (a flag it may write at any time).
inline __attribute__((always_inline)) bool stopped(const int64_t* flag) {
    return __atomic_load_n(flag, __ATOMIC_RELAXED) != 0;
}

}  // namespace cpcore
