// The numpy arrays the towers, DRUP and CNF kernels take: one-dimensional, C-contiguous,
// on the CPU, read-only (In) or written (Out; pass with .noconvert() so that no copy is
// written instead), and the one way their bindings refuse what does not fit.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <stdexcept>

namespace cpbind {

template <class T>
using In = nanobind::ndarray<const T, nanobind::ndim<1>, nanobind::c_contig,
                             nanobind::device::cpu>;
template <class T>
using Out = nanobind::ndarray<T, nanobind::ndim<1>, nanobind::c_contig, nanobind::device::cpu>;

// A ValueError saying ``what`` unless ``ok``.
inline void require(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(what);
}

}  // namespace cpbind
