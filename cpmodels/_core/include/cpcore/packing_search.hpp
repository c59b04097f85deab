// The packing searches: counting and tallying the completions of a state, deciding whether
// one exists, and streaming the solutions. Each walks the tree of the engine's introduction
// (the first uncovered exact-one item, the options anchored there, a used-up piece's options
// skipped as a run: the core's one branching choice, search.hpp's next_option; region
// pruning, the memo table) and each is written once, over a state
// given as a template parameter:
//
//   TwoWords  -- covers of at most 128 bits (two words held as scalars);
//   NWords    -- any cover (the words in a caller's array).
//
// A state knows its bits: which option fits, placing and taking back, the next item to
// branch on, how a region of empty cells grows (TwoWordsFill, NWordsFill: the one dead-end
// check, cpcore/region.hpp's region_dead_end, runs over them), and its memo key. The
// counters (pieces in copies) and the code they make are Search's, and so is the forced
// step (force, over region.hpp's force_options); the walk is the one skeleton's
// (cpcore/search.hpp's depth_first), each search a policy of it (Tallying, FirstSolution,
// Enumerating), and a call's rows of tasks are walked by each_task. Freestanding: the
// caller hands in every buffer and the stop flag.
//
// Data layout (entry.h's cpcore_packing_cover, read-only): the branching items are bits
// 0 .. n_branch - 1 of the state (the exact-one items, board cells first in scan order);
// the options anchored at item x (its lowest branching bit) are anchor_opts[anchor_start[x]
// .. anchor_start[x + 1]), grouped by the piece's tag so that group_end[k] is the end of
// option k's group (a used-up piece skips its whole run); opt_counter[o] is o's counter (a
// piece in copies, counter_low .. counter_high of them) or -1, and radix[] makes the
// counters one code (the memo key's last word). The state's words: TwoWords keeps them in
// two scalars (opt_a/opt_b, and per anchor_opts index k_a/k_b, k_tag_*, k_counter, so a
// node reads one array); NWords in the caller's ``filled`` (n_words words, opt_mask[o *
// n_words ..] an option's). Invariants: every bit below the item last branched on is
// covered (so the next item is the lowest open bit from there); counters[c] <=
// counter_high[c]; the memo key of a state is its words and its code.
//
// The buffers (entry.h's cpcore_search_buffers), the frame at depth d <= n_branch:
// stack_pos[d] the item branched on, stack_k[d] where the walk of its options goes on,
// stack_code[d] the node's counter code, stack_mask[d] the tally items it leaves uncovered,
// chosen[d] the option its child placed, acc[d * acc_width ..] its count vector (tallies).
// A solution's options are chosen[0 .. depth].
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cpcore/bits.hpp"
#include "cpcore/check.hpp"
#include "cpcore/entry.h"
#include "cpcore/region.hpp"
#include "cpcore/search.hpp"
#include "cpcore/table.hpp"

namespace cpcore {

// --- the states -----------------------------------------------------------------------

// Two words held as scalars: every calendar board, the pentomino boxes and small solids.
struct TwoWords {
    cpcore_packing_cover c;  // copies: a search keeps them (and the words) in registers
    cpcore_two_words L;
    word w[2] = {0, 0};

    TwoWords(const cpcore_packing_cover& cover, const cpcore_two_words& layout, word*, word*,
             int64_t*)
        : c(cover), L(layout) {}

