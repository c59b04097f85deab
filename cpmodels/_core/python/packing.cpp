// The packing searches' bindings: each reads the arrays of the named tuples the engine's
// Python side hands over (a Layout or WordLayout, Tallies, a memo Table), checks their
// types and shapes, makes the working memory, and calls the entry point without the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "bindings.hpp"
#include "cpcore/entry.h"

namespace nb = nanobind;

namespace {

template <class T>
using Array = nb::ndarray<T, nb::c_contig, nb::device::cpu>;

// The arrays and numbers read from the named tuples: the arrays are kept referenced here
// while the search runs.
struct Reader {
    std::vector<nb::object> held;

    template <class T>
    Array<T> array(nb::handle owner, const char* name, size_t ndim = 1) {
        nb::object value = owner.attr(name);
        Array<T> out;
        if (!nb::try_cast(value, out, false) || out.ndim() != ndim)
            throw nb::type_error((std::string(name) + ": expected a C-contiguous " +
                                  std::to_string(ndim) + "-d array of the right type")
                                     .c_str());
        held.push_back(value);
        return out;
    }
    template <class T>
    const T* data(nb::handle owner, const char* name, size_t min_size = 0) {
        Array<const T> a = array<const T>(owner, name);
        if (a.shape(0) < min_size)
            throw nb::value_error((std::string(name) + ": too short").c_str());
        return a.data();
    }
    static int64_t number(nb::handle owner, const char* name) {
        return nb::cast<int64_t>(nb::int_(owner.attr(name)));
    }
};

void check(bool ok, const char* message) {
    if (!ok) throw nb::value_error(message);
}

// What every packing search reads of the cover (the fields Layout and WordLayout share).
cpcore_packing_cover read_cover(Reader& r, nb::handle lay, const char* low, const char* high,
                                size_t n_options) {
    cpcore_packing_cover c{};
    c.n_branch = (uint64_t)Reader::number(lay, "n_branch");
    c.opt_counter = r.data<int64_t>(lay, "opt_counter", n_options);
    c.anchor_start = r.data<int64_t>(lay, "anchor_start", c.n_branch + 1);
    Array<const int64_t> flat = r.array<const int64_t>(lay, "anchor_opts");
    c.anchor_opts = flat.data();
    c.group_end = r.data<int64_t>(lay, "group_end", flat.shape(0));
    check((uint64_t)c.anchor_start[c.n_branch] <= flat.shape(0), "anchor_start: out of range");
    Array<const int64_t> lows = r.array<const int64_t>(lay, low);
    c.n_counters = lows.shape(0);
    c.counter_low = lows.data();
    c.counter_high = r.data<int64_t>(lay, high, c.n_counters);
    c.radix = r.data<uint64_t>(lay, "radix", c.n_counters);
    c.memo_ok = nb::cast<bool>(lay.attr("memo_ok")) ? 1 : 0;
    c.opt_nb_start = r.data<int64_t>(lay, "opt_nb_start", n_options + 1);
    c.opt_nb = r.data<int64_t>(lay, "opt_nb");
    Array<const bool> fillable = r.array<const bool>(lay, "fillable");
    c.fillable = reinterpret_cast<const uint8_t*>(fillable.data());
    c.region_limit = Reader::number(lay, "region_limit");
    check(c.region_limit >= 0 && (size_t)c.region_limit <= fillable.shape(0),
          "region_limit: beyond the fillable sizes");
    return c;
}

// The two-word state (words.py's WordLayout): n_options from its rows of opt_a, then its
// arrays beside the cover's; its table keeps each value in the key row, after the code.
Array<const uint64_t> option_rows(Reader& r, nb::handle W, const cpcore_two_words*) {
    return r.array<const uint64_t>(W, "opt_a");
}

void read_words(Reader& r, nb::handle W, const cpcore_packing_cover& c,
                const Array<const uint64_t>& opt_a, cpcore_two_words& w) {
    const size_t n_options = opt_a.shape(0);
    w.opt_a = opt_a.data();
    w.opt_b = r.data<uint64_t>(W, "opt_b", n_options);
    const size_t n_flat = (size_t)c.anchor_start[c.n_branch];
    w.k_a = r.data<uint64_t>(W, "k_a", n_flat);
    w.k_b = r.data<uint64_t>(W, "k_b", n_flat);
    w.k_tag_a = r.data<uint64_t>(W, "k_tag_a", n_flat);
    w.k_tag_b = r.data<uint64_t>(W, "k_tag_b", n_flat);
    w.k_counter = r.data<int64_t>(W, "k_counter", n_flat);
    w.nb_a = r.data<uint64_t>(W, "nb_a", c.n_branch);
    w.nb_b = r.data<uint64_t>(W, "nb_b", c.n_branch);
    w.branch_a = nb::cast<uint64_t>(nb::int_(W.attr("branch_a")));
    w.branch_b = nb::cast<uint64_t>(nb::int_(W.attr("branch_b")));
    w.memo_below = Reader::number(W, "memo_below");
    const int64_t n_words = Reader::number(W, "n_words");
    check(n_words == 1 || n_words == 2, "n_words: the word kernel holds one or two words");
    check(c.n_branch <= 64 * (uint64_t)n_words, "n_branch: more bits than the words");
    w.n_words = (unsigned)n_words;
}

// The N-word state (layouts/cover.py's Layout): n_options from the rows of opt_mask, then
// its arrays beside the cover's; its table keeps the values apart.
Array<const uint64_t> option_rows(Reader& r, nb::handle lay, const cpcore_n_words*) {
    return r.array<const uint64_t>(lay, "opt_mask", 2);
}

void read_words(Reader& r, nb::handle lay, const cpcore_packing_cover& c,
                const Array<const uint64_t>& mask, cpcore_n_words& w) {
    const size_t n_options = mask.shape(0);
    w.opt_mask = mask.data();
    w.n_words = mask.shape(1);
    check(w.n_words >= 1 && c.n_branch <= 64 * w.n_words,
          "opt_mask: fewer words than the branching items");
    w.tag_word = r.data<int64_t>(lay, "opt_tag_word", n_options);
    w.tag_bit = r.data<uint64_t>(lay, "opt_tag_bit", n_options);
    Array<const int64_t> cell_nb = r.array<const int64_t>(lay, "cell_nb", 2);
    check(cell_nb.shape(0) >= c.n_branch, "cell_nb: fewer rows than the branching items");
    w.cell_nb = cell_nb.data();
    w.degree = cell_nb.shape(1);
}

// A packing search's view of a layout: the cover and the state's words (cpcore_two_words
// or cpcore_n_words), read from the layout's named tuple.
template <class Words>
struct View {
    static const bool inline_values = std::is_same<Words, cpcore_two_words>::value;
    cpcore_packing_cover cover;
    Words words;
    size_t n_options;

