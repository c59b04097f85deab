// The one-word count and tally: boards of at most 64 cells, every piece used once (see
// cpmodels/backends/engine/kernels/one_word.py). One skeleton walks the tree for both; what a node
// accumulates (a count, or a vector of counts split by the tally items' options) is its
// policy. Freestanding.
#include <stdint.h>

#include "cpcore/bits.hpp"
#include "cpcore/entry.h"
#include "cpcore/one_word.hpp"
#include "cpcore/one_word_table.hpp"

namespace cpcore {
namespace {

const word FULL = ~(word)0;
const int64_t SINGLE = (int64_t)1 << 16;  // a vector of one count below this index is kept
const int64_t SINGLE_MOST = (int64_t)1 << 45;  // in its row, when the count is below this

inline Grid grid_of(const cpcore_one_word& L) { return Grid{L.inner, L.first, L.last}; }

// A single empty cell no piece fills, or a region next to ``om`` whose size no pieces add
// up to.
inline bool dead_end(word om, word cells, const cpcore_one_word& L) {
    const word empty = ~cells;
    const Grid g = grid_of(L);
    if (L.isolated_dead && isolated(empty, g) != 0) return true;
    return small_region_dead(om, empty, g, (uint64_t)L.region_limit,
                             [&L](word, uint64_t size) { return L.fillable[size] != 0; });
}

// dead_end for a cover with slack items, each of which leaves one of its cells open: a
// region may also hold one cell of each slack item still open whose cells it meets, and a
// slack item none of whose cells is open is a dead end.
inline bool slack_dead_end(word om, word cells, word used, const cpcore_one_word& L) {
    const word empty = ~cells;
    const Grid g = grid_of(L);
    word open_slack = 0;
    for (word groups = L.slack & ~used; groups != 0; groups &= groups - 1) {
        word mine = L.slack_cells[lowest(groups)] & empty;
        if (mine == 0) return true;
        open_slack |= mine;
    }
    if (L.isolated_dead && (isolated(empty, g) & ~open_slack) != 0) return true;
    return small_region_dead(
        om, empty, g, (uint64_t)L.region_limit, [&](word region, uint64_t size) {
            if (L.fillable[size]) return true;
            if ((region & open_slack) == 0) return false;
            uint64_t holes = 0;  // the slack items that may leave a cell of the region open
            for (word groups = L.slack & ~used; groups != 0; groups &= groups - 1)
                if ((L.slack_cells[lowest(groups)] & region) != 0) ++holes;
            for (uint64_t h = 1; h <= holes && h <= size; ++h)
                if (L.fillable[size - h]) return true;
            return false;
        });
}

// The state of a row of prefixes: its options placed, and whether they fit.
inline bool place(const cpcore_one_word& L, const int64_t* row, uint64_t cols, word& cells,
                  word& used) {
    cells = L.covered;
    used = 0;
    return place_options(row, cols, L.opt_cells, L.opt_piece, cells, used, [](int64_t) {});
}

// The search below a state that is neither full nor in the table (see depth_first): ``acc``
// (the policy) adds up what its nodes find.
template <class Acc>
struct Subboards {
    struct Frame {
        word cells, used, hash;
        Walk walk;
    };
    const cpcore_one_word& L;
    CountTable& table;
    bool use_memo;
    Acc& acc;
    const Runs runs;
    word cells, used, hash, om = 0, child_cells = 0, child_used = 0, child_hash = 0;
    Walk w;
    unsigned depth = 0;
    Frame* stack;  // [MAX_DEPTH] (apart, so that the node's words may live in registers)

    Subboards(word c, word u, const cpcore_one_word& layout, CountTable& t, bool memo, Acc& a,
              Frame* frames)
        : L(layout), table(t), use_memo(memo), acc(a), runs{L.start, L.masks, L.n_pieces},
          cells(c), used(u), hash(CountTable::hash(c, u)), stack(frames) {
        w.bit = 0;
        begin();
    }

    // The node's walk begun; with a table, the rows of all its children are asked of the
    // caches at once (their fetches overlap), before any is looked up.
    void begin() {
        w.begin(cells, used, L.avail);
        if (!use_memo) return;
        Walk ahead = w;
        word placed;
        while (ahead.next(cells, runs, placed))
            table.fetch(CountTable::hash(cells | placed, used | ahead.bit));
    }

