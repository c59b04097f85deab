// The towers programme's frontier states: how placing one colour changes a state (a 64-bit
// key, a few bits per column), shared by the step and the trace back. Freestanding.
//
// The data. The board is filled row by row, column by column; the cell being placed is
// (i, j) of rows x cols (Cell). A state's key holds one field of ``bits`` bits per column,
// field c at bits [bits * c, bits * (c + 1)): the colour code of the frontier cell in
// column c in its low ``bits - n_codes`` bits (at most ``none``, the code of "no cell" yet)
// and, above them, the mask of the n_codes colours that cell still needs among its
// neighbours to come. needs[k] is the mask colour k needs (masks of at most 64 colours: a
// colour code past 63 is in no mask); table[up][left][k] what colour k scores next to up
// and left. A layer is an open-addressing table (hash.hpp's probe, slot_hash) of n_slots
// keys (EMPTY, all ones, a free slot) and their best scores (vals); a *position* in a layer
// is s * n_codes + k: state s, colour k, the order each_successor visits successors in.
// Keys, scores and needs may come from anyone: the arithmetic on them is on unsigned words,
// and a score whose sum does not fit in 64 bits is no successor.
#pragma once

#include <stdint.h>

#include "cpcore/bits.hpp"
#include "cpcore/check.hpp"
#include "cpcore/hash.hpp"

namespace cpcore {
namespace towers {

const word EMPTY = ~(word)0;  // a free slot of a table, and "no successor"

// The table's own finaliser (half of murmur3's): its slots, so the order of its entries.
inline __attribute__((always_inline)) word slot_hash(word key) {
    word h = key ^ (key >> 33);
    h *= 0xFF51AFD7ED558CCDULL;
    return h ^ (h >> 33);
}

// Keep the best score of ``key`` in a table of ``n_slots`` (a power of two); 1 when new.
inline __attribute__((always_inline)) uint64_t insert(word* keys, int64_t* vals,
                                                      uint64_t n_slots, word key, int64_t val) {
    const uint64_t s = probe(slot_hash(key), n_slots,
                             [keys](uint64_t q) { return keys[q] != EMPTY; },
                             [keys, key](uint64_t q) { return keys[q] == key; });
    if (keys[s] == EMPTY) {
        keys[s] = key;
        vals[s] = val;
        return 1;
    }
    if (vals[s] < val) vals[s] = val;
    return 0;
}

// The board's shape and the colours' rules at the cell being placed.
struct Cell {
    int64_t i, j, rows, cols;
    const int64_t* needs;  // the colours each colour needs, as masks
    uint64_t n_codes;      // colours (and "empty") with a code
    int64_t bits, none;    // bits per column; the colour code of "no cell"
};

// The mask of a column's field of ``bits`` bits (1 .. 64).
inline __attribute__((always_inline)) word field_mask(int64_t bits) {
    return bits >= 64 ? ~(word)0 : ((word)1 << bits) - 1;
}

// The frontier cells that meet the cell placed: above (colour, still needed) and left.
struct Around {
    int64_t up_colour, up_missing, left_colour, left_missing;
};

inline __attribute__((always_inline)) Around around(word key, const Cell& at) {
    const word cell = field_mask(at.bits);
    const int64_t colour_bits = at.bits - (int64_t)at.n_codes;
    const word colour_mask = ((word)1 << colour_bits) - 1;
    const word up = (key >> (at.bits * at.j)) & cell;
    Around a{(int64_t)(up & colour_mask), (int64_t)(up >> colour_bits), at.none, 0};
    if (at.j > 0) {
        const word left = (key >> (at.bits * (at.j - 1))) & cell;
        a.left_colour = (int64_t)(left & colour_mask);
        a.left_missing = (int64_t)(left >> colour_bits);
    }
    return a;
}

// What each colour scores at the cell, given the colours around it: ``table[up][left]``.
inline __attribute__((always_inline)) const int64_t* scores(const int64_t* table,
                                                            const Cell& at, const Around& a) {
    const uint64_t side = (uint64_t)at.none + 1;
    CPCORE_ASSERT((uint64_t)a.up_colour < side && (uint64_t)a.left_colour < side);
    return table + ((uint64_t)a.up_colour * side + (uint64_t)a.left_colour) * at.n_codes;
}

// The state after placing colour ``k`` from ``key``, or EMPTY when that breaks a rule: a
// cell left needing more colours than it has neighbours to come.
// The bit of colour c in a mask of needs (none for a code past 63).
inline __attribute__((always_inline)) word colour_bit(int64_t c) {
    return c >= 0 && c < 64 ? (word)1 << c : 0;
}

inline __attribute__((always_inline)) word successor(word key, int64_t k, const Cell& at,
                                                     const Around& a) {
    const word cell = field_mask(at.bits);
    const int64_t colour_bits = at.bits - (int64_t)at.n_codes;
    CPCORE_ASSERT(k >= 0 && (uint64_t)k < at.n_codes && at.bits * (at.j + 1) <= 64);
    const word bit = colour_bit(k);
    const int64_t below = at.i < at.rows - 1 ? 1 : 0;
    if (a.up_colour != at.none && ((word)a.up_missing & ~bit) != 0) return EMPTY;
    word next = key;
    if (at.j > 0) {
        const word still = (word)a.left_missing & ~bit;
        if (popcount(still) > (unsigned)below) return EMPTY;
        const int64_t before = at.bits * (at.j - 1);
        const word field = (word)a.left_colour | (still << colour_bits);
        next = (next & ~(cell << before)) | (field << before);
    }
    word missing = (word)at.needs[k];
    if (a.up_colour != at.none) missing &= ~colour_bit(a.up_colour);
    if (a.left_colour != at.none) missing &= ~colour_bit(a.left_colour);
    if (popcount(missing) > (unsigned)((at.j < at.cols - 1 ? 1 : 0) + below)) {
        return EMPTY;
    }
    const int64_t here = at.bits * at.j;
    return (next & ~(cell << here)) | (((word)k | (missing << colour_bits)) << here);
}

// Every successor of a layer's states, from position ``from`` (state ``from / n_codes``,
// colour ``from % n_codes``) on, in order: ``visit(s, k, score, next)`` for each colour
// ``allowed`` that scores at least ``floor`` and breaks no rule. Returns the position after
// the successor whose visit returned true (it asked to stop), or the end.
template <class Visit>
inline __attribute__((always_inline)) uint64_t each_successor(
    const word* keys, const int64_t* vals, uint64_t n_keys, const Cell& at,
    const int64_t* table, int64_t allowed, int64_t floor, uint64_t from, Visit visit) {
    const uint64_t n_codes = at.n_codes;
    for (uint64_t s = from / n_codes; s < n_keys; ++s) {
        const word key = keys[s];
        if (key == EMPTY) continue;
        const Around a = around(key, at);
        const int64_t* score_of = scores(table, at, a);
        for (uint64_t k = s == from / n_codes ? from % n_codes : 0; k < n_codes; ++k) {
            int64_t score;
            if (__builtin_add_overflow(vals[s], score_of[k], &score)) continue;
            if (!((allowed >> k) & 1) || score < floor) continue;
            const word next = successor(key, (int64_t)k, at, a);
            if (next != EMPTY && visit(s, k, score, next)) return s * n_codes + k + 1;
        }
    }
    return n_keys * n_codes;
}

}  // namespace towers
}  // namespace cpcore
