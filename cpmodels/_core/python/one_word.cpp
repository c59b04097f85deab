// The one-word count and tally, and the reach search: the layouts (namedtuples of numpy
// arrays, see cpmodels/backends/engine/kernels/one_word.py and reach.py) unpacked into the core's
// structs with the GIL held, then searched with it released.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "checked_arrays.hpp"
#include "cpcore/entry.h"

namespace nb = nanobind;

namespace cpbind {
namespace {

uint64_t word_of(nb::handle obj, const char* name) {
    return nb::cast<uint64_t>(nb::int_(obj.attr(name)));
}

int64_t int_of(nb::handle obj, const char* name) {
    return nb::cast<int64_t>(nb::int_(obj.attr(name)));
}

// The arrays a search reads of a layout, kept alive while it runs.
struct Kept {
    std::vector<nb::object> arrays;
    template <class A>
    A keep(A a) {
        arrays.push_back(nb::cast(a));
        return a;
    }
};

// The words of a layout's edges and its optional units (one_word.py's and reach.py's
// names), read in that order into ``c``.
template <class C>
void read_edges(nb::handle L, C& c) {
    c.optional = word_of(L, "optional");
    c.covered = word_of(L, "covered");
    c.inner = word_of(L, "inner");
    c.first = word_of(L, "first");
    c.last = word_of(L, "last");
}

// A layout's count of units (``count``: 1 to 64, or a ValueError saying ``refused``) into
// ``n``, and what every one-word layout (C) holds: its runs (``start``, 64 per unit and one
// more, ending within ``masks``), the units with options at each anchor, the options' cells
// and their number, kept. Returns the masks.
template <class C>
Array<const uint64_t> read_runs(nb::handle L, const char* count, const char* refused,
                                uint64_t& n, Kept& kept, C& c) {
    n = word_of(L, count);
    if (n == 0 || n > 64) throw nb::value_error(refused);
    auto start = kept.keep(field<const uint64_t>(L, "start", 64 * n + 1));
    auto masks = kept.keep(field<const uint64_t>(L, "masks"));
    if (start.data()[64 * n] > masks.size())
        throw nb::value_error("the layout's runs end past its masks");
    auto opt_cells = kept.keep(field<const uint64_t>(L, "opt_cells"));
    c.start = start.data();
    c.masks = masks.data();
    c.avail = kept.keep(field<const uint64_t>(L, "avail", 64)).data();
    c.opt_cells = opt_cells.data();
    c.n_options = opt_cells.size();
    return masks;
}

cpcore_one_word one_word_of(nb::handle L, Kept& kept) {
    cpcore_one_word c{};
    auto masks = read_runs(L, "n_pieces", "the layout has 1 to 64 pieces", c.n_pieces, kept, c);
    c.opts = kept.keep(field<const int64_t>(L, "opts", masks.size())).data();
    c.opt_piece = kept.keep(field<const uint64_t>(L, "opt_piece", c.n_options)).data();
    auto fillable = kept.keep(field<const bool>(L, "fillable", 1));
    c.all_pieces = word_of(L, "all_pieces");
    read_edges(L, c);
    c.slack = word_of(L, "slack");
    c.fillable = reinterpret_cast<const uint8_t*>(fillable.data());
    c.n_fillable = fillable.size();
    c.region_limit = int_of(L, "region_limit");
    if (c.region_limit < 0 || (uint64_t)c.region_limit > c.n_fillable)
        throw nb::value_error("the layout's region limit is past its region sizes");
    c.isolated_dead = nb::cast<bool>(nb::bool_(L.attr("isolated_dead"))) ? 1 : 0;
    c.slack_cells = kept.keep(field<const uint64_t>(L, "slack_cells", 64)).data();
    return c;
}

// The table arrays (keys [slots, width], arena, stats) and first live slots of a memo's
// ``kernel``.
cpcore_one_word_table table_of(nb::handle table, size_t width, Kept& kept) {
    auto keys = kept.keep(field<uint64_t>(table, "keys"));
    auto arena = kept.keep(field<int64_t>(table, "arena"));
    auto stats = kept.keep(field<int64_t>(table, "stats", 7));
    const uint64_t slots = keys.ndim() == 2 ? keys.shape(0) : 0;
    // At least 16 rows (memo.py's least): a table emptied when three quarters full keeps a
    // free slot for every probe only from 4 slots on.
    if (keys.ndim() != 2 || keys.shape(1) != width || slots < 16 || (slots & (slots - 1)))
        throw nb::value_error("the table's keys are not a power of two rows (at least 16) of "
                              "the width this search keys by");
    const uint64_t first_live = nb::cast<uint64_t>(table.attr("first_live"));
    return cpcore_one_word_table{keys.data(), slots,        arena.data(),
                                 arena.size(), stats.data(), first_live};
}

// The rows of forced options (``ndim``: 2, or 1 for a single row): every id -1 (none) or
// an option of the layout.
void check_prefixes(const Array<const int64_t>& prefixes, uint64_t n_options,
                    size_t ndim = 2) {
    if (prefixes.ndim() != ndim) throw nb::value_error("the forced options have the wrong shape");
    for (size_t i = 0; i < prefixes.size(); ++i) {
        const int64_t o = prefixes.data()[i];
        if (o < -1 || o >= (int64_t)n_options)
            throw nb::value_error("a prefix names an option the layout does not have");
    }
}

// What the one-word count and tally read: the layout, the table (rows of three words; a
// tally of few units uses two, one_word.cpp's NarrowRows) and
// the rows of forced options, checked against the layout; the arrays kept alive.
struct OneWordCall {
    Kept kept;
    const cpcore_one_word L;
    cpcore_one_word_table t;

