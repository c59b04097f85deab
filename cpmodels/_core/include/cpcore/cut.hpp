// A laser's parts in millimetres (make's sheets): outlines offset with mitred corners, turned
// by a grid's rotations, and numbers written as Python writes them. Freestanding: no standard
// library, no allocation, no exceptions.
//
// Doubles live in the caller's int64 words bit for bit (get and set copy them), as entry.h
// passes them. A ring is a closed list of points (x, y), material on its right on screen (x
// across, y down: an outline's outer loop runs clockwise, a hole's the other way), so
// offset moves every edge out of the material by the same distance, corners mitred: each
// point to where its two edges, moved, meet. The grids' corners turn by 60, 90, 120, 240,
// 270 or 300 degrees, so a mitre is at most twice the distance (shapely's limit is 10).
// A Box is the smallest box around the points added to it (a region's cells, a part turned, a
// text laid out, an outline).
//
// fixed writes a double with ``decimals`` decimals as Python's format(x, ".4f") does: the
// exact binary value rounded half to even, a minus sign whenever the sign bit is set;
// general as format(x, "g") for 1 <= x < 10**6 (six significant digits, trailing zeros
// dropped).
#pragma once

#include <stdint.h>

#include "cpcore/check.hpp"
#include "cpcore/entry.h"
#include "cpcore/placements.hpp"
#include "cpcore/play_layout.hpp"

namespace cpcore {
namespace cut {

inline double get(const int64_t* words, uint64_t i) {
    double v;
    __builtin_memcpy(&v, words + i, sizeof v);
    return v;
}

inline void set(int64_t* words, uint64_t i, double v) {
    __builtin_memcpy(words + i, &v, sizeof v);
}

inline int64_t bits(double v) {
    int64_t w;
    __builtin_memcpy(&w, &v, sizeof w);
    return w;
}

inline bool finite(double v) { return v - v == 0.0; }

// The smallest box around the points added: x0 .. x1 across, y0 .. y1 down (all 0 while
// empty).
struct Box {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool empty = true;

