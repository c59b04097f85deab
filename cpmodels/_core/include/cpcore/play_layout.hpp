// How play mode draws a plane grid's cells (render/scene.py's cell drawings), exactly.
// Freestanding: no standard library, no allocation, no exceptions.
//
// The data. A cell is two coordinates, (r, c) on the square and triangle grids and (q, r) on
// the hex grid (placements.hpp). A point is (x, y), x across and y down the screen, in
// *sixths* of the grid's drawing units: a cell's corners are whole units, a square's centre
// halves, a triangle's thirds, so every point is a whole number and every comparison exact.
// corners writes a cell's k corners (k = 4, 3 or 6), clockwise on screen, as 2k words;
// cell_centre its centre as 2 words. Squared distances may pass 64 bits: Wide holds them as
// two words (hi, lo), compared by less.
//
// An outline is a list of loops, each m points (2m words); outline traces it as
// scene.outline does: each cell's edges clockwise as records (x0, y0, x1, y1), an edge whose
// reverse is present cancelled, the rest sorted (sort_records, lexicographic) and chained
// into loops from the least point left, each point's edges taken last first, the points in
// the middle of a straight run dropped. Its scratch is 80 words a cell.
#pragma once

#include <stdint.h>

#include "cpcore/check.hpp"
#include "cpcore/placements.hpp"

