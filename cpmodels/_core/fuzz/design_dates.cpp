// Fuzz target: a design's dates made for its decision (cpcore_design_dates), for any reach
// layout's label groups and options (as the binding accepts them: one to three groups of
// cells, slack options of one cell, pieces' options of any cells) and any rows of option ids.
// A date that does not leave one hole in each group must be refused; else each date's
// combination must read back as its holes' labels and cells, its held holes be its holes but
// the open group's, and its group be shared exactly by the dates holding the same ones.
#include <map>

#include "bytes.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {
namespace {

// The adapter: the one call of the entry point.
int64_t design_dates(const cpcore_dates_input& in) { return cpcore_design_dates(&in); }

int highest(uint64_t cells) { return 63 - __builtin_clzll(cells); }

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const uint64_t n_groups = 1 + in.count(2);
    // Each cell in one group or none; group g has cell g at least.
    uint64_t group_cells[3] = {0, 0, 0};
    for (uint64_t b = 0; b < 64; ++b) {
        const uint64_t g = b < n_groups ? b : in.count(n_groups);
        if (g < n_groups) group_cells[g] |= (uint64_t)1 << b;
    }
    cpcore_reach_layout L{};
    std::vector<uint64_t> group_unit(n_groups), a_label(64, 0), b_label(64, 0);
    int sizes[3] = {0, 0, 0};
    for (uint64_t g = 0; g < n_groups; ++g) {
        group_unit[g] = (uint64_t)1 << g;
        L.slack_units |= group_unit[g];
        sizes[g] = __builtin_popcountll(group_cells[g]);
    }
    int64_t bit_group = 0;
    for (uint64_t g = 1; g < n_groups; ++g)
        if (sizes[g] > sizes[bit_group]) bit_group = (int64_t)g;
    int64_t others[2] = {-1, -1};
    for (int64_t g = 0, k = 0; g < (int64_t)n_groups; ++g)
        if (g != bit_group) others[k++] = g;
    auto labels = [&](int64_t g, std::vector<uint64_t>& out) {
        if (g < 0) return;
        uint64_t k = 0;
        for (int b = 0; b < 64; ++b)
            if (group_cells[g] >> b & 1) out[b] = k++;
    };
    labels(others[0], a_label);
    labels(others[1], b_label);
    const uint64_t a_size = others[0] >= 0 ? sizes[others[0]] : 1;
    const uint64_t b_size = others[1] >= 0 ? sizes[others[1]] : 1;
    // The options: slack options at a cell of their group, or a piece's at any cells.
    const uint64_t n_options = in.count(96);
    std::vector<uint64_t> opt_cells(n_options), opt_unit(n_options);
    for (uint64_t o = 0; o < n_options; ++o) {
        if (in.count(1) == 0) {
            const uint64_t g = in.count(n_groups - 1);
            uint64_t k = in.count((uint64_t)sizes[g] - 1), cells = group_cells[g];
            while (k--) cells &= cells - 1;
            opt_cells[o] = cells & (~cells + 1);
            opt_unit[o] = group_unit[g];
        } else {
            opt_cells[o] = (uint64_t)in.number();
            opt_unit[o] = (uint64_t)1 << (3 + in.count(60));
        }
    }
    L.opt_cells = opt_cells.data();
    L.opt_unit = opt_unit.data();
    L.n_options = n_options;
    L.group_cells = group_cells;
    L.group_unit = group_unit.data();
    L.n_groups = n_groups;
    L.bit_group = bit_group;
    L.a_group = others[0];
    L.b_group = others[1];
    L.a_label = a_label.data();
    L.b_label = b_label.data();
    L.a_stride = b_size;
    L.n_index = a_size * b_size;
    cpcore_dates_input d{};
    d.layout = &L;
    d.left_open = in.within(-1, (int64_t)n_groups - 1);
    d.n_dates = in.count(40);
    d.hole_cols = 1 + in.count(4);
    const uint64_t n = d.n_dates, cols = d.hole_cols;
    std::vector<int64_t> holes = in.numbers_within(n * cols, -1, (int64_t)n_options - 1);
    Buffer<int64_t> held(n * cols, 7), group(n, 7), index(n, 7),
        work(cpcore_design_dates_work_words(n), 7);
    Buffer<uint64_t> bit(n, 7);
    d.holes = holes.data();
    d.held = held.data();
    d.group = group.data();
    d.index = index.data();
    d.bit = bit.data();
    d.work = work.data();
    const int64_t status = cpfuzz::design_dates(d);
    // Each date's hole in each group (its cells), or that the date is refused.
    auto group_of = [&](int64_t o) -> int64_t {
        if ((opt_unit[o] & L.slack_units) == 0 || opt_cells[o] == 0) return -1;
        return __builtin_ctzll(opt_unit[o]);
    };
    bool refused = false;
    std::map<std::vector<int64_t>, int64_t> first;
    for (uint64_t k = 0; k < n && !refused; ++k) {
        uint64_t hole[3] = {0, 0, 0};
        std::vector<int64_t> kept;
        for (uint64_t c = 0; c < cols; ++c) {
            const int64_t o = holes[k * cols + c];
            if (o < 0) continue;
            const int64_t g = group_of(o);
            if (g < 0 || hole[g]) {
                refused = true;
                break;
            }
            hole[g] = opt_cells[o];
            if (g != d.left_open) kept.push_back(o);
        }
        for (uint64_t g = 0; g < n_groups; ++g) refused = refused || hole[g] == 0;
        if (refused) break;
        if (status != 0) continue;
        FUZZ_REQUIRE(bit[k] == hole[bit_group]);
        const uint64_t a = others[0] >= 0 ? a_label[cpfuzz::highest(hole[others[0]])] : 0;
        const uint64_t b = others[1] >= 0 ? b_label[cpfuzz::highest(hole[others[1]])] : 0;
        FUZZ_REQUIRE((uint64_t)index[k] == a * b_size + b && (uint64_t)index[k] < L.n_index);
        for (uint64_t c = 0; c < cols; ++c)
            FUZZ_REQUIRE(held[k * cols + c] == (c < kept.size() ? kept[c] : -1));
        kept.resize(cols, -1);
        const int64_t number = (int64_t)first.size();
        const auto found = first.emplace(kept, number).first->second;
        FUZZ_REQUIRE(group[k] == found);
    }
    FUZZ_REQUIRE(refused ? status == CPCORE_DATES_NOT_A_HOLE || status == CPCORE_DATES_GROUP_HOLES
                         : status == 0);
    return 0;
}
