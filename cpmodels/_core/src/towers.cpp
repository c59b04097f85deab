// The towers programme's layer step, its trace back and its best score (towers/programme.py).
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
    const Cell cell = cell_at(shape, needs, n_codes);
    const uint64_t end = n_keys * n_codes;
    if (*at == 0) {
        for (uint64_t q = 0; q < cap; ++q) new_keys[q] = EMPTY;
    }
    for (uint64_t s = *at / n_codes; s < n_keys; ++s) {
        const word key = keys[s];
        if (key == EMPTY) continue;
        const Around a = around(key, cell);
        const int64_t* score_of = scores(table, cell, a);
        const uint64_t first = s == *at / n_codes ? *at % n_codes : 0;
        for (uint64_t k = first; k < n_codes; ++k) {
            const int64_t score = vals[s] + score_of[k];
            if (!((allowed >> k) & 1) || score < floor) continue;
            const word next = successor(key, (int64_t)k, cell, a);
            if (next == EMPTY) continue;
            used += insert(new_keys, new_vals, cap, next, score);
            if (used * 2 > cap) {  // full: the caller gives a bigger table, then goes on
                *at = s * n_codes + k + 1;
                return used;
            }
        }
    }
    *at = end;
    return used;
}

extern "C" void cpcore_towers_rehash(const uint64_t* keys, const int64_t* vals, uint64_t n_keys,
                                     uint64_t* into_keys, int64_t* into_vals, uint64_t cap) {
    for (uint64_t q = 0; q < cap; ++q) {
        into_keys[q] = EMPTY;
        into_vals[q] = 0;
    }
    for (uint64_t q = 0; q < n_keys; ++q) {
        if (keys[q] != EMPTY) insert(into_keys, into_vals, cap, keys[q], vals[q]);
    }
}

extern "C" int64_t cpcore_towers_predecessor(const uint64_t* keys, const int64_t* vals,
                                             uint64_t n_keys, uint64_t target, int64_t value,
                                             const int64_t* shape, const int64_t* table,
                                             const int64_t* needs, uint64_t n_codes,
                                             int64_t allowed, int64_t* colour) {
    const Cell cell = cell_at(shape, needs, n_codes);
    for (uint64_t s = 0; s < n_keys; ++s) {
        const Around a = around(keys[s], cell);
        const int64_t* score_of = scores(table, cell, a);
        for (uint64_t k = 0; k < n_codes; ++k) {
            if (((allowed >> k) & 1) && vals[s] + score_of[k] == value
                && successor(keys[s], (int64_t)k, cell, a) == target) {
                *colour = (int64_t)k;
                return (int64_t)s;
            }
        }
    }
    *colour = -1;
    return -1;
}

extern "C" int64_t cpcore_towers_best(const uint64_t* keys, const int64_t* vals,
                                      uint64_t n_keys) {
    int64_t best = -((int64_t)1 << 62);  // an empty layer; scores may be negative
    for (uint64_t s = 0; s < n_keys; ++s) {
        if (keys[s] != EMPTY && vals[s] > best) best = vals[s];
    }
    return best;
}
