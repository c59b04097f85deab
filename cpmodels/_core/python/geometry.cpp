// Orientations and placements for geometry.py: cells read from Python sequences of int
// tuples, the core's calls over vectors, its cells given back as tuples of ints.
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "checked_arrays.hpp"
#include "cpcore/design_sets_arrays.hpp"
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

// A new tuple of ``size`` items, item k ``item(k)`` (a new reference, the tuple's to keep).
template <class Item>
nb::object tuple_of(Py_ssize_t size, Item item) {
    PyObject* t = PyTuple_New(size);
    if (!t) throw nb::python_error();
    nb::object held = nb::steal(t);
    for (Py_ssize_t k = 0; k < size; ++k) PyTuple_SET_ITEM(t, k, item(k));
    return held;
}

nb::object cell_tuple(const int64_t* x, int dim) {
    return tuple_of(dim, [&](Py_ssize_t d) { return PyLong_FromLongLong(x[d]); });
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

// Each of ``pieces`` (a sequence of at most ``most`` 3-tuples; a ValueError saying ``what``
// a piece is for another item) handed to ``each``. Returns their number.
template <class Each>
uint64_t each_piece(nb::handle pieces, uint64_t most, const char* what, Each each) {
    Py_ssize_t n = 0;
    const nb::object seq = fast_sequence(pieces, most, "the pieces are not a sequence",
                                         "too many pieces", n);
    for (Py_ssize_t p = 0; p < n; ++p) {
        nb::tuple piece;
        const nb::handle item = PySequence_Fast_GET_ITEM(seq.ptr(), p);
        require(nb::try_cast(item, piece) && piece.size() == 3, what);
        each(piece);
    }
    return (uint64_t)n;
}

// A plane piece's cells appended to piece_cells, the end of its run to piece_start.
void read_piece(nb::handle cells, std::vector<int64_t>& piece_cells,
                std::vector<int64_t>& piece_start) {
    read_cells(cells, 2, piece_cells, "a piece");
    require(piece_cells.size() / 2 <= CPCORE_MAX_LAYOUT_CELLS, "the pieces have too many cells");
    piece_start.push_back((int64_t)(piece_cells.size() / 2));
}

// The stream of words a geometry call writes (``call(&buffers)``: the entry point on its
// input), in the calls entry.h's cpcore_buffers describes: with no buffers, then with the
// scratch and ``guess`` words of out (when the call asks for fewer: a guess that holds the
// stream saves the counting call), then with out as large as the call said, up to ``most``
// words. ``said`` refuses a status; the core runs on the vectors alone, without the GIL.
template <class Call, class Said>
std::vector<int64_t> stream(Call call, Said said, uint64_t guess = 0,
                            uint64_t most = uint64_t(1) << 28) {
    cpcore_buffers b{};
    auto called = [&] {
        nb::gil_scoped_release released;
        return call(&b);
    };
    int64_t status = called();
    said(status == CPCORE_GEOMETRY_SMALL_BUFFER ? 0 : status);
    std::vector<int64_t> scratch(b.need_scratch + 1), out;
    for (uint64_t room = b.need_out > guess ? b.need_out : guess;; room = b.need_out) {
        require(room <= most, "the core's output is too large");
        out.resize(room + 1);
        b = cpcore_buffers{out.data(), room, scratch.data(), scratch.size(), 0, 0};
        status = called();
        if (status != CPCORE_GEOMETRY_SMALL_BUFFER || b.need_out <= room) break;
    }
    said(status);
    out.resize((size_t)status);
    return out;
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
           uint64_t max_placements, const std::vector<int64_t>& left_out) {
            check_grid(grid);
            const int dim = dimension(grid);
            std::vector<int64_t> board_cells, shape_cells, shape_start{0}, piece_start{0},
                bounds, group_cells, group_start{0};
            read_cells(board, dim, board_cells, "the board");
            const uint64_t n_pieces = each_piece(
                pieces, CPCORE_MAX_GEOMETRY_CELLS, "a piece is (its orientations, low, high)",
                [&](const nb::tuple& piece) {
                    read_runs(piece[0], dim, shape_cells, shape_start, "the orientations");
                    piece_start.push_back((int64_t)(shape_start.size() - 1));
                    int64_t low = 0, high = 0;
                    require(nb::try_cast(piece[1], low) && nb::try_cast(piece[2], high),
                            "a piece's copies must be 0 <= low <= high");
                    bounds.push_back(low);
                    bounds.push_back(high);
                });
            read_runs(groups, dim, group_cells, group_start, "the label groups");
            std::vector<uint8_t> may_go(n_pieces, 0);
            for (const int64_t p : left_out) {
                require(p >= 0 && (uint64_t)p < n_pieces,
                        "a piece left out is the index of a piece");
                may_go[(size_t)p] = 1;
            }
            const cpcore_sweep_input in{grid, board_cells.data(), board_cells.size() / dim,
                                        shape_cells.data(), shape_start.data(),
                                        shape_start.size() - 1, shape_cells.size() / dim,
                                        piece_start.data(), bounds.data(), n_pieces,
                                        group_cells.data(), group_start.data(),
                                        group_start.size() - 1, group_cells.size() / dim,
                                        max_placements, may_go.data()};
            const std::vector<int64_t> words = stream(
                [&](cpcore_buffers* b) { return cpcore_sweep_cover(&in, b); }, check_status);
            // The stream: the counts, the items, the options, the fixed groups.
            const int64_t* at = words.data();
            const int64_t n_items = at[0], n_options = at[1], n_fixed = at[2];
            at += 3;
            nb::list cells, item_rows, option_items, option_cells, kinds, owners, fixed_groups;
            std::vector<nb::object> made;
            for (int64_t i = 0; i < n_items; ++i, at += 4) {
                if (at[0] == 0) {
                    made.push_back(cell_tuple(board_cells.data() + at[3] * dim, dim));
                    cells.append(made.back());
                }
                item_rows.append(nb::make_tuple(at[0], at[1], at[2]));
            }
            for (int64_t j = 0; j < n_options; ++j) {
                kinds.append(at[0]);
                owners.append(at[1]);
                const int64_t n = at[2];
                at += 3;
                option_items.append(tuple_of(n, [&](Py_ssize_t i) {
                    return PyLong_FromLongLong(at[i]);
                }));
                option_cells.append(tuple_of(n - 1, [&](Py_ssize_t i) {
                    return made[at[i]].inc_ref().ptr();
                }));
                at += n;
            }
            for (int64_t k = 0; k < n_fixed; ++k) fixed_groups.append(at[k]);
            return nb::make_tuple(cells, item_rows, option_items, option_cells, kinds, owners,
                                  fixed_groups);
        },
        nb::arg("grid"), nb::arg("board"), nb::arg("pieces"), nb::arg("groups"),
        nb::arg("max_placements"), nb::arg("left_out") = std::vector<int64_t>(),
        "The exact cover of a board with pieces ((orientations, low, high) each) and label "
        "groups (each its labels' cells), the pieces ``left_out`` names (indices) each with "
        "an option that leaves it out: (cells in scan order, items' (kind, low, high), "
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
            const char* what = "a piece is (its cells, rotate, flip)";
            const uint64_t n_pieces = each_piece(
                pieces, CPCORE_MAX_LAYOUT_CELLS, what, [&](const nb::tuple& piece) {
                    bool rotate = false, flip = false;
                    require(nb::try_cast(piece[1], rotate) && nb::try_cast(piece[2], flip), what);
                    read_piece(piece[0], piece_cells, piece_start);
                    turns.push_back(rotate);
                    turns.push_back(flip);
                });
            const cpcore_play_input in{grid, board_cells.data(), board_cells.size() / 2,
                                       piece_cells.data(), piece_start.data(), turns.data(),
                                       n_pieces, piece_cells.size() / 2};
            auto said = [](int64_t status) {
                require(status != CPCORE_LAYOUT_NO_CELLS, "the board has no cells");
                require(status != CPCORE_LAYOUT_COORDINATE,
                        "a cell's coordinate is too large for play mode (more than 2**20 "
                        "from 0)");
                require(status != CPCORE_GEOMETRY_TOO_MANY_CELLS,
                        "the board or a piece has too many cells for play mode");
                check_status(status);
            };
            const std::vector<int64_t> words = stream(
                [&](cpcore_buffers* b) { return cpcore_play_layout(&in, b); }, said);
            PyObject* list = PyList_New((Py_ssize_t)words.size());
            if (!list) throw nb::python_error();
            nb::object held = nb::steal(list);
            for (size_t i = 0; i < words.size(); ++i)
                PyList_SET_ITEM(list, (Py_ssize_t)i, PyLong_FromLongLong(words[i]));
            return held;
        },
        nb::arg("grid"), nb::arg("board"), nb::arg("pieces"),
        "Play mode's layout of a plane board and its pieces ((cells, rotate, flip) each) as "
        "cpcore_play_layout's stream of words (points in sixths of a drawing unit).");
}

