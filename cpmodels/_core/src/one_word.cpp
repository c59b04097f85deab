// The one-word count and tally: boards of at most 64 cells, every piece used once (see
// cpmodels/backends/engine/kernels/one_word.py). One skeleton walks the tree for both; what a node
// accumulates (a count, or a vector of counts split by the tally items' options) is its
// policy. Freestanding.
#include <stdint.h>

#include "cpcore/bits.hpp"
#include "cpcore/check.hpp"
#include "cpcore/choice.hpp"
#include "cpcore/entry.h"
#include "cpcore/one_word.hpp"
#include "cpcore/table.hpp"

namespace cpcore {
namespace {

const word FULL = ~(word)0;
const int64_t SINGLE = (int64_t)1 << 16;  // a vector of one count below this index is kept
const int64_t SINGLE_MOST = (int64_t)1 << 45;  // in its row, when the count is below this

// What WebAssembly's build inlines where the native one is left to the compiler (Subboards'
// begin).
#if defined(__wasm__)
#define WASM_INLINE inline __attribute__((always_inline))
#else
#define WASM_INLINE
#endif

inline Grid grid_of(const cpcore_one_word& L) { return Grid{L.inner, L.first, L.last}; }

// The table of sub-board counts: rows (cells, units used, value), the value 0 in an empty
// slot, count + 1 for a count, and for a tally vector either a single entry (even: 2 *
// (count * SINGLE + index) + 2) or a packed arena run (odd: 16 * offset + 2 * width + 1,
// table.hpp's packed runs). A tally whose units fit in NARROW_UNITS bits keeps rows of two
// words instead (NarrowRows: the units used in the second word, under the value).
typedef Rows<3> CountTable;

inline __attribute__((always_inline)) word count_hash(word cells, word used) {
    return state_hash(cells, used, MIX1, 31);
}

// The hash of the state a row holds (a growing table's rows are put back by it).
inline word row_hash(const word* row) { return count_hash(row[0], row[1]); }

// The caller's table, growing (table.hpp) from the first live slots it asks for: its live
// slots those of the states it holds.
inline CountTable count_table(const cpcore_one_word_table& t) {
    CountTable table{t.keys, nullptr, t.arena, t.stats, t.n_slots, 3, 3, t.arena_size, t.n_slots};
    table.grown(t.first_live);
    return table;
}

// The value kept for a state (0: none); ``h``: its hash.
inline __attribute__((always_inline)) word find(const CountTable& table, word h, word cells,
                                                word used) {
    return table.value(table.slot(CellsKey{cells, used, h}));
}
// A state's value kept (after make_room), and the largest value a row holds.
inline __attribute__((always_inline)) void keep(CountTable& table, word h, word cells,
                                                word used, word v) {
    table.put(CellsKey{cells, used, h}, v, row_hash);
}
inline word most_kept(const CountTable&) { return ~(word)0; }

// When the units fit in the low ``shift`` bits of a word and a value in the rest (a sweep's:
// calendar_week's 13 units), the tally keeps rows of two words: the cells, then the value
// shifted above the units used. Every row then lies in one cache line, and a table of 8
// million slots takes 128 MB where rows of three took 192 MB (the pages the system zeroes).
// The caller's table is the same (rows of three words): these use its first two thirds.
#ifndef CPCORE_NARROW_UNITS
#define CPCORE_NARROW_UNITS 24
#endif
const unsigned NARROW_UNITS = CPCORE_NARROW_UNITS;  // the most units rows of two hold

// The key of a row whose second word holds the units used under the value (``units``
// their mask), or (``units`` every bit: a row of three words) the units used alone.
struct UnitsKey {
    word cells, used, h, units;

