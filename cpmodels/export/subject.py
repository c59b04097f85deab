"""What is exported: one packing puzzle (its exact cover) or one towers board, with the
variables every format shares.

Every format numbers the same 0-1 variables the same way, so a solver's answer in any of them
decodes through one table:

* a packing puzzle: variable ``j`` (``x{j}`` by name) is option ``j - 1`` of the exact cover,
  one placement of one piece; DIMACS adds the auxiliary variables of its cardinality
  encoding after them;
* a towers board of R x C cells and K colours: variable ``(r * C + c) * K + k + 1`` says cell
  ``(r, c)`` holds colour ``k``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cpmodels.cover import ExactCover
from cpmodels.instance import PackingInstance
from cpmodels.towers import TowersProblem


@dataclass(frozen=True)
class Subject:
    """One puzzle to export: a packing ``instance`` or a towers ``problem`` (one is None)."""

    instance: PackingInstance | None = None
    problem: TowersProblem | None = None

    @property
    def is_towers(self) -> bool:
        return self.problem is not None

    @property
    def cover(self) -> ExactCover:
        assert self.instance is not None
        return self.instance.cover

    @property
    def towers(self) -> TowersProblem:
        assert self.problem is not None
        return self.problem

    def describe(self) -> str:
        """``calendar_week Jun 7 Tue`` or ``towers 4x4``."""
        if self.problem is not None:
            return f"{self.problem.name} {self.problem.rows}x{self.problem.cols}"
        assert self.instance is not None
        return self.instance.query.describe()

    @property
    def n_vars(self) -> int:
        """The decision variables (placements, or cell-colour pairs)."""
        if self.problem is not None:
            p = self.problem
            return p.rows * p.cols * len(p.colours)
        return len(self.cover.options)

    @property
    def time_bits(self) -> int:
        """Towers under the build-order rule: bits of a cell's time in the 0-1 programme."""
        return max(1, (self.towers.rows * self.towers.cols - 1).bit_length())

    @property
    def n_all(self) -> int:
        """Every variable of the 0-1 programme: the decision variables, then under the
        build-order rule each cell's time in bits, which of two neighbours is built first
        (one a pair), and which need a neighbour lends (``linear.py``)."""
        if self.problem is None or not self.problem.when_built:
            return self.n_vars
        p = self.problem
        cells = p.rows * p.cols
        pairs = p.rows * (p.cols - 1) + p.cols * (p.rows - 1)
        return self.n_vars + cells * self.time_bits + pairs + 2 * pairs * (len(p.colours) - 1)

    def var(self, r: int, c: int, k: int) -> int:
        """Towers: the variable (from 1) of colour ``k`` at ``(r, c)``."""
        return (r * self.towers.cols + c) * len(self.towers.colours) + k + 1

    def meaning(self, v: int) -> str:
        """What variable ``v`` (from 1) stands for, in words."""
        if self.problem is not None:
            k = (v - 1) % len(self.problem.colours)
            cell = (v - 1) // len(self.problem.colours)
            colour = self.problem.colours[k]
            return (f"row {cell // self.problem.cols} column {cell % self.problem.cols} holds "
                    f"{colour.letter} ({colour.name})")
        placement = self.cover.placements[v - 1]
        cells = " ".join(self.cover.items[i].name for i in self.cover.options[v - 1]
                         if self.cover.items[i].cell is not None)
        return f"{placement.piece} on {cells}" if cells else f"{placement.piece} left out"

    def grid_of(self, true_vars: Sequence[int]) -> list[str]:
        """Towers: the board the true variables draw (a refused board raises ValueError)."""
        p = self.towers
        k_count = len(p.colours)
        held: dict[tuple[int, int], int] = {}
        for v in true_vars:
            cell, k = divmod(v - 1, k_count)
            r, c = divmod(cell, p.cols)
            if (r, c) in held:
                raise ValueError(f"row {r} column {c} holds two towers: "
                                 f"{p.colours[held[r, c]].letter} and {p.colours[k].letter}")
            held[r, c] = k
        rows = []
        for r in range(p.rows):
            row = ""
            for c in range(p.cols):
                if (r, c) in held:
                    row += p.colours[held[r, c]].letter
                elif p.allow_empty:
                    row += p.empty_letter
                else:
                    raise ValueError(f"row {r} column {c} holds no tower (every cell needs one)")
            rows.append(row)
        return rows


def cover_faults(cover: ExactCover, chosen: Sequence[int]) -> list[str]:
    """Every item covered too few or too many times by ``chosen`` options, in words."""
    counts = [0] * len(cover.items)
    for j in chosen:
        for i in cover.options[j]:
            counts[i] += 1
    faults = []
    for item, n in zip(cover.items, counts):
        if item.low <= n <= item.high:
            continue
        what = f"cell {item.name}" if item.cell is not None else f"piece {item.name}"
        times = "once" if item.low == item.high == 1 else (
            f"{item.low} times" if item.low == item.high else f"{item.low} to {item.high} times")
        verb = "covered" if item.cell is not None else "placed"
        used = f"not {verb}" if n == 0 else f"{verb} " + ("once" if n == 1 else f"{n} times")
        faults.append(f"{what} is {used} (it must be {verb} {times})")
    return faults
