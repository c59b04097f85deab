"""OR-Tools CP-SAT as every model of the package runs it: the packing backend
(``backends/cpsat.py``) and the towers optimiser (``towers/model.py``) both make their
solver here and run it here."""

from __future__ import annotations

import signal
import threading

from ortools.sat.python import cp_model

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
    """``solver.solve(model)`` that leaves Ctrl-C to Python afterwards.

    CP-SAT installs a Ctrl-C handler of its own for the solve (a Ctrl-C then stops the
    search, as a time limit would) and leaves it in place, so a later Ctrl-C would end the
    whole process at once, without a word and without what it had found. On the main
    thread Python's handler is put back after the solve; on any other thread (where Ctrl-C
    reaches the main thread anyway) CP-SAT is told not to install one.
    """
    if threading.current_thread() is not threading.main_thread():
        solver.parameters.catch_sigint_signal = False
        return solver.solve(model, callback)
    previous = signal.getsignal(signal.SIGINT)
    try:
        return solver.solve(model, callback)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
