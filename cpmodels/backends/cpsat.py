"""CP-SAT backend: one boolean per option, each item covered within its bounds.

The model is a ``CpModelProto`` built directly (:func:`cover_model`, also what ``export``
writes) and run through CP-SAT's compiled core (:mod:`cpmodels.cpsat_runtime`), so a
packing search loads neither ``cp_model`` nor the pandas and numpy it loads.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence

from ortools.sat.python import cp_model_helper as cmh

from cpmodels.backends.result import CoverResult, count_by_enumeration
from cpmodels.cover import ExactCover
from cpmodels.cpsat_runtime import (
    FEASIBLE,
    INFEASIBLE,
    MODEL_INVALID,
    OPTIMAL,
    Search,
    sat_parameters,
)
from cpmodels.errors import OutOfTime

NAME = "cpsat"
STREAMS = True  # solutions come through a queue as CP-SAT finds them
# One search thread finds a cover or proves there is none fastest (the calendars, the 6x10
# and 8x8 boxes, soma: 1.5x to 4x faster than CP-SAT's portfolio of 8 on 2 cores)
COVER_WORKERS = 1
STREAM_BUFFER = 256  # solutions found ahead of the consumer before the search waits


def cover_model(cover: ExactCover, forced: Sequence[int] = ()) -> cmh.CpModelProto:
    """The CP-SAT model of an exact cover: variable ``j`` (named ``o{j}``) is 1 when option
    ``j`` is chosen; each item is covered exactly once, at most once, or within its bounds;
    the ``forced`` options are chosen."""
    model = cmh.CpModelProto()
    for j in range(len(cover.options)):
        variable = model.variables.add()
        variable.name = f"o{j}"
        variable.domain.extend((0, 1))
    for item, option_ids in zip(cover.items, cover.item_options()):
        constraint = model.constraints.add()
        if item.low == item.high == 1:
            constraint.exactly_one.literals.extend(option_ids)
        elif item.low == 0 and item.high == 1:
            constraint.at_most_one.literals.extend(option_ids)
        else:
            _add_linear(constraint, option_ids, item.low, item.high)
    for j in forced:
        _add_linear(model.constraints.add(), [j], 1, 1)
    return model


def _add_linear(constraint: cmh.ConstraintProto, variables: Sequence[int], low: int,
                high: int) -> None:
    """``low <= sum(variables) <= high``."""
    constraint.linear.vars.extend(variables)
    constraint.linear.coeffs.extend([1] * len(variables))
    constraint.linear.domain.extend((low, high))


def _chosen(values: Sequence[int]) -> list[int]:
    """The chosen options of a solution (the values of the variables, in order)."""
    return [j for j, value in enumerate(values) if value]


def solve(cover: ExactCover, *, time_limit: float | None = None, forced: Sequence[int] = (),
          workers: int | None = None) -> CoverResult:
    """Find one solution, prove there is none, or give up at the time limit (``workers``
    search threads, :data:`COVER_WORKERS` unless given)."""
    start = time.perf_counter()
    model = cover_model(cover, forced)
    response = Search(sat_parameters(time_limit, workers or COVER_WORKERS)).run(model)
    seconds = time.perf_counter() - start
    if response.status in (OPTIMAL, FEASIBLE):
        return CoverResult("solved", NAME, seconds, _chosen(response.solution))
    if response.status == INFEASIBLE:
        return CoverResult("unsolvable", NAME, seconds)
    if response.status == MODEL_INVALID:  # pragma: no cover - a bug in cover_model
        raise RuntimeError("CP-SAT rejected the model: "
                           f"{cmh.CpSatHelper.validate_model(model)}")
    return CoverResult("unknown", NAME, seconds)


class _Stream(cmh.SolutionCallback):
    """Hands each solution to the consumer through a bounded queue (the search waits while
    the queue is full); stops the search once the consumer has gone."""

    def __init__(self, n_options: int, out: queue.Queue, gone: threading.Event) -> None:
        cmh.SolutionCallback.__init__(self)
        self._n_options = n_options
        self._out = out
        self._gone = gone

    def OnSolutionCallback(self) -> None:  # CP-SAT calls it by this name
        solution = _chosen([self.SolutionBooleanValue(j) for j in range(self._n_options)])
        while not self._gone.is_set():
            with contextlib.suppress(queue.Full):
                self._out.put(solution, timeout=0.1)
                return
        self.StopSearch()


_DONE = object()  # the end of a stream (immutable: shared safely)


def iter_solutions(cover: ExactCover, *, time_limit: float | None = None,
                   forced: Sequence[int] = ()) -> Iterator[list[int]]:
    """Every solution (option indices), streamed as CP-SAT finds them on one worker;
    raises :class:`~cpmodels.errors.OutOfTime` when ``time_limit`` seconds pass before the
    last one."""
    model = cover_model(cover, forced)
    parameters = sat_parameters(time_limit, 1)
    parameters.enumerate_all_solutions = True
    search = Search(parameters)
    out: queue.Queue = queue.Queue(maxsize=STREAM_BUFFER)
    gone = threading.Event()
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            stream = _Stream(len(cover.options), out, gone)
            outcome["status"] = search.run(model, stream).status
        except BaseException as exc:  # handed to the consumer
            outcome["error"] = exc
        while not gone.is_set():
            with contextlib.suppress(queue.Full):
                out.put(_DONE, timeout=0.1)
                return

    thread = threading.Thread(target=run, daemon=True, name="cpmodels-cpsat")
    thread.start()
    try:
        while True:
            try:
                item = out.get(timeout=0.1)  # short waits: Ctrl-C is not held up
            except queue.Empty:
                continue
            if item is _DONE:
                break
            yield item
    finally:
        gone.set()
        search.stop()
        thread.join(5)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    if outcome.get("status") not in (OPTIMAL, INFEASIBLE):
        raise OutOfTime(f"CP-SAT stopped at the time limit ({time_limit} s) before "
                           "the last solution")


def count(cover: ExactCover, *, time_limit: float | None = None, forced: Sequence[int] = (),
          progress: Callable[[int, int], None] | None = None) -> int:
    """How many solutions, counted as they are enumerated (``OutOfTime`` at the time limit)."""
    return count_by_enumeration(iter_solutions, cover, time_limit=time_limit, forced=forced,
                                progress=progress)
