// The one memo table of the core: every search keeps its finished states in it (the
// packing searches' counts, tallies and dead states, the one-word count and tally, the
// reach search's states searched to the end and its settled states). Freestanding; the
// caller owns every buffer.
//
// Data layout (n_slots a power of two; slot s is row s):
//   keys[s * stride .. s * stride + stride)   row s: the key's words, then (for a table
//                                             whose values live in its rows) the value;
//   value(s)                                  keys[s * stride + stride - 1] when the row
//                                             holds it (every table whose row width is a
//                                             template constant), else values[s *
//                                             value_stride] (the packing searches' table,
//                                             whose N-word rows keep their values apart);
//   arena[0 .. stats[ARENA_USED])             runs of count vectors, one after another, each
//                                             (first index, length, the counts), or packed
//                                             (the one-word tally's: see packed runs);
//   stats[USED .. FLUSHES]                    the figures of enum Stat below.
// Invariants: value(s) == 0 exactly when slot s is empty (a key's rows hold its value
// biased so that no value kept is 0); stats[USED] counts the slots in use and stays below
// three quarters of n_slots after a store; a key is in the first slot at or after
// hash & (n_slots - 1), cyclically, that is empty or holds it (linear probing, hash.hpp's
// probe), so a lookup ends at an empty slot and the table always has one; every arena run
// referred to by a slot lies within arena[0 .. stats[ARENA_USED]) <= n_arena.
//
// The one flush rule (make_room): before a store, a table three quarters full, or whose
// arena lacks room for the run to keep, is emptied: every value set to 0 (the keys may
// stay), USED and ARENA_USED to 0, FLUSHES + 1. Every value kept is a shortcut, never
// needed, so a long search keeps the recent states rather than running on with a full
// table; a run that could never fit the arena is not kept.
//
// A growing table (the one-word count and tally's of QUARTER_FROM slots or more: grown())
// probes only its first ``live`` slots: a table of more than GROWS_ABOVE slots from
// FIRST_LIVE, a power of two up to n_slots, doubled in place (grow) by a store that makes
// it five eighths full (full_to_grow); a smaller one (a count's; the page's tables of at
// most 1,048,576 slots) a quarter of its slots, then all of them once that quarter is five
// eighths full. Its probes stay short and the
// same states are kept as in a table of n_slots from the start (and the same nodes
// searched). live is a function of USED and of where the caller has it start (grown_size),
// so a table handed from call to call needs no other record of it; every slot at or past
// live is empty. A caller that knows its table will hold millions of states has a large
// one start from more slots (its ``first``, cpcore_one_word_table's first_live): every
// doubling puts back each state held, and those below it take their rows' pages all the
// same (the browser's weekday tasks, 2 million states a worker: a doubling from 2 to 4
// million slots took 200 to 350 ms, the start from 4 million none of that). A search that
// keeps few states so touches (faults in, zeroed by the system, and caches) few rows: a
// sweep's table of 8 million slots spread the 280,000 states of calendar_day over 200 MB
// of rows, which cost twice the search's own time; the count of the 8x8 board with the
// centre hole keeps 21,176 states, which a count's table of 262,144 slots (6 MB) spread
// over all its rows, faulted in and zeroed (2.5 ms of CPU a count more than its quarter's
// 1.5 MB). A small table grows at most once: doubled from FIRST_LIVE, the 6x10
// count (119,210 states) took 6.7% more instructions in its moves, grown once 2.0%.
//
// A search reaches rows through its key, a type with
//   word hash() const                  -- where its probe starts (before masking),
//   bool same(const word* row) const   -- whether a row holds it,
//   void write(word* row) const        -- writes it into a row.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cpcore/check.hpp"
#include "cpcore/hash.hpp"

