"""The exact-cover problem: the one representation every packing backend consumes.

Items are the things to cover (board cells, pieces); an item is covered between ``low`` and
``high`` times (1..1 for a board cell, ``count``..``count`` for a piece with several copies,
0..1 for a secondary item). Options are the placements; choosing an option covers each of
its items once. A solution is a set of options that covers every item within its bounds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from types import ModuleType

from cpmodels.errors import TooLargeError
from cpmodels.geometry import SQUARE, OptionKind, Placement
from cpmodels.grids import GRID_NAMES, Cell, Grid

# Past this many placements a problem is refused before any is made. CP-SAT (8 workers)
# takes about 10 KB a placement: 1.6 GB for a 50 x 50 board of pentominoes (110,000), 4.6 GB
# for 100 x 100 (450,000), and it exhausted 24 GB on 200 x 200 (1.76 million).
MAX_PLACEMENTS = 500_000


class ItemKind(IntEnum):
    """What an item of an exact cover stands for."""

    CELL = 0  # a board cell
    PIECE = 1  # a piece (its copies)
    SLACK = 2  # a label group: the one label of it left open


@dataclass(frozen=True)
class Item:
    """Something to cover: ``low`` to ``high`` times (``low == 0`` makes it secondary)."""

    name: str
    low: int = 1
    high: int = 1
    cell: Cell | None = None  # the board cell this item stands for, if any
    kind: ItemKind = ItemKind.PIECE  # CELL whenever ``cell`` is given

    def __post_init__(self) -> None:
        if self.cell is not None:
            object.__setattr__(self, "kind", ItemKind.CELL)


@dataclass
class ExactCover:
    """Items, options (tuples of item indices) and the placement each option stands for.

    ``grid`` names the grid of the cell items (:mod:`cpmodels.grids`): which cells are
    neighbours, for the engine's region pruning, and which maps are symmetries.
    """

    items: list[Item] = field(default_factory=list)
    options: list[tuple[int, ...]] = field(default_factory=list)
    placements: list[Placement] = field(default_factory=list)
    grid: str = "square"

    def item_options(self) -> list[list[int]]:
        """For each item, the indices of the options that cover it."""
        by_item: list[list[int]] = [[] for _ in self.items]
        for j, option in enumerate(self.options):
            for i in option:
                by_item[i].append(j)
        return by_item

    def decode(self, chosen: Iterable[int]) -> list[Placement]:
        """The placements of the chosen option indices, sorted by piece then cells."""
        return sorted(self.placements[j] for j in chosen)

    def is_solution(self, chosen: Sequence[int]) -> bool:
        """Check a set of option indices against every item's bounds."""
        counts = [0] * len(self.items)
        for j in chosen:
            for i in self.options[j]:
                counts[i] += 1
        return all(it.low <= n <= it.high for it, n in zip(self.items, counts))


@dataclass(frozen=True)
class PieceKind:
    """A piece as the cover sees it: its name, its distinct orientations and how many copies
    (``count``, at most; ``low`` at least, when it may be used fewer times)."""

    name: str
    orientations: tuple[frozenset[Cell], ...]
    count: int = 1
    low: int | None = None  # None: exactly ``count``


def scan_order(cells: Iterable[Cell]) -> list[Cell]:
    """Cells in reading order along the board's shorter side (column by column when the board
    is wider than tall), the order in which a "first empty cell" search fills them, each
    once: the order of a cover's cell items.

    In the plane and in space: the axis with the longest extent varies slowest, the
    shortest fastest (ties in axis order). The engine core orders them, as it does a
    cover's cells (a cell of another length is refused, ValueError).
    """
    cell_list = list(cells)
    if not cell_list:
        return []
    grid = "cube" if len(cell_list[0]) == 3 else "square"
    ordered: list[Cell] = _native().sweep_cover(GRID_NAMES.index(grid), cell_list, [], [], 0)[0]
    return ordered


