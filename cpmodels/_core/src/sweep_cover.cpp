// A calendar's sweep cover (cpmodels/sweep.py's sweep_cover and scan_fixed_groups; without
// label groups cover.py's packing_cover): items and options in the order the Python side has
// always made them, over the caller's buffers (cpcore/sweep_cover.hpp).
#include "cpcore/check.hpp"
#include "cpcore/entry.h"
#include "cpcore/sweep_cover.hpp"

namespace {

using namespace cpcore::geometry;

constexpr int64_t CELL_ITEM = 0, PIECE_ITEM = 1, SLACK_ITEM = 2;
constexpr int64_t PIECE_OPTION = 0, SLACK_OPTION = 1, LEFT_OUT_OPTION = 2;
constexpr int64_t MOST_COPIES = ((int64_t)1) << 31;

// An item's words in the stream: its kind, its bounds, its cell (-1 for none).
void item(Buffers& out, int64_t kind, int64_t low, int64_t high, int64_t cell) {
    out.put(kind);
    out.put(low);
    out.put(high);
    out.put(cell);
}

// Whether start[0 .. n] runs from 0 up (never down) to at most ``most``; 1 when it does with
// no empty run, 0 with one, -1 when it does not run up.
int runs(const int64_t* start, uint64_t n, uint64_t most) {
    if (start[0] != 0) return -1;
    int whole = 1;
    for (uint64_t k = 0; k < n; ++k) {
        if (start[k + 1] < start[k] || (uint64_t)start[k + 1] > most) return -1;
        if (start[k + 1] == start[k]) whole = 0;
    }
    return whole;
}

}  // namespace

