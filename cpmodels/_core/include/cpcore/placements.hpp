// The four grids of cpmodels/grids.py as maps on cells, exactly. Freestanding: no standard
// library, no allocation, no exceptions.
//
// The data. A cell is dim int64 coordinates (dim = dimension(grid): 3 on the cube grid, 2
// on the others), each within CPCORE_MAX_COORDINATE of 0; a set of n cells is n * dim words,
// cell i at [i * dim, (i + 1) * dim). Cells are compared as Python compares tuples (compare),
// which is *reading order*. A grid's symmetries are numbered 0 .. 2 * symmetries_each - 1:
// its rotations (0 the identity), then its mirror images, in grids.py's order (apply).
// Normalizing a shape takes off grids.py's origin (origin), so that two shapes are the same
// exactly when their sorted cells are equal words.
//
// Index arrays: ``order`` and ``sorted`` hold indices of cells (0 .. n - 1), sorted into
// reading order by sort_cells (ties by index, so the first of equal cells comes first);
// distinct keeps the first of each run of equal cells of such an array and returns how many
// are left, a board's distinct cells (reading_order sorts, then keeps them so). find answers
// with an index into such a board, -1 for none. Coordinates are checked against a bound by
// within, the runs of a shape list's start array by shape_runs.
// Scratch is the caller's: each function says how many words it takes. An entry point's
// buffers (entry.h's cpcore_buffers) are met through Buffers: the scratch it asks for, and
// the stream of words it writes to out while they fit, counted always.
#pragma once

#include <stdint.h>

#include "cpcore/check.hpp"
#include "cpcore/entry.h"

