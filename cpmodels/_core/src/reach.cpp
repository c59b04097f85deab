// The reach search: which label combinations of a calendar have a solution, in one search
// (see cpmodels/backends/engine/kernels/reach.py). Two walks on the one-word layout: the search
// proper, and the settling of a state with at most one label group open. Freestanding.
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
const int64_t NONE_OPEN = -1, SEVERAL_OPEN = -2;

// The reach search's states searched to the end: rows (cells, units used, holes, mark) of
// the one table (cpcore/table.hpp); a row is in use when its mark is the task's or DEAD (a
// state with no completion at all), so a task's rows need no clearing for the next task.
const word DEAD = 1;

struct ReachTable {
    Rows<4> rows;
    word mark;

    inline __attribute__((always_inline)) uint64_t slot(word cells, word used,
                                                        word holes) const {
        const word m = mark;
        return rows.slot(state_hash(cells ^ (holes * MIX2), used, MIX1, 31),
                         [m](const word* r) { return r[3] == m || r[3] == DEAD; },
                         [cells, used, holes](const word* r) {
                             return r[0] == cells && r[1] == used && r[2] == holes;
                         });
    }

    // The mark of a state's row (the task's, DEAD, or another: not searched).
    inline word mark_of(word cells, word used, word holes) const {
        return rows.row(slot(cells, used, holes))[3];
    }

    // Keep a state searched to the end (dead: it has no completion at all).
    inline void keep(word cells, word used, word holes, bool dead) {
        rows.make_room(0);
        word* row = rows.row(slot(cells, used, holes));
        if (row[3] != mark && row[3] != DEAD) rows.stats[USED] += 1;
        row[0] = cells;
        row[1] = used;
        row[2] = holes;
        row[3] = dead ? DEAD : mark;
    }
};

// The reach search's settled states: rows (cells, units used, labels found, labels
// decided) of the one table; nothing decided is an empty slot. Where the table's arena
// holds a byte a slot (the caller's choice: cpmodels/backends/engine/searches.py), the
// bytes are the slots' tags: 0 an empty slot, else a byte of its state's hash (never 0).
// A lookup then reads the tags (1 MB for 2^20 slots, which the caches keep) and a row only
// where the tag matches, so a state not kept (most of the states a search enters) costs
// no read of the rows (32 MB, out of the caches), and a new row is written whole, never
// read. With tags the tags alone say which slots are in use (a flush clears them, not the
// rows); without (a smaller arena) the rows' last word says, as in every other table.
struct SettledTable {
    Rows<4> rows;
    unsigned char* tags;  // (or null)

    static inline __attribute__((always_inline)) unsigned char tag_of(word h) {
        const unsigned char t = (unsigned char)(h >> 56);
        return t != 0 ? t : 1;
    }
    static inline __attribute__((always_inline)) word hash(word cells, word used) {
        return state_hash(cells, used, MIX2, 29);
    }

    // The slot of a state from its hash: the one that holds it, else the empty one where
    // it would go.
    inline __attribute__((always_inline)) uint64_t find(word cells, word used, word h) const {
        if (tags == nullptr) return rows.slot(CellsKey{cells, used, h});
        const uint64_t mask = rows.size() - 1;
        const unsigned char t = tag_of(h);
        uint64_t s = h & mask;
        for (; tags[s] != 0; s = (s + 1) & mask) {
            if (tags[s] != t) continue;
            const word* r = rows.row(s);
            if (r[0] == cells && r[1] == used) break;
        }
        return s;
    }
    inline __attribute__((always_inline)) bool holds(uint64_t s) const {
        return tags != nullptr ? tags[s] != 0 : rows.value(s) != 0;
    }

