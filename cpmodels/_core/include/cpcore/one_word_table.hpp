// The tables of the searches on the one-word layout, keyed by one word's state (the covered
// cells and the units used, with the holes placed for the reach search): open-addressed
// rows of ``width`` words in a power-of-two array, hashed by ``mix`` and walked by
// ``probe``. A table that is three quarters full is emptied before it takes another
// state. Freestanding.
#pragma once

#include <stdint.h>

#include "cpcore/entry.h"
#include "cpcore/hash.hpp"

namespace cpcore {

// What each entry of a table's statistics holds (as the Python side's memo names them).
enum Stat : unsigned { USED = 0, HITS = 1, MISSES = 2, NODES = 3, ARENA_USED = 4, STOP = 5,
                       FLUSHES = 6 };

// The hash of a state of two words, the second spread first (``spread`` and ``shift``
// tell the tables apart).
inline __attribute__((always_inline)) word state_hash(word cells, word used, word spread,
                                                      unsigned shift) {
    word u = used * spread;
    return mix(cells, u ^ (u >> shift));
}

// The rows' column ``at`` cleared: every slot empty.
inline void clear_column(word* keys, uint64_t n_slots, uint64_t width, uint64_t at) {
    for (uint64_t s = 0; s < n_slots; ++s) keys[s * width + at] = 0;
}

// Whether a table of ``n_slots`` holding ``used`` states is three quarters full.
inline __attribute__((always_inline)) bool nearly_full(int64_t used, uint64_t n_slots) {
    return (uint64_t)used * 4 >= n_slots * 3;
}

// The table of sub-board counts: rows (cells, units used, value), value 0 an empty slot.
struct CountTable {
    word* keys;
    uint64_t n_slots;
    int64_t* arena;
    uint64_t arena_size;
    int64_t* stats;

    explicit CountTable(const cpcore_one_word_table& t)
        : keys(t.keys), n_slots(t.n_slots), arena(t.arena), arena_size(t.arena_size),
          stats(t.stats) {}

    static inline __attribute__((always_inline)) word hash(word cells, word used) {
        return state_hash(cells, used, MIX1, 31);
    }

    // Ask the processor's caches for the first slot of a state's probe. WebAssembly has no
    // prefetch (clang drops the builtin): there a load whose value nothing waits for asks
    // the same, the processor going on while it comes, so a node's children's loads overlap.
    inline __attribute__((always_inline)) void fetch(word h) const {
#ifdef __wasm__
        (void)*static_cast<const volatile word*>(keys + (h & (n_slots - 1)) * 3);
#else
        __builtin_prefetch(keys + (h & (n_slots - 1)) * 3, 0, 3);
#endif
    }

    // A state's hash, its first slot fetched meanwhile.
    inline __attribute__((always_inline)) word home(word cells, word used) const {
        const word h = hash(cells, used);
        fetch(h);
        return h;
    }

    inline __attribute__((always_inline)) uint64_t slot(word h, word cells, word used) const {
        const word* k = keys;
        return probe(h, n_slots, [k](uint64_t s) { return k[s * 3 + 2] != 0; },
                     [k, cells, used](uint64_t s) {
                         return k[s * 3] == cells && k[s * 3 + 1] == used;
                     });
    }

    inline __attribute__((always_inline)) word value(word h, word cells, word used) const {
        return keys[slot(h, cells, used) * 3 + 2];
    }

    // Empty the table (and its arena, ``with_arena``).
    inline void empty(bool with_arena) {
        clear_column(keys, n_slots, 3, 2);
        stats[USED] = 0;
        if (with_arena) stats[ARENA_USED] = 0;
        stats[FLUSHES] += 1;
    }

    // Keep a finished state's value (nonzero); ``h``: its hash.
    inline __attribute__((always_inline)) void put(word h, word cells, word used, word value) {
        const uint64_t s = slot(h, cells, used);
        keys[s * 3] = cells;
        keys[s * 3 + 1] = used;
        keys[s * 3 + 2] = value;
        stats[USED] += 1;
    }
};

// The reach search's states searched to the end: rows (cells, units used, holes, mark); a
// row is in use when its mark is the call's or DEAD.
const word DEAD = 1;

struct ReachTable {
    word* keys;
    uint64_t n_slots;
    int64_t* stats;
    word mark;

    inline __attribute__((always_inline)) uint64_t slot(word cells, word used,
                                                        word holes) const {
        const word* k = keys;
        const word m = mark;
        return probe(state_hash(cells ^ (holes * MIX2), used, MIX1, 31), n_slots,
                     [k, m](uint64_t s) { return k[s * 4 + 3] == m || k[s * 4 + 3] == DEAD; },
                     [k, cells, used, holes](uint64_t s) {
                         return k[s * 4] == cells && k[s * 4 + 1] == used &&
                                k[s * 4 + 2] == holes;
                     });
    }

    // Keep a state searched to the end (DEAD: it has no completion at all).
    inline void keep(word cells, word used, word holes, bool dead) {
        if (nearly_full(stats[USED], n_slots)) {
            clear_column(keys, n_slots, 4, 3);
            stats[USED] = 0;
            stats[FLUSHES] += 1;
        }
        uint64_t s = slot(cells, used, holes);
        word* row = keys + s * 4;
        if (row[3] != mark && row[3] != DEAD) stats[USED] += 1;
        row[0] = cells;
        row[1] = used;
        row[2] = holes;
        row[3] = dead ? DEAD : mark;
    }
};

// The reach search's settled states: rows (cells, units used, labels found, labels
// decided); nothing decided is an empty slot.
struct SettledTable {
    word* keys;
    uint64_t n_slots;
    int64_t* counts;

    inline __attribute__((always_inline)) const word* row(word cells, word used) const {
        const word* k = keys;
        return keys + 4 * probe(state_hash(cells, used, MIX2, 29), n_slots,
                                [k](uint64_t s) { return k[s * 4 + 3] != 0; },
                                [k, cells, used](uint64_t s) {
                                    return k[s * 4] == cells && k[s * 4 + 1] == used;
                                });
    }

    // Add what a search decided of a state to its entry.
    inline void keep(word cells, word used, word yes, word done) {
        if (nearly_full(counts[USED], n_slots)) {
            clear_column(keys, n_slots, 4, 3);
            counts[USED] = 0;
            counts[FLUSHES] += 1;
        }
        word* r = const_cast<word*>(row(cells, used));
        if (r[3] == 0) {
            counts[USED] += 1;
            r[0] = cells;
            r[1] = used;
            r[2] = 0;
        }
        r[2] |= yes;
        r[3] |= done;
    }
};

}  // namespace cpcore
