// The reach search: which label combinations of a calendar have a solution, in one search
// (see cpmodels/backends/engine/kernels/reach.py). Two walks on the one-word layout: the search
// proper, and the settling of a state with at most one label group open. Freestanding.
#include <stdint.h>

#include "cpcore/bits.hpp"
#include "cpcore/entry.h"
#include "cpcore/one_word.hpp"
#include "cpcore/one_word_table.hpp"

namespace cpcore {
namespace {

const word FULL = ~(word)0;
const int64_t NONE_OPEN = -1, SEVERAL_OPEN = -2;

// The layout's questions about groups, holes and wanted combinations.
struct Reach {
    const cpcore_reach_layout& L;
    Grid grid;
    Runs runs;
    word all_units;

    explicit Reach(const cpcore_reach_layout& layout)
        : L(layout), grid{L.inner, L.first, L.last}, runs{L.start, L.masks, L.n_units},
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

// Settling a state with at most one open group: which of the labels asked it reaches,
// searching only for those its entry has not decided (see depth_first).
struct Settle {
    struct Frame {
        word cells, used, om, goal, found, ask, known, hole;
        Walk walk;
    };
    const Reach& R;
    SettledTable& table;
    word cells, used, om = 0, goal, found = 0, ask, known_yes, hole_unit;
    word answer = 0, child_cells = 0, child_used = 0, child_ask = 0, child_known = 0,
         child_done = 0;
    Walk w;
    Frame stack[MAX_DEPTH];

    Settle(const Reach& r, SettledTable& t, word c, word u, word a, word known, word done)
        : R(r), table(t), cells(c), used(u), goal(a & ~done), ask(a), known_yes(known) {
        const int64_t g = R.open_group(used);
        hole_unit = g >= 0 ? R.L.group_unit[g] : 0;
        w.bit = 0;
        w.begin(cells, used, R.L.avail);
    }

    bool next() { return (goal & ~found) != 0 && w.next(cells, R.runs, om); }
    Step child() {
        child_cells = cells | om;
        child_used = used | w.bit;
        const bool hole = (w.bit & hole_unit) != 0;
        if (hole)  // the open group's hole: the child has none open
            child_ask = (om & goal & ~found) != 0 ? 1 : 0;
        else
            child_ask = hole_unit != 0 ? goal & ~found & ~child_cells : goal;
        if (child_ask == 0) return Step::skip;
        if (child_cells == FULL) {
            if ((child_used | R.L.optional) == R.all_units) found |= hole ? om : child_ask;
            return Step::skip;
        }
        if (R.L.limit > 0 && R.dead_end(om, child_cells, child_used)) return Step::skip;
        const word* row = table.row(child_cells, child_used);
        child_known = row[3] != 0 ? row[2] : 0;
        child_done = row[3];
        if ((child_ask & ~child_done) == 0) {
            table.counts[HITS] += 1;
            if ((child_known & child_ask) != 0) found |= hole ? om : child_known & child_ask;
            return Step::skip;
        }
        return Step::enter;
    }
    void close() {
        table.keep(cells, used, found, goal);
        answer = (known_yes | found) & ask;
    }
    void pop(unsigned d) {
        const Frame& f = stack[d];
        cells = f.cells;
        used = f.used;
        om = f.om;
        goal = f.goal;
        found = f.found;
        ask = f.ask;
        known_yes = f.known;
        hole_unit = f.hole;
        w = f.walk;
        if (answer != 0) found |= (w.bit & hole_unit) != 0 ? om : answer;
    }
    void push(unsigned d) {
        stack[d] = Frame{cells, used, om, goal, found, ask, known_yes, hole_unit, w};
    }
    void enter() {
        if ((w.bit & hole_unit) != 0) hole_unit = 0;
        cells = child_cells;
        used = child_used;
        ask = child_ask;
        known_yes = child_known;
        goal = child_ask & ~child_done;
        found = 0;
        w.begin(cells, used, R.L.avail);
    }
};

// Which of the labels ``ask`` the state reaches, and whether it is dead (no completion at
// all); nothing found at a stop (the flag says so).
word settle(const Reach& R, word cells, word used, word ask, SettledTable& table,
            int64_t* stats, bool& dead) {
    const word* row = table.row(cells, used);
    const word known_yes = row[3] != 0 ? row[2] : 0, known_done = row[3];
    dead = false;
    if ((ask & ~known_done) == 0) {
        table.counts[HITS] += 1;
        dead = known_yes == 0 && (R.universe(cells, used) & ~known_done) == 0;
        return known_yes & ask;
    }
    table.counts[MISSES] += 1;
    Settle s(R, table, cells, used, ask, known_yes, known_done);
    int64_t nodes;
    const Ended ended = depth_first(s, stats + STOP, nodes);
    stats[NODES] += nodes;
    if (ended == Ended::stopped) return 0;
    table.counts[NODES] += nodes;
    row = table.row(cells, used);
    dead = row[3] != 0 && row[2] == 0 && (R.universe(cells, used) & ~row[3]) == 0;
    return s.answer;
}

// The search from a state, crossing each solution's combination off ``need`` (see
// depth_first); ``left``: the wanted combinations left.
struct Search {
    struct Frame {
        word cells, used, holes;
        Walk walk;
        bool clean;
    };
    const Reach& R;
    ReachTable& table;
    SettledTable& settled;
    word* need;
    int64_t left;
    word cells, used, holes, om = 0, child_cells = 0, child_used = 0, child_holes = 0;
    bool clean = true;  // no solution below, no branch cut for having nothing left to find
    Walk w;
    Frame stack[MAX_DEPTH];