namespace cpcore {

// What each entry of a table's statistics holds (memo.py's names and order).
enum Stat : unsigned {
    USED = 0,        // slots in use
    HITS = 1,        // lookups that found their state
    MISSES = 2,      // lookups that did not
    NODES = 3,       // states searched
    ARENA_USED = 4,  // arena entries in use
                     // (entry 5 is the caller's: memo.py keeps a table's stop flag there,
                     // and hands it to each search as its stop argument)
    FLUSHES = 6,     // times the full table was emptied to make room
};

#ifndef CPCORE_FIRST_LIVE
#define CPCORE_FIRST_LIVE ((uint64_t)1 << 14)
#endif
const uint64_t FIRST_LIVE = CPCORE_FIRST_LIVE;  // a growing table's first live slots (384 KB)
#ifndef CPCORE_GROWS_ABOVE
#define CPCORE_GROWS_ABOVE ((uint64_t)1 << 20)
#endif
const uint64_t GROWS_ABOVE = CPCORE_GROWS_ABOVE;  // the slots of the largest table grown once
#ifndef CPCORE_QUARTER_FROM
#define CPCORE_QUARTER_FROM ((uint64_t)1 << 16)
#endif
const uint64_t QUARTER_FROM = CPCORE_QUARTER_FROM;  // the slots of the smallest table grown

// Packed runs (the one-word tally's vectors): a header word (first index, and the length
// times 2**32), then the counts, each 2**(width + 1) bits (2, 4, 8, 16, 32 or 64: width 0
// to 5; little-endian, the first count in a byte's low bits), as few words as hold them.
// A sweep's sub-board counts are small and mostly zeros: in calendar_week's runs 85% of the
// counts are 0 and 84% of the runs have none above 3, and calendar_week_11's runs average
// 159 counts, which take 160 words unpacked, 21 in bytes and about 6 in two bits each.
const unsigned PACKED_WIDTHS = 6;
inline int64_t packed_lo(int64_t header) { return header & 0xffffffff; }
inline int64_t packed_n(int64_t header) { return header >> 32; }
inline uint64_t packed_words(int64_t n, unsigned width) {
    return 1 + (((uint64_t)n << (width + 1)) + 63) / 64;
}
// The width (0 to 5: 2, 4, 8, 16, 32 or 64 bits a count) that holds the counts
// vec[lo .. lo + n).
inline unsigned packed_width(const int64_t* vec, int64_t lo, int64_t n) {
    uint64_t most = 0;
    for (int64_t x = 0; x < n; ++x) most |= (uint64_t)vec[lo + x];
    unsigned width = 0;
    while (width < PACKED_WIDTHS - 1 && (most >> (2u << width)) != 0) ++width;
    return width;
}
// ``each(x, count)`` for each of the n counts packed ``width`` wide from ``at``.
template <unsigned Width, class Each>
inline __attribute__((always_inline)) void each_packed_of(const int64_t* at, int64_t n,
                                                          Each each) {
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(at);
    const unsigned bits = 2u << Width;
    if (bits < 8) {
        const unsigned per = 8 / bits;  // counts a byte
        const unsigned mask = (1u << bits) - 1;
        for (int64_t x = 0; x < n; ++x)
            each(x, (int64_t)((bytes[(uint64_t)x / per] >> (((uint64_t)x % per) * bits)) & mask));
        return;
    }
    for (int64_t x = 0; x < n; ++x) {
        uint64_t c = 0;
        for (unsigned b = 0; b < bits / 8; ++b)
            c |= (uint64_t)bytes[(uint64_t)x * (bits / 8) + b] << (8 * b);
        each(x, (int64_t)c);
    }
}
template <class Each>
inline __attribute__((always_inline)) void each_packed(const int64_t* at, int64_t n,
                                                       unsigned width, Each each) {
    switch (width) {
        case 0: each_packed_of<0>(at, n, each); break;
        case 1: each_packed_of<1>(at, n, each); break;
        case 2: each_packed_of<2>(at, n, each); break;
        case 3: each_packed_of<3>(at, n, each); break;
        case 4: each_packed_of<4>(at, n, each); break;
        default: each_packed_of<5>(at, n, each); break;
    }
}

// Whether a growing table of ``live`` slots holding ``used`` states doubles: five eighths
// full. (Half full, calendar_week's sweep, 4.5 million states, doubled to 16 million
// slots, 384 MB of rows to fault in; at five eighths it keeps 8 million.)
inline bool full_to_grow(uint64_t used, uint64_t live) { return used * 8 >= live * 5; }

// A table whose rows are Stride words, the value last (Stride 0: the widths are the
// table's own, key_stride and value_stride, and the values where ``values`` says).
template <uint64_t Stride>
struct Rows {
    word* keys;
    word* values;          // (Stride 0) slot s's value: values[s * value_stride]
    int64_t* arena;
    int64_t* stats;        // USED .. FLUSHES
    uint64_t n_slots;      // a power of two
    uint64_t key_stride;   // (Stride 0) a row's words
    uint64_t value_stride;
    uint64_t n_arena;
    uint64_t live;         // the slots probed: n_slots, or a growing table's live ones
    bool grows = false;    // (grown())
    uint64_t first = FIRST_LIVE;  // a large growing table's first live slots (grown())