    void clear() { w[0] = w[1] = 0; }
    bool used_at(uint64_t k) const {
        return ((w[0] & L.k_tag_a[k]) | (w[1] & L.k_tag_b[k])) != 0;
    }
    int64_t counter_at(uint64_t k) const { return L.k_counter[k]; }
    bool fits_at(uint64_t k) const { return ((w[0] & L.k_a[k]) | (w[1] & L.k_b[k])) == 0; }
    bool fits(int64_t o) const { return ((w[0] & L.opt_a[o]) | (w[1] & L.opt_b[o])) == 0; }
    void place(int64_t o) {
        w[0] |= L.opt_a[o];
        w[1] |= L.opt_b[o];
    }
    void unplace(int64_t o) {
        w[0] ^= L.opt_a[o];
        w[1] ^= L.opt_b[o];
    }
    // (No index into w by a variable: the words stay in registers.)
    bool covered(uint64_t x) const { return ((x < 64 ? w[0] >> x : w[1] >> (x - 64)) & 1) != 0; }
    // The state as first_open's policy (search.hpp): two words, read without an index into
    // w (where the layout has one word, every item of the second is past n_branch).
    static constexpr uint64_t n_words() { return 2; }
    word open_word(uint64_t i) const { return i == 0 ? ~w[0] : ~w[1]; }
    // The first uncovered branching item at or after ``from`` (n_branch: none).
    uint64_t next_open(uint64_t from) const { return first_open(*this, from, c.n_branch); }
    bool memo_allowed() const {
        return (int64_t)(c.n_branch - popcount(w[0] & L.branch_a) - popcount(w[1] & L.branch_b))
               < L.memo_below;
    }
    TwoWordsKey key(word code) const { return TwoWordsKey{w[0], w[1], L.n_words == 2, code}; }

    // Whether option o (placed) leaves an empty region that no pieces can fill.
    bool dead_end(int64_t o) const;
};

// The seeds of a packing state's region fills: option o's neighbour cells (opt_nb), in
// turn, each that the fill has not measured (``measured(x)``).
struct OptionSeeds {
    typedef uint64_t Seed;  // a cell's index
    const int64_t* q;       // the neighbour cells left, to ``end``
    const int64_t* end;

    OptionSeeds(const cpcore_packing_cover& c, int64_t o)
        : q(c.opt_nb + c.opt_nb_start[o]), end(c.opt_nb + c.opt_nb_start[o + 1]) {}
    template <class Measured>
    inline __attribute__((always_inline)) bool next(uint64_t& x, Measured measured) {
        while (q < end) {
            x = (uint64_t)*q++;
            if (!measured(x)) return true;
        }
        return false;
    }
};

// The cell sets of two words, as region_dead_end (cpcore/region.hpp) grows them: the seeds
// are the option's neighbour cells (opt_nb), a region grows a cell at a time by the cell's
// neighbour mask (nb_a, nb_b), and a fill that meets a region known to be large stops.
struct TwoWordsFill : OptionSeeds {
    const TwoWords& s;
    word seen_a = 0, seen_b = 0, big_a = 0, big_b = 0, ra = 0, rb = 0;

    TwoWordsFill(const TwoWords& state, int64_t o) : OptionSeeds(state.c, o), s(state) {}
    bool next_seed(uint64_t& x) {
        return next(x, [this](uint64_t y) {
            const word sa = s.w[0] | seen_a, sb = s.w[1] | seen_b;
            return ((y < 64 ? sa >> y : sb >> (y - 64)) & 1) != 0;
        });
    }
    uint64_t grow(uint64_t x, uint64_t limit) {
        const word a = s.w[0], b = s.w[1];
        ra = x < 64 ? (word)1 << x : 0;
        rb = x < 64 ? 0 : (word)1 << (x - 64);
        word fa = ra, fb = rb;
        uint64_t size = 1;
        while (size < limit && (fa | fb) != 0) {
            uint64_t y;
            if (fa != 0) {
                y = lowest(fa);
                fa &= fa - 1;
            } else {
                y = 64 + lowest(fb);
                fb &= fb - 1;
            }
            const word na = s.L.nb_a[y] & ~a & ~ra, nb = s.L.nb_b[y] & ~b & ~rb;
            if (((na & big_a) | (nb & big_b)) != 0) return limit;  // it meets a large one
            ra |= na;
            rb |= nb;
            fa |= na;
            fb |= nb;
            size += popcount(na) + popcount(nb);
        }
        return size;
    }
    bool fits(uint64_t size) const { return s.c.fillable[size] != 0; }
    void measured(bool large) {
        seen_a |= ra;
        seen_b |= rb;
        if (large) {
            big_a |= ra;
            big_b |= rb;
        }
    }
};

inline bool TwoWords::dead_end(int64_t o) const {
    TwoWordsFill f(*this, o);
    return region_dead_end(f, (uint64_t)c.region_limit);
}

// Any number of words, in the caller's array ``filled``; ``scratch`` (two rows of the
// words) and ``stack`` (n_branch + 1 bits) serve the region fills.
struct NWords {
    cpcore_packing_cover c;
    cpcore_n_words L;
    word* w;
    word* scratch;
    int64_t* stack;

