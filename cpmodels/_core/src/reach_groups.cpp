// The reach search's view of a one-word layout's label groups (entry.h's
// cpcore_reach_groups_of; cpmodels/backends/engine/layouts/reach.py): which slack units are
// the groups, which one is kept as a bit mask and which index, the labels' numbers, the group
// the scan meets last and the rank of the layout's corner, and whether the options' cells are
// joined (the search's region pruning holds only then). Freestanding, nothing allocated.
#include <stdint.h>

#include "cpcore/bits.hpp"
#include "cpcore/check.hpp"
#include "cpcore/cover_layout.hpp"
#include "cpcore/entry.h"

namespace cpcore {
namespace {

const uint64_t MAX_GROUPS = 3;  // the bit group and at most two indexing groups

// A line shift of the cell word (a shift by 64 or more empties it).
word up(word x, uint64_t by) { return by >= 64 ? 0 : x << by; }
word down(word x, uint64_t by) { return by >= 64 ? 0 : x >> by; }

// Whether each option's cells are joined through their sides, as a piece's are (a cover
// made by hand may have options whose cells fall apart).
bool joined(const cpcore_one_word& L) {
    const uint64_t n_masks = L.start[64 * L.n_pieces];
    for (uint64_t k = 0; k < n_masks; ++k) {
        const word mask = L.masks[k];
        word reached = mask & (~mask + 1);  // its lowest cell
        while (true) {
            const word around = (down(reached, 1) & ~L.last) | (up(reached, 1) & ~L.first) |
                                down(reached, L.inner) | up(reached, L.inner);
            const word grown = (reached | around) & mask;
            if (grown == reached) break;
            reached = grown;
        }
        if (reached != mask) return false;
    }
    return true;
}

// Each cell bit of ``cells`` numbered in bit order into ``label`` (the others 0).
void number_labels(word cells, uint64_t* label) {
    uint64_t k = 0;
    for (uint64_t b = 0; b < 64; ++b) label[b] = (cells >> b & 1) ? k++ : 0;
}

}  // namespace
}  // namespace cpcore

using namespace cpcore;

extern "C" void cpcore_reach_groups_of(const cpcore_one_word* layout,
                                       cpcore_reach_groups* out) {
    const cpcore_one_word& L = *layout;
    CPCORE_ASSERT(L.n_pieces >= 1 && L.n_pieces <= 64);
    out->suits = 0;
    out->n_groups = 0;
    for (uint64_t g = 0; g < MAX_GROUPS; ++g) out->group_cells[g] = out->group_unit[g] = 0;
    for (uint64_t b = 0; b < 64; ++b) out->a_label[b] = out->b_label[b] = 0;
    out->bit_group = out->a_group = out->b_group = out->last_group = -1;
    out->a_stride = out->n_index = 1;
    out->n_cells = 64 - popcount(L.covered);
    out->rank = 0;
    uint64_t sizes[MAX_GROUPS] = {0, 0, 0};
    for (uint64_t p = 0; p < L.n_pieces; ++p) {
        if (!(L.slack >> p & 1)) continue;
        if (out->n_groups == MAX_GROUPS) return;  // more groups than the search takes
        const uint64_t g = out->n_groups++;
        out->group_cells[g] = L.slack_cells[p];
        out->group_unit[g] = (word)1 << p;
        sizes[g] = popcount(L.slack_cells[p]);
        if (sizes[g] == 0) return;
    }
    if (out->n_groups == 0) return;
    const int64_t n = (int64_t)out->n_groups;
    int64_t bit = 0, last = 0;
    for (int64_t g = 1; g < n; ++g) {
        if (sizes[g] > sizes[bit]) bit = g;
        // the group whose first cell comes last in the scan (the later one of equals)
        if (lowest(out->group_cells[g]) >= lowest(out->group_cells[last])) last = g;
    }
    int64_t others[2] = {-1, -1};
    for (int64_t g = 0, k = 0; g < n; ++g)
        if (g != bit) others[k++] = g;
    out->bit_group = bit;
    out->a_group = others[0];
    out->b_group = others[1];
    out->last_group = last;
    if (others[0] >= 0) number_labels(out->group_cells[others[0]], out->a_label);
    if (others[1] >= 0) number_labels(out->group_cells[others[1]], out->b_label);
    const uint64_t a_size = others[0] >= 0 ? sizes[others[0]] : 1;
    const uint64_t b_size = others[1] >= 0 ? sizes[others[1]] : 1;
    out->a_stride = b_size;
    out->n_index = a_size * b_size;
    out->rank = 2 * (int64_t)sizes[last] + ((L.covered & 1) ? 0 : 1);
    out->suits = joined(L) ? 1 : 0;
    CPCORE_ASSERT(out->n_index >= 1 && out->n_index <= 64 * 64);
}

