"""Better boards past the programme's width: re-solve windows of rows exactly.

A window is a few whole rows of a legal board (or, the board transposed, columns). The
programme (``programme.py``) finds the best letters for it with the rest of the board kept:
the two rows either side of the window are built cells, the nearer ones scoring and
needing as usual (their needs are met or not by the window's new letters), the farther
ones scoring nothing and needing nothing (their own neighbours do not change). So the
window's answer is the best board that agrees with the old one outside the window, and a
window of h rows is a board of at most h + 4 rows, solved along that side: four rows cost
a few hundredths of a second on a 10-wide board of five colours. :func:`polish` slides the
windows over the rows and columns until none improves the board.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from cpmodels.towers.problem import TowersProblem
from cpmodels.towers.programme import max_width, solve_dp

WINDOW_ROWS = 4  # rows (or columns) re-solved at once: with their four neighbours, 8 wide


def transposed(board: Sequence[str]) -> list[str]:
    """The board with rows and columns swapped."""
    return ["".join(row[c] for row in board) for c in range(len(board[0]))] if board else []


def turned(problem: TowersProblem) -> TowersProblem:
    """The problem on the board with rows and columns swapped (its built cells too)."""
    return replace(problem, rows=problem.cols, cols=problem.rows,
                   fixed=tuple(((c, r), k) for (r, c), k in problem.fixed))


def window_height(problem: TowersProblem) -> int:
    """The most rows :func:`best_window` re-solves at once: the window and the two rows
    either side of it must fit the programme's width (0: not even one row fits)."""
    return max(0, min(WINDOW_ROWS, max_width(problem) - 4))


def best_window(problem: TowersProblem, board: Sequence[str], first: int, height: int,
                *, deadline: float | None = None) -> list[str] | None:
    """The best board equal to ``board`` outside rows ``first .. first + height - 1`` (the
    window must fit :func:`window_height`); None when the programme did not finish or no
    letters of the window make the rows next to it legal. Built cells of the problem stay
    as they are."""
    rows, cols = problem.rows, problem.cols
    if not 0 <= first < first + height <= rows:
        raise ValueError(f"rows {first} to {first + height - 1} are not a window of "
                         f"a {rows}-row board")
    top, bottom = max(0, first - 2), min(rows - 1, first + height + 1)
    tall = bottom - top + 1
    if min(tall, cols) > max_width(problem):
        raise ValueError(f"a window of {height} rows is too tall for the programme")
    code = {c.letter: k for k, c in enumerate(problem.colours)}
    code[problem.empty_letter] = -1
    built = dict(problem.fixed)
    fixed = [((r - top, c), code[board[r][c]]) for r in range(top, bottom + 1)
             if not first <= r < first + height for c in range(cols)]
    fixed += [((r - top, c), k) for (r, c), k in built.items()
              if first <= r < first + height]
    helpers = frozenset(([0] if first >= 2 else [])
                        + ([tall - 1] if first + height + 1 < rows else []))
    part = TowersProblem(problem.name, tall, cols, problem.colours, problem.allow_empty,
                         problem.empty_letter, tuple(fixed))
    found = solve_dp(part, deadline=deadline, board=True, helpers=helpers)
    if not found.finished or found.grid is None:
        return None
    return [*board[:top], *found.grid, *board[bottom + 1:]]


def polish(problem: TowersProblem, board: Sequence[str], *,
           deadline: float | None = None) -> list[str]:
    """A board at least as good as the legal ``board``: every window of
    :func:`window_height` rows, then of as many columns, re-solved by :func:`best_window`,
    until a whole round improves nothing (or ``deadline``, a ``time.perf_counter`` value,
    passes)."""
    best = list(board)
    if window_height(problem) == 0 or problem.violations(best):
        return best
    score = problem.score(best)
    improved = True
    while improved:
        improved = False
        for side, across in ((problem, False), (turned(problem), True)):
            height = min(window_height(side), side.rows)
            for first in range(side.rows - height + 1):
                if deadline is not None and time.perf_counter() > deadline:
                    return best
                seen = transposed(best) if across else best
                found = best_window(side, seen, first, height, deadline=deadline)
                if found is None:
                    continue
                found = transposed(found) if across else found
                if problem.score(found) > score and not problem.violations(found):
                    best, score, improved = found, problem.score(found), True
    return best
