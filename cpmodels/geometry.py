"""Grid geometry: shapes, orientations, placements and board symmetries.

Cells are tuples of integers in the convention of their grid (:mod:`cpmodels.grids`);
on the square grid ``(row, col)`` pairs, row 0 at the top, as in a spec's drawing. Every
function takes the grid (square unless told).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import IntEnum

from cpmodels.grids import GRIDS, Cell, Grid, Transform

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
    mirror images).
    """
    transforms: list[Transform] = [grid.rotations[0]]
    if rotate:
        transforms = list(grid.rotations)
    if flip:
        transforms += list(grid.reflections) if rotate else [grid.reflections[0]]
    seen: list[Shape] = []
    base = list(shape)
    for t in transforms:
        oriented = grid.normalize(t(rc) for rc in base)
        if oriented not in seen:
            seen.append(oriented)
    return seen


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
    board cell the grid lets it move to, so every placement is produced exactly once.
    """
    return [Placement(piece, cells) for cells in _fits(shapes, board, grid)]


def fits_anywhere(shapes: Iterable[Shape], board: Iterable[Cell], grid: Grid = SQUARE) -> bool:
    """Whether any of ``shapes`` fits on ``board`` (stops at the first fit)."""
    return next(_fits(shapes, board, grid), None) is not None


def _fits(shapes: Iterable[Shape], board: Iterable[Cell],
          grid: Grid) -> Iterator[tuple[Cell, ...]]:
    """The cells (in reading order) of every fit of any shape, anchored at each board cell."""
    board_set = frozenset(board)
    board_sorted = sorted(board_set)
    for shape in shapes:
        ordered = sorted(shape)
        anchor = ordered[0]
        for target in board_sorted:
            if not grid.translates(anchor, target):
                continue
            shift = tuple(b - a for a, b in zip(anchor, target))
            cells = tuple(tuple(x + d for x, d in zip(cell, shift)) for cell in ordered)
            if all(rc in board_set for rc in cells):
                yield cells


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
        mapping = {rc: tuple(x + d for x, d in zip(im, shift))
                   for rc, im in zip(cell_list, image)}
        if frozenset(mapping.values()) != cell_set:
            continue
        if any(labels.get(mapping[rc]) != labels.get(rc) for rc in cell_list):
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
