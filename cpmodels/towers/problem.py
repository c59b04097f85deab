"""The towers grid problem, independent of any solver: colours, rules and scoring.

Under the build-order rule (``rules: when-built``) a tower's needs are checked only when it
is built, and a new tower may replace an old one; only the final city is scored. The
colours must form a chain (each colour needs exactly the colours listed before it, as in
the game), so colour ``k`` needs ``k`` neighbours.

A city is *orderable* when its cells can be put in an order (the order of their last
builds) such that every cell of colour ``k``, for each colour ``j < k`` it needs, has a
neighbour either earlier in the order holding ``j`` in the final city, or later in the
order, with at least ``j`` neighbours of its own, lent to that one need (a neighbour lends
to one need only). Every reachable city is orderable (docs/towers.md proves it; the
converse holds on every board checked, up to 12 cells), so the best orderable city bounds
the optimum; ``build.py`` finds an explicit order of builds that reaches it, and replays it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from math import gcd
from typing import TYPE_CHECKING

from cpmodels.errors import InputError
from cpmodels.spec.kinds import MAX_BOARD_SIDE, check_tower_choices

if TYPE_CHECKING:
    from cpmodels.spec.kinds import TowersKind


@dataclass(frozen=True)
class TowerColour:
    letter: str
    name: str
    points: int
    needs: tuple[int, ...]  # indices of the colours that must be among the neighbours


@dataclass(frozen=True)
class TowersProblem:
    """An R x C grid to fill with towers; a colour scores only with its needed neighbours."""

    name: str
    rows: int
    cols: int
    colours: tuple[TowerColour, ...]
    allow_empty: bool = False
    empty_letter: str = "."
    fixed: tuple[tuple[tuple[int, int], int], ...] = ()  # built cells: colour index, -1 empty
    rules: str = "always"  # or "when-built": needs checked when a tower is built

    @property
    def when_built(self) -> bool:
        return self.rules == "when-built"

    @property
    def codes(self) -> int:
        """What a cell can hold: each colour, then "empty" where empty cells are allowed."""
        return len(self.colours) + (1 if self.allow_empty else 0)

    def bound_from(self, total: int, scale: int = 1) -> int:
        """The most a board can score when it scores at most ``total / scale``: every board
        scores a multiple of the colours' points' common divisor, so round down to one."""
        step = 0
        for colour in self.colours:
            step = gcd(step, colour.points)
        step = step or 1
        return (total // scale) // step * step

    def neighbours(self, r: int, c: int) -> list[tuple[int, int]]:
        return [
            (r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < self.rows and 0 <= c + dc < self.cols
        ]

    def cell_neighbours(self) -> list[list[int]]:
        """Each cell's neighbours, the cells numbered ``r * cols + c``."""
        return [[nr * self.cols + nc for nr, nc in self.neighbours(r, c)]
                for r in range(self.rows) for c in range(self.cols)]

    def colour_codes(self, grid: Sequence[str]) -> list[int]:
        """Each cell's colour index, in reading order, of a board of colour letters."""
        letters = {col.letter: k for k, col in enumerate(self.colours)}
        return [letters[ch] for row in grid for ch in row]

    def violations(self, grid: Sequence[str]) -> list[str]:
        """Every broken rule of a board drawn one letter per cell (empty list: it is legal)."""
        if self.when_built:
            return orderable_violations(self, grid)
        problems: list[str] = []
        if len(grid) != self.rows or any(len(row) != self.cols for row in grid):
            return [f"the board is not {self.rows}x{self.cols}"]
        by_letter = {col.letter: col for col in self.colours}
        for (r, c), k in self.fixed:
            want = self.empty_letter if k < 0 else self.colours[k].letter
            if grid[r][c] != want:
                problems.append(f"({r},{c}) is built as {want!r} but holds {grid[r][c]!r}")
        for r, row in enumerate(grid):
            for c, letter in enumerate(row):
                if letter == self.empty_letter and self.allow_empty:
                    continue
                colour = by_letter.get(letter)
                if colour is None:
                    problems.append(f"({r},{c}) holds {letter!r}, not a colour")
                    continue
                around = {grid[nr][nc] for nr, nc in self.neighbours(r, c)}
                for need in colour.needs:
                    if self.colours[need].letter not in around:
                        problems.append(f"{colour.name} at ({r},{c}) has no "
                                        f"{self.colours[need].name} neighbour")
        return problems

    def score(self, grid: Sequence[str]) -> int:
        points = {col.letter: col.points for col in self.colours}
        return sum(points.get(letter, 0) for row in grid for letter in row)


