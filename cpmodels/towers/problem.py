"""The towers grid problem, independent of any solver: colours, rules and scoring."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import gcd

from cpmodels.errors import InputError
from cpmodels.spec.base import MAX_BOARD_SIDE
from cpmodels.spec.models import TowersSpec
from cpmodels.spec.towers import check_tower_choices


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
    rules: str = "always"  # or "when-built": needs checked when a tower is built (build.py)

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

    def violations(self, grid: Sequence[str]) -> list[str]:
        """Every broken rule of a board drawn one letter per cell (empty list: it is legal)."""
        if self.when_built:
            from cpmodels.towers.build import orderable_violations

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


def towers_problem(spec: TowersSpec, rows: int | None = None,
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
        from cpmodels.towers.build import check_chain

        check_chain(problem)
    return problem
