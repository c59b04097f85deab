"""CP-SAT model of the towers grid: maximise the score under the neighbour requirements."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from cpmodels.backends.cpsat import DEFAULT_WORKERS
from cpmodels.backends.result import Status
from cpmodels.towers import TowersProblem

NAME = "cpsat"


@dataclass
class TowersResult:
    """Best board found, its score, whether it is proved optimal, and the proven bound."""

    status: Status
    seconds: float
    grid: list[str] = field(default_factory=list)
    score: int | None = None
    optimal: bool = False
    bound: int | None = None
    backend: str = NAME

    @property
    def gap(self) -> float | None:
        if self.score is None or self.bound is None or self.bound == 0:
            return None
        return (self.bound - self.score) / abs(self.bound)


def build_model(problem: TowersProblem) -> tuple[cp_model.CpModel, dict]:
    """Booleans x[r, c, k] (cell holds colour k) with one colour per cell and the rules."""
    model = cp_model.CpModel()
    x = {
        (r, c, k): model.new_bool_var(f"x{r}_{c}_{k}")
        for r in range(problem.rows) for c in range(problem.cols)
        for k in range(len(problem.colours))
    }
    ks = range(len(problem.colours))
    for r in range(problem.rows):
        for c in range(problem.cols):
            cell = [x[r, c, k] for k in ks]
            if problem.allow_empty:
                model.add_at_most_one(cell)
            else:
                model.add_exactly_one(cell)
            around = problem.neighbours(r, c)
            for k, colour in enumerate(problem.colours):
                for need in colour.needs:
                    support = [x[nr, nc, need] for nr, nc in around]
                    if support:
                        model.add_bool_or(support).only_enforce_if(x[r, c, k])
                    else:
                        model.add(x[r, c, k] == 0)
    model.maximize(sum(col.points * x[r, c, k] for (r, c, k), col in
                       ((key, problem.colours[key[2]]) for key in x)))
    return model, x


def solve(problem: TowersProblem, *, time_limit: float | None = None,
          workers: int | None = None) -> TowersResult:
    """Maximise the score; report optimality, the best bound and the board."""
    start = time.perf_counter()
    model, x = build_model(problem)
    solver = cp_model.CpSolver()
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = workers or DEFAULT_WORKERS
    status = solver.solve(model)
    seconds = time.perf_counter() - start
    if status == cp_model.INFEASIBLE:
        return TowersResult("unsolvable", seconds)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return TowersResult("unknown", seconds, bound=int(solver.best_objective_bound))
    grid = []
    for r in range(problem.rows):
        row = ""
        for c in range(problem.cols):
            held = [k for k in range(len(problem.colours)) if solver.boolean_value(x[r, c, k])]
            row += problem.colours[held[0]].letter if held else problem.empty_letter
        grid.append(row)
    return TowersResult("solved", seconds, grid, problem.score(grid),
                        status == cp_model.OPTIMAL, int(solver.best_objective_bound))