// What cut_sheets and engrave check alike of their calls: a plane grid and 8 sizes, given
// back as their doubles' bits (as entry.h passes them).
std::vector<int64_t> laser_sizes(int64_t grid, const std::vector<double>& sizes) {
    check_grid(grid);
    require(grid != CPCORE_GRID_CUBE, "the cube grid's parts are printed, not cut");
    require(sizes.size() == 8, "the sizes are 8 numbers");
    std::vector<int64_t> words(8);
    std::memcpy(words.data(), sizes.data(), 8 * sizeof(double));
    return words;
}

// Bytes as the native words they hold (a ValueError saying ``what`` unless whole words).
std::vector<int64_t> words_of(const nb::bytes& data, const char* what) {
    require(data.size() % 8 == 0, what);
    std::vector<int64_t> words(data.size() / 8);
    std::memcpy(words.data(), data.c_str(), data.size());
    return words;
}

// The statuses cut_sheets and engrave say alike, then the geometry calls'.
void check_laser_status(int64_t status) {
    require(status != CPCORE_CUT_COORDINATE,
            "a cell's coordinate is too large for a cut file (more than 2**20 from 0)");
    require(status != CPCORE_CUT_BAD_SIZES, "a size is out of make's bounds");
    check_status(status);
}

// A stream of words as bytes (native order).
nb::bytes bytes_of(const std::vector<int64_t>& words) {
    return nb::bytes(reinterpret_cast<const char*>(words.data()), words.size() * 8);
}