extern "C" int64_t cpcore_sweep_cover(const cpcore_sweep_input* in, cpcore_buffers* buffers) {
    Buffers out(buffers);
    const int64_t grid = in->grid;
    const int64_t *board = in->board, *shape_cells = in->shape_cells;
    const int64_t *shape_start = in->shape_start, *piece_start = in->piece_start;
    const int64_t *piece_bounds = in->piece_bounds, *group_cells = in->group_cells;
    const int64_t* group_start = in->group_start;
    const uint64_t n_board = in->n_board, n_shapes = in->n_shapes;
    const uint64_t n_shape_cells = in->n_shape_cells, n_pieces = in->n_pieces;
    const uint64_t n_groups = in->n_groups, n_labels = in->n_labels;
    if (!known_grid(grid)) return CPCORE_GEOMETRY_UNKNOWN_GRID;
    const int dim = dimension(grid);
    const uint64_t most = CPCORE_MAX_GEOMETRY_CELLS;
    if (n_board > most || n_shapes > most || n_pieces > most || n_groups > most ||
        n_shape_cells > most || n_labels > most) {
        return CPCORE_GEOMETRY_TOO_MANY_CELLS;
    }
    const int shapes_run = runs(shape_start, n_shapes, n_shape_cells);
    if (shapes_run < 0) return CPCORE_GEOMETRY_BAD_SHAPES;
    if (shapes_run == 0) return CPCORE_GEOMETRY_EMPTY_SHAPE;
    if (runs(piece_start, n_pieces, n_shapes) < 0 ||
        (uint64_t)piece_start[n_pieces] != n_shapes) {
        return CPCORE_COVER_BAD_PIECES;
    }
    for (uint64_t p = 0; p < n_pieces; ++p) {
        const int64_t low = piece_bounds[2 * p], high = piece_bounds[2 * p + 1];
        if (low < 0 || low > high || high > MOST_COPIES) return CPCORE_COVER_BAD_PIECES;
    }
    const int groups_run = runs(group_start, n_groups, n_labels);
    if (groups_run < 0) return CPCORE_COVER_BAD_GROUPS;
    if (groups_run == 0) return CPCORE_COVER_EMPTY_GROUP;
    if (!coordinates_fit(board, n_board * dim) ||
        !coordinates_fit(shape_cells, n_shape_cells * dim) ||
        !coordinates_fit(group_cells, n_labels * dim)) {
        return CPCORE_GEOMETRY_COORDINATE;
    }
    uint64_t largest = 0;
    for (uint64_t s = 0; s < n_shapes; ++s) {
        const uint64_t size = (uint64_t)(shape_start[s + 1] - shape_start[s]);
        if (size > largest) largest = size;
    }
    int64_t* keys = out.take(n_board * dim);    // cells, axes in scan order
    int64_t* order = out.take(n_board);         // board indices in scan order
    int64_t* scan = out.take(n_board * dim);    // the cells in scan order
    int64_t* byread = out.take(n_board);        // scan's indices in reading order
    int64_t* group_size = out.take(n_groups);
    int64_t* passed = out.take(n_groups);       // a group's last cell in scan order
    int64_t* picked = out.take(n_groups);       // the fixed groups
    int64_t* shape_order = out.take(largest);   // a shape's cells in reading order
    int64_t* hit = out.take(largest);           // their cells' items
    int64_t* cell = out.take(dim);              // a cell moved
    if (!out.fits()) return CPCORE_GEOMETRY_SMALL_BUFFER;

    // The cells in scan order, each once (cover.py's scan_order).
    int axes[3] = {0, 1, 2};
    if (n_board > 0) cpcore::sweep::scan_axes(board, n_board, dim, axes);
    for (uint64_t i = 0; i < n_board; ++i) {
        for (int d = 0; d < dim; ++d) keys[i * dim + d] = board[i * dim + axes[d]];
        order[i] = (int64_t)i;
    }
    sort_cells(keys, dim, order, n_board);
    const uint64_t n_cells = distinct(keys, dim, order, n_board);
    for (uint64_t i = 0; i < n_cells; ++i) {
        for (int d = 0; d < dim; ++d) scan[i * dim + d] = board[order[i] * dim + d];
        byread[i] = (int64_t)i;
    }
    sort_cells(scan, dim, byread, n_cells);
    CPCORE_ASSERT(n_cells <= n_board && (n_board == 0 || n_cells >= 1));
    if (n_shapes * n_cells > in->max_placements) return CPCORE_COVER_TOO_LARGE;

    // The counts (the options' and the fixed groups' set once known), then the items.
    const uint64_t n_items = n_cells + n_pieces + n_groups;
    out.put((int64_t)n_items);
    out.put(0);
    out.put(0);
    for (uint64_t i = 0; i < n_cells; ++i) item(out, CELL_ITEM, 1, 1, order[i]);
    for (uint64_t p = 0; p < n_pieces; ++p)
        item(out, PIECE_ITEM, piece_bounds[2 * p], piece_bounds[2 * p + 1], -1);
    for (uint64_t g = 0; g < n_groups; ++g) item(out, SLACK_ITEM, 1, 1, -1);

    // Each piece's placements (its cells' items, then its own), shape by shape.
    uint64_t n_options = 0;
    for (uint64_t p = 0; p < n_pieces; ++p) {
        for (int64_t s = piece_start[p]; s < piece_start[p + 1]; ++s) {
            const uint64_t size = (uint64_t)(shape_start[s + 1] - shape_start[s]);
            slide(grid, shape_cells + shape_start[s] * dim, size, scan, byread, n_cells,
                  shape_order, hit, cell, [&](const int64_t* at) {
                      out.put(PIECE_OPTION);
                      out.put((int64_t)p);
                      out.put((int64_t)(size + 1));
                      for (uint64_t i = 0; i < size; ++i) {
                          CPCORE_ASSERT(at[i] >= 0 && (uint64_t)at[i] < n_cells);
                          out.put(at[i]);
                      }
                      out.put((int64_t)(n_cells + p));
                      ++n_options;
                      return true;
                  });
        }
    }

    // Each group's slack options: a label's cell item, then the group's slack item.
    for (uint64_t g = 0; g < n_groups; ++g) {
        group_size[g] = group_start[g + 1] - group_start[g];
        passed[g] = -1;
        for (int64_t l = group_start[g]; l < group_start[g + 1]; ++l) {
            const int64_t at = find(scan, dim, byread, n_cells, group_cells + l * dim);
            if (at < 0) return CPCORE_COVER_LABEL_OFF_BOARD;
            CPCORE_ASSERT((uint64_t)at < n_cells);
            if (at > passed[g]) passed[g] = at;
            out.put(SLACK_OPTION);
            out.put((int64_t)g);
            out.put(2);
            out.put(at);
            out.put((int64_t)(n_cells + n_pieces + g));
            ++n_options;
        }
    }

    // Each piece's left-out option, when it may be left out: its piece's item alone.
    if (in->left_out != nullptr) {
        for (uint64_t p = 0; p < n_pieces; ++p) {
            if (!in->left_out[p]) continue;
            out.put(LEFT_OUT_OPTION);
            out.put((int64_t)p);
            out.put(1);
            out.put((int64_t)(n_cells + p));
            ++n_options;
        }
    }

    // The groups a sweep's tasks fix (sweep.py's scan_fixed_groups).
    const uint64_t n_fixed = cpcore::sweep::fixed_groups(group_size, passed, n_groups, picked);
    CPCORE_ASSERT(n_fixed <= n_groups && (n_groups == 0 || n_fixed >= 1));
    for (uint64_t k = 0; k < n_fixed; ++k) out.put(picked[k]);
    out.set(1, (int64_t)n_options);
    out.set(2, (int64_t)n_fixed);
    return out.end();
}
