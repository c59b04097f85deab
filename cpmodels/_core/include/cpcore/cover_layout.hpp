// A cover's layout for the general kernels (layouts/cover.py's CompiledCover) and its tallies
// (layouts/tally.py's TallyLayout), made from the cover's flat arrays (entry.h's
// cpcore_cover_input). One pass serves both calls: with no output it checks the cover and
// measures what to allocate; with the caller's arrays it fills them. Freestanding: the
// caller hands in every buffer, scratch included.
//
// The input. Item i has bounds low[i] <= high[i] and a board cell item_cell[i] (-1: none);
// it is *exact-one* when low = high = 1, *secondary* when low = 0 and high = 1, a
// *multiplicity* item (a counter) otherwise. Cell x's neighbours are cell_nbs[cell_nb_start[x]
// .. cell_nb_start[x + 1] - 1] in the grid's order (-1: one the cover lacks); option j's items
// are opt_items[opt_start[j] .. opt_start[j + 1] - 1]. Both run tables start at 0 and never
// decrease (runs_ok).
//
// The layout (cpcore_cover_layout). bit_of_item[i]: the exact-one items are bits 0 ..
// n_branch - 1 in item order (the branching order), the secondary ones the bits after; -1
// for a counter, whose index is counter_of_item[i]. opt_mask[j] (n_words words) is option j's
// bits. anchor_start[b] .. anchor_start[b + 1] - 1 index the options anchor_opts whose lowest
// bit is b, grouped by their tag (their last item), group_end[k] the end of k's group (a
// run of one tag and one counter, used up together). A
// counter state is the code sum(counter * radix), radix[k] the product of (high + 1) of the
// counters before k; memo_ok says every code stays below 2**63. cell_nb[b] (degree words)
// are board bit b's neighbouring board bits, -1 padded; opt_nb[opt_nb_start[j] ..] the
// board bits next to option j and outside it, sorted; fillable[k] whether k board cells can
// be filled by some pieces, region_limit the size below which a region is checked.
//
// The tallies (cpcore_tally_layout). Tally item t (0 .. n_tally - 1) is an exact-one item of
// bit bit[t]; opt_tally[j] the tally item option j covers (-1: none) and opt_index[j] its
// index among that item's options (covering[covering_start[t] ..]). A state whose uncovered
// tally items are the mask m keeps a vector of length[m] counts, tally item t's option
// varying with stride[m][t]; map_flat[map_start[m * cols + t] ..] maps each entry of the
// child (m less t) to its parent's entry.
#pragma once

#include <stdint.h>

#include "cpcore/check.hpp"
#include "cpcore/entry.h"

// The three entry points of a layout (entry.h's PREFIX_work, PREFIX_measure and
// PREFIX_fill over its input In, its sizes Sizes and its arrays Out), written once for all
// the layouts: the scratch words are WORK(*in); measure and fill clear the sizes, then call
// LAY_OUT(*in, work, *sizes, out), which checks the input, with out null or the caller's.
#define CPCORE_LAYOUT_ENTRY_POINTS(PREFIX, In, Sizes, Out, WORK, LAY_OUT)              \
    extern "C" uint64_t PREFIX##_work(const In* in) { return WORK(*in); }              \
    extern "C" void PREFIX##_fill(const In* in, int64_t* work, Sizes* sizes,           \
                                  const Out* out) {                                    \
        *sizes = Sizes{};                                                              \
        LAY_OUT(*in, work, *sizes, out);                                               \
    }                                                                                  \
    extern "C" void PREFIX##_measure(const In* in, int64_t* work, Sizes* sizes) {      \
        PREFIX##_fill(in, work, sizes, nullptr);                                       \
    }

