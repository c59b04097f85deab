// The rules of the core's choice of search that a search applies as it runs (src/choice.cpp
// names the search; these say how it walks). Freestanding.
//
// Which states the one-word count remembers (COUNT_KEEPS_FROM): a sub-board with few pieces
// left has a tree smaller than what table rows cost it (a hash, a probe and, in a table of
// megabytes, a cache miss, for every child tried), so the count keeps and looks up only the
// states with at least COUNT_KEEPS_FROM pieces still to place; below that a node is the
// first-empty-cell step and the dead-end check alone. Measured on the engine's own calls
// replayed alone (instructions by callgrind; CPU time, the median of alternated runs on a
// loaded machine), every state kept against this rule:
//   6x10 distinct            283,503 ->   398,878 nodes, 285 -> 244 M instructions,
//                            88 -> 61 ms;
//   8x8 with the centre hole  49,254 ->    56,156 nodes, 44.7 -> 37.4 M, 11.3 -> 8.7 ms;
//   8x8 square distinct    5,728,631 -> 6,696,743 nodes, 1.60 -> 1.13 s;
//   calendar_week Jun 7 Tue  456,177 ->   614,852 nodes, 512 -> 424 M, 145 -> 111 ms.
// Keeping from 3 pieces left costs 10-20% more time on each of these; from 5, as much as 4.
// The tallies keep every state: a sweep's tasks share most of their sub-boards.
#pragma once

#include <stdint.h>

namespace cpcore {

const uint64_t COUNT_KEEPS_FROM = 4;  // pieces left in a state the one-word count keeps

}  // namespace cpcore
