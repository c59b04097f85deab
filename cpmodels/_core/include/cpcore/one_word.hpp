// What every search on the one-word layout shares (the one-word count and tally, the reach
// search): a board of at most 64 cells is one word, bit ``slow * inner + fast`` a cell, and
// the pieces (units) used are a second word. Freestanding.
//
// Data layout (entry.h's cpcore_one_word and cpcore_reach_layout, read-only): a state is
// (cells, used), bits that are no board cell covered from the start (``covered``), so the
// board is full when cells is all ones; the options of unit p anchored at cell bit x (its
// lowest bit) are the cell masks masks[start[x * n_units + p] .. start[x * n_units + p +
// 1]), and avail[x] the units with options there; opt_cells[o] and opt_unit[o] (or
// opt_piece[o]) an option's two words, for the forced options. The grid: a line is
// ``inner`` bits, first and last the bits at each line's ends, so a word shifted by one
// (masked there) or by a line's length is its cells' neighbours. Invariant: the first
// empty cell is the lowest zero bit of cells, and every option anchored there covers it.
// The walk of a node (Walk) is its anchor x, the units still to try m (a mask), and the
// run [at, end) of the unit ``bit`` being tried (the cursor of the core's one branching
// choice, search.hpp's next_option, over these runs); a search's frames (Frame, one per unit
// placed, at most MAX_DEPTH with the root) hold the node's words and its Walk.
#pragma once

#include <stdint.h>

#include "cpcore/bits.hpp"
#include "cpcore/region.hpp"
#include "cpcore/search.hpp"

namespace cpcore {

// The grid of the cell word: a line's length, and the bits at the start and the end of
// each line.
struct Grid {
    word inner, first, last;
};

// The cells next to the cells of r (r itself left out).
inline __attribute__((always_inline)) word around(word r, const Grid& g) {
    return ((r >> 1) & ~g.last) | ((r << 1) & ~g.first) | (r >> g.inner) | (r << g.inner);
}

// The empty cells with no empty neighbour.
inline __attribute__((always_inline)) word isolated(word empty, const Grid& g) {
    return empty & ~around(empty, g);
}

// The cell sets of one word, as region_dead_end (cpcore/region.hpp) grows them: the seeds
// are the empty cells next to the option, and a region grows by dilation (the word and its
// neighbours, shifted in, masked by the empty cells) until it reaches the limit or stops.
// ``fits(region, size)`` says whether pieces may fill a region. A region grows by three
// dilations between two looks at its size: a region that stops growing is the same, and
// one that passes the limit is large either way, so the answer is the same as with a look
// after each dilation, for fewer looks (the one-word count, callgrind, the same nodes: 6x10
// distinct 278 -> 254 M instructions, 8x8 with the centre hole 42.9 -> 39.0 M; with two
// dilations a look 262 M and 40.2 M).
template <class Fits>
struct OneWordFill {
    typedef word Seed;  // the seed's bit
    word seeds, empty, region;
    const Grid& g;
    Fits fits_region;

