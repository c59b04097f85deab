// The plain backtracker of a date's difficulty (cpmodels/backends/engine/kernels/difficulty.py):
// the first empty cell in reading order, each of its options in the order's turn, until
// the first solution; its nodes are the options it puts down. A policy of the one skeleton
// (cpcore/search.hpp's depth_first).
//
// Data layout: filled[n_cells] (1: a cell covered), used[n_counters] (each counter's
// options down); option o is cells[cells_start[o] .. cells_start[o + 1]) and counters
// counters[counters_start[o] .. counters_start[o + 1]); the options to try at cell x are
// listed[start[x] .. start[x + 1]) in the order's turn. The frames: stack_cell[d],
// stack_pos[d] (where the walk of cell stack_cell[d]'s options goes on) and stack_opt[d]
// (the option put down at depth d), d <= n_cells (an option covers at least one cell).
#include "cpcore/check.hpp"
#include "cpcore/entry.h"
#include "cpcore/search.hpp"

namespace {

using cpcore::Step;

// The layout and the state (filled, used) the walk changes.
struct Board {
    uint64_t n_cells;
    uint8_t* __restrict filled;
    int64_t* __restrict used;
    uint64_t n_counters;
    const int64_t* __restrict capacity;
    const int64_t* __restrict low;
    const int64_t* __restrict start;
    const int64_t* __restrict listed;
    const int64_t* __restrict cells;
    const int64_t* __restrict cells_start;
    const int64_t* __restrict counters;
    const int64_t* __restrict counters_start;
    int64_t* stack_cell;
    int64_t* stack_pos;
    int64_t* stack_opt;

    // Option o goes down (on) or comes up: its cells filled or emptied, its counters used.
    CPCORE_STEP void put(int64_t o, bool on) const {
        uint8_t* __restrict f = filled;
        int64_t* __restrict u = used;
        const int64_t* __restrict cl = cells;
        const int64_t* __restrict ct = counters;
        const int64_t c0 = cells_start[o], c1 = cells_start[o + 1];
        const int64_t k0 = counters_start[o], k1 = counters_start[o + 1];
        for (int64_t k = c0; k < c1; ++k) f[cl[k]] = on;
        for (int64_t k = k0; k < k1; ++k) u[ct[k]] += on ? 1 : -1;
    }
    // Whether option o fits: every counter of it has room and every cell of it is empty.
    CPCORE_STEP bool fits(int64_t o) const {
        const uint8_t* __restrict f = filled;
        const int64_t* __restrict u = used;
        const int64_t* __restrict cap = capacity;
        const int64_t* __restrict cl = cells;
        const int64_t* __restrict ct = counters;
        const int64_t c0 = cells_start[o], c1 = cells_start[o + 1];
        const int64_t k0 = counters_start[o], k1 = counters_start[o + 1];
        for (int64_t k = k0; k < k1; ++k)
            if (u[ct[k]] >= cap[ct[k]]) return false;
        for (int64_t k = c0; k < c1; ++k)
            if (f[cl[k]]) return false;
        return true;
    }
    CPCORE_STEP uint64_t next_empty(uint64_t x) const {
        while (x < n_cells && filled[x]) ++x;
        return x;
    }
    CPCORE_STEP bool counters_full() const {
        for (uint64_t c = 0; c < n_counters; ++c)
            if (used[c] < low[c]) return false;
        return true;
    }

};

// The walk's node: the cell it fills and where its options' walk is (few fields, so that
// they live in registers; the board is apart).
struct Backtrack {
    const Board& b;
    int64_t max_nodes;
    uint64_t cell = 0, next_cell = 0;
    int64_t pos = 0, found = -1, nodes = 0;
    bool capped = false, solved = false;

    CPCORE_STEP bool next() {
        int64_t p = pos;
        const int64_t end = b.start[cell + 1];
        while (p < end) {
            const int64_t o = b.listed[p++];
            if (b.fits(o)) {
                pos = p;
                found = o;
                return true;
            }
        }
        pos = p;
        return false;
    }
    CPCORE_STEP Step child() {
        b.put(found, true);
        if (++nodes >= max_nodes) {
            capped = true;
            return Step::end;
        }
        next_cell = b.next_empty(cell);
        if (next_cell < b.n_cells) return Step::enter;
        if (b.counters_full()) {
            solved = true;
            return Step::end;
        }
        b.put(found, false);
        return Step::skip;
    }
    CPCORE_STEP void close() {}
    CPCORE_STEP void pop(unsigned d) {
        b.put(b.stack_opt[d], false);
        cell = (uint64_t)b.stack_cell[d];
        pos = b.stack_pos[d];
    }
    CPCORE_STEP void push(unsigned d) {
        CPCORE_ASSERT(d < b.n_cells);
        b.stack_cell[d] = (int64_t)cell;
        b.stack_pos[d] = pos;
        b.stack_opt[d] = found;
    }
    CPCORE_STEP void enter() {
        cell = next_cell;
        pos = b.start[cell];
    }
};

}  // namespace

extern "C" __attribute__((flatten)) int64_t cpcore_first_solution_nodes(
    uint64_t n_cells, uint8_t* __restrict filled, int64_t* __restrict used, uint64_t n_counters,
    const int64_t* __restrict capacity, const int64_t* __restrict low,
    const int64_t* __restrict start, const int64_t* __restrict listed,
    const int64_t* __restrict cells, const int64_t* __restrict cells_start,
    const int64_t* __restrict counters, const int64_t* __restrict counters_start,
    int64_t max_nodes, int64_t* __restrict stack, const int64_t* stop) {
    const Board board{n_cells,     filled,      used,     n_counters,  capacity,
                      low,         start,       listed,   cells,       cells_start,
                      counters,    counters_start,        stack,       stack + (n_cells + 1),
                      stack + 2 * (n_cells + 1)};
    Backtrack b{board, max_nodes};
    b.cell = board.next_empty(0);
    if (b.cell == n_cells) return board.counters_full() ? 0 : CPCORE_NO_SOLUTION;
    if (cpcore::stopped(stop)) return CPCORE_STOPPED;
    b.pos = start[b.cell];
    int64_t entered;
    const cpcore::Ended ended = cpcore::depth_first(b, stop, entered);
    if (ended == cpcore::Ended::stopped) return CPCORE_STOPPED;
    if (b.capped) return CPCORE_CAPPED;
    return b.solved ? b.nodes : CPCORE_NO_SOLUTION;
}
