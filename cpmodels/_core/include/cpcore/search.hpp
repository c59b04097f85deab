// The one search skeleton of the core, the one branching choice (next_option), and the stop
// convention every search keeps. Freestanding.
//
// depth_first walks a tree without recursion. The node it stands on, and a stack of frames
// for the nodes above it, are the policy's (the state as a policy: one word, two words, N
// words, bits, dancing links, a cell array); the skeleton holds only the depth and the
// count of nodes. It asks the policy
//   next()        whether the node has another child to try (the policy chooses it);
//   child()       what to do with that child: Step::skip (the child was dealt with there: a
//                 leaf, a dead end, a value found in a table; the policy has taken it back),
//                 Step::enter, or Step::end (the whole search ends: a solution found, a cap
//                 or a buffer reached);
//   close()       the node is searched to the end (keep what it found);
//   pop(d)        back to the frame at depth d, the child just closed taken back and added
//                 up;
//   push(d)       keep the node in the frame at depth d (the child is entered next);
//   enter()       the child chosen is the node.
// Invariants: depth is the number of frames pushed and not popped; the root is depth 0 and
// closing it ends the walk (Ended::finished); ``nodes`` counts the root and every child
// entered, so a search's node figure is the same whatever the policy. The walk ends (early
// or stopped) only where the policy's node is whole (a child taken back or entered), so a
// walk can go on later from the depth it ended at.
//
// The stop convention: one flag a search is handed (an int64 another thread may set at any
// time, read with a relaxed atomic load), looked at every STOP_INTERVAL nodes entered and
// before each task of a call; a search that sees it set returns at once, keeping nothing
// partial, with CPCORE_STOPPED (entry.h) where its answer would be. 4,096 nodes cost at most
// a few milliseconds on every search of the core (the slowest node, dancing links on a
// large solid, takes about a microsecond), well within the 50 ms an interrupt or a deadline
// may wait.
#pragma once

#include <stdint.h>

#include "cpcore/bits.hpp"
#include "cpcore/check.hpp"

namespace cpcore {

// A policy's steps are inlined into the walk, so that the node's fields live in registers.
#define CPCORE_STEP inline __attribute__((always_inline))

const int64_t STOP_INTERVAL = 4096;  // nodes between looks at the stop flag (a power of two)

// Whether node ``nodes`` is one where a search looks at the flag, and finds it set.
inline __attribute__((always_inline)) bool stop_asked(int64_t nodes, const int64_t* stop) {
    return (nodes & (STOP_INTERVAL - 1)) == 0 && stopped(stop);
}

// What a node asks of the walk: skip the child just chosen, enter it, or end the search.
enum class Step { skip, enter, end };

// How a walk ended: every node searched, a child ended it, or the stop flag.
enum class Ended { finished, early, stopped };

// The one depth-first walk (see above), from the node at ``depth`` (0: the root; a
// resumed walk, the solution stream, goes on from where it ended).
template <class Node>
inline __attribute__((always_inline)) Ended depth_first(Node& s, const int64_t* stop,
                                                        int64_t& nodes, unsigned depth = 0) {
    nodes = 1;
    for (;;) {
        if (!s.next()) {
            s.close();
            if (depth == 0) return Ended::finished;
            s.pop(--depth);
            continue;
        }
        const Step step = s.child();
        if (step == Step::skip) continue;
        if (step == Step::end) return Ended::early;
        s.push(depth);
        ++depth;
        ++nodes;
        s.enter();
        if (stop_asked(nodes, stop)) return Ended::stopped;  // at a node entered: resumable
    }
}

// The one first-open-item step of the searches on an anchored layout (the one-word Walk,
// one_word.hpp; the two- and N-word states of packing_search.hpp, and so the branching step
// cpcore_split_n_words): the item a node branches on is the lowest one below ``end`` that
// the state leaves open, at or after ``from`` (``end`` when there is none). Every item below
// ``from`` is covered (a search branches on the first open item, so the items before the
// one it branched on were covered then), so the walk starts at from's word. The state is
// the policy: its n_words() words of items, item 64 i + b at bit b of word i, and
// open_word(i) the items of word i it leaves open, as bits. (The bit cover and the dancing
// links branch instead on the open item with the fewest options: bit_cover.cpp, cover.hpp.)
template <class State>
CPCORE_STEP uint64_t first_open(const State& s, uint64_t from, uint64_t end) {
    CPCORE_ASSERT(end <= 64 * s.n_words());
    CPCORE_ASSERT(from >= end || (s.open_word(from >> 6) & ((word(1) << (from & 63)) - 1)) == 0);
    for (uint64_t i = from >> 6; i < s.n_words(); ++i) {
        const word open = s.open_word(i);
        if (open != 0) {
            const uint64_t x = (i << 6) + lowest(open);
            return x < end ? x : end;
        }
    }
    return end;
}

// The one branching choice of the searches on an anchored layout (the one-word searches'
// Walk, one_word.hpp; the packing searches' Search::next_fit, packing_search.hpp, and so the
// branching step cpcore_split_n_words; the difficulty backtracker). A node branches on its
// first open item, its anchor, and tries the options anchored there in runs, one run a
// piece (a unit, a tag): a run whose piece is used up (placed already, or a piece in copies
// at its bound) is passed over whole, from the option that says so, and in a run the
// options are tried in the layout's order, the next that fits taken. The walk of a node's
// options is a cursor: ``at`` the next option of the run being tried, ``end`` the run's end.
// The layout is the policy:
//   next_run(at, end)  the next run, as [at, end) (false: none left);
//   fit(i)             whether the option at i fits the node (Fit::yes), does not
//                      (Fit::no), or is a used-up piece's (Fit::used_up: the run ends).
// Returns whether an option was found; it is the one at ``at - 1``. A cursor is resumed as
// it was left, or with end = at, which asks next_run for the run from ``at`` (the same run).
enum class Fit { no, yes, used_up };

template <class Options, class Index>
CPCORE_STEP bool next_option(Options& options, Index& at, Index& end) {
    Index p = at, stop = end;
    for (;;) {
        while (p < stop) {
            const Fit fit = options.fit(p++);
            if (fit == Fit::yes) {
                at = p;
                end = stop;
                return true;
            }
            if (fit == Fit::used_up) p = stop;
        }
        if (!options.next_run(p, stop)) {
            at = p;
            end = stop;
            return false;
        }
        CPCORE_ASSERT(p < stop);  // a run holds an option at least
    }
}

}  // namespace cpcore
