// Fuzz target: the one-word kernel's layout of a cover (cpcore_one_word_layout_measure/fill)
// and its tally bits (cpcore_one_word_tally_bits), over any cover, cell coordinates, item and
// option kinds the bytes make: a cover that suits is filled into arrays of exactly the
// measured sizes, and the runs by anchor and piece must hold each option once. The corner a
// design's reach search scans from (cpcore_reach_corner) is laid out in the same arrays: a
// corner, or none; the layout of the corner chosen suits, and so do its groups.
#include "bytes.hpp"
#include "cover.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {
namespace {

// The adapter of cpcore_one_word_tally_bits.
int64_t tally_bits(const std::vector<int64_t>& kinds, const std::vector<int64_t>& items,
                   uint64_t optional, uint64_t* bits) {
    return cpcore_one_word_tally_bits(kinds.data(), kinds.size(), items.data(), items.size(),
                                      optional, bits);
}

// The adapter of cpcore_reach_corner.
int64_t reach_corner(const cpcore_one_word_input& in, int64_t* work,
                     const cpcore_one_word_sizes& sizes, const OneWordLayout& l,
                     cpcore_reach_groups* groups) {
    return cpcore_reach_corner(&in, work, &sizes, &l.out, groups);
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const Cover c(in, 128, 4096);  // (64 cells and 64 pieces at most suit one word)
    const std::vector<int64_t> xy = in.numbers(2 * c.in.n_cells);
    const std::vector<int64_t> item_kind = in.numbers_within(c.in.n_items, -1, 3);
    const bool with_kinds = in.count(1) == 1;
    const std::vector<int64_t> option_kind = in.numbers_within(c.in.n_options, -1, 3);
    const cpcore_one_word_input input{&c.in, xy.data(), item_kind.data(),
                                      with_kinds ? option_kind.data() : nullptr,
                                      in.count(3)};
    const uint64_t n_tally = in.count(6);
    const std::vector<int64_t> items = in.numbers_within(n_tally, -2, (int64_t)c.in.n_items);
    Buffer<uint64_t> bits(n_tally);
    const int64_t got = tally_bits(item_kind, items, 0, bits.data());
    FUZZ_REQUIRE(got == 0 || got == 1 || got == -CPCORE_LAYOUT_BAD_ITEM ||
                 got == -CPCORE_LAYOUT_REPEATED_TALLY);

    Buffer<int64_t> work(cpcore_one_word_layout_work(&input));
    const cpcore_one_word_sizes m = lay_out(input, work.data());
    if (m.error != CPCORE_LAYOUT_OK || !m.suits) return 0;
    FUZZ_REQUIRE(m.n_pieces >= 1 && m.n_pieces <= 64 && m.n_board_cells >= 1 &&
                 m.n_board_cells <= 64 && m.n_flat >= 0 &&
                 m.n_flat <= (int64_t)c.in.n_options);
    const OneWordLayout l(c.in, m);
    const cpcore_one_word_sizes f = lay_out(input, work.data(), &l);
    FUZZ_REQUIRE(f.suits && f.n_pieces == m.n_pieces && f.n_flat == m.n_flat &&
                 f.n_board_cells == m.n_board_cells);
    FUZZ_REQUIRE(l.start[0] == 0 && l.start[64 * m.n_pieces] == (uint64_t)m.n_flat);
    for (int64_t g = 0; g < 64 * m.n_pieces; ++g) {
        FUZZ_REQUIRE(l.start[g] <= l.start[g + 1]);
        for (uint64_t k = l.start[g]; k < l.start[g + 1]; ++k) {
            const int64_t j = l.opts[k];
            FUZZ_REQUIRE(j >= 0 && (uint64_t)j < c.in.n_options && l.masks[k] == l.opt_cells[j]);
            FUZZ_REQUIRE((uint64_t)__builtin_ctzll(l.masks[k]) == (uint64_t)g / m.n_pieces);
        }
    }
    FUZZ_REQUIRE(f.region_limit >= 0 && f.region_limit <= m.n_board_cells + 1);
    // The same tally items against the layout's pieces that may be left out: refused (0)
    // when one of them is such a piece, else the same bits.
    if (got == 1) {
        bool left_out = false;
        for (uint64_t k = 0; k < n_tally; ++k) left_out |= (bits[k] & f.optional) != 0;
        Buffer<uint64_t> again(n_tally);
        FUZZ_REQUIRE(tally_bits(item_kind, items, f.optional, again.data()) == !left_out);
        for (uint64_t k = 0; k < n_tally && !left_out; ++k) FUZZ_REQUIRE(again[k] == bits[k]);
    }
    Buffer<uint64_t> cells(3), units(3), a_label(64), b_label(64);
    cpcore_reach_groups g{};
    g.group_cells = cells.data();
    g.group_unit = units.data();
    g.a_label = a_label.data();
    g.b_label = b_label.data();
    const int64_t corner = reach_corner(input, work.data(), m, l, &g);
    FUZZ_REQUIRE(corner >= -1 && corner <= 3);
    if (corner >= 0) {
        cpcore_one_word_input at = input;
        at.flips = (uint64_t)corner;
        FUZZ_REQUIRE(lay_out(at, work.data()).suits);
    }
    return 0;
}
