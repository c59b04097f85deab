// Fuzz target: a cover's layout for the general kernels and its tallies
// (cpcore_cover_layout_measure/fill, cpcore_tally_layout_measure/fill), over any cover the
// bytes make: measured, then filled into arrays of exactly the measured sizes, the fill's
// sizes equal to the measure's, the anchors' runs read back.
#include "bytes.hpp"
#include "cover.hpp"
#include "cpcore/entry.h"

namespace {

using cpfuzz::Buffer;
using cpfuzz::Bytes;

struct Tallies {
    Buffer<int64_t> bit, last_anchor, opt_tally, opt_index, length, stride, map_start,
        map_flat, covering_start, covering;
    cpcore_tally_layout out;
    Tallies(const cpcore_tally_input& t, const cpcore_tally_sizes& s)
        : bit(s.cols), last_anchor(s.cols), opt_tally(t.cover->n_options),
          opt_index(t.cover->n_options), length(s.masks), stride(s.masks * s.cols),
          map_start(s.masks * s.cols + 1), map_flat(s.n_map_flat),
          covering_start(t.n_tally + 1), covering(s.n_covering),
          out{bit.data(),       last_anchor.data(), opt_tally.data(), opt_index.data(),
              length.data(),    stride.data(),      map_start.data(), map_flat.data(),
              covering_start.data(), covering.data()} {}
};

// The adapters: one call of each pair of entry points.
cpcore_cover_sizes measure(const cpcore_cover_input& c, int64_t* work) {
    cpcore_cover_sizes s{};
    cpcore_cover_layout_measure(&c, work, &s);
    return s;
}

cpcore_cover_sizes fill(const cpcore_cover_input& c, int64_t* work,
                        const cpfuzz::CoverLayout& l) {
    cpcore_cover_sizes s{};
    cpcore_cover_layout_fill(&c, work, &s, &l.out);
    return s;
}

cpcore_tally_sizes measure_tallies(const cpcore_tally_input& t, int64_t* work) {
    cpcore_tally_sizes s{};
    cpcore_tally_layout_measure(&t, work, &s);
    return s;
}

cpcore_tally_sizes fill_tallies(const cpcore_tally_input& t, int64_t* work, const Tallies& l) {
    cpcore_tally_sizes s{};
    cpcore_tally_layout_fill(&t, work, &s, &l.out);
    return s;
}

void tallies_of(Bytes& in, const cpcore_cover_input& c, const cpcore_cover_sizes& s,
                cpfuzz::CoverLayout& l) {
    const uint64_t n_tally = in.count(18);
    const std::vector<int64_t> items = in.numbers_within(n_tally, -1, (int64_t)c.n_items);
    cpcore_tally_input t{&c, l.bit_of_item.data(), (uint64_t)s.n_branch,
                         l.anchor_start.data(), l.anchor_opts.data(), (uint64_t)s.n_anchored,
                         items.data(), n_tally};
    // Sometimes a hostile caller's anchors instead of the layout's.
    std::vector<int64_t> start, opts;
    if (in.count(3) == 3) {
        const uint64_t n_branch = in.count(24);
        start = cpfuzz::any_runs(in, n_branch, 6);
        const uint64_t n_anchored = cpfuzz::run_total(in, start, 96);
        opts = in.numbers_within(n_anchored, -1, (int64_t)c.n_options);
        t.n_branch = n_branch;
        t.anchor_start = start.data();
        t.anchor_opts = opts.data();
        t.n_anchored = n_anchored;
    }
    Buffer<int64_t> work(cpcore_tally_layout_work(&t));
    const cpcore_tally_sizes m = measure_tallies(t, work.data());
    if (m.error != CPCORE_LAYOUT_OK) {
        FUZZ_REQUIRE(m.error > 0 && *cpcore_layout_error(m.error) != 0);
        return;
    }
    if (m.masks * m.cols > (1 << 18) || m.n_map_flat > (1 << 20)) return;
    Tallies tl(t, m);
    const cpcore_tally_sizes f = fill_tallies(t, work.data(), tl);
    FUZZ_REQUIRE(f.error == CPCORE_LAYOUT_OK && f.cols == m.cols && f.masks == m.masks &&
                 f.n_covering == m.n_covering && f.n_map_flat == m.n_map_flat);
    FUZZ_REQUIRE(tl.map_start[m.masks * m.cols] <= m.n_map_flat);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Bytes in(data, size);
    cpfuzz::Cover c;
    cpfuzz::read_cover(in, c, 160, 4096);
    Buffer<int64_t> work(cpcore_cover_layout_work(&c.in));
    const cpcore_cover_sizes m = measure(c.in, work.data());
    if (m.error != CPCORE_LAYOUT_OK) {
        FUZZ_REQUIRE(m.error > 0 && *cpcore_layout_error(m.error) != 0);
        return 0;
    }
    FUZZ_REQUIRE(m.n_branch >= 0 && m.n_branch <= (int64_t)c.in.n_items);
    FUZZ_REQUIRE(m.n_words >= 1 && m.n_anchored <= (int64_t)c.in.n_options);
    cpfuzz::CoverLayout l(c.in, m);
    const cpcore_cover_sizes f = fill(c.in, work.data(), l);
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
    FUZZ_REQUIRE(f.region_limit >= 0 && f.region_limit <= m.n_board_cells + 1);
    tallies_of(in, c.in, m, l);
    return 0;
}
