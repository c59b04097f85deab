// The numpy arrays the towers, DRUP and CNF kernels take: one-dimensional, C-contiguous,
// on the CPU, read-only (In) or written (Out; pass with .noconvert() so that no copy is
// written instead), and the one way their bindings refuse what does not fit; and a
// layout's arrays (Array, read by name from a namedtuple or a dict: layout_array).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <stdexcept>
#include <string>

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

template <class T>
using Array = nanobind::ndarray<T, nanobind::c_contig, nanobind::device::cpu>;

// ``value`` (the layout's array ``name``; none when absent) as a C-contiguous array of T,
// of ``ndim`` dimensions when ndim is not 0 (a TypeError naming it otherwise), of at least
// ``least`` items and of exactly ``size`` when size is not -1 (a ValueError otherwise).
template <class T>
Array<T> layout_array(nanobind::handle value, const char* name, size_t ndim = 0,
                      size_t least = 0, int64_t size = -1) {
    Array<T> a;
    const std::string said = "the layout's " + std::string(name);
    if (!value.is_valid() || !nanobind::try_cast(value, a, false) ||
        (ndim != 0 && a.ndim() != ndim))
        throw nanobind::type_error((said + " is not a contiguous array of the expected type")
                                       .c_str());
    if (a.size() < least) throw nanobind::value_error((said + " is too short").c_str());
    if (size >= 0 && a.size() != (size_t)size)
        throw nanobind::value_error((said + " has the wrong size").c_str());
    return a;
}

}  // namespace cpbind
