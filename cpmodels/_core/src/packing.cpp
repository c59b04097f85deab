// The packing searches' entry points: each instantiates the one skeleton of
// cpcore/packing_search.hpp for the two-word or the N-word state.
#include "cpcore/entry.h"
#include "cpcore/packing_search.hpp"

namespace {

cpcore::Table table_of(const cpcore_table* t) {
    return cpcore::Table{t->keys,          reinterpret_cast<cpcore::word*>(t->values),
                         t->arena,         t->stats,
                         t->n_slots,       t->key_stride,
                         t->value_stride,  t->n_arena};
}

template <class State, class Layout>
void tally_prefixes(const cpcore_prefix_call* call, const Layout* layout,
                    const cpcore_tallies* tallies, int64_t* out, uint64_t out_width,
                    int64_t* out_mask) {
    cpcore::Search<State> search(*call->cover, *layout, *call->buffers);
    cpcore::Table memo = table_of(call->table);
    cpcore::tally_prefixes(search, call->prefixes, call->n_prefixes, call->width, *tallies,
                           memo, *call->buffers, out, out_width, out_mask, call->stop);
}

template <class State, class Layout>
void exists(const cpcore_prefix_call* call, const Layout* layout, int64_t* out,
            int first_failure) {
    cpcore::Search<State> search(*call->cover, *layout, *call->buffers);
    cpcore::Table memo = table_of(call->table);
    cpcore::exists_prefixes(search, call->prefixes, call->n_prefixes, call->width, memo,
                            call->use_table != 0, out, first_failure != 0, call->stop,
                            *call->buffers);
}

}  // namespace

// (Flattened: the two-word state's searches inline every step into one loop.)
extern "C" __attribute__((flatten)) void cpcore_tally_prefixes_two_words(
    const cpcore_prefix_call* call, const cpcore_two_words* layout,
    const cpcore_tallies* tallies, int64_t* out, uint64_t out_width, int64_t* out_mask) {
    tally_prefixes<cpcore::TwoWords>(call, layout, tallies, out, out_width, out_mask);
}

extern "C" void cpcore_tally_prefixes_n_words(const cpcore_prefix_call* call,
                                              const cpcore_n_words* layout,
                                              const cpcore_tallies* tallies, int64_t* out,
                                              uint64_t out_width, int64_t* out_mask) {
    tally_prefixes<cpcore::NWords>(call, layout, tallies, out, out_width, out_mask);
}

extern "C" __attribute__((flatten)) void cpcore_exists_two_words(
    const cpcore_prefix_call* call, const cpcore_two_words* layout, int64_t* out,
    int first_failure) {
    exists<cpcore::TwoWords>(call, layout, out, first_failure);
}

extern "C" void cpcore_exists_n_words(const cpcore_prefix_call* call,
                                      const cpcore_n_words* layout, int64_t* out,
                                      int first_failure) {
    exists<cpcore::NWords>(call, layout, out, first_failure);
}

extern "C" void cpcore_search_n_words(const cpcore_packing_cover* cover,
                                      const cpcore_n_words* layout, int64_t* state,
                                      const cpcore_search_buffers* buffers, int64_t* out,
                                      uint64_t out_width, int64_t max_out,
                                      const int64_t* stop) {
    cpcore::Search<cpcore::NWords> search(*cover, *layout, *buffers);
    cpcore::enumerate(search, state, *buffers, out, out_width, max_out, stop);
}