    Search(const Reach& r, ReachTable& t, SettledTable& s, word* n, int64_t l, word c, word u,
           word h)
        : R(r), table(t), settled(s), need(n), left(l), cells(c), used(u), holes(h) {
        w.bit = 0;
        w.begin(cells, used, R.L.avail);
    }

    bool next() { return w.next(cells, R.runs, om); }
    Step child() {
        child_cells = cells | om;
        child_used = used | w.bit;
        child_holes = (w.bit & R.L.slack_units) != 0 ? holes | om : holes;
        if (child_cells == FULL) {
            if ((child_used | R.L.optional) == R.all_units) {
                clean = false;
                const uint64_t index = R.combination(child_holes);
                const word hole = R.combination_bit(child_holes);
                if ((need[index] & hole) != 0) {
                    need[index] &= ~hole;
                    if (--left == 0) return Step::end;
                }
            }
            return Step::skip;
        }
        if (R.L.limit > 0 && R.dead_end(om, child_cells, child_used)) return Step::skip;
        if (R.open_group(child_used) != SEVERAL_OPEN) {
            const word labels = R.wanted_labels(child_cells, child_used, child_holes, need);
            if (labels == 0) {
                clean = false;
                return Step::skip;
            }
            bool dead;
            const word yes = settle(R, child_cells, child_used, labels, settled, table.stats,
                                    dead);
            if (stopped(table.stats + STOP)) {
                left = -1;
                return Step::end;
            }
            clean = clean && dead;
            left -= R.cross_off(yes, child_used, child_holes, need);
            return left == 0 ? Step::end : Step::skip;
        }
        if (!R.wanted_reachable(child_cells, child_used, child_holes, need)) {
            clean = false;
            return Step::skip;
        }
        const word mark = table.keys[table.slot(child_cells, child_used, child_holes) * 4 + 3];
        if (mark == DEAD) return Step::skip;
        if (mark == table.mark) {
            clean = false;
            return Step::skip;
        }
        return Step::enter;
    }
    void close() { table.keep(cells, used, holes, clean); }
    void pop(unsigned d) {
        const Frame& f = stack[d];
        cells = f.cells;
        used = f.used;
        holes = f.holes;
        w = f.walk;
        clean = clean && f.clean;
    }
    void push(unsigned d) { stack[d] = Frame{cells, used, holes, w, clean}; }
    void enter() {
        clean = true;
        cells = child_cells;
        used = child_used;
        holes = child_holes;
        w.begin(cells, used, R.L.avail);
    }
};

// The wanted combinations left after searching from the state (0: all found), -1 at a
// stop. A state with at most one group open is settled.
int64_t search(const Reach& R, word cells, word used, word holes, ReachTable& table,
               SettledTable& settled, word* need, int64_t left) {
    int64_t* stats = table.stats;
    if (R.open_group(used) != SEVERAL_OPEN) {
        const word labels = R.wanted_labels(cells, used, holes, need);
        if (labels == 0) return left;
        bool dead;
        const word yes = settle(R, cells, used, labels, settled, stats, dead);
        if (stopped(stats + STOP)) return -1;
        return left - R.cross_off(yes, used, holes, need);
    }
    if (!R.wanted_reachable(cells, used, holes, need)) return left;
    Search s(R, table, settled, need, left, cells, used, holes);
    int64_t nodes;
    const Ended ended = depth_first(s, stats + STOP, nodes);
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

}  // namespace
}  // namespace cpcore

using namespace cpcore;

extern "C" void cpcore_reach(const cpcore_reach_layout* layout, const int64_t* forced,
                             uint64_t n_forced, const int64_t* tasks, uint64_t rows,
                             uint64_t cols, const int64_t* wanted_start,
                             cpcore_one_word_table* reached, cpcore_one_word_table* kept,
                             uint64_t mark, const int64_t* index, const uint64_t* bit,
                             int64_t* found, uint64_t n_found, int first_failure,
                             uint64_t* need) {
    const cpcore_reach_layout& L = *layout;
    const Reach R(L);
    int64_t* stats = reached->stats;
    ReachTable table{reached->keys, reached->n_slots, stats, 0};
    SettledTable settled{kept->keys, kept->n_slots, kept->stats};
    for (uint64_t n = 0; n < n_found; ++n) found[n] = -1;
    for (uint64_t n = 0; n < L.n_index; ++n) need[n] = 0;
    word cells0 = L.covered, used0 = 0, holes0 = 0;
    const bool ok0 = apply(L, forced, n_forced, cells0, used0, holes0);
    for (uint64_t t = 0; t < rows; ++t) {
        if (stopped(stats + STOP)) return;
        word cells = cells0, used = used0, holes = holes0;
        const bool ok = apply(L, tasks + t * cols, cols, cells, used, holes) && ok0;
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
            left = search(R, cells, used, holes, table, settled, need, left);
            if (left < 0) return;
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
        if (first_failure && failed) return;
    }
}
