// Play mode's layout of a plane board and its pieces (web/play.py's board_layout): the
// board's cells drawn, and each piece's orientations with what a turn or a flip gives, which
// keep it face up, its outline, its mark and every place on the board, as one stream of
// words over the caller's buffer (cpcore/play_layout.hpp's cell drawings, exact).
#include "cpcore/check.hpp"
#include "cpcore/entry.h"
#include "cpcore/play_layout.hpp"

namespace {

using namespace cpcore::geometry;
using namespace cpcore::play;

// A shape's cells moved by symmetry k, normalized and in reading order, into shape (size
// words x 2). Scratch: moved (2 size), order (size).
void turned(int64_t grid, int k, const int64_t* cells, uint64_t size, int64_t* moved,
            int64_t* order, int64_t* shape) {
    int64_t low[2];
    for (uint64_t i = 0; i < size; ++i) {
        apply(grid, k, cells + 2 * i, moved + 2 * i);
        order[i] = (int64_t)i;
    }
    origin(grid, moved, size, low);
    sort_cells(moved, 2, order, size);
    for (uint64_t i = 0; i < size; ++i) {
        shape[2 * i] = moved[2 * order[i]] - low[0];
        shape[2 * i + 1] = moved[2 * order[i] + 1] - low[1];
    }
}

// The index of shape among found orientations (each size cells), or -1.
int64_t index_of(const int64_t* shape, const int64_t* found, int64_t n_found, uint64_t size) {
    for (int64_t f = 0; f < n_found; ++f) {
        if (compare_words(found + f * size * 2, shape, (int)(size * 2)) == 0) return f;
    }
    return -1;
}

}  // namespace

