// Fuzz target: a board's sweep cover (cpcore_sweep_cover), as anyone who draws a board in the
// editor sends it: a grid, the board's cells, the pieces (orientations as runs of cells, their
// copies) and the label groups, any of them out of order or out of range. Called as the
// bindings call it (stream.hpp), its output sometimes a word short; what it writes must read
// as a cover.
#include "bytes.hpp"
#include "cpcore/entry.h"
#include "stream.hpp"

namespace cpfuzz {
namespace {

struct Board {
    int64_t grid = 0;
    int dim = 2;
    std::vector<int64_t> board, shape_cells, shape_start, piece_start, piece_bounds,
        group_cells, group_start;
    uint64_t n_board = 0, n_shapes = 0, n_shape_cells = 0, n_pieces = 0, n_groups = 0,
             n_labels = 0, max_placements = 0;
};

Board read_board(Bytes& in) {
    Board b;
    b.grid = in.within(-1, 4);
    b.dim = b.grid == CPCORE_GRID_CUBE ? 3 : 2;
    b.n_board = in.count(160);
    b.board = in.numbers(b.n_board * b.dim);
    b.n_shapes = in.count(256);
    b.shape_start = any_runs(in, b.n_shapes, 16);
    b.n_shape_cells = run_total(in, b.shape_start, 1024);
    b.shape_cells = in.numbers(b.n_shape_cells * b.dim);
    b.n_pieces = in.count(24);
    b.piece_start = any_runs(in, b.n_pieces, 48);
    b.piece_bounds = in.numbers(2 * b.n_pieces);
    b.n_groups = in.count(6);
    b.group_start = any_runs(in, b.n_groups, 40);
    b.n_labels = run_total(in, b.group_start, 160);
    b.group_cells = in.numbers(b.n_labels * b.dim);
    b.max_placements = (uint64_t)in.number();
    return b;
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const Board b = read_board(in);
    const bool short_one = in.count(5) != 0;  // out a word short
    const cpcore_sweep_input board{b.grid, b.board.data(), b.n_board,
                                   b.shape_cells.data(), b.shape_start.data(), b.n_shapes,
                                   b.n_shape_cells, b.piece_start.data(), b.piece_bounds.data(),
                                   b.n_pieces, b.group_cells.data(), b.group_start.data(),
                                   b.n_groups, b.n_labels, b.max_placements};
    std::vector<int64_t> words;
    const int64_t status = stream(
        [&](cpcore_buffers* out) { return cpcore_sweep_cover(&board, out); }, short_one, words);
    if (status < 0) return 0;
    // What it wrote reads as a cover: items' kinds and bounds, options' items.
    Reader r(words);
    const int64_t n_items = r.next(), n_options = r.next(), n_fixed = r.next();
    FUZZ_REQUIRE(n_items >= 0 && n_options >= 0 && n_fixed >= 0);
    for (int64_t i = 0; i < n_items; ++i) {
        const int64_t kind = r.next(), low = r.next(), high = r.next(), cell = r.next();
        FUZZ_REQUIRE(kind >= 0 && kind <= 2 && low >= 0 && low <= high);
        FUZZ_REQUIRE(cell >= -1 && cell < (int64_t)b.n_board);
    }
    for (int64_t o = 0; o < n_options; ++o) {
        const int64_t kind = r.next();
        FUZZ_REQUIRE(kind == 0 || kind == 1);
        r.skip(1);
        const int64_t n = r.next();
        FUZZ_REQUIRE(n >= 1);
        for (int64_t k = 0; k < n; ++k) {
            const int64_t item = r.next();
            FUZZ_REQUIRE(item >= 0 && item < n_items);
        }
    }
    for (int64_t k = 0; k < n_fixed; ++k) {
        const int64_t group = r.next();
        FUZZ_REQUIRE(group >= 0 && (uint64_t)group < b.n_groups);
    }
    FUZZ_REQUIRE(r.done());
    return 0;
}
