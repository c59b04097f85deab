// The geometry entry points' buffers (entry.h's cpcore_buffers) used as the bindings use
// them, each promise of entry.h required on the way: stream(entry, given, short_one) calls
// ``entry(&given, &buffers)`` with no buffers (which says the scratch), with the scratch
// (which says out), then with out as large as it said, or a word short when ``short_one``
// (which must be refused with the same need).
#pragma once

#include <stdint.h>

#include <vector>

#include "bytes.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {

// What the calls answered: the words written (status, their number), or a refusal, or
// CPCORE_GEOMETRY_SMALL_BUFFER for the short out and for buffers past ``most`` words (not
// made), with no words.
struct Streamed {
    int64_t status;
    std::vector<int64_t> words;
};

template <class Input>
Streamed stream(int64_t (*entry)(const Input*, cpcore_buffers*), const Input& given,
                bool short_one, uint64_t most = uint64_t(1) << 22) {
    cpcore_buffers b{};
    int64_t status = entry(&given, &b);
    if (status != CPCORE_GEOMETRY_SMALL_BUFFER) {
        FUZZ_REQUIRE(status < 0);
        return {status, {}};
    }
    const uint64_t need_scratch = b.need_scratch;
    if (need_scratch > most) return {CPCORE_GEOMETRY_SMALL_BUFFER, {}};
    Buffer<int64_t> scratch(need_scratch);
    b = cpcore_buffers{nullptr, 0, scratch.data(), scratch.size, 0, 0};
    status = entry(&given, &b);
    FUZZ_REQUIRE(b.need_scratch == need_scratch);
    if (status != CPCORE_GEOMETRY_SMALL_BUFFER) {  // a refusal, or an empty stream
        FUZZ_REQUIRE(status < 0 || (status == 0 && b.need_out == 0));
        return {status, {}};
    }
    const uint64_t need_out = b.need_out;
    if (need_out > most) return {CPCORE_GEOMETRY_SMALL_BUFFER, {}};
    const uint64_t n = need_out - (short_one && need_out > 0);
    Buffer<int64_t> out(n, -7);
    b = cpcore_buffers{out.data(), n, scratch.data(), scratch.size, 0, 0};
    status = entry(&given, &b);
    FUZZ_REQUIRE(b.need_out == need_out && b.need_scratch == need_scratch);
    if (n < need_out) {
        FUZZ_REQUIRE(status == CPCORE_GEOMETRY_SMALL_BUFFER);
        return {status, {}};
    }
    FUZZ_REQUIRE(status >= 0 && (uint64_t)status <= need_out);
    return {status, std::vector<int64_t>(out.data(), out.data() + status)};
}

// Reads a stream's words in order, never past its end.
struct Reader {
    const int64_t* at;
    const int64_t* end;
    explicit Reader(const std::vector<int64_t>& words)
        : at(words.data()), end(words.data() + words.size()) {}
    int64_t next() {
        FUZZ_REQUIRE(at < end);
        return *at++;
    }
    void skip(int64_t n) {
        FUZZ_REQUIRE(n >= 0 && n <= end - at);
        at += n;
    }
    bool done() const { return at == end; }
};

}  // namespace cpfuzz