    OneWordCall(nb::handle layout, nb::handle table, const Array<const int64_t>& prefixes)
        : L(one_word_of(layout, kept)), t(table_of(table, 3, kept)) {
        check_prefixes(prefixes, L.n_options);
    }
};

void count_one_word(Array<const int64_t> prefixes, nb::handle layout, nb::handle table,
                    bool use_memo, Array<int64_t> out, Array<const int64_t> stop) {
    OneWordCall call(layout, table, prefixes);
    const cpcore_one_word& L = call.L;
    if (out.size() < prefixes.shape(0)) throw nb::value_error("out has fewer rows than prefixes");
    const int64_t* flag = stop_flag(stop);
    nb::gil_scoped_release released;
    cpcore_count_one_word(&L, prefixes.data(), prefixes.shape(0), prefixes.shape(1), &call.t,
                          use_memo, out.data(), flag);
}

// The options of the one-word count's next branching step below ``task`` (see
// cpcore_split_one_word), or None when the cut is the general layout's.
nb::object split_one_word(Array<const int64_t> task, nb::handle layout) {
    Kept kept;
    const cpcore_one_word L = one_word_of(layout, kept);
    check_prefixes(task, L.n_options, 1);
    std::vector<int64_t> out(L.n_options + 1);
    const int64_t n = cpcore_split_one_word(&L, task.data(), task.shape(0), out.data());
    if (n < 0) return nb::none();
    nb::list parts;
    for (int64_t k = 0; k < n; ++k) parts.append(out[(size_t)k]);
    return std::move(parts);
}

void tally_one_word(Array<const int64_t> prefixes, nb::handle layout, nb::handle tallies,
                    nb::handle table, bool use_memo, Array<int64_t> out,
                    Array<int64_t> out_mask, Array<const int64_t> stop) {
    OneWordCall call(layout, table, prefixes);
    const cpcore_one_word& L = call.L;
    Kept& kept = call.kept;
    cpcore_one_tallies T{};
    T.n_tally = word_of(tallies, "n_tally");
    if (T.n_tally > 16) throw nb::value_error("at most 16 tally items");
    auto length = kept.keep(field<const int64_t>(tallies, "length", (size_t)1 << T.n_tally));
    auto stride = kept.keep(field<const int64_t>(tallies, "stride"));
    T.bit = kept.keep(field<const uint64_t>(tallies, "bit", T.n_tally)).data();
    T.opt_tally = kept.keep(field<const int64_t>(tallies, "opt_tally", L.n_options)).data();
    T.opt_index = kept.keep(field<const int64_t>(tallies, "opt_index", L.n_options)).data();
    T.length = length.data();
    T.stride = stride.data();
    T.stride_cols = stride.ndim() == 2 ? stride.shape(1) : 0;
    if (stride.ndim() != 2 || stride.shape(0) < ((size_t)1 << T.n_tally) ||
        T.stride_cols < (T.n_tally > 0 ? T.n_tally : 1))
        throw nb::value_error("the tallies' strides do not match their items");
    T.map_start = kept.keep(field<const int64_t>(tallies, "map_start")).data();
    T.map_flat = kept.keep(field<const int64_t>(tallies, "map_flat")).data();
    for (uint64_t o = 0; o < L.n_options; ++o)
        if (T.opt_tally[o] >= (int64_t)(T.n_tally > 0 ? T.n_tally : 0) || T.opt_tally[o] < -1)
            throw nb::value_error("an option's tally item is not one of the tallies'");
    const size_t rows = prefixes.shape(0);
    const uint64_t cols = out.ndim() == 2 ? out.shape(1) : 0;
    if (out.ndim() != 2 || out.shape(0) < rows || out_mask.size() < rows)
        throw nb::value_error("out or out_mask has fewer rows than prefixes");
    for (size_t m = 0; m < ((size_t)1 << T.n_tally); ++m)
        if (length.data()[m] < 1 || (uint64_t)length.data()[m] > cols)
            throw nb::value_error("out's rows are shorter than the tallies' vectors");
    std::vector<int64_t> scratch((L.n_pieces + 1) * cols, 0);
    const int64_t* flag = stop_flag(stop);
    int64_t status;
    {
        nb::gil_scoped_release released;
        status = cpcore_tally_one_word(&L, &T, prefixes.data(), rows, prefixes.shape(1),
                                       &call.t, use_memo, out.data(), cols, out_mask.data(),
                                       scratch.data(), flag);
    }
    if (status == CPCORE_LEFT_OUT_TALLY)
        throw nb::value_error("a tally item is a piece that may be left out: the one-word "
                              "tally cannot split the counts by it");
}


// A reach layout (reach.py's ReachLayout) read into its struct and checked, its region
// sizes left for the caller (fill and limit).
cpcore_reach_layout reach_layout_of(nb::handle layout, Kept& kept) {
    cpcore_reach_layout c{};
    read_runs(layout, "n_units", "the layout has 1 to 64 units", c.n_units, kept, c);
    auto groups = kept.keep(field<const uint64_t>(layout, "group_cells", 1));
    c.opt_unit = kept.keep(field<const uint64_t>(layout, "opt_unit", c.n_options)).data();
    c.slack_units = word_of(layout, "slack_units");
    read_edges(layout, c);
    c.group_cells = groups.data();
    c.n_groups = groups.size();
    if (c.n_groups > 3) throw nb::value_error("the reach search takes at most three groups");
    c.group_unit = kept.keep(field<const uint64_t>(layout, "group_unit", c.n_groups)).data();
    c.bit_group = int_of(layout, "bit_group");
    c.a_group = int_of(layout, "a_group");
    c.b_group = int_of(layout, "b_group");
    for (int64_t g : {c.bit_group, c.a_group, c.b_group})
        if (g < -1 || g >= (int64_t)c.n_groups) throw nb::value_error("no such label group");
    if (c.bit_group < 0) throw nb::value_error("the layout has no bit group");
    c.a_label = kept.keep(field<const uint64_t>(layout, "a_label", 64)).data();
    c.b_label = kept.keep(field<const uint64_t>(layout, "b_label", 64)).data();
    c.a_stride = word_of(layout, "a_stride");
    c.n_index = word_of(layout, "n_index");
    uint64_t most_a = 0, most_b = 0;
    for (size_t b = 0; b < 64; ++b) {
        most_a = std::max<uint64_t>(most_a, c.a_label[b]);
        most_b = std::max<uint64_t>(most_b, c.b_label[b]);
    }
    if (c.a_stride == 0 || most_b >= c.a_stride || (most_a + 1) * c.a_stride > c.n_index)
        throw nb::value_error("the layout's labels index past its combinations");
    return c;
}

// Wanted combinations' indices, each within the layout's.
void check_index(const Array<const int64_t>& index, uint64_t n_index) {
    for (size_t n = 0; n < index.size(); ++n)
        if (index.data()[n] < 0 || (uint64_t)index.data()[n] >= n_index)
            throw nb::value_error("a wanted combination's index is out of range");
}

void reach(Array<const int64_t> forced, Array<const int64_t> tasks,
           Array<const int64_t> wanted_start, nb::handle layout, nb::handle regions,
           nb::handle table, nb::handle settled, uint64_t mark, Array<const int64_t> index,
           Array<const uint64_t> bit, Array<int64_t> found, bool first_failure,
           Array<const int64_t> stop) {
    Kept kept;
    cpcore_reach_layout c = reach_layout_of(layout, kept);
    auto fill = kept.keep(field<const bool>(regions, "fill"));
    if (fill.ndim() != 2 || fill.shape(0) < c.n_groups + 1)
        throw nb::value_error("the region sizes have a row for each number of holes");
    c.fill = reinterpret_cast<const uint8_t*>(fill.data());
    c.fill_cols = fill.shape(1);
    c.limit = word_of(regions, "limit");
    if (c.limit > c.fill_cols) throw nb::value_error("the region limit is past the sizes");
    cpcore_one_word_table t = table_of(table, 4, kept);
    cpcore_one_word_table s = table_of(settled, 4, kept);
    check_prefixes(forced, c.n_options, 1);
    check_prefixes(tasks, c.n_options, 2);
    const size_t rows = tasks.shape(0);
    if (wanted_start.size() < rows + 1) throw nb::value_error("wanted_start has too few rows");
    const int64_t* ws = wanted_start.data();
    for (size_t r = 0; r < rows; ++r)
        if (ws[r] < 0 || ws[r] > ws[r + 1] || (uint64_t)ws[r + 1] > index.size() ||
            index.size() != bit.size() || index.size() > found.size())
            throw nb::value_error("the wanted combinations do not match their starts");
    check_index(index, c.n_index);
    std::vector<uint64_t> need(c.n_index, 0);
    const int64_t* flag = stop_flag(stop);
    nb::gil_scoped_release released;
    cpcore_reach(&c, forced.data(), forced.size(), tasks.data(), rows, tasks.shape(1), ws, &t,
                 &s, mark, index.data(), bit.data(), found.data(), found.size(),
                 first_failure, need.data(), flag);
}

// The dates' arrays into a call's input (cpcore_design_input reads them all,
// cpcore_dates_input writes all but the holes): n_dates rows of hole_cols holes, a row of
// held holes as wide a date, each date's group and combination (index, bit). The caller
// checks the holes, and the group, index and bit against the dates.
template <class Input, class Held, class Each, class Bit>
void put_dates(Input& in, const Array<const int64_t>& holes, const Held& held, const Each& group,
               const Each& index, const Bit& bit) {
    in.n_dates = holes.shape(0);
    in.hole_cols = holes.shape(1);
    require(held.ndim() == 2 && held.shape(0) == in.n_dates && held.shape(1) == in.hole_cols,
            "the held holes are not one row a date, as wide as the holes");
    in.holes = holes.data();
    in.held = held.data();
    in.group = group.data();
    in.index = index.data();
    in.bit = bit.data();
}

// A design's sets decided on the reach layout (entry.h's cpcore_design): every array is
// checked against the layout and the others before the GIL is released.
int64_t design(nb::handle layout, Array<const bool> fills, Array<const uint64_t> limits,
               nb::handle table, nb::handle settled, Array<uint64_t> calls,
               Array<const int64_t> holes, Array<const int64_t> held, Array<const int64_t> group,
               Array<const int64_t> index, Array<const uint64_t> bit, Array<int64_t> order,
               Array<uint8_t> front, Array<int64_t> late, Array<const int64_t> forced, Array<const int64_t> shape,
               bool learning, Array<int64_t> failure, Array<int64_t> decided,
               Array<const int64_t> stop) {
    Kept kept;
    cpcore_design_input in{};
    cpcore_reach_layout c = reach_layout_of(layout, kept);
    cpcore_one_word_table t = table_of(table, 4, kept);
    cpcore_one_word_table s = table_of(settled, 4, kept);
    in.layout = &c;
    in.reached = &t;
    in.settled = &s;
    require(calls.size() == 1 && decided.size() == 1, "calls and decided hold one number each");
    in.calls = calls.data();
    check_prefixes(holes, c.n_options, 2);
    check_prefixes(held, c.n_options, 2);
    put_dates(in, holes, held, group, index, bit);
    const uint64_t n = in.n_dates;
    require(group.ndim() == 1 && group.size() == n && index.size() == n && bit.size() == n &&
                order.ndim() == 1 && order.size() == n && front.size() == n &&
                late.size() == n,
            "the dates' groups, combinations, order, front and failures are not one a date");
    check_index(index, c.n_index);
    std::vector<uint8_t> seen(n, 0);
    for (size_t d = 0; d < n; ++d) {
        const int64_t g = group.data()[d], o = order.data()[d];
        require(g >= 0 && (uint64_t)g < n, "a date's group is out of range");
        require(o >= 0 && (uint64_t)o < n && !seen[o], "the order is not every date once");
        require(front.data()[d] <= 1, "the front holds 0 or 1 a date");
        require(late.data()[d] >= 0 && late.data()[d] < (int64_t(1) << 62),
                "a date's count of failures is out of range");
        seen[o] = 1;
    }
    check_prefixes(forced, c.n_options, 2);
    in.n_sets = forced.shape(0);
    in.forced_cols = forced.shape(1);
    require(shape.ndim() == 1 && shape.size() == in.n_sets && failure.size() >= in.n_sets,
            "the sets' region sizes and failures are not one a set");
    require(fills.ndim() == 3 && fills.shape(1) == c.n_groups + 1 && limits.ndim() == 1 &&
                limits.size() == fills.shape(0),
            "the region sizes are not a row for each number of holes, a limit a shape");
    in.n_shapes = fills.shape(0);
    in.fill_cols = fills.shape(2);
    for (size_t k = 0; k < in.n_shapes; ++k)
        require(limits.data()[k] <= in.fill_cols, "a region limit is past the sizes");
    for (size_t k = 0; k < in.n_sets; ++k)
        require(shape.data()[k] >= 0 && (uint64_t)shape.data()[k] < in.n_shapes,
                "a set's region sizes are out of range");
    in.order = order.data();
    in.front = front.data();
    in.late = late.data();
    in.forced = forced.data();
    in.shape = shape.data();
    in.fills = reinterpret_cast<const uint8_t*>(fills.data());
    in.limits = limits.data();
    in.learning = learning;
    in.failure = failure.data();
    in.decided = decided.data();
    std::vector<int64_t> work(cpcore_design_work_words(n, in.hole_cols));
    std::vector<uint64_t> need(c.n_index, 0);
    in.work = work.data();
    in.need = need.data();
    in.stop = stop_flag(stop);
    nb::gil_scoped_release released;
    return cpcore_design(&in);
}

// The reach search's view of a one-word layout's label groups (entry.h's
// cpcore_reach_groups_of) into the arrays given (3, 3, 64 and 64 words); returns (suits,
// n_groups, bit_group, a_group, b_group, last_group, a_stride, n_index, n_cells, rank).
nb::tuple reach_groups(nb::handle layout, Array<uint64_t> group_cells, Array<uint64_t> group_unit,
                       Array<uint64_t> a_label, Array<uint64_t> b_label) {
    Kept kept;
    const cpcore_one_word L = one_word_of(layout, kept);
    require(group_cells.size() == 3 && group_unit.size() == 3 && a_label.size() == 64 &&
                b_label.size() == 64,
            "the groups' arrays hold 3, 3, 64 and 64 words");
    cpcore_reach_groups out{};
    out.group_cells = group_cells.data();
    out.group_unit = group_unit.data();
    out.a_label = a_label.data();
    out.b_label = b_label.data();
    cpcore_reach_groups_of(&L, &out);
    return nb::make_tuple(out.suits != 0, out.n_groups, out.bit_group, out.a_group, out.b_group,
                          out.last_group, out.a_stride, out.n_index, out.n_cells, out.rank);
}

// The region sizes a set's pieces fill with 0 .. n_groups holes (entry.h's
// cpcore_reach_fills) into ``fill`` (n_groups + 1 rows of total + 1); returns the limit.
uint64_t reach_fills(Array<const int64_t> areas, uint64_t n_groups, Array<bool> fill) {
    require(areas.ndim() == 1 && fill.ndim() == 2 && n_groups <= 3 &&
                fill.shape(0) == n_groups + 1 && fill.shape(1) >= 1,
            "fill needs a row of total + 1 sizes for 0 .. n_groups holes (at most 3)");
    for (size_t k = 0; k < areas.size(); ++k)
        require(areas.data()[k] > 0, "a piece's area must be positive");
    return cpcore_reach_fills(areas.data(), areas.size(), n_groups, fill.shape(1) - 1,
                              reinterpret_cast<uint8_t*>(fill.data()));
}

// A design's dates made for its decision (entry.h's cpcore_design_dates): the holes checked
// against the layout, the outputs against the holes; a refused date is a ValueError.
void design_dates(nb::handle layout, int64_t left_open, Array<const int64_t> holes,
                  Array<int64_t> held, Array<int64_t> group, Array<int64_t> index,
                  Array<uint64_t> bit) {
    Kept kept;
    cpcore_reach_layout c = reach_layout_of(layout, kept);
    require(left_open >= -1 && left_open < (int64_t)c.n_groups, "no such label group");
    check_prefixes(holes, c.n_options, 2);
    cpcore_dates_input in{};
    in.layout = &c;
    in.left_open = left_open;
    put_dates(in, holes, held, group, index, bit);
    const uint64_t n = in.n_dates;
    require(group.size() == n && index.size() == n && bit.size() == n,
            "the dates' groups and combinations are not one a date");
    std::vector<int64_t> work(cpcore_design_dates_work_words(n));
    in.work = work.data();
    const int64_t status = cpcore_design_dates(&in);
    if (status == CPCORE_DATES_NOT_A_HOLE)
        throw nb::value_error("a date names an option that is no label's hole");
    if (status == CPCORE_DATES_GROUP_HOLES)
        throw nb::value_error("a date does not leave one hole in each label group");
}

// ``design --best K``'s ranking state (entry.h's cpcore_best_state) over the arrays given,
// checked against one another.
cpcore_best_state best_state(Array<const int64_t> rank, Array<uint8_t> open,
                             Array<uint8_t> known, Array<int64_t> bound,
                             Array<int64_t> leaders, Array<int64_t> dates) {
    const uint64_t n = rank.size();
    require(open.size() == n && bound.size() == n, "the sets' arrays are not one a set");
    require(known.ndim() == 2 && known.shape(0) == n,
            "the dates counted alone are not a row a set");
    require(leaders.ndim() == 2 && leaders.shape(1) == 4 && leaders.shape(0) >= 1 &&
                dates.size() == leaders.shape(0),
            "the leaders are rows of four, as many as the dates");
    cpcore_best_state s{};
    s.n_sets = n;
    s.n_dates = known.shape(1);
    s.best = leaders.shape(0);
    s.rank = rank.data();
    s.open = open.data();
    s.known = known.data();
    s.bound = bound.data();
    s.leaders = leaders.data();
    s.dates = dates.data();
    return s;
}

void best_said(int64_t status) {
    if (status == CPCORE_BEST_INPUT)
        throw nb::value_error("a set, a date or a count is out of range");
}

}  // namespace

void bind_one_word(nb::module_& m) {
    m.def(
        "design_best_step",
        [](Array<const int64_t> rank, Array<uint8_t> open, Array<uint8_t> known,
           Array<int64_t> bound, Array<int64_t> leaders, Array<int64_t> dates) {
            cpcore_best_state s = best_state(rank, open, known, bound, leaders, dates);
            const int64_t status = cpcore_design_best_step(&s);
            best_said(status);
            return nb::make_tuple(status, s.set, s.floor, s.n_out);
        },
        nb::arg("rank"), nb::arg("open").noconvert(), nb::arg("known").noconvert(),
        nb::arg("bound").noconvert(), nb::arg("leaders").noconvert(),
        nb::arg("dates").noconvert(),
        "The next step of design --best's ranking: (status, set, floor, dates written).");
    m.def(
        "design_best_known",
        [](Array<const int64_t> rank, Array<uint8_t> open, Array<uint8_t> known,
           Array<int64_t> bound, Array<int64_t> leaders, Array<int64_t> dates, int64_t set,
           int64_t date, int64_t count) {
            cpcore_best_state s = best_state(rank, open, known, bound, leaders, dates);
            best_said(cpcore_design_best_known(&s, set, date, count));
        },
        nb::arg("rank"), nb::arg("open").noconvert(), nb::arg("known").noconvert(),
        nb::arg("bound").noconvert(), nb::arg("leaders").noconvert(),
        nb::arg("dates").noconvert(), nb::arg("set"), nb::arg("date"), nb::arg("count"),
        "A set's count alone on a date, for design --best's ranking.");
    m.def(
        "design_best_counted",
        [](Array<const int64_t> rank, Array<uint8_t> open, Array<uint8_t> known,
           Array<int64_t> bound, Array<int64_t> leaders, Array<int64_t> dates, int64_t set,
           int64_t fewest, int64_t total, int64_t date) {
            cpcore_best_state s = best_state(rank, open, known, bound, leaders, dates);
            best_said(cpcore_design_best_counted(&s, set, fewest, total, date));
        },
        nb::arg("rank"), nb::arg("open").noconvert(), nb::arg("known").noconvert(),
        nb::arg("bound").noconvert(), nb::arg("leaders").noconvert(),
        nb::arg("dates").noconvert(), nb::arg("set"), nb::arg("fewest"), nb::arg("total"),
        nb::arg("date"), "A set counted in full, for design --best's ranking.");
    m.def("design_learning_sets", &cpcore_design_learning_sets, nb::arg("asked"),
          "How many of a design's first sets its order of dates is learnt from.");
    m.def(
        "design_summary",
        [](Array<const int64_t> counts) {
            int64_t summary[4] = {0, 0, 0, 0};
            require(counts.ndim() == 1, "the counts are one a date");
            best_said(cpcore_design_summary(counts.data(), counts.size(), summary));
            return nb::make_tuple(summary[0], summary[1], summary[2], summary[3]);
        },
        nb::arg("counts"),
        "A working set's (date of the fewest, fewest, most, total) from its dates' counts.");
    m.def("count_one_word", &count_one_word, nb::arg("prefixes"), nb::arg("layout"),
          nb::arg("table"), nb::arg("use_memo"), nb::arg("out"), nb::arg("stop").noconvert(),
          "The one-word count of each row of forced options (see one_word.py).");
    m.def("split_one_word", &split_one_word, nb::arg("task"), nb::arg("layout"),
          "The one-word count's next branching step below a task (None: the general "
          "layout's).");
    m.def("tally_one_word", &tally_one_word, nb::arg("prefixes"), nb::arg("layout"),
          nb::arg("tallies"), nb::arg("table"), nb::arg("use_memo"), nb::arg("out"),
          nb::arg("out_mask"), nb::arg("stop").noconvert(),
          "The one-word tally of each row of forced options.");
    m.def("reach", &reach, nb::arg("forced"), nb::arg("tasks"), nb::arg("wanted_start"),
          nb::arg("layout"), nb::arg("regions"), nb::arg("table"), nb::arg("settled"),
          nb::arg("mark"), nb::arg("index"), nb::arg("bit"), nb::arg("found"),
          nb::arg("first_failure"), nb::arg("stop").noconvert(),
          "One reach search per task (see reach.py).");
    m.def("design", &design, nb::arg("layout"), nb::arg("fills"), nb::arg("limits"),
          nb::arg("table"), nb::arg("settled"), nb::arg("calls").noconvert(), nb::arg("holes"),
          nb::arg("held"), nb::arg("group"), nb::arg("index"), nb::arg("bit"),
          nb::arg("order").noconvert(), nb::arg("front").noconvert(),
          nb::arg("late").noconvert(), nb::arg("forced"),
          nb::arg("shape"), nb::arg("learning"), nb::arg("failure").noconvert(),
          nb::arg("decided").noconvert(), nb::arg("stop").noconvert(),
          "A design's sets decided date by date on the reach search (see design/search.py).");
    m.def("reach_groups", &reach_groups, nb::arg("layout"), nb::arg("group_cells").noconvert(),
          nb::arg("group_unit").noconvert(), nb::arg("a_label").noconvert(),
          nb::arg("b_label").noconvert(),
          "The reach search's view of a one-word layout's label groups (see layouts/reach.py).");
    m.def("reach_fills", &reach_fills, nb::arg("areas"), nb::arg("n_groups"),
          nb::arg("fill").noconvert(),
          "The region sizes pieces fill with 0 .. n_groups holes (see layouts/reach.py).");
    m.def("design_dates", &design_dates, nb::arg("layout"), nb::arg("left_open"),
          nb::arg("holes"), nb::arg("held").noconvert(), nb::arg("group").noconvert(),
          nb::arg("index").noconvert(), nb::arg("bit").noconvert(),
          "A design's dates as its decision reads them (see layouts/reach.py).");
}

}  // namespace cpbind
