// A sequence of sequences of whole numbers (an exact cover's options, each its items) read
// into runs: the start of each and the numbers one after another, as the core's arrays of
// runs are (opt_start, opt_items). Read in C, as Python would read them one by one.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace cpbind {

inline void read_int_runs(nanobind::handle runs, std::vector<int64_t>& start,
                      std::vector<int64_t>& items) {
    PyObject* seq = PySequence_Fast(runs.ptr(), "");
    if (!seq) {
        PyErr_Clear();
        throw std::invalid_argument("the runs are not a sequence of sequences");
    }
    nanobind::object held = nanobind::steal(seq);
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    start.assign(1, 0);
    start.reserve((size_t)n + 1);
    items.clear();
    for (Py_ssize_t k = 0; k < n; ++k) {
        PyObject* run = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, k), "");
        if (!run) {
            PyErr_Clear();
            throw std::invalid_argument("a run is not a sequence of whole numbers");
        }
        nanobind::object run_held = nanobind::steal(run);
        const Py_ssize_t m = PySequence_Fast_GET_SIZE(run);
        for (Py_ssize_t i = 0; i < m; ++i) {
            int overflow = 0;
            const long long v =
                PyLong_AsLongLongAndOverflow(PySequence_Fast_GET_ITEM(run, i), &overflow);
            if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                throw std::invalid_argument("a run's number is not a whole number of 64 bits");
            }
            items.push_back((int64_t)v);
        }
        start.push_back((int64_t)items.size());
    }
}

}  // namespace cpbind
