// A problem's symmetries on its options for symmetry.py (cpcore_option_symmetries): flat
// arrays (any buffer of the right type: the buffers module's, bytes) in, the core's stream
// of words out, as bytes.
#include <nanobind/nanobind.h>

#include <vector>

#include "bindings.hpp"
#include "checked_arrays.hpp"
#include "cpcore/entry.h"

namespace nb = nanobind;

namespace cpbind {

void bind_symmetry(nb::module_& m) {
    m.def(
        "option_symmetries",
        [](uint64_t n_cells, uint64_t n_maps, In<int64_t> item_cell, In<int64_t> opt_start,
           In<int64_t> opt_items, In<int64_t> opt_piece, In<uint8_t> opt_placed,
           In<int64_t> piece_bounds, In<uint8_t> piece_once, In<int64_t> maps) {
            const uint64_t n_options = opt_piece.shape(0), n_pieces = piece_bounds.shape(0);
            require(opt_start.shape(0) == n_options + 1 && opt_placed.shape(0) == n_options,
                    "the options' arrays differ in length");
            require(piece_once.shape(0) == n_pieces, "the pieces' arrays differ in length");
            require(n_maps <= CPCORE_MAX_SYMMETRY_MAPS && maps.shape(0) == n_maps * n_cells,
                    "the maps are not n_maps rows of n_cells");
            const cpcore_symmetry_input in{
                item_cell.shape(0), n_cells, n_options, opt_items.shape(0), n_pieces, n_maps,
                item_cell.data(), opt_start.data(), opt_items.data(), opt_piece.data(),
                opt_placed.data(), piece_bounds.data(), piece_once.data(), maps.data()};
            cpcore_buffers b{};
            std::vector<int64_t> scratch, out;
            int64_t status = 0;
            for (int call = 0; call < 3; ++call) {
                scratch.resize(b.need_scratch + 1);
                out.resize(b.need_out + 1);
                b = cpcore_buffers{out.data(), out.size(), scratch.data(), scratch.size(), 0, 0};
                {
                    nb::gil_scoped_release released;
                    status = cpcore_option_symmetries(&in, &b);
                }
                require(status != CPCORE_SYMMETRY_INPUT,
                        "the options, pieces or maps do not read (runs, indices, a cell "
                        "twice, a map that is no permutation)");
                if (status >= 0) break;
            }
            require(status >= 0, "the core's buffers are too small");
            return nb::bytes(reinterpret_cast<const char*>(out.data()), (size_t)status * 8);
        },
        nb::arg("n_cells"), nb::arg("n_maps"), nb::arg("item_cell"), nb::arg("opt_start"),
        nb::arg("opt_items"), nb::arg("opt_piece"), nb::arg("opt_placed"),
        nb::arg("piece_bounds"), nb::arg("piece_once"), nb::arg("maps"),
        "The maps of the board that are symmetries of the problem, where each takes the "
        "pieces and the options, and the held piece's orbits: cpcore_option_symmetries' "
        "stream of words, as bytes.");
}

}  // namespace cpbind
