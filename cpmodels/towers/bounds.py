"""Upper bounds on boards too wide for the programme to prove: bands of rows.

A band of a board's rows, its neighbouring rows free (any towers, scoring nothing and
needing nothing), is solved exactly by the programme (``programme.py``); no board scores
more on those rows. The board's rows cut into bands, the cut with the least sum, bound the
whole board (:func:`upper_bound`). :func:`rest_bounds` turns them into bounds on the cells
still to place (measured as pruning for the programme; see ``docs/towers.md``).
:func:`lagrangian_bound` charges the free rows instead of giving them away: two bands, each
with a copy of the other's boundary row, and prices on the copies found by subgradient
steps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from cpmodels.towers.certificate import corner_counts, priced_bands
from cpmodels.towers.problem import TowersProblem
from cpmodels.towers.programme import solve_dp

PRICE_SCALE = 10  # prices are in tenths of a point: the programme adds whole numbers
# Polyak's steps aim this far below the best known board: longer steps, which bring the
# bound down faster within the steps given (9x9 after 120 steps: aimed at 2,750 itself,
# 2,792.0; 4% below, 2,780.8; 7%, 2,774.2; 15%, 2,770.9. 10x10: 3,400 itself, 3,503.1;
# 3% below, 3,471.4; 6%, 3,472.9).
AIM_BELOW = 0.08


def band_bound(problem: TowersProblem, height: int, above: bool, below: bool, *,
               deadline: float | None = None) -> int | None:
    """The best score of ``height`` full rows of the board whose neighbouring rows (one
    ``above``, one ``below``, where the band has them) may hold any towers, scoring nothing
    and needing nothing. No board scores more on such a band of its rows. None when the
    programme did not finish (time or memory)."""
    rows = height + above + below
    helpers = frozenset(([0] if above else []) + ([rows - 1] if below else []))
    band = TowersProblem(problem.name, rows, problem.cols, problem.colours,
                         problem.allow_empty, problem.empty_letter)
    result = solve_dp(band, deadline=deadline, helpers=helpers)
    return result.best if result.finished else None


class BandBounds:
    """Bounds on bands of a board's rows (:func:`band_bound`), each worked out once."""

    def __init__(self, problem: TowersProblem, max_band: int = 5,
                 deadline: float | None = None) -> None:
        if problem.fixed:
            raise ValueError("the band bound is for boards with no towers built")
        self.problem, self.max_band, self.deadline = problem, max_band, deadline
        self.known: dict[tuple[int, bool, bool], int | None] = {}

    def band(self, height: int, above: bool, below: bool) -> int | None:
        key = (height, above, below)
        if key not in self.known:
            self.known[key] = band_bound(self.problem, height, above, below,
                                         deadline=self.deadline)
        return self.known[key]

    def rows(self, first: int) -> tuple[int | None, list[int]]:
        """A bound on rows ``first`` to the last (the row above them free, if any): the cut
        into bands of at most ``max_band`` rows with the least sum, and its band heights."""
        last = self.problem.rows
        best: dict[int, tuple[int, list[int]]] = {first: (0, [])}
        for end in range(first + 1, last + 1):
            for h in range(1, min(self.max_band, end - first) + 1):
                before = best.get(end - h)
                b = self.band(h, end - h > 0, end < last)
                if before is None or b is None:
                    continue
                if end not in best or before[0] + b < best[end][0]:
                    best[end] = (before[0] + b, [*before[1], h])
        found = best.get(last)
        return (found[0], found[1]) if found is not None else (None, [])


def upper_bound(problem: TowersProblem, *, max_band: int = 5,
                deadline: float | None = None) -> tuple[int | None, list[int]]:
    """An upper bound on the board's score: its rows cut into bands of at most ``max_band``
    rows, each bounded by :func:`band_bound`, the cut that gives the least sum. Returns the
    bound and the band heights from the top (None and [] if a band did not finish)."""
    return BandBounds(problem, max_band, deadline).rows(0)


