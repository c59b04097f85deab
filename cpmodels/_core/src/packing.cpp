// The packing searches' entry points: each instantiates the one skeleton of
// cpcore/packing_search.hpp for the two-word or the N-word state.
#include "cpcore/entry.h"
#include "cpcore/packing_search.hpp"

namespace {

cpcore::Table table_of(const cpcore_table* t) {
    return cpcore::Table{t->keys,          reinterpret_cast<cpcore::word*>(t->values),
                         t->arena,         t->stats,
                         t->n_slots,       t->key_stride,
                         t->value_stride,  t->n_arena,
                         t->n_slots};
}

// Each search over the call's fields one by one. (The two-word state's are flattened: every
// step inlined into one loop, compiled as for arguments the caller hands in.)
template <class State, class Layout>
void tally_prefixes(const cpcore_packing_cover* cover, const Layout* layout,
                    const cpcore_tallies* tallies, const cpcore_table* table,
                    const int64_t* prefixes, uint64_t n_prefixes, uint64_t width,
                    const cpcore_search_buffers* buffers, int64_t* out, uint64_t out_width,
                    int64_t* out_mask, const int64_t* stop) {
    cpcore::Search<State> search(*cover, *layout, *buffers);
    cpcore::Table memo = table_of(table);
    cpcore::tally_prefixes(search, prefixes, n_prefixes, width, *tallies, memo, *buffers, out,
                           out_width, out_mask, stop);
}

template <class State, class Layout>
void exists(const cpcore_packing_cover* cover, const Layout* layout, const cpcore_table* table,
            int use_table, const int64_t* prefixes, uint64_t n_prefixes, uint64_t width,
            const cpcore_search_buffers* buffers, int64_t* out, int first_failure,
            const int64_t* stop) {
    cpcore::Search<State> search(*cover, *layout, *buffers);
    cpcore::Table memo = table_of(table);
    cpcore::exists_prefixes(search, prefixes, n_prefixes, width, memo, use_table != 0, out,
                            first_failure != 0, stop, *buffers);
}

template <class State, class Layout, auto search = tally_prefixes<State, Layout>>
void tally_call(const cpcore_prefix_call* c, const Layout* layout, const cpcore_tallies* tallies,
                int64_t* out, uint64_t out_width, int64_t* out_mask) {
    search(c->cover, layout, tallies, c->table, c->prefixes, c->n_prefixes, c->width,
           c->buffers, out, out_width, out_mask, c->stop);
}

template <class State, class Layout, auto search = exists<State, Layout>>
void exists_call(const cpcore_prefix_call* c, const Layout* layout, int64_t* out,
                 int first_failure) {
    search(c->cover, layout, c->table, c->use_table, c->prefixes, c->n_prefixes, c->width,
           c->buffers, out, first_failure, c->stop);
}

__attribute__((flatten, noinline)) void tally_two_words(
    const cpcore_packing_cover* cover, const cpcore_two_words* layout,
    const cpcore_tallies* tallies, const cpcore_table* table, const int64_t* prefixes,
    uint64_t n_prefixes, uint64_t width, const cpcore_search_buffers* buffers, int64_t* out,
    uint64_t out_width, int64_t* out_mask, const int64_t* stop) {
    tally_prefixes<cpcore::TwoWords>(cover, layout, tallies, table, prefixes, n_prefixes, width,
                                     buffers, out, out_width, out_mask, stop);
}

__attribute__((flatten, noinline)) void exists_two_words(
    const cpcore_packing_cover* cover, const cpcore_two_words* layout, const cpcore_table* table,
    int use_table, const int64_t* prefixes, uint64_t n_prefixes, uint64_t width,
    const cpcore_search_buffers* buffers, int64_t* out, int first_failure, const int64_t* stop) {
    exists<cpcore::TwoWords>(cover, layout, table, use_table, prefixes, n_prefixes, width,
                             buffers, out, first_failure, stop);
}

}  // namespace

extern "C" void cpcore_tally_prefixes_two_words(const cpcore_prefix_call* call,
                                                const cpcore_two_words* layout,
                                                const cpcore_tallies* tallies, int64_t* out,
                                                uint64_t out_width, int64_t* out_mask) {
    tally_call<cpcore::TwoWords, cpcore_two_words, tally_two_words>(call, layout, tallies, out,
                                                                    out_width, out_mask);
}

extern "C" void cpcore_tally_prefixes_n_words(const cpcore_prefix_call* call,
                                              const cpcore_n_words* layout,
                                              const cpcore_tallies* tallies, int64_t* out,
                                              uint64_t out_width, int64_t* out_mask) {
    tally_call<cpcore::NWords>(call, layout, tallies, out, out_width, out_mask);
}

extern "C" void cpcore_exists_two_words(const cpcore_prefix_call* call,
                                        const cpcore_two_words* layout, int64_t* out,
                                        int first_failure) {
    exists_call<cpcore::TwoWords, cpcore_two_words, exists_two_words>(call, layout, out,
                                                                      first_failure);
}

extern "C" void cpcore_exists_n_words(const cpcore_prefix_call* call,
                                      const cpcore_n_words* layout, int64_t* out,
                                      int first_failure) {
    exists_call<cpcore::NWords>(call, layout, out, first_failure);
}

extern "C" void cpcore_search_n_words(const cpcore_packing_cover* cover,
                                      const cpcore_n_words* layout, int64_t* state,
                                      const cpcore_search_buffers* buffers, int64_t* out,
                                      uint64_t out_width, int64_t max_out,
                                      const int64_t* stop) {
    cpcore::Search<cpcore::NWords> search(*cover, *layout, *buffers);
    cpcore::enumerate(search, state, *buffers, out, out_width, max_out, stop);
}
