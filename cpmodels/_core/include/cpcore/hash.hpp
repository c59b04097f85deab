// The hash every memo table of the core uses, and the one probe loop over an open-addressed
// table (linear probing in a power-of-two array). Freestanding.
//
// The data. A table is n_slots slots, n_slots a power of two; the caller keeps what a slot
// holds (keys, values) and says, for a slot, whether it is in use and whether it holds the
// key looked for. A key's hash h is folded from its words by mix (a splitmix64 round each,
// from GOLDEN); its first slot is h & (n_slots - 1), then the slots after it, wrapping. The
// invariant: a key, if present, lies between its first slot and the first free slot after
// it, so a table must keep a free slot (the callers flush or grow before it fills).
#pragma once

#include "cpcore/bits.hpp"

namespace cpcore {

const word MIX1 = 0xBF58476D1CE4E5B9ULL;
const word MIX2 = 0x94D049BB133111EBULL;
const word GOLDEN = 0x9E3779B97F4A7C15ULL;

// One round of the splitmix64 finaliser: h's next value after taking in x.
inline __attribute__((always_inline)) word mix(word h, word x) {
    x ^= h;
    x = (x ^ (x >> 30)) * MIX1;
    x = (x ^ (x >> 27)) * MIX2;
    return x ^ (x >> 31);
}

// The slot of a key: from its hash, the first slot that is free or holds that key.
// ``occupied(s)`` says whether slot s is in use, ``same(s)`` whether it holds the key.
template <class Occupied, class Same>
inline __attribute__((always_inline)) uint64_t probe(word h, uint64_t n_slots,
                                                     Occupied occupied, Same same) {
    const uint64_t mask = n_slots - 1;
    uint64_t s = h & mask;
    while (occupied(s) && !same(s)) s = (s + 1) & mask;
    return s;
}

}  // namespace cpcore