def rest_bounds(problem: TowersProblem, bands: BandBounds) -> list[int] | None:
    """For each number of cells placed (reading order, rows of the square board), a bound
    on the score of the cells still to place: the most points a tower scores on each cell
    left in the current row, plus the band bound of the rows below; or, when no tower
    scores below 0, the band bound of the rows from the current one on, if less."""
    if problem.rows != problem.cols:
        return None
    most = max(c.points for c in problem.colours)
    out = []
    for t in range(problem.rows * problem.cols + 1):
        i, j = divmod(t, problem.cols)
        below, _ = bands.rows(min(i + (1 if j else 0), problem.rows))
        if below is None:
            return None
        bound = below + most * ((problem.cols - j) % problem.cols)
        if j and min(c.points for c in problem.colours) >= 0:
            whole, _ = bands.rows(i)  # the rows from this one on bound their part too
            bound = min(bound, whole if whole is not None else bound)
        out.append(bound)
    return out


@dataclass
class PricedBound:
    """What :func:`lagrangian_bound` found: the least bound of any step (a multiple of the
    points' common divisor, rounded down), the bound of each step, and the prices that gave
    the least one (``certificate.priced_bands`` says where they go; in tenths of a point)."""

    bound: int | None
    cut: int
    steps: list[float] = field(default_factory=list)
    prices: np.ndarray | None = None
    seconds: float = 0.0


def _priced_band(band: TowersProblem, helper: int, points: np.ndarray,
                 deadline: float | None) -> tuple[int | None, list[str] | None]:
    found = solve_dp(band, deadline=deadline, board=True, helpers=frozenset([helper]),
                     cell_points=points)
    return (found.best, found.grid) if found.finished else (None, None)


def lagrangian_bound(problem: TowersProblem, cut: int, *, steps: int = 120,
                     target: int | None = None, deadline: float | None = None,
                     on_step: Callable[[int, float], None] | None = None) -> PricedBound:
    """An upper bound from two bands, rows ``0 .. cut - 1`` and ``cut ..``, each solved
    exactly with a copy of its neighbour's boundary row. A copy may hold any towers and needs
    nothing, as a free row does, but each corner it makes with the real row (a cell of row
    ``cut``, the one to its left and the one above it in row ``cut - 1``) is priced: the
    price one band pays the other band earns. On a real board the copies equal the rows and
    the prices cancel, so for any prices the two bands' optima together bound every board.
    Prices move against the two bands' disagreement on the corners (subgradient steps,
    Polyak's step aimed ``AIM_BELOW`` under ``target``, a score some board reaches; without
    one, at the band bound less 10%). Pricing the corners rather than the colours of single
    cells makes the copies agree on more than their colours: 9x9 comes to 2,770 instead of
    2,870 in 120 steps."""
    start = time.perf_counter()
    if problem.fixed:
        raise ValueError("the priced band bound is for boards with no towers built")
    if not 1 <= cut < problem.rows:
        raise ValueError(f"cut {cut} must leave rows on both sides of a {problem.rows}-row board")
    n = problem.codes
    prices = np.zeros((problem.cols, n, n + 1, n), dtype=np.int64)
    result = PricedBound(None, cut)
    theta, previous = 1.0, None
    for step in range(steps):
        (top, _, top_points), (bottom, _, bottom_points) = priced_bands(
            problem, cut, PRICE_SCALE, prices)
        a, board_a = _priced_band(top, cut, top_points, deadline)
        b, board_b = _priced_band(bottom, 0, bottom_points, deadline)
        if a is None or b is None or board_a is None or board_b is None:
            break
        value = (a + b) / PRICE_SCALE
        result.steps.append(value)
        if result.bound is None or value < min(result.steps[:-1], default=value + 1):
            result.prices = prices.copy()
            result.bound = problem.bound_from(a + b, PRICE_SCALE)
        if on_step is not None:
            on_step(step, value)
        # The real corners (the bottom band's) less the top band's copies of them.
        slope = corner_counts(problem, board_b[0], board_b[1]) - \
            corner_counts(problem, board_a[cut - 1], board_a[cut])
        norm = int((slope ** 2).sum())
        if norm == 0:  # the copies agree: the two bands make one board, the optimum
            break
        goal = (1 - AIM_BELOW) * target if target is not None else 0.9 * result.steps[0]
        if previous is not None and value >= previous:
            theta *= 0.9
        previous = value
        prices -= max(1, round(theta * (value - goal) * PRICE_SCALE / norm)) * slope
    result.seconds = time.perf_counter() - start
    return result
