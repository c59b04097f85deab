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
from pathlib import Path
from typing import Any

import numpy as np

from cpmodels.interrupt import ctrl_c_held
from cpmodels.towers.certificate import Fixing, corner_counts, priced_bands
from cpmodels.towers.pricing import (
    SAVE_SECONDS,
    Cut,
    PricingState,
    check_same_pricing,
    new_state,
    save_state,
)
from cpmodels.towers.problem import TowersProblem
from cpmodels.towers.programme import max_width, solve_dp

PRICE_SCALE = 10  # prices are in tenths of a point: the programme adds whole numbers
# Polyak's steps aim this far below the best known board: longer steps, which bring the
# bound down faster within the steps given (9x9 after 120 steps: aimed at 2,750 itself,
# 2,792.0; 4% below, 2,780.8; 7%, 2,774.2; 15%, 2,770.9. 10x10: 3,400 itself, 3,503.1;
# 3% below, 3,471.4; 6%, 3,472.9).
AIM_BELOW = 0.08
# The bundle starts after this share of its steps made by Polyak's rule (which falls faster
# at first), their boards its first cuts. 5x5 (bands 3 + 2) after 120 steps, prices in
# hundredths: Polyak's rule alone 767.9 (767.2 after 400), the bundle alone 768.6 (763.3,
# its least, after 251), a quarter first 764.1 (763.6 after 160); in tenths, Polyak's rule
# 768.5, a quarter first 765.8.
POLYAK_SHARE = 0.25
BOX = 10.0  # points: the bundle's first box around the prices, each price's reach
SHRINK, GROW = 0.9, 1.5  # the box after a step that did not pay, and one that paid well