    inline __attribute__((always_inline)) uint64_t size() const { return live; }

    inline __attribute__((always_inline)) uint64_t stride() const {
        return Stride != 0 ? Stride : key_stride;
    }
    inline __attribute__((always_inline)) word* row(uint64_t s) const {
        return keys + s * stride();
    }
    inline __attribute__((always_inline)) word& value(uint64_t s) const {
        CPCORE_ASSERT(s < n_slots);
        return Stride != 0 ? keys[s * Stride + Stride - 1] : values[s * value_stride];
    }

    // The slot of a key: the first, from its hash ``h``, that is empty or holds it. With
    // ``occupied``, a slot is in use when it says so (the reach search's marked rows).
    template <class Same>
    inline __attribute__((always_inline)) uint64_t slot(word h, Same same) const {
        return probe(h, size(), [this](uint64_t s) { return value(s) != 0; },
                     [this, &same](uint64_t s) { return same(row(s)); });
    }
    template <class Occupied, class Same>
    inline __attribute__((always_inline)) uint64_t slot(word h, Occupied occupied,
                                                        Same same) const {
        return probe(h, size(), [this, &occupied](uint64_t s) { return occupied(row(s)); },
                     [this, &same](uint64_t s) { return same(row(s)); });
    }
    template <class Key>
    inline __attribute__((always_inline)) uint64_t slot(const Key& key) const {
        return slot(key.hash(), [&key](const word* r) { return key.same(r); });
    }

    // Ask the processor's caches for the first row of a probe from ``h``: the lines of its
    // first and last words (a row of three words crosses a line one time in four, and a
    // probe reads the value, the last, first). WebAssembly has no prefetch (clang drops
    // the builtin): there a load whose value nothing waits for asks the same, the
    // processor going on while it comes.
    inline __attribute__((always_inline)) void fetch(word h) const {
        const word* r = row(h & (size() - 1));
#ifdef __wasm__
        (void)*static_cast<const volatile word*>(r);
        (void)*static_cast<const volatile word*>(r + stride() - 1);
#else
        __builtin_prefetch(r, 0, 3);
        __builtin_prefetch(r + stride() - 1, 0, 3);
#endif
    }

    // The value of a key (0: none), counted as a hit or a miss.
    template <class Key>
    inline __attribute__((always_inline)) word lookup(const Key& key) const {
        const word v = value(slot(key));
        stats[v != 0 ? HITS : MISSES] += 1;
        return v;
    }

