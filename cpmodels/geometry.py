"""Grid geometry: shapes, orientations, placements and board symmetries.

Cells are tuples of integers in the convention of their grid (:mod:`cpmodels.grids`);
on the square grid ``(row, col)`` pairs, row 0 at the top, as in a spec's drawing. Every
function takes the grid (square unless told). Orientations and placements are made by the
engine core (``cpcore/placements.hpp``, the code the browser runs too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from types import ModuleType

from cpmodels.grids import GRID_NAMES, GRIDS, Cell, Grid, Transform

SQUARE: Grid = GRIDS["square"]

Shape = frozenset[Cell]

#: The eight symmetries of the square grid (the dihedral group D4), as maps on cells.
#: The first four are the rotations (identity first); the last four add a reflection.
ROTATIONS: tuple[Transform, ...] = SQUARE.rotations
REFLECTIONS: tuple[Transform, ...] = SQUARE.reflections
D4: tuple[Transform, ...] = ROTATIONS + REFLECTIONS


def normalize(cells: Iterable[Cell], grid: Grid = SQUARE) -> Shape:
    """Translate cells to their canonical place (on the square grid: the smallest row and
    the smallest column 0)."""
    return grid.normalize(cells)


def is_connected(cells: Iterable[Cell], grid: Grid = SQUARE) -> bool:
    """True when the cells form one region joined by edges (an empty set is not)."""
    return grid.is_connected(cells)


def orientations(shape: Iterable[Cell], *, rotate: bool = True, flip: bool = True,
                 grid: Grid = SQUARE) -> list[Shape]:
    """Distinct normalized orientations of a shape, the shape as drawn first.

    ``rotate`` allows the grid's rotations, ``flip`` allows turning the piece over (its
    mirror images): the identity, or every rotation, then the mirror images (every one, or
    the first alone), each kept unless an earlier one has the same cells. The engine core
    works them out (``cpcore/placements.hpp``), the same code the browser runs; a cell of
    the wrong length or a coordinate more than 2**30 from 0 is refused (ValueError).
    """
    native = _native()
    return [frozenset(cells) for cells in
            native.orientations(_grid_code(grid), shape, rotate, flip)]


class OptionKind(IntEnum):
    """What an option of an exact cover stands for."""

    PIECE = 0  # a piece put on the board: its cells and its piece
    SLACK = 1  # a label left open: its one cell and its label group's slack item
    LEFT_OUT = 2  # an optional piece not used: its piece item and no cell


@dataclass(frozen=True, order=True)
class Placement:
    """One option of an exact cover: ``piece`` (the piece's name; for a slack option, the
    label group's) and the sorted cells it covers, of the ``kind`` it is."""

    piece: str
    cells: tuple[Cell, ...]
    kind: OptionKind = OptionKind.PIECE


def placements(piece: str, shapes: Iterable[Shape], board: Iterable[Cell],
               grid: Grid = SQUARE) -> list[Placement]:
    """Every placement of any of ``shapes`` whose cells all lie on ``board``: **where a
    placement is made**.

    Each orientation is anchored by its first cell in reading order and slid onto every
    board cell (in reading order) the grid lets it move to, so every placement is produced
    exactly once; its cells are in reading order. The engine core finds them.
    """
    return [Placement(piece, cells) for cells in _fits(shapes, board, grid, _ALL)]


def fits_anywhere(shapes: Iterable[Shape], board: Iterable[Cell], grid: Grid = SQUARE) -> bool:
    """Whether any of ``shapes`` fits on ``board`` (stops at the first fit)."""
    return bool(_fits(shapes, board, grid, 1))


_ALL = 2**63  # no limit on the placements asked for


def _fits(shapes: Iterable[Shape], board: Iterable[Cell], grid: Grid,
          limit: int) -> list[tuple[Cell, ...]]:
    """The cells (in reading order) of the first ``limit`` fits of the shapes on the board.
    A shape with no cells, a cell of the wrong length or a coordinate more than 2**30 from
    0 is refused (ValueError)."""
    native = _native()
    found: list[tuple[Cell, ...]] = native.placements(_grid_code(grid), shapes, board, limit)
    return found


# --- play mode's layout: a plane board and its pieces drawn, exactly ----------------------

#: Play layouts' points are in sixths of the grid's drawing units (``render/scene.py``: cell
#: corners are whole units, a square's centre halves, a triangle's thirds).
SIXTHS = 6
Point6 = tuple[int, int]


@dataclass(frozen=True)
class LayoutCell:
    """A board cell as play mode draws it: its corners (clockwise on screen) and centre."""

    cell: Cell
    corners: tuple[Point6, ...]
    centre: Point6


@dataclass(frozen=True)
class LayoutOrientation:
    """One orientation of a piece as play mode draws it.

    ``face_up``: reachable without turning the piece over; ``rotate``, ``flip``: the index
    of the orientation a turn or a flip gives (None where the piece may not be turned so);
    ``mark``: the centre of the cell nearest the cells' mean; ``loops``: its outline,
    holes included; ``places``: ``(dr, dc, dx, dy)``, each translation onto the board and
    the move of a point it makes.
    """

    cells: tuple[Cell, ...]
    face_up: bool
    rotate: int | None
    flip: int | None
    mark: Point6
    loops: tuple[tuple[Point6, ...], ...]
    places: tuple[tuple[int, int, int, int], ...]


@dataclass(frozen=True)
class PlayLayout:
    """A plane board and its pieces as play mode draws them (points in sixths of a unit):
    ``box`` is (x0, y0, x1, y1) of the board's corners, ``pieces`` each piece's free
    orientations in :func:`orientations`' order."""

    box: tuple[int, int, int, int]
    cells: tuple[LayoutCell, ...]
    pieces: tuple[tuple[LayoutOrientation, ...], ...]


def play_layout(board: Iterable[Cell], pieces: Iterable[tuple[Iterable[Cell], bool, bool]],
                grid: Grid = SQUARE) -> PlayLayout:
    """The board (each cell once, in reading order) and the pieces (``(cells, rotate,
    flip)`` each) as play mode draws them, made by the engine core
    (``cpcore/play_layout.hpp``, the code the browser runs too). A board with no cells, the
    cube grid, or a coordinate more than 2**20 from 0 is refused (ValueError)."""
    words = iter(_native().play_layout(_grid_code(grid), list(board),
                                       [tuple(piece) for piece in pieces]))
    take = words.__next__

    def points(n: int) -> tuple[Point6, ...]:
        return tuple((take(), take()) for _ in range(n))

    n_cells = take()
    box = (take(), take(), take(), take())
    n_pieces = take()
    cells = []
    for _ in range(n_cells):
        cell, centre = (take(), take()), (take(), take())
        cells.append(LayoutCell(cell, points(take()), centre))
    found = []
    for _ in range(n_pieces):
        shapes = []
        for _ in range(take()):
            shape = points(take())
            face_up, rotate, flip = take() == 1, take(), take()
            mark = (take(), take())
            loops = tuple(points(take()) for _ in range(take()))
            places = tuple((take(), take(), take(), take()) for _ in range(take()))
            shapes.append(LayoutOrientation(shape, face_up, None if rotate < 0 else rotate,
                                            None if flip < 0 else flip, mark, loops, places))
        found.append(tuple(shapes))
    return PlayLayout(box, tuple(cells), tuple(found))


def _grid_code(grid: Grid) -> int:
    """The core's number for the grid (cpcore/entry.h's CPCORE_GRID_*: GRID_NAMES' order)."""
    return GRID_NAMES.index(grid.name)


def _native() -> ModuleType:
    """The compiled core, loaded when a placement is first asked for (a command line that
    only reads its arguments does not load it)."""
    import cpmodels._native as native
    return native


def board_symmetries(cells: Iterable[Cell], labels: Mapping[Cell, str] | None = None,
                     grid: Grid = SQUARE) -> list[dict[Cell, Cell]]:
    """The symmetries of the board drawing as cell permutations, identity first.

    A symmetry is one of the grid's symmetries, followed by the translation that puts the
    image back where the board is, that maps the board's cell set onto itself and every
    labelled cell onto a cell with the same label.
    """
    return _symmetries(cells, labels, grid.symmetries, grid)


def board_reflections(cells: Iterable[Cell], grid: Grid = SQUARE) -> list[dict[Cell, Cell]]:
    """The symmetries of the board's cell set that turn it over (mirror images)."""
    return _symmetries(cells, None, grid.reflections, grid)


def _symmetries(cells: Iterable[Cell], labels: Mapping[Cell, str] | None,
                transforms: Iterable[Transform], grid: Grid) -> list[dict[Cell, Cell]]:
    cell_list = sorted(set(cells))
    cell_set = frozenset(cell_list)
    labels = dict(labels or {})
    home = grid.origin(cell_list)
    found: list[dict[Cell, Cell]] = []
    for t in transforms:
        image = [t(rc) for rc in cell_list]
        shift = tuple(h - o for h, o in zip(home, grid.origin(image)))
        mapping: dict[Cell, Cell]
        if len(shift) == 2:  # (the plane grids' cells, moved without a loop a cell)
            dr, dc = shift
            mapping = {rc: (r + dr, c + dc) for rc, (r, c) in zip(cell_list, image)}
        else:
            mapping = {rc: tuple(x + d for x, d in zip(im, shift))
                       for rc, im in zip(cell_list, image)}
        if frozenset(mapping.values()) != cell_set:
            continue
        if labels and any(labels.get(mapping[rc]) != labels.get(rc) for rc in cell_list):
            continue
        found.append(mapping)
    return found


def parse_drawing(rows: Iterable[str], filled: str = "#") -> Shape:
    """Cells of a piece drawing: ``filled`` characters are squares, anything else is empty."""
    return frozenset(
        (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == filled
    )


def render_shape(shape: Iterable[Cell], filled: str = "#", empty: str = ".") -> list[str]:
    """Draw a shape as text rows (the inverse of :func:`parse_drawing` for normalized shapes)."""
    cells = normalize(shape)
    if not cells:
        return []
    height = max(r for r, _ in cells) + 1
    width = max(c for _, c in cells) + 1
    return [
        "".join(filled if (r, c) in cells else empty for c in range(width)) for r in range(height)
    ]
