// The DRUP proof checker's replay (drup.py): reverse unit propagation with two watched
// literals per clause, over the clauses, steps and scratch arrays the caller hands in.
//
// active[c] holds two flags: ACTIVE (the clause takes part in propagation) and LINKED (its
// two watches are on their literals' lists, or it is on the list of units). A clause is
// linked once at most, whatever the steps say: a step that derives a clause already linked
// (a formula clause, or one derived before) checks it and makes it active, and links
// nothing again, so a watch list never meets a watch twice.
#include "cpcore/check.hpp"
#include "cpcore/entry.h"

namespace {

constexpr uint8_t ACTIVE = 1, LINKED = 2;

struct Clauses {
    int64_t* lits;  // every clause's literals, one after another (watches swap them)
    const int64_t* start;
    const int64_t* length;
    uint8_t* active;
    int64_t* head;  // per literal, its first watch (2 * clause + position), or -1
    int64_t* next;  // per watch, the next watch on the same literal
    int64_t* units;
    int8_t* value;  // per variable: 1 true, -1 false, 0 open
    int64_t* trail;
};

inline uint64_t var_of(int64_t lit) { return (uint64_t)(lit < 0 ? -lit : lit) - 1; }

inline uint64_t lit_index(int64_t lit) { return 2 * var_of(lit) + (lit < 0 ? 1 : 0); }

inline int8_t truth(int64_t lit, const int8_t* value) {
    const int8_t v = value[var_of(lit)];
    return lit > 0 ? v : (int8_t)-v;
}

inline int64_t assign(int64_t lit, int8_t* value, int64_t* trail, int64_t top) {
    value[var_of(lit)] = lit > 0 ? 1 : -1;
    trail[top] = lit;
    return top + 1;
}

// Make ``lit`` true unless it is already decided; true when it is false (a conflict).
inline bool imply(int64_t lit, int8_t* value, int64_t* trail, int64_t* top) {
    const int8_t now = truth(lit, value);
    if (now == 0) *top = assign(lit, value, trail, *top);
    return now == -1;
}

// Put watch ``k`` of clause ``c`` (on its literal at position ``k``) on that literal.
inline void watch(const Clauses& f, int64_t c, int64_t k) {
    CPCORE_ASSERT(f.length[c] >= 2 && (k == 0 || k == 1));
    const int64_t e = 2 * c + k;
    const uint64_t t = lit_index(f.lits[f.start[c] + k]);
    f.next[e] = f.head[t];
    f.head[t] = e;
}

// True when assuming clause ``target`` false (-1: the empty clause) and propagating the
// active clauses yields a conflict; the assignment is undone before returning, and a
// ``snapshot`` (when given) receives it first.
bool rup(const Clauses& f, int64_t target, int64_t n_units, int64_t n_vars, int8_t* snapshot) {
    int8_t* value = f.value;
    int64_t top = 0;
    bool conflict = false;
    if (target >= 0) {
        for (int64_t q = f.start[target]; q < f.start[target] + f.length[target]; ++q) {
            if (imply(-f.lits[q], value, f.trail, &top)) conflict = true;  // a tautology
        }
    }
    for (int64_t u = 0; u < n_units && !conflict; ++u) {
        const int64_t c = f.units[u];
        CPCORE_ASSERT(f.length[c] == 1);
        if (!(f.active[c] & ACTIVE)) continue;
        conflict = imply(f.lits[f.start[c]], value, f.trail, &top);
    }
    int64_t done = 0;
    while (done < top && !conflict) {
        const int64_t false_lit = -f.trail[done++];
        const uint64_t t = lit_index(false_lit);
        int64_t e = f.head[t];
        int64_t prev = -1;
        while (e >= 0) {
            const int64_t after = f.next[e];
            const int64_t c = e / 2;
            const int64_t k = e % 2;
            bool moved = false;
            CPCORE_ASSERT(f.active[c] & LINKED);
            if ((f.active[c] & ACTIVE) && !conflict) {
                const int64_t s0 = f.start[c];
                const int64_t other = f.lits[s0 + 1 - k];
                if (truth(other, value) != 1) {
                    for (int64_t r = s0 + 2; r < s0 + f.length[c]; ++r) {
                        if (truth(f.lits[r], value) != -1) {
                            // Watch this literal instead: swap it into position k.
                            const int64_t swapped = f.lits[r];
                            f.lits[r] = f.lits[s0 + k];
                            f.lits[s0 + k] = swapped;
                            if (prev < 0) {
                                f.head[t] = after;
                            } else {
                                f.next[prev] = after;
                            }
                            watch(f, c, k);
                            moved = true;
                            break;
                        }
                    }
                    if (!moved && imply(other, value, f.trail, &top)) conflict = true;
                }
            }
            if (!moved) prev = e;
            e = after;
        }
    }
    CPCORE_ASSERT(top <= n_vars);  // each variable on the trail once
    if (snapshot) {
        for (int64_t v = 0; v < n_vars; ++v) snapshot[v] = value[v];
    }
    for (int64_t q = 0; q < top; ++q) value[var_of(f.trail[q])] = 0;
    return conflict;
}

}  // namespace

