// Each family of searches registers its functions on the module here; and the one way a
// search's binding reads the stop flag it hands the search (stop_flag).
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <stdexcept>

namespace cpbind {

// The stop flag a search is handed: the caller's array of one int64 (or more), read in
// place (a binding that takes it says .noconvert(), so that no copy is read instead).
template <class A>
const int64_t* stop_flag(const A& stop) {
    if (stop.ndim() != 1 || stop.shape(0) < 1)
        throw std::invalid_argument("the stop flag needs one entry");
    return stop.data();
}

void bind_probe(nanobind::module_& m);
void bind_one_word(nanobind::module_& m);
void bind_cover(nanobind::module_& m);
void bind_towers(nanobind::module_& m);
void bind_drup(nanobind::module_& m);
void bind_cnf(nanobind::module_& m);
void bind_packing(nanobind::module_& m);
void bind_geometry(nanobind::module_& m);
void bind_layout(nanobind::module_& m);
void bind_symmetry(nanobind::module_& m);

}  // namespace cpbind
