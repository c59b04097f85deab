"""CP-SAT model of the towers grid: maximise the score under the neighbour requirements."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from cpmodels.cpsat_runtime import new_solver, run_solver
from cpmodels.errors import OutOfTime
from cpmodels.towers import bounds, programme, search
from cpmodels.towers.problem import TowersProblem
from cpmodels.towers.result import NAME, TowersResult


def build_towers_model(problem: TowersProblem, deadline: float | None = None,
                       ) -> tuple[cp_model.CpModel, dict]:
    """Booleans x[r, c, k] (cell holds colour k) with one colour per cell and the rules
    (under the build-order rule, those of an orderable city: :func:`add_build_order`).
    Past ``deadline`` (a ``time.perf_counter`` value; None: none) the building stops:
    :class:`~cpmodels.errors.OutOfTime`."""
    model, x, _ = _towers_model(problem, deadline)
    return model, x


def _on_time(deadline: float | None) -> None:
    """OutOfTime once ``deadline`` has passed: a large model's building is cut short."""
    if deadline is not None and time.perf_counter() > deadline:
        raise OutOfTime("the time limit passed while the model was built")


def _towers_model(problem: TowersProblem, deadline: float | None = None,
                  ) -> tuple[cp_model.CpModel, dict, dict | None]:
    """:func:`build_towers_model` and, under the build-order rule, the cells' times."""
    model = cp_model.CpModel()
    ks = range(len(problem.colours))
    x = {}
    for r in range(problem.rows):  # a row at a time, the deadline checked between rows
        _on_time(deadline)
        x.update({(r, c, k): model.new_bool_var(f"x{r}_{c}_{k}")
                  for c in range(problem.cols) for k in ks})
    for (r, c), k in problem.fixed:
        for other in ks:
            model.add(x[r, c, other] == (1 if other == k else 0))
    for r in range(problem.rows):
        _on_time(deadline)
        for c in range(problem.cols):
            cell = [x[r, c, k] for k in ks]
            if problem.allow_empty:
                model.add_at_most_one(cell)
            else:
                model.add_exactly_one(cell)
            if problem.when_built:
                continue
            around = problem.neighbours(r, c)
            for k, colour in enumerate(problem.colours):
                for need in colour.needs:
                    support = [x[nr, nc, need] for nr, nc in around]
                    if support:
                        model.add_bool_or(support).only_enforce_if(x[r, c, k])
                    else:
                        model.add(x[r, c, k] == 0)
    times = add_build_order(problem, model, x, deadline) if problem.when_built else None
    _on_time(deadline)
    model.maximize(sum(col.points * x[r, c, k] for (r, c, k), col in
                       ((key, problem.colours[key[2]]) for key in x)))
    _on_time(deadline)
    return model, x, times


def add_build_order(problem: TowersProblem, model: cp_model.CpModel, x: dict,
                    deadline: float | None = None) -> dict:
    """The city must be orderable (``build.py``; chain colours, colour k needs colours
    0..k-1): ``t[r, c]``, the time of the cell's last build, and ``lend[v, u, j]``, "the
    neighbour u gives cell v its need j": u holds j and is built before v, or is built
    after v and has at least j neighbours (it then holds j for a while); a neighbour gives
    one need. Returns the times."""
    n, cells = problem.rows * problem.cols, [(r, c) for r in range(problem.rows)
                                              for c in range(problem.cols)]
    t = {v: model.new_int_var(0, n - 1, f"t{v[0]}_{v[1]}") for v in cells}
    before: dict[tuple[tuple[int, int], tuple[int, int]], Any] = {}
    for v in cells:
        _on_time(deadline)
        for u in problem.neighbours(*v):
            if (v, u) in before:
                continue
            first = model.new_bool_var(f"b{u[0]}_{u[1]}_{v[0]}_{v[1]}")  # u before v
            model.add(t[u] + 1 <= t[v]).only_enforce_if(first)
            model.add(t[v] + 1 <= t[u]).only_enforce_if(~first)
            before[u, v], before[v, u] = first, ~first
    top = len(problem.colours)
    for v in cells:
        _on_time(deadline)
        around = problem.neighbours(*v)
        for k in range(len(around) + 1, top):
            model.add(x[v[0], v[1], k] == 0)  # colour k needs k neighbours
        lend = {(u, j): model.new_bool_var(f"l{v}{u}{j}") for u in around
                for j in range(top - 1)}
        for u in around:
            model.add_at_most_one(lend[u, j] for j in range(top - 1))
            for j in range(top - 1):
                if len(problem.neighbours(*u)) >= j:
                    model.add_bool_or([x[u[0], u[1], j], ~before[u, v]]).only_enforce_if(
                        lend[u, j])
                else:
                    model.add_implication(lend[u, j], x[u[0], u[1], j])
                    model.add_implication(lend[u, j], before[u, v])
        for j in range(top - 1):
            model.add(sum(x[v[0], v[1], k] for k in range(j + 1, top))
                      <= sum(lend[u, j] for u in around))
    return t


