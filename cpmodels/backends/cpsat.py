"""CP-SAT backend: one boolean per option, each item covered within its bounds."""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence

from ortools.sat.python import cp_model

from cpmodels.backends.result import CoverResult, count_by_enumeration
from cpmodels.cover import ExactCover
from cpmodels.cpsat_runtime import new_solver, run_solver
from cpmodels.errors import OutOfTime

NAME = "cpsat"
STREAMS = True  # solutions come through a queue as CP-SAT finds them
STREAM_BUFFER = 256  # solutions found ahead of the consumer before the search waits


def build_cover_model(cover: ExactCover) -> tuple[cp_model.CpModel, list[cp_model.IntVar]]:
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


def _forced_model(cover: ExactCover, forced: Sequence[int],
                  ) -> tuple[cp_model.CpModel, list[cp_model.IntVar]]:
    model, chosen = build_cover_model(cover)
    for j in forced:
        model.add(chosen[j] == 1)
    return model, chosen


def solve(cover: ExactCover, *, time_limit: float | None = None, forced: Sequence[int] = (),
          workers: int | None = None) -> CoverResult:
    """Find one solution, prove there is none, or give up at the time limit."""
    start = time.perf_counter()
    model, chosen = _forced_model(cover, forced)
    solver = new_solver(time_limit, workers)
    status = run_solver(solver, model)
    seconds = time.perf_counter() - start
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        picked = [j for j, var in enumerate(chosen) if solver.boolean_value(var)]
        return CoverResult("solved", NAME, seconds, picked)
    if status == cp_model.INFEASIBLE:
        return CoverResult("unsolvable", NAME, seconds)
    if status == cp_model.MODEL_INVALID:  # pragma: no cover - a bug in build_model
        raise RuntimeError(f"CP-SAT rejected the model: {model.validate()}")
    return CoverResult("unknown", NAME, seconds)


class _Stream(cp_model.CpSolverSolutionCallback):
    """Hands each solution to the consumer through a bounded queue (the search waits while
    the queue is full); stops the search once the consumer has gone."""

    def __init__(self, chosen: list[cp_model.IntVar], out: queue.Queue,
                 gone: threading.Event) -> None:
        super().__init__()
        self._chosen = chosen
        self._out = out
        self._gone = gone

    def on_solution_callback(self) -> None:
        solution = [j for j, v in enumerate(self._chosen) if self.boolean_value(v)]
        while not self._gone.is_set():
            with contextlib.suppress(queue.Full):
                self._out.put(solution, timeout=0.1)
                return
        self.stop_search()


_DONE = object()  # the end of a stream (immutable: shared safely)


def iter_solutions(cover: ExactCover, *, time_limit: float | None = None,
                   forced: Sequence[int] = ()) -> Iterator[list[int]]:
    """Every solution (option indices), streamed as CP-SAT finds them on one worker;
    raises :class:`~cpmodels.errors.OutOfTime` when ``time_limit`` seconds pass before the
    last one."""
    model, chosen = _forced_model(cover, forced)
    solver = new_solver(time_limit, 1)
    solver.parameters.enumerate_all_solutions = True
    out: queue.Queue = queue.Queue(maxsize=STREAM_BUFFER)
    gone = threading.Event()
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["status"] = run_solver(solver, model, _Stream(chosen, out, gone))
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
        solver.stop_search()
        thread.join(5)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    if outcome.get("status") not in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
        raise OutOfTime(f"CP-SAT stopped at the time limit ({time_limit} s) before "
                           "the last solution")


def count(cover: ExactCover, *, time_limit: float | None = None, forced: Sequence[int] = (),
          progress: Callable[[int, int], None] | None = None) -> int:
    """How many solutions, counted as they are enumerated (``OutOfTime`` at the time limit)."""
    return count_by_enumeration(iter_solutions, cover, time_limit=time_limit, forced=forced,
                                progress=progress)
