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
    Cover() = default;  // (arrays a target fills, then in)
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

// A memo table of n_slots slots (memo.py's Memo, zero-filled; 16 or more, as the
// bindings require), of key rows n_words + 1 wide.
struct Table {
    Buffer<uint64_t> keys;
    Buffer<int64_t> values, arena, stats;
    cpcore_table view;
    Table(uint64_t n_slots, uint64_t n_words, uint64_t n_arena)
        : keys(n_slots * (n_words + 1), 0), values(n_slots, 0), arena(n_arena, 0),
          stats(7, 0),
          view{keys.data(), values.data(), arena.data(), stats.data(), n_slots, n_words + 1, 1,
               n_arena} {}
};

// A search's working memory, as the bindings make it.
struct Buffers {
    Buffer<int64_t> acc, pos, k, mask, chosen, counters, fill_stack;
    Buffer<uint64_t> code, filled, scratch;
    cpcore_search_buffers view;
    Buffers(uint64_t n_branch, uint64_t n_words, uint64_t n_counters, uint64_t acc_width)
        : acc((n_branch + 1) * acc_width), pos(n_branch + 1), k(n_branch + 1),
          mask(n_branch + 1), chosen(n_branch + 1), counters(n_counters + 1, 0),
          fill_stack(n_branch + 1), code(n_branch + 1), filled(n_words, 0),
          scratch(2 * n_words),
          view{acc.data(),    acc_width,      pos.data(),      k.data(),
               code.data(),   mask.data(),    chosen.data(),   counters.data(),
               filled.data(), scratch.data(), fill_stack.data()} {}
};

// The packing searches' view of a cover laid out for the general kernels (N words).
struct Search {
    cpcore_packing_cover cover;
    cpcore_n_words words;
    uint64_t n_options;
};

inline Search search_of(const cpcore_cover_input& c, const cpcore_cover_sizes& m,
                        const CoverLayout& l) {
    return Search{{l.opt_counter.data(), l.anchor_start.data(), l.anchor_opts.data(),
                   l.group_end.data(), l.counter_low.data(), l.counter_high.data(),
                   l.radix.data(), (uint64_t)m.n_counters, (uint64_t)m.n_branch,
                   (int)m.memo_ok, l.opt_nb_start.data(), l.opt_nb.data(), l.fillable.data(),
                   m.region_limit},
                  {l.opt_mask.data(), (uint64_t)m.n_words, l.opt_tag_word.data(),
                   l.opt_tag_bit.data(), l.cell_nb.data(), (uint64_t)m.degree},
                  c.n_options};
}

// The general tally of each row of prefixes (cpcore_tally_prefixes_n_words): row r's
// counts to out[r * out_width ..], its uncovered tally items to out_mask[r].
inline void tally(const Search& s, const cpcore_tallies& t, Table& table,
                  const std::vector<int64_t>& prefixes, uint64_t rows, uint64_t width,
                  Buffer<int64_t>& out, uint64_t out_width, Buffer<int64_t>& out_mask) {
    Buffers b(s.cover.n_branch, s.words.n_words, s.cover.n_counters, out_width);
    const int64_t stop = 0;
    const cpcore_prefix_call call{&s.cover, &table.view, 1,       prefixes.data(),
                                  rows,     width,       &b.view, &stop};
    cpcore_tally_prefixes_n_words(&call, &s.words, &t, out.data(), out_width, out_mask.data());
}

// The arrays of a one-word layout of the measured sizes (entry.h's cpcore_one_word_layout).
struct OneWordLayout {
    Buffer<uint64_t> start, masks, avail, opt_cells, opt_piece, slack_cells;
    Buffer<int64_t> opts, areas;
    Buffer<uint8_t> fillable;
    cpcore_one_word_layout out;
    OneWordLayout(const cpcore_cover_input& c, const cpcore_one_word_sizes& s)
        : start(64 * s.n_pieces + 1), masks(s.n_flat), avail(64), opt_cells(c.n_options),
          opt_piece(c.n_options), slack_cells(64), opts(s.n_flat), areas(s.n_pieces),
          fillable(s.n_board_cells + 1),
          out{start.data(),     masks.data(),       opts.data(),  avail.data(),
              opt_cells.data(), opt_piece.data(),   slack_cells.data(), areas.data(),
              fillable.data()} {}
};

// The layouts' entry points called as the bindings call them: measured (no arrays: measure),
// or filled into the arrays of ``l`` (fill); the sizes either reports.
template <class Sizes, class In, class Out, class Arrays>
inline Sizes laid_out(void (*measure)(const In*, int64_t*, Sizes*),
                      void (*fill)(const In*, int64_t*, Sizes*, const Out*), const In& in,
                      int64_t* work, const Arrays* l) {
    Sizes s{};
    if (l) fill(&in, work, &s, &l->out);
    else measure(&in, work, &s);
    return s;
}

inline cpcore_cover_sizes lay_out(const cpcore_cover_input& c, int64_t* work,
                                  const CoverLayout* l = nullptr) {
    return laid_out(cpcore_cover_layout_measure, cpcore_cover_layout_fill, c, work, l);
}

inline cpcore_tally_sizes lay_out(const cpcore_tally_input& t, int64_t* work,
                                  const TallyArrays* l = nullptr) {
    return laid_out(cpcore_tally_layout_measure, cpcore_tally_layout_fill, t, work, l);
}

inline cpcore_one_word_sizes lay_out(const cpcore_one_word_input& in, int64_t* work,
                                     const OneWordLayout* l = nullptr) {
    return laid_out(cpcore_one_word_layout_measure, cpcore_one_word_layout_fill, in, work, l);
}

}  // namespace cpfuzz
