// ``design --best K``'s ranking (entry.h's cpcore_design_best_*; cpmodels/design/best.py):
// which working set to count next, and on what, so that the K best come without counting
// every set in full. Freestanding: the caller's state, nothing allocated.
#include <stdint.h>

#include "cpcore/check.hpp"
#include "cpcore/entry.h"

namespace cpcore {
namespace {

int64_t* leader(const cpcore_best_state& s, uint64_t k) { return s.leaders + 4 * k; }

uint64_t leaders(const cpcore_best_state& s) {
    uint64_t n = 0;
    while (n < s.best && leader(s, n)[0] >= 0) ++n;
    return n;
}

// A set's bound: its least count alone, above every count while it has none (-1).
int64_t bound_of(const cpcore_best_state& s, uint64_t set) {
    return s.bound[set] < 0 ? INT64_MAX : s.bound[set];
}

bool valid(const cpcore_best_state& s) {
    if (s.best == 0 || s.best > ((uint64_t)1 << 20)) return false;
    for (uint64_t k = 0; k < s.best; ++k) {
        const int64_t* row = leader(s, k);
        if (row[0] < -1 || row[0] >= (int64_t)s.n_sets) return false;
        if (row[0] >= 0 && (row[3] < 0 || row[3] >= (int64_t)s.n_dates)) return false;
    }
    return true;
}

// Whether a set with these figures ranks before leader row: the most on its hardest date,
// then the most in all, then the first by name.
bool before(const cpcore_best_state& s, int64_t set, int64_t fewest, int64_t total,
            const int64_t* row) {
    if (fewest != row[1]) return fewest > row[1];
    if (total != row[2]) return total > row[2];
    return s.rank[set] < s.rank[row[0]];
}

}  // namespace
}  // namespace cpcore

using namespace cpcore;

extern "C" int64_t cpcore_design_best_step(cpcore_best_state* s) {
    if (!valid(*s)) return CPCORE_BEST_INPUT;
    s->n_out = 0;
    s->set = -1;
    const uint64_t n = leaders(*s);
    s->floor = n >= s->best ? leader(*s, s->best - 1)[1] : -1;
    // The open set with the highest bound (the first of equals).
    int64_t k = -1;
    for (uint64_t j = 0; j < s->n_sets; ++j)
        if (s->open[j] && (k < 0 || bound_of(*s, j) > bound_of(*s, (uint64_t)k))) k = (int64_t)j;
    if (k < 0 || (s->floor >= 0 && bound_of(*s, (uint64_t)k) < s->floor)) return CPCORE_BEST_DONE;
    s->set = k;
    // The leaders' hardest dates it has not been counted on alone, each once.
    for (uint64_t l = 0; l < n; ++l) {
        const int64_t date = leader(*s, l)[3];
        if (s->known[(uint64_t)k * s->n_dates + date]) continue;
        bool listed = false;
        for (uint64_t m = 0; m < s->n_out; ++m) listed |= s->dates[m] == date;
        if (!listed) s->dates[s->n_out++] = date;
    }
    if (s->n_out > 0) return CPCORE_BEST_PROBE;
    s->open[k] = 0;
    return CPCORE_BEST_COUNT;
}

extern "C" int64_t cpcore_design_best_known(cpcore_best_state* s, int64_t set, int64_t date,
                                            int64_t count) {
    if (set < 0 || set >= (int64_t)s->n_sets || date < 0 || date >= (int64_t)s->n_dates ||
        count < 0)
        return CPCORE_BEST_INPUT;
    s->known[(uint64_t)set * s->n_dates + date] = 1;
    if (count < bound_of(*s, (uint64_t)set)) s->bound[set] = count;
    return 0;
}

extern "C" int64_t cpcore_design_best_counted(cpcore_best_state* s, int64_t set,
                                              int64_t fewest, int64_t total, int64_t date) {
    if (!valid(*s) || set < 0 || set >= (int64_t)s->n_sets || date < 0 ||
        date >= (int64_t)s->n_dates || fewest < 0 || total < fewest)
        return CPCORE_BEST_INPUT;
    const uint64_t n = leaders(*s);
    uint64_t at = 0;
    while (at < n && !before(*s, set, fewest, total, leader(*s, at))) ++at;
    if (at >= s->best) return 0;  // not among the best
    for (uint64_t k = (n < s->best ? n : s->best - 1); k > at; --k)
        for (int w = 0; w < 4; ++w) leader(*s, k)[w] = leader(*s, k - 1)[w];
    int64_t* row = leader(*s, at);
    row[0] = set;
    row[1] = fewest;
    row[2] = total;
    row[3] = date;
    CPCORE_ASSERT(leaders(*s) <= s->best);
    return 0;
}

extern "C" int64_t cpcore_design_summary(const int64_t* counts, uint64_t n_dates,
                                         int64_t* summary) {
    if (n_dates == 0) return CPCORE_BEST_INPUT;
    uint64_t low = 0, high = 0;
    int64_t total = 0;
    for (uint64_t d = 0; d < n_dates; ++d) {
        if (counts[d] < 0 || counts[d] > INT64_MAX - total) return CPCORE_BEST_INPUT;
        if (counts[d] < counts[low]) low = d;
        if (counts[d] > counts[high]) high = d;
        total += counts[d];
    }
    summary[0] = (int64_t)low;
    summary[1] = counts[low];
    summary[2] = counts[high];
    summary[3] = total;
    return 0;
}
