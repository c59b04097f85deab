"""Units of work run in worker processes on this machine (``scheduling.py`` is the door).

A *runner* is anything with a ``run(unit)`` method: an
:class:`~cpmodels.backends.engine.session.EngineSession` (a unit is a tuple of tasks, each
tallied) or a design's candidate sets (a unit is a tuple of sets, each decided).
:func:`run_units` runs units in worker processes and hands back each result as it finishes.
Each worker owns one runner, handed to it as an argument (no module-level state): where
processes can fork, the caller's runner, already warm (its tables filled by work done
here), is inherited as it is; elsewhere it is pickled, and the worker compiles it afresh.
Units are dealt out in contiguous runs, one run per worker, since neighbouring tasks share
most sub-boards; a worker whose run is finished takes the back half of the longest run
left. A worker that dies (killed, out of memory) is replaced and its unit run again, so no
unit is lost.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import traceback
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from cpmodels.errors import OutOfTime
from cpmodels.interrupt import ctrl_c_held, leave_ctrl_c_to_parent
from cpmodels.workers import cores, worker_count

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

MAX_RETRIES = 2  # times a unit is run again after the worker running it died


def can_fork_here() -> bool:
    """Whether worker processes may be forked from this thread.

    Only from the main thread: forking a process while other threads of it hold locks can
    leave the child stuck, and a caller off the main thread (a server's or a notebook's
    thread pool) is already running work side by side.
    """
    return hasattr(os, "fork") and threading.current_thread() is threading.main_thread()


def workers_for(jobs: int | None) -> int:
    """The worker processes ``jobs`` asks for (None: every core), never more than the
    cores: a larger number (``--jobs 4096``) is one process per core, not one each. A
    ``jobs`` that is not a whole number from 1 to ``MAX_JOBS`` is an :class:`InputError`
    (:func:`cpmodels.workers.worker_count`)."""
    return worker_count(jobs) or cores()


class Runner(Protocol):
    """Anything that runs units in a worker: an engine session, or another object with a
    ``run(unit)`` method (a design's candidate sets)."""

    def run(self, unit: Any) -> Any: ...


def _worker(runner: Runner, conn: Connection, parents: Connection | None = None) -> None:
    """A worker process: run each unit it is sent, answer with its results, until None, or
    until the parent is gone (``parents``: the parent's end of the pipe, closed here, so
    the worker sees the parent go)."""
    leave_ctrl_c_to_parent()
    if parents is not None:
        parents.close()
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if message is None:
            return
        index, unit = message
        try:
            conn.send(("done", index, runner.run(unit)))
        except Exception:
            conn.send(("error", index, traceback.format_exc()))
            return


class WorkerFailed(RuntimeError):
    """A unit failed in a worker (a bug), or killed every worker that ran it."""


@dataclass
class _Slot:
    process: Any
    conn: Connection
    run: list[int]  # unit indices still to do, in order
    busy: int | None = None  # the unit being run


def run_units(runner: Runner, units: Sequence[Any], *, jobs: int,
              deadline: float | None = None) -> Generator[tuple[int, Any], None, None]:
    """Run ``units`` in ``jobs`` worker processes; yield ``(unit index, results)`` as each
    unit finishes (in no fixed order).

    Forked workers start from ``runner`` as it is here (warm); spawned ones from a pickled
    copy. Closing the iterator early (Ctrl-C) stops the workers, and so does ``deadline``
    (a ``time.perf_counter`` value), which raises :class:`~cpmodels.errors.OutOfTime`.
    """
    import multiprocessing  # (here: a count that fits this process starts no worker)
    from multiprocessing.connection import wait

    fork = can_fork_here()
    context: Any = multiprocessing.get_context("fork" if fork else "spawn")
    order = list(range(len(units)))
    n = max(1, min(workers_for(jobs), len(order)))
    size = -(-len(order) // n)
    runs = [order[k * size:(k + 1) * size] for k in range(n)]
    retries = dict.fromkeys(order, 0)
    slots: list[_Slot] = []

    def start(run: list[int]) -> _Slot:
        parent, child = context.Pipe()
        process = context.Process(target=_worker, args=(runner, child, parent if fork else None),
                                  daemon=True, name="cpmodels-worker")
        with ctrl_c_held():  # known to the parent (and stopped with the rest) once started
            process.start()
            child.close()
            slot = _Slot(process, parent, run)
            slots.append(slot)
        return slot

    def feed(slot: _Slot) -> None:
        if not slot.run:  # take the back half of the longest run left
            longest = max(slots, key=lambda s: len(s.run))
            half = len(longest.run) // 2
            if half:
                slot.run, longest.run = longest.run[-half:], longest.run[:-half]
            elif longest.run:
                slot.run = [longest.run.pop()]
        if slot.run:
            slot.busy = slot.run.pop(0)
            # A dead worker cannot take it: its sentinel says so next, and the unit runs again.
            with contextlib.suppress(OSError):
                slot.conn.send((slot.busy, units[slot.busy]))
        else:
            slot.busy = None

    remaining = len(order)
    try:
        for run in runs:
            feed(start(run))
        while remaining:
            waiting = {s.conn: s for s in slots if s.busy is not None}
            dead = {s.process.sentinel: s for s in slots if s.busy is not None}
            if not waiting:
                raise WorkerFailed("no worker is running and units are left")  # cannot happen
            timeout = None if deadline is None else deadline - time.perf_counter()
            if timeout is not None and timeout <= 0:
                raise OutOfTime("the time limit passed with units left")
            for ready in wait([*waiting, *dead], timeout):
                slot = waiting.get(ready) or dead[ready]  # type: ignore[call-overload]
                if slot.busy is None:
                    continue
                if ready is slot.conn or slot.conn.poll():
                    try:
                        kind, index, payload = slot.conn.recv()
                    except EOFError:
                        kind = "died"
                    else:
                        if kind == "error":
                            raise WorkerFailed(f"unit {index} failed in a worker:\n{payload}")
                        slot.busy = None
                        remaining -= 1
                        yield index, payload
                        feed(slot)
                        continue
                # The worker died with a unit: run it again in a new worker.
                index = slot.busy
                slot.busy = None
                slots.remove(slot)
                slot.process.join(1)
                retries[index] += 1
                if retries[index] > MAX_RETRIES:
                    raise WorkerFailed(
                        f"unit {index} killed {retries[index]} workers (exit code "
                        f"{slot.process.exitcode}; out of memory?)")
                feed(start([index, *slot.run]))
    finally:
        for slot in slots:
            if slot.process.is_alive():
                slot.process.terminate()
        for slot in slots:
            slot.process.join(5)
            slot.conn.close()
