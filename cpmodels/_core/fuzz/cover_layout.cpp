// Fuzz target: a cover's layout for the general kernels and its tallies
// (cpcore_cover_layout_measure/fill, cpcore_tally_layout_measure/fill), over any cover the
// bytes make: measured, then filled into arrays of exactly the measured sizes, the fill's
// sizes equal to the measure's, the anchors' runs read back.
#include "bytes.hpp"
#include "cover.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {
namespace {

void tallies_of(Bytes& in, const cpcore_cover_input& c, const cpcore_cover_sizes& s,
                CoverLayout& l) {
    const uint64_t n_tally = in.count(18);
    const std::vector<int64_t> items = in.numbers_within(n_tally, -1, (int64_t)c.n_items);
    cpcore_tally_input t{&c, l.bit_of_item.data(), (uint64_t)s.n_branch,
                         l.anchor_start.data(), l.anchor_opts.data(), (uint64_t)s.n_anchored,
                         items.data(), n_tally};
    // Sometimes a hostile caller's anchors instead of the layout's.
    std::vector<int64_t> start, opts;
    if (in.count(3) == 3) {
        const uint64_t n_branch = in.count(24);
        start = any_runs(in, n_branch, 6);
        const uint64_t n_anchored = run_total(in, start, 96);
        opts = in.numbers_within(n_anchored, -1, (int64_t)c.n_options);
        t.n_branch = n_branch;
        t.anchor_start = start.data();
        t.anchor_opts = opts.data();
        t.n_anchored = n_anchored;
    }
    Buffer<int64_t> work(cpcore_tally_layout_work(&t));
    const cpcore_tally_sizes m = lay_out(t, work.data());
    if (m.error != CPCORE_LAYOUT_OK) {
        FUZZ_REQUIRE(m.error > 0 && *cpcore_layout_error(m.error) != 0);
        return;
    }
    if (m.masks * m.cols > (1 << 18) || m.n_map_flat > (1 << 20)) return;
    TallyArrays tl(t, m);
    const cpcore_tally_sizes f = lay_out(t, work.data(), &tl);
    FUZZ_REQUIRE(f.error == CPCORE_LAYOUT_OK && f.cols == m.cols && f.masks == m.masks &&
                 f.n_covering == m.n_covering && f.n_map_flat == m.n_map_flat);
    FUZZ_REQUIRE(tl.map_start[m.masks * m.cols] <= m.n_map_flat);
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const Cover c(in, 160, 4096);
    Buffer<int64_t> work(cpcore_cover_layout_work(&c.in));
    const cpcore_cover_sizes m = lay_out(c.in, work.data());
    if (m.error != CPCORE_LAYOUT_OK) {
        FUZZ_REQUIRE(m.error > 0 && *cpcore_layout_error(m.error) != 0);
        return 0;
    }
    FUZZ_REQUIRE(m.n_branch >= 0 && m.n_branch <= (int64_t)c.in.n_items);
    FUZZ_REQUIRE(m.n_words >= 1 && m.n_anchored <= (int64_t)c.in.n_options);
    CoverLayout l(c.in, m);
    const cpcore_cover_sizes f = lay_out(c.in, work.data(), &l);
    FUZZ_REQUIRE(f.error == m.error && f.n_branch == m.n_branch && f.n_words == m.n_words &&
                 f.n_anchored == m.n_anchored && f.n_opt_nb == m.n_opt_nb &&
                 f.degree == m.degree && f.n_counters == m.n_counters);
    FUZZ_REQUIRE(l.anchor_start[0] == 0 && l.anchor_start[m.n_branch] == m.n_anchored);
    for (int64_t a = 0; a < m.n_branch; ++a) {
        FUZZ_REQUIRE(l.anchor_start[a] <= l.anchor_start[a + 1]);
        for (int64_t k = l.anchor_start[a]; k < l.anchor_start[a + 1]; ++k)
            FUZZ_REQUIRE(l.group_end[k] > k && l.group_end[k] <= l.anchor_start[a + 1]);
    }
    for (int64_t k = 0; k < m.n_anchored; ++k)
        FUZZ_REQUIRE(l.anchor_opts[k] >= 0 && (uint64_t)l.anchor_opts[k] < c.in.n_options);
    // A run is one piece's (one tag, an option's last item, and one counter): the
    // branching choice passes over the run whole when one of its options is used up.
    auto tag = [&](int64_t at) {
        return c.in.opt_items[c.in.opt_start[l.anchor_opts[at] + 1] - 1];
    };
    for (int64_t k = 0; k < m.n_anchored; ++k)
        if (k + 1 < l.group_end[k])
            FUZZ_REQUIRE(tag(k) == tag(k + 1) && l.group_end[k + 1] == l.group_end[k] &&
                         l.opt_counter[l.anchor_opts[k]] == l.opt_counter[l.anchor_opts[k + 1]]);
    FUZZ_REQUIRE(f.region_limit >= 0 && f.region_limit <= m.n_board_cells + 1);
    tallies_of(in, c.in, m, l);
    return 0;
}