// A laser's sheets of a board's parts (cpcore_cut_sheets): pieces are (cells, copies, name
// as UTF-8 bytes), sizes the 8 floats entry.h names, engraving its stream of words as bytes
// (native order). Its stream of words is given back as bytes (make/ reads it).
void bind_cut_sheets(nb::module_& m) {
    m.def(
        "cut_sheets",
        [](int64_t grid, nb::handle board, nb::handle pieces, std::vector<double> sizes,
           nb::bytes engraving) {
            const std::vector<int64_t> size_words = laser_sizes(grid, sizes);
            const std::vector<int64_t> words =
                words_of(engraving, "the engraving is whole words");
            std::vector<int64_t> board_cells, piece_cells, piece_start{0}, copies, name_start{0};
            std::string names;
            read_cells(board, 2, board_cells, "the board");
            const char* what = "a piece is (its cells, copies, name)";
            const uint64_t n_pieces = each_piece(
                pieces, CPCORE_MAX_CUT_PARTS, what, [&](const nb::tuple& piece) {
                    int64_t n = 0;
                    nb::bytes name;
                    require(nb::try_cast(piece[1], n) && nb::try_cast(piece[2], name), what);
                    read_piece(piece[0], piece_cells, piece_start);
                    copies.push_back(n);
                    names.append(name.c_str(), name.size());
                    name_start.push_back((int64_t)names.size());
                });
            const cpcore_cut_input in{grid, board_cells.data(), board_cells.size() / 2,
                                      piece_cells.data(), piece_start.data(), copies.data(),
                                      name_start.data(),
                                      reinterpret_cast<const uint8_t*>(names.data()),
                                      n_pieces, piece_cells.size() / 2, names.size(),
                                      size_words.data(), words.data(), words.size()};
            auto said = [](int64_t status) {
                require(status != CPCORE_CUT_NO_CELLS, "the board has no cells");
                require(status != CPCORE_CUT_BAD_PARTS,
                        "a cell is given twice, or the copies or names do not read");
                require(status != CPCORE_CUT_BAD_ENGRAVING, "the engraving does not read");
                check_laser_status(status);
            };
            const std::vector<int64_t> out = stream(
                [&](cpcore_buffers* b) { return cpcore_cut_sheets(&in, b); }, said);
            return bytes_of(out);
        },
        nb::arg("grid"), nb::arg("board"), nb::arg("pieces"), nb::arg("sizes"),
        nb::arg("engraving"),
        "A laser's sheets of a board's parts ((cells, copies, UTF-8 name) each; 8 sizes in "
        "mm; the engraving's words as bytes) as cpcore_cut_sheets' stream of words, as bytes.");
}


