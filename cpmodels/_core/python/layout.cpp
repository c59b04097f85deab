// A cover's layout for the general kernels and its tallies (layouts/cover.py, tally.py):
// the cover handed over as a dict of flat int64 arrays, measured, then the arrays Python
// made from the sizes filled by the core (cpcore/cover_layout.hpp). The sizes go back as
// their struct's bytes.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "checked_arrays.hpp"
#include "cpcore/entry.h"

namespace nb = nanobind;

namespace cpbind {
namespace {

// A cover's flat arrays, kept alive while the core reads them.
struct Cover {
    std::vector<Array<const int64_t>> kept;
    cpcore_cover_input in{};

    explicit Cover(const nb::dict& d) {
        in.low = read(d, "low", in.n_items);
        in.high = keep(entry<const int64_t>(d, "high", in.n_items)).data();
        in.item_cell = keep(entry<const int64_t>(d, "item_cell", in.n_items)).data();
        in.cell_nb_start = read(d, "cell_nb_start", in.n_cells, true);
        in.cell_nbs = read(d, "cell_nbs", in.n_cell_nbs);
        in.opt_start = read(d, "opt_start", in.n_options, true);
        in.opt_items = read(d, "opt_items", in.n_opt_items);
    }
    Array<const int64_t> keep(Array<const int64_t> a) {
        kept.push_back(a);
        return a;
    }
    // The array ``name`` of d, kept, its length in ``n``: for the starts of runs (``starts``)
    // the runs', one less (and it needs an entry).
    const int64_t* read(const nb::dict& d, const char* name, uint64_t& n, bool starts = false) {
        auto a = keep(entry<const int64_t>(d, name));
        if (starts && a.size() < 1)
            throw nb::value_error((std::string(name) + " needs an entry").c_str());
        n = a.size() - (starts ? 1 : 0);
        return a.data();
    }
};

// A sizes struct as its bytes: Python reads its fields by the interface's description
// (layouts/described.py's struct_of), so that none is named here.
template <class Sizes>
nb::bytes bytes_of(const Sizes& s) {
    return nb::bytes(reinterpret_cast<const char*>(&s), sizeof s);
}

// ``call()`` run without the GIL: the core reads and writes the arrays held here alone.
template <class Call>
void unlocked(Call call) {
    nb::gil_scoped_release released;
    call();
}

// A layout of ``in`` made by the core: measured (``work_of`` sizes the work array the
// measure and the fill share), then, with ``out`` (a dict, not None) and nothing wrong
// measured, filled into the arrays ``arrays(sizes, layout)`` points the layout to in out
// (false: none to fill). Returns the sizes' bytes.
template <class In, class Sizes, class Layout, class Arrays>
nb::bytes laid_out(const In* in, uint64_t (*work_of)(const In*),
                   void (*measure)(const In*, int64_t*, Sizes*),
                   void (*fill)(const In*, int64_t*, Sizes*, const Layout*), nb::handle out,
                   Arrays arrays) {
    std::vector<int64_t> work(work_of(in));
    Sizes s{};
    unlocked([&] { measure(in, work.data(), &s); });
    Layout L{};
    if (!out.is_none() && s.error == CPCORE_LAYOUT_OK && arrays(s, L))
        unlocked([&] { fill(in, work.data(), &s, &L); });
    return bytes_of(s);
}

// The general kernels' layout of a cover, measured and (with out) filled, the region
// limit set.
nb::bytes cover_layout(nb::dict cover, nb::handle out) {
    Cover c(cover);
    const int64_t n_items = c.in.n_items, n_opts = c.in.n_options;
    auto arrays = [&](const cpcore_cover_sizes& s, cpcore_cover_layout& L) {
        const int64_t rows = s.n_branch > 0 ? s.n_branch : 1;
        L.bit_of_item = entry<int64_t>(out, "bit_of_item", n_items).data();
        L.counter_of_item = entry<int64_t>(out, "counter_of_item", n_items).data();
        auto mask = entry<uint64_t>(out, "opt_mask", n_opts * s.n_words, 2);
        if (mask.shape(0) != (size_t)n_opts) throw nb::value_error("opt_mask: wrong shape");
        L.opt_mask = mask.data();
        L.opt_counter = entry<int64_t>(out, "opt_counter", n_opts).data();
        L.opt_tag_word = entry<int64_t>(out, "opt_tag_word", n_opts).data();
        L.opt_tag_bit = entry<uint64_t>(out, "opt_tag_bit", n_opts).data();
        L.anchor_start = entry<int64_t>(out, "anchor_start", s.n_branch + 1).data();
        L.anchor_opts = entry<int64_t>(out, "anchor_opts", s.n_anchored).data();
        L.group_end = entry<int64_t>(out, "group_end", s.n_anchored).data();
        L.counter_low = entry<int64_t>(out, "counter_low", s.n_counters).data();
        L.counter_high = entry<int64_t>(out, "counter_high", s.n_counters).data();
        L.radix = entry<uint64_t>(out, "radix", s.n_counters).data();
        auto cell_nb = entry<int64_t>(out, "cell_nb", rows * s.degree, 2);
        if (cell_nb.shape(0) != (size_t)rows) throw nb::value_error("cell_nb: wrong shape");
        L.cell_nb = cell_nb.data();
        L.opt_nb_start = entry<int64_t>(out, "opt_nb_start", n_opts + 1).data();
        L.opt_nb = entry<int64_t>(out, "opt_nb", s.n_opt_nb).data();
        L.fillable = reinterpret_cast<uint8_t*>(
            entry<bool>(out, "fillable", s.n_board_cells + 1).data());
        return true;
    };
    return laid_out(&c.in, cpcore_cover_layout_work, cpcore_cover_layout_measure,
                    cpcore_cover_layout_fill, out, arrays);
}

// The tallies' input: the cover and its layout's bits and anchors, checked.
struct Tallies {
    Cover cover;
    Array<const int64_t> bit_of_item, anchor_start, anchor_opts, items;
    cpcore_tally_input in{};