    uint64_t key_words() const { return words.n_words; }
    uint64_t state_words() const { return inline_values ? 2 : words.n_words; }

    static View read(Reader& r, nb::handle lay) {
        View v{};
        Array<const uint64_t> rows = option_rows(r, lay, &v.words);
        v.n_options = rows.shape(0);
        v.cover = read_cover(r, lay, "counter_low", "counter_high", v.n_options);
        read_words(r, lay, v.cover, rows, v.words);
        return v;
    }
};

using TwoWordsView = View<cpcore_two_words>;
using NWordsView = View<cpcore_n_words>;

cpcore_tallies read_tallies(Reader& r, nb::handle tal, size_t n_options) {
    cpcore_tallies t{};
    t.n_tally = Reader::number(tal, "n_tally");
    check(t.n_tally >= 0 && t.n_tally <= 16, "n_tally: at most 16 tally items");
    const size_t cols = t.n_tally > 1 ? (size_t)t.n_tally : 1;
    t.bit = r.data<int64_t>(tal, "bit", cols);
    t.last_anchor = r.data<int64_t>(tal, "last_anchor", cols);
    t.opt_tally = r.data<int64_t>(tal, "opt_tally", n_options);
    t.opt_index = r.data<int64_t>(tal, "opt_index", n_options);
    t.length = r.data<int64_t>(tal, "length", (size_t)1 << t.n_tally);
    Array<const int64_t> stride = r.array<const int64_t>(tal, "stride", 2);
    check(stride.shape(0) >= ((size_t)1 << t.n_tally) && stride.shape(1) == cols,
          "stride: not [2**n_tally, max(n_tally, 1)]");
    t.stride = stride.data();
    t.map_start = r.data<int64_t>(tal, "map_start", ((size_t)1 << t.n_tally) * cols + 1);
    t.map_flat = r.data<int64_t>(tal, "map_flat");
    return t;
}

// A memo table: with ``inline_values``, each slot's value is the key row's column after
// the code (the two-word state's table), else the values array.
cpcore_table read_table(Reader& r, nb::handle table, uint64_t n_words, bool inline_values) {
    cpcore_table t{};
    Array<uint64_t> keys = r.array<uint64_t>(table, "keys", 2);
    Array<int64_t> values = r.array<int64_t>(table, "values");
    Array<int64_t> arena = r.array<int64_t>(table, "arena");
    Array<int64_t> stats = r.array<int64_t>(table, "stats");
    t.n_slots = keys.shape(0);
    // At least 16 (memo.py's and engine.js's least): a table emptied when three quarters
    // full keeps a free slot for every probe only from 4 slots on.
    check(t.n_slots >= 16 && (t.n_slots & (t.n_slots - 1)) == 0,
          "keys: the slots must be a power of two, at least 16");
    t.key_stride = keys.shape(1);
    check(t.key_stride >= n_words + (inline_values ? 2 : 1), "keys: rows too narrow");
    check(stats.shape(0) >= 7, "stats: too short");
    t.keys = keys.data();
    if (inline_values) {
        t.values = reinterpret_cast<int64_t*>(keys.data() + n_words + 1);
        t.value_stride = t.key_stride;
    } else {
        check(values.shape(0) == t.n_slots, "values: not one per slot");
        t.values = values.data();
        t.value_stride = 1;
    }
    t.arena = arena.data();
    t.n_arena = arena.shape(0);
    t.stats = stats.data();
    return t;
}

// The working memory of a search on a cover of n_branch items and n_words words.
struct Buffers {
    std::vector<int64_t> acc, pos, k, mask, chosen, counters, fill_stack;
    std::vector<uint64_t> code, filled, scratch;
    cpcore_search_buffers view{};

