// The exact-cover searches of solids and of a date's difficulty: bit_cover.py, links.py and
// difficulty.py call these. Each checks its arrays' shapes and indices, makes the search's
// buffers and calls the core with the GIL released.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "cpcore/entry.h"

namespace nb = nanobind;

namespace {

template <class T>
using In = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <class T>
using Out = nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Counted = std::pair<int64_t, int64_t>;

const uint64_t MAX_ROWS = 130;  // 128 items, a level each at most, and the root

// The message is made only when the check fails (the checks run over whole arrays).
void require(bool ok, const char* what, const char* problem = "") {
    if (!ok) throw std::invalid_argument(std::string(what) + problem);
}

// Every entry of a lies in [lo, hi).
template <class T>
void require_within(const In<T>& a, int64_t lo, int64_t hi, const char* what) {
    const T* p = a.data();
    for (size_t k = 0; k < a.shape(0); ++k)
        require((int64_t)p[k] >= lo && (int64_t)p[k] < hi, what, " out of range");
}

// start is a table of runs into an array of n entries: nondecreasing, from 0 to at most n.
void require_runs(const In<int64_t>& start, size_t n, const char* what) {
    const int64_t* p = start.data();
    require(start.shape(0) >= 1 && p[0] >= 0, what, " must start at 0 or more");
    for (size_t k = 1; k < start.shape(0); ++k)
        require(p[k] >= p[k - 1], what, " must not decrease");
    require(p[start.shape(0) - 1] <= (int64_t)n, what, " runs past its array");
}

Counted bit_cover_count(In<uint64_t> opt_low, In<uint64_t> opt_high, uint64_t need_low,
                        uint64_t need_high, uint64_t depth, In<int64_t> forced,
                        Out<int64_t> stop) {
    const uint64_t n = opt_low.shape(0);
    require(opt_high.shape(0) == n, "the options' low and high words differ in number");
    require(depth >= 1 && depth <= MAX_ROWS, "the depth must be 1 to 130");
    require_within(forced, 0, (int64_t)n, "a forced option");
    std::unique_ptr<uint64_t[]> live(new uint64_t[2 * depth * n]);
    std::vector<uint64_t> frame(cpcore_bit_cover_frame_words(depth));
    uint64_t nodes = 0;
    const int64_t found = cpcore_bit_cover_count(
        opt_low.data(), opt_high.data(), n, need_low, need_high, forced.data(),
        forced.shape(0), cpbind::stop_flag(stop), depth, live.get(), frame.data(), &nodes);
    require(found != -2, "the search went deeper than its depth");
    return {found, (int64_t)nodes};
}

struct LinkArrays {
    const int64_t* top;
    int64_t *up, *down, *length, *prev, *next;
    uint64_t n_nodes, n_items;
};

LinkArrays link_arrays(const In<int64_t>& top, Out<int64_t>& up, Out<int64_t>& down,
                       Out<int64_t>& length, Out<int64_t>& prev, Out<int64_t>& next,
                       const In<int64_t>& forced) {
    const uint64_t n_nodes = top.shape(0), n_items = length.shape(0);
    require(up.shape(0) == n_nodes && down.shape(0) == n_nodes,
            "top, up and down differ in length");
    require(prev.shape(0) == n_items && next.shape(0) == n_items && n_items >= 1,
            "length, prev and next differ in length");
    require_within(forced, 1, (int64_t)n_nodes, "a forced node");
    for (size_t k = 0; k < forced.shape(0); ++k)
        require(top.data()[forced.data()[k]] > 0, "a forced node is a spacer");
    return {top.data(), up.data(), down.data(), length.data(), prev.data(), next.data(),
            n_nodes, n_items};
}

bool links_take(In<int64_t> top, Out<int64_t> up, Out<int64_t> down, Out<int64_t> length,
                Out<int64_t> prev, Out<int64_t> next, In<int64_t> forced) {
    const LinkArrays a = link_arrays(top, up, down, length, prev, next, forced);
    return cpcore_links_take(a.top, a.up, a.down, a.length, a.prev, a.next, forced.data(),
                             forced.shape(0)) != 0;
}

int64_t links_most_constrained(In<int64_t> length, In<int64_t> next) {
    require(next.shape(0) == length.shape(0) && length.shape(0) >= 1,
            "length and next differ in length");
    return cpcore_links_most_constrained(length.data(), next.data());
}

Counted links_count(In<int64_t> top, Out<int64_t> up, Out<int64_t> down, Out<int64_t> length,
                    Out<int64_t> prev, Out<int64_t> next, In<int64_t> forced,
                    Out<int64_t> stop) {
    const LinkArrays a = link_arrays(top, up, down, length, prev, next, forced);
    const uint64_t n_levels = a.n_items + 1;
    std::vector<int64_t> levels(2 * n_levels);
    uint64_t nodes = 0;
    const int64_t* flag = cpbind::stop_flag(stop);
    const int64_t found = cpcore_links_count(a.top, a.up, a.down, a.length, a.prev, a.next,
                                             forced.data(), forced.shape(0), flag,
                                             levels.data(), n_levels, &nodes);
    require(found != -2, "the search went deeper than the links have items");
    return {found, (int64_t)nodes};
}

// The backtracker's layout for one order is sound: its runs and indices in range, and each
// option listed under a cell covers it (so each option put down fills a cell, and the
// search's stack of one entry a cell is enough). Checked once, when the layout is made.
void check_backtracker(uint64_t n_cells, uint64_t n_counters, In<int64_t> start,
                       In<int64_t> listed, In<int64_t> cells, In<int64_t> cells_start,
                       In<int64_t> counters, In<int64_t> counters_start) {
    const uint64_t n_options = cells_start.shape(0) - (cells_start.shape(0) > 0 ? 1 : 0);
    require(start.shape(0) == n_cells + 1, "start must have one entry a cell and one more");
    require(counters_start.shape(0) == cells_start.shape(0),
            "cells_start and counters_start differ in length");
    require_runs(start, listed.shape(0), "start");
    require_runs(cells_start, cells.shape(0), "cells_start");
    require_runs(counters_start, counters.shape(0), "counters_start");
    require_within(listed, 0, (int64_t)n_options, "a listed option");
    require_within(cells, 0, (int64_t)n_cells, "a cell");
    require_within(counters, 0, (int64_t)n_counters, "a counter");
    for (uint64_t c = 0; c < n_cells; ++c) {
        for (int64_t pos = start.data()[c]; pos < start.data()[c + 1]; ++pos) {
            const int64_t o = listed.data()[pos];
            bool covers = false;
            for (int64_t k = cells_start.data()[o]; k < cells_start.data()[o + 1]; ++k)
                covers = covers || cells.data()[k] == (int64_t)c;
            require(covers, "an option is listed under a cell it does not cover");
        }
    }
}

int64_t first_solution_nodes(uint64_t n_cells, In<uint8_t> filled0, In<int64_t> used0,
                             In<int64_t> capacity, In<int64_t> low, In<int64_t> start,
                             In<int64_t> listed, In<int64_t> cells, In<int64_t> cells_start,
                             In<int64_t> counters, In<int64_t> counters_start,
                             int64_t max_nodes, Out<int64_t> stop) {
    const uint64_t n_counters = capacity.shape(0);
    require(filled0.shape(0) == n_cells, "filled must have one entry a cell");
    require(used0.shape(0) == n_counters && low.shape(0) == n_counters,
            "used, capacity and low differ in length");
    require(start.shape(0) == n_cells + 1, "start must have one entry a cell and one more");
    require(counters_start.shape(0) == cells_start.shape(0),
            "cells_start and counters_start differ in length");
    std::vector<uint8_t> filled(filled0.data(), filled0.data() + n_cells);
    std::vector<int64_t> used(used0.data(), used0.data() + n_counters);
    std::vector<int64_t> stack(3 * (n_cells + 1));
    return cpcore_first_solution_nodes(n_cells, filled.data(), used.data(), n_counters,
                                       capacity.data(), low.data(), start.data(),
                                       listed.data(), cells.data(), cells_start.data(),
                                       counters.data(), counters_start.data(), max_nodes,
                                       stack.data(), cpbind::stop_flag(stop));
}

}  // namespace

