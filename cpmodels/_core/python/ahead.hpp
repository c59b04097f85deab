// A growing table's pages faulted in ahead of the search, on another thread (CPython
// only; the core is freestanding and never starts one). A sweep's search touches each
// fresh page of its rows and arena once, and the system zeroes it then: in
// calendar_week's sweep a sixth of the time, all of it on the search's core. While the
// search runs, this thread asks the system (MADV_POPULATE_WRITE) for the rows a doubling
// soon moves into (the table past nine sixteenths of its live slots: it doubles at ten)
// and for the arena's next AHEAD_ARENA_BYTES, so that a second core zeroes them. Only the
// system's page tables are written: what the search reads and writes is untouched, so
// nothing is shared with it but the two figures of its statistics read (USED and
// ARENA_USED, relaxed loads: a late figure only delays a request). Where the system
// lacks the request, or the table is kept whole (n_slots at most GROWS_ABOVE), it does
// nothing.
#pragma once

#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "cpcore/entry.h"
#include "cpcore/table.hpp"

namespace cpbind {

class PagesAhead {
public:
    static constexpr uint64_t AHEAD_ARENA_BYTES = (uint64_t)8 << 20;
    static constexpr uint64_t STEP_BYTES = (uint64_t)4 << 20;  // asked at a time (a stop waits for one)

    // Start the thread for table ``t`` with rows of ``width`` words (joined by the destructor).
    PagesAhead(const cpcore_one_word_table& t, uint64_t width) : t_(t), width_(width) {
#ifdef MADV_POPULATE_WRITE
        if (t.n_slots > cpcore::GROWS_ABOVE) thread_ = std::thread([this] { run(); });
#endif
    }
    ~PagesAhead() {
        done_.store(true, std::memory_order_relaxed);
        if (thread_.joinable()) thread_.join();
    }
    PagesAhead(const PagesAhead&) = delete;
    PagesAhead& operator=(const PagesAhead&) = delete;

private:
    const cpcore_one_word_table t_;
    const uint64_t width_;
    std::atomic<bool> done_{false};
    std::thread thread_;

    int64_t stat(unsigned k) const { return __atomic_load_n(&t_.stats[k], __ATOMIC_RELAXED); }

    void run() {
        const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
        uint64_t rows_done = 0, arena_done = 0;  // the bytes of each asked for so far
        while (!done_.load(std::memory_order_relaxed)) {
            const uint64_t used = (uint64_t)stat(cpcore::USED);
            uint64_t live = cpcore::Rows<3>::grown_size(used, t_.n_slots);
            if (live < t_.n_slots && used * 16 >= live * 9) live *= 2;
            const uint64_t rows = live * width_ * 8, arena_size = t_.arena_size * 8;
            uint64_t arena = (uint64_t)stat(cpcore::ARENA_USED) * 8 + AHEAD_ARENA_BYTES;
            if (arena > arena_size) arena = arena_size;
            int asked = 0;
            if (rows_done < rows)
                asked = ask(t_.keys, rows, rows_done, page);
            else if (arena_done < arena)
                asked = ask(t_.arena, arena, arena_done, page);
            if (asked < 0) return;  // (the system lacks the request)
            if (asked == 0) {
                const timespec pause{0, 1000000};  // 1 ms
                nanosleep(&pause, nullptr);
            }
        }
    }

    // Ask for the next STEP_BYTES of [done, upto) of the buffer at ``base`` (the whole
    // pages within it): 1, or -1 when the system refused.
    static int ask(void* base, uint64_t upto, uint64_t& done, uint64_t page) {
        const uintptr_t b = (uintptr_t)base;
        const uint64_t end = upto - done > STEP_BYTES ? done + STEP_BYTES : upto;
        const uintptr_t lo = (b + done + page - 1) / page * page, hi = (b + end) / page * page;
        done = end;
#ifdef MADV_POPULATE_WRITE
        if (hi > lo && madvise((void*)lo, hi - lo, MADV_POPULATE_WRITE) != 0) return -1;
#endif
        return 1;
    }
};

}  // namespace cpbind
