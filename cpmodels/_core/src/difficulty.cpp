// The plain backtracker of a date's difficulty (cpmodels/backends/engine/difficulty.py):
// the first empty cell in reading order, each of its options in the order's turn, until
// the first solution; its nodes are the options it puts down.
#include "cpcore/entry.h"

namespace {

struct Board {
    const int64_t *cells, *cells_start, *counters, *counters_start;
    uint8_t* filled;
    int64_t* used;

    // Option o goes down (on) or comes up: its cells filled or emptied, its counters used.
    inline void put(int64_t o, bool on) {
        for (int64_t k = cells_start[o]; k < cells_start[o + 1]; ++k) filled[cells[k]] = on;
        for (int64_t k = counters_start[o]; k < counters_start[o + 1]; ++k)
            used[counters[k]] += on ? 1 : -1;
    }

    // Whether option o fits: every counter of it has room and every cell of it is empty.
    inline bool fits(int64_t o, const int64_t* capacity) const {
        for (int64_t k = counters_start[o]; k < counters_start[o + 1]; ++k)
            if (used[counters[k]] >= capacity[counters[k]]) return false;
        for (int64_t k = cells_start[o]; k < cells_start[o + 1]; ++k)
            if (filled[cells[k]]) return false;
        return true;
    }

    inline uint64_t next_empty(uint64_t cell, uint64_t n_cells) const {
        while (cell < n_cells && filled[cell]) ++cell;
        return cell;
    }
};

}  // namespace

extern "C" int64_t cpcore_first_solution_nodes(
    uint64_t n_cells, uint8_t* filled, int64_t* used, uint64_t n_counters,
    const int64_t* capacity, const int64_t* low, const int64_t* start, const int64_t* listed,
    const int64_t* cells, const int64_t* cells_start, const int64_t* counters,
    const int64_t* counters_start, int64_t max_nodes, int64_t* stack) {
    Board board{cells, cells_start, counters, counters_start, filled, used};
    int64_t* stack_cell = stack;
    int64_t* stack_pos = stack + (n_cells + 1);
    int64_t* stack_opt = stack + 2 * (n_cells + 1);
    uint64_t depth = 0;
    int64_t nodes = 0;
    uint64_t cell = board.next_empty(0, n_cells);
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
                if (board.fits(o, capacity)) {
                    found = o;
                    break;
                }
            }
        }
        if (found >= 0) {
            board.put(found, true);
            if (++nodes >= max_nodes) return CPCORE_CAPPED;
            stack_cell[depth] = (int64_t)cell;
            stack_pos[depth] = pos;
            stack_opt[depth] = found;
            ++depth;
            cell = board.next_empty(cell, n_cells);
            pos = cell < n_cells ? start[cell] : 0;
            continue;
        }
        if (depth == 0) return CPCORE_NO_SOLUTION;
        --depth;
        board.put(stack_opt[depth], false);
        cell = (uint64_t)stack_cell[depth];
        pos = stack_pos[depth];
    }
}