    bool next() { return w.next(cells, runs, om); }
    Step child() {
        child_cells = cells | om;
        child_used = used | w.bit;
        acc.choose(w.placed(runs));
        if (child_cells == FULL) {
            if ((child_used | L.optional) == L.all_pieces) acc.leaf(depth);
            return Step::skip;
        }
        if (acc.dead_end(om, child_cells, child_used)) return Step::skip;
        if (!use_memo) return Step::enter;
        child_hash = CountTable::hash(child_cells, child_used);  // (its row fetched already)
        return acc.found(table.value(child_hash, child_cells, child_used), depth) ? Step::skip
                                                                                 : Step::enter;
    }
    void close() { acc.close(cells, used, hash, depth); }
    void pop(unsigned d) {
        depth = d;
        cells = stack[d].cells;
        used = stack[d].used;
        hash = stack[d].hash;
        w = stack[d].walk;
        if (use_memo) table.fetch(hash);  // for the node's own row, kept when it closes
        acc.pop(d);
    }
    void push(unsigned d) {
        stack[d] = Frame{cells, used, hash, w};
        acc.push(d);
        depth = d + 1;
    }
    void enter() {
        cells = child_cells;
        used = child_used;
        hash = child_hash;
        acc.descend();
        begin();
    }
};

// Search below the state with ``acc``; false when the stop flag was seen. (Flattened: the
// helpers' calls inlined into the loop.)
template <class Acc>
__attribute__((flatten)) bool walk_tree(word cells, word used, const cpcore_one_word& L, CountTable& table,
               bool use_memo, Acc& acc) {
    typename Subboards<Acc>::Frame frames[MAX_DEPTH];
    Subboards<Acc> s(cells, used, L, table, use_memo, acc, frames);
    int64_t nodes;
    const Ended ended = depth_first(s, table.stats + STOP, nodes);
    table.stats[NODES] += nodes;
    return ended != Ended::stopped;
}

// Counting: a node adds up its children's counts; the table holds count + 1.
struct Counting {
    const cpcore_one_word& L;
    CountTable& table;
    bool use_memo;
    int64_t acc = 0, child = 0;
    int64_t* st_acc;  // [MAX_DEPTH] the frames' counts so far

    Counting(const cpcore_one_word& layout, CountTable& t, bool memo, int64_t* frames)
        : L(layout), table(t), use_memo(memo), st_acc(frames) {}

    void choose(uint64_t) {}
    void leaf(unsigned) { acc += 1; }
    bool dead_end(word om, word cells, word) const {
        return L.region_limit > 0 && cpcore::dead_end(om, cells, L);
    }
    bool found(word value, unsigned) {
        if (value == 0) return false;
        acc += (int64_t)value - 1;
        return true;
    }
    void close(word cells, word used, word hash, unsigned) {
        if (use_memo) {
            if (nearly_full(table.stats[USED], table.n_slots)) table.empty(false);
            table.put(hash, cells, used, (word)(acc + 1));
        }
        child = acc;
    }
    void pop(unsigned depth) { acc = st_acc[depth] + child; }
    void push(unsigned depth) { st_acc[depth] = acc; }
    void descend() { acc = 0; }
};

// The completions of a state, -1 at a stop.
int64_t count_state(word cells, word used, const cpcore_one_word& L, CountTable& table,
                    bool use_memo) {
    if (cells == FULL) return (used | L.optional) == L.all_pieces ? 1 : 0;
    if (use_memo) {
        word v = table.value(CountTable::hash(cells, used), cells, used);
        if (v != 0) return (int64_t)v - 1;
    }
    int64_t frames[MAX_DEPTH];
    Counting acc(L, table, use_memo, frames);
    if (!walk_tree(cells, used, L, table, use_memo, acc)) return -1;
    return acc.acc;
}

// Tallying: a node adds its children's vectors (a child's index maps to the parent's by
// the option it placed); each depth's row is zero outside the range lo:hi its node has
// added to, and is zeroed again once added to its parent.
struct Tallying {
    const cpcore_one_word& L;
    const cpcore_one_tallies& T;
    CountTable& table;
    bool use_memo;
    int64_t* rows;  // [MAX_DEPTH, n_root]
    int64_t n_root;
    word mask;  // the node's uncovered tally items
    int64_t lo, hi;
    int64_t o = 0, t = -1;  // the option chosen and its tally item
    int64_t child_lo = 0, child_hi = 0, used_lo = 0, used_hi = 0;
    struct Frame {
        word mask;
        int64_t o, lo, hi;
    };
    Frame* stack;  // [MAX_DEPTH] the frames' items, options and ranges