namespace cpbind {

void bind_cover(nb::module_& m) {
    // The searches' statuses (entry.h), one set for every search.
    m.attr("STOPPED") = CPCORE_STOPPED;
    m.attr("TOO_DEEP") = CPCORE_TOO_DEEP;
    m.attr("CAPPED") = CPCORE_CAPPED;
    m.attr("NO_SOLUTION") = CPCORE_NO_SOLUTION;
    using release = nb::call_guard<nb::gil_scoped_release>;
    m.def("bit_cover_count", &bit_cover_count, nb::arg("opt_low"), nb::arg("opt_high"),
          nb::arg("need_low"), nb::arg("need_high"), nb::arg("depth"), nb::arg("forced"),
          nb::arg("stop").noconvert(), release(),
          "Solutions with the forced options of a cover of at most 128 items, and nodes.");
    m.def("links_take", &links_take, nb::arg("top"), nb::arg("up").noconvert(),
          nb::arg("down").noconvert(), nb::arg("length").noconvert(),
          nb::arg("prev").noconvert(), nb::arg("next").noconvert(), nb::arg("forced"),
          release(), "Take the options whose first nodes are forced (False: they clash).");
    m.def("links_most_constrained", &links_most_constrained, nb::arg("length"),
          nb::arg("next"), release(), "The item to cover with the fewest options left.");
    m.def("links_count", &links_count, nb::arg("top"), nb::arg("up").noconvert(),
          nb::arg("down").noconvert(), nb::arg("length").noconvert(),
          nb::arg("prev").noconvert(), nb::arg("next").noconvert(), nb::arg("forced"),
          nb::arg("stop").noconvert(), release(),
          "Solutions with the forced options by dancing links, and nodes.");
    m.def("first_solution_nodes", &first_solution_nodes, nb::arg("n_cells"),
          nb::arg("filled"), nb::arg("used"), nb::arg("capacity"), nb::arg("low"),
          nb::arg("start"), nb::arg("listed"), nb::arg("cells"), nb::arg("cells_start"),
          nb::arg("counters"), nb::arg("counters_start"), nb::arg("max_nodes"),
          nb::arg("stop").noconvert(), release(),
          "Nodes a first-empty-cell backtracker takes to its first solution (CAPPED, "
          "NO_SOLUTION, STOPPED), on a layout check_backtracker accepted.");
    m.def("check_backtracker", &check_backtracker, nb::arg("n_cells"), nb::arg("n_counters"),
          nb::arg("start"), nb::arg("listed"), nb::arg("cells"), nb::arg("cells_start"),
          nb::arg("counters"), nb::arg("counters_start"),
          "Refuse a backtracker's layout whose runs or indices are out of range.");
}

}  // namespace cpbind
