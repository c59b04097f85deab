// Where a piece can go (cpmodels/geometry.py's orientations and placements): a shape's
// distinct orientations, and every placement of shapes on a board, in the orders the Python
// side has always made them, over the caller's buffers (cpcore/placements.hpp's grids).
#include "cpcore/check.hpp"
#include "cpcore/entry.h"
#include "cpcore/placements.hpp"

using namespace cpcore::geometry;

extern "C" int64_t cpcore_orientations(const cpcore_shape_input* in, cpcore_buffers* buffers) {
    Buffers out(buffers);
    const int64_t grid = in->grid;
    const int64_t* cells = in->cells;
    const uint64_t n_cells = in->n_cells;
    if (!known_grid(grid)) return CPCORE_GEOMETRY_UNKNOWN_GRID;
    const int dim = dimension(grid);
    const int each = symmetries_each(grid);
    if (n_cells > CPCORE_MAX_GEOMETRY_CELLS) return CPCORE_GEOMETRY_TOO_MANY_CELLS;
    // The stream's two counts, then room for every symmetry's cells: orient's working room.
    const uint64_t room = 2 + (uint64_t)(2 * each) * n_cells * dim;
    buffers->need_out = room;
    int64_t* work = out.take(n_cells * (dim + 1));  // orient's
    const bool scratch_holds = out.fits();
    if (!coordinates_fit(cells, n_cells * dim)) return CPCORE_GEOMETRY_COORDINATE;
    if (!scratch_holds || out.room < room) return CPCORE_GEOMETRY_SMALL_BUFFER;
    uint64_t size = 0;
    const int64_t found =
        orient(grid, cells, n_cells, in->rotate, in->flip, out.out + 2, work, size);
    const uint64_t words = 2 + (uint64_t)found * size * dim;
    CPCORE_ASSERT(words <= room);
    out.out[0] = found;
    out.out[1] = (int64_t)size;
    return (int64_t)words;
}

extern "C" int64_t cpcore_placements(const cpcore_placements_input* in,
                                     cpcore_buffers* buffers) {
    Buffers out(buffers);
    const int64_t grid = in->grid;
    const int64_t *shape_cells = in->shape_cells, *shape_start = in->shape_start;
    const int64_t* board = in->board;
    const uint64_t n_shapes = in->n_shapes, n_shape_cells = in->n_shape_cells;
    const uint64_t n_board = in->n_board, limit = in->limit;
    if (!known_grid(grid)) return CPCORE_GEOMETRY_UNKNOWN_GRID;
    const int dim = dimension(grid);
    if (n_board > CPCORE_MAX_GEOMETRY_CELLS || n_shape_cells > CPCORE_MAX_GEOMETRY_CELLS ||
        n_shapes > CPCORE_MAX_GEOMETRY_CELLS) {
        return CPCORE_GEOMETRY_TOO_MANY_CELLS;
    }
    uint64_t largest = 0;
    const int64_t shapes = shape_runs(shape_start, n_shapes, n_shape_cells, UINT64_MAX, largest);
    if (shapes != 0) return shapes;
    if (!coordinates_fit(shape_cells, n_shape_cells * dim) ||
        !coordinates_fit(board, n_board * dim)) {
        return CPCORE_GEOMETRY_COORDINATE;
    }
    int64_t* sorted = out.take(n_board);        // the board in reading order
    int64_t* order = out.take(largest);         // a shape's cells in reading order
    int64_t* hit = out.take(largest);           // their board cells
    int64_t* cell = out.take(largest * dim);    // one cell moved
    if (!out.fits()) return CPCORE_GEOMETRY_SMALL_BUFFER;
    // The board in reading order, each cell once (the first of equal cells kept).
    const uint64_t n_sorted = reading_order(board, dim, sorted, n_board);
    uint64_t n_found = 0;
    for (uint64_t s = 0; s < n_shapes && n_found < limit; ++s) {
        const uint64_t size = (uint64_t)(shape_start[s + 1] - shape_start[s]);
        slide(grid, shape_cells + shape_start[s] * dim, size, board, sorted, n_sorted, order,
              hit, cell, [&](const int64_t* at) {
                  out.put((int64_t)s);
                  for (uint64_t i = 0; i < size; ++i) out.put(at[i]);
                  ++n_found;
                  return n_found < limit;
              });
    }
    return out.end();
}