def towers_problem(spec: TowersKind, rows: int | None = None,
                   cols: int | None = None) -> TowersProblem:
    """The problem a towers spec describes, at its own size or at ``rows`` x ``cols``."""
    names = [col.name for col in spec.colours]
    colours = tuple(
        TowerColour(col.letter, col.name, col.points, tuple(names.index(n) for n in col.needs))
        for col in spec.colours
    )
    rows, cols = rows or spec.rows, cols or spec.cols
    if not (1 <= rows <= MAX_BOARD_SIDE and 1 <= cols <= MAX_BOARD_SIDE):
        size = f"{rows}x{cols}" if max(abs(rows), abs(cols)) < 10**9 else "a huge size"
        raise InputError(f"a board of {size}: rows and columns must be 1 to {MAX_BOARD_SIDE}")
    why = check_tower_choices(rows, cols, len(colours) + spec.allow_empty)
    if why is not None:
        raise InputError(f"{spec.name}: {why}")
    fixed: list[tuple[tuple[int, int], int]] = []
    if spec.fixed is not None:
        if (rows, cols) != (spec.rows, spec.cols):
            raise InputError(f"{spec.name} has cells built on a {spec.rows}x{spec.cols} board; "
                             f"it cannot be solved at {rows}x{cols}")
        letters = {col.letter: k for k, col in enumerate(spec.colours)}
        letters[spec.empty_letter] = -1
        fixed = [((r, c), letters[ch]) for r, row in enumerate(spec.fixed)
                 for c, ch in enumerate(row) if ch != "?"]
    problem = TowersProblem(spec.name, rows, cols, colours, spec.allow_empty,
                            spec.empty_letter, tuple(fixed), spec.rules)
    if problem.when_built:
        check_chain(problem)
    return problem


def check_chain(problem: TowersProblem) -> None:
    """Refuse a puzzle the build-order rule is not worked out for, with a one-line reason."""
    for k, colour in enumerate(problem.colours):
        if sorted(colour.needs) != list(range(k)):
            raise InputError(
                "rules: when-built needs the colours to form a chain, each colour needing "
                f"exactly the colours listed before it ({colour.name} needs "
                f"{', '.join(problem.colours[j].name for j in colour.needs) or 'nothing'})")
    if problem.allow_empty or problem.fixed:
        raise InputError("rules: when-built does not take empty or already built cells")


def _lendable(missing: list[int], lenders: list[int]) -> bool:
    """Can the needs ``missing`` be lent by neighbours of ``lenders`` neighbours each, one
    need a neighbour (colour ``j`` needs a lender with at least ``j`` neighbours)?"""
    if len(missing) > len(lenders):
        return False
    return all(d >= j for j, d in zip(sorted(missing, reverse=True),
                                       sorted(lenders, reverse=True)))


def last_build_order(problem: TowersProblem, grid: Sequence[str],
                     rng: random.Random | None = None) -> list[int] | None:
    """Cells (``r * cols + c``) in an order that shows ``grid`` orderable, or None.

    Peels the city from its last build: a cell may come last among those left when its
    needs are met by the final colours of the neighbours left and by the neighbours already
    peeled (built after it) as lenders. Every tower has the neighbours its colour needs, so
    a peeled neighbour may lend its own colour or any other one: peeling a cell only helps
    the others, and peeling any cell that may go decides the question (in time linear in
    the cells). ``rng`` picks at random which cell that may go goes first."""
    codes = problem.colour_codes(grid)
    around = problem.cell_neighbours()
    if any(k > len(around[v]) for v, k in enumerate(codes)):
        return None
    left = [True] * len(codes)

    def may_go(v: int) -> bool:
        held = {codes[u] for u in around[v] if left[u]}
        return _lendable([j for j in range(codes[v]) if j not in held],
                         [len(around[u]) for u in around[v] if not left[u]])

    ready = [v for v in range(len(codes)) if may_go(v)]
    queued = set(ready)
    peeled: list[int] = []
    head = 0
    while head < len(ready):
        if rng is not None:  # swap a random cell still to go into the head's place
            pick = rng.randrange(head, len(ready))
            ready[head], ready[pick] = ready[pick], ready[head]
        v = ready[head]
        head += 1
        left[v] = False
        peeled.append(v)
        for u in around[v]:
            if left[u] and u not in queued and may_go(u):
                queued.add(u)
                ready.append(u)
    return None if len(peeled) < len(codes) else peeled[::-1]


def orderable_violations(problem: TowersProblem, grid: Sequence[str]) -> list[str]:
    """Why ``grid`` is no city the build-order rule reaches (empty: it is one)."""
    if len(grid) != problem.rows or any(len(row) != problem.cols for row in grid):
        return [f"the board is not {problem.rows}x{problem.cols}"]
    letters = {col.letter for col in problem.colours}
    bad = [f"({r},{c}) holds {ch!r}, not a colour" for r, row in enumerate(grid)
           for c, ch in enumerate(row) if ch not in letters]
    if bad:
        return bad
    codes = problem.colour_codes(grid)
    around = problem.cell_neighbours()
    bad = [f"{problem.colours[k].name} at ({v // problem.cols},{v % problem.cols}) has "
           f"{len(around[v])} neighbours but needs {k} colours"
           for v, k in enumerate(codes) if k > len(around[v])]
    if bad:
        return bad
    if last_build_order(problem, grid) is None:
        return ["no order of building reaches this city (the towers left after peeling "
                "every possible last build each lack a needed neighbour)"]
    return []
