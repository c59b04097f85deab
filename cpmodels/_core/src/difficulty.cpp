// The plain backtracker of a date's difficulty (cpmodels/backends/engine/kernels/difficulty.py):
// the first empty cell in reading order, each of its options in the order's turn, until
// the first solution; its nodes are the options it puts down. A policy of the one skeleton
// (cpcore/search.hpp's depth_first), branching by its one branching choice (next_option).
//
// Data layout: filled[n_cells] (1: a cell covered); used[n_counters], each counter's options
// down, which holds each counter's room (capacity less used) while the walk runs, so that
// an option's fit reads one word a counter, and the counts again when the call returns;
// option o is cells[cells_start[o] .. cells_start[o + 1]) and counters
// counters[counters_start[o] .. counters_start[o + 1]); the options to try at cell x are
// listed[start[x] .. start[x + 1]) in the order's turn. The frames: stack_cell[d],
// stack_pos[d] (where the walk of cell stack_cell[d]'s options goes on) and stack_opt[d]
// (the option put down at depth d), d <= n_cells (an option covers at least one cell).
#include "cpcore/check.hpp"
#include "cpcore/entry.h"
#include "cpcore/search.hpp"

namespace {

using cpcore::Step;

// The layout and the state (filled, room) the walk changes.
struct Board {
    uint64_t n_cells, n_counters;
    uint8_t* __restrict filled;
    int64_t* __restrict room;  // the caller's used, capacity less used while the walk runs
    const int64_t *__restrict capacity, *__restrict low;
    const int64_t *__restrict start, *__restrict listed;  // the options at each cell
    const int64_t *__restrict cells, *__restrict cells_start;
    const int64_t *__restrict counters, *__restrict counters_start;
    int64_t *stack_cell, *stack_pos, *stack_opt;

    // Where option o's cells and counters are: cells[c0 .. c1), counters[k0 .. k1).
    struct Span {
        int64_t c0, c1, k0, k1;
    };
    CPCORE_STEP Span span(int64_t o) const {
        return {cells_start[o], cells_start[o + 1], counters_start[o], counters_start[o + 1]};
    }
    // Option o goes down (on) or comes up: its cells filled or emptied, its counters' room
    // taken or given back. (Here and in fits the arrays are read through local restrict
    // pointers: with the members' restrict alone the walk costs 12% more instructions.)
    CPCORE_STEP void put(int64_t o, bool on) const {
        uint8_t* __restrict f = filled;
        int64_t* __restrict r = room;
        const int64_t *__restrict cl = cells, *__restrict ct = counters;
        const Span s = span(o);
        for (int64_t k = s.c0; k < s.c1; ++k) f[cl[k]] = on;
        for (int64_t k = s.k0; k < s.k1; ++k) r[ct[k]] -= on ? 1 : -1;
    }
    // Whether option o fits: every counter of it has room and every cell of it is empty.
    CPCORE_STEP bool fits(int64_t o) const {
        const int64_t *__restrict cl = cells, *__restrict ct = counters, *__restrict r = room;
        const uint8_t* __restrict f = filled;
        const Span s = span(o);
        for (int64_t k = s.k0; k < s.k1; ++k)
            if (r[ct[k]] <= 0) return false;
        for (int64_t k = s.c0; k < s.c1; ++k)
            if (f[cl[k]]) return false;
        return true;
    }
    CPCORE_STEP uint64_t next_empty(uint64_t x) const {
        while (x < n_cells && filled[x]) ++x;
        return x;
    }
    // Whether every counter is used at least its low number of times.
    CPCORE_STEP bool counters_full() const {
        for (uint64_t c = 0; c < n_counters; ++c)
            if (capacity[c] - room[c] < low[c]) return false;
        return true;
    }
    // The counts of options down made the counters' room, or the room the counts again.
    void trade() const {
        for (uint64_t c = 0; c < n_counters; ++c) room[c] = capacity[c] - room[c];
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

    // The options at the cell as the branching choice walks them (search.hpp's
    // next_option): one run, listed[start[cell] .. start[cell + 1]).
    struct Options {
        Backtrack& t;
        CPCORE_STEP cpcore::Fit fit(int64_t p) {
            t.found = t.b.listed[p];
            return t.b.fits(t.found) ? cpcore::Fit::yes : cpcore::Fit::no;
        }
        CPCORE_STEP bool next_run(int64_t&, int64_t&) const { return false; }
    };
    CPCORE_STEP bool next() {
        Options options{*this};
        int64_t end = b.start[cell + 1];
        return cpcore::next_option(options, pos, end);
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

// The walk from the first empty cell, the board's room made: the nodes to the first
// solution, or a status. A function of its own, handed the board by value: inlined into
// the entry point, beside the room's making, the walk costs 5% more instructions.
__attribute__((flatten, noinline)) int64_t first_solution(const Board board, int64_t max_nodes,
                                                          const int64_t* stop) {
    Backtrack b{board, max_nodes};
    b.cell = board.next_empty(0);
    if (b.cell == board.n_cells) return board.counters_full() ? 0 : CPCORE_NO_SOLUTION;
    if (cpcore::stopped(stop)) return CPCORE_STOPPED;
    b.pos = board.start[b.cell];
    int64_t entered;
    const cpcore::Ended ended = cpcore::depth_first(b, stop, entered);
    if (ended == cpcore::Ended::stopped) return CPCORE_STOPPED;
    if (b.capped) return CPCORE_CAPPED;
    return b.solved ? b.nodes : CPCORE_NO_SOLUTION;
}

}  // namespace

extern "C" int64_t cpcore_first_solution_nodes(
    uint64_t n_cells, uint8_t* filled, int64_t* used, uint64_t n_counters,
    const int64_t* capacity, const int64_t* low, const int64_t* start, const int64_t* listed,
    const int64_t* cells, const int64_t* cells_start, const int64_t* counters,
    const int64_t* counters_start, int64_t max_nodes, int64_t* stack, const int64_t* stop) {
    const Board board{n_cells, n_counters, filled, used, capacity, low, start, listed, cells,
                      cells_start, counters, counters_start, stack, stack + (n_cells + 1),
                      stack + 2 * (n_cells + 1)};
    board.trade();
    const int64_t found = first_solution(board, max_nodes, stop);
    board.trade();
    return found;
}
