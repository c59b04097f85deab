// Algorithm X on bits for covers of at most 128 items (backends/engine/kernels/bit_cover.py
// says how): each level's live options a row of pairs (low word, high word), filtered from
// its parent's without a branch, the options kept then added into bit-sliced counters four
// words at a time, so the item with the fewest options (the lowest index of them) is read
// from the counters. The walk is count_most_constrained's (cpcore/cover.hpp): the same tree
// as dancing links.
#include "cpcore/bits.hpp"
#include "cpcore/cover.hpp"
#include "cpcore/entry.h"

namespace {

using cpcore::word;

const word SATURATED = 16;  // the class past the counters' reach: count one by one

const unsigned LANES = 4;
typedef word Lanes __attribute__((vector_size(8 * LANES)));  // four words at once

// Four bits and a saturation bit for each of 64 items, in five words (W = word), or for
// four groups of options at once (W = Lanes: the groups added up by merge at the end).
template <class W>
struct SlicesOf {
    W c0{}, c1{}, c2{}, c3{}, sat{};

    // Plus one for each bit of x (saturating past 15).
    inline __attribute__((always_inline)) void add(W x) {
        W t = c0 & x;
        c0 ^= x;
        W u = c1 & t;
        c1 ^= t;
        t = c2 & u;
        c2 ^= u;
        u = c3 & t;
        c3 ^= t;
        sat |= u;
    }
};

struct Slices : SlicesOf<word> {
    // The bits whose counter is v (the bits of v chosen from c or ~c).
    inline __attribute__((always_inline)) word pick(word v) const {
        return ((v & 1) ? c0 : ~c0) & ((v & 2) ? c1 : ~c1) & ((v & 4) ? c2 : ~c2) &
               ((v & 8) ? c3 : ~c3);
    }

    // Plus the counters of another (a ripple adder; past 15, or either saturated:
    // saturated), as if its bits had been added one by one.
    inline void merge(word b0, word b1, word b2, word b3, word b_sat) {
        const word k0 = c0 & b0;
        c0 ^= b0;
        const word s1 = c1 ^ b1, k1 = (c1 & b1) | (s1 & k0);
        c1 = s1 ^ k0;
        const word s2 = c2 ^ b2, k2 = (c2 & b2) | (s2 & k1);
        c2 = s2 ^ k1;
        const word s3 = c3 ^ b3, k3 = (c3 & b3) | (s3 & k2);
        c3 = s3 ^ k2;
        sat |= b_sat | k3;
    }

