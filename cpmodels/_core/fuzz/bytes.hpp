// The fuzz targets' one decoding of bytes into bounded numbers and arrays, so that each target
// reads its entry point's inputs the same way and benchmarks/fuzz_seeds.py can write seeds in
// the same words: a number is one byte for -64 .. 183 (the byte minus 64), or the byte 0xF8
// and eight more bytes (little-endian) for any other int64. Past the end every number is 0.
// A count is a number taken modulo its bound + 1 (negative ones count from the bound down),
// so every input, however mutated, decodes to arrays the harness can allocate.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>

#include <memory>
#include <vector>

#include "cpcore/cut.hpp"

// A failed invariant of the core (cpcore/check.hpp, built with CPCORE_CHECK_REPORT), said
// before the process traps and libFuzzer keeps the input.
extern "C" void cpcore_check_failed(const char* file, int line, const char* condition) {
    fprintf(stderr, "cpcore: check failed at %s:%d: %s\n", file, line, condition);
}

namespace cpfuzz {

constexpr uint8_t WIDE = 0xF8;  // the escape before an eight-byte number

class Bytes {
  public:
    Bytes(const uint8_t* data, size_t size) : at_(data), end_(data + size) {}

    bool empty() const { return at_ == end_; }

    int64_t number() {
        if (at_ == end_) return 0;
        const uint8_t b = *at_++;
        if (b != WIDE) return (int64_t)b - 64;
        uint64_t v = 0;
        for (int k = 0; k < 8 && at_ != end_; ++k) v |= (uint64_t)*at_++ << (8 * k);
        return (int64_t)v;
    }

    // A count 0 .. bound.
    uint64_t count(uint64_t bound) {
        const int64_t v = number();
        const uint64_t span = bound + 1;  // 0: every uint64 is a count
        if (span == 0) return (uint64_t)v;
        return v >= 0 ? (uint64_t)v % span : bound - (uint64_t)(-(v + 1)) % span;
    }

    // A number in low .. high (both included), as a count above low.
    int64_t within(int64_t low, int64_t high) {
        return low + (int64_t)count((uint64_t)(high - low));
    }

    std::vector<int64_t> numbers(uint64_t n) {
        std::vector<int64_t> v(n);
        for (auto& x : v) x = number();
        return v;
    }

    std::vector<int64_t> numbers_within(uint64_t n, int64_t low, int64_t high) {
        std::vector<int64_t> v(n);
        for (auto& x : v) x = within(low, high);
        return v;
    }

    // A grid code: each of entry.h's CPCORE_GRID_* (0 .. 3), or one past either end.
    int64_t grid() { return within(-1, 4); }

  private:
    const uint8_t* at_;
    const uint8_t* end_;
};

// A buffer of n words, an exact allocation (so that the sanitizer sees any word past its
// end, even of an empty one), filled with ``fill``.
template <class T>
struct Buffer {
    std::unique_ptr<T[]> words;
    uint64_t size;
    explicit Buffer(uint64_t n, T fill = T()) : words(new T[n]), size(n) {
        for (uint64_t k = 0; k < n; ++k) words[k] = fill;
    }
    T* data() const { return words.get(); }
    T& operator[](uint64_t k) const { return words[k]; }
};

// A finding the sanitizers cannot see: an answer that breaks what the entry point promises.
#define FUZZ_REQUIRE(condition) ((condition) ? (void)0 : cpfuzz::broken(#condition, __LINE__))
[[noreturn]] inline void broken(const char* what, int line) {
    fprintf(stderr, "fuzz target: broken promise at line %d: %s\n", line, what);
    abort();
}

// A ring of ``points`` points as the core reads one (an engraving's, a glyph's): its number
// of points, then x, y of each, any numbers in quarters (doubles' bits, cut.hpp's words).
inline void put_ring(Bytes& in, uint64_t points, std::vector<int64_t>& words) {
    words.push_back((int64_t)points);
    for (uint64_t k = 0; k < 2 * points; ++k)
        words.push_back(cpcore::cut::bits((double)in.number() / 4.0));
}

// Runs starting at 0 (start[0] = 0, each run's length a count up to most_each): n + 1 words.
inline std::vector<int64_t> runs(Bytes& in, uint64_t n, uint64_t most_each) {
    std::vector<int64_t> start(n + 1, 0);
    for (uint64_t k = 0; k < n; ++k) start[k + 1] = start[k] + (int64_t)in.count(most_each);
    return start;
}

// Runs as a hostile caller may send them: when the next number is 0, well-formed runs (as
// runs() makes them); else n + 1 numbers as they come.
inline std::vector<int64_t> any_runs(Bytes& in, uint64_t n, uint64_t most_each) {
    if (in.number() == 0) return runs(in, n, most_each);
    return in.numbers(n + 1);
}

// The entries runs index: their last start when it is a count up to bound, else a count read.
inline uint64_t run_total(Bytes& in, const std::vector<int64_t>& start, uint64_t bound) {
    const int64_t last = start.back();
    return last >= 0 && (uint64_t)last <= bound ? (uint64_t)last : in.count(bound);
}

// Sets of cells in runs, as a caller sends shapes or pieces (entry.h's start arrays): run k's
// cells are cells[dim start[k]:dim start[k + 1]].
struct CellRuns {
    uint64_t n = 0;              // how many runs
    std::vector<int64_t> start;  // n + 1 starts (any_runs: well formed or not)
    uint64_t n_cells = 0;        // how many cells (run_total)
    std::vector<int64_t> cells;  // n_cells cells of dim words, any numbers
};

// Up to most_runs runs of up to most_each cells (when well formed), up to most_cells in all.
inline CellRuns cell_runs(Bytes& in, uint64_t most_runs, uint64_t most_each,
                          uint64_t most_cells, uint64_t dim) {
    CellRuns r;
    r.n = in.count(most_runs);
    r.start = any_runs(in, r.n, most_each);
    r.n_cells = run_total(in, r.start, most_cells);
    r.cells = in.numbers(r.n_cells * dim);
    return r;
}

// The target's body: ``FUZZ_TARGET(in) { ... return 0; }`` reads its input from ``in``.
int fuzz_one(Bytes& in);

}  // namespace cpfuzz

#define FUZZ_TARGET(in)                                                          \
    extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {    \
        cpfuzz::Bytes bytes(data, size);                                         \
        return cpfuzz::fuzz_one(bytes);                                          \
    }                                                                            \
    int cpfuzz::fuzz_one(cpfuzz::Bytes& in)
