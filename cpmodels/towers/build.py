"""The game's build-order rule (``rules: when-built``): an explicit order of builds from an
empty board that reaches a city, and its replay, step by step. Which cities are orderable
(so may be reached), and the rule's checks, are the problem's (``problem.py``): a city
:func:`~cpmodels.towers.problem.last_build_order` shows orderable is where
:func:`build_order` starts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from cpmodels.errors import InputError
from cpmodels.towers.problem import TowersProblem, last_build_order

Step = tuple[int, int, str]  # (row, column, letter): build that colour there

#: Cap on the recursive search for the temporary towers one build needs.
SEARCH_NODES = 20_000
#: Orders of last builds tried (the first peels in reading order, the rest at random).
ATTEMPTS = 200
#: Cap on the whole search for one city's builds, over every order tried.
TOTAL_NODES = 2_000_000


def replay(problem: TowersProblem, order: Sequence[Step]) -> list[str]:
    """The city ``order`` builds from an empty board; InputError on the first illegal step."""
    rows, cols = problem.rows, problem.cols
    letters = {col.letter: k for k, col in enumerate(problem.colours)}
    board: list[int] = [-1] * (rows * cols)
    around = problem.cell_neighbours()
    for i, step in enumerate(order):
        if not isinstance(step, (list, tuple)) or len(step) != 3:
            raise InputError(f"step {i + 1}: not [row, column, letter]")
        r, c, letter = step
        if not (isinstance(r, int) and isinstance(c, int) and 0 <= r < rows and 0 <= c < cols):
            raise InputError(f"step {i + 1}: ({r},{c}) is off the {rows}x{cols} board")
        if letter not in letters:
            raise InputError(f"step {i + 1}: {letter!r} is not a colour")
        k = letters[letter]
        held = {board[u] for u in around[r * cols + c]}
        lacking = [problem.colours[j].name for j in problem.colours[k].needs if j not in held]
        if lacking:
            raise InputError(f"step {i + 1}: {problem.colours[k].name} at ({r},{c}) lacks "
                             f"{', '.join(lacking)}")
        board[r * cols + c] = k
    if -1 in board:
        v = board.index(-1)
        raise InputError(f"the order leaves ({v // cols},{v % cols}) empty")
    return ["".join(problem.colours[board[r * cols + c]].letter for c in range(cols))
            for r in range(rows)]


class _Builder:
    """Builds a city cell by cell in an orderable order, setting up the temporary towers
    each build needs on cells still to be built (a bounded depth-first search)."""

    def __init__(self, problem: TowersProblem) -> None:
        self.around = problem.cell_neighbours()
        self.board: list[int] = [-1] * (problem.rows * problem.cols)
        self.final = [False] * len(self.board)  # built for the last time: never touched
        self.steps: list[tuple[int, int]] = []
        self.before: list[int] = []  # what each step replaced, to take it back
        self.nodes = 0  # nodes searched for the current cell
        self.total = 0  # and for the whole city

    def build(self, v: int, k: int, kept: frozenset[int]) -> bool:
        """Make cell ``v`` hold colour ``k`` without touching the final cells and the cells
        ``kept``; the board is left as it was when this fails."""
        if self.board[v] == k:
            return True
        self.nodes += 1
        self.total += 1
        if self.nodes > SEARCH_NODES or not self._supply(v, list(range(k)), kept):
            return False
        self.before.append(self.board[v])
        self.board[v] = k
        self.steps.append((v, k))
        return True

    def _rewind(self, mark: int) -> None:
        while len(self.steps) > mark:
            v, _ = self.steps.pop()
            self.board[v] = self.before.pop()

    def _supply(self, v: int, needs: list[int], kept: frozenset[int]) -> bool:
        """Give ``v`` a neighbour of each colour in ``needs`` (highest first), keeping the
        neighbours already chosen."""
        if not needs:
            return True
        j, rest = needs[-1], needs[:-1]
        around = self.around[v]
        for u in around:  # a neighbour holding it already
            if self.board[u] == j and self._supply(v, rest, kept | {u}):
                return True
        for u in around:  # else a neighbour not kept, built for the purpose (``v`` itself
            # may stand in for what that build needs: it is built after)
            if self.final[u] or u in kept or self.board[u] == j or len(self.around[u]) < j:
                continue
            mark = len(self.steps)
            if self.build(u, j, kept) and self._supply(v, rest, kept | {u}):
                return True
            self._rewind(mark)
        return False


def build_order(problem: TowersProblem, grid: Sequence[str],
                cells: Sequence[int] | None = None) -> list[Step] | None:
    """An order of builds from an empty board that ends in ``grid``, each tower's needs met
    when it is built (None when the search finds none). ``cells`` is an order of the last
    builds to try first; then the orders :func:`last_build_order` peels (seeded, so the
    answer is the same on every run)."""
    rng = random.Random(0)
    orders = [list(cells)] if cells is not None else []
    spent = 0
    for attempt in range(ATTEMPTS):
        if attempt >= len(orders):
            order = last_build_order(problem, grid, rng if attempt else None)
            if order is None:
                return None
            orders.append(order)
        steps, nodes = _follow(problem, grid, orders[attempt], TOTAL_NODES - spent)
        if steps is not None:
            return steps
        spent += nodes
        if spent >= TOTAL_NODES:
            break
    return None


def _follow(problem: TowersProblem, grid: Sequence[str], order: list[int],
            budget: int) -> tuple[list[Step] | None, int]:
    """The builds that make each cell of ``order`` its final colour in turn (None if the
    search finds none within ``budget`` nodes), and the nodes it searched."""
    codes = problem.colour_codes(grid)
    builder = _Builder(problem)
    for v in order:
        builder.nodes = 0
        if builder.total > budget or not builder.build(v, codes[v], frozenset()):
            return None, builder.total
        builder.final[v] = True
    cols = problem.cols
    return ([(v // cols, v % cols, problem.colours[k].letter) for v, k in builder.steps],
            builder.total)