def _search(problem: TowersProblem, deadline: float | None, workers: int | None,
            target: int | None = None, hint: list[str] | None = None,
            known: dict[tuple[int, int], str] | None = None, ceiling: int | None = None,
            ) -> tuple[Any, list[str], int | None]:
    """One CP-SAT run until ``deadline`` (a ``time.perf_counter`` value; None: none), the
    model's building included: (status, board or [], bound); ``target`` asks for a board
    that good, ``known`` gives the letters of some cells, ``ceiling`` is a bound proved
    elsewhere. Out of time before the search starts, it is UNKNOWN with no bound."""
    try:
        model, x = build_towers_model(problem, deadline)
        if ceiling is not None:
            model.add(sum(problem.colours[k].points * v for (_, _, k), v in x.items())
                      <= ceiling)
        letter_of = [col.letter for col in problem.colours]
        for (r, c), letter in (known or {}).items():
            for k, own in enumerate(letter_of):
                model.add(x[r, c, k] == (1 if own == letter else 0))
        if target is not None:
            model.add(sum(problem.colours[k].points * v for (_, _, k), v in x.items())
                      >= target)
        if hint:
            letters = {col.letter: k for k, col in enumerate(problem.colours)}
            for (r, c, k), v in x.items():
                model.add_hint(v, letters.get(hint[r][c]) == k)
        _on_time(deadline)
    except OutOfTime:
        return cp_model.UNKNOWN, [], None
    solver = new_solver(None if deadline is None else deadline - time.perf_counter(), workers)
    status = run_solver(solver, model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        # Stopped before it loaded the model, CP-SAT says 0: a bound it never worked out.
        worked_out = status == cp_model.UNKNOWN and solver.response_proto.num_booleans > 0
        return status, [], int(solver.best_objective_bound) if worked_out else None
    grid = []
    for r in range(problem.rows):
        row = ""
        for c in range(problem.cols):
            held = [k for k in range(len(problem.colours)) if solver.boolean_value(x[r, c, k])]
            row += problem.colours[held[0]].letter if held else problem.empty_letter
        grid.append(row)
    return status, grid, int(solver.best_objective_bound)


DP_FIRST_WIDTH = 6  # up to this width the programme alone finds the optimum in about a second
DP_PROOF_WIDTH = 8  # wider, the programme's layers outgrow this machine's memory
BAND_HEIGHT = 5  # rows in a band of the band bound on boards too wide for the programme
POLISH_SHARE = 0.1  # of the time limit, kept for re-solving windows of CP-SAT's wide board


def incumbent_budget(problem: TowersProblem) -> float:
    """Seconds CP-SAT gets to find a good board before the dynamic programme proves it."""
    return 2.0 + problem.rows * problem.cols / 4


def solve(problem: TowersProblem, *, time_limit: float | None = None,
          workers: int | None = None, use_dp: bool = True,
          band_height: int = BAND_HEIGHT,
          layer_sink: Callable[[int, np.ndarray, np.ndarray], None] | None = None,
          ) -> TowersResult:
    """Maximise the score; report optimality, the best bound and the board.

    CP-SAT looks for the board. Where it does not prove the optimum and the board is narrow
    enough, the exact dynamic programme (``programme.py``) proves that nothing beats CP-SAT's
    board, or finds the better score, which CP-SAT is then asked to reach. Wider boards are
    bounded by bands of at most ``band_height`` rows, each solved exactly
    (``bounds.upper_bound``), and CP-SAT searches under that bound; its board is then
    polished, windows of rows and columns re-solved by the programme (``search.polish``),
    in the last ``POLISH_SHARE`` of the time.

    ``layer_sink`` is handed the programme's layers (see ``programme.solve_dp``), for a
    certificate of the answer (``certificate.py``); with it the programme runs on every
    board narrow enough, even where CP-SAT alone proves the optimum.
    """
    if problem.when_built:
        return solve_when_built(problem, time_limit=time_limit, workers=workers)
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit

    def left() -> float | None:
        return None if deadline is None else deadline - time.perf_counter()

    width = min(problem.rows, problem.cols)
    narrow = use_dp and width <= min(DP_PROOF_WIDTH, programme.max_width(problem))
    if narrow and width <= DP_FIRST_WIDTH:
        # Narrow enough for the programme to find an optimal board outright.
        dp = programme.solve_dp(problem, deadline=deadline, board=True, layer_sink=layer_sink)
        if dp.finished and dp.grid is None:
            return TowersResult("unsolvable", time.perf_counter() - start, backend="dp")
        if dp.finished and dp.grid is not None:
            return TowersResult("solved", time.perf_counter() - start, dp.grid,
                                problem.score(dp.grid), True, dp.best, "dp")
    ceiling = None
    if not narrow and use_dp and not problem.fixed:
        # Too wide to prove: bound the score by bands of rows, each solved exactly (in at
        # most half the time), and give CP-SAT that bound as a constraint.
        half = None if deadline is None else start + (deadline - start) / 2
        ceiling, _ = bounds.upper_bound(problem, max_band=band_height, deadline=half)
    first = deadline
    wide = not narrow and use_dp and search.window_height(problem) > 0
    if wide and deadline is not None:
        first = deadline - POLISH_SHARE * (deadline - start)
    if narrow:
        budget = time.perf_counter() + incumbent_budget(problem)
        first = budget if first is None else min(first, budget)
    status, grid, bound = _search(problem, first, workers, ceiling=ceiling)
    if ceiling is not None and (bound is None or ceiling < bound):
        bound = ceiling
    infeasible = status == cp_model.INFEASIBLE
    if infeasible and not (narrow and layer_sink is not None):
        return TowersResult("unsolvable", time.perf_counter() - start)
    optimal = status == cp_model.OPTIMAL
    if wide and grid and not optimal:
        grid = search.polish(problem, grid, deadline=deadline)
    score = problem.score(grid) if grid else None
    backend = NAME
    wanted = not optimal or layer_sink is not None
    remaining = left()
    if narrow and wanted and (remaining is None or remaining > 0):
        # The programme's pruning needs an incumbent; without a board it counts from scratch.
        dp = programme.solve_dp(problem, incumbent=score, deadline=deadline,
                                layer_sink=layer_sink)
        if dp.finished:
            backend = f"{NAME}+dp"
            if dp.best is None:
                if score is None:
                    return TowersResult("unsolvable", time.perf_counter() - start,
                                        backend=backend)
                optimal, bound = True, score
            else:
                # The programme traced the better board over the half it pruned; CP-SAT
                # completes the other half.
                bound = dp.best
                _, better, _ = _search(problem, deadline, workers, target=dp.best,
                                       hint=grid or None, known=dp.partial)
                if better:
                    grid, score, optimal = better, problem.score(better), True
    if infeasible:  # proved by CP-SAT; the programme only ran for its certificate
        return TowersResult("unsolvable", time.perf_counter() - start, backend=backend)
    if not grid:
        return TowersResult("unknown", time.perf_counter() - start, bound=bound,
                            backend=backend)
    if not optimal and bound is not None and score == bound:
        optimal = True  # the board reaches a bound proved by the bands
    return TowersResult("solved", time.perf_counter() - start, grid, score, optimal,
                        score if optimal else bound, backend)


#: Cities CP-SAT may propose before the build-order rule's search gives up finding orders.
BUILD_ATTEMPTS = 20


def solve_when_built(problem: TowersProblem, *, time_limit: float | None = None,
                     workers: int | None = None) -> TowersResult:
    """The best city under the build-order rule, with one order of builds that reaches it.

    CP-SAT maximises over orderable cities (every reachable city is one, so its bound holds);
    ``build.build_order`` then looks for the builds, and ``build.replay`` checks them. A city
    the search finds no builds for is excluded and CP-SAT asked again; its score stays in
    the bound, since the search is not complete."""
    from cpmodels.towers import build

    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    try:
        model, x, times = _towers_model(problem, deadline)
    except OutOfTime:
        return TowersResult("unknown", time.perf_counter() - start)
    assert times is not None
    excluded_best: int | None = None
    status, bound = cp_model.UNKNOWN, None
    for _ in range(BUILD_ATTEMPTS):
        solver = new_solver(None if deadline is None else deadline - time.perf_counter(),
                            workers)
        status = run_solver(solver, model)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            break
        bound = int(solver.best_objective_bound)
        grid = ["".join(next(problem.colours[k].letter for k in range(len(problem.colours))
                             if solver.boolean_value(x[r, c, k]))
                        for c in range(problem.cols)) for r in range(problem.rows)]
        last = sorted(times, key=lambda v: solver.value(times[v]))
        order = build.build_order(problem, grid, [r * problem.cols + c for r, c in last])
        score = problem.score(grid)
        if order is not None and build.replay(problem, order) == grid:
            if excluded_best is not None:
                bound = max(bound, excluded_best)
            optimal = status == cp_model.OPTIMAL and (excluded_best is None
                                                      or score >= excluded_best)
            return TowersResult("solved", time.perf_counter() - start, grid, score, optimal,
                                score if optimal else bound, order=order)
        excluded_best = score if excluded_best is None else max(score, excluded_best)
        letters = {col.letter: k for k, col in enumerate(problem.colours)}
        model.add(sum(x[r, c, letters[grid[r][c]]] for r in range(problem.rows)
                      for c in range(problem.cols)) <= problem.rows * problem.cols - 1)
    seconds = time.perf_counter() - start
    if status == cp_model.INFEASIBLE and excluded_best is None:
        return TowersResult("unsolvable", seconds)
    if excluded_best is not None:
        bound = excluded_best if bound is None else max(bound, excluded_best)
    return TowersResult("unknown", seconds, bound=bound)
