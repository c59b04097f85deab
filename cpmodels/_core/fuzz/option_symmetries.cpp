// Fuzz target: a problem's symmetries on its options (cpcore_option_symmetries), for any
// items, runs of options, pieces and maps (well formed when the first number is 0: cells in
// range, maps permutations; else as they come): called as the binding calls it
// (stream.hpp). Every map kept must be one of the maps, in order; it takes the pieces with
// options one to one, and each option to -1 or to a placement of the piece its piece goes to
// whose cells are the image of its own; the held piece is one used once that no map moves,
// its orbits' representatives its options, their fixers kept maps but the first that fix
// them.
#include <algorithm>

#include "bytes.hpp"
#include "cpcore/entry.h"
#include "stream.hpp"

namespace cpfuzz {
namespace {

// Option j's cells (its cell items'), sorted.
std::vector<int64_t> cells_of(const cpcore_symmetry_input& s, uint64_t j) {
    std::vector<int64_t> cells;
    for (int64_t k = s.opt_start[j]; k < s.opt_start[j + 1]; ++k) {
        const int64_t c = s.item_cell[s.opt_items[k]];
        if (c >= 0) cells.push_back(c);
    }
    std::sort(cells.begin(), cells.end());
    return cells;
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const bool well_formed = in.number() == 0;
    const uint64_t n_cells = in.count(128), n_items = in.count(256);
    const std::vector<int64_t> item_cell =
        well_formed ? in.numbers_within(n_items, -1, (int64_t)n_cells - 1) : in.numbers(n_items);
    const uint64_t n_options = in.count(4096);
    const std::vector<int64_t> opt_start = well_formed ? runs(in, n_options, 8)
                                                       : any_runs(in, n_options, 8);
    const uint64_t n_opt_items = run_total(in, opt_start, 1 << 15);
    const std::vector<int64_t> opt_items =
        well_formed && n_items > 0 ? in.numbers_within(n_opt_items, 0, (int64_t)n_items - 1)
                                   : in.numbers(n_opt_items);
    const uint64_t n_pieces = in.count(40);
    const std::vector<int64_t> opt_piece =
        well_formed && n_pieces > 0 ? in.numbers_within(n_options, 0, (int64_t)n_pieces - 1)
                                    : in.numbers(n_options);
    std::vector<uint8_t> opt_placed(n_options + 1), piece_once(n_pieces + 1);
    for (uint64_t j = 0; j < n_options; ++j) opt_placed[j] = (uint8_t)in.count(1);
    const std::vector<int64_t> piece_bounds = in.numbers_within(n_pieces, 0, 2);
    for (uint64_t p = 0; p < n_pieces; ++p) piece_once[p] = (uint8_t)in.count(1);
    const uint64_t n_maps = in.count(48);
    std::vector<int64_t> maps(n_maps * n_cells + 1);
    for (uint64_t g = 0; g < n_maps; ++g) {
        int64_t* map = maps.data() + g * n_cells;
        if (!well_formed) {
            for (uint64_t c = 0; c < n_cells; ++c) map[c] = in.number();
            continue;
        }
        for (uint64_t c = 0; c < n_cells; ++c) map[c] = (int64_t)c;
        if (g == 0 || in.count(3) == 0) continue;  // the identity, first and at times again
        for (uint64_t c = n_cells; c-- > 1;) std::swap(map[c], map[in.count(c)]);
    }
    const cpcore_symmetry_input given{n_items, n_cells, n_options, n_opt_items, n_pieces,
                                      n_maps, item_cell.data(), opt_start.data(),
                                      opt_items.data(), opt_piece.data(), opt_placed.data(),
                                      piece_bounds.data(), piece_once.data(), maps.data()};
    const Streamed got = stream(cpcore_option_symmetries, given, in.count(2) == 0);
    if (got.status < 0) return 0;
    Reader r(got.words);
    const int64_t n_kept = r.next(), held = r.next(), n_orbits = r.next();
    FUZZ_REQUIRE(n_kept >= 0 && (uint64_t)n_kept <= n_maps);
    FUZZ_REQUIRE(held >= -1 && held < (int64_t)n_pieces && n_orbits >= 0);
    FUZZ_REQUIRE(held < 0 ? n_orbits == 0 : n_kept > 1 && n_orbits > 0 && piece_once[held]);
    std::vector<uint64_t> options_of(n_pieces, 0);
    for (uint64_t j = 0; j < n_options; ++j) ++options_of[opt_piece[j]];
    std::vector<std::vector<int64_t>> perms;
    int64_t last = -1;
    for (int64_t k = 0; k < n_kept; ++k) {
        const int64_t g = r.next();
        FUZZ_REQUIRE(g > last && g < (int64_t)n_maps);
        last = g;
        std::vector<int64_t> to(n_pieces);
        std::vector<uint8_t> hit(n_pieces, 0);
        for (uint64_t p = 0; p < n_pieces; ++p) {
            to[p] = r.next();
            FUZZ_REQUIRE(to[p] >= 0 && to[p] < (int64_t)n_pieces);
            if (options_of[p] == 0) continue;
            FUZZ_REQUIRE(!hit[to[p]] && options_of[to[p]] == options_of[p]);
            hit[to[p]] = 1;
        }
        if (held >= 0) FUZZ_REQUIRE(to[held] == held);
        const int64_t* map = maps.data() + g * n_cells;
        std::vector<int64_t> perm(n_options);
        for (uint64_t j = 0; j < n_options; ++j) {
            const int64_t i = perm[j] = r.next();
            FUZZ_REQUIRE(i >= -1 && i < (int64_t)n_options);
            if (i < 0) continue;
            FUZZ_REQUIRE(opt_placed[i] && opt_piece[i] == to[opt_piece[j]]);
            std::vector<int64_t> image = cells_of(given, j);
            for (auto& c : image) c = map[c];
            std::sort(image.begin(), image.end());
            FUZZ_REQUIRE(image == cells_of(given, (uint64_t)i));
        }
        perms.push_back(perm);
    }
    for (int64_t o = 0; o < n_orbits; ++o) {
        const int64_t rep = r.next(), size = r.next(), n_fixers = r.next();
        FUZZ_REQUIRE(rep >= 0 && rep < (int64_t)n_options && opt_piece[rep] == held);
        FUZZ_REQUIRE(size >= 1 && size <= n_kept && n_fixers >= 0 && n_fixers < n_kept);
        for (int64_t e = 0; e < n_fixers; ++e) {
            const int64_t f = r.next();
            FUZZ_REQUIRE(f >= 1 && f < n_kept && perms[f][rep] == rep);
        }
    }
    FUZZ_REQUIRE(r.done());
    return 0;
}