    inline __attribute__((always_inline)) bool next_seed(word& x) {
        if (seeds == 0) return false;
        x = seeds & (~seeds + 1);
        return true;
    }
    inline __attribute__((always_inline)) uint64_t grow(word x, uint64_t limit) {
        region = x;
        uint64_t size = 1;
        while (size < limit) {  // three dilations, then one look
            const word once = (region | around(region, g)) & empty;
            const word twice = (once | around(once, g)) & empty;
            region = (twice | around(twice, g)) & empty;
            size = popcount(region);
            if (region == twice) break;  // no empty neighbour left: the whole region
        }
        return size;
    }
    inline __attribute__((always_inline)) bool fits(uint64_t size) {
        return fits_region(region, size);
    }
    inline __attribute__((always_inline)) void measured(bool) { seeds &= ~region; }
};

// Whether a region next to the option just placed (``om``) is a dead end: a region of
// ``empty`` smaller than ``limit`` cells that ``fits(region, size)`` says no pieces fill.
template <class Fits>
inline __attribute__((always_inline)) bool small_region_dead(word om, word empty,
                                                             const Grid& g, uint64_t limit,
                                                             Fits fits) {
    OneWordFill<Fits> f{around(om, g) & empty, empty, 0, g, fits};
    return region_dead_end(f, limit);
}

// The options of a unit anchored at a cell: ``masks[start[x * n_units + p]:start[x *
// n_units + p + 1]]`` are the cell masks of unit p's options anchored at cell bit x.
// (``unit_at``, the unit bit of each mask, only for AnchorWalk.)
struct Runs {
    const uint64_t* start;
    const word* masks;
    uint64_t n_units;
    const word* unit_at = nullptr;
};

// The unit bit of each of the layout's masks (``unit_at[k]``: masks[k]'s, for the
// r.start[64 * r.n_units] masks in runs), which AnchorWalk tests with the masks.
inline void unit_bits(const Runs& r, word* unit_at) {
    const uint64_t all = r.start[64 * r.n_units];
    for (uint64_t k = 0; k < all; ++k) unit_at[k] = 0;
    for (uint64_t x = 0; x < 64; ++x)
        for (uint64_t u = 0; u < r.n_units; ++u)
            for (uint64_t k = r.start[x * r.n_units + u];
                 k < r.start[x * r.n_units + u + 1] && k < all; ++k)
                unit_at[k] = (word)1 << u;
}

// The cell word as first_open's policy (search.hpp): one word, its zero bits open.
struct CellWord {
    word cells;
    static constexpr uint64_t n_words() { return 1; }
    word open_word(uint64_t) const { return ~cells; }
};

// Where the walk of one node's placements is: the anchor ``x``, the units not begun
// ``m``, the rest ``at`` to ``end`` of the run of masks of the unit ``bit``.
struct Walk {
    static constexpr bool FITS_AHEAD = false;  // (AnchorWalk's fits: a block's, at once)
    word m;
    const word* at;
    const word* end;
    word bit;
    uint64_t x;

    // A node's walk: its first empty cell, the units with options there not yet used.
    inline __attribute__((always_inline)) void begin(word cells, word used,
                                                     const word* avail) {
        x = first_open(CellWord{cells}, 0, 64);
        CPCORE_ASSERT(x < 64);  // a full board is a leaf, never a node walked
        m = avail[x] & ~used;
        at = end = nullptr;
    }
    inline __attribute__((always_inline)) void begin(word cells, word used, const word* avail,
                                                     const Runs&) {
        begin(cells, used, avail);
    }

    // The layout's runs as the branching choice walks them (search.hpp's next_option):
    // a run is the options of a unit of ``m`` (lowest first, the units not used), each a
    // cell mask.
    struct Options {
        Walk& w;
        const word cells;
        const Runs& r;
        word mask;

        inline __attribute__((always_inline)) Fit fit(const word* p) {  // (units are free)
            mask = *p;
            CPCORE_ASSERT((mask >> w.x) & 1);  // every option anchored at x covers it
            return (mask & cells) == 0 ? Fit::yes : Fit::no;
        }
        inline __attribute__((always_inline)) bool next_run(const word*& p, const word*& stop) {
            if (w.m == 0) return false;
            const uint64_t unit = lowest(w.m);
            w.m &= w.m - 1;
            p = r.masks + r.start[w.x * r.n_units + unit];
            stop = r.masks + r.start[w.x * r.n_units + unit + 1];
            w.bit = (word)1 << unit;
            return true;
        }
    };

    // The next placement that fits beside ``cells`` (its cells in ``om``), or false when
    // every one was tried.
    inline __attribute__((always_inline)) bool next(word cells, const Runs& r, word& om) {
        Options options{*this, cells, r, 0};
        if (!next_option(options, at, end)) return false;
        om = options.mask;
        return true;
    }