// A design's candidate sets (cpcore_design_sets): pieces are (cells, flip, rotate, count id,
// area, high, name as UTF-8 bytes), draws (piece indices, k_low, k_high), holes each required
// date's label cells as board cell indices (-1 pads). Returns (the sets kept, one row of
// piece indices each, -1 padded, as a list of tuples, and how many were skipped as equal).
void bind_design_sets(nb::module_& m) {
    m.def(
        "design_sets",
        [](nb::handle pieces, uint64_t n_fixed, nb::handle draws, uint64_t board_area,
           nb::handle board, Array<const int64_t> holes) {
            cpcore::DesignSetsArrays<std::vector<int64_t>, std::vector<uint8_t>, std::string> given;
            given.cell_start = given.name_start = given.draw_start = {0};
            const char* what = "a piece is (its cells, flip, rotate, count id, area, high, name)";
            Py_ssize_t n_pieces = 0;
            const nb::object seq = fast_sequence(pieces, 1 << 15, "the pieces are not a sequence",
                                                 "too many pieces", n_pieces);
            for (Py_ssize_t i = 0; i < n_pieces; ++i) {
                nb::tuple piece;
                require(nb::try_cast(nb::handle(PySequence_Fast_GET_ITEM(seq.ptr(), i)), piece) &&
                            piece.size() == 7, what);
                bool f = false, r = false;
                int64_t c = 0, a = 0, h = 0;
                nb::bytes name;
                require(nb::try_cast(piece[1], f) && nb::try_cast(piece[2], r) &&
                            nb::try_cast(piece[3], c) && nb::try_cast(piece[4], a) &&
                            nb::try_cast(piece[5], h) && nb::try_cast(piece[6], name), what);
                read_cells(piece[0], 2, given.cells, "a piece");
                given.cell_start.push_back((int64_t)(given.cells.size() / 2));
                given.flip.push_back(f ? 1 : 0);
                given.rotate.push_back(r ? 1 : 0);
                given.count_id.push_back(c);
                given.area.push_back(a);
                given.high.push_back(h);
                given.names.append(name.c_str(), name.size());
                given.name_start.push_back((int64_t)given.names.size());
            }
            uint64_t set_cols = n_fixed;
            Py_ssize_t n_draws = 0;
            const nb::object draw_seq = fast_sequence(draws, 1 << 15, "the draws are not a sequence",
                                                      "too many draws", n_draws);
            for (Py_ssize_t g = 0; g < n_draws; ++g) {
                nb::tuple draw;
                std::vector<int64_t> indices;
                int64_t low = 0, most = 0;
                require(nb::try_cast(nb::handle(PySequence_Fast_GET_ITEM(draw_seq.ptr(), g)), draw) &&
                            draw.size() == 3 && nb::try_cast(draw[0], indices) &&
                            nb::try_cast(draw[1], low) && nb::try_cast(draw[2], most) &&
                            0 <= low && low <= most && most <= (1 << 10),
                        "a draw is (its piece indices, k_low, k_high)");
                given.drawn.insert(given.drawn.end(), indices.begin(), indices.end());
                given.draw_start.push_back((int64_t)given.drawn.size());
                given.k_low.push_back(low);
                given.k_high.push_back(most);
                set_cols += (uint64_t)most;
            }
            read_cells(board, 2, given.board, "the board");
            require(holes.ndim() == 2, "the holes are one row a date");
            cpcore_design_sets_input in = given.input(n_fixed, board_area, set_cols, holes.data(),
                                                      holes.shape(0), holes.shape(1));
            auto said = [](int64_t status) {
                require(status != CPCORE_SETS_INPUT,
                        "the design's pieces, draws or dates are out of range");
                check_status(status);
            };
            const std::vector<int64_t> out = stream(
                [&](cpcore_buffers* b) { return cpcore_design_sets(&in, b); }, said);
            nb::list sets;
            for (uint64_t s = 0; s < in.n_sets; ++s) {
                const int64_t* row = out.data() + s * set_cols;
                uint64_t n = 0;
                while (n < set_cols && row[n] >= 0) ++n;
                sets.append(tuple_of((Py_ssize_t)n, [&](Py_ssize_t k) {
                    return PyLong_FromLongLong(row[k]);
                }));
            }
            return nb::make_tuple(sets, in.skipped);
        },
        nb::arg("pieces"), nb::arg("n_fixed"), nb::arg("draws"), nb::arg("board_area"),
        nb::arg("board"), nb::arg("holes"),
        "A design's candidate sets (each a tuple of piece indices) and how many were skipped "
        "as equal to an earlier one (see design/search.py).");
}

