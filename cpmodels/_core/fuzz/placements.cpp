// Fuzz target: where a piece can go (cpcore_orientations, cpcore_placements), over any grid
// code, cells, runs of shapes and limit: called as the bindings call them (stream.hpp), the
// placements sometimes into an output a word short; every orientation must have the cells
// of the shape, every placement named must be board cells of its shape.
#include "bytes.hpp"
#include "cpcore/entry.h"
#include "stream.hpp"

namespace cpfuzz {
namespace {

void orientations_of(Bytes& in, int64_t grid, int dim) {
    const uint64_t n = in.count(12);
    const std::vector<int64_t> cells = in.numbers(n * dim);
    const int rotate = (int)in.count(1), flip = (int)in.count(1);
    const cpcore_shape_input shape{grid, cells.data(), n, rotate, flip};
    const Streamed got = stream(cpcore_orientations, shape, false, uint64_t(1) << 20);
    if (got.status < 0) return;
    Reader r(got.words);
    const int64_t found = r.next(), size = r.next();
    FUZZ_REQUIRE(found >= (n > 0 ? 1 : 0) && found <= 48 && size >= 0 && (uint64_t)size <= n);
    r.skip(found * size * dim);
    FUZZ_REQUIRE(r.done());
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const int64_t grid = in.grid();
    const int dim = grid == CPCORE_GRID_CUBE ? 3 : 2;
    orientations_of(in, grid, dim);
    const CellRuns shapes = cell_runs(in, 64, 16, 512, (uint64_t)dim);
    const uint64_t n_shapes = shapes.n;
    const std::vector<int64_t>& start = shapes.start;
    const uint64_t n_board = in.count(160);
    const std::vector<int64_t> board = in.numbers(n_board * dim);
    const uint64_t limit = (uint64_t)in.number();
    const bool short_one = in.count(2) != 0;
    const cpcore_placements_input given{grid, shapes.cells.data(), start.data(),
                                        n_shapes, shapes.n_cells, board.data(),
                                        n_board, limit};
    const Streamed got = stream(cpcore_placements, given, short_one);
    if (got.status < 0) return 0;
    Reader r(got.words);
    uint64_t found = 0;
    while (!r.done()) {
        const int64_t k = r.next();
        FUZZ_REQUIRE(k >= 0 && (uint64_t)k < n_shapes);
        for (int64_t i = start[k]; i < start[k + 1]; ++i) {
            const int64_t b = r.next();
            FUZZ_REQUIRE(b >= 0 && (uint64_t)b < n_board);
        }
        ++found;
    }
    FUZZ_REQUIRE(found <= limit);
    return 0;
}
