// Where a grid's cells are drawn, as the server draws them (GET /api/grids): nothing here
// knows a grid's geometry. The server gives each grid's drawing as a table that repeats:
// the corners of the cells (0, 0), (0, 1), (1, 0) and (1, 1) in pixels, and the offsets
// two steps along a cell's first and second coordinate move a cell by.
let drawings = null;

export async function loadDrawings() {
  const response = await fetch("api/grids");
  if (!response.ok) throw new Error(`the grids' drawings: HTTP ${response.status}`);
  drawings = await response.json();
}

// The corners of cell [a, b] of grid in pixels, the server's size times scale (1: a square
// cell is 40 px).
export function cellCorners(grid, [a, b], scale = 1) {
  const {tiles, step} = drawings[grid];
  const [i, j] = [a - 2 * Math.floor(a / 2), b - 2 * Math.floor(b / 2)];
  const [m, n] = [Math.floor(a / 2), Math.floor(b / 2)];
  const dx = m * step[0][0] + n * step[1][0];
  const dy = m * step[0][1] + n * step[1][1];
  return tiles[i][j].map(([x, y]) => [(x + dx) * scale, (y + dy) * scale]);
}

// The offsets of a cell's neighbours on grid, in the grid's order, by the cell's tile:
// neighbours[a mod 2][b mod 2] (the server's table).
export function gridNeighbours(grid) { return drawings[grid].neighbours; }

// The cell a board's token in row r and column c stands for: on the hex grid the axial
// cell (q = c, r = r), as a spec's board is read; else (r, c).
export function tokenCell(grid, r, c) { return grid === "hex" ? [c, r] : [r, c]; }

// The box around some polygons: {x, y, w, h}.
export function bounds(polygons) {
  const xs = polygons.flat().map((p) => p[0]);
  const ys = polygons.flat().map((p) => p[1]);
  const [x, y] = [Math.min(...xs), Math.min(...ys)];
  return {x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y};
}
