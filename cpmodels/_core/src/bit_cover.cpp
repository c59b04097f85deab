// Algorithm X on bits for covers of at most 128 items (cpmodels/backends/engine/bit_cover.py
// says how): each level's live options a row of two-word masks, filtered from its parent's
// without a branch while bit-sliced counters add up each item's options, so the item with
// the fewest options (the lowest index of them) is read from the counters. The walk is
// count_most_constrained's (cpcore/cover.hpp): the same tree as dancing links.
#include "cpcore/bits.hpp"
#include "cpcore/cover.hpp"
#include "cpcore/entry.h"

namespace {

using cpcore::word;

const word SATURATED = 16;  // the class past the counters' reach: count one by one

// Four bits and a saturation bit for each of 64 items, in five words.
struct Slices {
    word c0 = 0, c1 = 0, c2 = 0, c3 = 0, sat = 0;

    // Plus one for each bit of x (saturating past 15).
    inline __attribute__((always_inline)) void add(word x) {
        word t = c0 & x;
        c0 ^= x;
        word u = c1 & t;
        c1 ^= t;
        t = c2 & u;
        c2 ^= u;
        u = c3 & t;
        c3 ^= t;
        sat |= u;
    }

    // The bits whose counter is v (the bits of v chosen from c or ~c).
    inline __attribute__((always_inline)) word pick(word v) const {
        return ((v & 1) ? c0 : ~c0) & ((v & 2) ? c1 : ~c1) & ((v & 4) ? c2 : ~c2) &
               ((v & 8) ? c3 : ~c3);
    }
};

// An item as a one-bit mask in two words, and its number of options.
struct Choice {
    word low, high, least;
};

// The open item with the fewest options (the lowest index of them); the number is
// SATURATED when every open item has 16 or more.
inline Choice fewest(const Slices& a, const Slices& b, word open_low, word open_high) {
    const word low = open_low & ~a.sat;
    const word high = open_high & ~b.sat;
    for (word v = 0; v < SATURATED; ++v) {
        const word x = low & a.pick(v);
        if (x != 0) return {x & (~x + 1), 0, v};
        const word y = high & b.pick(v);
        if (y != 0) return {0, y & (~y + 1), v};
    }
    return {0, 0, SATURATED};
}

// fewest by counting each open item's options one by one (any number); counts: 128 words.
inline Choice fewest_counted(const word* live_low, const word* live_high, uint64_t n,
                             word open_low, word open_high, word* counts) {
    for (unsigned i = 0; i < 128; ++i) counts[i] = 0;
    for (uint64_t k = 0; k < n; ++k) {
        for (word x = live_low[k] & open_low; x != 0; x &= x - 1) ++counts[cpcore::lowest(x)];
        for (word y = live_high[k] & open_high; y != 0; y &= y - 1)
            ++counts[cpcore::lowest(y) + 64];
    }
    unsigned best = 0;
    word least = ~word(0);
    for (unsigned i = 0; i < 128; ++i) {
        const word open = i < 64 ? (open_low >> i) & 1 : (open_high >> (i - 64)) & 1;
        if (open != 0 && counts[i] < least) {
            best = i;
            least = counts[i];
        }
    }
    if (best < 64) return {word(1) << best, 0, least};
    return {0, word(1) << (best - 64), least};
}

// dst := the first n masks of src disjoint from o, without a branch; the number kept, and
// their items counted in a (low words) and b (high words).
inline uint64_t filter(const word* src_low, const word* src_high, uint64_t n, word* dst_low,
                       word* dst_high, word o_low, word o_high, Slices& a, Slices& b) {
    uint64_t m = 0;
    for (uint64_t k = 0; k < n; ++k) {
        const word x = src_low[k];
        const word y = src_high[k];
        const word kept = ((x & o_low) | (y & o_high)) == 0;
        dst_low[m] = x;
        dst_high[m] = y;
        m += kept;
        const word keep = 0 - kept;
        a.add(x & keep);
        b.add(y & keep);
    }
    return m;
}

// The levels of the search: level d's live options are row d of live_low and live_high.
struct BitSpace {
    word need_low, need_high;
    uint64_t stride, rows;  // a row's length (the options), and how many rows there are
    word *live_low, *live_high;
    word *n_live, *filled_low, *filled_high, *item_low, *item_high, *least, *at, *counts;