    word hash() const { return h; }
    bool same(const word* row) const { return row[0] == cells && (row[1] & units) == used; }
    void write(word* row) const {  // (in a row of two, row[1] holds the value: put's)
        row[0] = cells;
        if (units == ~(word)0) row[1] = used;
    }
};

// Rows whose value lies ``shift`` bits up, above the units used: NarrowRows (Stride 2),
// and SizedRows (Stride 0), which TALLY_ONE_SEARCH's one search reads whatever the width
// (WebAssembly's tally): rows of two words as NarrowRows', or of three as CountTable's
// (shift 0, units every bit: the second word the units used, the third the value).
template <uint64_t Stride>
struct ShiftedRows : Rows<Stride> {
    unsigned shift;  // the units' bits (0: rows of three)
    word units;      // their mask
};
typedef ShiftedRows<2> NarrowRows;
typedef ShiftedRows<0> SizedRows;

// The caller's table as rows of two words (``narrow``: the units in the low ``bits`` of the
// second word, the value above them) or of three (the units used, then the value).
template <uint64_t Stride>
inline ShiftedRows<Stride> shifted_table(const cpcore_one_word_table& t, bool narrow,
                                         unsigned bits) {
    const uint64_t width = narrow ? 2 : 3;
    ShiftedRows<Stride> table{{t.keys, t.keys + width - 1, t.arena, t.stats, t.n_slots, width,
                               width, t.arena_size, t.n_slots},
                              narrow ? bits : 0, narrow ? ((word)1 << bits) - 1 : ~(word)0};
    table.grown(t.first_live);
    return table;
}
template <uint64_t Stride>
inline __attribute__((always_inline)) word find(const ShiftedRows<Stride>& table, word h,
                                                word cells, word used) {
    return table.value(table.slot(UnitsKey{cells, used, h, table.units})) >> table.shift;
}
template <uint64_t Stride>
inline word most_kept(const ShiftedRows<Stride>& table) { return ~(word)0 >> table.shift; }
template <uint64_t Stride>
inline __attribute__((always_inline)) void keep(ShiftedRows<Stride>& table, word h, word cells,
                                                word used, word v) {
    CPCORE_ASSERT(v != 0 && v <= most_kept(table) && (used & ~table.units) == 0);
    const word u = table.units;
    table.put(UnitsKey{cells, used, h, u}, (v << table.shift) | (table.shift != 0 ? used : 0),
              [u](const word* r) { return count_hash(r[0], r[1] & u); });
}

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
// slack item none of whose cells is open is a dead end. ``fillable(region, k)``: whether
// k cells may be filled (L.fillable's, or Left's stronger rule), ``region`` those cells when
// no cell of theirs may stay open (else 0). ``tiles(cells)``: whether the units left may
// cover those cells exactly (the tally's rule, tiles below; the count's: always), asked of
// each small region that passes the size rule and has ``least`` cells or more (a smaller
// one holds holes only, which the size rule has counted), and of the small regions met so
// far and the isolated cells together while they are fewer than twice region_limit cells
// (they take their pieces and holes from one stock; a larger union is not searched).
template <class Fillable, class Tiles>
inline bool slack_dead_end(word om, word cells, word used, const cpcore_one_word& L,
                           Fillable fillable, Tiles tiles, uint64_t least) {
    const word empty = ~cells;
    const Grid g = grid_of(L);
    word open_slack = 0;
    for (word groups = L.slack & ~used; groups != 0; groups &= groups - 1) {
        word mine = L.slack_cells[lowest(groups)] & empty;
        if (mine == 0) return true;
        open_slack |= mine;
    }
    if (L.isolated_dead && (isolated(empty, g) & ~open_slack) != 0) return true;
    word joint = isolated(empty, g);  // the small regions met, to be tiled together
    return small_region_dead(
        om, empty, g, (uint64_t)L.region_limit, [&](word region, uint64_t size) {
            if ((region & open_slack) == 0) {
                if (!fillable(region, size)) return false;
            } else if (!fillable(0, size)) {
                uint64_t holes = 0;  // the slack items that may leave a cell of it open
                for (word groups = L.slack & ~used; groups != 0; groups &= groups - 1)
                    if ((L.slack_cells[lowest(groups)] & region) != 0) ++holes;
                bool any = false;
                for (uint64_t h = 1; h <= holes && h <= size && !any; ++h)
                    any = fillable(0, size - h);
                if (!any) return false;
            }
            if (size >= least && !tiles(region)) return false;
            const bool more = (joint & ~region) != 0;
            joint |= region;
            return !more || popcount(joint) >= 2 * (uint64_t)L.region_limit || tiles(joint);
        });
}
inline bool slack_dead_end(word om, word cells, word used, const cpcore_one_word& L) {
    return slack_dead_end(
        om, cells, used, L, [&L](word, uint64_t size) { return L.fillable[size] != 0; },
        [](word) { return true; }, 64);
}

// Whether ``region`` (small regions: fewer than twice region_limit cells) is covered
// exactly by options of the units ``used`` leaves, each unit at most once (pieces, and the
// slack items' holes): its first cell's options that lie within it, each tried in turn. A
// region is closed (a piece's cells are joined, which the region check asks of a layout),
// so in any completion its cells are covered so: none that covers them exactly is a dead
// end. With the masks' unit bits (runs.unit_at), the options that lie within the region
// are found by vectors, as AnchorWalk finds a node's options.
inline bool tiles(const Runs& runs, const word* avail, word region, word used) {
    if (region == 0) return true;
    const uint64_t x = lowest(region);
    if (runs.unit_at != nullptr) {
        const uint64_t all = runs.start[64 * runs.n_units];
        const uint64_t end = runs.start[(x + 1) * runs.n_units];
        for (uint64_t b = runs.start[x * runs.n_units]; b < end; b += 64) {
            const uint64_t n = end - b < 64 ? end - b : 64;
            for (word f = disjoint_bits(runs.masks + b, runs.unit_at + b, n, all - b, ~region,
                                        used);
                 f != 0; f &= f - 1) {
                const uint64_t j = b + lowest(f);
                CPCORE_ASSERT(((runs.masks[j] >> x) & 1) && (runs.masks[j] & ~region) == 0 &&
                              (runs.unit_at[j] & used) == 0);
                if (tiles(runs, avail, region & ~runs.masks[j], used | runs.unit_at[j]))
                    return true;
            }
        }
        return false;
    }
    for (word m = avail[x] & ~used; m != 0; m &= m - 1) {
        const uint64_t u = lowest(m), k = x * runs.n_units + u;
        for (uint64_t j = runs.start[k]; j < runs.start[k + 1]; ++j)
            if ((runs.masks[j] & ~region) == 0 &&
                tiles(runs, avail, region & ~runs.masks[j], used | (word)1 << u))
                return true;
    }
    return false;
}

// The region sizes the pieces a state has left can fill (the tally's dead-end rule): a
// region is filled by pieces left, so its size is a sum of some of their areas, not only
// of all the pieces' (L.fillable). On calendar_week's sweep five states in six were dead
// (their tally all zeros) with L.fillable's rule; once its three tetrominoes are placed a
// region of 8 or 9 cells is dead too.
struct Left {
    uint8_t area[64];  // each piece unit's cells (every placement of a unit has as many;
                       // the option that leaves a piece out, none)
    word pieces;       // the piece units (not the slack items)
    uint64_t least;    // the fewest cells of a piece (64: none)

