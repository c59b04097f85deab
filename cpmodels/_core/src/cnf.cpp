// The CNF split search's next step (backends/cnf.py): from a propagated part's literals,
// which item or option to split on, or whether the part is dead or solved. Whatever the
// incidence holds, out receives each option once at most (an item may list one twice), and
// a bound below 0 counts as 0 (need only goes down from it, so it cannot wrap).
#include "cpcore/check.hpp"
#include "cpcore/entry.h"

extern "C" int64_t cpcore_cnf_next_step(const cpcore_cnf_incidence* incidence,
                                        const int64_t* lits, uint64_t n_lits,
                                        const cpcore_cnf_work* work, int64_t* out,
                                        int64_t* found) {
    const uint64_t n = incidence->n_options, n_items = incidence->n_items;
    const int64_t *opt_start = incidence->opt_start, *opt_items = incidence->opt_items;
    const int64_t *item_start = incidence->item_start, *item_opts = incidence->item_opts;
    const int64_t* low = incidence->low;
    uint8_t *possible = work->possible, *taken = work->taken;
    int64_t *need = work->need, *room = work->room;
    enum { DEAD, ITEM, OPTION, SOLVED };
    for (uint64_t j = 0; j < n; ++j) {
        possible[j] = 1;
        taken[j] = 0;
    }
    for (uint64_t q = 0; q < n_lits; ++q) {
        const int64_t lit = lits[q];
        const uint64_t v = lit < 0 ? 0 - (uint64_t)lit : (uint64_t)lit;  // INT64_MIN too
        if (v >= 1 && v <= n) {
            possible[v - 1] = 0;
            if (lit > 0) taken[v - 1] = 1;
        }
    }
    for (uint64_t i = 0; i < n_items; ++i) {
        need[i] = low[i] > 0 ? low[i] : 0;
        room[i] = 0;
    }
    for (uint64_t j = 0; j < n; ++j) {
        CPCORE_ASSERT(opt_start[j] <= opt_start[j + 1]);
        if (taken[j]) {
            for (int64_t k = opt_start[j]; k < opt_start[j + 1]; ++k) need[opt_items[k]] -= 1;
        } else if (possible[j]) {
            for (int64_t k = opt_start[j]; k < opt_start[j + 1]; ++k) room[opt_items[k]] += 1;
        }
    }
    int64_t best = -1;
    for (uint64_t i = 0; i < n_items; ++i) {
        if (need[i] > 0) {
            if (room[i] < need[i]) {
                found[0] = -1;
                found[1] = 0;
                return DEAD;
            }
            if (best < 0 || room[i] < room[best]) best = (int64_t)i;
        }
    }
    if (best >= 0) {
        int64_t count = 0;
        for (int64_t k = item_start[best]; k < item_start[best + 1]; ++k) {
            const int64_t j = item_opts[k];
            CPCORE_ASSERT(j >= 0 && (uint64_t)j < n);
            if (!possible[j]) continue;
            possible[j] = 0;  // written once, though the item list it again
            out[count++] = j;
        }
        CPCORE_ASSERT((uint64_t)count <= n);
        found[0] = best;
        found[1] = count;
        return ITEM;
    }
    for (uint64_t j = 0; j < n; ++j) {
        if (possible[j]) {
            found[0] = (int64_t)j;
            found[1] = 0;
            return OPTION;
        }
    }
    found[0] = -1;
    found[1] = 0;
    return SOLVED;
}
