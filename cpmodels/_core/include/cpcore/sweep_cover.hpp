// A calendar's sweep cover as cpmodels/cover.py and sweep.py make it: the board's cells in
// scan order (the axis of the longest extent slowest, ties in axis order), and the rule
// that picks the label groups a sweep's tasks fix (MAX_TALLY combinations left to tally).
// Freestanding: no standard library, no allocation, no exceptions.
//
// The data (entry.h's cpcore_sweep_input and cpcore_sweep_cover). The board is n_board
// cells (placements.hpp); ``axes`` the dim axes in scan order. The items are the board's
// distinct cells in scan order, then one per piece, then one slack item per label group;
// items are rows of 4 words (kind, low, high, cell index or -1), options rows of 4 words
// (kind, owner, first entry, number of entries) over one array of entries (item indices).
// For the groups' rule: sizes[g] is group g's labels, passed[g] the scan position of its
// last label cell; fixed_groups writes the groups a sweep fixes to ``picked`` and returns
// how many.
#pragma once

#include <stdint.h>

#include "cpcore/check.hpp"
#include "cpcore/placements.hpp"

namespace cpcore {
namespace sweep {

// The most label combinations one search tallies (sweep.py's MAX_TALLY).
constexpr uint64_t MAX_TALLY = 512;

// The product of sizes[from .. to) but sizes[skip], saturated just past MAX_TALLY.
inline uint64_t combinations(const int64_t* sizes, uint64_t from, uint64_t to, uint64_t skip) {
    uint64_t product = 1;
    for (uint64_t k = from; k < to; ++k) {
        if (k == skip) continue;
        product *= (uint64_t)sizes[k];
        if (product > MAX_TALLY) product = MAX_TALLY + 1;
    }
    return product;
}

// The axes of dim coordinates in scan order (the longest extent first; ties in axis order)
// of cells[0 .. n) (n >= 1).
inline void scan_axes(const int64_t* cells, uint64_t n, int dim, int* axes) {
    int64_t extent[3];
    for (int d = 0; d < dim; ++d) {
        int64_t low = cells[d], high = cells[d];
        for (uint64_t i = 1; i < n; ++i) {
            const int64_t x = cells[i * dim + d];
            if (x < low) low = x;
            if (x > high) high = x;
        }
        extent[d] = high - low;
        axes[d] = d;
    }
    for (int i = 1; i < dim; ++i) {  // insertion sort: stable, so ties keep axis order
        for (int j = i; j > 0 && extent[axes[j]] > extent[axes[j - 1]]; --j) {
            const int t = axes[j];
            axes[j] = axes[j - 1];
            axes[j - 1] = t;
        }
    }
}

// sweep.py's scan_fixed_groups: among the groups that leave at most MAX_TALLY combinations
// to tally, the one whose last cell in scan order (passed[k]) comes first (the earlier group
// on a tie); else the leading groups that leave at most MAX_TALLY (at least one). Writes
// their indices to fixed and returns how many.
inline uint64_t fixed_groups(const int64_t* sizes, const int64_t* passed, uint64_t n_groups,
                             int64_t* fixed) {
    int64_t best = -1;
    for (uint64_t k = 0; k < n_groups; ++k) {
        if (combinations(sizes, 0, n_groups, k) > MAX_TALLY) continue;
        if (best < 0 || passed[k] < passed[best]) best = (int64_t)k;
    }
    if (best >= 0) {
        CPCORE_ASSERT((uint64_t)best < n_groups);
        fixed[0] = best;
        return 1;
    }
    if (n_groups == 0) return 0;
    uint64_t k = 1;
    while (k < n_groups && combinations(sizes, k, n_groups, n_groups) > MAX_TALLY) ++k;
    CPCORE_ASSERT(k >= 1 && k <= n_groups);
    for (uint64_t g = 0; g < k; ++g) fixed[g] = (int64_t)g;
    return k;
}

}  // namespace sweep
}  // namespace cpcore