    explicit Left(const cpcore_one_word& L) : pieces(L.all_pieces & ~L.slack), least(64) {
        for (uint64_t u = 0; u < 64; ++u) area[u] = 0;
        for (uint64_t o = 0; o < L.n_options; ++o)
            for (word units = L.opt_piece[o] & pieces; units != 0; units &= units - 1) {
                const uint64_t u = lowest(units), a = popcount(L.opt_cells[o]);
                if (a > area[u]) area[u] = (uint8_t)a;
            }
        for (word units = pieces; units != 0; units &= units - 1)
            if (area[lowest(units)] > 0 && area[lowest(units)] < least)
                least = area[lowest(units)];
    }
    // Bit k: k < 64 cells are a sum of the areas of some of the pieces ``used`` leaves.
    word sums(word used) const {
        word s = 1;
        for (word left = pieces & ~used; left != 0; left &= left - 1) {
            const uint64_t a = area[lowest(left)];
            if (a < 64) s |= s << a;
        }
        return s;
    }
    // Whether the pieces ``used`` leaves may fill ``region`` (``size`` cells; 0: only its
    // size is known), ``sums`` their sums(used): its size is such a sum, and a region only
    // one piece fills (no two pieces left have as few cells) is one of its options.
    bool fill(const cpcore_one_word& L, const Runs& runs, word used, word sums, word region,
              uint64_t size) const {
        if (size >= 64) return L.fillable[size] != 0;
        if (((sums >> size) & 1) == 0) return false;
        if (region == 0) return true;
        uint64_t smallest = 64;  // the fewest cells of a piece left
        word of_size = 0;        // the pieces left of ``size`` cells
        for (word left = pieces & ~used; left != 0; left &= left - 1) {
            const uint64_t u = lowest(left), a = area[u];
            if (a < smallest) smallest = a;
            if (a == size) of_size |= (word)1 << u;
        }
        if (of_size == 0 || size >= 2 * smallest) return true;
        const uint64_t x = lowest(region);
        for (; of_size != 0; of_size &= of_size - 1) {
            const uint64_t k = x * runs.n_units + lowest(of_size);
            for (uint64_t j = runs.start[k]; j < runs.start[k + 1]; ++j)
                if (runs.masks[j] == region) return true;
        }
        return false;
    }
};

// Each row of prefixes (option ids, -1 pads) forced on the board in turn (each_task), and
// answered by ``answer(p, fits, cells, used)`` (fits: whether its options fit together).
template <class Answer>
void each_row(const cpcore_one_word& L, const int64_t* prefixes, uint64_t rows, uint64_t cols,
              const int64_t* stop, Answer answer) {
    word cells, used;
    each_task(prefixes, rows, cols, stop,
              [&](const int64_t* row) {
                  cells = L.covered;
                  used = 0;
                  return place_options(row, cols, L.opt_cells, L.opt_piece, cells, used,
                                       [](int64_t) {});
              },
              [&](uint64_t p, bool ok) { return answer(p, ok, cells, used); });
}

// The search below a state that is neither full nor in the table (see depth_first): ``acc``
// (the policy) adds up what its nodes find. With a table, only the states with at least
// ``keeps_from`` pieces left to place are kept and looked up (cpcore/choice.hpp), their rows
// asked of the caches ahead, unless the policy keeps every state (Acc::KEEPS_EVERY_STATE).
// A node's placements are walked as the policy says (Acc::Walk: Walk, or AnchorWalk where
// the core's rule has the count test them by vectors); the tree is the same either way.
template <class Acc>
struct Subboards {
    struct Words {
        word cells, used, hash;
    };
    typedef typename Acc::Walk Walk;
    typedef cpcore::Frame<Words, Walk> Frame;
    const cpcore_one_word& L;
    typename Acc::Table& table;
    bool use_memo;
    uint64_t keeps_from;
    Acc& acc;
    const Runs runs;
    Words at, child_at{0, 0, 0};  // the node's words and its child's
    word om = 0;
    Walk w;
    unsigned depth = 0;
    Frame* stack;  // [MAX_DEPTH] (apart, so that the node's words may live in registers)