    // Plus lane i of counters kept for four groups of words at once.
    inline void merge(SlicesOf<Lanes> l, unsigned i) {
        merge(l.c0[i], l.c1[i], l.c2[i], l.c3[i], l.sat[i]);
    }
};

// The items of the n options in pairs (low word, high word) counted in a (the low words)
// and b (the high words), LANES / 2 options at a time.
__attribute__((noinline)) void count_items(const word* __restrict pairs, uint64_t n,
                                           Slices& a, Slices& b) {
    SlicesOf<Lanes> lanes;  // the even lanes count low words, the odd lanes high words
    uint64_t k = 0;
    for (; k + LANES / 2 <= n; k += LANES / 2) {
        Lanes x;
        __builtin_memcpy(&x, pairs + 2 * k, sizeof x);
        lanes.add(x);
    }
    for (unsigned i = 0; i < LANES; i += 2) {
        a.merge(lanes, i);
        b.merge(lanes, i + 1);
    }
    for (; k < n; ++k) {
        a.add(pairs[2 * k]);
        b.add(pairs[2 * k + 1]);
    }
}

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

// fewest by counting each open item's options (n, in pairs) one by one (any number);
// counts: 128 words.
inline Choice fewest_counted(const word* pairs, uint64_t n, word open_low, word open_high,
                             word* counts) {
    for (unsigned i = 0; i < 128; ++i) counts[i] = 0;
    for (uint64_t k = 0; k < n; ++k) {
        for (word x = pairs[2 * k] & open_low; x != 0; x &= x - 1) ++counts[cpcore::lowest(x)];
        for (word y = pairs[2 * k + 1] & open_high; y != 0; y &= y - 1)
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

typedef word Pair __attribute__((vector_size(16)));  // an option: its low and high word

// Options read from two arrays of words (the cover's).
struct Apart {
    const word *low, *high;
    inline Pair operator()(uint64_t k) const { return Pair{low[k], high[k]}; }
};

// Options read from pairs (a level's row).
struct Paired {
    const word* pairs;
    inline Pair operator()(uint64_t k) const {
        Pair x;
        __builtin_memcpy(&x, pairs + 2 * k, sizeof x);
        return x;
    }
};

// The first options of src kept in dst by whole vectors where the processor has a compress
// instruction (AVX-512), as the one-by-one loop of filter keeps them; *k: the options
// read, the number kept returned. Elsewhere, and for options apart, none.
template <class Source>
inline uint64_t filter_by_vectors(Source, uint64_t, word*, Pair, uint64_t* k) {
    *k = 0;
    return 0;
}

#if defined(__AVX512F__)
typedef long long Eight __attribute__((vector_size(64)));  // four options

inline uint64_t filter_by_vectors(Paired src, uint64_t n, word* __restrict dst, Pair o,
                                  uint64_t* k) {
    const Eight mask = {(long long)o[0], (long long)o[1], (long long)o[0], (long long)o[1],
                        (long long)o[0], (long long)o[1], (long long)o[0], (long long)o[1]};
    const Eight none = {0, 0, 0, 0, 0, 0, 0, 0};
    uint64_t m = 0, j = 0;
    for (; j + 4 <= n; j += 4) {
        Eight x;
        __builtin_memcpy(&x, src.pairs + 2 * j, sizeof x);
        const unsigned clear = __builtin_ia32_ptestnmq512(x, mask, 0xFF);  // a bit a word
        unsigned kept = clear & (clear >> 1) & 0x55;  // both words of an option clear
        kept |= kept << 1;
        const Eight packed = __builtin_ia32_compressdi512_mask(x, none, (unsigned char)kept);
        __builtin_memcpy(dst + 2 * m, &packed, sizeof packed);  // the row has room past m
        m += cpcore::popcount(kept) / 2;
    }
    *k = j;
    return m;
}
#endif

// dst := the first n options of src disjoint from o, in pairs, without a branch; the number
// kept, and their items counted in a (low words) and b (high words).
template <class Source>
__attribute__((noinline)) uint64_t filter(Source src, uint64_t n, word* __restrict dst,
                                          Pair o, Slices& a, Slices& b) {
    uint64_t k;
    uint64_t m = filter_by_vectors(src, n, dst, o, &k);
    for (; k < n; ++k) {
        const Pair x = src(k);
        __builtin_memcpy(dst + 2 * m, &x, sizeof x);
        const Pair t = x & o;
        m += (t[0] | t[1]) == 0;
    }
    count_items(dst, m, a, b);
    return m;
}

// The levels of the search: level d's live options are row d of live, in pairs.
struct BitSpace {
    word need_low, need_high;
    uint64_t stride, rows;  // a row's length (two words an option), and how many rows
    word* live;
    word *n_live, *filled_low, *filled_high, *item_low, *item_high, *least, *at, *counts;

    inline word* row(uint64_t d) const { return live + d * stride; }

    // Level d's live options filtered from n options of src by o, with the item it
    // branches on.
    template <class Source>
    inline void make(uint64_t d, Source src, uint64_t n, Pair o, word placed_low,
                     word placed_high) {
        Slices a, b;
        n_live[d] = filter(src, n, row(d), o, a, b);
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
            const Choice c = fewest_counted(row(d), n_live[d], need_low & ~filled_low[d],
                                            need_high & ~filled_high[d], counts);
            item_low[d] = c.low;
            item_high[d] = c.high;
            least[d] = c.least;
        }
        at[d] = least[d] == 0 ? n_live[d] : 0;  // an item no option covers: a dead end
    }

    inline bool advance(unsigned d) {
        const word* r = row(d);
        const word b_low = item_low[d], b_high = item_high[d];
        const uint64_t n = n_live[d];
        uint64_t k = at[d];
        while (k < n && ((r[2 * k] & b_low) | (r[2 * k + 1] & b_high)) == 0) ++k;
        at[d] = k + 1;
        return k < n;
    }

    inline bool descend(unsigned d) {
        if (d + 1 >= rows) return false;
        const word* r = row(d);
        const uint64_t k = at[d] - 1;
        const word o_low = r[2 * k], o_high = r[2 * k + 1];
        make(d + 1, Paired{r}, n_live[d], Pair{o_low, o_high}, filled_low[d] | o_low,
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
    BitSpace space{need_low,         need_high,        2 * n_options,    rows,
                   live,             frame,            frame + rows,     frame + 2 * rows,
                   frame + 3 * rows, frame + 4 * rows, frame + 5 * rows, frame + 6 * rows,
                   frame + 7 * rows};
    space.make(0, Apart{opt_low, opt_high}, n_options, Pair{placed_low, placed_high},
               placed_low, placed_high);
    return cpcore::count_most_constrained(space, stop, nodes);
}
