// Algorithm X's count with the most constrained item first, written once for both layouts
// of a cover (dancing links, src/links.cpp, and two-word masks, src/bit_cover.cpp), as a
// policy of the one skeleton (cpcore/search.hpp's depth_first). Freestanding.
//
// A level d is a node not yet solved; the space (the layout's state) answers, at its level:
//   solved(d)   every item to cover is covered (a solution, not a node);
//   choose(d)   pick the item to branch on (the most constrained) and start its options;
//   advance(d)  take back the option tried last at d, if any, and move to the next one
//               that covers the chosen item: false when there is none (the level is done,
//               and whatever choose did is taken back);
//   descend(d)  place that option, making level d + 1 (false: no room for it).
// The space keeps every level's frame itself, so the walk's push is nothing; the level is
// the walk's depth.
#pragma once

#include "cpcore/entry.h"
#include "cpcore/search.hpp"

namespace cpcore {

template <class Space>
struct MostConstrained {
    Space& space;
    unsigned d;
    int64_t count;
    bool too_deep;

    CPCORE_STEP bool next() { return space.advance(d); }
    CPCORE_STEP Step child() {
        if (!space.descend(d)) {
            too_deep = true;
            return Step::end;
        }
        if (space.solved(d + 1)) {
            ++count;
            return Step::skip;  // advance takes the option back
        }
        return Step::enter;
    }
    CPCORE_STEP void close() {}
    CPCORE_STEP void pop(unsigned depth) { d = depth; }
    CPCORE_STEP void push(unsigned) {}
    CPCORE_STEP void enter() {
        ++d;
        space.choose(d);
    }
};

// The solutions of ``space`` (CPCORE_STOPPED, CPCORE_TOO_DEEP), and its nodes in *nodes.
template <class Space>
inline int64_t count_most_constrained(Space& space, const int64_t* stop, uint64_t* nodes) {
    *nodes = 0;
    if (space.solved(0)) return 1;
    if (stopped(stop)) return CPCORE_STOPPED;
    space.choose(0);
    MostConstrained<Space> walk{space, 0, 0, false};
    int64_t seen;
    const Ended ended = depth_first(walk, stop, seen);
    *nodes = (uint64_t)seen;
    if (ended == Ended::stopped) return CPCORE_STOPPED;
    if (walk.too_deep) return CPCORE_TOO_DEEP;
    return walk.count;
}

}  // namespace cpcore
