// The plain backtracker of a date's difficulty (cpmodels/backends/engine/kernels/difficulty.py):
// the first empty cell in reading order, each of its options in the order's turn, until
// the first solution; its nodes are the options it puts down.
#include "cpcore/entry.h"

extern "C" int64_t cpcore_first_solution_nodes(
    uint64_t n_cells, uint8_t* __restrict filled, int64_t* __restrict used, uint64_t n_counters,
    const int64_t* __restrict capacity, const int64_t* __restrict low,
    const int64_t* __restrict start, const int64_t* __restrict listed,
    const int64_t* __restrict cells, const int64_t* __restrict cells_start,
    const int64_t* __restrict counters, const int64_t* __restrict counters_start,
    int64_t max_nodes, int64_t* __restrict stack) {
    // Option o goes down (on) or comes up: its cells filled or emptied, its counters used.
    auto put = [&](int64_t o, bool on) {
        for (int64_t k = cells_start[o]; k < cells_start[o + 1]; ++k) filled[cells[k]] = on;
        for (int64_t k = counters_start[o]; k < counters_start[o + 1]; ++k)
            used[counters[k]] += on ? 1 : -1;
    };
    // Whether option o fits: every counter of it has room and every cell of it is empty.
    auto fits = [&](int64_t o) {
        for (int64_t k = counters_start[o]; k < counters_start[o + 1]; ++k)
            if (used[counters[k]] >= capacity[counters[k]]) return false;
        for (int64_t k = cells_start[o]; k < cells_start[o + 1]; ++k)
            if (filled[cells[k]]) return false;
        return true;
    };
    auto next_empty = [&](uint64_t cell) {
        while (cell < n_cells && filled[cell]) ++cell;
        return cell;
    };
    int64_t* stack_cell = stack;
    int64_t* stack_pos = stack + (n_cells + 1);
    int64_t* stack_opt = stack + 2 * (n_cells + 1);
    uint64_t depth = 0;
    int64_t nodes = 0;
    uint64_t cell = next_empty(0);
    int64_t pos = cell < n_cells ? start[cell] : 0;
    for (;;) {
        int64_t found = -1;
        if (cell == n_cells) {
            bool full = true;
            for (uint64_t c = 0; c < n_counters; ++c) {
                if (used[c] < low[c]) {
                    full = false;
                    break;
                }
            }
            if (full) return nodes;
        } else {
            while (pos < start[cell + 1]) {
                const int64_t o = listed[pos++];
                if (fits(o)) {
                    found = o;
                    break;
                }
            }
        }
        if (found >= 0) {
            put(found, true);
            if (++nodes >= max_nodes) return CPCORE_CAPPED;
            stack_cell[depth] = (int64_t)cell;
            stack_pos[depth] = pos;
            stack_opt[depth] = found;
            ++depth;
            cell = next_empty(cell);
            pos = cell < n_cells ? start[cell] : 0;
            continue;
        }
        if (depth == 0) return CPCORE_NO_SOLUTION;
        --depth;
        put(stack_opt[depth], false);
        cell = (uint64_t)stack_cell[depth];
        pos = stack_pos[depth];
    }
}
