// Each family of searches registers its functions on the module here.
#pragma once

#include <nanobind/nanobind.h>

namespace cpbind {

void bind_probe(nanobind::module_& m);
void bind_packing(nanobind::module_& m);

}  // namespace cpbind
