// A design's candidate sets' input as its callers hold it (the bindings, python/geometry.cpp,
// and the fuzz target, fuzz/design_sets.cpp): the pieces', the draws' and the board's arrays
// each in a container of the caller's (Words of int64_t, Flags of uint8_t, Text of char, each
// with data() and size()), laid over entry.h's cpcore_design_sets_input by input(), which
// takes the counts from the containers' sizes. Freestanding: the containers come with the
// caller.
#pragma once

#include <stdint.h>

#include "cpcore/check.hpp"
#include "cpcore/entry.h"

namespace cpcore {

template <class Words, class Flags, class Text>
struct DesignSetsArrays {
    // The pieces: piece i's cells (row, column) from cell_start[i], whether it may be
    // turned over, whether it may be rotated, its count id, area, copies at most and name
    // (UTF-8, from name_start[i]).
    Words cells, cell_start, count_id, area, high, name_start;
    Flags flip, rotate;
    Text names;
    // The draws: draw g's piece indices from draw_start[g], and its k_low and k_high.
    Words drawn, draw_start, k_low, k_high;
    Words board;  // the board's cells, row and column

    // The input over these arrays (they must outlive it), the pieces counted by their flags
    // and the draws by their k_low; holes: [n_dates, hole_cols] each required date's label
    // cells (indices of board cells; -1 pads).
    cpcore_design_sets_input input(uint64_t n_fixed, uint64_t board_area, uint64_t set_cols,
                                   const int64_t* holes, uint64_t n_dates,
                                   uint64_t hole_cols) const {
        CPCORE_ASSERT(count_id.size() == flip.size() && area.size() == flip.size() &&
                      high.size() == flip.size() && rotate.size() == flip.size() &&
                      k_high.size() == k_low.size());
        cpcore_design_sets_input in{};
        in.n_pieces = flip.size();
        in.n_fixed = n_fixed;
        in.n_cells = cells.size() / 2;
        in.cells = cells.data();
        in.cell_start = cell_start.data();
        in.flip = flip.data();
        in.rotate = rotate.data();
        in.count_id = count_id.data();
        in.area = area.data();
        in.high = high.data();
        in.names = names.data();
        in.name_start = name_start.data();
        in.n_names = names.size();
        in.n_draws = k_low.size();
        in.n_drawn = drawn.size();
        in.draw_pieces = drawn.data();
        in.draw_start = draw_start.data();
        in.k_low = k_low.data();
        in.k_high = k_high.data();
        in.board_area = board_area;
        in.set_cols = set_cols;
        in.board = board.data();
        in.n_board = board.size() / 2;
        in.n_dates = n_dates;
        in.hole_cols = hole_cols;
        in.holes = holes;
        return in;
    }
};

}  // namespace cpcore
