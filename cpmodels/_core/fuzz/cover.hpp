// The fuzz targets' exact cover read from bytes (entry.h's cpcore_cover_input): items with
// any bounds and cells, cells with runs of neighbours, options with runs of items; runs and
// indices well-formed or hostile as the bytes say. The arrays live as long as the Cover.
#pragma once

#include "bytes.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {

struct Cover {
    std::vector<int64_t> low, high, item_cell, cell_nb_start, cell_nbs, opt_start, opt_items;
    cpcore_cover_input in{};
    Cover(Bytes& b, uint64_t most_items, uint64_t most_options);
};

// Bounds of an item: exact-one, secondary or a counter mostly; any two numbers sometimes.
inline void read_bounds(Bytes& b, int64_t& low, int64_t& high) {
    const uint64_t kind = b.count(4);
    if (kind == 0) low = high = 1;
    else if (kind == 1) low = 0, high = 1;
    else if (kind == 2) low = b.within(0, 3), high = low + b.within(0, 3);
    else low = b.number(), high = b.number();
}


// The arrays of a layout of the measured sizes (entry.h's shapes).
struct CoverLayout {
    Buffer<int64_t> bit_of_item, counter_of_item, opt_counter, opt_tag_word, anchor_start,
        anchor_opts, group_end, counter_low, counter_high, cell_nb, opt_nb_start, opt_nb;
    Buffer<uint64_t> opt_mask, opt_tag_bit, radix;
    Buffer<uint8_t> fillable;
    cpcore_cover_layout out;
    CoverLayout(const cpcore_cover_input& c, const cpcore_cover_sizes& s)
        : bit_of_item(c.n_items), counter_of_item(c.n_items), opt_counter(c.n_options),
          opt_tag_word(c.n_options), anchor_start(s.n_branch + 1), anchor_opts(s.n_anchored),
          group_end(s.n_anchored), counter_low(s.n_counters), counter_high(s.n_counters),
          cell_nb((s.n_branch > 0 ? s.n_branch : 1) * s.degree),
          opt_nb_start(c.n_options + 1), opt_nb(s.n_opt_nb),
          opt_mask(c.n_options * s.n_words), opt_tag_bit(c.n_options), radix(s.n_counters),
          fillable(s.n_board_cells + 1),
          out{bit_of_item.data(),  counter_of_item.data(), opt_mask.data(),
              opt_counter.data(),  opt_tag_word.data(),    opt_tag_bit.data(),
              anchor_start.data(), anchor_opts.data(),     group_end.data(),
              counter_low.data(),  counter_high.data(),    radix.data(),
              cell_nb.data(),      opt_nb_start.data(),    opt_nb.data(),
              fillable.data()} {}
};

inline Cover::Cover(Bytes& b, uint64_t most_items, uint64_t most_options) {
    Cover& c = *this;
    const uint64_t n_items = b.count(most_items), n_cells = b.count(most_items);
    c.low.resize(n_items);
    c.high.resize(n_items);
    for (uint64_t i = 0; i < n_items; ++i) read_bounds(b, c.low[i], c.high[i]);
    c.item_cell = b.numbers_within(n_items, -2, (int64_t)n_cells);
    c.cell_nb_start = any_runs(b, n_cells, 6);
    const uint64_t n_nbs = run_total(b, c.cell_nb_start, 6 * most_items);
    c.cell_nbs = b.numbers_within(n_nbs, -2, (int64_t)n_cells);
    const uint64_t n_options = b.count(most_options);
    c.opt_start = any_runs(b, n_options, 12);
    const uint64_t n_opt_items = run_total(b, c.opt_start, 12 * most_options);
    c.opt_items = b.numbers_within(n_opt_items, -1, (int64_t)n_items);
    c.in = cpcore_cover_input{n_items,          c.low.data(),       c.high.data(),
                              c.item_cell.data(), n_cells,          c.cell_nb_start.data(),
                              c.cell_nbs.data(), n_nbs,             n_options,
                              c.opt_start.data(), c.opt_items.data(), n_opt_items};
}

// The tallies' arrays of the measured sizes (entry.h's cpcore_tally_layout), and their view
// as the packing searches read them.
struct TallyArrays {
    Buffer<int64_t> bit, last_anchor, opt_tally, opt_index, length, stride, map_start,
        map_flat, covering_start, covering;
    cpcore_tally_layout out;
    cpcore_tallies view;
    TallyArrays(const cpcore_tally_input& t, const cpcore_tally_sizes& s)
        : bit(s.cols), last_anchor(s.cols), opt_tally(t.cover->n_options),
          opt_index(t.cover->n_options), length(s.masks), stride(s.masks * s.cols),
          map_start(s.masks * s.cols + 1), map_flat(s.n_map_flat),
          covering_start(t.n_tally + 1), covering(s.n_covering),
          out{bit.data(),       last_anchor.data(), opt_tally.data(), opt_index.data(),
              length.data(),    stride.data(),      map_start.data(), map_flat.data(),
              covering_start.data(), covering.data()},
          view{(int64_t)t.n_tally, bit.data(),    last_anchor.data(), opt_tally.data(),
               opt_index.data(),   length.data(), stride.data(),      map_start.data(),
               map_flat.data()} {}
};

// The adapters of the layouts' entry points: measured (no arrays) or filled.
inline cpcore_cover_sizes lay_out(const cpcore_cover_input& c, int64_t* work,
                                  const CoverLayout* l = nullptr) {
    cpcore_cover_sizes s{};
    if (l) cpcore_cover_layout_fill(&c, work, &s, &l->out);
    else cpcore_cover_layout_measure(&c, work, &s);
    return s;
}

inline cpcore_tally_sizes lay_out(const cpcore_tally_input& t, int64_t* work,
                                  const TallyArrays* l = nullptr) {
    cpcore_tally_sizes s{};
    if (l) cpcore_tally_layout_fill(&t, work, &s, &l->out);
    else cpcore_tally_layout_measure(&t, work, &s);
    return s;
}

}  // namespace cpfuzz
