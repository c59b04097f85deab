"""OR-Tools CP-SAT as every model of the package runs it: the packing backend
(``backends/cpsat.py``) and the towers optimiser (``towers/model.py``) both take their
parameters here and run their search here.

Only CP-SAT's compiled core is loaded here (``cp_model_helper``: the model and response
protos, the solve wrapper, solution callbacks). The modelling layer, ``cp_model``, loads
pandas and numpy as it loads; the packing backend builds its model proto directly and runs
it through :class:`Search`, and only the towers model, which uses ``cp_model``, loads it
(:func:`new_solver`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ortools.sat.python import cp_model_helper as cmh

from cpmodels.interrupt import interruptible

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

DEFAULT_WORKERS = 8  # CP-SAT's portfolio of strategies; it time-slices on fewer cores

Status = cmh.CpSolverStatus
OPTIMAL = Status.OPTIMAL
FEASIBLE = Status.FEASIBLE
INFEASIBLE = Status.INFEASIBLE
UNKNOWN = Status.UNKNOWN
MODEL_INVALID = Status.MODEL_INVALID


def sat_parameters(time_limit: float | None = None, workers: int | None = None,
                   ) -> cmh.SatParameters:
    """CP-SAT's parameters: ``time_limit`` seconds (None: none), ``workers`` threads, and
    Ctrl-C left to Python (see :func:`run_search`)."""
    parameters = cmh.SatParameters()
    if time_limit is not None:
        parameters.max_time_in_seconds = max(0.01, float(time_limit))
    parameters.num_workers = workers or DEFAULT_WORKERS
    parameters.catch_sigint_signal = False
    return parameters


class Search:
    """One CP-SAT search of a model proto, which any thread may stop (before it starts,
    too): what ``cp_model.CpSolver.solve`` does, without the modelling layer."""

    def __init__(self, parameters: cmh.SatParameters) -> None:
        self._wrapper = cmh.SolveWrapper()
        self._wrapper.set_parameters(parameters)

    def run(self, model: cmh.CpModelProto, callback: cmh.SolutionCallback | None = None,
            ) -> cmh.CpSolverResponse:
        """Search ``model`` (``callback`` is told of each solution), interruptibly
        (:func:`run_search`); CP-SAT's response."""
        if callback is not None:
            self._wrapper.add_solution_callback(callback)
        try:
            return run_search(self._wrapper.solve, model, stop=self.stop)
        finally:
            if callback is not None:
                self._wrapper.clear_solution_callback(callback)

    def stop(self) -> None:
        """End the search as soon as CP-SAT can (its status is then what it knew)."""
        self._wrapper.stop_search()


def run_search(solve: Callable[..., Any], *args: Any, stop: Callable[[], None]) -> Any:
    """``solve(*args)``, a CP-SAT search, with Ctrl-C left to Python: it stops the search
    (``stop()``) and goes on up as a ``KeyboardInterrupt``, as anywhere else.

    CP-SAT would install a Ctrl-C handler of its own for the solve (a Ctrl-C then only
    stops the search, as a time limit would, and the command goes on) and leave it in
    place, so a later Ctrl-C would end the whole process at once, without a word. It is
    told not to (:func:`sat_parameters`); on the main thread the search runs in a thread
    of its own (``interrupt.interruptible``), so Ctrl-C reaches Python at once and stops it.
    """
    if threading.current_thread() is not threading.main_thread():
        return solve(*args)
    return interruptible(solve, *args, stop=stop)


def new_solver(time_limit: float | None = None, workers: int | None = None,
               ) -> cp_model.CpSolver:
    """A ``cp_model`` solver with ``time_limit`` seconds (None: none) and ``workers``
    threads, for models built with ``cp_model`` (the towers)."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters = sat_parameters(time_limit, workers)
    return solver


def run_solver(solver: cp_model.CpSolver, model: cp_model.CpModel,
               callback: cp_model.CpSolverSolutionCallback | None = None,
               ) -> cmh.CpSolverStatus:
    """``solver.solve(model)`` as :func:`run_search` runs a search."""
    solver.parameters.catch_sigint_signal = False
    return run_search(solver.solve, model, callback, stop=solver.stop_search)