    // What is decided of a state: the labels found (yes) among those decided (done);
    // both 0 when it is not kept.
    inline __attribute__((always_inline)) void look(word cells, word used, word& yes,
                                                    word& done) const {
        look(cells, used, hash(cells, used), yes, done);
    }
    // (the same, its hash ``h`` known)
    inline __attribute__((always_inline)) void look(word cells, word used, word h, word& yes,
                                                    word& done) const {
        CPCORE_ASSERT(h == hash(cells, used));
        const uint64_t s = find(cells, used, h);
        if (!holds(s)) {
            yes = done = 0;
            return;
        }
        const word* r = rows.row(s);
        yes = r[2];
        done = r[3];
        CPCORE_ASSERT(done != 0);
    }

    // Ask the caches for a state's row when its first slot's tag is the state's (most
    // states a search meets are not kept: their rows are not asked for).
    inline __attribute__((always_inline)) void fetch(word h) const {
        if (tags == nullptr) return;
        if (tags[h & (rows.size() - 1)] == tag_of(h)) rows.fetch(h);
    }

    // Ask the caches for a state's tag and its first slot's row, whatever the tag (a
    // node's children asked at once, before any is looked up: their fetches overlap).
    inline __attribute__((always_inline)) void fetch_ahead(word h) const {
        if (tags == nullptr) return;
        __builtin_prefetch(tags + (h & (rows.size() - 1)), 0, 3);
        rows.fetch(h);
    }

    // The one flush rule (table.hpp), the tags cleared with the slots.
    inline void make_room() {
        if (tags == nullptr) {
            rows.make_room(0);
            return;
        }
        if ((uint64_t)rows.stats[USED] * 4 < rows.size() * 3) return;
        for (uint64_t s = 0; s < rows.size(); ++s) tags[s] = 0;
        rows.stats[USED] = 0;
        rows.stats[ARENA_USED] = 0;
        rows.stats[FLUSHES] += 1;
    }

    // Add what a search decided of a state (``done`` not 0) to its entry.
    CPCORE_STEP void keep(word cells, word used, word yes, word done) {
        CPCORE_ASSERT(done != 0);
        make_room();
        const word h = hash(cells, used);
        const uint64_t s = find(cells, used, h);
        word* r = rows.row(s);
        if (!holds(s)) {
            rows.stats[USED] += 1;
            r[0] = cells;
            r[1] = used;
            r[2] = yes;
            r[3] = done;
            if (tags != nullptr) tags[s] = tag_of(h);
            return;
        }
        r[2] |= yes;
        r[3] |= done;
    }
};

// The tags of a settled table: its arena, when that holds a byte a slot.
inline unsigned char* tags_of(const cpcore_one_word_table& t) {
    return t.arena != nullptr && t.arena_size * 8 >= t.n_slots
               ? reinterpret_cast<unsigned char*>(t.arena)
               : nullptr;
}

inline Rows<4> rows_of(const cpcore_one_word_table& t) {
    return Rows<4>{t.keys, nullptr, t.arena, t.stats, t.n_slots, 4, 4, t.arena_size, t.n_slots};
}

// The layout's questions about groups, holes and wanted combinations.
struct Reach {
    const cpcore_reach_layout& L;
    Grid grid;
    Runs runs;
    word all_units;

    // (``unit_at``: the masks' unit bits, for AnchorWalk; else null.)
    Reach(const cpcore_reach_layout& layout, const word* unit_at)
        : L(layout), grid{L.inner, L.first, L.last}, runs{L.start, L.masks, L.n_units, unit_at},
          all_units(L.n_units < 64 ? ((word)1 << L.n_units) - 1 : FULL) {}

    bool open(uint64_t g, word used) const { return (used & L.group_unit[g]) == 0; }

    // The cells where an open group's hole may still go.
    word open_labels(word cells, word used) const {
        word out = 0;
        for (uint64_t g = 0; g < L.n_groups; ++g)
            if (open(g, used)) out |= L.group_cells[g] & ~cells;
        return out;
    }

    // How many open groups have a label cell in ``region``.
    uint64_t holes_may(word region, word used) const {
        uint64_t k = 0;
        for (uint64_t g = 0; g < L.n_groups; ++g)
            if (open(g, used) && (region & L.group_cells[g]) != 0) ++k;
        return k;
    }