namespace cpcore {
namespace play {

using geometry::HEX;
using geometry::SQUARE;
using geometry::TRIANGLE;

const int64_t SIXTHS = 6;

inline bool points_up(int64_t r, int64_t c) { return ((r + c) & 1) == 0; }

// A cell's corners, clockwise on screen, in sixths (xy: 12 words); returns how many.
inline int corners(int64_t grid, int64_t a, int64_t b, int64_t* xy) {
    static const int64_t square[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    static const int64_t up[6] = {1, 0, 2, 1, 0, 1};
    static const int64_t down[6] = {0, 0, 2, 0, 1, 1};
    static const int64_t hex[12] = {0, -2, 1, -1, 1, 1, 0, 2, -1, 1, -1, -1};
    const int64_t* unit;
    int k;
    int64_t x0, y0;
    if (grid == SQUARE) {
        unit = square, k = 4, x0 = b, y0 = a;
    } else if (grid == TRIANGLE) {
        unit = points_up(a, b) ? up : down, k = 3, x0 = b, y0 = a;
    } else {
        unit = hex, k = 6, x0 = 2 * a + b, y0 = 3 * b;
    }
    for (int i = 0; i < k; ++i) {
        xy[2 * i] = SIXTHS * (x0 + unit[2 * i]);
        xy[2 * i + 1] = SIXTHS * (y0 + unit[2 * i + 1]);
    }
    return k;
}

// A cell's centre (x across, y down) in sixths: (cell[0], cell[1]) is (r, c) on the square
// and triangle grids, (q, r) on the hex grid.
inline void cell_centre(int64_t grid, int64_t a, int64_t b, int64_t* xy) {
    if (grid == SQUARE) {
        xy[0] = 6 * b + 3;
        xy[1] = 6 * a + 3;
    } else if (grid == TRIANGLE) {
        xy[0] = 6 * b + 6;
        xy[1] = 6 * a + (points_up(a, b) ? 4 : 2);
    } else {
        xy[0] = 6 * (2 * a + b);
        xy[1] = 18 * b;
    }
}

// An unsigned 128-bit number as two words, for squared distances past 64 bits.
struct Wide {
    uint64_t hi, lo;
};

inline Wide square_of(int64_t v) {
    const uint64_t a = v < 0 ? (uint64_t)(-v) : (uint64_t)v;
    const uint64_t a1 = a >> 32, a0 = a & 0xffffffffu;
    const uint64_t low = a0 * a0, mid = a1 * a0, high = a1 * a1;
    Wide w;
    const uint64_t mid_low = mid << 33, mid_high = mid >> 31;  // 2 * mid, split at bit 64
    w.lo = low + mid_low;
    w.hi = high + mid_high + (w.lo < low ? 1 : 0);
    return w;
}

inline Wide plus(Wide a, Wide b) {
    Wide w;
    w.lo = a.lo + b.lo;
    w.hi = a.hi + b.hi + (w.lo < a.lo ? 1 : 0);
    return w;
}

inline bool less(Wide a, Wide b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }

// Lexicographic order of two records of w words.
inline int compare_words(const int64_t* x, const int64_t* y, int w) {
    for (int d = 0; d < w; ++d) {
        if (x[d] != y[d]) return x[d] < y[d] ? -1 : 1;
    }
    return 0;
}

// Sorts n records of w words in place, lexicographically (a heap sort).
inline void sort_records(int64_t* records, int w, uint64_t n) {
    auto swap = [&](uint64_t i, uint64_t j) {
        for (int d = 0; d < w; ++d) {
            const int64_t t = records[i * w + d];
            records[i * w + d] = records[j * w + d];
            records[j * w + d] = t;
        }
    };
    auto is_less = [&](uint64_t i, uint64_t j) {
        return compare_words(records + i * w, records + j * w, w) < 0;
    };
    auto sift = [&](uint64_t root, uint64_t end) {
        while (2 * root + 1 < end) {
            uint64_t child = 2 * root + 1;
            if (child + 1 < end && is_less(child, child + 1)) ++child;
            if (!is_less(root, child)) return;
            swap(root, child);
            root = child;
        }
    };
    for (uint64_t k = n / 2; k-- > 0;) sift(k, n);
    for (uint64_t end = n; end > 1; --end) {
        swap(0, end - 1);
        sift(0, end - 1);
    }
}

// The first record of n sorted ones (w words) not before key (its first kw words), or n.
inline uint64_t lower_bound(const int64_t* records, int w, uint64_t n, const int64_t* key,
                            int kw) {
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (compare_words(records + mid * w, key, kw) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// The outline of n cells (dim 2) as scene.outline traces it: each cell's edges clockwise,
// an edge whose reverse is present cancelled, the rest chained into loops from the least
// point left, each point's edges taken last first, points in the middle of a straight run
// dropped. emit(points, m) is told each loop (m points, x y each). Scratch: 80 * n words.
template <class Emit>
inline void outline(int64_t grid, const int64_t* cells, uint64_t n, int64_t* scratch,
                    Emit&& emit) {
    int64_t* edges = scratch;              // [6n, 4] every cell's edges: ax, ay, bx, by
    int64_t* kept = edges + 24 * n;        // [6n, 4] those not cancelled, sorted
    int64_t* used = kept + 24 * n;         // [6n]
    int64_t* points = used + 6 * n;        // [6n, 2] one loop's points, then its corners
    uint64_t n_edges = 0;
    int64_t xy[12];
    for (uint64_t i = 0; i < n; ++i) {
        const int k = corners(grid, cells[2 * i], cells[2 * i + 1], xy);
        for (int j = 0; j < k; ++j) {
            const int next = (j + 1) % k;
            int64_t* e = edges + 4 * n_edges++;
            e[0] = xy[2 * j], e[1] = xy[2 * j + 1], e[2] = xy[2 * next], e[3] = xy[2 * next + 1];
        }
    }
    sort_records(edges, 4, n_edges);
    uint64_t n_kept = 0;
    for (uint64_t e = 0; e < n_edges; ++e) {
        const int64_t* edge = edges + 4 * e;
        const int64_t reverse[4] = {edge[2], edge[3], edge[0], edge[1]};
        const uint64_t at = lower_bound(edges, 4, n_edges, reverse, 4);
        if (at < n_edges && compare_words(edges + 4 * at, reverse, 4) == 0) continue;
        for (int d = 0; d < 4; ++d) kept[4 * n_kept + d] = edge[d];
        used[n_kept++] = 0;
    }
    uint64_t first = 0;  // no unused edge before it
    for (;;) {
        while (first < n_kept && used[first]) ++first;
        if (first == n_kept) return;
        const int64_t start[2] = {kept[4 * first], kept[4 * first + 1]};
        int64_t here[2] = {start[0], start[1]};
        uint64_t m = 0;
        points[2 * m] = start[0], points[2 * m + 1] = start[1], ++m;
        for (;;) {
            // The last unused edge from here (the edges from a point are a sorted run).
            const uint64_t lo = lower_bound(kept, 4, n_kept, here, 2);
            uint64_t hi = lo;
            while (hi < n_kept && compare_words(kept + 4 * hi, here, 2) == 0) ++hi;
            uint64_t take = hi;
            for (uint64_t e = hi; e-- > lo;) {
                if (!used[e]) {
                    take = e;
                    break;
                }
            }
            if (take == hi) break;  // (an outline of cells always goes on: not reached)
            used[take] = 1;
            const int64_t there[2] = {kept[4 * take + 2], kept[4 * take + 3]};
            if (there[0] == start[0] && there[1] == start[1]) break;
            CPCORE_ASSERT(m < 6 * n);  // a loop passes each kept edge once
            points[2 * m] = there[0], points[2 * m + 1] = there[1], ++m;
            here[0] = there[0], here[1] = there[1];
        }
        // Corners only: a point kept where the loop turns.
        uint64_t k = 0;
        int64_t* corner_points = points + 2 * m;  // after the loop's points: room for as many
        for (uint64_t i = 0; i < m; ++i) {
            const int64_t* a = points + 2 * ((i + m - 1) % m);
            const int64_t* p = points + 2 * i;
            const int64_t* b = points + 2 * ((i + 1) % m);
            if ((p[0] - a[0]) * (b[1] - p[1]) != (p[1] - a[1]) * (b[0] - p[0])) {
                corner_points[2 * k] = p[0], corner_points[2 * k + 1] = p[1], ++k;
            }
        }
        CPCORE_ASSERT(k <= m);
        emit(corner_points, k);
    }
}

}  // namespace play
}  // namespace cpcore