    void add(double x, double y) {
        if (empty || x < x0) x0 = x;
        if (empty || y < y0) y0 = y;
        if (empty || x > x1) x1 = x;
        if (empty || y > y1) y1 = y;
        empty = false;
        CPCORE_ASSERT(!(x0 > x1) && !(y0 > y1));
    }
};

inline double absolute(double v) { return v < 0 ? -v : v; }

// The square root of v (0 for v <= 0) by Newton's steps from a guess within a factor of two:
// the same bits on every build, with no call to libm (the core is freestanding).
inline double root(double v) {
    if (!(v > 0)) return 0;
    uint64_t b;
    __builtin_memcpy(&b, &v, sizeof b);
    b = (b >> 1) + ((((uint64_t)1023) << 52) >> 1);  // the exponent halved
    double y;
    __builtin_memcpy(&y, &b, sizeof y);
    for (int k = 0; k < 8; ++k) y = 0.5 * (y + v / y);
    return y;
}

// The square root of 3 (math.sqrt(3), correctly rounded).
const double ROOT3 = 0x1.bb67ae8584caap+0;

// The cosine and sine of a turn of ``degrees`` (a multiple of 60 or 90) as shapely's
// affinity.rotate takes them: libm's cos and sin of degrees * pi / 180, those under 2.5e-16
// made 0 (tests/test_cut_core.py lays turned parts out as shapely turns them).
inline void turn_of(int degrees, double& c, double& s) {
    switch (degrees) {
        case 60: c = 0x1.0000000000001p-1, s = 0x1.bb67ae8584caap-1; return;
        case 90: c = 0.0, s = 1.0; return;
        case 120: c = -0x1.ffffffffffffcp-2, s = 0x1.bb67ae8584cabp-1; return;
        case 180: c = -1.0, s = 0.0; return;
        case 240: c = -0x1.0000000000004p-1, s = -0x1.bb67ae8584ca8p-1; return;
        case 270: c = 0.0, s = -1.0; return;
        case 300: c = 0x1.0000000000001p-1, s = -0x1.bb67ae8584caap-1; return;
        default: CPCORE_ASSERT(degrees == 0); c = 1.0, s = 0.0; return;
    }
}

// Millimetres of a drawing unit across (sx) and down (sy) for a cell's side of ``cell``
// millimetres (render/scene.py's cell drawings; grid: geometry's SQUARE, TRIANGLE, HEX).
inline void drawing_scale(int64_t grid, double cell, double& sx, double& sy) {
    double ux, uy;
    if (grid == 0) ux = 40.0, uy = 40.0;
    else if (grid == 1) ux = 52.0 / 2, uy = 52.0 * ROOT3 / 2;
    else ux = 24.8 * ROOT3 / 2, uy = 24.8 / 2;
    const double side = grid == 0 ? ux : root(ux * ux + uy * uy);
    const double scale = cell / side;
    sx = ux * scale, sy = uy * scale;
}

// A ring of n points (2n doubles at from) moved out of its material by d, into to.
inline void offset(const int64_t* from, uint64_t n, double d, int64_t* to) {
    CPCORE_ASSERT(n >= 3);
    for (uint64_t i = 0; i < n; ++i) {
        const uint64_t a = (i + n - 1) % n, b = (i + 1) % n;
        const double px = get(from, 2 * i), py = get(from, 2 * i + 1);
        const double e1x = px - get(from, 2 * a), e1y = py - get(from, 2 * a + 1);
        const double e2x = get(from, 2 * b) - px, e2y = get(from, 2 * b + 1) - py;
        const double l1 = root(e1x * e1x + e1y * e1y);
        const double l2 = root(e2x * e2x + e2y * e2y);
        CPCORE_ASSERT(l1 > 0 && l2 > 0);
        const double n1x = e1y / l1, n1y = -e1x / l1, n2x = e2y / l2, n2y = -e2x / l2;
        const double along = 1.0 + n1x * n2x + n1y * n2y;  // 0 only for a turn back
        CPCORE_ASSERT(along > 0.49);  // turns of at most 120 degrees: a mitre at most 2 d
        set(to, 2 * i, px + d * (n1x + n2x) / along);
        set(to, 2 * i + 1, py + d * (n1y + n2y) / along);
    }
}

// Twice the signed area of a ring of n points (positive for a ring clockwise on screen).
inline double twice_area(const int64_t* ring, uint64_t n) {
    double sum = 0;
    for (uint64_t i = 0; i < n; ++i) {
        const uint64_t j = (i + 1) % n;
        sum += get(ring, 2 * i) * get(ring, 2 * j + 1) - get(ring, 2 * j) * get(ring, 2 * i + 1);
    }
    return sum;
}

// An unsigned number of two words.
struct Wide {
    uint64_t hi, lo;
};

inline bool bit(Wide w, int k) {
    return k >= 128 ? false : k >= 64 ? ((w.hi >> (k - 64)) & 1) : ((w.lo >> k) & 1);
}

// Whether any bit of w below bit k is set.
inline bool any_below(Wide w, int k) {
    if (k <= 0) return false;
    if (k >= 128) return w.hi || w.lo;
    if (k > 64) return w.lo || (w.hi & ((((uint64_t)1) << (k - 64)) - 1));
    if (k == 64) return w.lo != 0;
    return (w.lo & ((((uint64_t)1) << k) - 1)) != 0;
}

inline uint64_t shifted(Wide w, int k) {  // w >> k, known to fit one word
    if (k >= 128) return 0;
    if (k >= 64) return w.hi >> (k - 64);
    if (k == 0) return w.lo;
    return (w.lo >> k) | (w.hi << (64 - k));
}

// |v| * 10**decimals rounded half to even (decimals at most 6, |v| below 2**40); sets
// negative from the sign bit.
inline uint64_t scaled(double v, int decimals, bool& negative) {
    uint64_t raw;
    __builtin_memcpy(&raw, &v, sizeof raw);
    negative = (raw >> 63) != 0;
    const int exponent = (int)((raw >> 52) & 0x7ff);
    uint64_t m = raw & ((((uint64_t)1) << 52) - 1);
    int e;  // |v| = m * 2**e
    if (exponent == 0) {
        e = -1074;
    } else {
        m |= ((uint64_t)1) << 52;
        e = exponent - 1075;
    }
    CPCORE_ASSERT(exponent != 0x7ff && e < 40 - 52 + 1);
    uint64_t p = 1;  // 5**decimals: |v| * 10**d = m * 5**d * 2**(e + d)
    for (int k = 0; k < decimals; ++k) p *= 5;
    const uint64_t mh = m >> 32, ml = m & 0xffffffffu;
    const uint64_t high = mh * p, low = ml * p;  // m * p = high * 2**32 + low
    Wide w;
    w.lo = (high << 32) + low;
    w.hi = (high >> 32) + (w.lo < low ? 1 : 0);
    const int shift = -(e + decimals);
    if (shift <= 0) return w.lo << -shift;  // a whole number (small: |v| < 2**40)
    uint64_t q = shifted(w, shift);
    if (bit(w, shift - 1) && (any_below(w, shift - 1) || (q & 1))) ++q;
    return q;
}

// Writes the digits of q (at least min_digits of them, zeros in front) to out; returns
// how many.
inline int digits(uint64_t q, int min_digits, char* out) {
    char reversed[24];
    int n = 0;
    do {
        reversed[n++] = (char)('0' + q % 10);
        q /= 10;
    } while (q || n < min_digits);
    for (int k = 0; k < n; ++k) out[k] = reversed[n - 1 - k];
    return n;
}

// v with ``decimals`` decimals (1 to 6), as Python's format(v, ".Nf"); out has room for
// 32 chars. Returns the length.
inline int fixed(double v, int decimals, char* out) {
    bool negative;
    const uint64_t q = scaled(v, decimals, negative);
    uint64_t p = 1;
    for (int k = 0; k < decimals; ++k) p *= 10;
    int n = 0;
    if (negative) out[n++] = '-';
    n += digits(q / p, 1, out + n);
    out[n++] = '.';
    n += digits(q % p, decimals, out + n);
    return n;
}

// v (1 <= v < 10**6) as Python's format(v, "g"): six significant digits, trailing zeros and
// a trailing point dropped. Returns the length.
inline int general(double v, char* out) {
    CPCORE_ASSERT(v >= 1.0 && v < 1e6);
    int whole = 1;  // digits before the point
    for (double t = 10.0; v >= t && whole < 6; t *= 10.0) ++whole;
    int n = whole < 6 ? fixed(v, 6 - whole, out) : 0;
    if (whole < 6) {
        int digits_before = 0;
        while (out[digits_before] != '.') ++digits_before;
        if (digits_before > whole && whole < 5) n = fixed(v, 5 - whole, out);  // 9.999999
    } else {
        bool negative;
        n = digits(scaled(v, 0, negative), 1, out);
        return n;
    }
    while (out[n - 1] == '0') --n;
    if (out[n - 1] == '.') --n;
    return n;
}

// The loops of a region of n cells (play::outline's, scratch its 80 words a cell) in
// millimetres (a drawing unit sx across, sy down), each reversed when ``reverse``: their
// points appended at points + 2 n_points (n_points advanced), each loop's first point and
// count appended to rings as two words; returns how many loops.
inline uint64_t region_loops(int64_t grid, const int64_t* cells, uint64_t n, int64_t* scratch,
                             double sx, double sy, bool reverse, int64_t* points,
                             int64_t* rings, uint64_t& n_points) {
    uint64_t loops = 0;
    play::outline(grid, cells, n, scratch, [&](const int64_t* pts, uint64_t m) {
        int64_t* to = points + 2 * n_points;
        for (uint64_t i = 0; i < m; ++i) {
            const uint64_t j = reverse ? m - 1 - i : i;
            set(to, 2 * i, (double)(pts[2 * j] / play::SIXTHS) * sx);
            set(to, 2 * i + 1, (double)(pts[2 * j + 1] / play::SIXTHS) * sy);
        }
        rings[2 * loops] = (int64_t)n_points;
        rings[2 * loops + 1] = (int64_t)m;
        ++loops;
        n_points += m;
    });
    return loops;
}

// What cut_sheets and engrave read alike of their input: the grid, a board's cells (n_board
// (x, y) pairs: a board or its labelled cells) and the pieces (piece p's cells the pairs
// piece_cells[2 piece_start[p]:2 piece_start[p + 1]]).
struct Parts {
    int64_t grid;
    const int64_t *board, *piece_cells, *piece_start;
    uint64_t n_board, n_pieces, n_piece_cells;
    uint64_t largest = 0;  // the most cells of a piece, once status() holds

