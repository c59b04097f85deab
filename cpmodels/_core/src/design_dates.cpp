// A design's required dates made into what its decision reads (entry.h's
// cpcore_design_dates; cpmodels/design/search.py): each date's holes held, the groups of
// dates that hold the same ones, and each combination encoded for the reach search
// (src/reach.cpp). Freestanding: the caller's buffers, nothing allocated.
#include <stdint.h>

#include "cpcore/bits.hpp"
#include "cpcore/check.hpp"
#include "cpcore/entry.h"
#include "cpcore/hash.hpp"

namespace cpcore {
namespace {

// The slots of the table of held rows: a power of two, at least twice the dates (so a
// free slot is always left).
uint64_t slots_for(uint64_t n_dates) {
    uint64_t slots = 2;
    while (slots < 2 * n_dates) slots <<= 1;
    return slots;
}

// The label group of option o, from its piece-word bit: -1 for an option that is no hole.
int64_t group_of(const cpcore_reach_layout& L, int64_t o) {
    if (o < 0 || (uint64_t)o >= L.n_options) return -1;
    const uint64_t unit = L.opt_unit[o];
    if ((unit & L.slack_units) == 0 || L.opt_cells[o] == 0) return -1;
    for (uint64_t g = 0; g < L.n_groups; ++g)
        if (L.group_unit[g] == unit) return (int64_t)g;
    return -1;
}

// The index of the highest cell bit of a hole's cells (its one cell).
uint64_t cell_bit(word cells) { return 63 - (uint64_t)__builtin_clzll(cells); }

// Date d's combination (index, bit), or a CPCORE_DATES_* code.
int64_t encode(const cpcore_dates_input& in, uint64_t d) {
    const cpcore_reach_layout& L = *in.layout;
    word hole[3] = {0, 0, 0};
    const int64_t* row = in.holes + d * in.hole_cols;
    for (uint64_t c = 0; c < in.hole_cols; ++c) {
        if (row[c] == -1) continue;
        const int64_t g = group_of(L, row[c]);
        if (g < 0) return CPCORE_DATES_NOT_A_HOLE;
        if (hole[g] != 0) return CPCORE_DATES_GROUP_HOLES;
        hole[g] = L.opt_cells[row[c]];
    }
    for (uint64_t g = 0; g < L.n_groups; ++g)
        if (hole[g] == 0) return CPCORE_DATES_GROUP_HOLES;
    const uint64_t a = L.a_group >= 0 ? L.a_label[cell_bit(hole[L.a_group])] : 0;
    const uint64_t b = L.b_group >= 0 ? L.b_label[cell_bit(hole[L.b_group])] : 0;
    in.index[d] = (int64_t)(a * L.a_stride + b);
    in.bit[d] = hole[L.bit_group];
    CPCORE_ASSERT(in.index[d] >= 0 && (uint64_t)in.index[d] < L.n_index);
    CPCORE_ASSERT(popcount(in.bit[d]) == 1);
    return 0;
}

// Date d's held holes: its row but the holes of the group left open, -1 padded.
void hold(const cpcore_dates_input& in, uint64_t d) {
    const int64_t* row = in.holes + d * in.hole_cols;
    int64_t* held = in.held + d * in.hole_cols;
    uint64_t kept = 0;
    for (uint64_t c = 0; c < in.hole_cols; ++c)
        if (row[c] != -1 && group_of(*in.layout, row[c]) != in.left_open) held[kept++] = row[c];
    while (kept < in.hole_cols) held[kept++] = -1;
}

bool same_held(const cpcore_dates_input& in, uint64_t d, uint64_t e) {
    const int64_t* x = in.held + d * in.hole_cols;
    const int64_t* y = in.held + e * in.hole_cols;
    for (uint64_t c = 0; c < in.hole_cols; ++c)
        if (x[c] != y[c]) return false;
    return true;
}

}  // namespace
}  // namespace cpcore

using namespace cpcore;

extern "C" uint64_t cpcore_design_dates_work_words(uint64_t n_dates) {
    return slots_for(n_dates);
}

extern "C" int64_t cpcore_design_dates(const cpcore_dates_input* in) {
    const cpcore_reach_layout& L = *in->layout;
    CPCORE_ASSERT(L.n_groups >= 1 && L.n_groups <= 3);
    CPCORE_ASSERT(L.bit_group >= 0 && (uint64_t)L.bit_group < L.n_groups);
    CPCORE_ASSERT(L.a_group < (int64_t)L.n_groups && L.b_group < (int64_t)L.n_groups);
    CPCORE_ASSERT(in->left_open >= -1 && in->left_open < (int64_t)L.n_groups);
    const uint64_t slots = slots_for(in->n_dates);
    int64_t* first = in->work;  // slot -> the first date of its held holes, -1 free
    for (uint64_t s = 0; s < slots; ++s) first[s] = -1;
    int64_t groups = 0;
    for (uint64_t d = 0; d < in->n_dates; ++d) {
        const int64_t status = encode(*in, d);
        if (status != 0) return status;
        hold(*in, d);
        word h = GOLDEN;
        for (uint64_t c = 0; c < in->hole_cols; ++c)
            h = mix(h, (word)in->held[d * in->hole_cols + c]);
        const uint64_t s = probe(
            h, slots, [&](uint64_t t) { return first[t] >= 0; },
            [&](uint64_t t) { return same_held(*in, (uint64_t)first[t], d); });
        if (first[s] < 0) {
            first[s] = (int64_t)d;
            in->group[d] = groups++;
        } else {
            in->group[d] = in->group[first[s]];
        }
        CPCORE_ASSERT(in->group[d] >= 0 && in->group[d] < groups);
    }
    return 0;
}
