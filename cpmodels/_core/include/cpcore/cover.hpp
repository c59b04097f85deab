// Algorithm X's count with the most constrained item first, written once for both layouts
// of a cover (dancing links, src/links.cpp, and two-word masks, src/bit_cover.cpp), and the
// stop flag's look every CHECK_EVERY + 1 nodes. Freestanding.
#pragma once

#include "cpcore/bits.hpp"

namespace cpcore {

const uint64_t CHECK_EVERY = (1ULL << 16) - 1;  // nodes between looks at the stop flag
const int64_t COUNT_STOPPED = -1;  // a count the stop flag ended before it finished
const int64_t COUNT_TOO_DEEP = -2;  // a count that needed more levels than its buffers hold

// Whether node ``nodes`` is one where the search looks at the flag and finds it set.
inline __attribute__((always_inline)) bool stop_asked(uint64_t nodes, const int64_t* stop) {
    return (nodes & CHECK_EVERY) == 0 && stopped(stop);
}

// The solutions of ``space`` (COUNT_STOPPED, COUNT_TOO_DEEP), and its nodes in *nodes.
// A node is a level d that is not yet solved; the space answers, at its level:
//   solved(d)   every item to cover is covered (a solution, not a node);
//   choose(d)   pick the item to branch on (the most constrained) and start its options;
//   advance(d)  take back the option tried last at d, if any, and move to the next one
//               that covers the chosen item: false when there is none (the level is done,
//               and whatever choose did is taken back);
//   descend(d)  place that option, making level d + 1 (false: no room for it).
template <class Space>
inline int64_t count_most_constrained(Space& space, const int64_t* stop, uint64_t* nodes) {
    int64_t count = 0;
    uint64_t seen = 0;
    unsigned d = 0;
    bool entering = true;
    for (;;) {
        if (entering) {
            if (space.solved(d)) {
                ++count;
                if (d == 0) break;
                --d;
                entering = false;
                continue;
            }
            ++seen;
            if (stop_asked(seen, stop)) {
                *nodes = seen;
                return COUNT_STOPPED;
            }
            space.choose(d);
        }
        if (!space.advance(d)) {
            if (d == 0) break;
            --d;
            entering = false;
            continue;
        }
        if (!space.descend(d)) {
            *nodes = seen;
            return COUNT_TOO_DEEP;
        }
        ++d;
        entering = true;
    }
    *nodes = seen;
    return count;
}

}  // namespace cpcore
