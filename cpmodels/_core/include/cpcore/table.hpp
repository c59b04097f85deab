// The memo table every search of the core keeps its finished states in: an exact
// open-addressed hash table (cpcore/hash.hpp's probe) whose rows hold a key, and whose
// values are a count (kept as count + 1) or, for a vector of counts, where its nonzero run
// lies in the arena (offset + 1). A zero value marks an empty slot.
//
// The key is the search's: a type with
//   word hash() const                  -- the slot it starts probing from (before masking),
//   bool same(const word* row) const   -- whether a key row holds it,
//   void write(word* row) const        -- writes it into a key row.
// The statistics are memo.py's (USED .. FLUSHES, indexed by the names below); the caller
// owns every buffer. Freestanding.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cpcore/hash.hpp"

namespace cpcore {

// What each entry of a table's statistics holds (memo.py's names and order).
enum TableStat : unsigned {
    USED = 0,        // slots in use
    HITS = 1,        // lookups that found their state
    MISSES = 2,      // lookups that did not
    NODES = 3,       // states searched
    ARENA_USED = 4,  // arena entries in use
    STOP = 5,        // the stop flag another thread may set
    FLUSHES = 6,     // times the full table was emptied to make room
};

struct Table {
    word* keys;          // n_slots rows of key_stride words
    int64_t* values;     // slot s's value: values[s * value_stride] (0: empty)
    int64_t* arena;      // the count vectors' runs: first index, length, the counts
    int64_t* stats;      // USED .. FLUSHES
    uint64_t n_slots;    // a power of two
    uint64_t key_stride;
    uint64_t value_stride;
    uint64_t n_arena;

    int64_t& value(uint64_t s) const { return values[s * value_stride]; }

    template <class Key>
    inline __attribute__((always_inline)) uint64_t slot(const Key& key) const {
        return probe(key.hash(), n_slots, [&](uint64_t s) { return value(s) != 0; },
                     [&](uint64_t s) { return key.same(keys + s * key_stride); });
    }

    // The value kept for a key, less one (the count, or the arena offset of its vector),
    // or -1 when the table has none; counted as a hit or a miss.
    template <class Key>
    inline __attribute__((always_inline)) int64_t lookup(const Key& key) const {
        const int64_t v = value(slot(key));
        if (v != 0) {
            stats[HITS] += 1;
            return v - 1;
        }
        stats[MISSES] += 1;
        return -1;
    }

    // Keep a key's counts: with ``scalar`` the count vec[0] in the slot itself, else the run
    // vec[lo .. hi) in the arena as (lo, hi - lo, the counts). A table three quarters full,
    // or an arena without room, is emptied first (every value kept is a shortcut, never
    // needed): a long search keeps the recent states rather than running on with a full
    // table. A vector that could never fit the arena is not kept.
    template <class Key>
    void store(const Key& key, const int64_t* vec, uint64_t lo, uint64_t hi, bool scalar) {
        const uint64_t n = hi - lo;
        if (!scalar && n + 2 > n_arena) return;
        if ((uint64_t)stats[USED] * 4 >= n_slots * 3 ||
            !(scalar || (uint64_t)stats[ARENA_USED] + n + 2 <= n_arena)) {
            for (uint64_t s = 0; s < n_slots; ++s) value(s) = 0;  // the keys may stay
            stats[USED] = 0;
            stats[ARENA_USED] = 0;
            stats[FLUSHES] += 1;
        }
        const uint64_t top = (uint64_t)stats[ARENA_USED];
        const uint64_t s = slot(key);
        key.write(keys + s * key_stride);
        stats[USED] += 1;
        if (scalar) {
            value(s) = vec[0] + 1;
            return;
        }
        arena[top] = (int64_t)lo;
        arena[top + 1] = (int64_t)n;
        for (uint64_t x = 0; x < n; ++x) arena[top + 2 + x] = vec[lo + x];
        value(s) = (int64_t)top + 1;
        stats[ARENA_USED] = (int64_t)(top + n + 2);
    }
};

// A key of words and a code (a packing state and its counter code): hashed as
// ``code * GOLDEN`` mixed with each word in turn, kept as the words then the code.
struct WordsKey {
    const word* words;
    unsigned n_words;
    word code;

    word hash() const {
        word h = code * GOLDEN;
        for (unsigned w = 0; w < n_words; ++w) h = mix(h, words[w]);
        return h;
    }
    bool same(const word* row) const {
        if (row[n_words] != code) return false;
        for (unsigned w = 0; w < n_words; ++w)
            if (row[w] != words[w]) return false;
        return true;
    }
    void write(word* row) const {
        for (unsigned w = 0; w < n_words; ++w) row[w] = words[w];
        row[n_words] = code;
    }
};

// The same key held in two words (the second one part of it when ``two``).
struct TwoWordsKey {
    word a, b;
    bool two;
    word code;

    word hash() const {
        const word h = mix(code * GOLDEN, a);
        return two ? mix(h, b) : h;
    }
    bool same(const word* row) const {
        return row[two ? 2 : 1] == code && row[0] == a && (!two || row[1] == b);
    }
    void write(word* row) const {
        row[0] = a;
        if (two) row[1] = b;
        row[two ? 2 : 1] = code;
    }
};

}  // namespace cpcore