// Row k is row k - 1 with one more piece of one cell (a hole): its sizes and those one more.
// Its limit is cpcore_region_sizes', the largest piece at least 1 once a hole is added.
extern "C" uint64_t cpcore_reach_fills(const int64_t* areas, uint64_t n, uint64_t n_groups,
                                       uint64_t total, uint8_t* fill) {
    CPCORE_ASSERT(n_groups <= MAX_GROUPS);
    uint64_t limit = (uint64_t)layout::region_sizes(areas, nullptr, n, total, fill);
    int64_t largest = 1;
    for (uint64_t p = 0; p < n; ++p)
        if (areas[p] > largest) largest = areas[p];
    const uint64_t cap = 2 * (uint64_t)largest + 2;
    for (uint64_t k = 1; k <= n_groups; ++k) {
        uint8_t* row = fill + k * (total + 1);
        const uint8_t* prev = row - (total + 1);
        row[0] = prev[0];
        for (uint64_t s = 1; s <= total; ++s) row[s] = prev[s] | prev[s - 1];
        for (uint64_t s = (total < cap - 1 ? total : cap - 1); s >= 1; --s)
            if (!row[s]) {
                if (s + 1 > limit) limit = s + 1;
                break;
            }
    }
    return limit;
}

// Each corner laid out in turn into the caller's arrays and its groups ranked.
extern "C" int64_t cpcore_reach_corner(const cpcore_one_word_input* in, int64_t* work,
                                       const cpcore_one_word_sizes* sizes,
                                       const cpcore_one_word_layout* out,
                                       cpcore_reach_groups* groups) {
    if (sizes->error != CPCORE_LAYOUT_OK || !sizes->suits) return -1;
    cpcore_one_word_input at = *in;
    int64_t best = -1, best_rank = 0;
    for (uint64_t flips = 0; flips < 4; ++flips) {
        at.flips = flips;
        cpcore_one_word_sizes s{};
        cpcore_one_word_layout_measure(&at, work, &s);
        if (s.error != CPCORE_LAYOUT_OK || !s.suits) continue;
        if (s.n_pieces != sizes->n_pieces || s.n_flat != sizes->n_flat ||
            s.n_board_cells != sizes->n_board_cells)
            return -1;  // (the caller's arrays are of other sizes: never so for a cover)
        cpcore_one_word_layout_fill(&at, work, &s, out);
        const cpcore_one_word L{out->start, out->masks, out->opts, out->avail, out->opt_cells,
                                out->opt_piece, at.cover->n_options, (uint64_t)s.n_pieces,
                                s.all_pieces, s.optional, s.covered, s.inner, s.first, s.last,
                                s.slack, out->fillable, (uint64_t)s.n_board_cells + 1,
                                s.region_limit, (int)s.isolated_dead, out->slack_cells};
        cpcore_reach_groups_of(&L, groups);
        if (!groups->suits) return -1;  // the groups and the cells do not hang on the corner
        if (best < 0 || groups->rank > best_rank) {
            best = (int64_t)flips;
            best_rank = groups->rank;
        }
    }
    return best;
}
