// The CNF split search's next step (backends/cnf.py): an incidence of options and items,
// checked once when it is made, whose step takes a part's literals.
#include <nanobind/nanobind.h>
#include <nanobind/stl/tuple.h>

#include <vector>

#include "bindings.hpp"
#include "checked_arrays.hpp"
#include "cpcore/entry.h"

namespace nb = nanobind;

namespace cpbind {

namespace {

// Which items each option covers and which options cover each item (CSR), and how often
// each item must be covered; read-only once made, so threads may share it.
struct Incidence {
    std::vector<int64_t> opt_start, opt_items, item_start, item_opts, low;
};

std::vector<int64_t> copied(const In<int64_t>& a) {
    return std::vector<int64_t>(a.data(), a.data() + a.shape(0));
}

// ``start`` (one more than its rows) indexes ``flat``, whose entries are below ``bound``.
void require_csr(const std::vector<int64_t>& start, const std::vector<int64_t>& flat,
                 size_t bound) {
    require(!start.empty() && start[0] == 0, "an incidence does not start at 0");
    for (size_t r = 1; r < start.size(); ++r) {
        require(start[r] >= start[r - 1] && (size_t)start[r] <= flat.size(),
                "an incidence's rows run past its entries");
    }
    for (int64_t x : flat) {
        require(x >= 0 && (size_t)x < bound, "an incidence's entry is out of range");
    }
}

}  // namespace

void bind_cnf(nb::module_& m) {
    nb::class_<Incidence>(m, "CnfIncidence",
                          "The options and items of an exact cover, for the split step.")
        .def(
            "__init__",
            [](Incidence* self, In<int64_t> opt_start, In<int64_t> opt_items,
               In<int64_t> item_start, In<int64_t> item_opts, In<int64_t> low) {
                Incidence made{copied(opt_start), copied(opt_items), copied(item_start),
                               copied(item_opts), copied(low)};
                require(made.item_start.size() == made.low.size() + 1,
                        "the items' starts and bounds disagree in length");
                require(!made.opt_start.empty(), "an incidence does not start at 0");
                require_csr(made.opt_start, made.opt_items, made.low.size());
                require_csr(made.item_start, made.item_opts, made.opt_start.size() - 1);
                new (self) Incidence(std::move(made));
            },
            nb::arg("opt_start"), nb::arg("opt_items"), nb::arg("item_start"),
            nb::arg("item_opts"), nb::arg("low"))
        .def(
            "step",
            [](const Incidence& inc, In<int64_t> lits, Out<int64_t> out) {
                const size_t n = inc.opt_start.size() - 1, n_items = inc.low.size();
                require(out.shape(0) >= n, "out is shorter than the options");
                std::vector<uint8_t> possible(n), taken(n);
                std::vector<int64_t> need(n_items), room(n_items);
                int64_t found[2];
                const cpcore_cnf_incidence incidence{n, n_items, inc.opt_start.data(),
                                                     inc.opt_items.data(),
                                                     inc.item_start.data(),
                                                     inc.item_opts.data(), inc.low.data()};
                const cpcore_cnf_work work{possible.data(), taken.data(), need.data(),
                                           room.data()};
                const int64_t kind = cpcore_cnf_next_step(&incidence, lits.data(),
                                                          lits.shape(0), &work, out.data(),
                                                          found);
                return std::make_tuple(kind, found[0], found[1]);
            },
            nb::arg("lits"), nb::arg("out").noconvert(),
            nb::call_guard<nb::gil_scoped_release>(),
            "Where the split search goes from a propagated part: (kind, item or option, "
            "options written to out).");
}

}  // namespace cpbind