def band_bound(problem: TowersProblem, height: int, above: bool, below: bool, *,
               deadline: float | None = None) -> int | None:
    """The best score of ``height`` full rows of the board whose neighbouring rows (one
    ``above``, one ``below``, where the band has them) may hold any towers, scoring nothing
    and needing nothing. No board scores more on such a band of its rows. None when the
    programme did not finish (time or memory) or cannot take the band (too wide for its
    colours)."""
    rows = height + above + below
    helpers = frozenset(([0] if above else []) + ([rows - 1] if below else []))
    band = TowersProblem(problem.name, rows, problem.cols, problem.colours,
                         problem.allow_empty, problem.empty_letter)
    if min(rows, problem.cols) > max_width(band):
        return None
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
    the least one (``certificate.priced_bands`` says where they go; in ``1 / scale`` of a
    point)."""

    bound: int | None
    cut: int
    steps: list[float] = field(default_factory=list)
    prices: np.ndarray | None = None
    seconds: float = 0.0
    scale: int = PRICE_SCALE


class _BoundMet(Exception):
    """The priced bound reached the score asked to stop at (a board's): pricing ends."""


@dataclass
class _Priced:
    """Both bands solved at some prices: their optima together (scaled) and the corners of
    their best boards (the top band's copies, the bottom band's real rows), flattened."""

    value: int
    top: int
    bottom: int
    top_corners: np.ndarray
    bottom_corners: np.ndarray
    boards: tuple[list[str], list[str]] = ([], [])


def _priced_band(band: TowersProblem, helper: int, points: np.ndarray,
                 deadline: float | None) -> tuple[int | None, list[str] | None]:
    found = solve_dp(band, deadline=deadline, board=True, helpers=frozenset([helper]),
                     cell_points=points)
    return (found.best, found.grid) if found.finished else (None, None)


@dataclass(frozen=True)
class _Band:
    """One band of a step, as a unit of work: the band, its free row, its points, and the
    seconds it may take (None: no limit)."""

    band: TowersProblem
    helper: int
    points: np.ndarray
    seconds: float | None


class _BandSolver:
    """The run layer's worker for a step's bands (``running.Plan``): each band answered
    with its optimum and a best board, (None, None) when it did not finish in time."""

    def run(self, unit: tuple[_Band, ...]) -> list[tuple[int | None, list[str] | None]]:
        return [_priced_band(job.band, job.helper, job.points,
                             None if job.seconds is None
                             else time.perf_counter() + job.seconds) for job in unit]

    def stop(self) -> None:
        return None  # a band's programme stops at its deadline only


def _solve_bands(problem: TowersProblem, cut: int, scale: int, prices: np.ndarray,
                 deadline: float | None, place: Any = None,
                 fixing: Fixing = ()) -> _Priced | None:
    """Both bands at ``prices``, here, or as two units of work at ``place`` (a
    ``running`` place: threads, a cluster); None when one did not finish in time."""
    from cpmodels.interrupt import seconds_left

    (top, _, top_points), (bottom, _, bottom_points) = priced_bands(problem, cut, scale,
                                                                    prices, fixing)
    if place is None:
        a, board_a = _priced_band(top, cut, top_points, deadline)
        b, board_b = _priced_band(bottom, 0, bottom_points, deadline)
    else:
        from cpmodels.errors import OutOfTime
        from cpmodels.running import Memory, Plan, run

        left = seconds_left(deadline)
        found = Memory()
        try:
            run(Plan([_Band(top, cut, top_points, left), _Band(bottom, 0, bottom_points, left)],
                     _BandSolver), place, found, time_limit=left)
        except OutOfTime:
            return None
        (a, board_a), (b, board_b) = found.in_order()
    if a is None or b is None or board_a is None or board_b is None:
        return None
    return _Priced(a + b, a, b,
                   corner_counts(problem, board_a[cut - 1], board_a[cut]).ravel(),
                   corner_counts(problem, board_b[0], board_b[1]).ravel(), (board_a, board_b))


def lagrangian_bound(problem: TowersProblem, cut: int, *, steps: int = 120,
                     target: int | None = None, deadline: float | None = None,
                     on_step: Callable[[int, float], None] | None = None,
                     method: str = "polyak", start: np.ndarray | None = None,
                     scale: int = PRICE_SCALE, polyak_share: float = POLYAK_SHARE,
                     box: float = BOX, stop_at: int | None = None,
                     resume: PricingState | None = None, save: Path | None = None,
                     on_state: Callable[[PricingState], None] | None = None,
                     place: Any = None, fixing: Fixing = (),
                     on_boards: Callable[[list[str], list[str]], None] | None = None,
                     ) -> PricedBound:
    """An upper bound from two bands, rows ``0 .. cut - 1`` and ``cut ..``, each solved
    exactly with a copy of its neighbour's boundary row. A copy may hold any towers and needs
    nothing, as a free row does, but each corner it makes with the real row (a cell of row
    ``cut``, the one to its left and the one above it in row ``cut - 1``) is priced: the
    price one band pays the other band earns. On a real board the copies equal the rows and
    the prices cancel, so for any prices the two bands' optima together bound every board.
    Pricing the corners rather than the colours of single cells makes the copies agree on
    more than their colours.

    ``steps`` solves of both bands look for the prices (from ``start``, in ``1 / scale`` of
    a point; zero by default: the first step is the free rows' bound). ``method="polyak"``
    moves the prices against the bands' disagreement on the corners (subgradient steps,
    Polyak's step aimed ``AIM_BELOW`` under ``target``, a score some board reaches; without
    one, at the band bound less 10%). ``method="bundle"`` makes ``polyak_share`` of the
    steps so, then keeps every step's two boards as cuts of a model of the bound as a
    function of the prices and moves to the model's least point within a box around the
    best prices so far (a linear programme, GLOP; the box first ``box`` points each way),
    the box growing and shrinking with the model's accuracy (:func:`_bundle_step`); it
    reaches lower bounds in the long run. With ``stop_at`` (a score some board reaches), the
    pricing ends as soon as the bound is that low: no lower one can be certified.

    The pricing's whole state (``pricing.PricingState``) is written to ``save`` after a
    step once ``pricing.SAVE_SECONDS`` have passed, and whenever the pricing ends (Ctrl-C
    too); ``resume`` (a state of the same board, cut, scale, method, target and settings)
    goes on from it to ``steps`` in all, to the same bound and prices as a run never
    stopped. ``on_step(step, value)`` and ``on_state(state)`` hear of each step; ``place``
    (a ``running`` place) runs each step's two bands as units of work there. ``fixing``
    bounds one class of boards only (``certificate.priced_bands``): a branch's.
    ``on_boards(top, bottom)`` hears each step's two band boards (the top band's last row
    is its copy of the bottom's first), to make whole boards of them."""
    begun = time.perf_counter()
    if problem.fixed:
        raise ValueError("the priced band bound is for boards with no towers built")
    if not 1 <= cut < problem.rows:
        raise ValueError(f"cut {cut} must leave rows on both sides of a {problem.rows}-row board")
    if method not in ("bundle", "polyak"):
        raise ValueError(f"method must be 'bundle' or 'polyak', not {method!r}")
    if resume is not None and start is not None:
        raise ValueError("a pricing goes on from its state or starts from prices, not both")
    n = problem.codes
    shape = (problem.cols, n, n + 1, n)
    if resume is None:
        prices = np.zeros(shape, dtype=np.int64) if start is None else \
            np.array(start, dtype=np.int64).reshape(shape)
        state = new_state(problem, cut, scale, method, target, polyak_share, box, prices)
    else:
        check_same_pricing(resume, problem, cut, scale, method, target, polyak_share, box)
        state = resume
    pricer = _Pricer(problem, state, deadline, place, fixing, on_boards)
    saved_at = time.perf_counter()
    try:
        while state.phase != "done" and len(state.values) < steps:
            least = state.least
            if stop_at is not None and least is not None \
                    and problem.bound_from(least, scale) <= stop_at:
                break  # no lower bound can be certified
            if state.phase == "polyak":
                first = steps if method == "polyak" else round(polyak_share * steps)
                if len(state.values) >= first:
                    with ctrl_c_held():
                        _begin_bundle(state)
                    continue
                stepped = _polyak_step(pricer)
            else:
                stepped = _bundle_step(pricer)
            if not stepped:
                break  # a band did not finish in time
            if on_step is not None and pricer.stepped:
                on_step(len(state.values) - 1, state.values[-1] / scale)
            if on_state is not None:
                on_state(state)
            if save is not None and time.perf_counter() - saved_at >= SAVE_SECONDS:
                save_state(save, state)
                saved_at = time.perf_counter()
    finally:
        if save is not None:
            save_state(save, state)
    least = state.least
    return PricedBound(None if least is None else problem.bound_from(least, scale), cut,
                       [value / scale for value in state.values],
                       None if state.best is None else state.best.reshape(shape).copy(),
                       time.perf_counter() - begun, scale)


class _Pricer:
    """A pricing's bands and state: :meth:`solve` both bands at some prices, :meth:`commit`
    a step (or a change of phase) to the state whole, Ctrl-C held back meanwhile."""

    def __init__(self, problem: TowersProblem, state: PricingState, deadline: float | None,
                 place: Any, fixing: Fixing = (),
                 on_boards: Callable[[list[str], list[str]], None] | None = None) -> None:
        self.problem, self.state, self.deadline, self.place = problem, state, deadline, place
        self.fixing, self.on_boards = fixing, on_boards
        n = problem.codes
        self.shape = (problem.cols, n, n + 1, n)
        self.began = time.perf_counter()
        self.stepped = False  # whether the last commit recorded a step

    def solve(self, at: np.ndarray) -> _Priced | None:
        self.began = time.perf_counter()
        found = _solve_bands(self.problem, self.state.cut, self.state.scale,
                             at.reshape(self.shape), self.deadline, self.place, self.fixing)
        if found is not None and self.on_boards is not None:
            self.on_boards(*found.boards)
        return found

    def commit(self, found: _Priced | None, at: np.ndarray | None, **changes: Any) -> None:
        """Record ``found`` (the bands at ``at``) as the next step, if given, and set the
        state's ``changes``, all or nothing."""
        state = self.state
        with ctrl_c_held():
            if found is not None and at is not None:
                if state.least is None or found.value < state.least:
                    state.best = at.copy()
                state.cuts.append(Cut.of(at, found.top_corners, found.bottom_corners,
                                         found.top, found.bottom))
                state.values.append(found.value)
                state.seconds += time.perf_counter() - self.began
            for name, value in changes.items():
                setattr(state, name, value)
            self.stepped = found is not None


def _polyak_step(pricer: _Pricer) -> bool:
    """One of Polyak's subgradient steps from the state's prices; when the two bands'
    boards agree on the corners (they make one board: the bound is its score), the
    pricing is done. False when a band did not finish."""
    state = pricer.state
    at = state.prices
    found = pricer.solve(at)
    if found is None:
        return False
    value = found.value / state.scale
    # The real corners (the bottom band's) less the top band's copies of them.
    slope = found.bottom_corners - found.top_corners
    norm = int((slope ** 2).sum())
    if norm == 0:  # the copies agree: the two bands make one board, the optimum
        pricer.commit(found, at, phase="done")
        return True
    first = state.values[0] if state.values else found.value
    goal = (1 - AIM_BELOW) * state.target if state.target is not None \
        else 0.9 * (first / state.scale)
    theta = state.theta
    if state.previous is not None and found.value >= state.previous:
        theta *= 0.9
    moved = at - max(1, round(theta * (value - goal) * state.scale / norm)) * slope
    pricer.commit(found, at, prices=moved, theta=theta, previous=found.value)
    return True


def _begin_bundle(state: PricingState) -> None:
    """After Polyak's share of the steps: the bundle's centre at the best prices so far
    (their value its level), its first box."""
    state.centre = (state.prices if state.best is None else state.best).copy()
    state.level = state.least if state.best is not None else None
    state.box = state.first_box * state.scale
    state.phase = "bundle"


def _bundle_step(pricer: _Pricer) -> bool:
    """One box step of cutting planes on the bound as a function of the prices ``p``. Each
    step's top board ``s`` makes the top band's optimum at least ``f_s - p . a_s`` at any
    prices (``a_s`` its corners), and the bottom's ``t`` makes the bottom's at least
    ``g_t + p . b_t``; the least of the model (the largest of these, each band apart) over
    the box ``|p - centre| <= box`` is the next step. The centre moves there when the bound
    fell by a tenth of what the model foresaw (the box grows when the step reached its
    edge and paid half), else the box shrinks; the model itself is exact at every step
    tried, so a foreseen fall below one unit with the step inside the box is the least
    bound: the pricing is done. Without a level (no step before), the centre is solved
    first. False when a band did not finish."""
    import ortools.linear_solver.pywraplp as pywraplp

    state = pricer.state
    centre, box = state.centre, state.box
    assert centre is not None and box is not None
    if state.level is None:
        found = pricer.solve(centre)
        if found is None:
            return False
        pricer.commit(found, centre, level=found.value)
        return True
    level = state.level
    seen = sorted({i for cut in state.cuts for i in (*cut.top, *cut.bottom)})
    solver = pywraplp.Solver.CreateSolver("GLOP")  # prices no kept board sees stay put
    p = {i: solver.NumVar(float(centre[i] - box), float(centre[i] + box), f"p{i}")
         for i in seen}
    z_top = solver.NumVar(-solver.infinity(), solver.infinity(), "top")
    z_bottom = solver.NumVar(-solver.infinity(), solver.infinity(), "bottom")
    for cut in state.cuts:
        solver.Add(z_top >= float(cut.f) - sum(p[i] for i in cut.top))
    for cut in state.cuts:
        solver.Add(z_bottom >= float(cut.g) + sum(p[i] for i in cut.bottom))
    solver.Minimize(z_top + z_bottom)
    if solver.Solve() != pywraplp.Solver.OPTIMAL:
        pricer.commit(None, None, phase="done")
        return True
    foreseen = level - solver.Objective().Value()
    step = centre.copy()
    for i, var in p.items():
        step[i] = round(var.solution_value())
    found = pricer.solve(step)
    if found is None:
        return False
    reach = int(np.abs(step - centre).max())
    if found.value <= level - 0.1 * foreseen:
        if found.value <= level - 0.5 * foreseen and reach >= 0.99 * box:
            box *= GROW
        pricer.commit(found, step, centre=step, level=found.value, box=box)
    elif foreseen < 1:
        if reach < 0.99 * box:  # the model's least point inside the box: no prices do better
            pricer.commit(found, step, phase="done")
        else:
            pricer.commit(found, step, box=box * 2)
    else:
        pricer.commit(found, step, box=max(box * SHRINK, 1.0))
    return True
