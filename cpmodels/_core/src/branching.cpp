// The branching step of the packing searches, asked from outside a search: a task's forced
// options placed (the solution stream starts from them) and the options the search would
// try next below it (a task cut into the disjoint tasks that make it up). Both use the
// search's own steps (cpcore/packing_search.hpp's Search: force, next_open, next_fit).
#include "cpcore/entry.h"
#include "cpcore/packing_search.hpp"

namespace {

cpcore::Search<cpcore::NWords> search_on(const cpcore_packing_cover* cover,
                                         const cpcore_n_words* layout, uint64_t* filled,
                                         int64_t* counters) {
    cpcore_search_buffers buffers{};
    buffers.filled = filled;
    buffers.counters = counters;
    return cpcore::Search<cpcore::NWords>(*cover, *layout, buffers);
}

}  // namespace

extern "C" int cpcore_force_n_words(const cpcore_packing_cover* cover,
                                    const cpcore_n_words* layout, const int64_t* task,
                                    uint64_t n_task, uint64_t* filled, int64_t* counters) {
    cpcore::Search<cpcore::NWords> S = search_on(cover, layout, filled, counters);
    cpcore::word code;
    return S.force(task, n_task, code) ? 1 : 0;
}

extern "C" int64_t cpcore_split_n_words(const cpcore_packing_cover* cover,
                                        const cpcore_n_words* layout, const int64_t* task,
                                        uint64_t n_task, uint64_t* filled, int64_t* counters,
                                        int64_t* out) {
    cpcore::Search<cpcore::NWords> S = search_on(cover, layout, filled, counters);
    cpcore::word code;
    S.force(task, n_task, code);  // a task whose options clash is cut all the same
    const uint64_t pos = S.s.next_open(0);
    if (pos == cover->n_branch) return 0;
    int64_t written = 0;
    int64_t k = cover->anchor_start[pos];
    for (int64_t o; (o = S.next_fit(k, cover->anchor_start[pos + 1])) >= 0;) out[written++] = o;
    return written;
}
