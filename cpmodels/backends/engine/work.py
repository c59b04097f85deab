"""Units of counting work, and the one way they are split across processes.

Counting and sweeping both cut one search into independent *units*:

* a :class:`CountJob` is what every unit of one search shares: the exact cover, the items
  whose covering options split the counts (tally items) and the size of the table of
  sub-board counts. It is a plain picklable value, sent to a worker once;
* a unit is a tuple of *tasks*, and a task is the tuple of option ids forced before the
  search starts. A unit's result is one tally per task: ``{options covering the tally
  items: count}`` (``{(): n}`` when nothing is tallied).

A :class:`Counter` is a job made ready to run: the compiled cover, its tally layout and one
table of sub-board counts, which every task it runs shares. A counter belongs to one thread
at a time (it says so, rather than corrupt its table, when two threads share it); the job
it was made from can be shared freely.

:func:`count` (the engine's count in the backend contract) counts a cover this way:
its first branches here, the rest in workers once that has taken half a second.
:func:`run_units` runs units in worker processes and hands back each result as it finishes.
Each worker owns one counter, handed to it as an argument (no module-level state): where
processes can fork, the caller's counter, already warm, is inherited as it is; elsewhere
each worker compiles the job afresh. Units are dealt out in contiguous runs, one run per
worker, since neighbouring tasks share most sub-boards; a worker whose run is finished takes
the back half of the longest run left. A worker that dies (killed, out of memory) is
replaced and its unit run again, so no unit is lost.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import threading
import time
import traceback
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol

import numpy as np

from cpmodels.backends.engine import links
from cpmodels.backends.engine.drivers import tally_prefixes, top_branches
from cpmodels.backends.engine.layout import compile_cover
from cpmodels.backends.engine.memo import DEFAULT_MEMO_SLOTS, Memo, SearchStopped
from cpmodels.backends.engine.tally import tally_layout
from cpmodels.cover import ExactCover
from cpmodels.interrupt import leave_ctrl_c_to_parent, stop_after

Task = tuple[int, ...]  # option ids forced before the search
Unit = tuple[Task, ...]  # tasks run in turn by one worker, sharing its table
Tally = dict[tuple[int, ...], int]  # options covering the tally items -> solutions
Progress = Callable[[int, int], None]  # (branches done, branches in all)
MAX_RETRIES = 2  # times a unit is run again after the worker running it died


@dataclass(frozen=True)
class CountJob:
    """What every unit of one search shares (a plain value: it pickles)."""

    cover: ExactCover
    tally_items: tuple[int, ...] = ()
    memo_slots: int = DEFAULT_MEMO_SLOTS
    arena: int | None = None  # slots of the count-vector arena (None: 4 per table slot)


class Counter:
    """A :class:`CountJob` compiled, with its tally layout and table of sub-board counts.

    Not for two threads at once: a second thread that calls :meth:`tally` while the first
    is in it gets a ``RuntimeError``. :meth:`stop` may be called from any thread.
    """

    def __init__(self, job: CountJob) -> None:
        self.job = job
        self.compiled = compile_cover(job.cover)
        self.layout = tally_layout(self.compiled, list(job.tally_items))
        self.memo = Memo(self.compiled.n_words, job.memo_slots, job.arena)
        self._busy = threading.Lock()

    def tally(self, task: Task, regions: tuple[Any, int] | None = None) -> Tally:
        """The solutions that contain the options of ``task``, split by the tally items.

        ``regions`` replaces the cover's fillable region sizes (see ``tally_prefixes``).
        Raises :class:`~.memo.SearchStopped` once :meth:`stop` was called.
        """
        if not self._busy.acquire(blocking=False):
            raise RuntimeError("a Counter is used by one thread at a time; give each "
                               "thread its own")
        try:
            return tally_prefixes(self.compiled, self.layout, [list(task)], self.memo,
                                  regions)[0]
        finally:
            self._busy.release()

    def count(self, task: Task = ()) -> int:
        """The number of solutions that contain the options of ``task`` (no tally)."""
        return sum(self.tally(task).values())

    def run(self, unit: Unit) -> list[Tally]:
        """Every task of ``unit``, in turn."""
        return [self.tally(task) for task in unit]

    def stop(self) -> None:
        """End the search in progress, and every later one, as soon as possible."""
        self.memo.stop()

    @property
    def stopped(self) -> bool:
        return self.memo.stopped

    def branches(self) -> list[Task]:
        """Disjoint tasks that together make the whole search: its first branching step."""
        return [tuple(branch) for branch in top_branches(self.compiled)]

    def split(self, task: Task) -> list[Task]:
        """``task`` cut into the disjoint tasks that together make it: one per option that
        can cover the first item it leaves open (the search's next branching step). A task
        that cannot be cut (nothing left open, or no option fits) stays whole."""
        cc = self.compiled
        filled = np.zeros(cc.n_words, dtype=np.uint64)
        counters = np.zeros(len(cc.counter_low), dtype=np.int64)
        for o in task:
            filled |= cc.opt_mask[o]
            if cc.opt_counter[o] >= 0:
                counters[cc.opt_counter[o]] += 1
        pos = next((b for b in range(cc.n_branch)
                    if not int(filled[b >> 6]) >> (b & 63) & 1), None)
        if pos is None:
            return [task]
        parts = []
        for o in cc.anchor_opts[cc.anchor_start[pos]:cc.anchor_start[pos + 1]]:
            c, tw = cc.opt_counter[o], cc.opt_tag_word[o]
            if np.any(cc.opt_mask[o] & filled) or (c >= 0 and counters[c] >= cc.counter_high[c]):
                continue
            if tw >= 0 and filled[tw] & cc.opt_tag_bit[o]:
                continue
            parts.append((*task, int(o)))
        return parts or [task]


def split_tasks(counter: Counter, tasks: Sequence[Task], at_least: int,
                depth: int = 3) -> list[list[Task]]:
    """Each task cut (breadth first, at most ``depth`` steps) until there are ``at_least``
    parts in all: for each task, the parts whose tallies add up to its tally."""
    parts = [[task] for task in tasks]
    for _ in range(depth):
        if sum(map(len, parts)) >= at_least:
            break
        parts = [[piece for part in group for piece in counter.split(part)] for group in parts]
    return parts


def add_tallies(tallies: Sequence[Tally]) -> Tally:
    """The tally of a task from the tallies of its parts."""
    total: Tally = {}
    for tally in tallies:
        for key, n in tally.items():
            total[key] = total.get(key, 0) + n
    return total


def can_fork_here() -> bool:
    """Whether worker processes may be forked from this thread.

    Only from the main thread: forking a process while other threads of it hold locks can
    leave the child stuck, and a caller off the main thread (a server's or a notebook's
    thread pool) is already running work side by side.
    """
    return ("fork" in mp.get_all_start_methods()
            and threading.current_thread() is threading.main_thread())


class Runner(Protocol):
    """Anything that runs units in a worker: a :class:`Counter`, or another object with a
    ``run(unit)`` method (a design's candidate sets) handed over by fork."""

    def run(self, unit: Any) -> Any: ...


def _worker(source: Runner | CountJob, conn: Connection) -> None:
    """A worker process: run each unit it is sent, answer with its results, until None."""
    leave_ctrl_c_to_parent()
    counter = Counter(source) if isinstance(source, CountJob) else source
    while True:
        message = conn.recv()
        if message is None:
            return
        index, unit = message
        try:
            conn.send(("done", index, counter.run(unit)))
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


def run_units(job: CountJob | None, units: Sequence[Any], *, jobs: int,
              warm: Runner | None = None, deadline: float | None = None,
              ) -> Generator[tuple[int, Any], None, None]:
    """Run ``units`` in ``jobs`` worker processes; yield ``(unit index, results)`` as each
    unit finishes (in no fixed order; see :func:`in_order`).

    ``warm``, a counter of ``job`` (its table filled by work done here), is what forked
    workers start from; any other runner (``job`` None) needs fork. Closing the iterator
    early (Ctrl-C) stops the workers, and so does ``deadline`` (a ``time.perf_counter``
    value), which raises ``TimeoutError``.
    """
    fork = can_fork_here()
    context: Any = mp.get_context("fork" if fork else "spawn")
    source = warm if fork and warm is not None else job
    if source is None:
        raise WorkerFailed("these units need worker processes forked from this one")
    order = list(range(len(units)))
    n = max(1, min(jobs, len(order)))
    size = -(-len(order) // n)
    runs = [order[k * size:(k + 1) * size] for k in range(n)]
    retries = dict.fromkeys(order, 0)
    slots: list[_Slot] = []

    def start(run: list[int]) -> _Slot:
        parent, child = context.Pipe()
        process = context.Process(target=_worker, args=(source, child), daemon=True,
                                  name="cpmodels-worker")
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
                raise TimeoutError("the deadline passed with units left")
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


def in_order(results: Iterator[tuple[int, Any]]) -> Generator[Any, None, None]:
    """The results of :func:`run_units` by unit index, each as soon as its turn comes."""
    held: dict[int, Any] = {}
    turn = 0
    for index, result in results:
        held[index] = result
        while turn in held:
            yield held.pop(turn)
            turn += 1


PARALLEL_AFTER = 0.5  # seconds of counting here before the other branches go to workers


def count(cover: ExactCover, *, time_limit: float | None = None, forced: Sequence[int] = (),
          progress: Progress | None = None, jobs: int | None = None) -> int | None:
    """Count every solution (that contains the ``forced`` options), one top-level branch at
    a time, so it can stop and report ``progress(done, in all)``.

    ``None`` when ``time_limit`` seconds pass first. Branches are
    counted here; once that has taken more than half a second, the rest are shared among
    ``jobs`` worker processes (default: every core), which start from this call's compiled
    cover and table of sub-board counts. Safe to call from several threads at once: each
    call owns its counter, and off the main thread it counts in the calling thread. A solid
    is counted by dancing links instead, in threads (:mod:`.links`).
    """
    if links.suits(cover):  # a solid: the most constrained item first (links.py)
        return links.count(cover, time_limit=time_limit, forced=tuple(forced),
                           progress=progress, jobs=jobs or os.cpu_count() or 1)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    job = CountJob(cover)
    counter = Counter(job)
    pending = [tuple(forced)] if forced else counter.branches()
    in_all = len(pending)
    jobs = jobs or os.cpu_count() or 1
    parallel = jobs > 1 and can_fork_here()
    start = time.perf_counter()
    total = done = 0

    def counted(n: int) -> bool:
        """Add one branch's count; False when the deadline has passed."""
        nonlocal total, done
        total, done = total + n, done + 1
        if progress is not None:
            progress(done, in_all)
        return deadline is None or time.perf_counter() <= deadline

    try:
        with stop_after(None if deadline is None else deadline - time.perf_counter(),
                        counter.stop):
            while pending and (not parallel or len(pending) < 2
                               or time.perf_counter() - start < PARALLEL_AFTER):
                if not counted(counter.count(pending.pop(0))):
                    return None
    except SearchStopped:
        return None
    if not pending:
        return total
    results = run_units(job, [(branch,) for branch in pending], jobs=jobs, warm=counter,
                        deadline=deadline)
    try:
        for _, (tally,) in results:
            if not counted(sum(tally.values())):
                return None
    except TimeoutError:
        return None
    finally:
        results.close()
    return total
