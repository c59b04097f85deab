// A problem's symmetries on its options for symmetry.py (cpcore_option_symmetries): flat
// arrays (any buffer of the right type: the buffers module's, bytes) in, the core's stream
// of words out, as bytes.
#include <nanobind/nanobind.h>

#include <memory>

#include "bindings.hpp"
#include "checked_arrays.hpp"
#include "runs.hpp"
#include "cpcore/entry.h"

namespace nb = nanobind;

namespace cpbind {

void bind_runs(nb::module_& m);

void bind_symmetry(nb::module_& m) {
    bind_runs(m);
    m.def(
        "option_symmetries",
        [](uint64_t n_cells, uint64_t n_maps, In<int64_t> item_cell, nb::handle options,
           In<int64_t> opt_piece, In<uint8_t> opt_placed, In<int64_t> piece_bounds,
           In<uint8_t> piece_once, In<int64_t> maps) {
            const uint64_t n_options = opt_piece.shape(0), n_pieces = piece_bounds.shape(0);
            std::vector<int64_t> opt_start, opt_items;
            read_int_runs(options, opt_start, opt_items);
            require(opt_start.size() == n_options + 1 && opt_placed.shape(0) == n_options,
                    "the options' arrays differ in length");
            require(piece_once.shape(0) == n_pieces, "the pieces' arrays differ in length");
            require(n_maps <= CPCORE_MAX_SYMMETRY_MAPS && maps.shape(0) == n_maps * n_cells,
                    "the maps are not n_maps rows of n_cells");
            const cpcore_symmetry_input in{
                item_cell.shape(0), n_cells, n_options, opt_items.size(), n_pieces, n_maps,
                item_cell.data(), opt_start.data(), opt_items.data(), opt_piece.data(),
                opt_placed.data(), piece_bounds.data(), piece_once.data(), maps.data()};
            // A first call says the scratch; out as large as the stream can be (each map
            // kept, then at most one orbit an option, each fixed by every map), so that the
            // second call, the one that works, is the last.
            cpcore_buffers b{};
            int64_t status = cpcore_option_symmetries(&in, &b);
            require(status != CPCORE_SYMMETRY_INPUT,
                    "the options, pieces or maps do not read (runs, indices, a cell twice, a "
                    "map that is no permutation)");
            const uint64_t room =
                3 + n_maps * (1 + n_pieces + n_options) + n_options * (3 + n_maps);
            std::unique_ptr<int64_t[]> scratch(new int64_t[b.need_scratch + 1]);
            std::unique_ptr<int64_t[]> out(new int64_t[room]);
            b = cpcore_buffers{out.get(), room, scratch.get(), b.need_scratch + 1, 0, 0};
            {
                nb::gil_scoped_release released;
                status = cpcore_option_symmetries(&in, &b);
            }
            require(status != CPCORE_SYMMETRY_INPUT,
                    "the options, pieces or maps do not read (runs, indices, a cell twice, a "
                    "map that is no permutation)");
            require(status >= 0, "the core's buffers are too small");
            return nb::bytes(reinterpret_cast<const char*>(out.get()), (size_t)status * 8);
        },
        nb::arg("n_cells"), nb::arg("n_maps"), nb::arg("item_cell"), nb::arg("options"),
        nb::arg("opt_piece"), nb::arg("opt_placed"),
        nb::arg("piece_bounds"), nb::arg("piece_once"), nb::arg("maps"),
        "The maps of the board (n_maps rows of n_cells) that are symmetries of the problem (its "
        "options each a sequence of its items), where each takes the "
        "pieces and the options, and the held piece's orbits: cpcore_option_symmetries' "
        "stream of words, as bytes.");
}

void bind_runs(nb::module_& m) {
    m.def(
        "flat_runs",
        [](nb::handle runs) {
            std::vector<int64_t> start, items;
            read_int_runs(runs, start, items);
            return nb::make_tuple(
                nb::bytes(reinterpret_cast<const char*>(start.data()), start.size() * 8),
                nb::bytes(reinterpret_cast<const char*>(items.data()), items.size() * 8));
        },
        nb::arg("runs"),
        "A sequence of sequences of whole numbers as the core's runs: the start of each (one "
        "more at the end) and the numbers one after another, each as bytes of int64.");
}

}  // namespace cpbind
