"""CP-SAT backend: one boolean per option, each item covered within its bounds."""

from __future__ import annotations

import time
from collections.abc import Iterator

from ortools.sat.python import cp_model

from cpmodels.backends.result import CoverResult
from cpmodels.cover import ExactCover

NAME = "cpsat"
DEFAULT_WORKERS = 8  # CP-SAT's portfolio of strategies; it time-slices on fewer cores


def build_model(cover: ExactCover) -> tuple[cp_model.CpModel, list[cp_model.IntVar]]:
    """The CP-SAT model of an exact cover and its option variables."""
    model = cp_model.CpModel()
    chosen = [model.new_bool_var(f"o{j}") for j in range(len(cover.options))]
    for item, option_ids in zip(cover.items, cover.item_options()):
        terms = [chosen[j] for j in option_ids]
        if item.low == item.high == 1:
            model.add_exactly_one(terms)
        elif item.low == 0 and item.high == 1:
            model.add_at_most_one(terms)
        else:
            model.add_linear_constraint(sum(terms), item.low, item.high)
    return model, chosen


def _solver(time_limit: float | None, workers: int | None) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = workers or DEFAULT_WORKERS
    return solver


def solve(cover: ExactCover, *, time_limit: float | None = None,
          workers: int | None = None) -> CoverResult:
    """Find one solution, prove there is none, or give up at the time limit."""
    start = time.perf_counter()
    model, chosen = build_model(cover)
    solver = _solver(time_limit, workers)
    status = solver.solve(model)
    seconds = time.perf_counter() - start
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        picked = [j for j, var in enumerate(chosen) if solver.boolean_value(var)]
        return CoverResult("solved", NAME, seconds, picked)
    if status == cp_model.INFEASIBLE:
        return CoverResult("unsolvable", NAME, seconds)
    if status == cp_model.MODEL_INVALID:  # pragma: no cover - a bug in build_model
        raise RuntimeError(f"CP-SAT rejected the model: {model.validate()}")
    return CoverResult("unknown", NAME, seconds)


class _Collector(cp_model.CpSolverSolutionCallback):
    def __init__(self, chosen: list[cp_model.IntVar], limit: int | None) -> None:
        super().__init__()
        self._chosen = chosen
        self._limit = limit
        self.solutions: list[list[int]] = []

    def on_solution_callback(self) -> None:
        self.solutions.append([j for j, v in enumerate(self._chosen) if self.boolean_value(v)])
        if self._limit is not None and len(self.solutions) >= self._limit:
            self.stop_search()


def enumerate_solutions(cover: ExactCover, *, limit: int | None = None,
                        time_limit: float | None = None) -> Iterator[list[int]]:
    """Every solution (as option indices), up to ``limit``; CP-SAT enumerates on one worker."""
    model, chosen = build_model(cover)
    solver = _solver(time_limit, 1)
    solver.parameters.enumerate_all_solutions = True
    collector = _Collector(chosen, limit)
    solver.solve(model, collector)
    yield from collector.solutions
