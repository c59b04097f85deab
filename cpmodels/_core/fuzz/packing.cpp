// Fuzz target: the packing searches (cpcore_tally_prefixes_n_words, cpcore_exists_n_words,
// cpcore_search_n_words) and the branching step (cpcore_force_n_words,
// cpcore_split_n_words) on a small cover the bytes make, laid out by the core as the
// package lays it out (a cover the layout refuses is not searched), with a small table that
// fills and flushes, and prefixes of any option ids the bindings let through. The answers
// must agree: the count of the empty prefix is the number of solutions the stream gives,
// its tally vector sums to it, a prefix exists exactly when its count is not 0, and a task
// cut by the branching step into tasks one option longer counts what they count together.
#include "bytes.hpp"
#include "cover.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {
namespace {

// The existence search of each row of prefixes (cpcore_exists_n_words).
void exists(const Search& s, Table& table, int use_table, const std::vector<int64_t>& prefixes,
            uint64_t rows, uint64_t width, Buffer<int64_t>& out, int first_failure) {
    Buffers b(s.cover.n_branch, s.words.n_words, s.cover.n_counters, 1);
    const int64_t stop = 0;
    const cpcore_prefix_call call{&s.cover, &table.view, use_table, prefixes.data(),
                                  rows,     width,       &b.view,   &stop};
    cpcore_exists_n_words(&call, &s.words, out.data(), first_failure);
}

// The branching step below a task: the options written to out (as many as the task's first
// open item has anchored options, at most), or -1 when its options clash.
int64_t split(const Search& s, const int64_t* task, uint64_t n_task, Buffer<int64_t>& out) {
    Buffer<uint64_t> filled(s.words.n_words, 0);
    Buffer<int64_t> counters(s.cover.n_counters + 1, 0);
    const int fits = cpcore_force_n_words(&s.cover, &s.words, task, n_task, filled.data(),
                                          counters.data());
    const int64_t n = cpcore_split_n_words(&s.cover, &s.words, task, n_task, filled.data(),
                                           counters.data(), out.data());
    FUZZ_REQUIRE(n >= 0 && (uint64_t)n <= out.size);
    return fits ? n : -1;
}

// Every solution of the cover, streamed max_out at a time: how many there are.
int64_t stream(const Search& s, int64_t max_out) {
    Buffers b(s.cover.n_branch, s.words.n_words, s.cover.n_counters, 1);
    const uint64_t depth_max = s.cover.n_branch + 1;
    Buffer<int64_t> out((uint64_t)max_out * depth_max);
    int64_t state[2] = {-1, 0}, total = 0;
    const int64_t stop = 0;
    for (int calls = 0; state[0] != -2; ++calls) {
        FUZZ_REQUIRE(calls < 1000000);
        cpcore_search_n_words(&s.cover, &s.words, state, &b.view, out.data(), depth_max,
                              max_out, &stop);
        FUZZ_REQUIRE(state[1] >= 0 && state[1] <= max_out);
        for (int64_t r = 0; r < state[1]; ++r)
            for (uint64_t k = 0; k < depth_max; ++k)
                FUZZ_REQUIRE(out[r * depth_max + k] >= -1 &&
                             out[r * depth_max + k] < (int64_t)s.n_options);
        total += state[1];
    }
    return total;
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const Cover c(in, 20, 40);
    Buffer<int64_t> work(cpcore_cover_layout_work(&c.in));
    cpcore_cover_sizes m = lay_out(c.in, work.data());
    if (m.error != CPCORE_LAYOUT_OK) return 0;
    const CoverLayout l(c.in, m);
    m = lay_out(c.in, work.data(), &l);
    const Search s = search_of(c.in, m, l);
    // The tallies: up to three exact-one items (a refused choice is tallied by none), and
    // none at all for the plain counts.
    std::vector<int64_t> items = in.numbers_within(in.count(3), 0, (int64_t)c.in.n_items - 1);
    const cpcore_tally_input plain_input{&c.in, l.bit_of_item.data(), (uint64_t)m.n_branch,
                                         l.anchor_start.data(), l.anchor_opts.data(),
                                         (uint64_t)m.n_anchored, items.data(), 0};
    cpcore_tally_input ti = plain_input;
    ti.n_tally = items.size();
    Buffer<int64_t> tally_work(cpcore_tally_layout_work(&ti));
    if (lay_out(ti, tally_work.data()).error != CPCORE_LAYOUT_OK) ti.n_tally = 0;
    const TallyArrays t(ti, lay_out(ti, tally_work.data()));
    lay_out(ti, tally_work.data(), &t);
    const TallyArrays none(plain_input, lay_out(plain_input, tally_work.data()));
    lay_out(plain_input, tally_work.data(), &none);
    const uint64_t width_out = (uint64_t)t.length[t.length.size - 1];

    // Prefixes: the empty one first, then rows of any ids the bindings let through.
    const uint64_t rows = 1 + in.count(3), width = in.count(3);
    std::vector<int64_t> prefixes(rows * width, -1);
    for (uint64_t k = width; k < rows * width; ++k)
        prefixes[k] = in.within(-3, (int64_t)c.in.n_options - 1);
    Table table(16 << in.count(4), (uint64_t)m.n_words, 1 + in.count(64));
    Buffer<int64_t> counts(rows * width_out, 0), masks(rows, 0);
    tally(s, t.view, table, prefixes, rows, width, counts, width_out, masks);
    Table plain_table(16 << in.count(4), (uint64_t)m.n_words, 4 + in.count(64));
    Buffer<int64_t> plain(rows, 0), plain_masks(rows, 0);
    tally(s, none.view, plain_table, prefixes, rows, width, plain, 1, plain_masks);
    Buffer<int64_t> found(rows, -5);
    Table dead(16 << in.count(4), (uint64_t)m.n_words, 1);  // dead states: a table of its own
    exists(s, dead, (int)in.count(1), prefixes, rows, width, found, 0);
    for (uint64_t r = 0; r < rows; ++r) {
        FUZZ_REQUIRE(plain[r] >= 0 && (found[r] == 1) == (plain[r] > 0) &&
                     (found[r] == 0 || found[r] == 1));
        int64_t sum = 0;
        for (uint64_t x = 0; x < width_out; ++x) {
            FUZZ_REQUIRE(counts[r * width_out + x] >= 0);
            sum += counts[r * width_out + x];
        }
        FUZZ_REQUIRE(sum == plain[r]);
    }
    FUZZ_REQUIRE(stream(s, 1 + (int64_t)in.count(7)) == plain[0]);
    // Each row cut by the branching step: its count is the sum of its parts' counts.
    Buffer<int64_t> options((uint64_t)l.anchor_start[m.n_branch]);
    for (uint64_t r = 0; r < rows; ++r) {
        const int64_t n = split(s, prefixes.data() + r * width, width, options);
        if (n <= 0) continue;  // options that clash, or nothing open below the task
        std::vector<int64_t> parts((uint64_t)n * (width + 1));
        for (int64_t k = 0; k < n; ++k) {
            FUZZ_REQUIRE(options[k] >= 0 && (uint64_t)options[k] < c.in.n_options);
            for (uint64_t w = 0; w < width; ++w)
                parts[k * (width + 1) + w] = prefixes[r * width + w];
            parts[k * (width + 1) + width] = options[k];
        }
        Buffer<int64_t> counts_of(n, 0), masks_of(n, 0);
        tally(s, none.view, plain_table, parts, n, width + 1, counts_of, 1, masks_of);
        int64_t sum = 0;
        for (int64_t k = 0; k < n; ++k) sum += counts_of[k];
        FUZZ_REQUIRE(sum == plain[r]);
    }
    return 0;
}