    Tallies(const nb::dict& c, const nb::dict& layout, Array<const int64_t> items_)
        : cover(c), items(items_) {
        bit_of_item = entry<const int64_t>(layout, "bit_of_item", cover.in.n_items);
        anchor_start = entry<const int64_t>(layout, "anchor_start");
        anchor_opts = entry<const int64_t>(layout, "anchor_opts");
        if (items.ndim() != 1) throw nb::value_error("the tally items: one dimension");
        if (anchor_start.size() < 1) throw nb::value_error("anchor_start needs an entry");
        in = cpcore_tally_input{&cover.in, bit_of_item.data(), anchor_start.size() - 1,
                                anchor_start.data(), anchor_opts.data(), anchor_opts.size(),
                                items.data(), items.size()};
    }
};

// The tallies' layout, measured and (with out) filled.
nb::bytes tally_layout(nb::dict cover, nb::dict layout, Array<const int64_t> items,
                       nb::handle out) {
    Tallies t(cover, layout, items);
    const int64_t n_opts = t.cover.in.n_options;
    auto arrays = [&](const cpcore_tally_sizes& s, cpcore_tally_layout& L) {
        L.bit = entry<int64_t>(out, "bit", s.cols).data();
        L.last_anchor = entry<int64_t>(out, "last_anchor", s.cols).data();
        L.opt_tally = entry<int64_t>(out, "opt_tally", n_opts).data();
        L.opt_index = entry<int64_t>(out, "opt_index", n_opts).data();
        L.length = entry<int64_t>(out, "length", s.masks).data();
        auto stride = entry<int64_t>(out, "stride", s.masks * s.cols, 2);
        if (stride.shape(0) != (size_t)s.masks) throw nb::value_error("stride: wrong shape");
        L.stride = stride.data();
        L.map_start = entry<int64_t>(out, "map_start", s.masks * s.cols + 1).data();
        L.map_flat = entry<int64_t>(out, "map_flat", s.n_map_flat).data();
        L.covering_start =
            entry<int64_t>(out, "covering_start", (int64_t)items.size() + 1).data();
        L.covering = entry<int64_t>(out, "covering", s.n_covering).data();
        return true;
    };
    return laid_out(&t.in, cpcore_tally_layout_work, cpcore_tally_layout_measure,
                    cpcore_tally_layout_fill, out, arrays);
}

// The one-word layout's input: the cover, its cells' coordinates, its items' and options'
// kinds (none: an empty array), checked for size.
struct OneWordInput {
    Cover cover;
    Array<const int64_t> cell_xy, item_kind, option_kind;
    cpcore_one_word_input in{};