    Subboards(word c, word u, const cpcore_one_word& layout, typename Acc::Table& t, bool memo,
              uint64_t keeps, Acc& a, Frame* frames, const word* unit_at)
        : L(layout), table(t), use_memo(memo), keeps_from(keeps), acc(a),
          runs{L.start, L.masks, L.n_pieces, unit_at},
          at{c, u, count_hash(c, u)}, stack(frames) {
        w.bit = 0;
        begin();
    }

    // The pieces a state of these units used has left to place.
    uint64_t left(word used) const { return popcount(L.all_pieces & ~used); }
    // Whether the table keeps (and is asked for) such a state.
    bool kept(word used) const {
        return use_memo && (Acc::KEEPS_EVERY_STATE || left(used) >= keeps_from);
    }

    // The node's walk begun; when the table keeps its children (each places one piece),
    // their rows are asked of the caches at once (their fetches overlap), before any is
    // looked up. In WebAssembly it is inlined in the walk (WASM_INLINE), which clang left
    // as a call of its own there: the editor's weekday tally, the same nodes, about 0.98 of
    // the CPU (docs/web.md) and 0.9 KB less of engine.wasm. The native build is as it was.
    WASM_INLINE void begin() {
        w.begin(at.cells, at.used, L.avail, runs);
        if (!use_memo || (!Acc::KEEPS_EVERY_STATE && left(at.used) < keeps_from + 1)) return;
        Walk ahead = w;
        word placed;
        while (ahead.next(at.cells, runs, placed))
            table.fetch(count_hash(at.cells | placed, at.used | ahead.bit));
    }