    NWords(const cpcore_packing_cover& cover, const cpcore_n_words& layout, word* filled,
           word* scratch_rows, int64_t* fill_stack)
        : c(cover), L(layout), w(filled), scratch(scratch_rows), stack(fill_stack) {}

    void clear() {
        for (uint64_t i = 0; i < L.n_words; ++i) w[i] = 0;
    }
    bool used_at(uint64_t k) const {
        const int64_t o = c.anchor_opts[k], tw = L.tag_word[o];
        return tw >= 0 && (w[tw] & L.tag_bit[o]) != 0;
    }
    int64_t counter_at(uint64_t k) const { return c.opt_counter[c.anchor_opts[k]]; }
    bool fits_at(uint64_t k) const { return fits(c.anchor_opts[k]); }
    bool fits(int64_t o) const {
        const word* m = L.opt_mask + (uint64_t)o * L.n_words;
        for (uint64_t i = 0; i < L.n_words; ++i)
            if (m[i] & w[i]) return false;
        return true;
    }
    void place(int64_t o) {
        const word* m = L.opt_mask + (uint64_t)o * L.n_words;
        for (uint64_t i = 0; i < L.n_words; ++i) w[i] |= m[i];
    }
    void unplace(int64_t o) {
        const word* m = L.opt_mask + (uint64_t)o * L.n_words;
        for (uint64_t i = 0; i < L.n_words; ++i) w[i] ^= m[i];
    }
    bool covered(uint64_t x) const { return (w[x >> 6] >> (x & 63)) & 1; }
    // The state as first_open's policy (search.hpp): L.n_words words.
    uint64_t n_words() const { return L.n_words; }
    word open_word(uint64_t i) const { return ~w[i]; }
    // The first uncovered branching item at or after ``from`` (n_branch: none).
    uint64_t next_open(uint64_t from) const { return first_open(*this, from, c.n_branch); }
    bool memo_allowed() const { return true; }
    WordsKey key(word code) const { return WordsKey{w, (unsigned)L.n_words, code}; }

    bool dead_end(int64_t o) const;  // (as TwoWords's)
};

// The cell sets of N words, as region_dead_end (cpcore/region.hpp) grows them: the seeds
// are the option's neighbour cells (opt_nb), a region grows by the neighbour lists
// (cell_nb, ``degree`` a cell, -1 pads) over a stack of cells; scratch row 0 marks the
// fill, row 1 the state's cells and the small regions measured.
struct NWordsFill : OptionSeeds {
    const NWords& s;
    word* fill;
    word* done;

    NWordsFill(const NWords& state, int64_t o, word* fill_row, word* done_row)
        : OptionSeeds(state.c, o), s(state), fill(fill_row), done(done_row) {}
    static bool has(const word* set, uint64_t x) { return (set[x >> 6] >> (x & 63)) & 1; }
    bool next_seed(uint64_t& x) {
        return next(x, [this](uint64_t y) { return has(done, y); });
    }
    uint64_t grow(uint64_t x, uint64_t limit) {
        const uint64_t n = s.L.n_words;
        for (uint64_t i = 0; i < n; ++i) fill[i] = done[i];
        fill[x >> 6] |= (word)1 << (x & 63);
        uint64_t size = 1, top = 1;
        s.stack[0] = (int64_t)x;
        while (top > 0 && size < limit) {
            const int64_t* around = s.L.cell_nb + (uint64_t)s.stack[--top] * s.L.degree;
            for (uint64_t d = 0; d < s.L.degree; ++d) {
                const int64_t y = around[d];
                if (y >= 0 && !has(fill, (uint64_t)y)) {
                    fill[y >> 6] |= (word)1 << (y & 63);
                    s.stack[top++] = y;
                    size += 1;
                }
            }
        }
        return size;
    }
    bool fits(uint64_t size) const { return s.c.fillable[size] != 0; }
    void measured(bool large) {  // a large region is filled again from its next seed
        if (large) return;
        for (uint64_t i = 0; i < s.L.n_words; ++i) done[i] = fill[i];
    }
};

inline bool NWords::dead_end(int64_t o) const {
    if (c.region_limit == 0) return false;
    word* fill = scratch;
    word* done = scratch + L.n_words;
    for (uint64_t i = 0; i < L.n_words; ++i) done[i] = w[i];
    NWordsFill f(*this, o, fill, done);
    return region_dead_end(f, (uint64_t)c.region_limit);
}

// --- the steps every search takes -----------------------------------------------------

// What a search holds besides its state: the counters of pieces in copies.
template <class State>
struct Search {
    cpcore_packing_cover c;
    State s;
    int64_t* counters;

