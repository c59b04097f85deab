// The numpy arrays the towers, DRUP and CNF kernels take: one-dimensional, C-contiguous,
// on the CPU, read-only (In) or written (Out; pass with .noconvert() so that no copy is
// written instead), and the one way their bindings refuse what does not fit; and a
// layout's arrays (Array, read by name from a namedtuple or a dict: field and entry).
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

// The array ``name`` of a layout (``owner``: a dict's entry, none when absent, or a named
// tuple's field) as a C-contiguous array of T, of ``ndim`` dimensions when ndim is not 0 (a
// TypeError naming it otherwise), of at least ``least`` items and of exactly ``size`` when
// size is not -1 (a ValueError otherwise).
template <class T>
Array<T> layout_array(nanobind::handle owner, const char* name, size_t ndim, size_t least,
                      int64_t size) {
    nanobind::object value;
    if (!nanobind::isinstance<nanobind::dict>(owner)) {
        value = owner.attr(name);
    } else {
        nanobind::dict d = nanobind::borrow<nanobind::dict>(owner);
        if (d.contains(name)) value = d[name];
    }
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

// A layout's array of at least ``least`` items (any number of dimensions).
template <class T>
Array<T> field(nanobind::handle owner, const char* name, size_t least = 0) {
    return layout_array<T>(owner, name, 0, least, -1);
}

// A layout's array of ``ndim`` dimensions and exactly ``size`` items (any with -1).
template <class T>
Array<T> entry(nanobind::handle owner, const char* name, int64_t size = -1, size_t ndim = 1) {
    return layout_array<T>(owner, name, ndim, 0, size);
}

}  // namespace cpbind
