// Each family of searches registers its functions on the module here.
#pragma once

#include <nanobind/nanobind.h>

namespace cpbind {

void bind_probe(nanobind::module_& m);
void bind_one_word(nanobind::module_& m);
void bind_cover(nanobind::module_& m);
void bind_towers(nanobind::module_& m);
void bind_drup(nanobind::module_& m);
void bind_cnf(nanobind::module_& m);
void bind_packing(nanobind::module_& m);
void bind_geometry(nanobind::module_& m);
void bind_layout(nanobind::module_& m);

}  // namespace cpbind