    // Level d's live options filtered from src by o, with its chosen item.
    inline void make(uint64_t d, const word* src_low, const word* src_high, uint64_t n,
                     word o_low, word o_high, word placed_low, word placed_high) {
        Slices a, b;
        n_live[d] = filter(src_low, src_high, n, live_low + d * stride,
                           live_high + d * stride, o_low, o_high, a, b);
        filled_low[d] = placed_low;
        filled_high[d] = placed_high;
        const Choice c = fewest(a, b, need_low & ~placed_low, need_high & ~placed_high);
        item_low[d] = c.low;
        item_high[d] = c.high;
        least[d] = c.least;
    }

    inline bool solved(unsigned d) const {
        return ((need_low & ~filled_low[d]) | (need_high & ~filled_high[d])) == 0;
    }

    inline void choose(unsigned d) {
        if (least[d] == SATURATED) {
            const Choice c = fewest_counted(live_low + d * stride, live_high + d * stride,
                                            n_live[d], need_low & ~filled_low[d],
                                            need_high & ~filled_high[d], counts);
            item_low[d] = c.low;
            item_high[d] = c.high;
            least[d] = c.least;
        }
        at[d] = least[d] == 0 ? n_live[d] : 0;  // an item no option covers: a dead end
    }

    inline bool advance(unsigned d) {
        const word* row_low = live_low + d * stride;
        const word* row_high = live_high + d * stride;
        const word b_low = item_low[d], b_high = item_high[d];
        const uint64_t n = n_live[d];
        uint64_t k = at[d];
        while (k < n && ((row_low[k] & b_low) | (row_high[k] & b_high)) == 0) ++k;
        at[d] = k + 1;
        return k < n;
    }

    inline bool descend(unsigned d) {
        if (d + 1 >= rows) return false;
        const uint64_t k = at[d] - 1;
        const word* row_low = live_low + d * stride;
        const word* row_high = live_high + d * stride;
        const word o_low = row_low[k], o_high = row_high[k];
        make(d + 1, row_low, row_high, n_live[d], o_low, o_high, filled_low[d] | o_low,
             filled_high[d] | o_high);
        return true;
    }
};

}  // namespace

extern "C" uint64_t cpcore_bit_cover_frame_words(uint64_t rows) { return 7 * rows + 128; }

extern "C" int64_t cpcore_bit_cover_count(const uint64_t* opt_low, const uint64_t* opt_high,
                                          uint64_t n_options, uint64_t need_low,
                                          uint64_t need_high, const int64_t* forced,
                                          uint64_t n_forced, const int64_t* stop, uint64_t rows,
                                          uint64_t* live, uint64_t* frame, uint64_t* nodes) {
    *nodes = 0;
    word placed_low = 0, placed_high = 0;
    for (uint64_t i = 0; i < n_forced; ++i) {
        const uint64_t f = (uint64_t)forced[i];
        if (((placed_low & opt_low[f]) | (placed_high & opt_high[f])) != 0) return 0;
        placed_low |= opt_low[f];
        placed_high |= opt_high[f];
    }
    if (rows == 0) return cpcore::COUNT_TOO_DEEP;
    BitSpace space{need_low,        need_high,        n_options,        rows,
                   live,            live + rows * n_options,
                   frame,           frame + rows,     frame + 2 * rows, frame + 3 * rows,
                   frame + 4 * rows, frame + 5 * rows, frame + 6 * rows, frame + 7 * rows};
    space.make(0, opt_low, opt_high, n_options, placed_low, placed_high, placed_low,
               placed_high);
    return cpcore::count_most_constrained(space, stop, nodes);
}