    // No hole may fill an isolated cell, two isolated cells are labels of one group, or a
    // region next to ``om`` has a size no pieces and holes add up to.
    bool dead_end(word om, word cells, word used) const {
        const word empty = ~cells;
        const word alone = isolated(empty, grid);
        if (alone != 0) {
            if ((alone & ~open_labels(cells, used)) != 0) return true;
            for (uint64_t g = 0; g < L.n_groups; ++g)
                if (popcount(alone & L.group_cells[g]) > 1) return true;
        }
        return small_region_dead(om, empty, grid, L.limit, [&](word region, uint64_t size) {
            return L.fill[holes_may(region, used) * L.fill_cols + size] != 0;
        });
    }

    // The same for a state with at most one group open whose hole is asked for only at
    // ``may`` (0: none open): a completion that leaves one of them open puts no hole in a
    // region without one, and fills an isolated cell only with the hole. In two parts: the
    // cheap one (a few operations on the cell word: whether an isolated cell is dead,
    // dead_alone_asked), which Settle asks before the settled table, and the costly one
    // (the regions next to ``om`` grown by dilations: dead_region_asked), which it asks
    // only of a child the table leaves undecided; dead_end_asked is the two.
    CPCORE_STEP bool dead_alone_asked(word cells, word may) const {
        const word alone = isolated(~cells, grid);
        return alone != 0 && ((alone & ~may) != 0 || (alone & (alone - 1)) != 0);
    }
    CPCORE_STEP bool dead_region_asked(word om, word cells, word may) const {
        return small_region_dead(om, ~cells, grid, L.limit, [&](word region, uint64_t size) {
            return L.fill[((region & may) != 0 ? 1 : 0) * L.fill_cols + size] != 0;
        });
    }
    CPCORE_STEP bool dead_end_asked(word om, word cells, word may) const {
        return dead_alone_asked(cells, may) || dead_region_asked(om, cells, may);
    }

    // The cells of group g's labels it may still leave open (a dummy bit for no group).
    word reach(int64_t g, word cells, word used, word holes) const {
        if (g < 0) return 1;
        if (!open((uint64_t)g, used)) return holes & L.group_cells[g];
        return L.group_cells[g] & ~cells;
    }

    // Whether some combination still wanted is reachable from the state.
    bool wanted_reachable(word cells, word used, word holes, const word* need) const {
        const word bits = reach(L.bit_group, cells, used, holes);
        if (bits == 0) return false;
        word ra = reach(L.a_group, cells, used, holes);
        const word rb = reach(L.b_group, cells, used, holes);
        for (; ra != 0; ra &= ra - 1) {
            const word base = L.a_label[lowest(ra)] * L.a_stride;
            for (word mb = rb; mb != 0; mb &= mb - 1)
                if ((need[base + L.b_label[lowest(mb)]] & bits) != 0) return true;
        }
        return false;
    }

    // The one open group of a state with at most one (NONE_OPEN, SEVERAL_OPEN).
    int64_t open_group(word used) const {
        int64_t out = NONE_OPEN;
        for (uint64_t g = 0; g < L.n_groups; ++g) {
            if (open(g, used)) {
                if (out != NONE_OPEN) return SEVERAL_OPEN;
                out = (int64_t)g;
            }
        }
        return out;
    }

    // The labels a state with at most one open group may reach (1: none open).
    word universe(word cells, word used) const {
        const int64_t g = open_group(used);
        return g < 0 ? 1 : L.group_cells[g] & ~cells;
    }

    // The index of the combination of the holes (one in every group); its bit is
    // ``holes & group_cells[bit_group]``.
    uint64_t combination(word holes) const {
        uint64_t index = 0;
        if (L.a_group >= 0)
            index += L.a_label[lowest(holes & L.group_cells[L.a_group])] * L.a_stride;
        if (L.b_group >= 0) index += L.b_label[lowest(holes & L.group_cells[L.b_group])];
        return index;
    }
    word combination_bit(word holes) const { return holes & L.group_cells[L.bit_group]; }

