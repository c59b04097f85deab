// Fuzz target: the engraving of a board's labels and its pieces' names (cpcore_engrave) for
// any grid code, labels, pieces, names, sizes and glyph table, as make and the editor reach
// it: the table well formed from the input (a few glyphs, code points, kerning classes and
// joined pairs) or any words; measured with no buffers, then written, sometimes into a
// stream a word short; the stream must hold what it says it holds.
#include "bytes.hpp"
#include "cpcore/entry.h"
#include "stream.hpp"

namespace cpfuzz {
namespace {

// A glyph table as make/glyphs.py writes one, its numbers from the input.
std::vector<int64_t> glyph_table(Bytes& in) {
    std::vector<int64_t> w;
    const uint64_t n_glyphs = 1 + in.count(5);
    w.push_back((int64_t)n_glyphs);
    for (uint64_t g = 0; g < n_glyphs; ++g) {
        w.push_back(cpcore::cut::bits((double)in.number() / 4.0));  // the advance
        const uint64_t rings = in.count(3);
        w.push_back((int64_t)rings);
        for (uint64_t r = 0; r < rings; ++r) put_ring(in, 3 + in.count(6), w);
    }
    const uint64_t n_first = 1 + in.count(3), n_second = 1 + in.count(3);
    const uint64_t n_chars = in.count(8);
    std::vector<int64_t> codes;
    w.push_back((int64_t)n_chars);
    int64_t code = 31;
    for (uint64_t c = 0; c < n_chars; ++c) {
        code += 1 + (int64_t)in.count(40);
        codes.push_back(code);
        w.push_back(code);
        w.push_back((int64_t)in.count(n_glyphs - 1));
        w.push_back((int64_t)in.count(n_first - 1));
        w.push_back((int64_t)in.count(n_second - 1));
    }
    w.push_back((int64_t)n_first);
    w.push_back((int64_t)n_second);
    for (uint64_t k = 0; k < n_first * n_second; ++k)
        w.push_back(cpcore::cut::bits((double)in.number() / 8.0));
    const uint64_t n_joined = codes.empty() ? 0 : in.count(2);
    w.push_back((int64_t)n_joined);
    for (uint64_t k = 0; k < n_joined; ++k) {
        w.push_back(codes[in.count(codes.size() - 1)]);
        w.push_back(codes[in.count(codes.size() - 1)]);
        w.push_back((int64_t)in.count(n_glyphs - 1));
    }
    return w;
}

// n runs of text (any numbers as code points) and their starts.
void texts(Bytes& in, uint64_t n, std::vector<int64_t>& start, std::vector<int64_t>& text) {
    start = any_runs(in, n, 12);
    text = in.numbers(run_total(in, start, 96));
    text.push_back(0);  // a word past the end, so that no array is empty
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const int64_t grid = in.grid();
    const uint64_t n_labels = in.count(40);
    const std::vector<int64_t> label_cells = in.numbers(2 * n_labels);
    std::vector<int64_t> label_start, name_start, label_text, name_text;
    cpfuzz::texts(in, n_labels, label_start, label_text);
    const CellRuns pieces = cell_runs(in, 8, 12, 96, 2);
    const uint64_t n_pieces = pieces.n;
    cpfuzz::texts(in, n_pieces, name_start, name_text);
    std::vector<int64_t> sizes(8);
    static const double usual[] = {0.0, 0.2, 1.0, 5.0, 10.0, 20.0, 33.3, 500.0};
    for (auto& s : sizes) {
        const int64_t pick = in.within(-1, 7);
        s = pick >= 0 ? cpcore::cut::bits(usual[pick]) : in.number();
    }
    const std::vector<int64_t> glyphs =
        in.count(1) == 0 ? in.numbers(in.count(1 << 14)) : cpfuzz::glyph_table(in);
    const bool short_one = in.count(1) == 1;
    const cpcore_engrave_input given{grid, label_cells.data(), label_start.data(),
                                     label_text.data(), n_labels, label_text.size() - 1,
                                     pieces.cells.data(), pieces.start.data(),
                                     name_start.data(), name_text.data(), n_pieces,
                                     pieces.n_cells, name_text.size() - 1,
                                     sizes.data(), glyphs.data(), glyphs.size()};
    const Streamed got = stream(cpcore_engrave, given, short_one, uint64_t(1) << 24);
    if (got.status < 0) return 0;
    // The stream as entry.h lays it out, read to its end exactly.
    Reader r(got.words);
    const int64_t first = r.next();
    FUZZ_REQUIRE(first >= 0 && first <= 0x10ffff);
    if (first > 0) {  // a character the table has not
        FUZZ_REQUIRE(r.done());
        return 0;
    }
    for (uint64_t o = 0; o < n_pieces + 1; ++o) {
        const int64_t n_polys = r.next();
        FUZZ_REQUIRE(n_polys >= 0);
        for (int64_t p = 0; p < n_polys; ++p) {
            const int64_t n_rings = r.next();
            FUZZ_REQUIRE(n_rings >= 1);
            for (int64_t k = 0; k < n_rings; ++k) {
                const int64_t n = r.next();
                FUZZ_REQUIRE(n >= 3);
                for (int64_t i = 0; i < 2 * n; ++i) {
                    const int64_t w = r.next();
                    const double v = cpcore::cut::get(&w, 0);
                    FUZZ_REQUIRE(v - v == 0.0);  // finite
                }
            }
        }
    }
    FUZZ_REQUIRE(r.done());
    return 0;
}