    template <class Layout>
    Search(const cpcore_packing_cover& cover, const Layout& layout,
           const cpcore_search_buffers& B)
        : c(cover), s(cover, layout, B.filled, B.scratch, B.fill_stack), counters(B.counters) {}

    bool counters_full() const {
        for (uint64_t i = 0; i < c.n_counters; ++i)
            if (counters[i] < c.counter_low[i]) return false;
        return true;
    }

    // The options anchored at one item as the branching choice walks them (search.hpp's
    // next_option): anchor_opts[k ..] up to ``anchor_end``, a run the options of one tag
    // (group_end[k] the end of k's), an option used up when its piece is placed or its
    // counter at its bound.
    struct AnchorOptions {
        const Search& S;
        int64_t anchor_end;

        CPCORE_STEP Fit fit(int64_t k) const {
            const int64_t ctr = S.s.counter_at((uint64_t)k);
            if (S.s.used_at((uint64_t)k) || (ctr >= 0 && S.counters[ctr] >= S.c.counter_high[ctr]))
                return Fit::used_up;
            return S.s.fits_at((uint64_t)k) ? Fit::yes : Fit::no;
        }
        CPCORE_STEP bool next_run(int64_t& k, int64_t& end) const {
            if (k >= anchor_end) return false;
            end = S.c.group_end[k];
            CPCORE_ASSERT(end > k && end <= anchor_end);
            return true;
        }
    };

    // The next option to try from anchor_opts[k .. end): the option (k moved past it), or
    // -1 (k = end). The one branching choice: a used-up piece's options are passed over as
    // a run.
    int64_t next_fit(int64_t& k, int64_t end) const {
        AnchorOptions options{*this, end};
        int64_t run_end = k;
        return next_option(options, k, run_end) ? c.anchor_opts[k - 1] : -1;
    }

    // Put option o down (code: the counter code, moved with it) and take it back.
    // (A search places an option only where it fits, its counter below its bound; a
    // prefix's options are put down whatever they do, and checked after.)
    void place(int64_t o, word& code) {
        CPCORE_ASSERT(s.fits(o));
        CPCORE_ASSERT(c.opt_counter[o] < 0 ||
                      counters[c.opt_counter[o]] < c.counter_high[c.opt_counter[o]]);
        put(o, code);
    }
    void put(int64_t o, word& code) {
        s.place(o);
        const int64_t ctr = c.opt_counter[o];
        if (ctr >= 0) {
            counters[ctr] += 1;
            code += c.radix[ctr];
        }
    }
    void unplace(int64_t o) {
        s.unplace(o);
        const int64_t ctr = c.opt_counter[o];
        if (ctr >= 0) counters[ctr] -= 1;
    }

    // Force the options of a prefix (-1 pads) on an empty state (force_options): whether
    // they fit together; ``code`` gets their counter code.
    bool force(const int64_t* prefix, uint64_t n, word& code) {
        s.clear();
        for (uint64_t i = 0; i < c.n_counters; ++i) counters[i] = 0;
        code = 0;
        return force_options(prefix, n, [&](int64_t o) {
            const bool fits = s.fits(o);
            put(o, code);
            const int64_t ctr = c.opt_counter[o];
            return fits && (ctr < 0 || counters[ctr] <= c.counter_high[ctr]);
        });
    }