def cell_name(cell: Cell) -> str:
    """An item's name for a board cell: ``r2c5`` in the plane, ``x1y0z2`` in space."""
    if len(cell) == 3:
        return "x{}y{}z{}".format(*cell)
    return "r{}c{}".format(*cell)


def check_placement_count(n_cells: int, pieces: Sequence[PieceKind]) -> None:
    """Refuse a problem whose placements could pass :data:`MAX_PLACEMENTS`, with the figure.

    The bound is one placement per orientation per board cell, known before any is made.
    """
    orientations = sum(len(kind.orientations) for kind in pieces)
    bound = orientations * n_cells
    if bound > MAX_PLACEMENTS:
        raise TooLargeError(
            f"the problem is too large: up to {bound:,} placements ({orientations} piece "
            f"orientations x {n_cells:,} cells); the limit is {MAX_PLACEMENTS:,}. Use a "
            "smaller board or fewer distinct pieces")


def packing_cover(cells: Iterable[Cell], pieces: Sequence[PieceKind],
                  grid: Grid = SQUARE) -> ExactCover:
    """Compile "fill exactly these cells with exactly these pieces" into an exact cover.

    Items are the cells (each covered once, in :func:`scan_order`) followed by the pieces (each
    covered ``count`` times); an option is one placement: its cells, then its piece. The
    engine core assembles it (``cpcore/sweep_cover.hpp``, the code the browser runs too).
    """
    return assemble_cover(cells, pieces, {}, grid).cover


@dataclass
class AssembledCover:
    """A board's exact cover with a slack item per label group, as the engine core makes it:
    the cover, the groups' slack items, and the indices of the groups a sweep's tasks fix
    (the group whose cells the search passes first among those leaving at most 512
    combinations to tally, else the leading groups that do)."""

    cover: ExactCover
    slack_items: list[int]
    fixed: tuple[int, ...]


def assemble_cover(cells: Iterable[Cell], pieces: Sequence[PieceKind],
                   groups: Mapping[str, Sequence[Cell]], grid: Grid = SQUARE,
                   left_out: Sequence[int] = ()) -> AssembledCover:
    """The exact cover of :func:`packing_cover` followed by one slack item per label group
    (``groups``: each group's labels' cells, in order), covered by one slack option per
    label (its cell, then the group's slack item) after the placements; then, in piece
    order, a left-out option (its piece's item alone) for each piece ``left_out`` names
    (indices into ``pieces``: a design's optional pieces). Refused: a problem past
    :data:`MAX_PLACEMENTS` (TooLargeError), a label off the board (ValueError)."""
    cell_list = list(cells)
    check_placement_count(len(set(cell_list)), pieces)
    made = _native().sweep_cover(
        GRID_NAMES.index(grid.name), cell_list,
        [(kind.orientations, kind.count if kind.low is None else kind.low, kind.count)
         for kind in pieces],
        list(groups.values()), MAX_PLACEMENTS, list(left_out))
    scan, item_rows, options, option_cells, option_kinds, owners, fixed = made
    n_cells, n_pieces = len(scan), len(pieces)
    group_names = list(groups)
    items = [Item(cell_name(cell), cell=cell) for cell in scan]
    items += [Item(kind.name, low, high) for kind, (_, low, high)
              in zip(pieces, item_rows[n_cells:n_cells + n_pieces])]
    items += [Item(name, low, high, kind=ItemKind.SLACK) for name, (_, low, high)
              in zip(group_names, item_rows[n_cells + n_pieces:])]
    names = ([kind.name for kind in pieces], group_names, [kind.name for kind in pieces])
    kinds = (OptionKind.PIECE, OptionKind.SLACK, OptionKind.LEFT_OUT)
    placements = [Placement(names[kind][owner], at, kinds[kind]) for at, kind, owner
                  in zip(option_cells, option_kinds, owners)]
    cover = ExactCover(items=items, options=options, placements=placements, grid=grid.name)
    return AssembledCover(cover, list(range(n_cells + n_pieces, len(items))), tuple(fixed))


def _native() -> ModuleType:
    """The compiled core, loaded when a cover is first made."""
    import cpmodels._native as native
    return native