    OneWordInput(const nb::dict& c, Array<const int64_t> xy, Array<const int64_t> items,
                 Array<const int64_t> options, uint64_t flips)
        : cover(c), cell_xy(xy), item_kind(items), option_kind(options) {
        if (xy.ndim() != 2 || xy.shape(0) != cover.in.n_cells || xy.shape(1) != 2)
            throw nb::value_error("cell_xy: one row of two coordinates per cell");
        if (items.ndim() != 1 || items.size() != cover.in.n_items)
            throw nb::value_error("item_kind: one kind per item");
        if (options.ndim() != 1 || (options.size() && options.size() != cover.in.n_options))
            throw nb::value_error("option_kind: one kind per option, or none");
        in = cpcore_one_word_input{&cover.in, xy.data(), items.data(),
                                   options.size() ? options.data() : nullptr, flips & 3};
    }
};

// The one-word layout, measured and (with out, when it suits) filled.
nb::bytes one_word_layout(nb::dict cover, Array<const int64_t> cell_xy,
                          Array<const int64_t> item_kind, Array<const int64_t> option_kind,
                          uint64_t flips, nb::handle out) {
    OneWordInput o(cover, cell_xy, item_kind, option_kind, flips);
    const int64_t n_opts = o.cover.in.n_options;
    auto arrays = [&](const cpcore_one_word_sizes& s, cpcore_one_word_layout& L) {
        if (!s.suits) return false;
        L.start = entry<uint64_t>(out, "start", 64 * s.n_pieces + 1).data();
        L.masks = entry<uint64_t>(out, "masks", s.n_flat).data();
        L.opts = entry<int64_t>(out, "opts", s.n_flat).data();
        L.avail = entry<uint64_t>(out, "avail", 64).data();
        L.opt_cells = entry<uint64_t>(out, "opt_cells", n_opts).data();
        L.opt_piece = entry<uint64_t>(out, "opt_piece", n_opts).data();
        L.slack_cells = entry<uint64_t>(out, "slack_cells", 64).data();
        L.areas = entry<int64_t>(out, "areas", s.n_pieces).data();
        L.fillable = reinterpret_cast<uint8_t*>(
            entry<bool>(out, "fillable", s.n_board_cells + 1).data());
        return true;
    };
    return laid_out(&o.in, cpcore_one_word_layout_work, cpcore_one_word_layout_measure,
                    cpcore_one_word_layout_fill, out, arrays);
}

// The corner a design's reach search scans from (entry.h's cpcore_reach_corner): its flips,
// or -1 when the reach search does not suit the cover; a refused cover is a ValueError.
int64_t reach_corner(nb::dict cover, Array<const int64_t> cell_xy,
                     Array<const int64_t> item_kind, Array<const int64_t> option_kind) {
    OneWordInput o(cover, cell_xy, item_kind, option_kind, 0);
    std::vector<int64_t> work(cpcore_one_word_layout_work(&o.in));
    cpcore_one_word_sizes s{};
    unlocked([&] { cpcore_one_word_layout_measure(&o.in, work.data(), &s); });
    if (s.error != CPCORE_LAYOUT_OK) throw nb::value_error(cpcore_layout_error(s.error));
    if (!s.suits) return -1;
    const size_t n_opts = o.cover.in.n_options;
    std::vector<uint64_t> start(64 * s.n_pieces + 1), masks(s.n_flat), avail(64),
        opt_cells(n_opts), opt_piece(n_opts), slack_cells(64), group_cells(3), group_unit(3),
        a_label(64), b_label(64);
    std::vector<int64_t> opts(s.n_flat), areas(s.n_pieces);
    std::vector<uint8_t> fillable(s.n_board_cells + 1);
    const cpcore_one_word_layout L{start.data(), masks.data(), opts.data(), avail.data(),
                                   opt_cells.data(), opt_piece.data(), slack_cells.data(),
                                   areas.data(), fillable.data()};
    cpcore_reach_groups g{};
    g.group_cells = group_cells.data();
    g.group_unit = group_unit.data();
    g.a_label = a_label.data();
    g.b_label = b_label.data();
    int64_t flips = -1;
    unlocked([&] { flips = cpcore_reach_corner(&o.in, work.data(), &s, &L, &g); });
    return flips;
}

// The piece-word bits of the tally items into ``bits``; 1, 0 (does not suit) or -code.
int64_t one_word_tally_bits(Array<const int64_t> item_kind, Array<const int64_t> items,
                            uint64_t optional, Array<uint64_t> bits) {
    if (item_kind.ndim() != 1 || items.ndim() != 1 || bits.ndim() != 1 ||
        bits.size() != items.size())
        throw nb::value_error("bits: one entry per tally item");
    return cpcore_one_word_tally_bits(item_kind.data(), item_kind.size(), items.data(),
                                      items.size(), optional, bits.data());
}

int64_t region_sizes(Array<const int64_t> areas, uint64_t total, Array<bool> fillable) {
    // (total + 1 compared without computing it: total may be the largest uint64.)
    if (areas.ndim() != 1 || fillable.ndim() != 1 || fillable.size() == 0 ||
        fillable.size() - 1 != total)
        throw nb::value_error("fillable needs total + 1 entries");
    for (size_t k = 0; k < areas.size(); ++k)
        if (areas.data()[k] <= 0) throw nb::value_error("a piece's area must be positive");
    return cpcore_region_sizes(areas.data(), nullptr, areas.size(), total,
                               reinterpret_cast<uint8_t*>(fillable.data()));
}

}  // namespace

void bind_layout(nb::module_& m) {
    // Each layout measured (its sizes struct's bytes), then filled into ``out``'s arrays
    // (of the sizes measured; the sizes again).
    m.def("cover_layout_sizes", [](nb::dict cover) { return cover_layout(cover, nb::none()); },
          nb::arg("cover"),
          "Check a cover (a dict of flat arrays) and measure its general-kernel layout: "
          "cpcore_cover_sizes as bytes.");
    m.def("cover_layout_fill", &cover_layout, nb::arg("cover"), nb::arg("out"),
          "Fill the arrays of ``out`` (of the sizes measured) with the cover's layout.");
    m.def("tally_layout_sizes",
          [](nb::dict cover, nb::dict layout, Array<const int64_t> items) {
              return tally_layout(cover, layout, items, nb::none());
          },
          nb::arg("cover"), nb::arg("layout"), nb::arg("items"),
          "Check and measure the tallies of a laid-out cover (cpcore_tally_sizes as bytes).");
    m.def("tally_layout_fill", &tally_layout, nb::arg("cover"), nb::arg("layout"),
          nb::arg("items"), nb::arg("out"), "Fill the tallies' arrays of ``out``.");
    m.def("one_word_layout_sizes",
          [](nb::dict cover, Array<const int64_t> xy, Array<const int64_t> item_kind,
             Array<const int64_t> option_kind, uint64_t flips) {
              return one_word_layout(cover, xy, item_kind, option_kind, flips, nb::none());
          },
          nb::arg("cover"), nb::arg("cell_xy"), nb::arg("item_kind"), nb::arg("option_kind"),
          nb::arg("flips"),
          "Check a cover and measure its one-word layout (cpcore_one_word_sizes as bytes; "
          "``suits``: whether it suits).");
    m.def("one_word_layout_fill", &one_word_layout, nb::arg("cover"), nb::arg("cell_xy"),
          nb::arg("item_kind"), nb::arg("option_kind"), nb::arg("flips"), nb::arg("out"),
          "Fill the one-word layout's arrays of ``out`` (of the sizes measured).");
    m.def("reach_corner", &reach_corner, nb::arg("cover"), nb::arg("cell_xy"),
          nb::arg("item_kind"), nb::arg("option_kind"),
          "The flips of the corner a design's reach search scans from, or -1 when it does "
          "not suit the cover.");
    m.def("one_word_tally_bits", &one_word_tally_bits, nb::arg("item_kind"),
          nb::arg("items"), nb::arg("optional"), nb::arg("bits").noconvert(),
          "Fill the tally items' piece-word bits: 1, 0 when one is a cell or an optional "
          "piece, or -code.");
    m.def("layout_error", [](int64_t code) { return std::string(cpcore_layout_error(code)); },
          nb::arg("code"), "What the core's refusal of a layout, by its code, says.");
    m.def("region_sizes", &region_sizes, nb::arg("areas"), nb::arg("total"),
          nb::arg("fillable").noconvert(),
          "Fill which region sizes pieces of these areas fill; the size limit checked.");
}

}  // namespace cpbind