    // Each row of ``prefixes`` (``width`` option ids; -1 pads) forced in turn (each_task),
    // and answered by ``answer(p, fits, code)`` (code: the row's counter code).
    template <class Answer>
    void each_prefix(const int64_t* prefixes, uint64_t n, uint64_t width, const int64_t* stop,
                     Answer answer) {
        word code;
        each_task(prefixes, n, width, stop,
                  [&](const int64_t* row) { return force(row, width, code); },
                  [&](uint64_t p, bool ok) { return answer(p, ok, code); });
    }

    // The tally items a state leaves uncovered, as a bit mask.
    int64_t uncovered_tally(const cpcore_tallies& t) const {
        int64_t mask = 0;
        for (int64_t i = 0; i < t.n_tally; ++i)
            if (!s.covered((uint64_t)t.bit[i])) mask |= (int64_t)1 << i;
        return mask;
    }
};

// Add a child's counts (src[start ..], entries lo .. lo + n - 1 of its vector) to the
// parent's vector acc; option o led from the parent (tally items ``mask`` uncovered) there.
inline void add_into(int64_t* acc, const int64_t* src, int64_t start, int64_t lo, int64_t n,
                     int64_t o, int64_t mask, const cpcore_tallies& t) {
    const int64_t item = t.opt_tally[o];
    int64_t a, b;
    if (item < 0) {
        scatter(acc, src, start, lo, n, 0, nullptr, &a, &b);
        return;
    }
    const int64_t cols = t.n_tally > 1 ? t.n_tally : 1;
    scatter(acc, src, start, lo, n, t.opt_index[o] * t.stride[mask * cols + item],
            t.map_flat + t.map_start[mask * cols + item], &a, &b);
}

// The value a table keeps for a key, less one (a count, or the arena offset of a vector),
// or -1 when it has none.
template <class Key>
inline __attribute__((always_inline)) int64_t look_up(const Table& table, const Key& key) {
    return (int64_t)table.lookup(key) - 1;
}

// Keep a key's counts: with ``scalar`` the count vec[0] in the slot itself (as count + 1),
// else the run vec[lo .. hi) in the arena (the slot holding its offset + 1).
template <class Key>
inline void keep(Table& table, const Key& key, const int64_t* vec, int64_t lo, int64_t hi,
                 bool scalar) {
    if (!table.make_room(scalar ? 0 : (uint64_t)(hi - lo + 2))) return;
    table.put(key, (word)((scalar ? vec[0] : table.keep_run(vec, lo, hi - lo)) + 1));
}

typedef cpcore_search_buffers SearchBuffers;

// --- the policies' common steps -------------------------------------------------------

// What the packing searches' policies of depth_first share: the node is the frame at
// ``depth`` of the buffers' stacks (stack_pos[d] the item branched on, stack_k[d] where the
// walk of its options goes on, chosen[d] the option its child placed); a child is the next
// option that fits (``o``), and ``nxt`` the item it leaves next. The search (S) is the
// caller's local copy, held by reference so that the policy itself never escapes and its
// fields live in registers.
template <class State>
struct Branching {
    Search<State>& S;
    const SearchBuffers& B;
    unsigned depth;
    int64_t o;
    uint64_t pos, nxt;

