// Orientations and placements for geometry.py: cells read from Python sequences of int
// tuples, the core's calls over vectors, its cells given back as tuples of ints.
#include <nanobind/nanobind.h>

#include <string>
#include <vector>

#include "bindings.hpp"
#include "checked_arrays.hpp"
#include "cpcore/entry.h"

namespace nb = nanobind;

namespace cpbind {

namespace {

int dimension(int64_t grid) { return grid == CPCORE_GRID_CUBE ? 3 : 2; }

void require(bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument(what);
}

// ``items`` as a fast sequence (held by the object returned) and its length in ``n``; a
// ValueError saying ``not_sequence`` when it is no sequence, ``too_many`` when it has more
// than ``most`` items.
nb::object fast_sequence(nb::handle items, uint64_t most, const std::string& not_sequence,
                         const std::string& too_many, Py_ssize_t& n) {
    PyObject* seq = PySequence_Fast(items.ptr(), "");
    if (!seq) PyErr_Clear();
    nb::object owned = nb::steal(seq);
    require(seq != nullptr, not_sequence);
    n = PySequence_Fast_GET_SIZE(seq);
    require((uint64_t)n <= most, too_many);
    return owned;
}

// A ValueError unless ``grid`` is one of the core's grids.
void check_grid(int64_t grid) {
    require(grid >= CPCORE_GRID_SQUARE && grid <= CPCORE_GRID_CUBE,
            "the grid is not one of the core's");
}

// The coordinates of each cell of a sequence of cells (each a sequence of dim ints) appended
// to coords; a cell of another length, or a coordinate that is not a whole number within the
// core's range, is refused.
void read_cells(nb::handle cells, int dim, std::vector<int64_t>& coords, const char* what) {
    PyObject* seq = PySequence_Fast(cells.ptr(), "");
    if (!seq) {
        PyErr_Clear();
        throw std::invalid_argument(std::string(what) + " is not a sequence of cells");
    }
    nb::object owned = nb::steal(seq);
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    require((uint64_t)n <= CPCORE_MAX_GEOMETRY_CELLS, "a shape or a board has too many cells");
    coords.reserve(coords.size() + (size_t)n * dim);
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* cell = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, i), "");
        if (!cell) PyErr_Clear();
        nb::object held = nb::steal(cell);
        require(cell && PySequence_Fast_GET_SIZE(cell) == dim,
                dim == 3 ? "a cell of the cube grid is three whole numbers"
                         : "a cell of this grid is two whole numbers");
        for (int d = 0; d < dim; ++d) {
            // Any integer (numpy's too, by its __index__); not a float nor a string.
            PyObject* x = PyNumber_Index(PySequence_Fast_GET_ITEM(cell, d));
            if (!x) PyErr_Clear();
            nb::object number = nb::steal(x);
            require(x != nullptr, "a cell's coordinates must be whole numbers");
            int overflow = 0;
            const long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
            require(overflow == 0 && v >= -CPCORE_MAX_COORDINATE && v <= CPCORE_MAX_COORDINATE,
                    "a cell's coordinate is too large (more than 2**30 from 0)");
            coords.push_back((int64_t)v);
        }
    }
}

// A new tuple of ``size`` items, held; each is set (PyTuple_SET_ITEM) before it is read.
nb::object new_tuple(Py_ssize_t size) {
    PyObject* t = PyTuple_New(size);
    if (!t) throw nb::python_error();
    return nb::steal(t);
}

nb::tuple cell_tuple(const int64_t* x, int dim) {
    nb::object t = new_tuple(dim);
    for (int d = 0; d < dim; ++d) PyTuple_SET_ITEM(t.ptr(), d, PyLong_FromLongLong(x[d]));
    return nb::steal<nb::tuple>(t.release());
}