namespace cpcore {
namespace layout {

inline const char* error_message(int64_t code) {
    switch (code) {
        case CPCORE_LAYOUT_OK: return "";
        case CPCORE_LAYOUT_BAD_BOUNDS: return "an item's bounds must be 0 <= low <= high < 2**31";
        case CPCORE_LAYOUT_BAD_CELL: return "an item's cell or a cell's neighbour is out of range";
        case CPCORE_LAYOUT_BAD_RUNS: return "the cover's runs must start at 0 and not decrease";
        case CPCORE_LAYOUT_BAD_ITEM: return "an option names an item the cover does not have";
        case CPCORE_LAYOUT_REPEATED_ITEM: return "an option lists an item twice";
        case CPCORE_LAYOUT_TWO_COUNTERS: return "an option may cover at most one multiplicity item";
        case CPCORE_LAYOUT_TWO_TALLIES: return "an option may cover at most one tally item";
        case CPCORE_LAYOUT_NOT_EXACT_ONE: return "a tally item is not an exact-one item";
        case CPCORE_LAYOUT_TOO_MANY_TALLIES: return "at most 16 tally items";
        case CPCORE_LAYOUT_TOO_LARGE:
            return "the tallies are too large: more than 2**40 counts to a state";
        case CPCORE_LAYOUT_REPEATED_TALLY: return "a tally item is listed twice";
        default: return "the core refused the layout";
    }
}

inline bool exact_one(const cpcore_cover_input& c, uint64_t i) {
    return c.low[i] == 1 && c.high[i] == 1;
}
inline bool secondary(const cpcore_cover_input& c, uint64_t i) {
    return c.low[i] == 0 && c.high[i] == 1;
}

// start is a table of n + 1 runs into an array of `total` entries.
inline bool runs_ok(const int64_t* start, uint64_t n, uint64_t total) {
    if (start[0] != 0 || (uint64_t)start[n] != total) return false;
    for (uint64_t k = 0; k < n; ++k)
        if (start[k + 1] < start[k]) return false;
    return true;
}

inline int64_t check_cover(const cpcore_cover_input& c) {
    for (uint64_t i = 0; i < c.n_items; ++i) {
        if (c.low[i] < 0 || c.high[i] < c.low[i] || c.high[i] >= ((int64_t)1 << 31))
            return CPCORE_LAYOUT_BAD_BOUNDS;
        if (c.item_cell[i] < -1 || c.item_cell[i] >= (int64_t)c.n_cells)
            return CPCORE_LAYOUT_BAD_CELL;
    }
    if (!runs_ok(c.cell_nb_start, c.n_cells, c.n_cell_nbs) ||
        !runs_ok(c.opt_start, c.n_options, c.n_opt_items))
        return CPCORE_LAYOUT_BAD_RUNS;
    for (uint64_t k = 0; k < c.n_cell_nbs; ++k)
        if (c.cell_nbs[k] < -1 || c.cell_nbs[k] >= (int64_t)c.n_cells)
            return CPCORE_LAYOUT_BAD_CELL;
    for (uint64_t k = 0; k < c.n_opt_items; ++k)
        if (c.opt_items[k] < 0 || c.opt_items[k] >= (int64_t)c.n_items)
            return CPCORE_LAYOUT_BAD_ITEM;
    return CPCORE_LAYOUT_OK;
}

// The scratch a cover's layout works in, carved from the caller's words.
struct Work {
    int64_t *bit_of, *counter_of, *seen, *area, *tag_start, *cursor, *marks;  // items (+1)
    int64_t *cell_bit;                                                        // cells
    int64_t *anchor_of, *by_tag;                                              // options
};

inline uint64_t work_words(const cpcore_cover_input& c) {
    return 7 * (c.n_items + 1) + c.n_cells + 2 * c.n_options;
}

inline Work carve(const cpcore_cover_input& c, int64_t* w) {
    const uint64_t n = c.n_items + 1;
    Work k;
    k.bit_of = w;
    k.counter_of = w + n;
    k.seen = w + 2 * n;
    k.area = w + 3 * n;
    k.tag_start = w + 4 * n;
    k.cursor = w + 5 * n;
    k.marks = w + 6 * n;  // by branching bit: n_branch <= n_items
    k.cell_bit = w + 7 * n;
    k.anchor_of = k.cell_bit + c.n_cells;
    k.by_tag = k.anchor_of + c.n_options;
    return k;
}

// Subset sums of piece areas (regions.py's region_sizes): fillable[0 .. total] and the limit.
inline int64_t region_sizes(const int64_t* areas, const int64_t* copies, uint64_t n,
                            uint64_t total, uint8_t* fillable) {
    for (uint64_t k = 0; k <= total; ++k) fillable[k] = k == 0;
    int64_t largest = 0;
    bool any = false;
    for (uint64_t p = 0; p < n; ++p) {
        CPCORE_ASSERT(areas[p] > 0);  // as the callers check
        const int64_t copies_p = copies ? copies[p] : 1;
        if (copies_p <= 0) continue;
        const uint64_t size = (uint64_t)areas[p];
        any = true;
        if (areas[p] > largest) largest = areas[p];
        if (size == 0 || size > total) continue;
        // More copies than fit in the board change nothing.
        const uint64_t reps = (uint64_t)copies_p < total / size + 1 ? (uint64_t)copies_p
                                                                     : total / size + 1;
        for (uint64_t r = 0; r < reps; ++r)
            for (uint64_t k = total; k >= size; --k)
                if (fillable[k - size]) fillable[k] = 1;
    }
    if (!any) return 0;
    // Flood fills cost time: look only at regions smaller than two of the largest pieces.
    const uint64_t cap = 2 * (uint64_t)largest + 2;
    for (uint64_t k = (total < cap - 1 ? total : cap - 1); k >= 1; --k)
        if (!fillable[k]) {
            CPCORE_ASSERT(k + 1 <= total + 1);  // a size fillable[] has
            return (int64_t)k + 1;
        }
    return 0;
}

// Sort v[0 .. n) ascending (a few entries: the cells next to one option).
inline void sort_small(int64_t* v, int64_t n) {
    for (int64_t a = 1; a < n; ++a) {
        const int64_t x = v[a];
        int64_t b = a;
        for (; b > 0 && v[b - 1] > x; --b) v[b] = v[b - 1];
        v[b] = x;
    }
}

// Check cover c (s.error says what is wrong), then measure (out null) or fill its layout.
inline void lay_out(const cpcore_cover_input& c, int64_t* words, cpcore_cover_sizes& s,
                    const cpcore_cover_layout* out) {
    s.error = check_cover(c);
    if (s.error != CPCORE_LAYOUT_OK) return;
    Work w = carve(c, words);
    const uint64_t n_items = c.n_items, n_opts = c.n_options;
    // Bits: the exact-one items in order, then the secondary ones; the rest are counters.
    int64_t n_branch = 0, n_secondary = 0, n_counters = 0;
    for (uint64_t i = 0; i < n_items; ++i) n_branch += exact_one(c, i);
    for (uint64_t i = 0; i < n_items; ++i) {
        w.bit_of[i] = w.counter_of[i] = -1;
        w.seen[i] = -1;
        w.area[i] = -1;
        if (exact_one(c, i)) continue;
        if (secondary(c, i)) w.bit_of[i] = n_branch + n_secondary++;
        else w.counter_of[i] = n_counters++;
    }
    for (uint64_t i = 0, b = 0; i < n_items; ++i)
        if (exact_one(c, i)) w.bit_of[i] = (int64_t)b++;
    s.n_branch = n_branch;
    s.n_bits = n_branch + n_secondary;
    s.n_words = s.n_bits > 0 ? (s.n_bits + 63) / 64 : 1;
    s.n_counters = n_counters;
    // The counters' state code: memo keys need it below 2**63.
    uint64_t states = 1;
    bool big = false;
    for (uint64_t i = 0, k = 0; i < n_items; ++i) {
        if (w.counter_of[i] < 0) continue;
        if (out) {
            out->counter_low[k] = c.low[i];
            out->counter_high[k] = c.high[i];
            out->radix[k] = states;
        }
        ++k;
        // states * (high + 1) in two halves (high < 2**31: each half's product fits), big
        // once it passes 2**64; the radix wraps then, and is not used.
        const uint64_t factor = (uint64_t)c.high[i] + 1;
        const uint64_t upper = (states >> 32) * factor, lower = (states & 0xFFFFFFFFu) * factor;
        const uint64_t product = (upper << 32) + lower;
        if ((upper >> 32) != 0 || product < lower) big = true;
        states = product;
    }
    s.memo_ok = !big && states < ((uint64_t)1 << 63);
    // Board cells: the cells of exact-one cell items (a cell's last such item names it).
    // Two such items on one cell, or a cell named by an item that is not exact-one, leave
    // the region check without its areas (it is off).
    bool shared = false;
    for (uint64_t x = 0; x < c.n_cells; ++x) w.cell_bit[x] = -1;
    for (uint64_t i = 0; i < n_items; ++i) {
        if (c.item_cell[i] < 0) continue;
        if (w.bit_of[i] < 0 || w.bit_of[i] >= n_branch) {
            shared = true;
            continue;
        }
        shared = shared || w.cell_bit[c.item_cell[i]] >= 0;
        w.cell_bit[c.item_cell[i]] = w.bit_of[i];
    }
    int64_t board = 0, degree = -1;
    for (uint64_t x = 0; x < c.n_cells; ++x) {
        if (w.cell_bit[x] < 0) continue;
        ++board;
        const int64_t d = c.cell_nb_start[x + 1] - c.cell_nb_start[x];
        if (d > degree) degree = d;
    }
    s.n_board_cells = board;
    s.degree = degree < 0 ? 4 : degree;
    const int64_t deg = s.degree;
    // The region check's flood fill needs neighbours both ways, and no cell its own.
    for (uint64_t x = 0; x < c.n_cells && !shared; ++x) {
        if (w.cell_bit[x] < 0) continue;
        for (int64_t k = c.cell_nb_start[x]; k < c.cell_nb_start[x + 1] && !shared; ++k) {
            const int64_t y = c.cell_nbs[k];
            if (y < 0 || w.cell_bit[y] < 0) continue;
            bool back = false;
            for (int64_t q = c.cell_nb_start[y]; q < c.cell_nb_start[y + 1]; ++q)
                back = back || c.cell_nbs[q] == (int64_t)x;
            shared = y == (int64_t)x || !back;
        }
    }
    // A board cell's neighbouring board-cell bit k (-1: none).
    auto nb_bit = [&](int64_t x, int64_t k) -> int64_t {
        if (k >= c.cell_nb_start[x + 1] - c.cell_nb_start[x]) return -1;
        const int64_t y = c.cell_nbs[c.cell_nb_start[x] + k];
        return y >= 0 ? w.cell_bit[y] : -1;
    };
    if (out) {
        const int64_t rows = n_branch > 0 ? n_branch : 1;
        for (int64_t k = 0; k < rows * deg; ++k) out->cell_nb[k] = -1;
        for (uint64_t x = 0; x < c.n_cells; ++x)
            if (w.cell_bit[x] >= 0)
                for (int64_t k = 0; k < deg; ++k)
                    out->cell_nb[w.cell_bit[x] * deg + k] = nb_bit((int64_t)x, k);
        for (uint64_t k = 0; k < n_opts * (uint64_t)s.n_words; ++k) out->opt_mask[k] = 0;
        out->opt_nb_start[0] = 0;
    }
    for (int64_t b = 0; b < n_branch; ++b) w.marks[b] = -1;
    // Each board cell bit's cell (tag_start is free until the options are sorted by tag).
    for (uint64_t x = 0; x < c.n_cells; ++x)
        if (w.cell_bit[x] >= 0) w.tag_start[w.cell_bit[x]] = (int64_t)x;
    // Each option: its bits, its counter, its tag and anchor, the cells around it.
    s.error = CPCORE_LAYOUT_OK;
    bool consistent = board > 0 && !shared;
    int64_t n_anchored = 0, n_nb = 0;
    for (uint64_t j = 0; j < n_opts; ++j) {
        const int64_t* items = c.opt_items + c.opt_start[j];
        const int64_t len = c.opt_start[j + 1] - c.opt_start[j];
        int64_t counter = -1, anchor = -1, cells = 0;
        const int64_t inside = 2 * (int64_t)j, around = inside + 1;
        for (int64_t k = 0; k < len; ++k) {
            const int64_t i = items[k];
            if (w.seen[i] == (int64_t)j) {
                if (!s.error) s.error = CPCORE_LAYOUT_REPEATED_ITEM;
                continue;
            }
            w.seen[i] = (int64_t)j;
            const int64_t b = w.bit_of[i];
            CPCORE_ASSERT(b < s.n_bits && w.counter_of[i] < n_counters);
            if (b >= 0 && out) out->opt_mask[j * s.n_words + (b >> 6)] |= (uint64_t)1 << (b & 63);
            if (b >= 0 && b < n_branch && (anchor < 0 || b < anchor)) anchor = b;
            if (w.counter_of[i] >= 0) {
                if (counter >= 0 && !s.error) s.error = CPCORE_LAYOUT_TWO_COUNTERS;
                counter = w.counter_of[i];
            }
            const int64_t x = c.item_cell[i];
            if (x >= 0 && w.cell_bit[x] >= 0) {
                CPCORE_ASSERT(w.cell_bit[x] < n_branch);
                w.marks[w.cell_bit[x]] = inside;
                ++cells;
            } else if (x >= 0) {
                consistent = false;  // a cell that is no board cell
            }
        }
        // The board cells next to the option (outside it), in increasing order.
        const int64_t first = n_nb;
        for (int64_t k = 0; k < len; ++k) {
            const int64_t x = c.item_cell[items[k]];
            if (x < 0 || w.cell_bit[x] < 0) continue;
            for (int64_t d = 0; d < deg; ++d) {
                const int64_t b = nb_bit(x, d);
                if (b < 0 || w.marks[b] == inside || w.marks[b] == around) continue;
                w.marks[b] = around;
                if (out) out->opt_nb[n_nb] = b;
                ++n_nb;
            }
        }
        // Region pruning holds only where each option's cells are connected through the
        // cells' neighbours, as a piece's are: a flood fill from its first cell (the stack
        // in cursor, free until the anchors are laid out) must reach all of them.
        if (consistent && cells > 0) {
            const int64_t unreached = -2 * (int64_t)j - 2, reached = unreached - 1;
            int64_t distinct = 0, start = -1, found = 1, top = 0;
            for (int64_t k = 0; k < len; ++k) {
                const int64_t x = c.item_cell[items[k]];
                if (x < 0 || w.cell_bit[x] < 0 || w.marks[w.cell_bit[x]] != inside) continue;
                w.marks[w.cell_bit[x]] = unreached;
                ++distinct;
                if (start < 0) start = w.cell_bit[x];
            }
            w.marks[start] = reached;
            w.cursor[top++] = start;
            while (top > 0) {
                const int64_t b = w.cursor[--top];
                for (int64_t d = 0; d < deg; ++d) {
                    const int64_t next = nb_bit(w.tag_start[b], d);
                    if (next < 0 || w.marks[next] != unreached) continue;
                    CPCORE_ASSERT(top < n_branch);
                    w.marks[next] = reached;
                    w.cursor[top++] = next;
                    ++found;
                }
            }
            if (found != distinct) consistent = false;
        }
        if (out) {
            sort_small(out->opt_nb + first, n_nb - first);
            out->opt_nb_start[j + 1] = n_nb;
            out->opt_counter[j] = counter;
            out->opt_tag_word[j] = -1;
            out->opt_tag_bit[j] = 0;
        }
        // A piece's options all cover as many cells (a piece left out covers none).
        const int64_t tag = len > 0 ? items[len - 1] : -1;
        if (cells > 0) {
            if (w.area[tag] < 0) w.area[tag] = cells;
            else if (w.area[tag] != cells) consistent = false;
        }
        w.anchor_of[j] = anchor;
        if (anchor < 0) continue;
        ++n_anchored;
        const int64_t tb = w.bit_of[tag];
        if (out && tb >= 0) {
            out->opt_tag_word[j] = tb >> 6;
            out->opt_tag_bit[j] = (uint64_t)1 << (tb & 63);
        }
    }
    CPCORE_ASSERT(n_anchored <= (int64_t)n_opts);
    s.n_anchored = n_anchored;
    s.n_opt_nb = n_nb;
    if (!out) return;
    for (uint64_t i = 0; i < n_items; ++i) {
        out->bit_of_item[i] = w.bit_of[i];
        out->counter_of_item[i] = w.counter_of[i];
    }
    // Options by anchor, then by tag, then by id: counting sorts by tag, then by anchor.
    for (uint64_t t = 0; t <= n_items; ++t) w.tag_start[t] = 0;
    for (uint64_t j = 0; j < n_opts; ++j)
        if (w.anchor_of[j] >= 0) ++w.tag_start[c.opt_items[c.opt_start[j + 1] - 1] + 1];
    for (uint64_t t = 0; t < n_items; ++t) w.tag_start[t + 1] += w.tag_start[t];
    for (uint64_t j = 0; j < n_opts; ++j)
        if (w.anchor_of[j] >= 0)
            w.by_tag[w.tag_start[c.opt_items[c.opt_start[j + 1] - 1]]++] = (int64_t)j;
    for (int64_t a = 0; a <= n_branch; ++a) out->anchor_start[a] = 0;
    for (uint64_t j = 0; j < n_opts; ++j)
        if (w.anchor_of[j] >= 0) ++out->anchor_start[w.anchor_of[j] + 1];
    for (int64_t a = 0; a < n_branch; ++a) out->anchor_start[a + 1] += out->anchor_start[a];
    for (int64_t a = 0; a < n_branch; ++a) w.cursor[a] = out->anchor_start[a];
    for (int64_t k = 0; k < n_anchored; ++k) {
        const int64_t j = w.by_tag[k];
        CPCORE_ASSERT(w.cursor[w.anchor_of[j]] < out->anchor_start[w.anchor_of[j] + 1]);
        out->anchor_opts[w.cursor[w.anchor_of[j]]++] = j;
    }
    CPCORE_ASSERT(out->anchor_start[n_branch] == n_anchored);
    // The end of each run of options of one tag and one counter under an anchor (a run is
    // passed over whole when one of its options is used up: its options are used up
    // together, as a piece's are, however the cover names its counters).
    auto tag_of = [&](int64_t k) { return c.opt_items[c.opt_start[out->anchor_opts[k] + 1] - 1]; };
    auto one_run = [&](int64_t k) {
        return tag_of(k) == tag_of(k + 1) &&
               out->opt_counter[out->anchor_opts[k]] == out->opt_counter[out->anchor_opts[k + 1]];
    };
    for (int64_t a = 0; a < n_branch; ++a) {
        int64_t end = out->anchor_start[a + 1];
        for (int64_t k = out->anchor_start[a + 1] - 1; k >= out->anchor_start[a]; --k) {
            if (k + 1 < out->anchor_start[a + 1] && !one_run(k)) end = k + 1;
            CPCORE_ASSERT(end > k && end <= out->anchor_start[a + 1]);
            out->group_end[k] = end;
        }
    }
    // Region sizes: each piece's area, as many times as the piece is placed.
    int64_t n_areas = 0;
    for (uint64_t i = 0; i < n_items; ++i) {
        if (w.area[i] < 0) continue;
        CPCORE_ASSERT(w.area[i] >= 1);  // (past the board when two items name one cell)
        w.tag_start[n_areas] = w.area[i];
        w.cursor[n_areas++] = c.high[i];
    }
    s.region_limit = region_sizes(w.tag_start, w.cursor, consistent ? (uint64_t)n_areas : 0,
                                  (uint64_t)board, out->fillable);
}

// --- tallies ------------------------------------------------------------------------------

inline uint64_t tally_work_words(const cpcore_tally_input& t) {
    return t.cover->n_items + t.cover->n_options;
}

const int64_t MAX_TALLY_ITEMS = 16;
const int64_t MAX_TALLY_ENTRIES = (int64_t)1 << 40;

// Measure (out null) or fill the tallies' layout.
inline void lay_out_tallies(const cpcore_tally_input& t, int64_t* words, cpcore_tally_sizes& s,
                            const cpcore_tally_layout* out) {
    const cpcore_cover_input& c = *t.cover;
    const int64_t n_t = (int64_t)t.n_tally;
    s.bad_item = -1;
    s.error = check_cover(c);
    if (!s.error && !runs_ok(t.anchor_start, t.n_branch, t.n_anchored))
        s.error = CPCORE_LAYOUT_BAD_RUNS;
    for (uint64_t k = 0; k < t.n_anchored && !s.error; ++k)
        if (t.anchor_opts[k] < 0 || t.anchor_opts[k] >= (int64_t)c.n_options)
            s.error = CPCORE_LAYOUT_BAD_RUNS;
    if (s.error) return;
    for (int64_t k = 0; k < n_t; ++k) {
        const int64_t i = t.items[k];
        if (i < 0 || (uint64_t)i >= c.n_items || t.bit_of_item[i] < 0 ||
            t.bit_of_item[i] >= (int64_t)t.n_branch) {
            s.error = CPCORE_LAYOUT_NOT_EXACT_ONE;
            s.bad_item = k;
            return;
        }
    }
    if (n_t > MAX_TALLY_ITEMS) {
        s.error = CPCORE_LAYOUT_TOO_MANY_TALLIES;
        return;
    }
    const int64_t cols = n_t > 0 ? n_t : 1, masks = (int64_t)1 << n_t;
    s.cols = cols;
    s.masks = masks;
    int64_t* where = words;                   // item -> tally item (the last listed), or -1
    int64_t* anchor_of = words + c.n_items;   // option -> anchor, or -1
    for (uint64_t i = 0; i < c.n_items; ++i) where[i] = -1;
    for (int64_t k = 0; k < n_t; ++k) {
        if (where[t.items[k]] >= 0) {  // each tally item once: its options' index is its own
            s.error = CPCORE_LAYOUT_REPEATED_TALLY;
            s.bad_item = k;
            return;
        }
        where[t.items[k]] = k;
    }
    for (uint64_t j = 0; j < c.n_options; ++j) anchor_of[j] = -1;
    for (uint64_t a = 0; a < t.n_branch; ++a)
        for (int64_t k = t.anchor_start[a]; k < t.anchor_start[a + 1]; ++k)
            anchor_of[t.anchor_opts[k]] = (int64_t)a;
    int64_t sizes[MAX_TALLY_ITEMS] = {0};
    if (out)
        for (int64_t k = 0; k < cols; ++k) {
            out->last_anchor[k] = -1;
            out->bit[k] = n_t > 0 ? t.bit_of_item[t.items[k]] : 0;
        }
    int64_t n_covering = 0;
    for (uint64_t j = 0; j < c.n_options; ++j) {
        int64_t hit = -1;
        for (int64_t k = c.opt_start[j]; k < c.opt_start[j + 1]; ++k) {
            const int64_t h = where[c.opt_items[k]];
            if (h < 0) continue;
            if (hit >= 0) {
                s.error = CPCORE_LAYOUT_TWO_TALLIES;
                return;
            }
            hit = h;
        }
        if (out) out->opt_tally[j] = out->opt_index[j] = -1;
        if (hit < 0 || anchor_of[j] < 0) continue;
        if (out) {
            out->opt_tally[j] = hit;
            out->opt_index[j] = sizes[hit];
            if (anchor_of[j] > out->last_anchor[hit]) out->last_anchor[hit] = anchor_of[j];
        }
        ++sizes[hit];
        ++n_covering;
    }
    s.n_covering = n_covering;
    // A state's vector: tally item 0 varies slowest; an item no option covers counts once.
    auto length = [&](int64_t mask) {
        int64_t n = 1;
        for (int64_t k = 0; k < n_t; ++k)
            if (mask >> k & 1) n *= sizes[k] > 0 ? sizes[k] : 1;
        return n;
    };
    int64_t flat = 0;
    for (int64_t k = 0; k < n_t; ++k)
        if (sizes[k] > MAX_TALLY_ENTRIES) s.error = CPCORE_LAYOUT_TOO_LARGE;
    for (int64_t mask = 0; mask < masks && !s.error; ++mask) {
        // Each factor is below 2**40 and the running product stays below 2**40.
        int64_t n = 1;
        for (int64_t k = 0; k < n_t && !s.error; ++k) {
            if (!(mask >> k & 1)) continue;
            n *= sizes[k] > 0 ? sizes[k] : 1;
            if (n > MAX_TALLY_ENTRIES) s.error = CPCORE_LAYOUT_TOO_LARGE;
        }
        for (int64_t k = 0; k < n_t && !s.error; ++k) {
            if (mask >> k & 1) flat += n / (sizes[k] > 0 ? sizes[k] : 1);
            if (flat > MAX_TALLY_ENTRIES) s.error = CPCORE_LAYOUT_TOO_LARGE;
        }
    }
    if (s.error) return;
    s.n_map_flat = flat > 0 ? flat : 1;
    if (!out) return;
    int64_t* at = out->covering_start;
    at[0] = 0;
    for (int64_t k = 0; k < n_t; ++k) at[k + 1] = at[k] + sizes[k];
    for (uint64_t j = 0; j < c.n_options; ++j)
        if (out->opt_tally[j] >= 0) {
            CPCORE_ASSERT(out->opt_index[j] < sizes[out->opt_tally[j]]);
            out->covering[at[out->opt_tally[j]] + out->opt_index[j]] = (int64_t)j;
        }
    for (int64_t mask = 0; mask < masks; ++mask) {
        int64_t n = 1;
        for (int64_t k = cols - 1; k >= 0; --k) {
            out->stride[mask * cols + k] = 0;
            if (n_t > 0 && (mask >> k & 1)) {
                out->stride[mask * cols + k] = n;
                n *= sizes[k] > 0 ? sizes[k] : 1;
            }
        }
        out->length[mask] = length(mask);
    }
    // Child-to-parent maps: entry x of the state without item k, placed in the parent's.
    int64_t pos = 0;
    for (int64_t mask = 0; mask < masks; ++mask) {
        for (int64_t k = 0; k < cols; ++k) {
            out->map_start[mask * cols + k] = pos;
            if (n_t == 0 || !(mask >> k & 1)) continue;
            const int64_t child = mask & ~((int64_t)1 << k);
            for (int64_t x = 0; x < out->length[child]; ++x) {
                int64_t y = 0;
                for (int64_t u = 0; u < n_t; ++u) {
                    if (!(child >> u & 1)) continue;
                    const int64_t size = sizes[u] > 0 ? sizes[u] : 1;
                    y += (x / out->stride[child * cols + u]) % size * out->stride[mask * cols + u];
                }
                CPCORE_ASSERT(pos < s.n_map_flat && y < out->length[mask]);
                out->map_flat[pos++] = y;
            }
        }
    }
    out->map_start[masks * cols] = pos;
    if (pos == 0) out->map_flat[0] = 0;
}

}  // namespace layout
}  // namespace cpcore