    // The index of the placement ``next`` found last (in the layout's runs).
    inline __attribute__((always_inline)) uint64_t placed(const Runs& r) const {
        return (uint64_t)(at - r.masks) - 1;
    }
};

// The walk of a node's placements tested by vectors (a policy of the same walk as Walk's:
// the same options in the same order, so the same tree): the options anchored at the first
// empty cell ``x`` are one stretch of the layout's masks (every unit's run at x, in unit
// order), taken in blocks of 64; a block's options that miss the cells and whose unit is
// not used are found at once (disjoint_bits of the masks and of their units, WORD_LANES
// words a test), and the walk takes the bits of ``fits`` lowest first, with no test and no
// branch an option, nor a run a unit. ``at`` is the option found last, ``bit`` its unit's
// bit. Which counts walk this way is the core's rule (cpcore/choice.hpp's
// COUNT_WALKS_BY_VECTORS).
struct AnchorWalk {
    static constexpr bool FITS_AHEAD = true;  // the block's options that fit, at begin
    word fits;          // the block's options not yet taken that fit
    const word* block;  // the block's first mask
    const word* end;    // the end of x's options
    const word* at;     // the option found last
    word used;          // the node's units
    word bit;
    uint64_t x;

    // The options of the block (from ``block``) that fit beside ``cells`` and ``used``.
    inline __attribute__((always_inline)) word block_fits(word cells, const Runs& r) const {
        const uint64_t all = r.start[64 * r.n_units], k = (uint64_t)(block - r.masks);
        const int64_t left = (int64_t)(end - block), room = (int64_t)all - (int64_t)k;
        const int64_t n = left < room ? left : room;  // (within the masks in runs)
        if (n <= 0) return 0;
        return disjoint_bits(block, r.unit_at + k, n < 64 ? (uint64_t)n : 64, all - k, cells,
                             used);
    }
    inline __attribute__((always_inline)) void begin(word cells, word used_by, const word*,
                                                     const Runs& r) {
        x = first_open(CellWord{cells}, 0, 64);
        CPCORE_ASSERT(x < 64);  // a full board is a leaf, never a node walked
        used = used_by;
        block = r.masks + r.start[x * r.n_units];
        end = r.masks + r.start[(x + 1) * r.n_units];
        at = nullptr;
        fits = block_fits(cells, r);
    }
    // The next placement that fits beside ``cells`` (its cells in ``om``), or false when
    // every one was tried.
    inline __attribute__((always_inline)) bool next(word cells, const Runs& r, word& om) {
        while (fits == 0) {
            if (end - block <= 64) return false;
            block += 64;
            fits = block_fits(cells, r);
        }
        at = block + lowest(fits);
        fits &= fits - 1;
        om = *at;
        bit = r.unit_at[at - r.masks];
        CPCORE_ASSERT(((om >> x) & 1) && (om & cells) == 0 && (bit & used) == 0);
        return true;
    }
    // The index of the placement ``next`` found last (in the layout's runs).
    inline __attribute__((always_inline)) uint64_t placed(const Runs& r) const {
        return (uint64_t)(at - r.masks);
    }
};

// The options of ``row`` (``n`` of them; -1 pads) forced on the state (``cells``,
// ``used``: force_options); whether they fit. ``placed(o)`` hears of each option placed.
template <class Placed>
inline bool place_options(const int64_t* row, uint64_t n, const word* opt_cells,
                          const word* opt_unit, word& cells, word& used, Placed placed) {
    return force_options(row, n, [&](int64_t o) {
        const bool fits = ((cells & opt_cells[o]) | (used & opt_unit[o])) == 0;
        cells |= opt_cells[o];
        used |= opt_unit[o];
        placed(o);
        return fits;
    });
}

const unsigned MAX_DEPTH = 65;  // a frame a unit, and the root (depth_first's frames)

// A frame of a search on the one-word layout (one a unit placed, at most MAX_DEPTH with the
// root): its node's words (Words: the cells, the units used, and what the search adds) and
// the walk of the node's placements. A search keeps its node as ``at`` and ``w``.
template <class Words, class W = Walk>
struct Frame {
    Words at;
    W walk;
};

// Keep the node (``at``, ``w``) in frame d of ``stack``, and take it back.
template <class Words, class W>
inline __attribute__((always_inline)) void keep_frame(Frame<Words, W>* stack, unsigned d,
                                                      const Words& at, const W& w) {
    CPCORE_ASSERT(d + 1 < MAX_DEPTH);  // a frame a unit: the stack holds them all
    stack[d] = Frame<Words, W>{at, w};
}
template <class Words, class W>
inline __attribute__((always_inline)) void take_frame(const Frame<Words, W>* stack, unsigned d,
                                                      Words& at, W& w) {
    at = stack[d].at;
    w = stack[d].walk;
}

}  // namespace cpcore