void check_status(int64_t status) {
    require(status != CPCORE_GEOMETRY_UNKNOWN_GRID, "the grid is not one of the core's");
    require(status != CPCORE_GEOMETRY_COORDINATE,
            "a cell's coordinate is too large (more than 2**30 from 0)");
    require(status != CPCORE_GEOMETRY_TOO_MANY_CELLS, "a shape or a board has too many cells");
    require(status != CPCORE_GEOMETRY_EMPTY_SHAPE, "a shape has no cells");
    require(status != CPCORE_COVER_TOO_LARGE, "the problem has too many placements");
    require(status != CPCORE_COVER_BAD_PIECES, "a piece's copies must be 0 <= low <= high");
    require(status != CPCORE_COVER_EMPTY_GROUP, "a label group has no labels");
    require(status != CPCORE_COVER_LABEL_OFF_BOARD, "a label's cell is not on the board");
    require(status >= 0, "the core's buffers are too small");
}

// The items of a sequence of sequences (shapes of a piece, cells of a group) read into
// cells and the run starts; what refuses says what the outer sequence is.
void read_runs(nb::handle runs_of, int dim, std::vector<int64_t>& cells,
               std::vector<int64_t>& start, const char* what) {
    Py_ssize_t n = 0;
    const nb::object seq = fast_sequence(runs_of, CPCORE_MAX_GEOMETRY_CELLS,
                                         std::string(what) + " are not a sequence",
                                         std::string("too many ") + what, n);
    for (Py_ssize_t k = 0; k < n; ++k) {
        read_cells(PySequence_Fast_GET_ITEM(seq.ptr(), k), dim, cells, what);
        require(cells.size() / dim <= CPCORE_MAX_GEOMETRY_CELLS,
                std::string(what) + " have too many cells");
        start.push_back((int64_t)(cells.size() / dim));
    }
}

