// The towers programme's layer step, its trace back and its best score (towers/programme.py).
#include "cpcore/check.hpp"
#include "cpcore/entry.h"
#include "cpcore/towers.hpp"

using cpcore::word;
using namespace cpcore::towers;

namespace {

Cell cell_of(const cpcore_towers_cell* c) {
    const int64_t* shape = c->shape;
    return Cell{shape[0], shape[1], shape[2], shape[3], c->needs, c->n_codes, shape[4],
                shape[5]};
}

}  // namespace

extern "C" uint64_t cpcore_towers_step(const cpcore_towers_layer* from,
                                       const cpcore_towers_cell* cell, int64_t floor,
                                       const cpcore_towers_into* into, uint64_t used,
                                       uint64_t* at) {
    uint64_t* new_keys = into->keys;
    int64_t* new_vals = into->vals;
    const uint64_t cap = into->n_slots;
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
    *at = each_successor(from->keys, from->vals, from->n_slots, cell_of(cell), cell->table,
                         cell->allowed, floor, *at,
                         [&](uint64_t, uint64_t, int64_t score, word next) {
                             CPCORE_ASSERT(used < cap);  // a free slot is left to probe to
                             used += insert(new_keys, new_vals, cap, next, score);
                             return used * 2 > cap;
                         });
    return used;
}

extern "C" void cpcore_towers_rehash(const cpcore_towers_layer* from,
                                     const cpcore_towers_into* into) {
    for (uint64_t q = 0; q < into->n_slots; ++q) {
        into->keys[q] = EMPTY;
        into->vals[q] = 0;
    }
    uint64_t used = 0;
    for (uint64_t q = 0; q < from->n_slots; ++q) {
        if (from->keys[q] == EMPTY) continue;
        CPCORE_ASSERT(used < into->n_slots);  // a bigger table: a free slot is left to probe to
        used += insert(into->keys, into->vals, into->n_slots, from->keys[q], from->vals[q]);
    }
}

extern "C" int64_t cpcore_towers_predecessor(const cpcore_towers_layer* from,
                                             const cpcore_towers_cell* cell, uint64_t target,
                                             int64_t value, int64_t* colour) {
    int64_t found = -1;
    *colour = -1;
    each_successor(from->keys, from->vals, from->n_slots, cell_of(cell), cell->table,
                   cell->allowed, INT64_MIN, 0,
                   [&](uint64_t s, uint64_t k, int64_t score, word next) {
                       if (score != value || next != target) return false;
                       found = (int64_t)s;
                       *colour = (int64_t)k;
                       return true;
                   });
    return found;
}

extern "C" int64_t cpcore_towers_best(const cpcore_towers_layer* layer) {
    int64_t best = -((int64_t)1 << 62);  // an empty layer; scores may be negative
    for (uint64_t s = 0; s < layer->n_slots; ++s) {
        if (layer->keys[s] != EMPTY && layer->vals[s] > best) best = layer->vals[s];
    }
    return best;
}