    CPCORE_STEP bool next() {
        pos = (uint64_t)B.stack_pos[depth];
        o = S.next_fit(B.stack_k[depth], S.c.anchor_start[pos + 1]);
        return o >= 0;
    }
    CPCORE_STEP void pop(unsigned d) {
        depth = d;
        S.unplace(B.chosen[d]);
    }
    CPCORE_STEP void push(unsigned d) {
        CPCORE_ASSERT(d < S.c.n_branch);
        B.chosen[d] = o;
    }
    CPCORE_STEP void enter() {
        depth += 1;
        B.stack_pos[depth] = (int64_t)nxt;
        B.stack_k[depth] = S.c.anchor_start[nxt];
    }
};

#define CPCORE_BRANCHING(State)        \
    typedef Branching<State> Base;     \
    using Base::S;                     \
    using Base::B;                     \
    using Base::depth;                 \
    using Base::o;                     \
    using Base::pos;                   \
    using Base::nxt

// --- counting -------------------------------------------------------------------------

// Count the completions of the search's state (code: its counter code), split by the
// options that cover the tally items: length[mask] counts to ``out``, where mask holds the
// tally items the state leaves uncovered. A policy of depth_first over the buffers' stacks
// (the frame at depth d: stack_pos[d] the item branched on, stack_k[d] where its options'
// walk goes on, stack_code[d] and stack_mask[d] the node's counter code and uncovered tally
// items, chosen[d] the option its child placed, acc[d] its count vector); a node whose
// counts are in the table, or that leaves a tally item no later anchor covers, or a region
// no pieces fill, is not entered. Returns early, storing nothing partial, once the stop
// flag is set.
template <class State>
struct Tallying : Branching<State> {
    CPCORE_BRANCHING(State);
    const cpcore_tallies& t;  // the caller's local copies, as S
    Table& table;
    bool scalar;  // a plain count: the table holds counts
    bool use_memo;
    uint64_t width;
    int64_t lo = 0, hi = 0, child_mask = 0;
    word child_code = 0;

    int64_t* acc(unsigned d) const { return B.acc + d * width; }

