// Fuzz target: the one-word count and tally (cpcore_count_one_word, cpcore_tally_one_word)
// and the count's branching step (cpcore_split_one_word)
// over the one-word layout the core makes of a cover (cpcore_one_word_layout_fill), the way
// a board drawn in the editor reaches them. The cover is mostly a board of at most 8 by 8
// cells (any of them missing, anywhere in the plane) with up to 10 pieces whose options are
// shapes grown cell by cell (joined, as drawn) or cells anywhere (apart, as in a cover made
// by hand), pieces that may be left out and slack items; sometimes any cover the bytes
// make. Where the layout suits and the tree is small enough to search whole, every row of
// prefixes (forced options) must be answered alike by the one-word count, the one-word
// tally (its vector and its uncovered tally items), the general packing search
// (cpcore_tally_prefixes_n_words) on the same cover and tallies, and a plain backtracking
// count written here. The reach search's view of every such layout (cpcore_reach_groups_of)
// must name its slack units as the groups, number their labels in bit order, and suit it
// exactly when there are one to three groups and each option's cells are joined.
#include "bytes.hpp"
#include "cover.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {
namespace {

const int64_t CELL = 0, PIECE = 1, SLACK_ITEM = 2;  // ItemKind
const int64_t PLACED = 0, SLACK = 1, LEFT_OUT = 2;  // OptionKind
// The trees searched whole: those where a plain backtracking count of each row of prefixes
// takes at most this many nodes. The searches under test have trees about as large (their
// first empty cell is the backtracking's first item on a board whose cells come first, in
// scan order) or smaller (a table, dead ends); each is at most the product over the piece
// and slack items of their options + 1 (a node is a set of options, one at most covering
// each such item, placed in the order the first empty cell fixes).
const int64_t MOST_NODES = (int64_t)1 << 16;

// A cover as the one-word layout reads it: the flat cover and each cell's coordinates,
// each item's and each option's kind.
struct OneWordCover {
    Cover c;
    std::vector<int64_t> xy, item_kind, option_kind;
    bool with_kinds = false;
    uint64_t flips = 0;
};

// The cells next to cell x of an h by w grid of cell indices (-1: none), in the grid's
// order: up, right, down, left.
void neighbours(const std::vector<int64_t>& at, int64_t w, int64_t h, int64_t x,
                int64_t out[4]) {
    const int64_t r = x / w, col = x % w;
    out[0] = r > 0 ? at[x - w] : -1;
    out[1] = col + 1 < w ? at[x + 1] : -1;
    out[2] = r + 1 < h ? at[x + w] : -1;
    out[3] = col > 0 ? at[x - 1] : -1;
}

// An option's cells: a shape grown from an anchor through the sides of its cells (joined)
// or cells anywhere (apart), ``area`` of them unless the board runs out.
std::vector<int64_t> option_cells(Bytes& in, const std::vector<int64_t>& place,
                                  const std::vector<int64_t>& at, int64_t w, int64_t h,
                                  uint64_t area) {
    const uint64_t n_cells = place.size();
    std::vector<uint8_t> taken(n_cells, 0);
    std::vector<int64_t> cells{(int64_t)in.count(n_cells - 1)};
    taken[cells[0]] = 1;
    const bool joined = in.count(7) != 0;
    while (cells.size() < area) {
        std::vector<int64_t> next;
        if (joined) {
            for (int64_t x : cells) {
                int64_t nb[4];
                neighbours(at, w, h, place[x], nb);
                for (int64_t y : nb)
                    if (y >= 0 && !taken[y]) next.push_back(y);
            }
        } else {
            for (uint64_t y = 0; y < n_cells; ++y)
                if (!taken[y]) next.push_back((int64_t)y);
        }
        if (next.empty()) break;
        const int64_t y = next[in.count(next.size() - 1)];
        taken[y] = 1;
        cells.push_back(y);
    }
    return cells;
}

// A board drawn in the editor and its pieces, as the package's cover has them: cell items
// (scan order), piece items, slack items, or the pieces' and slack items first; each
// option its cells' items, then its piece's or slack item.
void drawn(Bytes& in, OneWordCover& d) {
    const int64_t h = 1 + (int64_t)in.count(7), w = 1 + (int64_t)in.count(7);
    const uint64_t y0 = (uint64_t)in.number(), x0 = (uint64_t)in.number();
    std::vector<int64_t> at(h * w, -1), place;  // grid square -> cell, cell -> grid square
    for (int64_t x = 0; x < h * w; ++x)
        if (in.count(7) != 0) {
            at[x] = (int64_t)place.size();
            place.push_back(x);
        }
    const uint64_t n_cells = place.size();
    if (n_cells == 0) return;
    const uint64_t n_pieces = 1 + in.count(9), n_slack = in.count(2);
    const uint64_t n_items = n_cells + n_pieces + n_slack;
    const bool others_first = in.count(3) == 0;
    auto cell_item = [&](int64_t x) { return others_first ? n_pieces + n_slack + x : x; };
    auto other_item = [&](uint64_t k) { return others_first ? k : n_cells + k; };
    Cover& c = d.c;
    c.low.assign(n_items, 1);
    c.high.assign(n_items, 1);
    c.item_cell.assign(n_items, -1);
    d.item_kind.assign(n_items, CELL);
    for (uint64_t x = 0; x < n_cells; ++x) {
        c.item_cell[cell_item(x)] = (int64_t)x;
        d.xy.push_back((int64_t)(y0 + (uint64_t)(place[x] / w)));  // (wrapping past 2**63)
        d.xy.push_back((int64_t)(x0 + (uint64_t)(place[x] % w)));
        int64_t nb[4];
        neighbours(at, w, h, place[x], nb);
        c.cell_nbs.insert(c.cell_nbs.end(), nb, nb + 4);
    }
    for (uint64_t k = 0; k < n_pieces + n_slack; ++k)
        d.item_kind[other_item(k)] = k < n_pieces ? PIECE : SLACK_ITEM;
    c.cell_nb_start.resize(n_cells + 1);
    for (uint64_t x = 0; x <= n_cells; ++x) c.cell_nb_start[x] = 4 * (int64_t)x;
    c.opt_start.push_back(0);
    auto option = [&](const std::vector<int64_t>& cells, uint64_t owner, int64_t kind) {
        for (int64_t x : cells) c.opt_items.push_back((int64_t)cell_item(x));
        c.opt_items.push_back((int64_t)other_item(owner));
        c.opt_start.push_back((int64_t)c.opt_items.size());
        d.option_kind.push_back(kind);
    };
    for (uint64_t p = 0; p < n_pieces; ++p) {
        const uint64_t area = 1 + in.count(5), n_options = in.count(6);
        for (uint64_t k = 0; k < n_options; ++k)
            option(option_cells(in, place, at, w, h, area), p, PLACED);
        if (in.count(3) == 0) option({}, p, LEFT_OUT);
    }
    for (uint64_t g = 0; g < n_slack; ++g)
        for (uint64_t k = 0, n = 1 + in.count(3); k < n; ++k)
            option({(int64_t)in.count(n_cells - 1)}, n_pieces + g, SLACK);
    c.in = cpcore_cover_input{n_items,          c.low.data(),          c.high.data(),
                              c.item_cell.data(), n_cells,             c.cell_nb_start.data(),
                              c.cell_nbs.data(), c.cell_nbs.size(),    d.option_kind.size(),
                              c.opt_start.data(), c.opt_items.data(),  c.opt_items.size()};
    d.with_kinds = in.count(3) != 0;
    d.flips = in.count(3);
}

// Any cover the bytes make, any coordinates and kinds (few of them suit), read as the
// one_word_layout target reads them.
void any_cover(Bytes& in, OneWordCover& d) {
    d.c = Cover(in, 128, 512);
    d.xy = in.numbers(2 * d.c.in.n_cells);
    d.item_kind = in.numbers_within(d.c.in.n_items, -1, 3);
    d.with_kinds = in.count(1) == 1;
    d.option_kind = in.numbers_within(d.c.in.n_options, -1, 3);
    d.flips = in.count(3);
}

// The plain count: the first item not covered, each option that covers it and fits, in at
// most ``most`` nodes a row (-1 past them).
struct Backtrack {
    const cpcore_cover_input& c;
    std::vector<std::vector<int64_t>> covering;  // each item's options
    std::vector<uint8_t> covered;
    int64_t most, nodes = 0;

