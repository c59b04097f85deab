// The entry points of a cover's layout for the general kernels and of its tallies
// (cpcore/cover_layout.hpp): measure, then fill the caller's arrays.
#include "cpcore/cover_layout.hpp"

#include "cpcore/entry.h"

namespace {

void clear(cpcore_cover_sizes* s, int64_t error) {
    *s = cpcore_cover_sizes{};
    s->error = error;
}

}  // namespace

extern "C" const char* cpcore_layout_error(int64_t code) {
    return cpcore::layout::error_message(code);
}

extern "C" uint64_t cpcore_cover_layout_work(const cpcore_cover_input* cover) {
    return cpcore::layout::work_words(*cover);
}

extern "C" void cpcore_cover_layout_fill(const cpcore_cover_input* cover, int64_t* work,
                                         cpcore_cover_sizes* sizes,
                                         const cpcore_cover_layout* out) {
    clear(sizes, cpcore::layout::check_cover(*cover));
    if (sizes->error == CPCORE_LAYOUT_OK) cpcore::layout::lay_out(*cover, work, *sizes, out);
}

extern "C" void cpcore_cover_layout_measure(const cpcore_cover_input* cover, int64_t* work,
                                            cpcore_cover_sizes* sizes) {
    cpcore_cover_layout_fill(cover, work, sizes, nullptr);
}

extern "C" int64_t cpcore_region_sizes(const int64_t* areas, const int64_t* copies, uint64_t n,
                                       uint64_t total, uint8_t* fillable) {
    return cpcore::layout::region_sizes(areas, copies, n, total, fillable);
}

extern "C" uint64_t cpcore_tally_layout_work(const cpcore_tally_input* tallies) {
    return cpcore::layout::tally_work_words(*tallies);
}

extern "C" void cpcore_tally_layout_fill(const cpcore_tally_input* tallies, int64_t* work,
                                         cpcore_tally_sizes* sizes,
                                         const cpcore_tally_layout* out) {
    *sizes = cpcore_tally_sizes{};
    cpcore::layout::lay_out_tallies(*tallies, work, *sizes, out);
}

extern "C" void cpcore_tally_layout_measure(const cpcore_tally_input* tallies, int64_t* work,
                                            cpcore_tally_sizes* sizes) {
    cpcore_tally_layout_fill(tallies, work, sizes, nullptr);
}