    // Empty every slot (the keys may stay) and the arena; a growing table starts again
    // from its first live slots (every slot past its live ones is empty already).
    void flush() {
        for (uint64_t s = 0; s < size(); ++s) value(s) = 0;
        stats[USED] = 0;
        stats[ARENA_USED] = 0;
        stats[FLUSHES] += 1;
        if (grows) live = grown_size(0, n_slots, first);
    }

    // The one flush rule, before keeping a state with a run of ``run`` arena words (0: its
    // value alone): false when the run could never fit (nothing is kept then).
    inline __attribute__((always_inline)) bool make_room(uint64_t run) {
        if (run > n_arena) return false;
        if ((uint64_t)stats[USED] * 4 >= size() * 3 ||
            (uint64_t)stats[ARENA_USED] + run > n_arena)
            flush();
        return true;
    }

    // Keep a key's value (nonzero) in its slot (after make_room); a growing table three
    // quarters full then doubles (grow), ``rehash(row)`` the hash of the key a row holds.
    template <class Key, class Rehash>
    inline __attribute__((always_inline)) void put(const Key& key, word v, Rehash rehash) {
        CPCORE_ASSERT(v != 0);
        const uint64_t s = slot(key);
        key.write(row(s));
        if (value(s) == 0) stats[USED] += 1;
        value(s) = v;
        CPCORE_ASSERT((uint64_t)stats[USED] < size());
        if (grows && live < n_slots && full_to_grow((uint64_t)stats[USED], live)) grow(rehash);
        CPCORE_ASSERT(live ==
                      (grows ? grown_size((uint64_t)stats[USED], n_slots, first) : n_slots));
    }
    template <class Key>
    inline __attribute__((always_inline)) void put(const Key& key, word v) {
        CPCORE_ASSERT(!grows);  // (a growing table is handed its rehash)
        put(key, v, [](const word*) { return (word)0; });
    }

    // The live slots of a growing table of ``n_slots`` that holds ``used`` states: a large
    // one's (more than GROWS_ABOVE slots) from ``first`` (a power of two, at least
    // FIRST_LIVE: first_slots), doubled while full_to_grow; a smaller one's a quarter of its
    // slots (QUARTER_FROM of them at least), then all of them once that is full_to_grow; at
    // most n_slots.
    static uint64_t grown_size(uint64_t used, uint64_t n_slots, uint64_t first = FIRST_LIVE) {
        if (n_slots <= GROWS_ABOVE)
            return n_slots >= QUARTER_FROM && !full_to_grow(used, n_slots / 4) ? n_slots / 4
                                                                               : n_slots;
        uint64_t live = first < n_slots ? first : n_slots;
        while (live < n_slots && full_to_grow(used, live)) live *= 2;
        return live;
    }

    // The first live slots of a large growing table whose caller asks for ``asked`` (0: the
    // core's FIRST_LIVE): the power of two at or below it, FIRST_LIVE at least.
    static uint64_t first_slots(uint64_t asked) {
        uint64_t first = FIRST_LIVE;
        while (first <= asked / 2) first *= 2;
        return first;
    }

    // Make this a growing table, its live slots those of the states it holds (a large one
    // from ``asked`` slots: first_slots).
    void grown(uint64_t asked = 0) {
        grows = n_slots > GROWS_ABOVE || n_slots >= QUARTER_FROM;
        first = first_slots(asked);
        live = grows ? grown_size((uint64_t)stats[USED], n_slots, first) : n_slots;
    }

