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
    std::vector<int64_t> board, piece_start, piece_bounds;
    std::vector<uint8_t> left_out;  // empty: none (a null pointer)
    CellRuns shapes, groups;  // the shapes' cells, the groups' labelled cells
    uint64_t n_board = 0, n_pieces = 0, max_placements = 0;
};

Board read_board(Bytes& in) {
    Board b;
    b.grid = in.grid();
    b.dim = b.grid == CPCORE_GRID_CUBE ? 3 : 2;
    b.n_board = in.count(160);
    b.board = in.numbers(b.n_board * b.dim);
    b.shapes = cell_runs(in, 256, 16, 1024, (uint64_t)b.dim);
    b.n_pieces = in.count(24);
    b.piece_start = any_runs(in, b.n_pieces, 48);
    b.piece_bounds = in.numbers(2 * b.n_pieces);
    if (in.count(1) != 0) {
        for (uint64_t p = 0; p < b.n_pieces; ++p) b.left_out.push_back((uint8_t)in.count(1));
    }
    b.groups = cell_runs(in, 6, 40, 160, (uint64_t)b.dim);
    b.max_placements = (uint64_t)in.number();
    return b;
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const Board b = read_board(in);
    const bool short_one = in.count(5) != 0;  // out a word short
    const CellRuns &shapes = b.shapes, &groups = b.groups;
    const cpcore_sweep_input board{b.grid, b.board.data(), b.n_board, shapes.cells.data(),
                                   shapes.start.data(), shapes.n, shapes.n_cells,
                                   b.piece_start.data(), b.piece_bounds.data(), b.n_pieces,
                                   groups.cells.data(), groups.start.data(), groups.n,
                                   groups.n_cells, b.max_placements,
                                   b.left_out.empty() ? nullptr : b.left_out.data()};
    const Streamed got = stream(cpcore_sweep_cover, board, short_one);
    if (got.status < 0) return 0;
    // What it wrote reads as a cover: items' kinds and bounds, options' items.
    Reader r(got.words);
    const int64_t n_items = r.next(), n_options = r.next(), n_fixed = r.next();
    FUZZ_REQUIRE(n_items >= 0 && n_options >= 0 && n_fixed >= 0);
    for (int64_t i = 0; i < n_items; ++i) {
        const int64_t kind = r.next(), low = r.next(), high = r.next(), cell = r.next();
        FUZZ_REQUIRE(kind >= 0 && kind <= 2 && low >= 0 && low <= high);
        FUZZ_REQUIRE(cell >= -1 && cell < (int64_t)b.n_board);
    }
    for (int64_t o = 0; o < n_options; ++o) {
        const int64_t kind = r.next();
        FUZZ_REQUIRE(kind >= 0 && kind <= 2);
        const int64_t owner = r.next(), n = r.next();
        FUZZ_REQUIRE(n >= 1);
        if (kind == 2) {  // a left-out option: its piece's item alone, for a piece it names
            FUZZ_REQUIRE(n == 1 && owner >= 0 && (uint64_t)owner < b.n_pieces &&
                         b.left_out[(size_t)owner] != 0);
        }
        for (int64_t k = 0; k < n; ++k) {
            const int64_t item = r.next();
            FUZZ_REQUIRE(item >= 0 && item < n_items);
        }
    }
    for (int64_t k = 0; k < n_fixed; ++k) {
        const int64_t group = r.next();
        FUZZ_REQUIRE(group >= 0 && (uint64_t)group < b.groups.n);
    }
    FUZZ_REQUIRE(r.done());
    return 0;
}
