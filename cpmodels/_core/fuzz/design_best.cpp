// Fuzz target: design --best's ranking (cpcore_design_best_step, _known, _counted) driven by
// any figures: each set's count on each date as the input gives them, any ranks, and now and
// then a call with a set, a date or a figure out of range (which must be refused, changing
// nothing). The steps must end; the leaders must stay ranked (most fewest, then most total,
// then the lower rank), each set once, each counted in full; a probe must name leaders'
// dates the set was not counted on, each once; a set counted in full is never stepped to again.
#include <set>
#include <vector>

#include "bytes.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {
namespace {

// The adapters: the calls of the entry points.
int64_t step(cpcore_best_state& s) { return cpcore_design_best_step(&s); }
int64_t known(cpcore_best_state& s, int64_t set, int64_t date, int64_t count) {
    return cpcore_design_best_known(&s, set, date, count);
}
int64_t counted(cpcore_best_state& s, int64_t set, int64_t fewest, int64_t total,
                int64_t date) {
    return cpcore_design_best_counted(&s, set, fewest, total, date);
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const uint64_t n = 1 + in.count(20), dates = 1 + in.count(6), best = 1 + in.count(5);
    std::vector<int64_t> table = in.numbers_within(n * dates, 0, 9);
    std::vector<int64_t> rank = in.numbers(n);
    std::vector<uint8_t> open(n, 1), known_on(n * dates, 0);
    std::vector<int64_t> bound(n, -1), leaders(4 * best, -1), out(best, 0);
    cpcore_best_state s{n, dates, best, rank.data(), open.data(), known_on.data(),
                        bound.data(), leaders.data(), -1, -1, out.data(), 0};
    std::set<int64_t> full;
    for (uint64_t steps = 0;; ++steps) {
        FUZZ_REQUIRE(steps <= 2 * n * (dates + 1));
        if (in.count(7) == 0) {  // a call out of range: refused, nothing changed
            const std::vector<int64_t> before = leaders;
            const int64_t bad = in.count(1) ? (int64_t)n + in.count(3) : -1 - (int64_t)in.count(3);
            FUZZ_REQUIRE(cpfuzz::known(s, bad, 0, 1) == CPCORE_BEST_INPUT);
            FUZZ_REQUIRE(cpfuzz::counted(s, 0, 2, 1, 0) == CPCORE_BEST_INPUT);
            FUZZ_REQUIRE(cpfuzz::counted(s, 0, 1, 1, (int64_t)dates) == CPCORE_BEST_INPUT);
            FUZZ_REQUIRE(leaders == before);
        }
        const int64_t status = cpfuzz::step(s);
        if (status == CPCORE_BEST_DONE) break;
        FUZZ_REQUIRE(s.set >= 0 && (uint64_t)s.set < n && full.count(s.set) == 0);
        const int64_t* row = table.data() + s.set * dates;
        if (status == CPCORE_BEST_PROBE) {
            FUZZ_REQUIRE(s.n_out >= 1 && s.n_out <= best);
            std::set<int64_t> listed;
            for (uint64_t k = 0; k < s.n_out; ++k) {
                const int64_t d = out[k];
                FUZZ_REQUIRE(d >= 0 && (uint64_t)d < dates && listed.insert(d).second);
                FUZZ_REQUIRE(known_on[s.set * dates + d] == 0);
                FUZZ_REQUIRE(cpfuzz::known(s, s.set, d, row[d]) == 0);
            }
            continue;
        }
        FUZZ_REQUIRE(status == CPCORE_BEST_COUNT);
        full.insert(s.set);
        int64_t low = row[0], at = 0, total = 0;
        for (uint64_t d = 0; d < dates; ++d) {
            total += row[d];
            if (row[d] < low) low = row[d], at = (int64_t)d;
        }
        if (s.floor < 0 || low >= s.floor)
            FUZZ_REQUIRE(cpfuzz::counted(s, s.set, low, total, at) == 0);
        std::set<int64_t> seen;
        for (uint64_t k = 0; k < best && leaders[4 * k] >= 0; ++k) {
            FUZZ_REQUIRE(seen.insert(leaders[4 * k]).second && full.count(leaders[4 * k]));
            if (k == 0) continue;
            const int64_t* a = leaders.data() + 4 * (k - 1);
            const int64_t* b = leaders.data() + 4 * k;
            FUZZ_REQUIRE(a[1] > b[1] || (a[1] == b[1] && (a[2] > b[2] ||
                                                          (a[2] == b[2] && rank[a[0]] <= rank[b[0]]))));
        }
    }
    return 0;
}