// The exact cover of a board with pieces ((orientations, low, high) each) and label groups
// (each its labels' cells in order), cover.py's and sweep.py's, from cpcore_sweep_cover:
// (the cells in scan order, each item's (kind, low, high), each option's items, each
// option's cells, each option's kind, its piece or group, the fixed groups).
void bind_sweep_cover(nb::module_& m) {
    m.def(
        "sweep_cover",
        [](int64_t grid, nb::handle board, nb::handle pieces, nb::handle groups,
           uint64_t max_placements) {
            check_grid(grid);
            const int dim = dimension(grid);
            std::vector<int64_t> board_cells, shape_cells, shape_start{0}, piece_start{0},
                bounds, group_cells, group_start{0};
            read_cells(board, dim, board_cells, "the board");
            Py_ssize_t n_pieces = 0;
            const nb::object seq = fast_sequence(pieces, CPCORE_MAX_GEOMETRY_CELLS,
                                                 "the pieces are not a sequence",
                                                 "too many pieces", n_pieces);
            for (Py_ssize_t p = 0; p < n_pieces; ++p) {
                nb::tuple piece;
                const nb::handle item = PySequence_Fast_GET_ITEM(seq.ptr(), p);
                require(nb::try_cast(item, piece) && piece.size() == 3,
                        "a piece is (its orientations, low, high)");
                read_runs(piece[0], dim, shape_cells, shape_start, "the orientations");
                piece_start.push_back((int64_t)(shape_start.size() - 1));
                int64_t low = 0, high = 0;
                require(nb::try_cast(piece[1], low) && nb::try_cast(piece[2], high),
                        "a piece's copies must be 0 <= low <= high");
                bounds.push_back(low);
                bounds.push_back(high);
            }
            read_runs(groups, dim, group_cells, group_start, "the label groups");
            const uint64_t n_board = board_cells.size() / dim;
            const uint64_t n_shapes = shape_start.size() - 1;
            const uint64_t n_groups = group_start.size() - 1;
            uint64_t sizes[5];
            const cpcore_sweep_input in{grid, board_cells.data(), n_board, shape_cells.data(),
                                        shape_start.data(), n_shapes,
                                        shape_cells.size() / dim, piece_start.data(),
                                        bounds.data(), (uint64_t)n_pieces, group_cells.data(),
                                        group_start.data(), n_groups,
                                        group_cells.size() / dim, max_placements};
            auto call = [&](int64_t* items, uint64_t n_items, int64_t* options,
                            uint64_t n_options, int64_t* entries, uint64_t n_entries,
                            int64_t* fixed, uint64_t n_fixed, int64_t* scratch,
                            uint64_t n_scratch) {
                const cpcore_sweep_output out{items,   n_items,   options, n_options,
                                              entries, n_entries, fixed,   n_fixed,
                                              scratch, n_scratch};
                return cpcore_sweep_cover(&in, &out, sizes);
            };
            // A call for the scratch, one to count, one to write.
            int64_t status = call(nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0);
            check_status(status == CPCORE_GEOMETRY_SMALL_BUFFER ? 0 : status);
            std::vector<int64_t> scratch(sizes[3] + 1);
            status = call(nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0, scratch.data(),
                          scratch.size());
            check_status(status == CPCORE_GEOMETRY_SMALL_BUFFER ? 0 : status);
            std::vector<int64_t> items(4 * sizes[0] + 1), options(4 * sizes[1] + 1),
                entries(sizes[2] + 1), fixed(sizes[4] + 1);
            status = call(items.data(), items.size(), options.data(), options.size(),
                          entries.data(), entries.size(), fixed.data(), fixed.size(),
                          scratch.data(), scratch.size());
            check_status(status);
            nb::list cells, item_rows, option_items, option_cells, kinds, owners, fixed_groups;
            std::vector<nb::object> made;
            for (uint64_t i = 0; i < sizes[0]; ++i) {
                const int64_t* row = items.data() + 4 * i;
                if (row[0] == 0) {
                    made.push_back(cell_tuple(board_cells.data() + row[3] * dim, dim));
                    cells.append(made.back());
                }
                item_rows.append(nb::make_tuple(row[0], row[1], row[2]));
            }
            for (int64_t j = 0; j < status; ++j) {
                const int64_t* row = options.data() + 4 * j;
                const int64_t first = row[2], n = row[3];
                const Py_ssize_t n_cells = (Py_ssize_t)(n - 1);
                const nb::object held_ids = new_tuple((Py_ssize_t)n);
                PyObject* ids = held_ids.ptr();
                const nb::object held_at = new_tuple(n_cells);
                PyObject* at = held_at.ptr();
                for (int64_t i = 0; i < n; ++i) {
                    const int64_t item = entries[first + i];
                    PyTuple_SET_ITEM(ids, i, PyLong_FromLongLong(item));
                    if (i < n - 1) PyTuple_SET_ITEM(at, i, made[item].inc_ref().ptr());
                }
                option_items.append(held_ids);
                option_cells.append(held_at);
                kinds.append(row[0]);
                owners.append(row[1]);
            }
            for (uint64_t k = 0; k < sizes[4]; ++k) fixed_groups.append(fixed[k]);
            return nb::make_tuple(cells, item_rows, option_items, option_cells, kinds, owners,
                                  fixed_groups);
        },
        nb::arg("grid"), nb::arg("board"), nb::arg("pieces"), nb::arg("groups"),
        nb::arg("max_placements"),
        "The exact cover of a board with pieces ((orientations, low, high) each) and label "
        "groups (each its labels' cells): (cells in scan order, items' (kind, low, high), "
        "options' items, options' cells, options' kinds, their pieces or groups, the groups "
        "a sweep fixes).");
}