// A str's characters (code points) appended to text; its length.
uint64_t read_text(nb::handle value, std::vector<int64_t>& text, const char* what) {
    require(PyUnicode_Check(value.ptr()), what);
    const Py_ssize_t n = PyUnicode_GetLength(value.ptr());
    for (Py_ssize_t i = 0; i < n; ++i) text.push_back((int64_t)PyUnicode_ReadChar(value.ptr(), i));
    require(text.size() <= CPCORE_MAX_CUT_NAME_BYTES, "the labels or the names are too long");
    return (uint64_t)n;
}

// The engraving (cpcore_engrave) of a board's labels ((cell, text) each) and its pieces'
// names (pieces as cut_sheets takes them, the name a str), sizes as cut_sheets', glyphs the
// table make/glyphs.py writes: cpcore_engrave's stream of words as bytes.
void bind_engrave(nb::module_& m) {
    m.def(
        "engrave",
        [](int64_t grid, nb::handle labels, nb::handle pieces, std::vector<double> sizes,
           nb::bytes glyphs) {
            const std::vector<int64_t> size_words = laser_sizes(grid, sizes);
            const std::vector<int64_t> table = words_of(glyphs, "the glyph table is whole words");
            std::vector<int64_t> label_cells, label_start{0}, label_text, piece_cells,
                piece_start{0}, name_start{0}, name_text;
            Py_ssize_t n_labels = 0;
            const nb::object seq = fast_sequence(labels, CPCORE_MAX_LAYOUT_CELLS,
                                                 "the labels are not a sequence",
                                                 "too many labels", n_labels);
            const char* label_is = "a label is (its cell, its text)";
            for (Py_ssize_t k = 0; k < n_labels; ++k) {
                nb::tuple label;
                const nb::handle item = PySequence_Fast_GET_ITEM(seq.ptr(), k);
                require(nb::try_cast(item, label) && label.size() == 2, label_is);
                nb::list one;
                one.append(label[0]);
                read_cells(one, 2, label_cells, "a label's cell");
                read_text(label[1], label_text, label_is);
                label_start.push_back((int64_t)label_text.size());
            }
            const char* what = "a piece is (its cells, copies, name)";
            const uint64_t n_pieces = each_piece(
                pieces, CPCORE_MAX_CUT_PARTS, what, [&](const nb::tuple& piece) {
                    read_piece(piece[0], piece_cells, piece_start);
                    read_text(piece[2], name_text, what);
                    name_start.push_back((int64_t)name_text.size());
                });
            const cpcore_engrave_input in{
                grid, label_cells.data(), label_start.data(), label_text.data(),
                (uint64_t)n_labels, label_text.size(), piece_cells.data(), piece_start.data(),
                name_start.data(), name_text.data(), n_pieces, piece_cells.size() / 2,
                name_text.size(), size_words.data(), table.data(), table.size()};
            auto said = [](int64_t status) {
                require(status != CPCORE_CUT_BAD_PARTS,
                        "a piece has a cell twice, or a cell two labels");
                require(status != CPCORE_ENGRAVE_BAD_TEXT,
                        "a label or a name is longer than 256 characters, or holds NUL or "
                        "a lone surrogate");
                require(status != CPCORE_ENGRAVE_BAD_GLYPHS, "the glyph table does not read");
                check_laser_status(status);
            };
            const std::vector<int64_t> out = stream(
                [&](cpcore_buffers* b) { return cpcore_engrave(&in, b); }, said);
            return bytes_of(out);
        },
        nb::arg("grid"), nb::arg("labels"), nb::arg("pieces"), nb::arg("sizes"),
        nb::arg("glyphs"),
        "The engraving of a board's labels ((cell, text) each) and pieces' names ((cells, "
        "copies, name) each) in a glyph table, as cpcore_engrave's stream of words, as "
        "bytes.");
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
            const cpcore_shape_input in{grid, coords.data(), coords.size() / dim, rotate, flip};
            const std::vector<int64_t> words = stream(
                [&](cpcore_buffers* b) { return cpcore_orientations(&in, b); }, check_status);
            // The stream: the orientations' number and size, then their cells.
            const int64_t found = words[0];
            const uint64_t size = (uint64_t)words[1];
            nb::list shapes;
            for (int64_t k = 0; k < found; ++k) {
                const int64_t* cells = words.data() + 2 + k * size * dim;
                shapes.append(tuple_of((Py_ssize_t)size, [&](Py_ssize_t i) {
                    return cell_tuple(cells + i * dim, dim).release().ptr();
                }));
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
            const cpcore_placements_input in{grid, shape_cells.data(), start.data(),
                                             (uint64_t)n_shapes, n_cells, board_cells.data(),
                                             n_board, limit};
            // Out as large as the board allows at first, for a board that small (a larger one
            // is measured by a counting call).
            const uint64_t most = (uint64_t)n_shapes * n_board + n_cells * n_board;
            const std::vector<int64_t> words = stream(
                [&](cpcore_buffers* b) { return cpcore_placements(&in, b); }, check_status,
                most <= (uint64_t(1) << 21) ? most : 0);
            // The stream: each placement's shape, then its board cells. The board's cells as
            // tuples, made once each and shared by the placements.
            std::vector<nb::object> made(n_board);
            nb::list found;
            for (size_t at = 0; at < words.size();) {
                const int64_t s = words[at++];
                found.append(tuple_of(start[s + 1] - start[s], [&](Py_ssize_t) {
                    const int64_t b = words[at++];
                    if (!made[b].is_valid())
                        made[b] = cell_tuple(board_cells.data() + b * dim, dim);
                    return made[b].inc_ref().ptr();
                }));
            }
            return found;
        },
        nb::arg("grid"), nb::arg("shapes"), nb::arg("board"), nb::arg("limit"),
        "Every placement of the shapes on the board, up to limit of them, each a tuple of "
        "its cells in reading order (geometry.placements' order).");
    bind_sweep_cover(m);
    bind_play_layout(m);
    bind_cut_sheets(m);
    bind_engrave(m);
    bind_design_sets(m);
}

}  // namespace cpbind
