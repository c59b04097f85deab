// The one search skeleton of the core, and the stop convention every search keeps.
// Freestanding.
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

}  // namespace cpcore
