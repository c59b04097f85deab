"""The game's build-order rule (``rules: when-built``): which final cities some order of
building reaches, one such order, and its replay.

Under this rule a tower's needs are checked only when it is built, and a new tower may
replace an old one; only the final city is scored. The colours must form a chain (each
colour needs exactly the colours listed before it, as in the game), so colour ``k`` needs
``k`` neighbours.

A city is *orderable* when its cells can be put in an order (the order of their last
builds) such that every cell of colour ``k``, for each colour ``j < k`` it needs, has a
neighbour either earlier in the order holding ``j`` in the final city, or later in the
order, with at least ``j`` neighbours of its own, lent to that one need (a neighbour lends
to one need only). Every reachable city is orderable (docs/towers.md proves it; the
converse holds on every board checked, up to 12 cells), so the best orderable city bounds
the optimum; :func:`build_order` then finds an explicit order of
builds that reaches it, and :func:`replay` checks that order step by step.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cpmodels.errors import InputError

if TYPE_CHECKING:  # problem.py imports this module for its checks
    from cpmodels.towers.problem import TowersProblem

Step = tuple[int, int, str]  # (row, column, letter): build that colour there

#: Cap on the recursive search for the temporary towers one build needs.
SEARCH_NODES = 20_000
#: Orders of last builds tried (the first peels in reading order, the rest at random).
ATTEMPTS = 200
#: Cap on the whole search for one city's builds, over every order tried.
TOTAL_NODES = 2_000_000


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


def _neighbours(problem: TowersProblem) -> list[list[int]]:
    cols = problem.cols
    return [[nr * cols + nc for nr, nc in problem.neighbours(r, c)]
            for r in range(problem.rows) for c in range(cols)]


def _codes(problem: TowersProblem, grid: Sequence[str]) -> list[int]:
    letters = {col.letter: k for k, col in enumerate(problem.colours)}
    return [letters[ch] for row in grid for ch in row]


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
    codes = _codes(problem, grid)
    around = _neighbours(problem)
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
    codes = _codes(problem, grid)
    around = _neighbours(problem)
    bad = [f"{problem.colours[k].name} at ({v // problem.cols},{v % problem.cols}) has "
           f"{len(around[v])} neighbours but needs {k} colours"
           for v, k in enumerate(codes) if k > len(around[v])]
    if bad:
        return bad
    if last_build_order(problem, grid) is None:
        return ["no order of building reaches this city (the towers left after peeling "
                "every possible last build each lack a needed neighbour)"]
    return []


def replay(problem: TowersProblem, order: Sequence[Step]) -> list[str]:
    """The city ``order`` builds from an empty board; InputError on the first illegal step."""
    rows, cols = problem.rows, problem.cols
    letters = {col.letter: k for k, col in enumerate(problem.colours)}
    board: list[int] = [-1] * (rows * cols)
    around = _neighbours(problem)
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
        self.around = _neighbours(problem)
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
    codes = _codes(problem, grid)
    builder = _Builder(problem)
    for v in order:
        builder.nodes = 0
        if builder.total > budget or not builder.build(v, codes[v], frozenset()):
            return None, builder.total
        builder.final[v] = True
    cols = problem.cols
    return ([(v // cols, v % cols, problem.colours[k].letter) for v, k in builder.steps],
            builder.total)
