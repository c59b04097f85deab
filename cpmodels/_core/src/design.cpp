// A design's sets decided date by date (entry.h's cpcore_design; cpmodels/design/search.py):
// each set's first required date, in the learnt order, that no solution holds. The searches
// are the reach search's (src/reach.cpp), on its tables; this file only chooses what each
// search asks. Freestanding: the caller's buffers, nothing allocated.
#include <stdint.h>

#include "cpcore/bits.hpp"
#include "cpcore/check.hpp"
#include "cpcore/entry.h"

namespace cpcore {
namespace {

const uint64_t PROBES = 8;  // the commonest first failures past the front, tried first

// The work buffer cut into its arrays (cpcore_design_work_words words in all): the tasks
// of one reach search (rows of holes), the starts of their wanted dates, the wanted
// combinations (index, bit) and their dates, what the search found of each; each date's
// place in the order and its answer for the set (-1 not yet); each held group's task and
// its count of dates.
struct Work {
    int64_t *tasks, *starts, *index, *date, *found, *pos, *answered, *slot, *count;
    uint64_t* bit;
};

Work work_of(const cpcore_design_input& in) {
    const uint64_t n = in.n_dates;
    int64_t* w = in.work;
    Work k;
    k.tasks = w;
    w += n * in.hole_cols;
    k.starts = w;
    w += n + 1;
    int64_t** rest[] = {&k.index, &k.date, &k.found, &k.pos, &k.answered, &k.slot, &k.count};
    for (int64_t** a : rest) {
        *a = w;
        w += n;
    }
    k.bit = reinterpret_cast<uint64_t*>(w);  // (an int64's unsigned type may alias it)
    return k;
}

class Decider {
  public:
    explicit Decider(const cpcore_design_input& in) : in_(in), L_(*in.layout), k_(work_of(in)) {}

    // Set s's first failing date in the order, n_dates when it has none, CPCORE_STOPPED.
    int64_t decide(uint64_t s) {
        const uint64_t rows_of_fill = L_.n_groups + 1;
        const int64_t shape = in_.shape[s];
        CPCORE_ASSERT(shape >= 0 && (uint64_t)shape < in_.n_shapes);
        L_.fill = in_.fills + (uint64_t)shape * rows_of_fill * in_.fill_cols;
        L_.fill_cols = in_.fill_cols;
        L_.limit = in_.limits[shape];
        forced_ = in_.forced + s * in_.forced_cols;
        const uint64_t n = in_.n_dates;
        for (uint64_t p = 0; p < n; ++p) {
            CPCORE_ASSERT(in_.order[p] >= 0 && (uint64_t)in_.order[p] < n);
            k_.pos[in_.order[p]] = (int64_t)p;
            k_.answered[p] = -1;
        }
        // The front: one search a date, in the order.
        uint64_t rows = 0, wanted = 0;
        k_.starts[0] = 0;
        for (uint64_t p = 0; p < n; ++p) {
            const int64_t d = in_.order[p];
            if (!in_.front[d]) continue;
            task(rows, in_.holes, d);
            want(wanted, d);
            k_.starts[++rows] = (int64_t)wanted;
        }
        if (rows > 0) {
            if (!search(rows)) return CPCORE_STOPPED;
            for (uint64_t r = 0; r < rows; ++r)
                if (k_.found[r] == 0) return k_.date[r];
        }
        // The commonest first failures past the front so far (at most PROBES), one search
        // each in the order: the first that fails bounds the groups' dates.
        int64_t first = -1;
        rows = probes(wanted = 0);
        if (rows > 0) {
            if (!search(rows)) return CPCORE_STOPPED;
            for (uint64_t r = 0; r < rows && first < 0; ++r) {
                k_.answered[k_.date[r]] = k_.found[r];
                if (k_.found[r] == 0) first = k_.date[r];
            }
        }
        // The others: one search a group of held holes, of the dates not answered before
        // the first failure found so far, until none is left.
        for (;;) {
            const uint64_t before = first < 0 ? n : (uint64_t)k_.pos[first];
            for (uint64_t g = 0; g < n; ++g) k_.slot[g] = -1;
            uint64_t groups = 0;
            for (uint64_t p = 0; p < before; ++p) {
                const int64_t d = in_.order[p];
                if (in_.front[d] || k_.answered[d] >= 0) continue;
                const int64_t g = in_.group[d];
                CPCORE_ASSERT(g >= 0 && (uint64_t)g < n);
                if (k_.slot[g] < 0) {
                    k_.slot[g] = (int64_t)groups;
                    k_.count[groups] = 0;
                    task(groups++, in_.held, d);
                }
                ++k_.count[k_.slot[g]];
            }
            if (groups == 0) return failed_late(first);
            k_.starts[0] = 0;
            for (uint64_t t = 0; t < groups; ++t) {
                k_.starts[t + 1] = k_.starts[t] + k_.count[t];
                k_.count[t] = k_.starts[t];  // now where its next date goes
            }
            for (uint64_t p = 0; p < before; ++p) {
                const int64_t d = in_.order[p];
                if (in_.front[d] || k_.answered[d] >= 0) continue;
                uint64_t at = (uint64_t)k_.count[k_.slot[in_.group[d]]]++;
                want(at, d);
            }
            if (!search(groups)) return CPCORE_STOPPED;
            bool failed = false;
            for (int64_t w = 0; w < k_.starts[groups]; ++w) {
                if (k_.found[w] < 0) continue;
                const int64_t d = k_.date[w];
                k_.answered[d] = k_.found[w];
                if (k_.found[w] == 0 && (first < 0 || k_.pos[d] < k_.pos[first])) {
                    first = d;
                    failed = true;
                }
            }
            // With none failing, every group was searched: nothing before ``first`` is left.
            if (!failed) return failed_late(first);
        }
    }