    bool next() { return w.next(at.cells, runs, om); }
    Step child() {
        child_at.cells = at.cells | om;
        child_at.used = at.used | w.bit;
        acc.choose(w.placed(runs));
        if (child_at.cells == FULL) {
            if ((child_at.used | L.optional) == L.all_pieces) acc.leaf(depth);
            return Step::skip;
        }
        if (acc.dead_end(om, child_at.cells, child_at.used)) return Step::skip;
        if (!kept(child_at.used)) return Step::enter;
        child_at.hash = count_hash(child_at.cells, child_at.used);  // (its row fetched already)
        const word value = find(table, child_at.hash, child_at.cells, child_at.used);
        return acc.found(value, depth) ? Step::skip : Step::enter;
    }
    void close() { acc.close(at.cells, at.used, at.hash, depth, kept(at.used)); }
    void pop(unsigned d) {
        depth = d;
        take_frame(stack, d, at, w);
        if (kept(at.used)) table.fetch(at.hash);  // for the node's own row, kept when it closes
        acc.pop(d);
    }
    void push(unsigned d) {
        keep_frame(stack, d, at, w);
        acc.push(d);
        depth = d + 1;
    }
    void enter() {
        at = child_at;
        acc.descend();
        begin();
    }
};

// Search below the state with ``acc``; false when the stop flag was seen (``unit_at``: the
// masks' unit bits, for AnchorWalk). (Flattened: the helpers' calls inlined into the loop.)
template <class Acc>
__attribute__((flatten)) bool walk_tree(word cells, word used, const cpcore_one_word& L,
                                        typename Acc::Table& table, bool use_memo,
                                        uint64_t keeps_from, Acc& acc, const int64_t* stop,
                                        const word* unit_at = nullptr) {
    typename Subboards<Acc>::Frame frames[MAX_DEPTH];
    Subboards<Acc> s(cells, used, L, table, use_memo, keeps_from, acc, frames, unit_at);
    int64_t nodes;
    const Ended ended = depth_first(s, stop, nodes);
    table.stats[NODES] += nodes;
    return ended != Ended::stopped;
}

// Counting: a node adds up its children's counts; the table holds count + 1. Its nodes'
// placements are walked by W (Walk, or AnchorWalk: count_walk's choice).
template <class W>
struct Counting {
    typedef CountTable Table;
    static const bool KEEPS_EVERY_STATE = false;  // (the states with keeps_from pieces left)
    typedef W Walk;
    const cpcore_one_word& L;
    CountTable& table;
    int64_t acc = 0, child = 0;
    int64_t* st_acc;  // [MAX_DEPTH] the frames' counts so far

    Counting(const cpcore_one_word& layout, CountTable& t, int64_t* frames)
        : L(layout), table(t), st_acc(frames) {}

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
    void close(word cells, word used, word hash, unsigned, bool keep) {
        if (keep && table.make_room(0))
            table.put(CellsKey{cells, used, hash}, (word)(acc + 1), row_hash);
        child = acc;
    }
    void pop(unsigned depth) { acc = st_acc[depth] + child; }
    void push(unsigned depth) { st_acc[depth] = acc; }
    void descend() { acc = 0; }
};

// The completions of a state, -1 at a stop; the table keeps the states with at least
// ``keeps_from`` pieces left to place. ``unit_at`` (the masks' unit bits, or null): the
// count's nodes are walked by AnchorWalk (count_walk).
int64_t count_state(word cells, word used, const cpcore_one_word& layout, CountTable& table,
                    bool use_memo, uint64_t keeps_from, const int64_t* stop,
                    const word* unit_at) {
    const cpcore_one_word L = layout;  // a local copy: nothing the search writes can alias it
    if (cells == FULL) return (used | L.optional) == L.all_pieces ? 1 : 0;
    if (use_memo && popcount(L.all_pieces & ~used) >= keeps_from) {
        const word v = find(table, count_hash(cells, used), cells, used);
        if (v != 0) return (int64_t)v - 1;
    }
    int64_t frames[MAX_DEPTH];
    if constexpr (COUNT_WALKS_BY_VECTORS) {
        if (unit_at != nullptr) {
            Counting<AnchorWalk> acc(L, table, frames);
            if (!walk_tree(cells, used, L, table, use_memo, keeps_from, acc, stop, unit_at))
                return -1;
            return acc.acc;
        }
    }
    Counting<Walk> acc(L, table, frames);
    if (!walk_tree(cells, used, L, table, use_memo, keeps_from, acc, stop)) return -1;
    return acc.acc;
}

// Tallying: a node adds its children's vectors (a child's index maps to the parent's by
// the option it placed); each depth's row is zero outside the range lo:hi its node has
// added to, and is zeroed again once added to its parent. ``Rows``: CountTable, or
// NarrowRows; its nodes' placements are walked by W (Walk, or AnchorWalk: the count's rule,
// count_walks_by_vectors).
template <class Rows, class W>
struct Tallying {
    typedef Rows Table;
    static const bool KEEPS_EVERY_STATE = true;  // (a sweep's tasks share their sub-boards)
    typedef W Walk;
    const cpcore_one_word& L;
    const cpcore_one_tallies& T;
    Table& table;
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
    const Left& left;
    const Runs runs;

