// Fuzz target: a board's sweep cover (cpcore_sweep_cover), as anyone who draws a board in the
// editor sends it: a grid, the board's cells, the pieces (orientations as runs of cells, their
// copies) and the label groups, any of them out of order or out of range. Called as the
// bindings call it: no buffers (the scratch), the scratch alone (the outputs), then all, one
// of them sometimes a word short; what it writes must read as a cover.
#include "bytes.hpp"
#include "cpcore/entry.h"

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

// The one call of the entry point (its adapter: a change of its signature changes this alone).
int64_t sweep_cover(const Board& b, int64_t* items, uint64_t n_items, int64_t* options,
                    uint64_t n_options, int64_t* entries, uint64_t n_entries, int64_t* fixed,
                    uint64_t n_fixed, int64_t* scratch, uint64_t n_scratch, uint64_t* sizes) {
    const cpcore_sweep_input in{b.grid, b.board.data(), b.n_board,
                                b.shape_cells.data(), b.shape_start.data(), b.n_shapes,
                                b.n_shape_cells, b.piece_start.data(), b.piece_bounds.data(),
                                b.n_pieces, b.group_cells.data(), b.group_start.data(),
                                b.n_groups, b.n_labels, b.max_placements};
    const cpcore_sweep_output out{items, n_items, options, n_options, entries,
                                  n_entries, fixed, n_fixed, scratch, n_scratch};
    return cpcore_sweep_cover(&in, &out, sizes);
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const Board b = read_board(in);
    const uint64_t short_one = in.count(5);  // 1 .. 4: that output a word short
    uint64_t sizes[5];
    int64_t status = sweep_cover(b, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0,
                                 sizes);
    if (status != CPCORE_GEOMETRY_SMALL_BUFFER) return 0;
    if (sizes[3] > ((uint64_t)1 << 20)) return 0;
    Buffer<int64_t> scratch(sizes[3]);
    status = sweep_cover(b, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0, scratch.data(),
                         scratch.size, sizes);
    if (status != CPCORE_GEOMETRY_SMALL_BUFFER) {
        FUZZ_REQUIRE(status < 0 || (sizes[0] == 0 && sizes[1] == 0 && sizes[4] == 0));
        return 0;
    }
    const uint64_t want[4] = {4 * sizes[0], 4 * sizes[1], sizes[2], sizes[4]};
    if (want[1] + want[2] > ((uint64_t)1 << 22)) return 0;
    uint64_t have[4];
    for (int k = 0; k < 4; ++k) have[k] = want[k] - (short_one == (uint64_t)k + 1 && want[k]);
    Buffer<int64_t> items(have[0], -7), options(have[1], -7), entries(have[2], -7),
        fixed(have[3], -7);
    uint64_t again[5];
    status = sweep_cover(b, items.data(), have[0], options.data(), have[1], entries.data(),
                         have[2], fixed.data(), have[3], scratch.data(), scratch.size, again);
    for (int k = 0; k < 5; ++k) FUZZ_REQUIRE(k == 3 || again[k] == sizes[k]);
    const bool short_call = short_one >= 1 && short_one <= 4 && want[short_one - 1] > 0;
    if (short_call) {
        FUZZ_REQUIRE(status == CPCORE_GEOMETRY_SMALL_BUFFER);
        return 0;
    }
    FUZZ_REQUIRE(status == (int64_t)sizes[1]);
    // What it wrote reads as a cover: items' kinds and bounds, options' runs of entries.
    const uint64_t n_items = sizes[0], n_options = sizes[1];
    for (uint64_t i = 0; i < n_items; ++i) {
        const int64_t* row = items.data() + 4 * i;
        FUZZ_REQUIRE(row[0] >= 0 && row[0] <= 2 && row[1] >= 0 && row[1] <= row[2]);
        FUZZ_REQUIRE(row[3] >= -1 && row[3] < (int64_t)b.n_board);
    }
    uint64_t next = 0;
    for (uint64_t o = 0; o < n_options; ++o) {
        const int64_t* row = options.data() + 4 * o;
        FUZZ_REQUIRE(row[0] == 0 || row[0] == 1);
        FUZZ_REQUIRE(row[2] == (int64_t)next && row[3] >= 1);
        next += (uint64_t)row[3];
        FUZZ_REQUIRE(next <= sizes[2]);
        for (int64_t k = row[2]; k < row[2] + row[3]; ++k)
            FUZZ_REQUIRE(entries[k] >= 0 && entries[k] < (int64_t)n_items);
    }
    FUZZ_REQUIRE(next == sizes[2]);
    for (uint64_t k = 0; k < sizes[4]; ++k)
        FUZZ_REQUIRE(fixed[k] >= 0 && fixed[k] < (int64_t)b.n_groups);
    return 0;
}
