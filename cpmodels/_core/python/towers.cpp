// The towers programme's kernels on numpy arrays (towers/programme.py holds the tables).
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>

#include "bindings.hpp"
#include "checked_arrays.hpp"
#include "cpcore/entry.h"

namespace nb = nanobind;

namespace cpbind {

namespace {

using Table = nb::ndarray<const int64_t, nb::ndim<3>, nb::c_contig, nb::device::cpu>;

// The checks every kernel's cell arguments need: ``shape`` is (i, j, rows, cols, bits,
// none) and ``table`` is [none + 1, none + 1, colours] with ``needs`` one mask a colour.
void check_cell(const In<int64_t>& shape, const Table& table, const In<int64_t>& needs) {
    require(shape.shape(0) == 6, "shape holds 6 numbers");
    const int64_t bits = shape(4), none = shape(5);
    const size_t codes = needs.shape(0);
    require(bits >= 1 && bits <= 64 && none >= 0 && codes > 0 && codes < (size_t)bits
                && table.shape(0) == (size_t)none + 1 && table.shape(1) == (size_t)none + 1
                && table.shape(2) == codes && shape(0) >= 0 && shape(0) < shape(2)
                && shape(1) >= 0 && shape(1) < shape(3) && shape(3) * bits <= 64
                && ((int64_t)1 << (bits - (int64_t)codes)) <= none + 1,
            "the cell's table, needs and key layout disagree");
}

void check_table(size_t keys, size_t vals) {
    require(keys == vals, "keys and values differ in length");
}

cpcore_towers_layer layer(const In<uint64_t>& keys, const In<int64_t>& vals) {
    check_table(keys.shape(0), vals.shape(0));
    return cpcore_towers_layer{keys.data(), vals.data(), keys.shape(0)};
}

cpcore_towers_into into(Out<uint64_t>& keys, Out<int64_t>& vals) {
    check_table(keys.shape(0), vals.shape(0));
    return cpcore_towers_into{keys.data(), vals.data(), keys.shape(0)};
}

cpcore_towers_cell cell(const In<int64_t>& shape, const Table& table, const In<int64_t>& needs,
                        int64_t allowed) {
    check_cell(shape, table, needs);
    return cpcore_towers_cell{shape.data(), table.data(), needs.data(), needs.shape(0),
                              allowed};
}

}  // namespace

void bind_towers(nb::module_& m) {
    m.def(
        "towers_step",
        [](In<uint64_t> keys, In<int64_t> vals, In<int64_t> shape, Table table,
           In<int64_t> needs, int64_t allowed, int64_t floor, Out<uint64_t> new_keys,
           Out<int64_t> new_vals, uint64_t used, uint64_t at) {
            const cpcore_towers_layer from = layer(keys, vals);
            const cpcore_towers_into to = into(new_keys, new_vals);
            const cpcore_towers_cell c = cell(shape, table, needs, allowed);
            const size_t cap = to.n_slots;
            require(cap > 0 && (cap & (cap - 1)) == 0 && used * 2 <= cap,
                    "the new table is not a free power of two");
            used = cpcore_towers_step(&from, &c, floor, &to, used, &at);
            return std::make_pair(used, at);
        },
        nb::arg("keys"), nb::arg("vals"), nb::arg("shape"), nb::arg("table"),
        nb::arg("needs"), nb::arg("allowed"), nb::arg("floor"),
        nb::arg("new_keys").noconvert(), nb::arg("new_vals").noconvert(), nb::arg("used"),
        nb::arg("at"), nb::call_guard<nb::gil_scoped_release>(),
        "The next layer into new_keys/new_vals from position at: (states, where it stopped; "
        "short of len(keys) * colours when the table is half full).");
    m.def(
        "towers_rehash",
        [](In<uint64_t> keys, In<int64_t> vals, Out<uint64_t> into_keys,
           Out<int64_t> into_vals) {
            const cpcore_towers_layer from = layer(keys, vals);
            const cpcore_towers_into to = into(into_keys, into_vals);
            const size_t cap = to.n_slots;
            require(cap > 0 && (cap & (cap - 1)) == 0 && cap > from.n_slots,
                    "the bigger table is not a bigger power of two");
            cpcore_towers_rehash(&from, &to);
        },
        nb::arg("keys"), nb::arg("vals"), nb::arg("into_keys").noconvert(),
        nb::arg("into_vals").noconvert(), nb::call_guard<nb::gil_scoped_release>(),
        "Move a table's states into a bigger one (emptied first), in slot order.");
    m.def(
        "towers_predecessor",
        [](In<uint64_t> keys, In<int64_t> vals, uint64_t target, int64_t value,
           In<int64_t> shape, Table table, In<int64_t> needs, int64_t allowed) {
            const cpcore_towers_layer from = layer(keys, vals);
            const cpcore_towers_cell c = cell(shape, table, needs, allowed);
            int64_t colour = -1;
            const int64_t s = cpcore_towers_predecessor(&from, &c, target, value, &colour);
            return std::make_pair(s, colour);
        },
        nb::arg("keys"), nb::arg("vals"), nb::arg("target"), nb::arg("value"),
        nb::arg("shape"), nb::arg("table"), nb::arg("needs"), nb::arg("allowed"),
        nb::call_guard<nb::gil_scoped_release>(),
        "The first state of a layer and the colour that lead to target with value; "
        "(-1, -1) when there is none.");
    m.def(
        "towers_best",
        [](In<uint64_t> keys, In<int64_t> vals) {
            const cpcore_towers_layer from = layer(keys, vals);
            return cpcore_towers_best(&from);
        },
        nb::arg("keys"), nb::arg("vals"), nb::call_guard<nb::gil_scoped_release>(),
        "The best score of a table (-2**62 when it is empty).");
}

}  // namespace cpbind
