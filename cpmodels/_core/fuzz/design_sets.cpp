// Fuzz target: a design's candidate sets (cpcore_design_sets), for any pieces (cells near the
// origin, repeated or not, any flags, copies and names), any draws (their pieces' indices
// and counts as they come, in range or not), any board and any dates' holes. Inputs out of
// range must be refused; else the three calls must agree on what they need, and every set
// kept must hold the fixed pieces, then drawn pieces, with the board's area, each set once,
// the kept and skipped sets adding up to those with the area.
#include <set>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "cpcore/design_sets_arrays.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {
namespace {

// The adapter: the one call of the entry point.
int64_t design_sets(cpcore_design_sets_input& in, cpcore_buffers& b) {
    return cpcore_design_sets(&in, &b);
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    cpcore::DesignSetsArrays<std::vector<int64_t>, std::vector<uint8_t>, std::string> g;
    const uint64_t n_pieces = in.count(10);
    const uint64_t n_fixed = in.count(n_pieces);
    g.cell_start = cpfuzz::any_runs(in, n_pieces, 6);
    const uint64_t n_cells = cpfuzz::run_total(in, g.cell_start, 60);
    g.cells = in.numbers_within(2 * n_cells, -6, 6);
    g.flip.resize(n_pieces);
    for (auto& f : g.flip) f = (uint8_t)in.count(1);
    g.count_id = in.numbers_within(n_pieces, 0, 2);
    g.area = in.numbers(n_pieces);
    g.high = in.numbers(n_pieces);
    g.name_start = cpfuzz::any_runs(in, n_pieces, 3);
    g.names.resize(cpfuzz::run_total(in, g.name_start, 30));
    for (auto& c : g.names) c = (char)in.within(-128, 127);
    const uint64_t n_draws = in.count(3);
    g.draw_start = cpfuzz::any_runs(in, n_draws, 6);
    g.drawn = in.numbers_within(cpfuzz::run_total(in, g.draw_start, 18), -1, (int64_t)n_pieces);
    g.k_low = in.numbers_within(n_draws, -1, 4);
    g.k_high = in.numbers_within(n_draws, -1, 4);
    uint64_t set_cols = n_fixed;
    for (const int64_t k : g.k_high) set_cols += k > 0 ? (uint64_t)k : 0;
    set_cols = in.count(1) ? in.count(16) : set_cols;  // now and then as it comes
    const uint64_t n_board = in.count(30);
    g.board = in.numbers_within(2 * n_board, -6, 6);
    const uint64_t n_dates = in.count(12), hole_cols = 1 + in.count(3);
    std::vector<int64_t> holes = in.numbers_within(n_dates * hole_cols, -1, (int64_t)n_board);
    g.rotate.resize(n_pieces);  // (read last: a piece may rotate unless told)
    for (auto& r : g.rotate) r = (uint8_t)(1 - in.count(1));
    cpcore_design_sets_input d =
        g.input(n_fixed, in.count(20), set_cols, holes.data(), n_dates, hole_cols);
    cpcore_buffers b{};
    const int64_t first = cpfuzz::design_sets(d, b);
    if (first == CPCORE_SETS_INPUT) return 0;
    FUZZ_REQUIRE(first == CPCORE_GEOMETRY_SMALL_BUFFER && b.need_scratch > 0);
    cpfuzz::Buffer<int64_t> scratch(b.need_scratch, 7);
    b.scratch = scratch.data();
    b.n_scratch = scratch.size;
    const int64_t second = cpfuzz::design_sets(d, b);
    if (b.need_out > (1 << 22)) return 0;  // many sets: not this target's to hold
    cpfuzz::Buffer<int64_t> out(b.need_out, 7);
    b.out = out.data();
    b.out_capacity = out.size;
    const uint64_t need_out = b.need_out, need_scratch = b.need_scratch;
    const int64_t written = cpfuzz::design_sets(d, b);
    FUZZ_REQUIRE(second == CPCORE_GEOMETRY_SMALL_BUFFER || second == 0);
    FUZZ_REQUIRE(b.need_out == need_out && b.need_scratch == need_scratch);
    FUZZ_REQUIRE(written >= 0 && (uint64_t)written == d.n_sets * set_cols);
    FUZZ_REQUIRE(d.n_sets + d.skipped == d.n_area);
    std::set<std::vector<int64_t>> kept;
    const std::set<int64_t> drawn_once(g.drawn.begin(), g.drawn.end());
    for (uint64_t s = 0; s < d.n_sets; ++s) {
        const int64_t* row = out.data() + s * set_cols;
        std::vector<int64_t> set(row, row + set_cols);
        FUZZ_REQUIRE(kept.insert(set).second);
        uint64_t at = 0;
        int64_t sum = 0;
        for (; at < n_fixed; ++at) {
            FUZZ_REQUIRE(row[at] == (int64_t)at);
            sum += g.area[at] * g.high[at];
        }
        for (; at < set_cols && row[at] >= 0; ++at) {
            FUZZ_REQUIRE(drawn_once.count(row[at]) > 0);
            sum += g.area[row[at]];
        }
        for (; at < set_cols; ++at) FUZZ_REQUIRE(row[at] == -1);
        FUZZ_REQUIRE(sum == (int64_t)d.board_area);
    }
    return 0;
}