    // Of a state with at most one open group, the labels whose combination with the holes
    // placed is still wanted (1, or nothing, when no group is open).
    word wanted_labels(word cells, word used, word holes, const word* need) const {
        const int64_t g = open_group(used);
        if (g < 0) return (need[combination(holes)] & combination_bit(holes)) != 0 ? 1 : 0;
        const word free = L.group_cells[g] & ~cells;
        if (g == L.bit_group) return need[combination(holes | L.group_cells[g])] & free;
        word out = 0;
        for (word rest = free; rest != 0;) {
            const word c = rest & (~rest + 1);
            rest &= ~c;
            if ((need[combination(holes | c)] & combination_bit(holes | c)) != 0) out |= c;
        }
        return out;
    }

    // Cross the combinations of the labels ``yes`` off ``need``; how many were.
    int64_t cross_off(word yes, word used, word holes, word* need) const {
        int64_t crossed = 0;
        auto cross = [&](word with) {
            const uint64_t index = combination(with);
            const word bit = combination_bit(with);
            if ((need[index] & bit) != 0) {
                need[index] &= ~bit;
                ++crossed;
            }
        };
        if (open_group(used) < 0) {
            if (yes != 0) cross(holes);
            return crossed;
        }
        for (word rest = yes; rest != 0;) {
            const word c = rest & (~rest + 1);
            rest &= ~c;
            cross(holes | c);
        }
        return crossed;
    }
};

// The words of a settling's node (Settle's).
struct SettleWords {
    word cells, used, om, goal, found, ask, known_yes, hole_unit;
};

// The words of a search's node (Search's).
struct SearchWords {
    word cells, used, holes;
    bool clean;  // no solution below, no branch cut for having nothing left to find
};

// The node stacks of one call's searches (MAX_DEPTH frames each), the caller's: a search
// and the settlings it starts each walk their own. Apart from the searches' policies, so
// that a node's words may live in registers (as the count's, one_word.cpp).
template <class W>
struct Stacks {
    Frame<SettleWords, W>* settle;
    Frame<SearchWords, W>* search;
};

// Settling a state with at most one open group: which of the labels asked it reaches,
// searching only for those its entry has not decided (see depth_first). W walks a node's
// placements (Walk, or AnchorWalk: reach_walks_by_vectors); the tree is the same.
template <class W>
struct Settle {
    typedef SettleWords Words;
    const Reach& R;
    SettledTable& table;
    Words at;
    word answer = 0, child_cells = 0, child_used = 0, child_ask = 0, child_known = 0,
         child_done = 0;
    W w;
    Frame<Words, W>* stack;  // [MAX_DEPTH], the caller's

    Settle(const Reach& r, SettledTable& t, Frame<Words, W>* frames, word c, word u, word a,
           word known, word done)
        : R(r), table(t), at{c, u, 0, a & ~done, 0, a, known, 0}, stack(frames) {
        const int64_t g = R.open_group(at.used);
        at.hole_unit = g >= 0 ? R.L.group_unit[g] : 0;
        w.bit = 0;
        begin();
    }

    // The node's walk begun; by vectors, its children (the options of the first block
    // that fit) have their entries asked of the caches at once (see fetch_ahead).
    CPCORE_STEP void begin() {
        w.begin(at.cells, at.used, R.L.avail, R.runs);
        if constexpr (W::FITS_AHEAD) {
            for (word f = w.fits; f != 0; f &= f - 1) {
                const uint64_t k = (uint64_t)(w.block - R.runs.masks) + lowest(f);
                table.fetch_ahead(SettledTable::hash(at.cells | R.runs.masks[k],
                                                     at.used | R.runs.unit_at[k]));
            }
        }
    }