    Tallying(const cpcore_one_word& layout, const cpcore_one_tallies& tallies, CountTable& t,
             bool memo, int64_t* scratch, int64_t n, word root_mask, Frame* frames)
        : L(layout), T(tallies), table(t), use_memo(memo), rows(scratch), n_root(n),
          mask(root_mask), lo(n), hi(0), stack(frames) {}

    int64_t* row(unsigned depth) const { return rows + (int64_t)depth * n_root; }
    int64_t stride(word m, int64_t item) const {
        return T.stride[m * T.stride_cols + (uint64_t)item];
    }
    int64_t map_at(word m, int64_t item) const {
        const int64_t n = T.n_tally > 0 ? (int64_t)T.n_tally : 1;
        return T.map_start[(int64_t)m * n + item];
    }
    void widen(int64_t a, int64_t b) {
        if (a < lo) lo = a;
        if (b > hi) hi = b;
    }

    // Add src[at:at + n] (a child's vector from its index ``from``), reached by option
    // ``opt`` from a node whose uncovered tally items are ``m``, into ``acc``.
    void add_vector(int64_t* acc, const int64_t* src, int64_t at, int64_t from, int64_t n,
                    int64_t opt, word m) {
        const int64_t item = T.opt_tally[opt];
        if (item < 0) {
            for (int64_t x = 0; x < n; ++x) acc[from + x] += src[at + x];
            widen(from, from + n);
            return;
        }
        const int64_t base = T.opt_index[opt] * stride(m, item);
        const int64_t* map = T.map_flat + map_at(m, item) + from;
        for (int64_t x = 0; x < n; ++x) acc[base + map[x]] += src[at + x];
        widen(base + map[0], base + map[n - 1] + 1);
    }

    void choose(uint64_t k) {
        o = L.opts[k];
        t = T.opt_tally[o];
    }
    void leaf(unsigned depth) {
        const int64_t y = t < 0 ? 0 : T.opt_index[o] * stride(mask, t);
        row(depth)[y] += 1;
        widen(y, y + 1);
    }
    bool dead_end(word om, word cells, word used) const {
        if (L.slack != 0) return slack_dead_end(om, cells, used, L);
        return L.region_limit > 0 && cpcore::dead_end(om, cells, L);
    }
    bool found(word v, unsigned depth) {
        if (v == 0) {
            table.stats[MISSES] += 1;
            return false;
        }
        table.stats[HITS] += 1;
        if ((v & 1) == 0) {
            const int64_t w = (int64_t)(v >> 1) - 1;
            const int64_t c = w / SINGLE;
            int64_t y = w % SINGLE;
            if (c != 0) {
                if (t >= 0)
                    y = T.opt_index[o] * stride(mask, t) + T.map_flat[map_at(mask, t) + y];
                row(depth)[y] += c;
                widen(y, y + 1);
            }
        } else {
            const int64_t at = (int64_t)(v >> 1);
            const int64_t* arena = table.arena;
            add_vector(row(depth), arena, at + 2, arena[at], arena[at + 1], o, mask);
        }
        return true;
    }
    void store(word hash, word cells, word used, const int64_t* vec, int64_t a, int64_t b) {
        const int64_t n = b - a;
        const bool single = n <= 1 && a < SINGLE && (n == 0 || vec[a] < SINGLE_MOST);
        if (!single && (uint64_t)(n + 2) > table.arena_size) return;
        int64_t* stats = table.stats;
        if (nearly_full(stats[USED], table.n_slots) ||
            !(single || (uint64_t)(stats[ARENA_USED] + n + 2) <= table.arena_size))
            table.empty(true);
        if (single) {
            table.put(hash, cells, used, (word)(2 * ((n == 1 ? vec[a] : 0) * SINGLE + a) + 2));
            return;
        }
        const int64_t top = stats[ARENA_USED];
        int64_t* arena = table.arena;
        arena[top] = a;
        arena[top + 1] = n;
        for (int64_t x = 0; x < n; ++x) arena[top + 2 + x] = vec[a + x];
        table.put(hash, cells, used, (word)(2 * top + 1));
        stats[ARENA_USED] = top + n + 2;
    }
    void close(word cells, word used, word hash, unsigned depth) {
        const int64_t* r = row(depth);
        used_lo = lo;
        used_hi = hi;
        while (lo < hi && r[lo] == 0) ++lo;
        while (hi > lo && r[hi - 1] == 0) --hi;
        if (hi <= lo) lo = hi = 0;
        if (use_memo) store(hash, cells, used, r, lo, hi);
        child_lo = lo;
        child_hi = hi;
    }
    void pop(unsigned depth) {
        int64_t* child = row(depth + 1);
        const Frame& f = stack[depth];
        mask = f.mask;
        lo = f.lo;
        hi = f.hi;
        if (child_hi > child_lo)
            add_vector(row(depth), child, child_lo, child_lo, child_hi - child_lo, f.o, mask);
        for (int64_t y = used_lo; y < used_hi; ++y) child[y] = 0;
    }
    void push(unsigned depth) {
        stack[depth] = Frame{mask, o, lo, hi};
    }
    void descend() {
        if (t >= 0) mask &= ~((word)1 << t);
        lo = n_root;
        hi = 0;
    }
};

// The tally items ``used`` leaves uncovered, as a mask of tally indices.
inline word open_tallies(word used, const cpcore_one_tallies& T) {
    word mask = 0;
    for (uint64_t t = 0; t < T.n_tally; ++t)
        if ((used & T.bit[t]) == 0) mask |= (word)1 << t;
    return mask;
}

// The tally of a state into ``out``; false at a stop.
bool tally_state(word cells, word used, const cpcore_one_word& L, const cpcore_one_tallies& T,
                 CountTable& table, bool use_memo, int64_t* out, int64_t* scratch) {
    const word root_mask = open_tallies(used, T);
    const int64_t n_root = T.length[root_mask];
    for (int64_t y = 0; y < n_root; ++y) out[y] = 0;
    if (cells == FULL) {
        if ((used | L.optional) == L.all_pieces) out[0] = 1;
        return true;
    }
    if (L.slack != 0 && slack_dead_end(0, cells, used, L)) return true;
    if (use_memo) {
        const word v = table.value(CountTable::hash(cells, used), cells, used);
        if (v != 0) {
            if ((v & 1) == 0) {
                const int64_t w = (int64_t)(v >> 1) - 1;
                out[w % SINGLE] = w / SINGLE;
            } else {
                const int64_t at = (int64_t)(v >> 1);
                for (int64_t x = 0; x < table.arena[at + 1]; ++x)
                    out[table.arena[at] + x] = table.arena[at + 2 + x];
            }
            return true;
        }
    }
    Tallying::Frame frames[MAX_DEPTH];
    Tallying acc(L, T, table, use_memo, scratch, n_root, root_mask, frames);
    if (!walk_tree(cells, used, L, table, use_memo, acc)) return false;
    int64_t* root = acc.row(0);
    for (int64_t y = acc.lo; y < acc.hi; ++y) out[y] = root[y];
    for (int64_t y = acc.used_lo; y < acc.used_hi; ++y) root[y] = 0;
    return true;
}

}  // namespace
}  // namespace cpcore

