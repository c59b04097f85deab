// The towers programme's layer step, its trace back and its best score (towers/programme.py).
#include "cpcore/check.hpp"
#include "cpcore/entry.h"
#include "cpcore/towers.hpp"

using cpcore::word;
using namespace cpcore::towers;

namespace {

Cell cell_at(const int64_t* shape, const int64_t* needs, uint64_t n_codes) {
    return Cell{shape[0], shape[1], shape[2], shape[3], needs, n_codes, shape[4], shape[5]};
}

}  // namespace

extern "C" uint64_t cpcore_towers_step(const uint64_t* keys, const int64_t* vals,
                                       uint64_t n_keys, const int64_t* shape,
                                       const int64_t* table, const int64_t* needs,
                                       uint64_t n_codes, int64_t allowed, int64_t floor,
                                       uint64_t* new_keys, int64_t* new_vals, uint64_t cap,
                                       uint64_t used, uint64_t* at) {
    if (*at == 0) {
        for (uint64_t q = 0; q < cap; ++q) new_keys[q] = EMPTY;
        used = 0;
    } else {
        // Going on in a table the caller holds: its states counted here, not taken on trust,
        // so that the stop at half full always leaves a free slot to probe to. (The caller
        // has just moved the states in, which took as long.)
        used = 0;
        for (uint64_t q = 0; q < cap; ++q) used += new_keys[q] != EMPTY;
        if (used * 2 > cap) return used;
    }
    // Stops when the table is half full: the caller gives a bigger one, then goes on.
    *at = each_successor(keys, vals, n_keys, cell_at(shape, needs, n_codes), table, allowed,
                         floor, *at, [&](uint64_t, uint64_t, int64_t score, word next) {
                             CPCORE_ASSERT(used < cap);  // a free slot is left to probe to
                             used += insert(new_keys, new_vals, cap, next, score);
                             return used * 2 > cap;
                         });
    return used;
}

extern "C" void cpcore_towers_rehash(const uint64_t* keys, const int64_t* vals, uint64_t n_keys,
                                     uint64_t* into_keys, int64_t* into_vals, uint64_t cap) {
    for (uint64_t q = 0; q < cap; ++q) {
        into_keys[q] = EMPTY;
        into_vals[q] = 0;
    }
    uint64_t used = 0;
    for (uint64_t q = 0; q < n_keys; ++q) {
        if (keys[q] == EMPTY) continue;
        CPCORE_ASSERT(used < cap);  // cap > n_keys: a free slot is left to probe to
        used += insert(into_keys, into_vals, cap, keys[q], vals[q]);
    }
}

extern "C" int64_t cpcore_towers_predecessor(const uint64_t* keys, const int64_t* vals,
                                             uint64_t n_keys, uint64_t target, int64_t value,
                                             const int64_t* shape, const int64_t* table,
                                             const int64_t* needs, uint64_t n_codes,
                                             int64_t allowed, int64_t* colour) {
    int64_t found = -1;
    *colour = -1;
    each_successor(keys, vals, n_keys, cell_at(shape, needs, n_codes), table, allowed,
                   INT64_MIN, 0, [&](uint64_t s, uint64_t k, int64_t score, word next) {
                       if (score != value || next != target) return false;
                       found = (int64_t)s;
                       *colour = (int64_t)k;
                       return true;
                   });
    return found;
}

extern "C" int64_t cpcore_towers_best(const uint64_t* keys, const int64_t* vals,
                                      uint64_t n_keys) {
    int64_t best = -((int64_t)1 << 62);  // an empty layer; scores may be negative
    for (uint64_t s = 0; s < n_keys; ++s) {
        if (keys[s] != EMPTY && vals[s] > best) best = vals[s];
    }
    return best;
}