    bool next() { return (at.goal & ~at.found) != 0 && w.next(at.cells, R.runs, at.om); }
    Step child() {
        child_cells = at.cells | at.om;
        child_used = at.used | w.bit;
        const bool hole = (w.bit & at.hole_unit) != 0;
        if (hole)  // the open group's hole: the child has none open
            child_ask = (at.om & at.goal & ~at.found) != 0 ? 1 : 0;
        else
            child_ask = at.hole_unit != 0 ? at.goal & ~at.found & ~child_cells : at.goal;
        if (child_ask == 0) return Step::skip;
        if (child_cells == FULL) {
            if ((child_used | R.L.optional) == R.all_units) at.found |= hole ? at.om : child_ask;
            return Step::skip;
        }
        const word h = SettledTable::hash(child_cells, child_used);
        table.fetch(h);  // (its row comes while the check runs)
        // Only the labels asked: the others' completions are not this search's to find.
        const word may = hole || at.hole_unit == 0 ? 0 : child_ask;
        // The dead-end check's cheap part, then the table, then its costly part: a child
        // the table decides needs no region grown (either way a child is entered only when
        // neither says it is decided, so the tree is the same).
        const bool regions = R.L.limit > 0;
        if (regions && R.dead_alone_asked(child_cells, may)) return Step::skip;
        table.look(child_cells, child_used, h, child_known, child_done);
        if ((child_ask & ~child_done) == 0) {
            table.rows.stats[HITS] += 1;
            // (a dead end the table decides reaches none of the labels asked)
            CPCORE_ASSERT(!regions || (child_known & child_ask) == 0 ||
                          !R.dead_region_asked(at.om, child_cells, may));
            if ((child_known & child_ask) != 0) at.found |= hole ? at.om : child_known & child_ask;
            return Step::skip;
        }
        if (regions && R.dead_region_asked(at.om, child_cells, may)) return Step::skip;
        CPCORE_ASSERT(!regions || !R.dead_end_asked(at.om, child_cells, may));
        return Step::enter;
    }
    void close() {
        table.keep(at.cells, at.used, at.found, at.goal);
        answer = (at.known_yes | at.found) & at.ask;
    }
    void pop(unsigned d) {
        take_frame(stack, d, at, w);
        if (answer != 0) at.found |= (w.bit & at.hole_unit) != 0 ? at.om : answer;
    }
    void push(unsigned d) { keep_frame(stack, d, at, w); }
    void enter() {
        const word hole_unit = (w.bit & at.hole_unit) != 0 ? 0 : at.hole_unit;
        at = Words{child_cells, child_used, at.om, child_ask & ~child_done, 0, child_ask,
                   child_known, hole_unit};
        begin();
    }
};

// Which of the labels ``ask`` the state reaches, and whether it is dead (no completion at
// all); nothing found at a stop (the flag says so).
template <class W>
word settle(const Reach& R, word cells, word used, word ask, SettledTable& table,
            Frame<SettleWords, W>* frames, int64_t* stats, const int64_t* stop, bool& dead) {
    word known_yes, known_done;
    table.look(cells, used, known_yes, known_done);
    dead = false;
    if ((ask & ~known_done) == 0) {
        table.rows.stats[HITS] += 1;
        dead = known_yes == 0 && (R.universe(cells, used) & ~known_done) == 0;
        return known_yes & ask;
    }
    table.rows.stats[MISSES] += 1;
    Settle<W> s(R, table, frames, cells, used, ask, known_yes, known_done);
    int64_t nodes;
    const Ended ended = depth_first(s, stop, nodes);
    stats[NODES] += nodes;
    if (ended == Ended::stopped) return 0;
    table.rows.stats[NODES] += nodes;
    word yes, done;
    table.look(cells, used, yes, done);
    dead = done != 0 && yes == 0 && (R.universe(cells, used) & ~done) == 0;
    return s.answer;
}

// The search from a state, crossing each solution's combination off ``need`` (see
// depth_first); ``left``: the wanted combinations left.
template <class W>
struct Search {
    typedef SearchWords Words;
    const Reach& R;
    ReachTable& table;
    SettledTable& settled;
    word* need;
    const int64_t* stop;
    int64_t left;
    Words at, child_at{0, 0, 0, true};
    word om = 0;
    W w;
    Stacks<W> stacks;  // (stacks.search: this search's frames, [MAX_DEPTH])

