#include "bindings.hpp"
#include "cpcore/entry.h"

namespace cpbind {

void bind_probe(nanobind::module_& m) {
    m.def("needs_popcnt", []() { return cpcore_needs_popcnt() != 0; },
          "Whether this build uses the popcnt instruction.");
}

}  // namespace cpbind
