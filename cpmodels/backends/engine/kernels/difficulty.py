"""How hard one date is for a person: the work of a plain backtracker before its first solution.

A count says how many solutions a date has, not how hard one is to find: two dates with the
same count can differ several times over in the trying a person does before the pieces go
in. The measure here models that trying (``docs/difficulty.md`` says what was measured to
choose it): a *plain backtracker* fills the first empty cell in reading order, trying the
pieces in a fixed order and each piece's placements that cover that cell, and backs up on a
dead end; it makes no other deduction. Its *nodes* are the placements it puts down before
the board is full. A person has no fixed piece order, so the measure is the mean over
:data:`ORDERS` piece orders: the expected effort of a searcher who picks an order at
random. The orders are drawn from the pieces' names with a fixed seed, so every date, every
run and every cover holding the same pieces (a sweep's, a design's) use the same orders.

The search reads the exact cover alone (the one representation of every packing problem):
cell items are filled in reading order, every other item is a counter an option uses up
(a piece's copies; a label group's slack item, which a forced hole option has used). The
compiled search is :func:`_first_solution_nodes` (``cpmodels/_core/src/difficulty.cpp``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cpmodels._native as _native
from cpmodels.cover import ExactCover, scan_order
from cpmodels.errors import OutOfTime

if TYPE_CHECKING:
    import numpy as np

ORDERS = 16  # piece orders a difficulty is taken over
SEED = 20240601  # the orders' seed: the same orders for every date and every run
MAX_NODES = 2_000_000  # nodes one order may spend; past it, that order counts as this many


@dataclass(frozen=True)
class Difficulty:
    """A date's difficulty: the mean of the nodes over the piece orders (``score``,
    rounded), with the fewest and most nodes of one order, and how many orders hit the
    node limit (each counted as the limit)."""

    score: int
    fewest: int
    most: int
    capped: int = 0


@dataclass(frozen=True)
class Backtracker:
    """A cover laid out for the plain search, with its piece orders; read-only once made,
    so threads share one.

    Cells are numbered in reading order (:func:`~cpmodels.cover.scan_order`); every other
    item is a *counter* with a capacity (its ``high``): a piece's copies, a slack item. An
    option that covers a cell is filed under its first cell in reading order (the only one
    of its cells that can be the first empty cell when it goes down) and belongs to its
    first counter, its piece; each piece order files the options under each cell by their
    piece's place in the order (``start``/``listed``, one CSR pair per order).
    """

    n_cells: int
    capacity: np.ndarray  # counter -> how many options may cover it
    low: np.ndarray  # counter -> how many must
    cells: np.ndarray  # option o's cell numbers: cells[cells_start[o]:cells_start[o + 1]]
    cells_start: np.ndarray
    counters: np.ndarray  # option o's counters, the same way
    counters_start: np.ndarray
    start: tuple[np.ndarray, ...]  # per order: where each cell's options begin in listed
    listed: tuple[np.ndarray, ...]  # per order: the options filed by cell, then piece rank

    @classmethod
    def of(cls, cover: ExactCover, orders: int = ORDERS, seed: int = SEED) -> Backtracker:
        """Lay ``cover`` out for ``orders`` seeded piece orders (the same for every call)."""
        import numpy as np

        if orders < 1:
            raise ValueError("a difficulty needs at least one piece order")
        cells = [it.cell for it in cover.items if it.cell is not None]
        rank_of = {cell: k for k, cell in enumerate(scan_order(cells))}
        cell_rank = np.full(len(cover.items), -1, np.int64)
        counter_of = np.full(len(cover.items), -1, np.int64)
        capacity: list[int] = []
        low: list[int] = []
        names: list[str] = []
        for i, item in enumerate(cover.items):
            if item.cell is not None:
                cell_rank[i] = rank_of[item.cell]
            else:
                counter_of[i] = len(capacity)
                capacity.append(item.high)
                low.append(item.low)
                names.append(item.name)
        option_cells = [np.array(sorted(cell_rank[i] for i in option if cell_rank[i] >= 0),
                                 np.int64) for option in cover.options]
        option_counters = [np.array([counter_of[i] for i in option if counter_of[i] >= 0],
                                    np.int64) for option in cover.options]
        anchor = np.array([c[0] if len(c) else -1 for c in option_cells], np.int64)
        piece = np.array([c[0] if len(c) else -1 for c in option_counters], np.int64)
        usable = np.flatnonzero(anchor >= 0)
        starts, listed = [], []
        for k in range(orders):
            rank = _piece_order(names, seed, k)
            key = np.where(piece[usable] >= 0, rank[np.maximum(piece[usable], 0)], -1)
            order = usable[np.lexsort((usable, key, anchor[usable]))]
            starts.append(np.searchsorted(anchor[order], np.arange(len(cells) + 1))
                          .astype(np.int64))
            listed.append(order.astype(np.int64))
        flat_cells, cells_start = _flatten(option_cells)
        flat_counters, counters_start = _flatten(option_counters)
        for start, order in zip(starts, listed):  # once, so that no search need check it
            _native.check_backtracker(len(cells), len(capacity), start, order, flat_cells,
                                      cells_start, flat_counters, counters_start)
        return cls(len(cells), np.array(capacity, np.int64), np.array(low, np.int64),
                   flat_cells, cells_start, flat_counters, counters_start, tuple(starts),
                   tuple(listed))

    def nodes(self, forced: Sequence[int] = (), max_nodes: int = MAX_NODES,
              stop: np.ndarray | None = None) -> list[int] | None:
        """Nodes to the first solution with the ``forced`` options down, one figure per
        piece order (an order past ``max_nodes`` counts as that many); None when there is no
        solution (the first order then searched the whole tree, so no other is run).
        ``stop``: a flag another thread may set (OutOfTime once a search sees it)."""
        import numpy as np

        flag = np.zeros(1, np.int64) if stop is None else stop
        filled = np.zeros(self.n_cells, np.uint8)
        used = np.zeros(len(self.capacity), np.int64)
        for o in forced:
            filled[self.cells[self.cells_start[o]:self.cells_start[o + 1]]] += 1
            np.add.at(used, self.counters[self.counters_start[o]:self.counters_start[o + 1]], 1)
        if filled.max(initial=0) > 1 or np.any(used > self.capacity):
            return None  # the forced options clash
        out = []
        for start, listed in zip(self.start, self.listed):
            n = _first_solution_nodes(self.n_cells, filled, used, self.capacity, self.low,
                                      start, listed, self.cells, self.cells_start,
                                      self.counters, self.counters_start, max_nodes, flag)
            if n == STOPPED:
                raise OutOfTime("the difficulty search was stopped")
            if n == NO_SOLUTION:
                return None
            out.append(max_nodes if n == CAPPED else n)
        return out

    def difficulty(self, forced: Sequence[int] = (), max_nodes: int = MAX_NODES
                   ) -> Difficulty | None:
        """The :class:`Difficulty` with the ``forced`` options down (None: no solution)."""
        nodes = self.nodes(forced, max_nodes)
        if nodes is None:
            return None
        return Difficulty(round(sum(nodes) / len(nodes)), min(nodes), max(nodes),
                          sum(n >= max_nodes for n in nodes))


def _piece_order(names: Sequence[str], seed: int, k: int) -> np.ndarray:
    """Order ``k``: a rank per counter, drawn from the pieces' names, so a piece set's
    order is the same in every cover that holds it (a design's, a sweep's, one date's)."""
    import numpy as np

    keys = [(hashlib.blake2b(f"{seed}/{k}/{name}".encode(), digest_size=8).digest(), i)
            for i, name in enumerate(names)]
    rank = np.empty(len(names), np.int64)
    for position, (_, i) in enumerate(sorted(keys)):
        rank[i] = position
    return rank


def _flatten(arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    start = np.zeros(len(arrays) + 1, np.int64)
    start[1:] = np.cumsum([len(a) for a in arrays])
    flat = np.concatenate(arrays) if arrays else np.zeros(0, np.int64)
    return flat.astype(np.int64), start


NO_SOLUTION = _native.NO_SOLUTION  # the core's statuses (entry.h)
CAPPED = _native.CAPPED
STOPPED = _native.STOPPED


def _first_solution_nodes(n_cells: int, filled0: np.ndarray, used0: np.ndarray,
                          capacity: np.ndarray, low: np.ndarray, start: np.ndarray,
                          listed: np.ndarray, cells: np.ndarray, cells_start: np.ndarray,
                          counters: np.ndarray, counters_start: np.ndarray,
                          max_nodes: int, stop: np.ndarray) -> int:
    """Placements a first-empty-cell backtracker puts down up to its first solution;
    :data:`CAPPED` past ``max_nodes``, :data:`NO_SOLUTION` when it exhausts the tree,
    :data:`STOPPED` once ``stop[0]`` is set.
    Compiled (``cpmodels/_core/src/difficulty.cpp``) for a layout :meth:`Backtracker.of`
    has checked; it releases the GIL while it searches."""
    return _native.first_solution_nodes(n_cells, filled0, used0, capacity, low, start,
                                        listed, cells, cells_start, counters,
                                        counters_start, max_nodes, stop)
