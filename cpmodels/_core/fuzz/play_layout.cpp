// Fuzz target: play mode's layout (cpcore_play_layout) of any grid code, board and pieces, as
// a board drawn in the editor reaches it: measured with no buffers, then written, sometimes
// into a stream a word short; the stream must hold what it says it holds.
#include "bytes.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {
namespace {

struct Layout {
    int64_t grid;
    std::vector<int64_t> board, cells, start, turns;
    uint64_t n_board, n_pieces, n_cells;
};

// The adapter: the one call of the entry point.
int64_t play_layout(const Layout& l, int64_t* out, uint64_t capacity, int64_t* scratch,
                    uint64_t n_scratch, uint64_t* sizes) {
    const cpcore_play_input in{l.grid, l.board.data(), l.n_board, l.cells.data(),
                               l.start.data(), l.turns.data(), l.n_pieces, l.n_cells};
    return cpcore_play_layout(&in, out, capacity, scratch, n_scratch, sizes);
}

// Reads the stream's words in order, never past its end.
struct Reader {
    const int64_t* at;
    const int64_t* end;
    int64_t next() {
        FUZZ_REQUIRE(at < end);
        return *at++;
    }
    void skip(int64_t n) {
        FUZZ_REQUIRE(n >= 0 && n <= end - at);
        at += n;
    }
};

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    Layout l;
    l.grid = in.within(-1, 4);
    l.n_board = in.count(160);
    l.board = in.numbers(2 * l.n_board);
    l.n_pieces = in.count(16);
    l.start = any_runs(in, l.n_pieces, 16);
    l.n_cells = run_total(in, l.start, 160);
    l.cells = in.numbers(2 * l.n_cells);
    l.turns = in.numbers(2 * l.n_pieces);
    const bool short_one = in.count(1) == 1;
    uint64_t sizes[2];
    int64_t status = play_layout(l, nullptr, 0, nullptr, 0, sizes);
    if (status != CPCORE_GEOMETRY_SMALL_BUFFER || sizes[1] > (1u << 22)) return 0;
    Buffer<int64_t> scratch(sizes[1]);
    status = play_layout(l, nullptr, 0, scratch.data(), scratch.size, sizes);
    if (status != CPCORE_GEOMETRY_SMALL_BUFFER) {
        FUZZ_REQUIRE(status < 0);
        return 0;
    }
    if (sizes[0] > (1u << 24)) return 0;
    const uint64_t n = sizes[0] - (short_one && sizes[0] > 0);
    Buffer<int64_t> out(n);
    uint64_t again[2];
    status = play_layout(l, out.data(), n, scratch.data(), scratch.size, again);
    FUZZ_REQUIRE(again[0] == sizes[0]);
    if (n < sizes[0]) {
        FUZZ_REQUIRE(status == CPCORE_GEOMETRY_SMALL_BUFFER);
        return 0;
    }
    FUZZ_REQUIRE(status == (int64_t)sizes[0]);
    // The stream as entry.h lays it out, read to its end exactly.
    Reader r{out.data(), out.data() + n};
    const int64_t n_cells = r.next();
    FUZZ_REQUIRE(n_cells >= 1 && (uint64_t)n_cells <= l.n_board);
    r.skip(4);
    FUZZ_REQUIRE(r.next() == (int64_t)l.n_pieces);
    for (int64_t i = 0; i < n_cells; ++i) {
        r.skip(4);
        const int64_t k = r.next();
        FUZZ_REQUIRE(k == 3 || k == 4 || k == 6);
        r.skip(2 * k);
    }
    for (uint64_t p = 0; p < l.n_pieces; ++p) {
        const int64_t n_orientations = r.next();
        FUZZ_REQUIRE(n_orientations >= 1 && n_orientations <= 12);
        for (int64_t o = 0; o < n_orientations; ++o) {
            const int64_t cells = r.next();
            FUZZ_REQUIRE(cells >= 1 && cells <= l.start[p + 1] - l.start[p]);
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
    FUZZ_REQUIRE(r.at == r.end);
    return 0;
}