    Buffers(uint64_t n_branch, uint64_t n_words, uint64_t n_counters, uint64_t acc_width)
        : acc((n_branch + 1) * acc_width), pos(n_branch + 1), k(n_branch + 1),
          mask(n_branch + 1), chosen(n_branch + 1), counters(n_counters + 1),
          fill_stack(n_branch + 1), code(n_branch + 1), filled(n_words), scratch(2 * n_words) {
        view = cpcore_search_buffers{acc.data(),     acc_width,       pos.data(),
                                     k.data(),       code.data(),     mask.data(),
                                     chosen.data(),  counters.data(), filled.data(),
                                     scratch.data(), fill_stack.data()};
    }
};

struct Prefixes {
    const int64_t* data;
    uint64_t rows, width;
};

Prefixes read_prefixes(const Array<const int64_t>& prefixes, size_t n_options) {
    check(prefixes.ndim() == 2, "prefixes: expected a 2-d array");
    Prefixes p{prefixes.data(), prefixes.shape(0), prefixes.shape(1)};
    for (uint64_t i = 0; i < p.rows * p.width; ++i)
        check(p.data[i] < (int64_t)n_options, "prefixes: an option id out of range");
    return p;
}

// Tally each prefix (see cpcore_tally_prefixes_*): the layout read by View::read.
template <class View, class Entry>
void tally(Entry entry, const Array<const int64_t>& prefixes, nb::handle lay, nb::handle tal,
           nb::handle table, const Array<int64_t>& out, const Array<int64_t>& out_mask,
           const Array<const int64_t>& stop) {
    Reader r;
    View v = View::read(r, lay);
    cpcore_tallies t = read_tallies(r, tal, v.n_options);
    Prefixes p = read_prefixes(prefixes, v.n_options);
    const uint64_t width = (uint64_t)t.length[((size_t)1 << t.n_tally) - 1];
    check(out.ndim() == 2 && out.shape(0) == p.rows && out.shape(1) >= width,
          "out: expected a row of counts per prefix");
    check(out_mask.ndim() == 1 && out_mask.shape(0) == p.rows, "out_mask: one per prefix");
    cpcore_table memo = read_table(r, table, v.key_words(), View::inline_values);
    Buffers B(v.cover.n_branch, v.state_words(), v.cover.n_counters, width);
    const int64_t* flag = cpbind::stop_flag(stop);
    const cpcore_prefix_call call{&v.cover, &memo, 1, p.data, p.rows, p.width, &B.view, flag};
    nb::gil_scoped_release unlocked;
    entry(&call, &v.words, &t, out.data(), out.shape(1), out_mask.data());
}

// Decide each prefix (see cpcore_exists_*).
template <class View, class Entry>
void exists(Entry entry, const Array<const int64_t>& prefixes, nb::handle lay,
            nb::handle table, bool use_table, const Array<int64_t>& out, bool first_failure,
            const Array<const int64_t>& stop) {
    Reader r;
    View v = View::read(r, lay);
    Prefixes p = read_prefixes(prefixes, v.n_options);
    check(out.ndim() == 1 && out.shape(0) == p.rows, "out: one per prefix");
    cpcore_table memo = read_table(r, table, v.key_words(), View::inline_values);
    Buffers B(v.cover.n_branch, v.state_words(), v.cover.n_counters, 1);
    const int64_t* flag = cpbind::stop_flag(stop);
    const cpcore_prefix_call call{&v.cover,       &memo,   use_table ? 1 : 0, p.data,
                                  p.rows,         p.width, &B.view,           flag};
    nb::gil_scoped_release unlocked;
    entry(&call, &v.words, out.data(), first_failure ? 1 : 0);
}

// One step of the solution stream (see cpcore_search_n_words): the search's place is
// kept in the caller's arrays between calls.
void search(const Array<int64_t>& state, const Array<uint64_t>& filled,
            const Array<int64_t>& counters, const Array<int64_t>& chosen,
            const Array<int64_t>& stack_pos, const Array<int64_t>& stack_k, nb::handle lay,
            const Array<int64_t>& out, int64_t max_out, const Array<const int64_t>& stop) {
    Reader r;
    NWordsView v = NWordsView::read(r, lay);
    const uint64_t depth_max = v.cover.n_branch + 1;
    check(state.ndim() == 1 && state.shape(0) >= 2, "state: expected two numbers");
    check(filled.ndim() == 1 && filled.shape(0) == v.words.n_words, "filled: one per word");
    check(counters.ndim() == 1 && counters.shape(0) >= v.cover.n_counters,
          "counters: one per counter");
    for (const Array<int64_t>* a : {&chosen, &stack_pos, &stack_k})
        check(a->ndim() == 1 && a->shape(0) >= depth_max, "stacks: one entry per depth");
    check(out.ndim() == 2 && out.shape(1) >= 1 && (max_out <= 0 || out.shape(0) >= (size_t)max_out),
          "out: fewer rows than max_out");
    const int64_t* flag = cpbind::stop_flag(stop);
    const int64_t depth = state.data()[0];
    check(depth >= -2 && depth < (int64_t)depth_max, "state: a depth out of range");
    Buffers B(v.cover.n_branch, v.words.n_words, 0, 1);
    B.view.filled = filled.data();
    B.view.counters = counters.data();
    B.view.chosen = chosen.data();
    B.view.stack_pos = stack_pos.data();
    B.view.stack_k = stack_k.data();
    nb::gil_scoped_release unlocked;
    cpcore_search_n_words(&v.cover, &v.words, state.data(), &B.view, out.data(), out.shape(1),
                          max_out, flag);
}

void check_task(const Array<const int64_t>& task, size_t n_options) {
    check(task.ndim() == 1, "task: expected a 1-d array");
    for (uint64_t i = 0; i < task.shape(0); ++i)
        check(task.data()[i] < (int64_t)n_options, "task: an option id out of range");
}

// The N-word state of a task's forced options (see cpcore_force_n_words): filled and
// counters written; whether the options fit together.
bool force(nb::handle lay, const Array<const int64_t>& task, const Array<uint64_t>& filled,
           const Array<int64_t>& counters) {
    Reader r;
    NWordsView v = NWordsView::read(r, lay);
    check_task(task, v.n_options);
    check(filled.ndim() == 1 && filled.shape(0) == v.words.n_words, "filled: one per word");
    check(counters.ndim() == 1 && counters.shape(0) >= v.cover.n_counters,
          "counters: one per counter");
    return cpcore_force_n_words(&v.cover, &v.words, task.data(), task.shape(0), filled.data(),
                                counters.data()) != 0;
}

// The options of the search's next branching step below a task (see cpcore_split_n_words).
std::vector<int64_t> split(nb::handle lay, const Array<const int64_t>& task) {
    Reader r;
    NWordsView v = NWordsView::read(r, lay);
    check_task(task, v.n_options);
    std::vector<uint64_t> filled(v.words.n_words);
    std::vector<int64_t> counters(v.cover.n_counters + 1);
    std::vector<int64_t> out((size_t)v.cover.anchor_start[v.cover.n_branch] + 1);
    const int64_t n = cpcore_split_n_words(&v.cover, &v.words, task.data(), task.shape(0),
                                           filled.data(), counters.data(), out.data());
    out.resize((size_t)n);
    return out;
}

}  // namespace