    Search(const Reach& r, ReachTable& t, SettledTable& s, Stacks<W> frames, word* n,
           const int64_t* halt, int64_t l, word c, word u, word h)
        : R(r), table(t), settled(s), need(n), stop(halt), left(l), at{c, u, h, true},
          stacks(frames) {
        w.bit = 0;
        w.begin(at.cells, at.used, R.L.avail, R.runs);
    }

    bool next() { return w.next(at.cells, R.runs, om); }
    Step child() {
        child_at.cells = at.cells | om;
        child_at.used = at.used | w.bit;
        child_at.holes = (w.bit & R.L.slack_units) != 0 ? at.holes | om : at.holes;
        if (child_at.cells == FULL) {
            if ((child_at.used | R.L.optional) == R.all_units) {
                at.clean = false;
                const uint64_t index = R.combination(child_at.holes);
                const word hole = R.combination_bit(child_at.holes);
                if ((need[index] & hole) != 0) {
                    need[index] &= ~hole;
                    if (--left == 0) return Step::end;
                }
            }
            return Step::skip;
        }
        if (R.L.limit > 0 && R.dead_end(om, child_at.cells, child_at.used)) return Step::skip;
        if (R.open_group(child_at.used) != SEVERAL_OPEN) {
            const word labels =
                R.wanted_labels(child_at.cells, child_at.used, child_at.holes, need);
            if (labels == 0) {
                at.clean = false;
                return Step::skip;
            }
            bool dead;
            const word yes = settle(R, child_at.cells, child_at.used, labels, settled,
                                    stacks.settle, table.rows.stats, stop, dead);
            if (stopped(stop)) {
                left = -1;
                return Step::end;
            }
            at.clean = at.clean && dead;
            left -= R.cross_off(yes, child_at.used, child_at.holes, need);
            return left == 0 ? Step::end : Step::skip;
        }
        if (!R.wanted_reachable(child_at.cells, child_at.used, child_at.holes, need)) {
            at.clean = false;
            return Step::skip;
        }
        const word mark = table.mark_of(child_at.cells, child_at.used, child_at.holes);
        if (mark == DEAD) return Step::skip;
        if (mark == table.mark) {
            at.clean = false;
            return Step::skip;
        }
        return Step::enter;
    }
    void close() { table.keep(at.cells, at.used, at.holes, at.clean); }
    void pop(unsigned d) {
        const bool below = at.clean;
        take_frame(stacks.search, d, at, w);
        at.clean = at.clean && below;
    }
    void push(unsigned d) { keep_frame(stacks.search, d, at, w); }
    void enter() {
        at = child_at;
        w.begin(at.cells, at.used, R.L.avail, R.runs);
    }
};

// The wanted combinations left after searching from the state (0: all found), -1 at a
// stop. A state with at most one group open is settled.
template <class W>
int64_t search(const Reach& R, word cells, word used, word holes, ReachTable& table,
               SettledTable& settled, Stacks<W> stacks, word* need, int64_t left,
               const int64_t* stop) {
    int64_t* stats = table.rows.stats;
    if (R.open_group(used) != SEVERAL_OPEN) {
        const word labels = R.wanted_labels(cells, used, holes, need);
        if (labels == 0) return left;
        bool dead;
        const word yes = settle(R, cells, used, labels, settled, stacks.settle, stats, stop,
                                dead);
        if (stopped(stop)) return -1;
        return left - R.cross_off(yes, used, holes, need);
    }
    if (!R.wanted_reachable(cells, used, holes, need)) return left;
    Search<W> s(R, table, settled, stacks, need, stop, left, cells, used, holes);
    int64_t nodes;
    const Ended ended = depth_first(s, stop, nodes);
    stats[NODES] += nodes;
    return ended == Ended::stopped ? -1 : s.left;  // (-1 too when a settling met the stop)
}

// The state with the options of ``row`` (-1 pads) placed, the holes among them too;
// whether they fit.
bool apply(const cpcore_reach_layout& L, const int64_t* row, uint64_t n, word& cells,
           word& used, word& holes) {
    return place_options(row, n, L.opt_cells, L.opt_unit, cells, used, [&](int64_t o) {
        if ((L.opt_unit[o] & L.slack_units) != 0) holes |= L.opt_cells[o];
    });
}

