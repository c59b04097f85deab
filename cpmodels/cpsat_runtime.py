"""OR-Tools CP-SAT as every model of the package runs it: the packing backend
(``backends/cpsat.py``) and the towers optimiser (``towers/model.py``) both make their
solver here and run it here."""

from __future__ import annotations

import threading

from ortools.sat.python import cp_model

from cpmodels.interrupt import interruptible

DEFAULT_WORKERS = 8  # CP-SAT's portfolio of strategies; it time-slices on fewer cores


def new_solver(time_limit: float | None = None, workers: int | None = None) -> cp_model.CpSolver:
    """A CP-SAT solver with ``time_limit`` seconds (None: none) and ``workers`` threads."""
    solver = cp_model.CpSolver()
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = max(0.01, float(time_limit))
    solver.parameters.num_workers = workers or DEFAULT_WORKERS
    return solver


def run_solver(solver: cp_model.CpSolver, model: cp_model.CpModel,
               callback: cp_model.CpSolverSolutionCallback | None = None,
               ) -> cp_model.CpSolverStatus:
    """``solver.solve(model)`` with Ctrl-C left to Python: it stops the search and goes on
    up as a ``KeyboardInterrupt``, as anywhere else.

    CP-SAT would install a Ctrl-C handler of its own for the solve (a Ctrl-C then only
    stops the search, as a time limit would, and the command goes on) and leave it in
    place, so a later Ctrl-C would end the whole process at once, without a word. It is
    told not to; on the main thread the search runs in a thread of its own
    (``interrupt.interruptible``), so Ctrl-C reaches Python at once and stops it.
    """
    solver.parameters.catch_sigint_signal = False
    if threading.current_thread() is not threading.main_thread():
        return solver.solve(model, callback)
    return interruptible(solver.solve, model, callback, stop=solver.stop_search)