namespace cpcore {
namespace geometry {

enum Grid { SQUARE = 0, TRIANGLE = 1, HEX = 2, CUBE = 3 };

// Whether grid names one of the four grids.
inline bool known_grid(int64_t grid) { return grid >= SQUARE && grid <= CUBE; }

inline int dimension(int64_t grid) { return grid == CUBE ? 3 : 2; }

// The rotations and the mirror images of a grid (as many of each).
inline int symmetries_each(int64_t grid) {
    return grid == SQUARE ? 4 : grid == CUBE ? 24 : 6;
}

// Python's floor division and modulo by a positive divisor.
inline int64_t floor_div(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}
inline int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

// A triangle's centroid in the lattice basis (grids.py's _tri_to_lattice) and back.
inline void tri_to_lattice(int64_t r, int64_t c, int64_t& a, int64_t& b) {
    if (((r + c) & 1) == 0) {
        a = 3 * (c - r) - 2;
        b = 6 * r + 4;
    } else {
        a = 3 * (c - r) - 1;
        b = 6 * r + 2;
    }
}
inline void tri_from_lattice(int64_t a, int64_t b, int64_t* cell) {
    const int64_t r = floor_div(b - 2, 6);
    const bool up = floor_mod(b, 6) == 4;
    cell[0] = r;
    cell[1] = floor_div(a + (up ? 2 : 1), 3) + r;
}

// The k-th of the cube's 24 rotations (det 1) or 24 mirror images (det -1): grids.py's
// _signed_permutations, the permutations of the axes in lexicographic order, each with the
// signs (+, +, +), (+, +, -), ... that give it the determinant.
inline void cube_symmetry(int det, int k, const int64_t* in, int64_t* out) {
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    static const int parity[6] = {1, -1, -1, 1, 1, -1};
    int seen = 0;
    for (int p = 0; p < 6; ++p) {
        for (int s = 0; s < 8; ++s) {
            const int s0 = (s & 4) ? -1 : 1, s1 = (s & 2) ? -1 : 1, s2 = (s & 1) ? -1 : 1;
            if (parity[p] * s0 * s1 * s2 != det) continue;
            if (seen++ == k) {
                const int64_t x0 = in[perms[p][0]], x1 = in[perms[p][1]], x2 = in[perms[p][2]];
                out[0] = s0 * x0;
                out[1] = s1 * x1;
                out[2] = s2 * x2;
                return;
            }
        }
    }
}

// Symmetry ``k`` of the grid (0 .. 2 * symmetries_each - 1: the rotations, then the mirror
// images) applied to one cell.
inline void apply(int64_t grid, int k, const int64_t* in, int64_t* out) {
    const int each = symmetries_each(grid);
    const bool mirror = k >= each;
    const int turns = mirror ? k - each : k;
    if (grid == CUBE) {
        cube_symmetry(mirror ? -1 : 1, turns, in, out);
    } else if (grid == SQUARE) {
        static const int64_t rot[4][4] = {{1, 0, 0, 1}, {0, 1, -1, 0}, {-1, 0, 0, -1},
                                          {0, -1, 1, 0}};
        static const int64_t ref[4][4] = {{1, 0, 0, -1}, {0, 1, 1, 0}, {-1, 0, 0, 1},
                                          {0, -1, -1, 0}};
        const int64_t* m = mirror ? ref[turns] : rot[turns];
        const int64_t r = in[0], c = in[1];
        out[0] = m[0] * r + m[1] * c;
        out[1] = m[2] * r + m[3] * c;
    } else if (grid == HEX) {
        int64_t q = in[0], r = in[1];
        for (int t = 0; t < turns; ++t) {
            const int64_t q2 = -r;
            r = q + r;
            q = q2;
        }
        out[0] = mirror ? r : q;
        out[1] = mirror ? q : r;
    } else {
        int64_t a, b;
        tri_to_lattice(in[0], in[1], a, b);
        for (int t = 0; t < turns; ++t) {
            const int64_t a2 = -b;
            b = a + b;
            a = a2;
        }
        if (mirror) {
            int64_t cell[2];
            tri_from_lattice(a, b, cell);
            tri_to_lattice(cell[0], cell[1], a, b);
            a = -a - b;
        }
        tri_from_lattice(a, b, out);
    }
}

// Lexicographic order of two cells (Python's tuple order): -1, 0 or 1.
inline int compare(const int64_t* x, const int64_t* y, int dim) {
    for (int d = 0; d < dim; ++d) {
        if (x[d] != y[d]) return x[d] < y[d] ? -1 : 1;
    }
    return 0;
}

// Sorts order[0 .. n) (indices of cells) by the cells' reading order, ties by index
// (a heap sort: no recursion, no memory).
inline void sort_cells(const int64_t* cells, int dim, int64_t* order, uint64_t n) {
    auto less = [&](int64_t i, int64_t j) {
        const int c = compare(cells + i * dim, cells + j * dim, dim);
        return c < 0 || (c == 0 && i < j);
    };
    auto sift = [&](uint64_t root, uint64_t end) {
        while (2 * root + 1 < end) {
            uint64_t child = 2 * root + 1;
            if (child + 1 < end && less(order[child], order[child + 1])) ++child;
            if (!less(order[root], order[child])) return;
            const int64_t t = order[root];
            order[root] = order[child];
            order[child] = t;
            root = child;
        }
    };
    for (uint64_t k = n / 2; k-- > 0;) sift(k, n);
    for (uint64_t end = n; end > 1; --end) {
        CPCORE_ASSERT(!less(order[0], order[end - 1]));  // the heap's top is its largest
        const int64_t t = order[0];
        order[0] = order[end - 1];
        order[end - 1] = t;
        sift(0, end - 1);
    }
}

// grids.py's Grid.origin of n cells (n >= 1) into low[dim].
inline void origin(int64_t grid, const int64_t* cells, uint64_t n, int64_t* low) {
    const int dim = dimension(grid);
    for (int d = 0; d < dim; ++d) low[d] = cells[d];
    for (uint64_t i = 1; i < n; ++i) {
        for (int d = 0; d < dim; ++d) {
            if (cells[i * dim + d] < low[d]) low[d] = cells[i * dim + d];
        }
    }
    if (grid == TRIANGLE && ((low[0] + low[1]) & 1)) low[1] -= 1;
}

// Whether the translation taking cell a to cell b maps the grid onto itself.
inline bool translates(int64_t grid, const int64_t* a, const int64_t* b) {
    return grid != TRIANGLE || ((a[0] + a[1] - b[0] - b[1]) & 1) == 0;
}

// Keeps the first of each run of equal cells in sorted[0 .. n) (indices of board cells
// already sorted by sort_cells), in place; returns how many are kept.
inline uint64_t distinct(const int64_t* board, int dim, int64_t* sorted, uint64_t n) {
    uint64_t kept = 0;
    for (uint64_t i = 0; i < n; ++i) {
        const int64_t* last = board + sorted[kept - (kept > 0)] * dim;
        if (kept > 0 && compare(last, board + sorted[i] * dim, dim) == 0) continue;
        CPCORE_ASSERT(kept == 0 || compare(last, board + sorted[i] * dim, dim) < 0);
        sorted[kept++] = sorted[i];
    }
    return kept;
}

// Sorts sorted[0 .. n) (indices of board cells) into reading order and keeps each cell once
// (the first of equal cells); returns how many are kept.
inline uint64_t reading_order(const int64_t* board, int dim, int64_t* sorted, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) sorted[i] = (int64_t)i;
    sort_cells(board, dim, sorted, n);
    return distinct(board, dim, sorted, n);
}

// Whether each of the n words x[0 .. n) lies within most of 0.
inline bool within(const int64_t* x, uint64_t n, int64_t most) {
    for (uint64_t i = 0; i < n; ++i) {
        if (x[i] < -most || x[i] > most) return false;
    }
    return true;
}

// Whether each of the n words x[0 .. n) lies within CPCORE_MAX_COORDINATE of 0.
inline bool coordinates_fit(const int64_t* x, uint64_t n) {
    return within(x, n, CPCORE_MAX_COORDINATE);
}

// Checks the runs of shapes' cells: start[0 .. n] runs from 0 up to at most total, each run
// of 1 to longest cells, and sets largest to the longest. Returns 0, or the status of the
// first run that fails (CPCORE_GEOMETRY_BAD_SHAPES, _EMPTY_SHAPE or _TOO_MANY_CELLS).
inline int64_t shape_runs(const int64_t* start, uint64_t n, uint64_t total, uint64_t longest,
                          uint64_t& largest) {
    largest = 0;
    if (start[0] != 0) return CPCORE_GEOMETRY_BAD_SHAPES;
    for (uint64_t s = 0; s < n; ++s) {
        const int64_t a = start[s], b = start[s + 1];
        if (b < a || (uint64_t)b > total) return CPCORE_GEOMETRY_BAD_SHAPES;
        if (b == a) return CPCORE_GEOMETRY_EMPTY_SHAPE;
        if ((uint64_t)(b - a) > longest) return CPCORE_GEOMETRY_TOO_MANY_CELLS;
        if ((uint64_t)(b - a) > largest) largest = (uint64_t)(b - a);
    }
    return 0;
}

// The board cell equal to cell (sorted: n of the board's cells in reading order), or -1.
inline int64_t find(const int64_t* board, int dim, const int64_t* sorted, uint64_t n,
                    const int64_t* cell) {
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        CPCORE_ASSERT(sorted[mid] >= 0);
        const int c = compare(board + sorted[mid] * dim, cell, dim);
        if (c == 0) return sorted[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

// Every placement of one shape (size cells) on the board (sorted: its n cells in reading
// order, each once): the shape anchored by its first cell in reading order and slid onto
// each board cell in reading order that the grid lets it move to. found(hit) is told each
// one (hit: the board cells of the shape's cells in reading order) and says whether to go
// on. Scratch: order and hit of size words, cell of dim.
template <class Found>
inline void slide(int64_t grid, const int64_t* shape, uint64_t size, const int64_t* board,
                  const int64_t* sorted, uint64_t n, int64_t* order, int64_t* hit,
                  int64_t* cell, Found&& found) {
    const int dim = dimension(grid);
    for (uint64_t i = 0; i < size; ++i) order[i] = (int64_t)i;
    sort_cells(shape, dim, order, size);
    const int64_t* anchor = shape + order[0] * dim;
    for (uint64_t t = 0; t < n; ++t) {
        const int64_t* target = board + sorted[t] * dim;
        if (!translates(grid, anchor, target)) continue;
        bool fits = true;
        for (uint64_t i = 0; i < size && fits; ++i) {
            const int64_t* from = shape + order[i] * dim;
            for (int d = 0; d < dim; ++d) cell[d] = from[d] + (target[d] - anchor[d]);
            hit[i] = find(board, dim, sorted, n, cell);
            fits = hit[i] >= 0;
            CPCORE_ASSERT(!fits || compare(board + hit[i] * dim, cell, dim) == 0);
        }
        if (fits && !found(hit)) return;
    }
}

// A shape's distinct normalized orientations (cpcore_orientations, geometry.orientations):
// each written to out as its distinct cells in reading order, size of them (set here);
// returns how many. out: 2 * symmetries_each * n_cells * dim words; scratch: n_cells *
// (dim + 1).
inline int64_t orient(int64_t grid, const int64_t* cells, uint64_t n_cells, int rotate,
                      int flip, int64_t* out, int64_t* scratch, uint64_t& size) {
    const int dim = dimension(grid);
    const int each = symmetries_each(grid);
    // The symmetries taken (geometry.orientations): the identity, or every rotation; then
    // with flip the mirror images (every one, or the first alone).
    int chosen[48], n_chosen = 0;
    const int rotations = rotate ? each : 1;
    for (int k = 0; k < rotations; ++k) chosen[n_chosen++] = k;
    if (flip) {
        for (int k = 0; k < (rotate ? each : 1); ++k) chosen[n_chosen++] = each + k;
    }
    int64_t* moved = scratch;             // [n_cells, dim]
    int64_t* order = scratch + n_cells * dim;  // [n_cells]
    int64_t low[3];
    uint64_t found = 0;
    size = 0;
    for (int t = 0; t < n_chosen; ++t) {
        for (uint64_t i = 0; i < n_cells; ++i) {
            apply(grid, chosen[t], cells + i * dim, moved + i * dim);
            order[i] = (int64_t)i;
        }
        // Normalized, in reading order, each cell once: the shape as a set.
        if (n_cells > 0) origin(grid, moved, n_cells, low);
        sort_cells(moved, dim, order, n_cells);
        int64_t* shape = out + found * size * dim;  // size: the distinct cells (one count)
        uint64_t m = 0;
        for (uint64_t i = 0; i < n_cells; ++i) {
            const int64_t* cell = moved + order[i] * dim;
            if (m > 0 && compare(shape + (m - 1) * dim, cell, dim) == 0) continue;
            for (int d = 0; d < dim; ++d) shape[m * dim + d] = cell[d];
            ++m;
        }
        for (uint64_t i = 0; i < m; ++i) {
            for (int d = 0; d < dim; ++d) shape[i * dim + d] -= low[d];
        }
        CPCORE_ASSERT(m <= n_cells && (found == 0 || m == size));  // one shape, turned
        size = m;
        bool seen = false;
        for (uint64_t f = 0; f < found && !seen; ++f) {
            const int64_t* other = out + f * size * dim;
            seen = true;
            for (uint64_t j = 0; j < size * dim; ++j) {
                if (other[j] != shape[j]) {
                    seen = false;
                    break;
                }
            }
        }
        if (!seen) ++found;
    }
    CPCORE_ASSERT(found <= (uint64_t)n_chosen);
    return (int64_t)found;
}

// A geometry entry point's buffers. The scratch is carved into the call's arrays in order,
// each written once with its length: take<T>(n) adds n Ts (whole words each) to the need and
// answers their place, or null where the caller's scratch ends before them; fits() closes
// the carving, says the need (need_scratch) and whether the scratch holds every take (no
// array taken is used before it says so). put writes the stream's next word while it fits
// (set one already counted), and end() answers with the words written, or
// CPCORE_GEOMETRY_SMALL_BUFFER with need_out the whole stream.
struct Buffers {
    cpcore_buffers* b;
    int64_t* out;
    uint64_t room;
    uint64_t n = 0;
    uint64_t taken = 0;   // the scratch's words carved so far
    bool carved = false;  // fits() has said the need

    explicit Buffers(cpcore_buffers* buffers)
        : b(buffers), out(buffers->out), room(buffers->out ? buffers->out_capacity : 0) {
        b->need_out = b->need_scratch = 0;
    }
    template <typename T = int64_t>
    T* take(uint64_t count) {
        static_assert(alignof(T) <= alignof(int64_t) && sizeof(T) % sizeof(int64_t) == 0,
                      "the scratch is carved in whole words");
        CPCORE_ASSERT(!carved);  // the need said is the need used
        const uint64_t at = taken;
        taken += count * (sizeof(T) / sizeof(int64_t));
        CPCORE_ASSERT(taken >= at);  // the sizes are bounded before: the need never wraps
        if (b->scratch == nullptr || taken > b->n_scratch) return nullptr;
        return reinterpret_cast<T*>(b->scratch + at);
    }
    bool fits() {
        carved = true;
        b->need_scratch = taken;
        return b->scratch != nullptr && b->n_scratch >= taken;
    }
    void put(int64_t v) {
        if (n < room) out[n] = v;
        ++n;
    }
    void set(uint64_t at, int64_t v) {
        CPCORE_ASSERT(at < n);
        if (at < room) out[at] = v;
    }
    int64_t end() {
        if (n > b->need_out) b->need_out = n;
        return n <= room ? (int64_t)n : CPCORE_GEOMETRY_SMALL_BUFFER;
    }
};

}  // namespace geometry
}  // namespace cpcore
