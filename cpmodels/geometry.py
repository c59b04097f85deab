"""Grid geometry: shapes, orientations, placements and board symmetries.

Cells are ``(row, col)`` pairs, row 0 at the top, as in a spec's drawing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

Cell = tuple[int, int]
Shape = frozenset[Cell]

#: The eight symmetries of the square grid (the dihedral group D4), as maps on cells.
#: The first four are the rotations (identity first); the last four add a reflection.
Transform = Callable[[Cell], Cell]
ROTATIONS: tuple[Transform, ...] = (
    lambda rc: (rc[0], rc[1]),
    lambda rc: (rc[1], -rc[0]),
    lambda rc: (-rc[0], -rc[1]),
    lambda rc: (-rc[1], rc[0]),
)
REFLECTIONS: tuple[Transform, ...] = (
    lambda rc: (rc[0], -rc[1]),
    lambda rc: (rc[1], rc[0]),
    lambda rc: (-rc[0], rc[1]),
    lambda rc: (-rc[1], -rc[0]),
)
D4: tuple[Transform, ...] = ROTATIONS + REFLECTIONS


def normalize(cells: Iterable[Cell]) -> Shape:
    """Translate cells so that the smallest row and the smallest column are 0."""
    cells = list(cells)
    if not cells:
        return frozenset()
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def is_connected(cells: Iterable[Cell]) -> bool:
    """True when the cells form one orthogonally connected region (an empty set is not)."""
    todo = set(cells)
    if not todo:
        return False
    stack = [todo.pop()]
    while stack:
        r, c = stack.pop()
        for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if nb in todo:
                todo.remove(nb)
                stack.append(nb)
    return not todo


def orientations(shape: Iterable[Cell], *, rotate: bool = True, flip: bool = True) -> list[Shape]:
    """Distinct normalized orientations of a shape, the shape as drawn first.

    ``rotate`` allows the four rotations, ``flip`` allows turning the piece over.
    """
    transforms: list[Transform] = [ROTATIONS[0]]
    if rotate:
        transforms = list(ROTATIONS)
    if flip:
        transforms += list(REFLECTIONS) if rotate else [REFLECTIONS[0]]
    seen: list[Shape] = []
    base = list(shape)
    for t in transforms:
        oriented = normalize(t(rc) for rc in base)
        if oriented not in seen:
            seen.append(oriented)
    return seen


@dataclass(frozen=True, order=True)
class Placement:
    """One piece put on the board: the piece's name and the sorted cells it covers."""

    piece: str
    cells: tuple[Cell, ...]


def placements(piece: str, shapes: Iterable[Shape], board: Iterable[Cell]) -> list[Placement]:
    """Every placement of any of ``shapes`` whose cells all lie on ``board``.

    Each orientation is anchored by its first cell in reading order and slid onto every
    board cell, so every placement is produced exactly once.
    """
    return [Placement(piece, cells) for cells in _fits(shapes, board)]


def fits_anywhere(shapes: Iterable[Shape], board: Iterable[Cell]) -> bool:
    """Whether any of ``shapes`` fits on ``board`` (stops at the first fit)."""
    return next(_fits(shapes, board), None) is not None


def _fits(shapes: Iterable[Shape], board: Iterable[Cell]) -> Iterator[tuple[Cell, ...]]:
    """The cells (in reading order) of every fit of any shape, anchored at each board cell."""
    board_set = frozenset(board)
    board_sorted = sorted(board_set)
    for shape in shapes:
        ordered = sorted(shape)
        ar, ac = ordered[0]
        for br, bc in board_sorted:
            dr, dc = br - ar, bc - ac
            cells = tuple((r + dr, c + dc) for r, c in ordered)
            if all(rc in board_set for rc in cells):
                yield cells


def board_symmetries(cells: Iterable[Cell],
                     labels: Mapping[Cell, str] | None = None) -> list[dict[Cell, Cell]]:
    """The symmetries of the board drawing as cell permutations, identity first.

    A symmetry is one of the eight grid symmetries, followed by the translation that puts the
    image back on the board's bounding box, that maps the board's cell set onto itself and
    every labelled cell onto a cell with the same label.
    """
    return _symmetries(cells, labels, D4)


def board_reflections(cells: Iterable[Cell]) -> list[dict[Cell, Cell]]:
    """The symmetries of the board's cell set that turn it over (mirror images)."""
    return _symmetries(cells, None, REFLECTIONS)


def _symmetries(cells: Iterable[Cell], labels: Mapping[Cell, str] | None,
                transforms: Iterable[Transform]) -> list[dict[Cell, Cell]]:
    cell_list = sorted(set(cells))
    cell_set = frozenset(cell_list)
    labels = dict(labels or {})
    found: list[dict[Cell, Cell]] = []
    for t in transforms:
        image = [t(rc) for rc in cell_list]
        r0 = min(r for r, _ in image) - min(r for r, _ in cell_list)
        c0 = min(c for _, c in image) - min(c for _, c in cell_list)
        mapping = {rc: (ir - r0, ic - c0) for rc, (ir, ic) in zip(cell_list, image)}
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