    Backtrack(const cpcore_cover_input& cover, int64_t most_nodes)
        : c(cover), covering(cover.n_items), covered(cover.n_items, 0), most(most_nodes) {
        for (uint64_t j = 0; j < c.n_options; ++j)
            for (int64_t k = c.opt_start[j]; k < c.opt_start[j + 1]; ++k)
                covering[c.opt_items[k]].push_back((int64_t)j);
    }
    bool fits(int64_t j) const {
        for (int64_t k = c.opt_start[j]; k < c.opt_start[j + 1]; ++k)
            if (covered[c.opt_items[k]]) return false;
        return true;
    }
    void mark(int64_t j, uint8_t v) {
        for (int64_t k = c.opt_start[j]; k < c.opt_start[j + 1]; ++k) covered[c.opt_items[k]] = v;
    }
    int64_t count() {
        if (--nodes < 0) return -1;
        uint64_t i = 0;
        while (i < c.n_items && covered[i]) ++i;
        if (i == c.n_items) return 1;
        int64_t total = 0;
        for (int64_t j : covering[i])
            if (fits(j)) {
                mark(j, 1);
                const int64_t below = count();
                mark(j, 0);
                if (below < 0) return -1;
                total += below;
            }
        return total;
    }
    // The completions of a row of forced options (-1 pads), 0 when they overlap.
    int64_t count(const int64_t* row, uint64_t n) {
        covered.assign(c.n_items, 0);
        nodes = most;
        for (uint64_t k = 0; k < n; ++k) {
            if (row[k] < 0) continue;
            if (!fits(row[k])) return 0;
            mark(row[k], 1);
        }
        return count();
    }
};

// A one-word memo table of 16 << k slots and an arena of ``arena`` words (zero-filled),
// probing ``first_live`` slots first where it grows (benchmarks/fuzz.py builds the core
// with a large table's sizes made small, so that these grow).
struct OneWordTable {
    Buffer<uint64_t> keys;
    Buffer<int64_t> arena, stats;
    cpcore_one_word_table view;
    OneWordTable(uint64_t k, uint64_t n_arena, uint64_t first_live)
        : keys((16 << k) * 3, 0), arena(n_arena, 0), stats(7, 0),
          view{keys.data(), (uint64_t)16 << k, arena.data(), n_arena, stats.data(),
               first_live} {}
};

// The one-word search's view of a filled layout.
cpcore_one_word one_word_of(const cpcore_cover_input& c, const cpcore_one_word_sizes& f,
                            const OneWordLayout& l) {
    return cpcore_one_word{l.start.data(),     l.masks.data(),
                           l.opts.data(),      l.avail.data(),
                           l.opt_cells.data(), l.opt_piece.data(),
                           c.n_options,        (uint64_t)f.n_pieces,
                           f.all_pieces,       f.optional,
                           f.covered,          f.inner,
                           f.first,            f.last,
                           f.slack,            l.fillable.data(),
                           l.fillable.size,    f.region_limit,
                           (int)f.isolated_dead, l.slack_cells.data()};
}

// Whether a mask's cells are joined through their sides: cells x and y are neighbours when
// they are next to each other on one line (bit / inner) or a line apart.
bool joined_cells(uint64_t mask, uint64_t inner) {
    uint64_t reached = mask & (~mask + 1);
    for (bool grew = true; grew;) {
        grew = false;
        for (uint64_t x = 0; x < 64; ++x) {
            if (!(reached >> x & 1)) continue;
            for (uint64_t y = 0; y < 64; ++y) {
                const bool side = (x / inner == y / inner && (x + 1 == y || y + 1 == x)) ||
                                  x + inner == y || y + inner == x;
                if (side && (mask >> y & 1) && !(reached >> y & 1)) {
                    reached |= (uint64_t)1 << y;
                    grew = true;
                }
            }
        }
    }
    return reached == mask;
}

// cpcore_reach_groups_of's promises for a laid-out cover.
void check_reach_groups(const cpcore_one_word& L) {
    uint64_t cells[3], units[3], a_label[64], b_label[64];
    cpcore_reach_groups r{};
    r.group_cells = cells;
    r.group_unit = units;
    r.a_label = a_label;
    r.b_label = b_label;
    cpcore_reach_groups_of(&L, &r);
    std::vector<uint64_t> slack;
    for (uint64_t p = 0; p < L.n_pieces; ++p)
        if (L.slack >> p & 1) slack.push_back(p);
    bool suits = !slack.empty() && slack.size() <= 3;
    for (uint64_t p : slack) suits = suits && L.slack_cells[p] != 0;
    bool joined = true;
    for (uint64_t k = 0; k < L.start[64 * L.n_pieces]; ++k)
        joined = joined && joined_cells(L.masks[k], L.inner);
    FUZZ_REQUIRE(r.suits == (suits && joined ? 1 : 0));
    if (!r.suits) return;
    FUZZ_REQUIRE(r.n_groups == slack.size());
    int64_t others = 0;
    for (uint64_t g = 0; g < r.n_groups; ++g) {
        FUZZ_REQUIRE(cells[g] == L.slack_cells[slack[g]] && units[g] == (uint64_t)1 << slack[g]);
        FUZZ_REQUIRE(__builtin_popcountll(cells[g]) <= __builtin_popcountll(cells[r.bit_group]));
        if ((int64_t)g < r.bit_group)
            FUZZ_REQUIRE(__builtin_popcountll(cells[g]) < __builtin_popcountll(cells[r.bit_group]));
        FUZZ_REQUIRE(__builtin_ctzll(cells[g]) <= __builtin_ctzll(cells[r.last_group]));
        if ((int64_t)g != r.bit_group) {
            FUZZ_REQUIRE((others == 0 ? r.a_group : r.b_group) == (int64_t)g);
            uint64_t* label = others++ == 0 ? a_label : b_label;
            for (uint64_t b = 0; b < 64; ++b)
                if (cells[g] >> b & 1)
                    FUZZ_REQUIRE(label[b] == (uint64_t)__builtin_popcountll(
                                                 cells[g] & (((uint64_t)1 << b) - 1)));
        }
    }
    if (others < 2) FUZZ_REQUIRE(r.b_group == -1);
    if (others < 1) FUZZ_REQUIRE(r.a_group == -1);
    const uint64_t a = r.a_group >= 0 ? __builtin_popcountll(cells[r.a_group]) : 1;
    const uint64_t b = r.b_group >= 0 ? __builtin_popcountll(cells[r.b_group]) : 1;
    FUZZ_REQUIRE(r.a_stride == b && r.n_index == a * b);
    FUZZ_REQUIRE(r.n_cells == 64 - (uint64_t)__builtin_popcountll(L.covered));
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    OneWordCover d;
    if (in.count(7) == 0) any_cover(in, d);
    else drawn(in, d);
    const cpcore_cover_input& c = d.c.in;
    if (c.n_items == 0) return 0;
    const cpcore_one_word_input input{&c, d.xy.data(), d.item_kind.data(),
                                      d.with_kinds ? d.option_kind.data() : nullptr, d.flips};
    Buffer<int64_t> work(cpcore_one_word_layout_work(&input));
    const cpcore_one_word_sizes m = lay_out(input, work.data());
    if (m.error != CPCORE_LAYOUT_OK || !m.suits) return 0;
    const OneWordLayout l(c, m);
    const cpcore_one_word_sizes f = lay_out(input, work.data(), &l);
    FUZZ_REQUIRE(f.suits && f.region_limit >= 0 && f.region_limit <= m.n_board_cells + 1);
    const cpcore_one_word L = one_word_of(c, f, l);
    check_reach_groups(L);

    // The same cover for the general kernels, and up to two tally items (none when the
    // one-word tally cannot read them: a cell, or one listed twice). A piece that may be left
    // out (its left-out option is placed by no node) the layout's tally bits refuse, and so
    // does the search, writing nothing.
    Buffer<int64_t> cover_work(cpcore_cover_layout_work(&c));
    cpcore_cover_sizes gm = lay_out(c, cover_work.data());
    FUZZ_REQUIRE(gm.error == CPCORE_LAYOUT_OK);  // a cover that suits one word suits all
    const CoverLayout gl(c, gm);
    gm = lay_out(c, cover_work.data(), &gl);
    const Search general = search_of(c, gm, gl);
    std::vector<int64_t> items = in.numbers_within(in.count(2), 0, (int64_t)c.n_items - 1);
    Buffer<uint64_t> bits(items.size() + 1);
    if (cpcore_one_word_tally_bits(d.item_kind.data(), c.n_items, items.data(), items.size(), 0,
                                   bits.data()) != 1)
        items.clear();
    bool left_out = false;
    for (uint64_t k = 0; k < items.size(); ++k) left_out |= (bits[k] & f.optional) != 0;
    Buffer<uint64_t> suited(items.size() + 1);
    FUZZ_REQUIRE(cpcore_one_word_tally_bits(d.item_kind.data(), c.n_items, items.data(),
                                            items.size(), f.optional, suited.data()) ==
                 !left_out);
    const cpcore_tally_input ti{&c, gl.bit_of_item.data(), (uint64_t)gm.n_branch,
                                gl.anchor_start.data(), gl.anchor_opts.data(),
                                (uint64_t)gm.n_anchored, items.data(), items.size()};
    Buffer<int64_t> tally_work(cpcore_tally_layout_work(&ti));
    const cpcore_tally_sizes ts = lay_out(ti, tally_work.data());
    FUZZ_REQUIRE(ts.error == CPCORE_LAYOUT_OK);  // piece items are exact-one
    const TallyArrays t(ti, ts);
    lay_out(ti, tally_work.data(), &t);
    const cpcore_one_tallies T{items.size(),        bits.data(),       t.opt_tally.data(),
                               t.opt_index.data(),  t.length.data(),   t.stride.data(),
                               (uint64_t)ts.cols,   t.map_start.data(), t.map_flat.data()};
    const uint64_t width_out = (uint64_t)t.length[ts.masks - 1];

    // Prefixes: the empty one first, then rows of any options (-1 pads).
    const uint64_t rows = 1 + in.count(3), width = 1 + in.count(2);
    std::vector<int64_t> prefixes(rows * width, -1);
    for (uint64_t k = width; k < rows * width; ++k)
        prefixes[k] = in.within(-1, (int64_t)c.n_options - 1);
    // The plain counts first: a tree too large for them is not searched.
    Backtrack plain(c, MOST_NODES);
    std::vector<int64_t> expected(rows);
    for (uint64_t r = 0; r < rows; ++r) {
        expected[r] = plain.count(prefixes.data() + r * width, width);
        if (expected[r] < 0) return 0;
    }
    // The count's branching step (cpcore_split_one_word): a row's parts, in ascending order,
    // count as many solutions as the row; a row that fills the board is left to the
    // general step (-1).
    std::vector<int64_t> parts(c.n_options + 1, -7), part_row(width + 1);
    for (uint64_t r = 0; r < rows; ++r) {
        const int64_t* row = prefixes.data() + r * width;
        const int64_t n = cpcore_split_one_word(&L, row, width, parts.data());
        FUZZ_REQUIRE(n >= -1 && n <= (int64_t)c.n_options);
        if (n < 0) continue;
        int64_t sum = 0;
        for (int64_t k = 0; k < n; ++k) {
            FUZZ_REQUIRE(parts[k] >= 0 && parts[k] < (int64_t)c.n_options);
            FUZZ_REQUIRE(k == 0 || parts[k - 1] < parts[k]);
            for (uint64_t q = 0; q < width; ++q) part_row[q] = row[q];
            part_row[width] = parts[k];
            const int64_t m = plain.count(part_row.data(), width + 1);
            if (m < 0) return 0;
            sum += m;
        }
        FUZZ_REQUIRE(sum == expected[r]);
    }
    const int memo = in.count(3) != 0;
    // (each size read in turn: a call's arguments are read in no set order)
    const uint64_t count_k = in.count(3), count_arena = 1 + in.count(64);
    OneWordTable count_table(count_k, count_arena, in.count(300));
    Buffer<int64_t> counts(rows, -7);
    const int64_t stop = 0;
    cpcore_count_one_word(&L, prefixes.data(), rows, width, &count_table.view, memo,
                          counts.data(), &stop);
    const uint64_t tally_k = in.count(3), tally_arena = 1 + in.count(64);
    OneWordTable tally_table(tally_k, tally_arena, in.count(300));
    Buffer<int64_t> vectors(rows * width_out, -7), masks(rows, -7);
    Buffer<int64_t> scratch((L.n_pieces + 1) * width_out, 0);
    const int64_t status = cpcore_tally_one_word(&L, &T, prefixes.data(), rows, width,
                                                 &tally_table.view, memo, vectors.data(),
                                                 width_out, masks.data(), scratch.data(), &stop);
    if (left_out) {  // refused, nothing written
        FUZZ_REQUIRE(status == CPCORE_LEFT_OUT_TALLY);
        for (uint64_t k = 0; k < vectors.size; ++k) FUZZ_REQUIRE(vectors[k] == -7);
        for (uint64_t r = 0; r < rows; ++r) FUZZ_REQUIRE(masks[r] == -7);
        for (uint64_t r = 0; r < rows; ++r) FUZZ_REQUIRE(counts[r] == expected[r]);
        return 0;
    }
    FUZZ_REQUIRE(status == 0);
    Table table(16 << in.count(3), (uint64_t)gm.n_words, 1 + in.count(64));
    Buffer<int64_t> general_vectors(rows * width_out, -7), general_masks(rows, -7);
    tally(general, t.view, table, prefixes, rows, width, general_vectors, width_out,
          general_masks);
    for (uint64_t r = 0; r < rows; ++r) {
        FUZZ_REQUIRE(counts[r] == expected[r]);
        // The vector of the row's uncovered tally items (its first length[mask] entries).
        FUZZ_REQUIRE(masks[r] == general_masks[r] && masks[r] >= 0 && masks[r] < ts.masks);
        int64_t sum = 0;
        for (int64_t y = 0; y < t.length[masks[r]]; ++y) {
            const int64_t v = vectors[r * width_out + y];
            FUZZ_REQUIRE(v >= 0 && v == general_vectors[r * width_out + y]);
            sum += v;
        }
        FUZZ_REQUIRE(sum == expected[r]);
    }
    for (uint64_t k = 0; k < scratch.size; ++k) FUZZ_REQUIRE(scratch[k] == 0);
    return 0;
}