    Tallying(const cpcore_one_word& layout, const cpcore_one_tallies& tallies, Table& t,
             int64_t* scratch, int64_t n, word root_mask, Frame* frames, const Left& pieces,
             const word* unit_at)
        : L(layout), T(tallies), table(t), rows(scratch), n_root(n),
          mask(root_mask), lo(n), hi(0), stack(frames), left(pieces),
          runs{L.start, L.masks, L.n_pieces, unit_at} {}

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

    // Add src[at:at + n] (a child's vector from its index ``from``, n > 0), reached by
    // option ``opt`` from a node whose uncovered tally items are ``m``, into ``acc``.
    void add_vector(int64_t* acc, const int64_t* src, int64_t at, int64_t from, int64_t n,
                    int64_t opt, word m) {
        const int64_t item = T.opt_tally[opt];
        int64_t a, b;
        if (item < 0)
            scatter(acc, src, at, from, n, 0, nullptr, &a, &b);
        else
            scatter(acc, src, at, from, n, T.opt_index[opt] * stride(m, item),
                    T.map_flat + map_at(m, item), &a, &b);
        widen(a, b);
    }
    // The same for a packed run kept at ``at`` (table.hpp), its counts ``width`` wide.
    void add_packed(int64_t* acc, int64_t at, unsigned width, int64_t opt, word m) {
        const int64_t item = T.opt_tally[opt];
        int64_t a, b;
        if (item < 0)
            scatter_packed(acc, table.arena, at, width, 0, nullptr, &a, &b);
        else
            scatter_packed(acc, table.arena, at, width, T.opt_index[opt] * stride(m, item),
                           T.map_flat + map_at(m, item), &a, &b);
        widen(a, b);
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
        word sums = 0;  // (left.sums(used), once a region asks)
        auto fillable = [&](word region, uint64_t size) {
            if (sums == 0) sums = left.sums(used);
            return left.fill(L, runs, used, sums, region, size);
        };
        if (L.slack != 0)
            return slack_dead_end(
                om, cells, used, L, fillable,
                [&](word region) { return tiles(runs, L.avail, region, used); }, left.least);
        if (L.region_limit <= 0) return false;
        const word empty = ~cells;
        const Grid g = grid_of(L);
        if (L.isolated_dead && isolated(empty, g) != 0) return true;
        return small_region_dead(om, empty, g, (uint64_t)L.region_limit, fillable);
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
            add_packed(row(depth), (int64_t)(v >> 4), (unsigned)(v >> 1) & 7, o, mask);
        }
        return true;
    }
    void store(word hash, word cells, word used, const int64_t* vec, int64_t a, int64_t b) {
        const int64_t n = b - a;
        const word most = most_kept(table) >> 18;  // (a single count's, below SINGLE_MOST)
        const bool single = n <= 1 && a < SINGLE &&
                            (n == 0 || ((word)vec[a] < (word)SINGLE_MOST && (word)vec[a] < most));
        const unsigned width = single ? 0 : packed_width(vec, a, n);
        if (!table.make_room(single ? 0 : packed_words(n, width))) return;
        if (single)
            keep(table, hash, cells, used, (word)(2 * ((n == 1 ? vec[a] : 0) * SINGLE + a) + 2));
        else
            keep(table, hash, cells, used,
                 (word)(16 * table.keep_packed(vec, a, n, width) + 2 * width + 1));
    }
    void close(word cells, word used, word hash, unsigned depth, bool keep) {
        const int64_t* r = row(depth);
        used_lo = lo;
        used_hi = hi;
        trim_zeros(r, lo, hi);
        if (keep) store(hash, cells, used, r, lo, hi);
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

// The search below a state of a tally, its nodes walked by W (``unit_at``: the masks' unit
// bits, for AnchorWalk): its counts into ``out``; false at a stop.
template <class Rows, class W>
bool tally_below(word cells, word used, const cpcore_one_word& L, const cpcore_one_tallies& T,
                 Rows& table, bool use_memo, int64_t* out, int64_t* scratch,
                 const int64_t* stop, word root_mask, int64_t n_root, const word* unit_at) {
    typename Tallying<Rows, W>::Frame frames[MAX_DEPTH];
    const Left left(L);
    Tallying<Rows, W> acc(L, T, table, scratch, n_root, root_mask, frames, left, unit_at);
    if (!walk_tree(cells, used, L, table, use_memo, 0, acc, stop, unit_at)) return false;
    int64_t* root = acc.row(0);
    for (int64_t y = acc.lo; y < acc.hi; ++y) out[y] = root[y];
    for (int64_t y = acc.used_lo; y < acc.used_hi; ++y) root[y] = 0;
    return true;
}

// The tally of a state into ``out``; false at a stop. ``unit_at`` (the masks' unit bits, or
// null): its nodes are walked by AnchorWalk.
template <class Rows>
bool tally_state(word cells, word used, const cpcore_one_word& L, const cpcore_one_tallies& T,
                 Rows& table, bool use_memo, int64_t* out, int64_t* scratch,
                 const int64_t* stop, const word* unit_at) {
    const word root_mask = open_tallies(used, T);
    const int64_t n_root = T.length[root_mask];
    for (int64_t y = 0; y < n_root; ++y) out[y] = 0;
    if (cells == FULL) {
        if ((used | L.optional) == L.all_pieces) out[0] = 1;
        return true;
    }
    if (L.slack != 0 && slack_dead_end(0, cells, used, L)) return true;
    if (use_memo) {
        const word v = find(table, count_hash(cells, used), cells, used);
        if (v != 0) {
            if ((v & 1) == 0) {
                const int64_t w = (int64_t)(v >> 1) - 1;
                out[w % SINGLE] = w / SINGLE;
            } else {
                table.copy_packed((int64_t)(v >> 4), (unsigned)(v >> 1) & 7, out);
            }
            return true;
        }
    }
    if constexpr (COUNT_WALKS_BY_VECTORS) {
        if (unit_at != nullptr)
            return tally_below<Rows, AnchorWalk>(cells, used, L, T, table, use_memo, out, scratch,
                                                 stop, root_mask, n_root, unit_at);
    }
    return tally_below<Rows, Walk>(cells, used, L, T, table, use_memo, out, scratch, stop,
                                   root_mask, n_root, nullptr);
}

// The bits of the units a state may use (every option's pieces and slack items).
inline unsigned unit_bits(const cpcore_one_word& L) {
    word units = L.all_pieces | L.optional | L.slack;
    for (uint64_t o = 0; o < L.n_options; ++o) units |= L.opt_piece[o];
    unsigned bits = 0;
    while (bits < 64 && (units >> bits) != 0) ++bits;
    return bits;
}

// Each row of prefixes tallied into ``out`` (cpcore_tally_one_word), its states kept in
// ``table``.
template <class Rows>
void tally_rows(const cpcore_one_word& L, const cpcore_one_tallies& T, Rows& table,
                const int64_t* prefixes, uint64_t rows, uint64_t cols, int use_memo,
                int64_t* out, uint64_t out_cols, int64_t* out_mask, int64_t* scratch,
                const int64_t* stop, const word* unit_at) {
    each_row(L, prefixes, rows, cols, stop, [&](uint64_t p, bool ok, word cells, word used) {
        out_mask[p] = (int64_t)open_tallies(used, T);
        int64_t* row = out + p * out_cols;
        if (ok)
            return tally_state(cells, used, L, T, table, use_memo != 0, row, scratch, stop,
                               unit_at);
        for (uint64_t y = 0; y < out_cols; ++y) row[y] = 0;
        return true;
    });
}

}  // namespace
}  // namespace cpcore

using namespace cpcore;

extern "C" void cpcore_count_one_word(const cpcore_one_word* layout, const int64_t* prefixes,
                                      uint64_t rows, uint64_t cols,
                                      cpcore_one_word_table* t, int use_memo, int64_t* out,
                                      const int64_t* stop) {
    const cpcore_one_word& L = *layout;
    CountTable table = count_table(*t);
    for (uint64_t p = 0; p < rows; ++p) out[p] = -1;
    // The walk by vectors, where the core's rule has it: the masks' unit bits beside them.
    word unit_at[COUNT_WALKS_BY_VECTORS ? COUNT_VECTOR_OPTIONS : 1];
    const bool by_vectors = count_walks_by_vectors(L.start[64 * L.n_pieces]);
    if (by_vectors) unit_bits(Runs{L.start, L.masks, L.n_pieces}, unit_at);
    each_row(L, prefixes, rows, cols, stop, [&](uint64_t p, bool ok, word cells, word used) {
        const int64_t n = ok ? count_state(cells, used, L, table, use_memo != 0,
                                           COUNT_KEEPS_FROM, stop, by_vectors ? unit_at : nullptr)
                             : 0;
        if (n >= 0) out[p] = n;
        return n >= 0;
    });
}

extern "C" int64_t cpcore_tally_one_word(const cpcore_one_word* layout,
                                         const cpcore_one_tallies* tallies,
                                         const int64_t* prefixes, uint64_t rows,
                                         uint64_t cols, cpcore_one_word_table* t,
                                         int use_memo, int64_t* out, uint64_t out_cols,
                                         int64_t* out_mask, int64_t* scratch,
                                         const int64_t* stop) {
    const cpcore_one_word& L = *layout;
    for (uint64_t k = 0; k < tallies->n_tally; ++k)
        if (tallies->bit[k] & L.optional) return CPCORE_LEFT_OUT_TALLY;
    const unsigned bits = unit_bits(L);
    // The walk by vectors, as the count's (the same tree): the masks' unit bits beside them.
    word unit_at[COUNT_WALKS_BY_VECTORS ? COUNT_VECTOR_OPTIONS : 1];
    const bool by_vectors = count_walks_by_vectors(L.start[64 * L.n_pieces]);
    if (by_vectors) unit_bits(Runs{L.start, L.masks, L.n_pieces}, unit_at);
    const word* vectors = by_vectors ? unit_at : nullptr;
    const bool narrow = TALLY_NARROW_ROWS && bits <= NARROW_UNITS &&
                        t->arena_size < ((uint64_t)1 << (60 - NARROW_UNITS));
    if constexpr (TALLY_ONE_SEARCH) {
        SizedRows table = shifted_table<0>(*t, narrow, bits);
        tally_rows(L, *tallies, table, prefixes, rows, cols, use_memo, out, out_cols, out_mask,
                   scratch, stop, vectors);
    } else if (narrow) {
        NarrowRows table = shifted_table<2>(*t, true, bits);
        tally_rows(L, *tallies, table, prefixes, rows, cols, use_memo, out, out_cols, out_mask,
                   scratch, stop, vectors);
    } else {
        CountTable table = count_table(*t);
        tally_rows(L, *tallies, table, prefixes, rows, cols, use_memo, out, out_cols, out_mask,
                   scratch, stop, vectors);
    }
    return 0;
}

extern "C" int64_t cpcore_split_one_word(const cpcore_one_word* layout, const int64_t* task,
                                         uint64_t n_task, int64_t* out) {
    const cpcore_one_word& L = *layout;
    for (uint64_t q = 0; q < n_task; ++q)
        if (task[q] < -1 || task[q] >= (int64_t)L.n_options) return -1;
    word cells = L.covered, used = 0;  // (options that clash put down all the same)
    place_options(task, n_task, L.opt_cells, L.opt_piece, cells, used, [](int64_t) {});
    if (cells == FULL) return -1;  // (a piece left out is the general layout's step)
    const uint64_t x = first_open(CellWord{cells}, 0, 64);
    int64_t written = 0;
    for (uint64_t k = L.start[x * L.n_pieces]; k < L.start[(x + 1) * L.n_pieces]; ++k) {
        const int64_t o = L.opts[k];
        if (o < 0 || o >= (int64_t)L.n_options) return -1;
        if ((L.masks[k] & cells) != 0 || (L.opt_piece[o] & used) != 0) continue;
        int64_t at = written++;  // kept in ascending order (the general layout's)
        for (; at > 0 && out[at - 1] > o; --at) out[at] = out[at - 1];
        out[at] = o;
    }
    return written;
}
