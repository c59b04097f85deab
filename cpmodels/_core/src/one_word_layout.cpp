// The entry points of the one-word kernel's layout of a cover (cpcore/one_word_layout.hpp):
// measure, then fill the caller's arrays.
#include "cpcore/one_word_layout.hpp"

#include "cpcore/entry.h"

CPCORE_LAYOUT_ENTRY_POINTS(cpcore_one_word_layout, cpcore_one_word_input, cpcore_one_word_sizes,
                           cpcore_one_word_layout, cpcore::one_word_layout::work_words,
                           cpcore::one_word_layout::lay_out)

extern "C" int64_t cpcore_one_word_tally_bits(const int64_t* item_kind, uint64_t n_items,
                                              const int64_t* items, uint64_t n_tally,
                                              uint64_t optional, uint64_t* bits) {
    return cpcore::one_word_layout::tally_bits(item_kind, n_items, items, n_tally, optional,
                                               bits);
}