    // Double the live slots (see above; a quarter of a small table's grows four times),
    // in place: the old slots walked once in turn from an empty one, each state taken out
    // and put back from its hash. A state whose first slot stays in the old part lands at
    // or before where it was, its probe over slots already walked (or on into the new
    // part, never emptied); one whose first slot moves to the new part probes there. Only
    // a probe that runs past the end of the grown table into the old part can cross a
    // slot not yet walked: then every state left where its probe cannot reach it is put
    // back again until none is.
    template <class Rehash>
    void grow(Rehash rehash) {
        const uint64_t old = live;
        uint64_t empty = 0;
        while (value(empty) != 0) ++empty;  // (a table five eighths full has one)
        live = n_slots <= GROWS_ABOVE ? n_slots : 2 * old;
        bool wrapped = false;
        for (uint64_t k = 1; k < old; ++k) {
            const uint64_t s = (empty + k) & (old - 1);
            if (value(s) != 0) wrapped = move(s, rehash) || wrapped;
        }
        while (wrapped) {  // (rare: a run of full slots to the end of the doubled table)
            wrapped = false;
            for (uint64_t s = 0; s < live; ++s)
                if (value(s) != 0 && !reachable(s, rehash)) {
                    move(s, rehash);
                    wrapped = true;
                }
        }
#ifdef CPCORE_DEBUG
        // Every state kept is found again from its hash in the doubled table.
        for (uint64_t s = 0; s < live; ++s) CPCORE_ASSERT(value(s) == 0 || reachable(s, rehash));
#endif
    }

    // The state in slot s taken out and put back from its hash; whether its probe ran past
    // the end of the table.
    template <class Rehash>
    bool move(uint64_t s, Rehash rehash) {
        word kept[Stride != 0 ? Stride : 8];
        const uint64_t w = stride();
        CPCORE_ASSERT(w <= sizeof(kept) / sizeof(kept[0]));
        for (uint64_t j = 0; j < w; ++j) kept[j] = row(s)[j];
        const word v = value(s);
        value(s) = 0;
        const word h = rehash(kept);
        const uint64_t t = slot(h, [](const word*) { return false; });
        for (uint64_t j = 0; j < w; ++j) row(t)[j] = kept[j];
        value(t) = v;
        return t < (h & (live - 1));
    }

    // Whether the probe from the hash of the state in slot s reaches s.
    template <class Rehash>
    bool reachable(uint64_t s, Rehash rehash) const {
        const word* r = row(s);
        return slot(rehash(r), [r](const word* at) { return at == r; }) == s;
    }

    // The run vec[lo .. lo + n) appended to the arena (after make_room(n + 2)): its offset.
    inline int64_t keep_run(const int64_t* vec, int64_t lo, int64_t n) {
        const int64_t top = stats[ARENA_USED];
        CPCORE_ASSERT(n >= 0 && (uint64_t)(top + n + 2) <= n_arena);
        arena[top] = lo;
        arena[top + 1] = n;
        for (int64_t x = 0; x < n; ++x) arena[top + 2 + x] = vec[lo + x];
        stats[ARENA_USED] = top + n + 2;
        return top;
    }

    // The run kept at ``at`` copied into its place in ``out``.
    inline void copy_run(int64_t at, int64_t* out) const {
        CPCORE_ASSERT(at >= 0 && at + 2 + arena[at + 1] <= stats[ARENA_USED]);
        for (int64_t x = 0; x < arena[at + 1]; ++x) out[arena[at] + x] = arena[at + 2 + x];
    }

    // The run vec[lo .. lo + n) appended to the arena packed (after make_room(
    // packed_words(n, width))): its offset. See packed_width.
    inline int64_t keep_packed(const int64_t* vec, int64_t lo, int64_t n, unsigned width) {
        const int64_t top = stats[ARENA_USED];
        const int64_t words = (int64_t)packed_words(n, width);
        CPCORE_ASSERT(n > 0 && lo >= 0 && width < PACKED_WIDTHS &&
                      (uint64_t)(top + words) <= n_arena);
        arena[top] = lo | (n << 32);
        for (int64_t j = 1; j < words; ++j) arena[top + j] = 0;
        unsigned char* bytes = reinterpret_cast<unsigned char*>(arena + top + 1);
        const uint64_t bits = (uint64_t)2 << width;
        for (int64_t x = 0; x < n; ++x) {
            const uint64_t c = (uint64_t)vec[lo + x], at = (uint64_t)x * bits;
            CPCORE_ASSERT(bits == 64 || (c >> bits) == 0);
            if (bits < 8)
                bytes[at / 8] = (unsigned char)(bytes[at / 8] | (c << (at % 8)));
            else
                for (uint64_t b = 0; b < bits / 8; ++b)
                    bytes[at / 8 + b] = (unsigned char)(c >> (8 * b));
        }
        stats[ARENA_USED] = top + words;
        return top;
    }