using namespace cpcore;

extern "C" void cpcore_count_one_word(const cpcore_one_word* layout, const int64_t* prefixes,
                                      uint64_t rows, uint64_t cols,
                                      cpcore_one_word_table* t, int use_memo, int64_t* out) {
    const cpcore_one_word& L = *layout;
    CountTable table(*t);
    for (uint64_t p = 0; p < rows; ++p) out[p] = -1;
    for (uint64_t p = 0; p < rows; ++p) {
        if (stopped(table.stats + STOP)) return;
        word cells, used;
        const bool ok = place(L, prefixes + p * cols, cols, cells, used);
        const int64_t n = ok ? count_state(cells, used, L, table, use_memo != 0) : 0;
        if (n >= 0) out[p] = n;
    }
}

extern "C" void cpcore_tally_one_word(const cpcore_one_word* layout,
                                      const cpcore_one_tallies* tallies,
                                      const int64_t* prefixes, uint64_t rows, uint64_t cols,
                                      cpcore_one_word_table* t, int use_memo, int64_t* out,
                                      uint64_t out_cols, int64_t* out_mask, int64_t* scratch) {
    const cpcore_one_word& L = *layout;
    CountTable table(*t);
    for (uint64_t p = 0; p < rows; ++p) {
        if (stopped(table.stats + STOP)) return;
        word cells, used;
        const bool ok = place(L, prefixes + p * cols, cols, cells, used);
        out_mask[p] = (int64_t)open_tallies(used, *tallies);
        int64_t* row = out + p * out_cols;
        if (!ok) {
            for (uint64_t y = 0; y < out_cols; ++y) row[y] = 0;
        } else if (!tally_state(cells, used, L, *tallies, table, use_memo != 0, row,
                                scratch)) {
            return;
        }
    }
}
