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
//
// How the one-word count and tally walk a node's placements (COUNT_WALKS_BY_VECTORS): by
// vectors (one_word.hpp's AnchorWalk: every option at the first empty cell tested at once
// against the cells and the units used, the fitting ones taken by their bits) in the native
// module, else by runs (Walk: one test and one branch an option, a run a unit). The same
// tree either way.
// Measured on the engine's own calls of each count (CPU of the search's thread, medians of
// 10 to 30 counts in one process, each build against the same build of the runs walk):
//                      AVX-512 (8 lanes)   AVX2 (4 lanes)    x86-64-v2 (1 lane)
//   6x10 distinct      55 -> 39.7 ms       56 -> 44 ms       59 -> 54 ms
//   centre hole        7.6 -> 6.1 ms       8.1 -> 6.5 ms     8.6 -> 8.1 ms
//   8x8 square         980 -> 706 ms
// (398,878, 56,156 and 6,696,743 nodes, the same for both walks). Not measured in a
// browser: WebAssembly keeps the runs. A layout of more than COUNT_VECTOR_OPTIONS options
// keeps them too (the masks' unit bits are held on the count's stack). The tally walks as
// the count (the same tree and nodes): `calendar_week`'s sweep, whole process, 7 alternated
// pairs, CPU 2.28 -> 1.85 s (paired ratio 0.85), 4,303,621 nodes either way.
#pragma once

#include <stdint.h>

#include "cpcore/bits.hpp"

namespace cpcore {

const uint64_t COUNT_KEEPS_FROM = 4;  // pieces left in a state the one-word count keeps

#if defined(__wasm__)
const bool COUNT_WALKS_BY_VECTORS = false;  // the count's walk may be AnchorWalk
#else
const bool COUNT_WALKS_BY_VECTORS = true;
#endif
const uint64_t COUNT_VECTOR_OPTIONS = 4096;  // ... for a layout of at most so many options
                                             // (their unit bits on the count's stack, 32 KB)

// How the reach search walks a node's placements (REACH_WALKS_BY_VECTORS): as the count does,
// by vectors (AnchorWalk) in the native module, by runs (Walk) in WebAssembly, whose
// engine.wasm keeps one copy of the search; a layout of more than COUNT_VECTOR_OPTIONS
// options keeps the runs (the masks' unit bits are held on the call's stack). The same tree
// either way; the figures are docs/design.md's.
const bool REACH_WALKS_BY_VECTORS = COUNT_WALKS_BY_VECTORS;

// Whether a tally keeps rows of two words where its units fit (one_word.cpp's NarrowRows:
// calendar_week's sweep 248 MB peak against 330, the same CPU): always.
// How (TALLY_ONE_SEARCH): natively a search for each width of row (NarrowRows, CountTable),
// the widths template constants; in WebAssembly one search whose rows' width is the
// table's own (SizedRows): a second copy of the tally's code is 13 KB more of engine.wasm,
// which a first visit fetches. Rows of two words there keep the editor's weekday heatmap
// in 64 MB of rows a worker where rows of three took 96 MB, pages the browser has the
// system zero as the table grows (docs/web.md).
const bool TALLY_NARROW_ROWS = true;
#if defined(__wasm__) || defined(CPCORE_TALLY_ONE_SEARCH)
const bool TALLY_ONE_SEARCH = true;
#else
const bool TALLY_ONE_SEARCH = false;
#endif

// Whether the one-word count of a layout of ``n_options`` options (in its runs) walks its
// nodes by vectors (AnchorWalk), else by runs (Walk).
inline bool count_walks_by_vectors(uint64_t n_options) {
    return COUNT_WALKS_BY_VECTORS && n_options <= COUNT_VECTOR_OPTIONS;
}

// Whether the reach search of a layout of ``n_options`` options (in its runs) walks its
// nodes by vectors (AnchorWalk), else by runs (Walk).
inline bool reach_walks_by_vectors(uint64_t n_options) {
    return REACH_WALKS_BY_VECTORS && n_options <= COUNT_VECTOR_OPTIONS;
}

}  // namespace cpcore