    // An input's (cpcore_cut_input, cpcore_engrave_input) pieces, with these board cells.
    template <class Input>
    Parts(const Input& in, const int64_t* board_cells, uint64_t n_board_cells)
        : grid(in.grid),
          board(board_cells),
          piece_cells(in.piece_cells),
          piece_start(in.piece_start),
          n_board(n_board_cells),
          n_pieces(in.n_pieces),
          n_piece_cells(in.n_piece_cells) {}

    // The checks the parts pass, in entry.h's statuses: a plane grid, at most so many cells
    // and parts, each piece's run of cells, every coordinate near 0; 0 when they hold (and
    // largest measured). Nothing else here is read before they hold.
    int64_t status() {
        using namespace geometry;
        if (grid == CUBE) return CPCORE_CUT_NOT_PLANE;
        if (!known_grid(grid)) return CPCORE_GEOMETRY_UNKNOWN_GRID;
        if (n_board > CPCORE_MAX_LAYOUT_CELLS || n_piece_cells > CPCORE_MAX_LAYOUT_CELLS ||
            n_pieces > CPCORE_MAX_CUT_PARTS) {
            return CPCORE_GEOMETRY_TOO_MANY_CELLS;
        }
        const int64_t runs = shape_runs(piece_start, n_pieces, n_piece_cells,
                                        CPCORE_MAX_LAYOUT_PIECE, largest);
        if (runs != 0) return runs;
        const int64_t most = CPCORE_MAX_LAYOUT_COORDINATE;
        if (!within(board, 2 * n_board, most) || !within(piece_cells, 2 * n_piece_cells, most))
            return CPCORE_CUT_COORDINATE;
        return 0;
    }

    const int64_t* cells(uint64_t p) const { return piece_cells + 2 * piece_start[p]; }
    uint64_t size(uint64_t p) const { return (uint64_t)(piece_start[p + 1] - piece_start[p]); }

    // Whether each piece's cells are distinct (sorted: room for the largest piece's).
    bool pieces_distinct(int64_t* sorted) const {
        for (uint64_t p = 0; p < n_pieces; ++p) {
            if (geometry::reading_order(cells(p), 2, sorted, size(p)) != size(p)) return false;
        }
        return true;
    }
};

}  // namespace cut

// What the laser's sources (src/cut.cpp, src/engrave.cpp) name unqualified: the grids'
// geometry and the words' doubles.
namespace laser {
using namespace geometry;
using cut::bits;
using cut::get;
using cut::set;
}  // namespace laser
}  // namespace cpcore
