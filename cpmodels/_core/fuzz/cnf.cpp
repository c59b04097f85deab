// Fuzz target: the CNF split search's step (cpcore_cnf_next_step) on any incidence the
// bindings accept (options' items and items' options as runs, any lower bounds) and any
// literals: the kind must be one of four, and the options it names open ones.
#include "bytes.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {
namespace {

struct Incidence {
    std::vector<int64_t> opt_start, opt_items, item_start, item_opts, low;
};

// The adapter: the one call of the entry point, its scratch made as the binding makes it.
int64_t next_step(const Incidence& inc, const std::vector<int64_t>& lits,
                  Buffer<int64_t>& out, int64_t* found) {
    const uint64_t n = inc.opt_start.size() - 1, n_items = inc.low.size();
    Buffer<uint8_t> possible(n), taken(n);
    Buffer<int64_t> need(n_items), room(n_items);
    const cpcore_cnf_incidence incidence{n, n_items, inc.opt_start.data(),
                                         inc.opt_items.data(), inc.item_start.data(),
                                         inc.item_opts.data(), inc.low.data()};
    const cpcore_cnf_work work{possible.data(), taken.data(), need.data(), room.data()};
    return cpcore_cnf_next_step(&incidence, lits.data(), lits.size(), &work, out.data(), found);
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    Incidence inc;
    const uint64_t n = in.count(256), n_items = in.count(64);
    inc.opt_start = runs(in, n, 6);
    if (n_items == 0) inc.opt_start.assign(n + 1, 0);  // no items: no option covers one
    inc.opt_items = in.numbers_within(inc.opt_start.back(), 0, (int64_t)n_items - 1);
    inc.item_start = runs(in, n_items, 8);
    if (n == 0) inc.item_start.assign(n_items + 1, 0);
    inc.item_opts = in.numbers_within(inc.item_start.back(), 0, (int64_t)n - 1);
    inc.low = in.numbers(n_items);
    const std::vector<int64_t> lits = in.numbers(in.count(64));
    Buffer<int64_t> out(n);
    int64_t found[2];
    const int64_t kind = next_step(inc, lits, out, found);
    FUZZ_REQUIRE(kind >= 0 && kind <= 3);
    if (kind == 1) {
        FUZZ_REQUIRE(found[0] >= 0 && (uint64_t)found[0] < n_items && found[1] >= 0 &&
                     (uint64_t)found[1] <= n);
        for (int64_t k = 0; k < found[1]; ++k) FUZZ_REQUIRE(out[k] >= 0 && (uint64_t)out[k] < n);
    }
    if (kind == 2) FUZZ_REQUIRE(found[0] >= 0 && (uint64_t)found[0] < n);
    return 0;
}