    CPCORE_STEP Step child() {
        int64_t* a = acc(depth);
        child_code = B.stack_code[depth];
        S.place(o, child_code);
        const int64_t mask = B.stack_mask[depth];
        child_mask = mask;
        if (!scalar && t.opt_tally[o] >= 0) child_mask = mask & ~((int64_t)1 << t.opt_tally[o]);
        nxt = S.s.next_open(pos + 1);
        bool done = true;
        if (nxt == S.c.n_branch) {
            if (S.counters_full()) {
                const int64_t one = 1;
                if (scalar)
                    a[0] += 1;
                else
                    add_into(a, &one, 0, 0, 1, o, mask, t);
            }
        } else {
            bool starved = false;
            for (int64_t i = 0; i < t.n_tally; ++i)
                if ((child_mask >> i) & 1 && t.last_anchor[i] < (int64_t)nxt) starved = true;
            if (starved || S.s.dead_end(o)) {
            } else if (use_memo && S.s.memo_allowed()) {
                const int64_t at = look_up(table, S.s.key(child_code));
                if (at >= 0 && scalar)
                    a[0] += at;
                else if (at >= 0)
                    add_into(a, table.arena, at + 2, table.arena[at], table.arena[at + 1], o,
                             mask, t);
                else
                    done = false;
            } else {
                done = false;
            }
        }
        if (!done) return Step::enter;
        S.unplace(o);
        return Step::skip;
    }
    // Every option tried: this sub-board is counted, its vector trimmed to [lo, hi) and kept.
    CPCORE_STEP void close() {
        const int64_t* a = acc(depth);
        lo = 0;
        hi = 1;
        if (!scalar) {
            hi = t.length[B.stack_mask[depth]];
            trim_zeros(a, lo, hi);
        }
        if (use_memo && S.s.memo_allowed())
            keep(table, S.s.key(B.stack_code[depth]), a, lo, hi, scalar);
    }
    CPCORE_STEP void pop(unsigned d) {  // the child's counts added to the node's
        Base::pop(d);
        if (scalar)
            acc(d)[0] += acc(d + 1)[0];
        else
            add_into(acc(d), acc(d + 1), lo, lo, hi - lo, B.chosen[d], B.stack_mask[d], t);
    }
    CPCORE_STEP void enter() {
        Base::enter();
        B.stack_code[depth] = child_code;
        B.stack_mask[depth] = child_mask;
        int64_t* next = acc(depth);
        for (int64_t x = 0; x < t.length[child_mask]; ++x) next[x] = 0;
    }
};

template <class State>
void tally(Search<State>& search, word code, const cpcore_tallies& tallies, Table& memo,
           const SearchBuffers& B, int64_t* out, const int64_t* stop) {
    Search<State> S = search;  // local copies: nothing the search writes can alias them
    const cpcore_tallies t = tallies;
    Table table = memo;
    Tallying<State> T{{S, B, 0, -1, 0, 0}, t, table, t.n_tally == 0, S.c.memo_ok != 0,
                      B.acc_width};
    const cpcore_packing_cover& c = S.c;
    const int64_t root_mask = T.S.uncovered_tally(t);
    const int64_t n_root = t.length[root_mask];
    for (int64_t x = 0; x < n_root; ++x) out[x] = 0;
    const uint64_t pos = T.S.s.next_open(0);
    if (pos == c.n_branch) {
        out[0] = T.S.counters_full() ? 1 : 0;
        return;
    }
    for (int64_t i = 0; i < t.n_tally; ++i)
        if ((root_mask >> i) & 1 && t.last_anchor[i] < (int64_t)pos) return;
    if (T.use_memo) {
        const int64_t at = look_up(table, T.S.s.key(code));
        if (at >= 0 && T.scalar) {
            out[0] = at;
            return;
        }
        if (at >= 0) {
            table.copy_run(at, out);
            return;
        }
    }
    for (int64_t x = 0; x < n_root; ++x) B.acc[x] = 0;
    B.stack_pos[0] = (int64_t)pos;
    B.stack_k[0] = c.anchor_start[pos];
    B.stack_code[0] = code;
    B.stack_mask[0] = root_mask;
    int64_t nodes;
    const Ended ended = depth_first(T, stop, nodes);
    table.stats[NODES] += nodes;
    if (ended == Ended::stopped) return;
    for (int64_t x = T.lo; x < T.hi; ++x) out[x] = B.acc[x];
}

// Tally the completions of each row of ``prefixes`` (n_prefixes rows of ``width`` option
// ids forced first; -1 pads): row p's counts go to out[p] (rows of out_width), its
// uncovered tally items to out_mask[p].
template <class State>
void tally_prefixes(Search<State>& S, const int64_t* prefixes, uint64_t n_prefixes,
                    uint64_t width, const cpcore_tallies& t, Table& table,
                    const SearchBuffers& B, int64_t* out, uint64_t out_width,
                    int64_t* out_mask, const int64_t* stop) {
    S.each_prefix(prefixes, n_prefixes, width, stop, [&](uint64_t p, bool ok, word code) {
        out_mask[p] = S.uncovered_tally(t);
        int64_t* row = out + p * out_width;
        if (ok)
            tally(S, code, t, table, B, row, stop);
        else
            for (uint64_t x = 0; x < out_width; ++x) row[x] = 0;
        return true;
    });
}

// --- existence ------------------------------------------------------------------------

// Whether the search's state has a completion: depth_first until its first solution, over
// the buffers' stacks (as the tally's, without the vectors). With ``use_table``, every
// state it exhausts is kept in the table as dead (a count of 0), and a state found there is
// not searched again. Returns false at once, keeping nothing partial, when the stop flag
// is set (the caller checks it).
template <class State>
struct FirstSolution : Branching<State> {
    CPCORE_BRANCHING(State);
    Table& table;  // the caller's local copy, as S
    bool use_table;
    word child_code = 0;

