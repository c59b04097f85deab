// Fuzz target: play mode's layout (cpcore_play_layout) of any grid code, board and pieces, as
// a board drawn in the editor reaches it: measured with no buffers, then written, sometimes
// into a stream a word short; the stream must hold what it says it holds.
#include "bytes.hpp"
#include "cpcore/entry.h"
#include "stream.hpp"

namespace cpfuzz {
namespace {

struct Layout {
    int64_t grid;
    std::vector<int64_t> board, turns;
    uint64_t n_board;
    CellRuns pieces;
};

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    Layout l;
    l.grid = in.grid();
    l.n_board = in.count(160);
    l.board = in.numbers(2 * l.n_board);
    l.pieces = cell_runs(in, 16, 16, 160, 2);
    l.turns = in.numbers(2 * l.pieces.n);
    const bool short_one = in.count(1) == 1;
    const cpcore_play_input given{l.grid, l.board.data(), l.n_board, l.pieces.cells.data(),
                                  l.pieces.start.data(), l.turns.data(), l.pieces.n,
                                  l.pieces.n_cells};
    const Streamed got = stream(cpcore_play_layout, given, short_one, uint64_t(1) << 24);
    if (got.status < 0) return 0;
    // The stream as entry.h lays it out, read to its end exactly.
    Reader r(got.words);
    const int64_t n_cells = r.next();
    FUZZ_REQUIRE(n_cells >= 1 && (uint64_t)n_cells <= l.n_board);
    r.skip(4);
    FUZZ_REQUIRE(r.next() == (int64_t)l.pieces.n);
    for (int64_t i = 0; i < n_cells; ++i) {
        r.skip(4);
        const int64_t k = r.next();
        FUZZ_REQUIRE(k == 3 || k == 4 || k == 6);
        r.skip(2 * k);
    }
    for (uint64_t p = 0; p < l.pieces.n; ++p) {
        const int64_t n_orientations = r.next();
        FUZZ_REQUIRE(n_orientations >= 1 && n_orientations <= 12);
        for (int64_t o = 0; o < n_orientations; ++o) {
            const int64_t cells = r.next();
            const std::vector<int64_t>& start = l.pieces.start;
            FUZZ_REQUIRE(cells >= 1 && cells <= start[p + 1] - start[p]);
            r.skip(2 * cells);
            FUZZ_REQUIRE((uint64_t)r.next() <= 1);
            for (int t = 0; t < 2; ++t) {
                const int64_t to = r.next();
                FUZZ_REQUIRE(to >= -1 && to < n_orientations);
            }
            r.skip(2);
            const int64_t loops = r.next();
            FUZZ_REQUIRE(loops >= 1);
            for (int64_t k = 0; k < loops; ++k) {
                const int64_t points = r.next();
                FUZZ_REQUIRE(points >= 3);
                r.skip(2 * points);
            }
            const int64_t places = r.next();
            FUZZ_REQUIRE(places >= 0 && places <= n_cells);
            r.skip(4 * places);
        }
    }
    FUZZ_REQUIRE(r.done());
    return 0;
}
