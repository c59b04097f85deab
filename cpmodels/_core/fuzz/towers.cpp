// Fuzz target: the towers programme's steps (cpcore_towers_step, _rehash, _predecessor,
// _best) on any key layout, score table, needs, layer and new table the bindings accept:
// the step runs to its end through rehashes as programme.py drives it, and every state it
// keeps must lead back to a predecessor in the layer before.
#include "bytes.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {
namespace {

constexpr uint64_t EMPTY = ~(uint64_t)0;

struct Cell {
    std::vector<int64_t> shape, table, needs;  // (i, j, rows, cols, bits, none)
    int64_t allowed = 0, floor = 0;
};

// A cell the bindings accept: bits = colour bits + codes, none + 1 >= 2 ** colour bits.
Cell read_cell(Bytes& in) {
    Cell c;
    const int64_t codes = in.count(3) == 3 ? in.within(1, 63) : in.within(1, 6);
    const int64_t colour_bits = in.within(1, 64 - codes < 7 ? 64 - codes : 7);
    const int64_t bits = codes + colour_bits;
    const int64_t none = ((int64_t)1 << colour_bits) - 1 + (int64_t)in.count(8);
    const int64_t cols = in.within(1, 64 / bits), rows = in.within(1, 8);
    c.shape = {in.within(0, rows - 1), in.within(0, cols - 1), rows, cols, bits, none};
    c.needs = in.numbers(codes);
    c.table = in.numbers((none + 1) * (none + 1) * codes);
    c.allowed = in.number();
    c.floor = in.number();
    return c;
}

// The cell as the entry points read it.
cpcore_towers_cell cell_of(const Cell& c) {
    return cpcore_towers_cell{c.shape.data(), c.table.data(), c.needs.data(), c.needs.size(),
                              c.allowed};
}

// The adapters: one call of each entry point.
uint64_t step(const std::vector<uint64_t>& keys, const std::vector<int64_t>& vals,
              const Cell& c, Buffer<uint64_t>& new_keys, Buffer<int64_t>& new_vals,
              uint64_t used, uint64_t* at) {
    const cpcore_towers_layer from{keys.data(), vals.data(), keys.size()};
    const cpcore_towers_cell cell = cell_of(c);
    const cpcore_towers_into into{new_keys.data(), new_vals.data(), new_keys.size};
    return cpcore_towers_step(&from, &cell, c.floor, &into, used, at);
}

void rehash(Buffer<uint64_t>& keys, Buffer<int64_t>& vals, Buffer<uint64_t>& into_keys,
            Buffer<int64_t>& into_vals) {
    const cpcore_towers_layer from{keys.data(), vals.data(), keys.size};
    const cpcore_towers_into into{into_keys.data(), into_vals.data(), into_keys.size};
    cpcore_towers_rehash(&from, &into);
}

int64_t predecessor(const std::vector<uint64_t>& keys, const std::vector<int64_t>& vals,
                    uint64_t target, int64_t value, const Cell& c, int64_t* colour) {
    const cpcore_towers_layer from{keys.data(), vals.data(), keys.size()};
    const cpcore_towers_cell cell = cell_of(c);
    return cpcore_towers_predecessor(&from, &cell, target, value, colour);
}

int64_t best(const uint64_t* keys, const int64_t* vals, uint64_t n) {
    const cpcore_towers_layer layer{keys, vals, n};
    return cpcore_towers_best(&layer);
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const Cell c = read_cell(in);
    const uint64_t n_keys = in.count(32);
    std::vector<uint64_t> keys(n_keys);
    for (auto& k : keys) k = in.count(3) == 0 ? EMPTY : (uint64_t)in.number();
    const std::vector<int64_t> vals = in.numbers(n_keys);
    (void)best(keys.data(), vals.data(), n_keys);
    // The step from a fresh table, or resumed on a table the caller filled (any keys).
    uint64_t cap = (uint64_t)1 << in.count(6);
    Buffer<uint64_t> new_keys(cap, EMPTY);
    Buffer<int64_t> new_vals(cap, 0);
    const uint64_t done = n_keys * c.needs.size();
    uint64_t at = in.count(1) && done > 0 ? 1 + in.count(done - 1) : 0, used = 0;
    const bool fresh = at == 0;
    if (!fresh) {
        for (uint64_t q = 0; q < cap; ++q) new_keys[q] = (uint64_t)in.number();
        used = in.count(cap / 2);
    }
    for (int rounds = 0; rounds < 24; ++rounds) {
        used = step(keys, vals, c, new_keys, new_vals, used, &at);
        FUZZ_REQUIRE(at <= done && used <= cap);
        if (at == done) break;
        Buffer<uint64_t> grown_keys(2 * cap);
        Buffer<int64_t> grown_vals(2 * cap);
        rehash(new_keys, new_vals, grown_keys, grown_vals);
        new_keys = std::move(grown_keys);
        new_vals = std::move(grown_vals);
        cap *= 2;
    }
    if (at != done) return 0;
    if (!fresh) return 0;
    // Each state kept leads back to the layer before, with its best score.
    uint64_t kept = 0;
    for (uint64_t q = 0; q < cap; ++q) kept += new_keys[q] != EMPTY;
    FUZZ_REQUIRE(kept == used);
    if (used > 0) {
        int64_t top = new_vals[0];
        bool first = true;
        for (uint64_t q = 0; q < cap; ++q)
            if (new_keys[q] != EMPTY && (first || new_vals[q] > top)) top = new_vals[q], first = false;
        FUZZ_REQUIRE(best(new_keys.data(), new_vals.data(), cap) == top);
    }
    for (uint64_t q = 0; q < cap && q < 64; ++q) {
        if (new_keys[q] == EMPTY) continue;
        int64_t colour = -2;
        const int64_t s = predecessor(keys, vals, new_keys[q], new_vals[q], c, &colour);
        FUZZ_REQUIRE(s >= 0 && s < (int64_t)n_keys && colour >= 0 &&
                     colour < (int64_t)c.needs.size());
    }
    return 0;
}