    CPCORE_STEP Step child() {
        child_code = B.stack_code[depth];
        S.place(o, child_code);
        nxt = S.s.next_open(pos + 1);
        if (nxt == S.c.n_branch) {
            if (S.counters_full()) return Step::end;
        } else if (!(S.s.dead_end(o) ||
                     (use_table && look_up(table, S.s.key(child_code)) >= 0))) {
            return Step::enter;
        }
        S.unplace(o);
        return Step::skip;
    }
    CPCORE_STEP void close() {  // every option tried: this state has no completion
        const int64_t none = 0;
        if (use_table) keep(table, S.s.key(B.stack_code[depth]), &none, 0, 1, true);
    }
    CPCORE_STEP void enter() {
        Base::enter();
        B.stack_code[depth] = child_code;
    }
};

template <class State>
bool first_solution(Search<State>& search, word code, Table& memo, bool use_table,
                    const int64_t* stop, const SearchBuffers& B) {
    Search<State> S = search;  // local copies: nothing the search writes can alias them
    Table table = memo;
    FirstSolution<State> F{{S, B, 0, -1, 0, 0}, table, use_table && S.c.memo_ok};
    const uint64_t pos = F.S.s.next_open(0);
    if (pos == F.S.c.n_branch) return F.S.counters_full();
    if (F.use_table && look_up(F.table, F.S.s.key(code)) >= 0) return false;
    B.stack_pos[0] = (int64_t)pos;
    B.stack_k[0] = F.S.c.anchor_start[pos];
    B.stack_code[0] = code;
    int64_t nodes;
    return depth_first(F, stop, nodes) == Ended::early;
}

// For each row of ``prefixes``, whether some solution contains its options: out[p] is 1
// or 0. With ``first_failure``, rows after the first 0 are left as they were (not
// searched); so are the rows after a stop.
template <class State>
void exists_prefixes(Search<State>& S, const int64_t* prefixes, uint64_t n_prefixes,
                     uint64_t width, Table& table, bool use_table, int64_t* out,
                     bool first_failure, const int64_t* stop, const SearchBuffers& B) {
    S.each_prefix(prefixes, n_prefixes, width, stop, [&](uint64_t p, bool ok, word code) {
        const bool found = ok && first_solution(S, code, table, use_table, stop, B);
        if (stopped(stop)) return false;
        out[p] = found ? 1 : 0;
        return !(first_failure && !found);
    });
}

// --- enumerating ----------------------------------------------------------------------

// A resumable depth-first search that writes up to max_out solutions (option ids, rows of
// out_width, -1 after the last when there is room) to ``out``. state[0] is the depth (-1
// before the start, -2 when finished), state[1] the solutions this call wrote; the search
// keeps its place in the state, counters, chosen and the stacks between calls (depth_first
// goes on from the depth it ended at). It returns within STOP_INTERVAL nodes once the stop
// flag is set, and can be resumed after.
template <class State>
struct Enumerating : Branching<State> {
    CPCORE_BRANCHING(State);
    int64_t* out;
    uint64_t out_width;
    int64_t max_out;
    int64_t written = 0;

    CPCORE_STEP Step child() {
        word unused = 0;
        S.place(o, unused);
        B.chosen[depth] = o;
        nxt = S.s.next_open(pos + 1);
        if (nxt == S.c.n_branch) {
            if (S.counters_full()) {
                int64_t* row = out + (uint64_t)written * out_width;
                for (unsigned d = 0; d <= depth; ++d) row[d] = B.chosen[d];
                if ((uint64_t)depth + 1 < out_width) row[depth + 1] = -1;
                written += 1;
            }
            S.unplace(o);
            return written >= max_out ? Step::end : Step::skip;
        }
        if (S.s.dead_end(o)) {
            S.unplace(o);
            return Step::skip;
        }
        return Step::enter;
    }
    CPCORE_STEP void close() {}
};

template <class State>
void enumerate(Search<State>& search, int64_t* state, const SearchBuffers& B, int64_t* out,
               uint64_t out_width, int64_t max_out, const int64_t* stop) {
    const cpcore_packing_cover& c = search.c;
    int64_t depth = state[0];
    state[1] = 0;
    if (depth == -2 || max_out <= 0 || stopped(stop)) return;
    if (depth == -1) {
        const uint64_t pos = search.s.next_open(0);
        if (pos == c.n_branch) {  // nothing to branch on: the forced options are the solution
            if (search.counters_full()) {
                out[0] = -1;
                state[1] = 1;
            }
            state[0] = -2;
            return;
        }
        depth = 0;
        B.stack_pos[0] = (int64_t)pos;
        B.stack_k[0] = c.anchor_start[pos];
    }
    Search<State> S = search;  // a local copy: nothing the search writes can alias it
    Enumerating<State> E{{S, B, (unsigned)depth, -1, 0, 0}, out, out_width, max_out};
    int64_t nodes;
    const Ended ended = depth_first(E, stop, nodes, (unsigned)depth);
    state[0] = ended == Ended::finished ? -2 : (int64_t)E.depth;
    state[1] = E.written;
}

}  // namespace cpcore