// Play mode's layout of a plane board and its pieces ((cells, rotate, flip) each), from
// cpcore_play_layout: its stream of words as a list of ints (geometry.play_layout reads it).
void bind_play_layout(nb::module_& m) {
    m.def(
        "play_layout",
        [](int64_t grid, nb::handle board, nb::handle pieces) {
            check_grid(grid);
            require(grid != CPCORE_GRID_CUBE, "play mode draws the plane grids, not cubes");
            std::vector<int64_t> board_cells, piece_cells, piece_start{0}, turns;
            read_cells(board, 2, board_cells, "the board");
            Py_ssize_t n_pieces = 0;
            const nb::object seq = fast_sequence(pieces, CPCORE_MAX_LAYOUT_CELLS,
                                                 "the pieces are not a sequence",
                                                 "too many pieces", n_pieces);
            for (Py_ssize_t p = 0; p < n_pieces; ++p) {
                nb::tuple piece;
                bool rotate = false, flip = false;
                const nb::handle item = PySequence_Fast_GET_ITEM(seq.ptr(), p);
                require(nb::try_cast(item, piece) &&
                            piece.size() == 3 && nb::try_cast(piece[1], rotate) &&
                            nb::try_cast(piece[2], flip),
                        "a piece is (its cells, rotate, flip)");
                read_cells(piece[0], 2, piece_cells, "a piece");
                require(piece_cells.size() / 2 <= CPCORE_MAX_LAYOUT_CELLS,
                        "the pieces have too many cells");
                piece_start.push_back((int64_t)(piece_cells.size() / 2));
                turns.push_back(rotate);
                turns.push_back(flip);
            }
            uint64_t sizes[2];
            // The core works on the vectors alone: other threads (the server's event loop)
            // run meanwhile.
            const cpcore_play_input in{grid, board_cells.data(), board_cells.size() / 2,
                                       piece_cells.data(), piece_start.data(), turns.data(),
                                       (uint64_t)n_pieces, piece_cells.size() / 2};
            auto call = [&](int64_t* out, uint64_t n_out, int64_t* scratch, uint64_t n_scratch) {
                nb::gil_scoped_release released;
                return cpcore_play_layout(&in, out, n_out, scratch, n_scratch, sizes);
            };
            auto said = [](int64_t status) {
                require(status != CPCORE_LAYOUT_NO_CELLS, "the board has no cells");
                require(status != CPCORE_LAYOUT_COORDINATE,
                        "a cell's coordinate is too large for play mode (more than 2**20 "
                        "from 0)");
                require(status != CPCORE_GEOMETRY_TOO_MANY_CELLS,
                        "the board or a piece has too many cells for play mode");
                check_status(status);
            };
            int64_t status = call(nullptr, 0, nullptr, 0);
            said(status == CPCORE_GEOMETRY_SMALL_BUFFER ? 0 : status);
            std::vector<int64_t> scratch(sizes[1] + 1);
            status = call(nullptr, 0, scratch.data(), scratch.size());
            said(status == CPCORE_GEOMETRY_SMALL_BUFFER ? 0 : status);
            require(sizes[0] <= (uint64_t(1) << 28), "the layout is too large for play mode");
            std::vector<int64_t> out(sizes[0] + 1);
            status = call(out.data(), out.size(), scratch.data(), scratch.size());
            said(status);
            PyObject* words = PyList_New((Py_ssize_t)status);
            if (!words) throw nb::python_error();
            nb::object held = nb::steal(words);
            for (int64_t i = 0; i < status; ++i) {
                PyList_SET_ITEM(words, (Py_ssize_t)i, PyLong_FromLongLong(out[i]));
            }
            return held;
        },
        nb::arg("grid"), nb::arg("board"), nb::arg("pieces"),
        "Play mode's layout of a plane board and its pieces ((cells, rotate, flip) each) as "
        "cpcore_play_layout's stream of words (points in sixths of a drawing unit).");
}

}  // namespace

