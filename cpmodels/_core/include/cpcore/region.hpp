// The one dead-end check of the core, and its one forced-option step. Freestanding.
//
// The dead-end check (region_dead_end): after an option is placed, the empty regions next
// to it are grown from its neighbour cells, each until it has ``limit`` cells or no empty
// neighbour left; a region of fewer than ``limit`` cells is a dead end when no pieces fill
// it (``fits``: a region's size is no sum of the pieces' areas, or, with slack items or a
// reach search's holes, no such sum plus the cells they may leave open). A cell already in
// a region measured is not a seed again; a region grown to the limit is large, and so is
// every region that meets it. The check is written once, over a Fill, the cell sets of one
// word representation:
//   Seed                     -- what a seed is (a cell's bit, or its index);
//   bool next_seed(Seed& x)  -- the next cell next to the option, empty and in no region
//                               measured (false: none is left);
//   uint64_t grow(Seed x, uint64_t limit)
//                            -- the region of x, grown until it has limit cells (or meets a
//                               large region: then limit) or cannot grow; its size;
//   bool fits(uint64_t size) -- whether pieces may fill the region just grown;
//   void measured(bool large)-- the region just grown is measured (large: it reached the
//                               limit).
// The representations (one word and grid shifts in one_word.hpp, two words and neighbour
// masks, N words and the neighbour lists in packing_search.hpp) differ only in how a set of
// cells grows: one word dilates the whole region at once by shifting the word, two words
// add a cell's neighbour mask a cell at a time, N words follow a cell's neighbour list; the
// answer is the same whatever the order the cells are reached in, so the node counts do
// not depend on the representation. The growth stays each representation's own: a dilation
// needs a grid's shifts, which only the one-word layout has, and a set of N words would
// cost N words an operation where a neighbour list costs a cell's neighbours.
//
// The forced-option step (force_options): the options of a row (-1 pads) put down one by
// one on a state, each whatever it meets, and whether every one fitted. A state puts an
// option down and says whether it fitted (``put``); the packing searches, the one-word
// count and tally, the reach search and the branching step all force a task's options so,
// and every call that takes rows of tasks walks them the one way (each_task: the stop flag
// looked at before each).
#pragma once

#include <stdint.h>

#include "cpcore/bits.hpp"

namespace cpcore {

// Whether the regions next to an option just placed hold a dead end (see above).
template <class Fill>
inline __attribute__((always_inline)) bool region_dead_end(Fill& f, uint64_t limit) {
    if (limit == 0) return false;
    typename Fill::Seed x;
    while (f.next_seed(x)) {
        const uint64_t size = f.grow(x, limit);
        if (size < limit && !f.fits(size)) return true;
        f.measured(size >= limit);
    }
    return false;
}

// The options of ``row`` (``n`` of them; -1 pads) put down by ``put(o)``, which puts o down
// whatever it meets and says whether it fitted; whether every one did.
template <class Put>
inline bool force_options(const int64_t* row, uint64_t n, Put put) {
    bool ok = true;
    for (uint64_t q = 0; q < n; ++q)
        if (row[q] >= 0) ok = put(row[q]) && ok;
    return ok;
}

// The tasks of a call, ``n`` rows of ``width`` option ids (-1 pads), each forced in turn by
// ``force(row)`` (whether its options fit together) and answered by ``answer(p, fits)``,
// until an answer says false (it met the stop flag, or the call ends there) or the stop
// flag is set before a task.
template <class Force, class Answer>
inline void each_task(const int64_t* rows, uint64_t n, uint64_t width, const int64_t* stop,
                      Force force, Answer answer) {
    for (uint64_t p = 0; p < n; ++p) {
        if (stopped(stop)) return;
        if (!answer(p, force(rows + p * width))) return;
    }
}

}  // namespace cpcore