namespace cpbind {

void bind_packing(nb::module_& m) {
    using I64 = const Array<int64_t>&;
    using In = const Array<const int64_t>&;
    m.def("tally_prefixes_two_words",
          [](In prefixes, nb::handle lay, nb::handle tal, nb::handle table, I64 out,
             I64 out_mask, In stop) {
              tally<TwoWordsView>(cpcore_tally_prefixes_two_words, prefixes, lay, tal, table,
                                  out, out_mask, stop);
          },
          "Tally each prefix's completions on the two-word state (a WordLayout).");
    m.def("tally_prefixes_n_words",
          [](In prefixes, nb::handle lay, nb::handle tal, nb::handle table, I64 out,
             I64 out_mask, In stop) {
              tally<NWordsView>(cpcore_tally_prefixes_n_words, prefixes, lay, tal, table, out,
                                out_mask, stop);
          },
          "Tally each prefix's completions on the N-word state (a Layout).");
    m.def("exists_two_words",
          [](In prefixes, nb::handle lay, nb::handle table, bool use_table, I64 out,
             bool first_failure, In stop) {
              exists<TwoWordsView>(cpcore_exists_two_words, prefixes, lay, table, use_table,
                                   out, first_failure, stop);
          },
          "Whether each prefix has a solution, on the two-word state.");
    m.def("exists_n_words",
          [](In prefixes, nb::handle lay, nb::handle table, bool use_table, I64 out,
             bool first_failure, In stop) {
              exists<NWordsView>(cpcore_exists_n_words, prefixes, lay, table, use_table, out,
                                 first_failure, stop);
          },
          "Whether each prefix has a solution, on the N-word state.");
    m.def("search_n_words", &search, "One step of the resumable solution stream.");
    m.def("force_n_words", &force, nb::arg("lay"), nb::arg("task"), nb::arg("filled"),
          nb::arg("counters"),
          "Place a task's options on an empty N-word state: whether they fit together.");
    m.def("split_n_words", &split, nb::arg("lay"), nb::arg("task"),
          "The options that can cover the first item a task leaves open (its next branching "
          "step; none when nothing is left open or nothing fits).");
    m.def("choose_search", &cpcore_choose_search, nb::arg("question"), nb::arg("offers"),
          "The search (cpcore_search) that answers a question (cpcore_question) on a cover "
          "whose layouts offer ``offers`` (CPCORE_OFFERS_* bits; their values are the "
          "interface's constants).");
    m.def("search_name", [](int search) { return std::string(cpcore_search_name(search)); },
          nb::arg("search"), "The name of a search, as its entry point.");
}

}  // namespace cpbind
