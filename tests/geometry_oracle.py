"""The placements as geometry.py made them in Python before the engine core made them: the
oracle the core's orientations and placements are checked against (tests only)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from cpmodels.grids import Cell, Grid, Transform

Shape = frozenset[Cell]


def orientations(shape: Iterable[Cell], *, rotate: bool = True, flip: bool = True,
                 grid: Grid) -> list[Shape]:
    """Distinct normalized orientations of a shape, the shape as drawn first."""
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


def fits(shapes: Iterable[Shape], board: Iterable[Cell],
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
