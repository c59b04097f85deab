// The entry points of the one-word kernel's layout of a cover (cpcore/one_word_layout.hpp):
// measure, then fill the caller's arrays.
#include "cpcore/one_word_layout.hpp"

#include "cpcore/entry.h"

extern "C" uint64_t cpcore_one_word_layout_work(const cpcore_one_word_input* in) {
    return cpcore::one_word_layout::work_words(*in);
}

extern "C" void cpcore_one_word_layout_measure(const cpcore_one_word_input* in, int64_t* work,
                                               cpcore_one_word_sizes* sizes) {
    cpcore::one_word_layout::lay_out(*in, work, *sizes, nullptr);
}

extern "C" void cpcore_one_word_layout_fill(const cpcore_one_word_input* in, int64_t* work,
                                            cpcore_one_word_sizes* sizes,
                                            const cpcore_one_word_layout* out) {
    cpcore::one_word_layout::lay_out(*in, work, *sizes, out);
}

extern "C" int64_t cpcore_one_word_tally_bits(const int64_t* item_kind, uint64_t n_items,
                                              const int64_t* items, uint64_t n_tally,
                                              uint64_t* bits) {
    return cpcore::one_word_layout::tally_bits(item_kind, n_items, items, n_tally, bits);
}
