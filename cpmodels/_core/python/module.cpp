// The Python module of the engine core: thin wrappers that hand numpy buffers to the core's
// entry points and release the GIL while a search runs.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>
#include <vector>

#include "bindings.hpp"
#include "cpcore/entry.h"

#ifdef CPCORE_CHECK_REPORT
#include <cstdio>

// A failed invariant of the core (cpcore/check.hpp), said before the process traps.
extern "C" void cpcore_check_failed(const char* file, int line, const char* condition) {
    std::fprintf(stderr, "cpcore: check failed at %s:%d: %s\n", file, line, condition);
    std::fflush(stderr);
}
#endif

namespace nb = nanobind;

NB_MODULE(_native, m) {
#if defined(__x86_64__) || defined(__i386__)
    if (cpcore_needs_popcnt() && !__builtin_cpu_supports("popcnt")) {
        throw nb::import_error(
            "this build of cpmodels' engine needs a processor with the popcnt instruction; "
            "install cpmodels from source (pip install --no-binary cpmodels cpmodels)");
    }
#endif
    m.doc() = "cpmodels' compiled engine core.";
    cpbind::bind_probe(m);
    cpbind::bind_one_word(m);
    cpbind::bind_cover(m);
    cpbind::bind_towers(m);
    cpbind::bind_drup(m);
    cpbind::bind_cnf(m);
    cpbind::bind_packing(m);
    cpbind::bind_geometry(m);
    cpbind::bind_layout(m);
    cpbind::bind_symmetry(m);
    m.def(
        "interface",
        [] {
            std::vector<char> text(cpcore_interface(nullptr, 0) + 1);
            cpcore_interface(text.data(), text.size());
            return std::string(text.data(), text.size() - 1);
        },
        "The core's interface as entry.h describes it, laid out by this build (JSON: each "
        "struct's fields, kinds, offsets, pointees and shapes, each entry point's kinds, "
        "each constant).");
}