    // The packed run kept at ``at`` (its counts ``width`` wide) copied into ``out``.
    inline void copy_packed(int64_t at, unsigned width, int64_t* out) const {
        const int64_t lo = packed_lo(arena[at]), n = packed_n(arena[at]);
        CPCORE_ASSERT(at + (int64_t)packed_words(n, width) <= stats[ARENA_USED]);
        each_packed(arena + at + 1, n, width, [out, lo](int64_t x, int64_t c) { out[lo + x] = c; });
    }
};

// The packing searches' table: its widths are the layout's.
typedef Rows<0> Table;

// A count vector's zeros at both ends trimmed off the range [lo, hi) of ``vec``; an empty
// range becomes [0, 0).
inline void trim_zeros(const int64_t* vec, int64_t& lo, int64_t& hi) {
    while (lo < hi && vec[lo] == 0) ++lo;
    while (hi > lo && vec[hi - 1] == 0) --hi;
    if (hi <= lo) lo = hi = 0;
}

// The tally scatter: a child's counts src[at .. at + n) (its entries from .. from + n - 1)
// added into the parent's vector ``acc``, through ``map`` (the child's index to the
// parent's, offset by ``base``) when the option between them covers a tally item, as they
// are (map null) when it does not. Returns the parent's entries touched, [*lo, *hi).
inline void scatter(int64_t* acc, const int64_t* src, int64_t at, int64_t from, int64_t n,
                    int64_t base, const int64_t* map, int64_t* lo, int64_t* hi) {
    if (n <= 0) {
        *lo = *hi = 0;
        return;
    }
    if (map == nullptr) {
        for (int64_t x = 0; x < n; ++x) acc[from + x] += src[at + x];
        *lo = from;
        *hi = from + n;
        return;
    }
    map += from;
    for (int64_t x = 0; x < n; ++x) acc[base + map[x]] += src[at + x];
    *lo = base + map[0];
    *hi = base + map[n - 1] + 1;
}

// scatter for a packed run (its header at arena[at], its counts ``width`` wide).
inline void scatter_packed(int64_t* acc, const int64_t* arena, int64_t at, unsigned width,
                           int64_t base, const int64_t* map, int64_t* lo, int64_t* hi) {
    const int64_t from = packed_lo(arena[at]), n = packed_n(arena[at]);
    CPCORE_ASSERT(n > 0);
    if (map == nullptr) {
        each_packed(arena + at + 1, n, width,
                    [acc, from](int64_t x, int64_t c) { acc[from + x] += c; });
        *lo = from;
        *hi = from + n;
        return;
    }
    map += from;
    each_packed(arena + at + 1, n, width,
                [acc, base, map](int64_t x, int64_t c) { acc[base + map[x]] += c; });
    *lo = base + map[0];
    *hi = base + map[n - 1] + 1;
}

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

// The hash of a one-word state (two words, the second spread first; ``spread`` and
// ``shift`` tell the tables apart).
inline __attribute__((always_inline)) word state_hash(word cells, word used, word spread,
                                                      unsigned shift) {
    word u = used * spread;
    return mix(cells, u ^ (u >> shift));
}

// A one-word state's key (the cells covered and the units used), its hash given.
struct CellsKey {
    word cells, used, h;

    word hash() const { return h; }
    bool same(const word* row) const { return row[0] == cells && row[1] == used; }
    void write(word* row) const {
        row[0] = cells;
        row[1] = used;
    }
};

}  // namespace cpcore
