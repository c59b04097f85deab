"""The sweep cover as cover.py and sweep.py made it in Python before the engine core
assembled it: the oracle the core's covers are checked against (tests only)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from cpmodels.cover import ExactCover, Item, ItemKind, PieceKind, cell_name
from cpmodels.geometry import OptionKind, Placement, placements
from cpmodels.grids import Cell, Grid

MAX_TALLY = 512


def scan_order(cells: Iterable[Cell]) -> list[Cell]:
    """Cells in reading order along the board's shorter side (the longest axis slowest)."""
    cell_set = set(cells)
    if not cell_set:
        return []
    dim = len(next(iter(cell_set)))
    extent = [max(c[k] for c in cell_set) - min(c[k] for c in cell_set) for k in range(dim)]
    axes = sorted(range(dim), key=lambda k: (-extent[k], k))
    return sorted(cell_set, key=lambda cell: tuple(cell[k] for k in axes))


def packing_cover(cells: Iterable[Cell], pieces: Sequence[PieceKind], grid: Grid) -> ExactCover:
    """The cells (in scan order), then the pieces; an option is a placement's cells, then
    its piece."""
    cell_list = scan_order(cells)
    cover = ExactCover(items=[Item(cell_name(cell), cell=cell) for cell in cell_list],
                       grid=grid.name)
    cell_index = {rc: i for i, rc in enumerate(cell_list)}
    for kind in pieces:
        piece_item = len(cover.items)
        cover.items.append(Item(kind.name, kind.count if kind.low is None else kind.low,
                                kind.count))
        for placement in placements(kind.name, kind.orientations, cell_list, grid):
            cover.options.append((*(cell_index[rc] for rc in placement.cells), piece_item))
            cover.placements.append(placement)
    return cover


def sweep_cover(cells: Iterable[Cell], pieces: Sequence[PieceKind],
                groups: dict[str, list[Cell]], grid: Grid) -> tuple[ExactCover, list[int]]:
    """packing_cover with a slack item per group and a slack option per label after."""
    cover = packing_cover(cells, pieces, grid)
    cell_index = {it.cell: i for i, it in enumerate(cover.items) if it.cell is not None}
    slack_items = []
    for group, label_cells in groups.items():
        item = len(cover.items)
        cover.items.append(Item(group, kind=ItemKind.SLACK))
        slack_items.append(item)
        for rc in label_cells:
            cover.options.append((cell_index[rc], item))
            cover.placements.append(Placement(group, (rc,), OptionKind.SLACK))
    return cover, slack_items


def scan_fixed_groups(cells: Iterable[Cell], groups: dict[str, list[Cell]]) -> tuple[str, ...]:
    """The one group passed first among those leaving at most MAX_TALLY combinations, else
    the leading groups that do."""
    names = list(groups)
    sizes = [len(groups[g]) for g in names]
    rank = {cell: k for k, cell in enumerate(scan_order(cells))}
    fits = [k for k in range(len(names)) if math.prod(sizes[:k] + sizes[k + 1:]) <= MAX_TALLY]
    if not fits:
        k = 1
        while k < len(sizes) and math.prod(sizes[k:]) > MAX_TALLY:
            k += 1
        return tuple(names[:k])
    passed = {k: max(rank[cell] for cell in groups[names[k]]) for k in fits}
    return (names[min(fits, key=lambda k: (passed[k], k))],)