// The tasks of a call (cpcore_reach), each node's placements walked by W.
template <class W>
void reach_tasks(const cpcore_reach_layout& L, const word* unit_at, const int64_t* forced,
                 uint64_t n_forced, const int64_t* tasks, uint64_t rows, uint64_t cols,
                 const int64_t* wanted_start, cpcore_one_word_table* reached,
                 cpcore_one_word_table* kept, uint64_t mark, const int64_t* index,
                 const uint64_t* bit, int64_t* found, int first_failure, uint64_t* need,
                 const int64_t* stop) {
    const Reach R(L, unit_at);
    ReachTable table{rows_of(*reached), 0};
    SettledTable settled{rows_of(*kept), tags_of(*kept)};
    Frame<SettleWords, W> settle_frames[MAX_DEPTH];
    Frame<SearchWords, W> search_frames[MAX_DEPTH];
    const Stacks<W> stacks{settle_frames, search_frames};
    word cells0 = L.covered, used0 = 0, holes0 = 0;
    const bool ok0 = apply(L, forced, n_forced, cells0, used0, holes0);
    word cells, used, holes;
    auto force = [&](const int64_t* row) {
        cells = cells0;
        used = used0;
        holes = holes0;
        return apply(L, row, cols, cells, used, holes) && ok0;
    };
    each_task(tasks, rows, cols, stop, force, [&](uint64_t t, bool ok) {
        const int64_t first = wanted_start[t], last = wanted_start[t + 1];
        int64_t left = 0;
        if (ok) {
            for (int64_t n = first; n < last; ++n) {
                if ((need[index[n]] & bit[n]) == 0) {
                    need[index[n]] |= bit[n];
                    ++left;
                }
            }
        }
        if (left > 0) {
            table.mark = mark + t;
            left = search(R, cells, used, holes, table, settled, stacks, need, left, stop);
            if (left < 0) return false;
        }
        bool failed = false;
        for (int64_t n = first; n < last; ++n) {
            if (ok && (need[index[n]] & bit[n]) == 0) {
                found[n] = 1;
            } else {
                found[n] = 0;
                failed = true;
            }
        }
        for (int64_t n = first; n < last; ++n) need[index[n]] = 0;
        return !(first_failure && failed);
    });
}

}  // namespace
}  // namespace cpcore

using namespace cpcore;

extern "C" void cpcore_reach(const cpcore_reach_layout* layout, const int64_t* forced,
                             uint64_t n_forced, const int64_t* tasks, uint64_t rows,
                             uint64_t cols, const int64_t* wanted_start,
                             cpcore_one_word_table* reached, cpcore_one_word_table* kept,
                             uint64_t mark, const int64_t* index, const uint64_t* bit,
                             int64_t* found, uint64_t n_found, int first_failure,
                             uint64_t* need, const int64_t* stop) {
    const cpcore_reach_layout& L = *layout;
    for (uint64_t n = 0; n < n_found; ++n) found[n] = -1;
    for (uint64_t n = 0; n < L.n_index; ++n) need[n] = 0;
    // The walk by vectors, where the core's rule has it: the masks' unit bits beside them.
    if constexpr (REACH_WALKS_BY_VECTORS) {
        if (reach_walks_by_vectors(L.start[64 * L.n_units])) {
            word unit_at[COUNT_VECTOR_OPTIONS];
            unit_bits(Runs{L.start, L.masks, L.n_units}, unit_at);
            reach_tasks<AnchorWalk>(L, unit_at, forced, n_forced, tasks, rows, cols,
                                    wanted_start, reached, kept, mark, index, bit, found,
                                    first_failure, need, stop);
            return;
        }
    }
    reach_tasks<Walk>(L, nullptr, forced, n_forced, tasks, rows, cols, wanted_start, reached,
                      kept, mark, index, bit, found, first_failure, need, stop);
}