  private:
    // A first failure past the front counted (n_dates when there is none).
    int64_t failed_late(int64_t first) {
        if (first < 0) return (int64_t)in_.n_dates;
        ++in_.late[first];
        return first;
    }

    // The probes as tasks from ``wanted`` on, in the order: the dates past the front that
    // failed first most often (at least once; ties: the earlier in the order). Returns how
    // many.
    uint64_t probes(uint64_t wanted) {
        int64_t best[PROBES];
        uint64_t found = 0;
        for (uint64_t p = 0; p < in_.n_dates; ++p) {
            const int64_t d = in_.order[p];
            if (in_.front[d] || in_.late[d] <= 0) continue;
            uint64_t at = found < PROBES ? found++ : PROBES;
            while (at > 0 && in_.late[best[at - 1]] < in_.late[d]) {
                if (at < PROBES) best[at] = best[at - 1];
                --at;
            }
            if (at < PROBES) best[at] = d;
        }
        // Back in the order (insertion by position: at most PROBES of them).
        for (uint64_t i = 1; i < found; ++i)
            for (uint64_t j = i; j > 0 && k_.pos[best[j]] < k_.pos[best[j - 1]]; --j) {
                const int64_t t = best[j];
                best[j] = best[j - 1];
                best[j - 1] = t;
            }
        k_.starts[0] = 0;
        for (uint64_t r = 0; r < found; ++r) {
            task(r, in_.holes, best[r]);
            want(wanted, best[r]);
            k_.starts[r + 1] = (int64_t)wanted;
        }
        return found;
    }

    // Row ``row`` of the tasks: date d's row of ``from`` (its holes, or those held).
    void task(uint64_t row, const int64_t* from, int64_t d) {
        for (uint64_t c = 0; c < in_.hole_cols; ++c)
            k_.tasks[row * in_.hole_cols + c] = from[(uint64_t)d * in_.hole_cols + c];
    }

    // Date d wanted, at ``at`` (which moves on).
    void want(uint64_t& at, int64_t d) {
        k_.index[at] = in_.index[d];
        k_.bit[at] = in_.bit[d];
        k_.date[at] = d;
        k_.found[at] = -1;
        ++at;
    }

    // The reach search of the first ``rows`` tasks, to their first failure; false when the
    // stop flag ended it.
    bool search(uint64_t rows) {
        cpcore_reach(&L_, forced_, in_.forced_cols, k_.tasks, rows, in_.hole_cols, k_.starts,
                     in_.reached, in_.settled, *in_.calls + 1, k_.index, k_.bit, k_.found,
                     (uint64_t)k_.starts[rows], 1, in_.need, in_.stop);
        *in_.calls += rows + 1;
        return !stopped(in_.stop);
    }

    const cpcore_design_input& in_;
    cpcore_reach_layout L_;
    Work k_;
    const int64_t* forced_ = nullptr;
};

// Date d first in the order, and searched alone from now on.
void move_to_front(const cpcore_design_input& in, int64_t d) {
    uint64_t p = 0;
    while (in.order[p] != d) ++p;
    for (; p > 0; --p) in.order[p] = in.order[p - 1];
    in.order[0] = d;
    in.front[d] = 1;
}

}  // namespace
}  // namespace cpcore

using namespace cpcore;

extern "C" uint64_t cpcore_design_learning_sets(uint64_t asked) {
    const uint64_t share = asked / 25;
    return share < 64 ? 64 : share > 320 ? 320 : share;
}

extern "C" uint64_t cpcore_design_work_words(uint64_t n_dates, uint64_t hole_cols) {
    return n_dates * hole_cols + 9 * n_dates + 1;
}

extern "C" int64_t cpcore_design(const cpcore_design_input* in) {
    Decider decider(*in);
    for (uint64_t s = 0; s < in->n_sets; ++s) in->failure[s] = CPCORE_STOPPED;
    __atomic_store_n(in->decided, 0, __ATOMIC_RELAXED);
    for (uint64_t s = 0; s < in->n_sets; ++s) {
        if (stopped(in->stop)) return CPCORE_STOPPED;
        const int64_t first = decider.decide(s);
        if (first == CPCORE_STOPPED) return CPCORE_STOPPED;
        CPCORE_ASSERT(first >= 0 && first <= (int64_t)in->n_dates);
        in->failure[s] = first;
        if (in->learning && first < (int64_t)in->n_dates) move_to_front(*in, first);
        __atomic_store_n(in->decided, (int64_t)(s + 1), __ATOMIC_RELAXED);
    }
    return (int64_t)in->n_sets;
}
