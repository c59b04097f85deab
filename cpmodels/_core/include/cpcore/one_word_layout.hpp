// The one-word kernel's layout of an exact cover (layouts/cover.py's OneWord), read from the
// cover itself: measured, then laid out in the caller's arrays. A cover it does not suit is
// an answer (sizes.suits = 0), not an error; a cover the core cannot read is refused as the
// general layout refuses it (CPCORE_LAYOUT_*).
//
// It suits a cover whose items are all exact-one, whose board cells fit one word and whose
// other items (pieces and slack items: ItemKind 1, 2) are at most 64. The *cell word* holds
// bit slow * inner + fast of each board cell (its two coordinates less their least, the
// axis of the longer extent slowest; flips reverses the lines, or each line); the *piece
// word* one bit per other item, in item order. Then, for option j: opt_cells[j] its cells'
// bits, opt_piece[j] its one piece bit (an option with no piece bit, or two, does not
// suit). The options anchored at cell bit x (their lowest cell) that cover piece bit p are
// the run masks[start[x * n_pieces + p] .. start[x * n_pieces + p + 1] - 1] of their cell
// masks, opts[...] their ids over the same run; avail[x] the piece bits with a run at x. A
// left-out option (OptionKind 2: no cells) is in no run, and its piece bit is in
// ``optional``. slack_cells[p] are the cells of slack item p's options; areas[p] the number
// of cells of each of p's options (all equal, or it does not suit; 0: none); fillable and
// region_limit as in cover_layout.hpp, over the pieces' areas, each piece once. The region
// check (region_limit, isolated_dead) holds only where each option's cells are joined
// through the grid's sides, as a piece's are: an option whose cells fall apart may fill a
// region together with cells elsewhere, so a cover with one has the check off.
#pragma once

#include <stdint.h>

#include "cpcore/cover_layout.hpp"
#include "cpcore/entry.h"
#include "cpcore/one_word.hpp"

