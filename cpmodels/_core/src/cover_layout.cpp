// The entry points of a cover's layout for the general kernels and of its tallies
// (cpcore/cover_layout.hpp): measure, then fill the caller's arrays.
#include "cpcore/cover_layout.hpp"

#include "cpcore/entry.h"

extern "C" const char* cpcore_layout_error(int64_t code) {
    return cpcore::layout::error_message(code);
}

CPCORE_LAYOUT_ENTRY_POINTS(cpcore_cover_layout, cpcore_cover_input, cpcore_cover_sizes,
                           cpcore_cover_layout, cpcore::layout::work_words,
                           cpcore::layout::lay_out)

extern "C" int64_t cpcore_region_sizes(const int64_t* areas, const int64_t* copies, uint64_t n,
                                       uint64_t total, uint8_t* fillable) {
    return cpcore::layout::region_sizes(areas, copies, n, total, fillable);
}

CPCORE_LAYOUT_ENTRY_POINTS(cpcore_tally_layout, cpcore_tally_input, cpcore_tally_sizes,
                           cpcore_tally_layout, cpcore::layout::tally_work_words,
                           cpcore::layout::lay_out_tallies)
