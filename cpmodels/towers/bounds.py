"""Upper bounds on boards too wide for the programme to prove: bands of rows.

A band of a board's rows, its neighbouring rows free (any towers, scoring nothing and
needing nothing), is solved exactly by the programme (``programme.py``); no board scores
more on those rows. The board's rows cut into bands, the cut with the least sum, bound the
whole board (:func:`upper_bound`). :func:`rest_bounds` turns them into bounds on the cells
still to place (measured as pruning for the programme; see ``docs/towers.md``).
"""

from __future__ import annotations

from cpmodels.towers.problem import TowersProblem
from cpmodels.towers.programme import solve_dp


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
