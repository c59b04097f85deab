// Fuzz target: where a piece can go (cpcore_orientations, cpcore_placements), over any grid
// code, cells, runs of shapes and limit: measured with no buffers, then written, sometimes
// into an output a word short; every placement named must be board cells of its shape.
#include "bytes.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {
namespace {

// The adapters: one call of each entry point.
int64_t orientations(int64_t grid, const std::vector<int64_t>& cells, uint64_t n, int rotate,
                     int flip, int64_t* out, uint64_t capacity, int64_t* scratch,
                     uint64_t n_scratch, uint64_t* sizes) {
    const cpcore_shape_input in{grid, cells.data(), n, rotate, flip};
    return cpcore_orientations(&in, out, capacity, scratch, n_scratch, sizes);
}

struct Shapes {
    int64_t grid;
    std::vector<int64_t> cells, start, board;
    uint64_t n_shapes, n_cells, n_board, limit;
};

int64_t placements(const Shapes& s, int64_t* out_cells, uint64_t cells_capacity,
                   int64_t* out_shape, uint64_t shapes_capacity, int64_t* scratch,
                   uint64_t n_scratch, uint64_t* sizes) {
    const cpcore_placements_input in{s.grid, s.cells.data(), s.start.data(), s.n_shapes,
                                     s.n_cells, s.board.data(), s.n_board, s.limit};
    return cpcore_placements(&in, out_cells, cells_capacity, out_shape, shapes_capacity,
                             scratch, n_scratch, sizes);
}

void orientations_of(Bytes& in, int64_t grid, int dim) {
    const uint64_t n = in.count(12);
    const std::vector<int64_t> cells = in.numbers(n * dim);
    const int rotate = (int)in.count(1), flip = (int)in.count(1);
    uint64_t sizes[3];
    int64_t status = orientations(grid, cells, n, rotate, flip, nullptr, 0, nullptr, 0, sizes);
    if (status != CPCORE_GEOMETRY_SMALL_BUFFER || sizes[0] > (1u << 20)) return;
    Buffer<int64_t> out(sizes[0]), scratch(sizes[1]);
    status = orientations(grid, cells, n, rotate, flip, out.data(), out.size, scratch.data(),
                          scratch.size, sizes);
    FUZZ_REQUIRE(status >= (n > 0 ? 1 : 0) && status <= 48);
    FUZZ_REQUIRE(sizes[2] <= n && (uint64_t)status * sizes[2] * dim <= out.size);
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    Shapes s;
    s.grid = in.within(-1, 4);
    const int dim = s.grid == CPCORE_GRID_CUBE ? 3 : 2;
    orientations_of(in, s.grid, dim);
    s.n_shapes = in.count(64);
    s.start = any_runs(in, s.n_shapes, 16);
    s.n_cells = run_total(in, s.start, 512);
    s.cells = in.numbers(s.n_cells * dim);
    s.n_board = in.count(160);
    s.board = in.numbers(s.n_board * dim);
    s.limit = (uint64_t)in.number();
    const uint64_t short_one = in.count(2);
    uint64_t sizes[3];
    int64_t status = placements(s, nullptr, 0, nullptr, 0, nullptr, 0, sizes);
    if (status != CPCORE_GEOMETRY_SMALL_BUFFER || sizes[2] > (1u << 20)) return 0;
    Buffer<int64_t> scratch(sizes[2]);
    status = placements(s, nullptr, 0, nullptr, 0, scratch.data(), scratch.size, sizes);
    if (status != CPCORE_GEOMETRY_SMALL_BUFFER) {
        FUZZ_REQUIRE(status <= 0);
        return 0;
    }
    if (sizes[1] > (1u << 22)) return 0;
    const uint64_t n_cells = sizes[1] - (short_one == 1 && sizes[1] > 0);
    const uint64_t n_shapes = sizes[0] - (short_one == 2 && sizes[0] > 0);
    Buffer<int64_t> cells(n_cells, -1), shapes(n_shapes, -1);
    uint64_t again[3];
    status = placements(s, cells.data(), n_cells, shapes.data(), n_shapes, scratch.data(),
                        scratch.size, again);
    FUZZ_REQUIRE(again[0] == sizes[0] && again[1] == sizes[1]);
    if (n_cells < sizes[1] || n_shapes < sizes[0]) {
        FUZZ_REQUIRE(status == CPCORE_GEOMETRY_SMALL_BUFFER);
        return 0;
    }
    FUZZ_REQUIRE(status == (int64_t)sizes[0] && sizes[0] <= s.limit);
    uint64_t at = 0;
    for (uint64_t p = 0; p < sizes[0]; ++p) {
        const int64_t k = shapes[p];
        FUZZ_REQUIRE(k >= 0 && (uint64_t)k < s.n_shapes);
        at += (uint64_t)(s.start[k + 1] - s.start[k]);
    }
    FUZZ_REQUIRE(at == sizes[1]);
    for (uint64_t c = 0; c < sizes[1]; ++c)
        FUZZ_REQUIRE(cells[c] >= 0 && (uint64_t)cells[c] < s.n_board);
    return 0;
}
