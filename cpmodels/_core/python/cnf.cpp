// The CNF split search's next step on numpy arrays (backends/cnf.py).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/tuple.h>

#include <stdexcept>

#include "bindings.hpp"
#include "cpcore/entry.h"

namespace nb = nanobind;

namespace cpbind {

namespace {

template <class T>
using In = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <class T>
using Out = nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

void require(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(what);
}

// ``start`` (one more than its rows) indexes ``flat``, whose entries are below ``bound``.
void require_csr(const In<int64_t>& start, const In<int64_t>& flat, size_t bound) {
    require(start.shape(0) >= 1 && start(0) == 0, "an incidence does not start at 0");
    for (size_t r = 1; r < start.shape(0); ++r) {
        require(start(r) >= start(r - 1) && (size_t)start(r) <= flat.shape(0),
                "an incidence's rows run past its entries");
    }
    for (size_t q = 0; q < flat.shape(0); ++q) {
        require(flat(q) >= 0 && (size_t)flat(q) < bound, "an incidence's entry is out of range");
    }
}

}  // namespace

void bind_cnf(nb::module_& m) {
    m.def(
        "cnf_next_step",
        [](In<int64_t> lits, In<int64_t> opt_start, In<int64_t> opt_items,
           In<int64_t> item_start, In<int64_t> item_opts, In<int64_t> low,
           Out<uint8_t> possible, Out<uint8_t> taken, Out<int64_t> need, Out<int64_t> room,
           Out<int64_t> out) {
            const size_t n = possible.shape(0), n_items = low.shape(0);
            require(opt_start.shape(0) == n + 1 && item_start.shape(0) == n_items + 1
                        && taken.shape(0) == n && need.shape(0) == n_items
                        && room.shape(0) == n_items && out.shape(0) >= n,
                    "the split search's arrays disagree in length");
            require_csr(opt_start, opt_items, n_items);
            require_csr(item_start, item_opts, n);
            int64_t found[2];
            const int64_t kind = cpcore_cnf_next_step(
                lits.data(), lits.shape(0), n, opt_start.data(), opt_items.data(),
                item_start.data(), item_opts.data(), low.data(), n_items, possible.data(),
                taken.data(), need.data(), room.data(), out.data(), found);
            return std::make_tuple(kind, found[0], found[1]);
        },
        nb::arg("lits"), nb::arg("opt_start"), nb::arg("opt_items"), nb::arg("item_start"),
        nb::arg("item_opts"), nb::arg("low"), nb::arg("possible").noconvert(),
        nb::arg("taken").noconvert(), nb::arg("need").noconvert(),
        nb::arg("room").noconvert(), nb::arg("out").noconvert(),
        nb::call_guard<nb::gil_scoped_release>(),
        "Where the split search goes from a propagated part: (kind, item or option, options "
        "written to out).");
}

}  // namespace cpbind