extern "C" int64_t cpcore_play_layout(const cpcore_play_input* in, cpcore_buffers* buffers) {
    Buffers s(buffers);
    const int64_t grid = in->grid;
    const int64_t *board = in->board, *piece_cells = in->piece_cells;
    const int64_t *piece_start = in->piece_start, *piece_turns = in->piece_turns;
    const uint64_t n_board = in->n_board, n_pieces = in->n_pieces;
    const uint64_t n_piece_cells = in->n_piece_cells;
    if (grid == CUBE) return CPCORE_LAYOUT_NOT_PLANE;
    if (!known_grid(grid)) return CPCORE_GEOMETRY_UNKNOWN_GRID;
    if (n_board > CPCORE_MAX_LAYOUT_CELLS || n_piece_cells > CPCORE_MAX_LAYOUT_CELLS ||
        n_pieces > CPCORE_MAX_LAYOUT_CELLS) {
        return CPCORE_GEOMETRY_TOO_MANY_CELLS;
    }
    if (n_board == 0) return CPCORE_LAYOUT_NO_CELLS;
    uint64_t largest = 0;
    const int64_t pieces =
        shape_runs(piece_start, n_pieces, n_piece_cells, CPCORE_MAX_LAYOUT_PIECE, largest);
    if (pieces != 0) return pieces;
    const int64_t most = CPCORE_MAX_LAYOUT_COORDINATE;
    if (!within(board, 2 * n_board, most) || !within(piece_cells, 2 * n_piece_cells, most)) {
        return CPCORE_LAYOUT_COORDINATE;
    }
    const uint64_t m = largest;
    const int each = symmetries_each(grid);
    // The board in reading order, then a piece's: free and upright orientations (each up to
    // 2 * each shapes), orient's scratch, a shape turned (moved, order, shape), the
    // outline's scratch and the slide's (order, hit, cell).
    int64_t* sorted = s.take(n_board);
    int64_t* free_shapes = s.take(4 * each * m);
    int64_t* upright = s.take(4 * each * m);
    int64_t* orient_scratch = s.take(3 * m);
    int64_t* moved = s.take(2 * m);
    int64_t* order = s.take(m);
    int64_t* shape = s.take(2 * m);
    int64_t* outline_scratch = s.take(80 * m);
    int64_t* slide_order = s.take(m);
    int64_t* hit = s.take(m);
    int64_t* cell = s.take(2);
    if (!s.fits()) return CPCORE_GEOMETRY_SMALL_BUFFER;

    const uint64_t n_sorted = reading_order(board, 2, sorted, n_board);
    int64_t xy[12];
    int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    for (uint64_t i = 0; i < n_sorted; ++i) {
        const int64_t* at = board + 2 * sorted[i];
        const int k = corners(grid, at[0], at[1], xy);
        for (int j = 0; j < k; ++j) {
            const int64_t x = xy[2 * j], y = xy[2 * j + 1];
            if ((i == 0 && j == 0) || x < x0) x0 = x;
            if ((i == 0 && j == 0) || y < y0) y0 = y;
            if ((i == 0 && j == 0) || x > x1) x1 = x;
            if ((i == 0 && j == 0) || y > y1) y1 = y;
        }
    }
    s.put((int64_t)n_sorted);
    s.put(x0), s.put(y0), s.put(x1), s.put(y1);
    s.put((int64_t)n_pieces);
    for (uint64_t i = 0; i < n_sorted; ++i) {
        const int64_t* at = board + 2 * sorted[i];
        int64_t mid[2];
        cell_centre(grid, at[0], at[1], mid);
        s.put(at[0]), s.put(at[1]), s.put(mid[0]), s.put(mid[1]);
        const int k = corners(grid, at[0], at[1], xy);
        s.put(k);
        for (int j = 0; j < 2 * k; ++j) s.put(xy[j]);
    }
    for (uint64_t p = 0; p < n_pieces; ++p) {
        const int64_t* cells = piece_cells + 2 * piece_start[p];
        const uint64_t n = (uint64_t)(piece_start[p + 1] - piece_start[p]);
        const int rotate = piece_turns[2 * p] != 0, flip = piece_turns[2 * p + 1] != 0;
        uint64_t size = 0, up_size = 0;
        const int64_t n_free = orient(grid, cells, n, rotate, flip, free_shapes,
                                      orient_scratch, size);
        const int64_t n_up = orient(grid, cells, n, rotate, 0, upright, orient_scratch,
                                    up_size);
        CPCORE_ASSERT(size <= m && up_size == size && n_up <= n_free &&
                      (uint64_t)n_free <= 2 * (uint64_t)each);
        s.put(n_free);
        for (int64_t f = 0; f < n_free; ++f) {
            const int64_t* mine = free_shapes + f * size * 2;
            s.put((int64_t)size);
            for (uint64_t i = 0; i < 2 * size; ++i) s.put(mine[i]);
            s.put(index_of(mine, upright, n_up, size) >= 0 ? 1 : 0);
            turned(grid, 1, mine, size, moved, order, shape);
            s.put(index_of(shape, free_shapes, n_free, size));
            turned(grid, each, mine, size, moved, order, shape);
            s.put(index_of(shape, free_shapes, n_free, size));
            // The mark: the cell whose centre is nearest the centres' mean (the first of
            // equals), compared as n * centre - sum, exactly.
            int64_t sum[2] = {0, 0}, c[2];
            for (uint64_t i = 0; i < size; ++i) {
                cell_centre(grid, mine[2 * i], mine[2 * i + 1], c);
                sum[0] += c[0], sum[1] += c[1];
            }
            uint64_t best = 0;
            Wide best_distance{0, 0};
            for (uint64_t i = 0; i < size; ++i) {
                cell_centre(grid, mine[2 * i], mine[2 * i + 1], c);
                const Wide d = plus(square_of((int64_t)size * c[0] - sum[0]),
                                    square_of((int64_t)size * c[1] - sum[1]));
                if (i == 0 || less(d, best_distance)) best = i, best_distance = d;
            }
            cell_centre(grid, mine[2 * best], mine[2 * best + 1], c);
            s.put(c[0]), s.put(c[1]);
            // The outline's loops: counted first, then each written.
            uint64_t n_loops = 0;
            outline(grid, mine, size, outline_scratch, [&](const int64_t*, uint64_t) {
                ++n_loops;
            });
            s.put((int64_t)n_loops);
            outline(grid, mine, size, outline_scratch, [&](const int64_t* points, uint64_t k) {
                s.put((int64_t)k);
                for (uint64_t i = 0; i < 2 * k; ++i) s.put(points[i]);
            });
            // The places: counted first, then each written (the anchor is the first cell).
            int64_t n_places = 0;
            slide(grid, mine, size, board, sorted, n_sorted, slide_order, hit, cell,
                  [&](const int64_t*) {
                      ++n_places;
                      return true;
                  });
            s.put(n_places);
            int64_t from[2];
            cell_centre(grid, mine[0], mine[1], from);
            slide(grid, mine, size, board, sorted, n_sorted, slide_order, hit, cell,
                  [&](const int64_t* at) {
                      const int64_t* target = board + 2 * at[0];
                      int64_t to[2];
                      cell_centre(grid, target[0], target[1], to);
                      s.put(target[0] - mine[0]), s.put(target[1] - mine[1]);
                      s.put(to[0] - from[0]), s.put(to[1] - from[1]);
                      return true;
                  });
        }
    }
    return s.end();
}