namespace cpcore {
namespace one_word_layout {

const int64_t CELL = 0, SLACK_ITEM = 2;                  // ItemKind
const int64_t PIECE = 0, SLACK = 1, LEFT_OUT = 2;        // OptionKind
const uint64_t GROUPS = 64 * 64;                         // (anchor bit, piece bit) runs

inline uint64_t work_words(const cpcore_one_word_input& in) {
    return 2 * in.cover->n_items + GROUPS + 1 + 2 * 64;
}

// Whether the cells of ``mask`` (not empty) are joined through the sides of grid g's cells.
inline bool joined(word mask, const Grid& g) {
    word reached = mask & (~mask + 1);
    for (;;) {
        const word grown = (reached | around(reached, g)) & mask;
        if (grown == reached) return reached == mask;
        reached = grown;
    }
}

// Check the cover, then lay it out (out null: measure only) on cleared sizes s; s.suits
// says whether it suits.
inline void lay_out(const cpcore_one_word_input& in, int64_t* w, cpcore_one_word_sizes& s,
                    const cpcore_one_word_layout* out) {
    const cpcore_cover_input& c = *in.cover;
    s.error = layout::check_cover(c);
    if (s.error != CPCORE_LAYOUT_OK) return;
    int64_t *bit_of = w, *piece_of = w + c.n_items, *count = w + 2 * c.n_items;
    int64_t *area_of = count + GROUPS + 1, *area_order = area_of + 64;
    uint64_t n_cells = 0, n_others = 0;
    int64_t low[2] = {0, 0}, high[2] = {0, 0};
    for (uint64_t i = 0; i < c.n_items; ++i) {
        const int64_t kind = in.item_kind[i];
        if (kind < CELL || kind > SLACK_ITEM || c.low[i] != 1 || c.high[i] != 1) return;
        piece_of[i] = kind != CELL ? (int64_t)n_others++ : -1;
        if (c.item_cell[i] < 0) continue;
        for (int k = 0; k < 2; ++k) {
            const int64_t at = in.cell_xy[2 * c.item_cell[i] + k];
            if (n_cells == 0 || at < low[k]) low[k] = at;
            if (n_cells == 0 || at > high[k]) high[k] = at;
        }
        ++n_cells;
    }
    if (n_cells == 0 || n_others == 0 || n_others > 64 || n_cells + n_others != c.n_items)
        return;
    uint64_t extent[2];
    for (int k = 0; k < 2; ++k) {
        extent[k] = (uint64_t)high[k] - (uint64_t)low[k];  // modular: high >= low
        if (extent[k] >= 64) return;
    }
    const int slow = extent[1] > extent[0] ? 1 : 0, fast = 1 - slow;
    const uint64_t inner = extent[fast] + 1;
    if ((extent[slow] + 1) * inner > 64) return;
    uint64_t board = 0;
    for (uint64_t i = 0; i < c.n_items; ++i) {
        bit_of[i] = -1;
        if (c.item_cell[i] < 0) continue;
        uint64_t at_slow = (uint64_t)in.cell_xy[2 * c.item_cell[i] + slow] - (uint64_t)low[slow];
        uint64_t at_fast = (uint64_t)in.cell_xy[2 * c.item_cell[i] + fast] - (uint64_t)low[fast];
        if (in.flips & 1) at_slow = extent[slow] - at_slow;
        if (in.flips & 2) at_fast = extent[fast] - at_fast;
        bit_of[i] = (int64_t)(at_slow * inner + at_fast);
        CPCORE_ASSERT(bit_of[i] >= 0 && bit_of[i] < 64);
        if (board >> bit_of[i] & 1) return;  // two cell items on one cell
        board |= (uint64_t)1 << bit_of[i];
    }
    const uint64_t n_pieces = n_others;
    Grid grid{inner, 0, 0};  // each line's first and last bits
    for (uint64_t b = 0; b < 64; b += inner) {
        grid.first |= (uint64_t)1 << b;
        if (b + inner - 1 < 64) grid.last |= (uint64_t)1 << (b + inner - 1);
    }
    bool all_joined = true;
    for (uint64_t g = 0; g <= GROUPS; ++g) count[g] = 0;
    for (int p = 0; p < 64; ++p) area_of[p] = -1;
    int64_t n_areas = 0;
    uint64_t optional = 0;
    if (out)
        for (int p = 0; p < 64; ++p) out->slack_cells[p] = 0;
    for (uint64_t j = 0; j < c.n_options; ++j) {
        uint64_t mask = 0, n_bits = 0, n_owners = 0;
        int64_t owner = -1, lowest = 64;
        for (int64_t k = c.opt_start[j]; k < c.opt_start[j + 1]; ++k) {
            const int64_t i = c.opt_items[k];
            if (bit_of[i] >= 0) {
                if (mask >> bit_of[i] & 1) return;
                mask |= (uint64_t)1 << bit_of[i];
                ++n_bits;
                if (bit_of[i] < lowest) lowest = bit_of[i];
            }
            if (piece_of[i] >= 0) {
                ++n_owners;
                owner = i;
            }
        }
        if (n_owners != 1 || n_bits + 1 != (uint64_t)(c.opt_start[j + 1] - c.opt_start[j]))
            return;
        const int64_t p = piece_of[owner];
        const int64_t expected = in.item_kind[owner] == SLACK_ITEM ? SLACK
                                 : n_bits ? PIECE : LEFT_OUT;
        if ((in.option_kind && in.option_kind[j] != expected) ||
            (expected == SLACK && n_bits != 1))
            return;
        if (expected == LEFT_OUT) {
            if (optional >> p & 1) return;  // two ways to leave one piece out
            optional |= (uint64_t)1 << p;
        } else if (area_of[p] < 0) {
            area_of[p] = (int64_t)n_bits;
            area_order[n_areas++] = (int64_t)n_bits;
        } else if (area_of[p] != (int64_t)n_bits) {
            return;
        }
        CPCORE_ASSERT(p >= 0 && (uint64_t)p < n_pieces && lowest <= 64);
        if (n_bits) ++count[lowest * n_pieces + p];
        all_joined = all_joined && (n_bits == 0 || joined(mask, grid));
        if (!out) continue;
        out->opt_cells[j] = mask;
        out->opt_piece[j] = (uint64_t)1 << p;
        if (expected == SLACK) out->slack_cells[p] |= mask;
    }
    s.suits = 1;
    s.n_pieces = (int64_t)n_pieces;
    s.n_board_cells = (int64_t)n_cells;
    const uint64_t n_groups = 64 * n_pieces;
    for (uint64_t g = 0; g < n_groups; ++g) s.n_flat += count[g];
    if (!out) return;
    uint64_t at = 0;
    for (int x = 0; x < 64; ++x) out->avail[x] = 0;
    for (uint64_t g = 0; g < n_groups; ++g) {
        out->start[g] = at;
        if (count[g]) out->avail[g / n_pieces] |= (uint64_t)1 << (g % n_pieces);
        const int64_t run = count[g];
        count[g] = (int64_t)at;  // now the run's cursor
        at += (uint64_t)run;
    }
    out->start[n_groups] = at;
    CPCORE_ASSERT(at == (uint64_t)s.n_flat);
    for (uint64_t j = 0; j < c.n_options; ++j) {
        if (!out->opt_cells[j]) continue;
        const uint64_t g = (uint64_t)__builtin_ctzll(out->opt_cells[j]) * n_pieces +
                           (uint64_t)__builtin_ctzll(out->opt_piece[j]);
        CPCORE_ASSERT(g < n_groups && (uint64_t)count[g] < out->start[g + 1]);
        out->opts[count[g]] = (int64_t)j;
        out->masks[count[g]++] = out->opt_cells[j];
    }
    s.region_limit = layout::region_sizes(area_order, nullptr,
                                          all_joined ? (uint64_t)n_areas : 0, n_cells,
                                          out->fillable);
    s.isolated_dead = s.region_limit > 1 && !out->fillable[1];
    s.first = grid.first;
    s.last = grid.last;
    s.all_pieces = n_pieces < 64 ? ((uint64_t)1 << n_pieces) - 1 : ~(uint64_t)0;
    s.covered = ~board;
    s.inner = inner;
    s.optional = optional;
    for (uint64_t i = 0; i < c.n_items; ++i)
        if (in.item_kind[i] == SLACK_ITEM) s.slack |= (uint64_t)1 << piece_of[i];
    for (uint64_t p = 0; p < n_pieces; ++p) out->areas[p] = area_of[p] < 0 ? 0 : area_of[p];
}

// The piece-word bit of each tally item (1), 0 when one is a cell or a piece in optional (one
// that may be left out), or -BAD_ITEM, or -REPEATED_TALLY for an item listed twice.
inline int64_t tally_bits(const int64_t* item_kind, uint64_t n_items, const int64_t* items,
                          uint64_t n_tally, uint64_t optional, uint64_t* bits) {
    for (uint64_t t = 0; t < n_tally; ++t) {
        if (items[t] < 0 || (uint64_t)items[t] >= n_items) return -CPCORE_LAYOUT_BAD_ITEM;
        for (uint64_t u = 0; u < t; ++u)
            if (items[u] == items[t]) return -CPCORE_LAYOUT_REPEATED_TALLY;
    }
    for (uint64_t t = 0; t < n_tally; ++t) {
        if (item_kind[items[t]] == CELL) return 0;
        uint64_t p = 0;
        for (int64_t i = 0; i < items[t]; ++i) p += item_kind[i] != CELL;
        if (p >= 64) return 0;
        bits[t] = (uint64_t)1 << p;
    }
    for (uint64_t t = 0; t < n_tally; ++t)
        if (bits[t] & optional) return 0;
    return 1;
}

}  // namespace one_word_layout
}  // namespace cpcore