void bind_geometry(nb::module_& m) {
    m.def(
        "orientations",
        [](int64_t grid, nb::handle cells, bool rotate, bool flip) {
            check_grid(grid);
            const int dim = dimension(grid);
            std::vector<int64_t> coords;
            read_cells(cells, dim, coords, "a shape");
            const uint64_t n = coords.size() / dim;
            uint64_t sizes[3];
            const cpcore_shape_input in{grid, coords.data(), n, rotate, flip};
            cpcore_orientations(&in, nullptr, 0, nullptr, 0, sizes);
            std::vector<int64_t> out(sizes[0] + 1), scratch(sizes[1] + 1);
            const int64_t found = cpcore_orientations(&in, out.data(), out.size(),
                                                      scratch.data(), scratch.size(), sizes);
            check_status(found);
            nb::list shapes;
            const uint64_t size = sizes[2];
            for (int64_t k = 0; k < found; ++k) {
                const nb::object held = new_tuple((Py_ssize_t)size);
                PyObject* shape = held.ptr();
                for (uint64_t i = 0; i < size; ++i) {
                    PyTuple_SET_ITEM(shape, i,
                                     cell_tuple(out.data() + (k * size + i) * dim, dim)
                                         .release().ptr());
                }
                shapes.append(held);
            }
            return shapes;
        },
        nb::arg("grid"), nb::arg("cells"), nb::arg("rotate"), nb::arg("flip"),
        "A shape's distinct normalized orientations, each a tuple of its cells in reading "
        "order (geometry.orientations' order).");
    m.def(
        "placements",
        [](int64_t grid, nb::handle shapes, nb::handle board, uint64_t limit) {
            check_grid(grid);
            const int dim = dimension(grid);
            std::vector<int64_t> shape_cells, start{0}, board_cells;
            Py_ssize_t n_shapes = 0;
            const nb::object seq = fast_sequence(shapes, CPCORE_MAX_GEOMETRY_CELLS,
                                                 "the shapes are not a sequence of shapes",
                                                 "too many shapes", n_shapes);
            for (Py_ssize_t s = 0; s < n_shapes; ++s) {
                read_cells(PySequence_Fast_GET_ITEM(seq.ptr(), s), dim, shape_cells, "a shape");
                require(shape_cells.size() / dim <= CPCORE_MAX_GEOMETRY_CELLS,
                        "the shapes have too many cells");
                start.push_back((int64_t)(shape_cells.size() / dim));
            }
            read_cells(board, dim, board_cells, "the board");
            const uint64_t n_board = board_cells.size() / dim;
            const uint64_t n_cells = shape_cells.size() / dim;
            uint64_t sizes[3];
            // A first call for the scratch, then outputs as large as the board allows (or,
            // for a large board, as a counting call finds them).
            const cpcore_placements_input in{grid, shape_cells.data(), start.data(),
                                             (uint64_t)n_shapes, n_cells, board_cells.data(),
                                             n_board, limit};
            int64_t status = cpcore_placements(&in, nullptr, 0, nullptr, 0, nullptr, 0, sizes);
            check_status(status == CPCORE_GEOMETRY_SMALL_BUFFER ? 0 : status);
            std::vector<int64_t> scratch(sizes[2] + 1);
            uint64_t most_placements = (uint64_t)n_shapes * n_board;
            uint64_t most_cells = n_cells * n_board;
            if (most_cells > (uint64_t(1) << 20)) {
                status = cpcore_placements(&in, nullptr, 0, nullptr, 0, scratch.data(),
                                           scratch.size(), sizes);
                check_status(status == CPCORE_GEOMETRY_SMALL_BUFFER ? 0 : status);
                most_placements = sizes[0];
                most_cells = sizes[1];
            }
            std::vector<int64_t> out_cells(most_cells + 1), out_shape(most_placements + 1);
            status = cpcore_placements(&in, out_cells.data(), out_cells.size(),
                                       out_shape.data(), out_shape.size(), scratch.data(),
                                       scratch.size(), sizes);
            check_status(status);
            // The board's cells as tuples, made once each and shared by the placements.
            std::vector<nb::object> made(n_board);
            nb::list found;
            uint64_t at = 0;
            for (int64_t p = 0; p < status; ++p) {
                const int64_t s = out_shape[p];
                const Py_ssize_t size = (Py_ssize_t)(start[s + 1] - start[s]);
                const nb::object held = new_tuple(size);
                PyObject* cells = held.ptr();
                for (Py_ssize_t i = 0; i < size; ++i) {
                    const int64_t b = out_cells[at++];
                    if (!made[b].is_valid()) made[b] = cell_tuple(board_cells.data() + b * dim, dim);
                    PyTuple_SET_ITEM(cells, i, made[b].inc_ref().ptr());
                }
                found.append(held);
            }
            return found;
        },
        nb::arg("grid"), nb::arg("shapes"), nb::arg("board"), nb::arg("limit"),
        "Every placement of the shapes on the board, up to limit of them, each a tuple of "
        "its cells in reading order (geometry.placements' order).");
    bind_sweep_cover(m);
    bind_play_layout(m);
}

}  // namespace cpbind