extern "C" int64_t cpcore_drup_check(const cpcore_drup_proof* proof,
                                     const cpcore_drup_work* work) {
    const int64_t n_vars = proof->n_vars, n_formula = proof->n_formula;
    const int64_t n_clauses = proof->n_clauses, n_steps = proof->n_steps;
    int64_t* lits = proof->lits;
    const int64_t *start = proof->start, *length = proof->length;
    const int64_t *step_kind = proof->step_kind, *step_clause = proof->step_clause;
    int64_t* units = proof->units;
    uint8_t* active = work->active;
    int64_t *head = work->head, *next = work->next, *trail = work->trail;
    int8_t *value = work->value, *top_level = work->top_level;
    const int64_t n_units_formula = proof->n_units_formula;
    const Clauses f{lits, start, length, active, head, next, units, value, trail};
    for (int64_t c = 0; c < n_clauses; ++c) active[c] = 0;
    for (int64_t t = 0; t < 2 * n_vars; ++t) head[t] = -1;
    for (int64_t e = 0; e < 2 * n_clauses; ++e) next[e] = -1;
    for (int64_t v = 0; v < n_vars; ++v) value[v] = top_level[v] = 0;
    for (int64_t v = 0; v <= n_vars; ++v) trail[v] = 0;
    for (int64_t c = 0; c < n_formula; ++c) {
        active[c] = ACTIVE;
        if (length[c] >= 2) {
            watch(f, c, 0);
            watch(f, c, 1);
            active[c] |= LINKED;
        }
    }
    for (int64_t u = 0; u < n_units_formula; ++u) active[units[u]] |= LINKED;
    int64_t n_units = n_units_formula;
    bool stale = true;
    for (int64_t s = 0; s < n_steps; ++s) {
        const int64_t c = step_clause[s];
        if (step_kind[s] == 2) {
            // A clause derived (or given) before: it follows from the formula, so it is
            // active again unchecked (its watches stayed).
            active[c] |= ACTIVE;
            continue;
        }
        if (step_kind[s] == 1) {
            if (c < 0) continue;
            // A clause satisfied at the top level may be the reason for a top-level unit
            // that later lemmas need, so it stays, as in drat-trim.
            if (stale) {
                rup(f, -1, n_units, n_vars, top_level);
                stale = false;
            }
            bool keep = length[c] <= 1;
            for (int64_t q = start[c]; q < start[c] + length[c]; ++q) {
                if (truth(lits[q], top_level) == 1) keep = true;
            }
            if (!keep) active[c] &= (uint8_t)~ACTIVE;  // its watches stay and are skipped
            continue;
        }
        if (!rup(f, c, n_units, n_vars, nullptr)) return s;
        stale = true;
        if (length[c] == 0) return -1;
        if (!(active[c] & LINKED)) {
            if (length[c] == 1) {
                units[n_units++] = c;
            } else {
                watch(f, c, 0);
                watch(f, c, 1);
            }
        }
        active[c] |= ACTIVE | LINKED;
    }
    // The proof must end in the empty clause, or make it follow by propagation.
    if (!rup(f, -1, n_units, n_vars, nullptr)) return n_steps;
    return -1;
}
