// Fuzz target: which region sizes pieces fill (cpcore_region_sizes), for any positive areas,
// copies (or none) and board size: the sizes marked must be exactly the sums of pieces, and
// the limit a size that is not one. Then the same pieces, once each, with 0 .. 3 holes of one
// cell more (cpcore_reach_fills): row k the sums with k pieces of 1 more.
#include "bytes.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {
namespace {

// The adapter: the one call of the entry point.
int64_t region_sizes(const std::vector<int64_t>& areas, const std::vector<int64_t>* copies,
                     uint64_t total, uint8_t* fillable) {
    return cpcore_region_sizes(areas.data(), copies ? copies->data() : nullptr, areas.size(),
                               total, fillable);
}

uint64_t reach_fills(const std::vector<int64_t>& areas, uint64_t groups, uint64_t total,
                     uint8_t* fill) {
    return cpcore_reach_fills(areas.data(), areas.size(), groups, total, fill);
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const uint64_t n = in.count(24);
    std::vector<int64_t> areas(n);
    for (auto& a : areas) {
        a = in.number();
        if (a <= 0) a = a == 0 ? 1 : (int64_t)((uint64_t)a >> 1) | 1;  // positive, as checked
    }
    const bool with_copies = in.count(1) == 1;
    const std::vector<int64_t> copies = in.numbers(n);
    const uint64_t total = in.count(1024);
    Buffer<uint8_t> fillable(total + 1, 7);
    const int64_t limit = region_sizes(areas, with_copies ? &copies : nullptr, total,
                                       fillable.data());
    // The sums of pieces, to compare: a size is a sum with piece p when it is one without it
    // plus j <= copies of p's area (``need[k]``: the fewest copies of p that reach k).
    std::vector<uint8_t> sums(total + 1, 0);
    std::vector<int64_t> need(total + 1);
    sums[0] = 1;
    for (uint64_t p = 0; p < n; ++p) {
        const int64_t times = with_copies ? copies[p] : 1;
        const uint64_t area = (uint64_t)areas[p];
        if (times <= 0 || area > total) continue;
        for (uint64_t k = 0; k <= total; ++k) {
            need[k] = sums[k] ? 0 : k >= area && need[k - area] < times ? need[k - area] + 1
                                                                        : INT64_MAX;
            sums[k] = need[k] <= times;
        }
    }
    for (uint64_t k = 0; k <= total; ++k) FUZZ_REQUIRE(fillable[k] == sums[k]);
    FUZZ_REQUIRE(limit >= 0 && (uint64_t)limit <= total + 1);
    if (limit > 0) FUZZ_REQUIRE(!sums[limit - 1]);
    const uint64_t groups = in.count(3);
    Buffer<uint8_t> fill((groups + 1) * (total + 1), 7);
    const uint64_t most = reach_fills(areas, groups, total, fill.data());
    std::vector<uint8_t> once(total + 1, 0);
    once[0] = 1;
    for (uint64_t p = 0; p < n; ++p)
        if ((uint64_t)areas[p] <= total)
            for (uint64_t k = total; k >= (uint64_t)areas[p]; --k)
                if (once[k - (uint64_t)areas[p]]) once[k] = 1;
    bool limit_seen = most == 0;
    for (uint64_t k = 0; k <= groups; ++k)
        for (uint64_t s = 0; s <= total; ++s) {
            uint8_t want = 0;
            for (uint64_t j = 0; j <= k && j <= s; ++j) want |= once[s - j];
            FUZZ_REQUIRE(fill[k * (total + 1) + s] == want);
            if (most > 0 && s + 1 == most && !want) limit_seen = true;
        }
    FUZZ_REQUIRE(most <= total + 1 && limit_seen);
    return 0;
}
