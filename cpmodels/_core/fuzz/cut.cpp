// Fuzz target: a laser's sheets of parts (cpcore_cut_sheets) for any grid code, board,
// pieces, copies, names, sizes and engraving, as a board drawn in the editor reaches it (and
// make, with its labels' outlines): measured with no buffers, then written, sometimes into a
// stream a word short; the stream must hold what it says it holds.
#include "bytes.hpp"
#include "cpcore/entry.h"
#include "stream.hpp"

namespace cpfuzz {
namespace {

// A double from the input: one of make's usual sizes, or any bits.
double size_from(Bytes& in) {
    static const double usual[] = {0.0, 0.15, 0.2, 1.0, 3.0, 5.0, 10.0, 20.0, 400.0, 600.0};
    const int64_t pick = in.within(-1, 9);
    if (pick >= 0) return usual[pick];
    const int64_t bits = in.number();
    return cpcore::cut::get(&bits, 0);
}

// The engraving of owners (each piece, then the base): well formed, or any words.
std::vector<int64_t> engraving(Bytes& in, uint64_t owners) {
    if (in.count(3) == 0) return in.numbers(in.count(64));
    std::vector<int64_t> words;
    for (uint64_t o = 0; o < owners; ++o) {
        const uint64_t polys = in.count(2);
        words.push_back((int64_t)polys);
        for (uint64_t p = 0; p < polys; ++p) {
            const uint64_t rings = 1 + in.count(1);
            words.push_back((int64_t)rings);
            for (uint64_t r = 0; r < rings; ++r) put_ring(in, 3 + in.count(3), words);
        }
    }
    return words;
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const int64_t grid = in.grid();
    const uint64_t n_board = in.count(120);
    const std::vector<int64_t> board = in.numbers(2 * n_board);
    const CellRuns pieces = cell_runs(in, 12, 12, 120, 2);
    const uint64_t n_pieces = pieces.n;
    std::vector<int64_t> copies(n_pieces);
    for (auto& c : copies) c = in.within(-1, 4);
    const std::vector<int64_t> name_start = any_runs(in, n_pieces, 6);
    const uint64_t n_names = run_total(in, name_start, 64);
    std::vector<uint8_t> names(n_names + 1);
    for (uint64_t k = 0; k < n_names; ++k) names[k] = (uint8_t)in.number();
    std::vector<int64_t> sizes(8);
    for (auto& s : sizes) s = cpcore::cut::bits(size_from(in));
    const std::vector<int64_t> engraved = engraving(in, n_pieces + 1);
    const bool short_one = in.count(1) == 1;
    const cpcore_cut_input given{grid, board.data(), n_board, pieces.cells.data(),
                                 pieces.start.data(), copies.data(), name_start.data(),
                                 names.data(), n_pieces, pieces.n_cells, n_names,
                                 sizes.data(), engraved.data(), engraved.size()};
    const Streamed got = stream(cpcore_cut_sheets, given, short_one, uint64_t(1) << 24);
    if (got.status < 0) return 0;
    // The stream as entry.h lays it out, read to its end exactly.
    Reader r(got.words);
    const int64_t n_sheets = r.next();
    FUZZ_REQUIRE(n_sheets >= 0);
    if (n_sheets == 0) {  // a part that fits on no sheet: its index, width and height
        FUZZ_REQUIRE((uint64_t)r.next() < 2 + n_pieces * 4);
        r.skip(2);
        FUZZ_REQUIRE(r.done());
        return 0;
    }
    for (int64_t s = 0; s < n_sheets; ++s) {
        const int64_t n_bytes = r.next();
        FUZZ_REQUIRE(n_bytes > 0);
        r.skip((n_bytes + 7) / 8);
    }
    const int64_t n_parts = r.next();
    FUZZ_REQUIRE(n_parts >= 2);
    for (int64_t p = 0; p < n_parts; ++p) {
        FUZZ_REQUIRE(r.next() < n_parts);
        const int64_t sheet = r.next();
        FUZZ_REQUIRE(sheet >= 1 && sheet <= n_sheets);
        const int64_t turn = r.next();
        FUZZ_REQUIRE(turn >= 0 && turn < 360 && turn % 30 == 0);
        r.skip(4);
    }
    FUZZ_REQUIRE(r.done());
    return 0;
}
