"""Where work is run: a plan, a place and a sink, and :func:`run` to join them.

Features describe their work; this module runs it (above the engine session, below the
sweep, design, the web and the command line).

* A **plan** (:class:`Plan`) is the work described, nothing started: its *items* (a
  sweep's tasks, a design's candidate sets, a board's tasks) in the order their results
  should come first, and how to make the *worker* that runs them (an engine session tallies
  tasks, a design decides sets: anything with ``run(unit)``, a unit being a tuple of items,
  answered with one result per item, and ``stop()``). A plan may lead with *preview*
  items, run first on a small worker of their own so that a stream's first lines come at
  once (their results may come again with the items).
* A **place** is where the items run: :class:`Here` (this thread, item by item),
  :class:`Threads` (workers side by side in this process: the engine's kernels release the
  interpreter lock), :class:`Processes` (worker processes, through the engine's
  ``run_units``; a worker that dies has its unit run again) or :class:`OnCluster` (a Dask
  cluster's workers, where a worker that dies loses nothing either). :func:`place_for`
  picks one from ``jobs`` and ``cluster`` as the command line and the API take them.
* A **sink** takes each result as it comes: :class:`Memory` keeps them (in item order),
  :class:`ResumableFile` appends lines that a later run resumes from (through
  ``files.open_stream``); :meth:`Run.results` is itself the stream that the server sends
  as NDJSON lines.

:class:`Run` is one plan at one place: its results as they come, stoppable from any thread
(the workers' searches stop at their next check and nothing more comes), and ended however
its reader leaves (Ctrl-C, an error, a closed connection). Threads and processes are started
here, by the web server (``web/limits.py``, its stream producer) and inside the engine for
its own searches; nowhere else (``tests/test_architecture.py`` holds this).
"""

from __future__ import annotations

import contextlib
import csv
import io
import multiprocessing
import queue
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

from cpmodels.backends.engine import (
    parallel_here,
    run_units,
    tally_tasks,
    tasks_stay_here,
    units_wanted,
    workers_for,
)
from cpmodels.errors import CpmodelsError, InputError, OutOfTime
from cpmodels.files import open_stream, write_atomic
from cpmodels.interrupt import ctrl_c_held, leave_ctrl_c_to_parent, seconds_left

if TYPE_CHECKING:
    from cpmodels.backends.engine import Cluster

UNITS_PER_JOB = 8  # units per worker process: enough for the loads to even out
MAX_UNIT = 16  # items in one unit: results come back (and are written) at least this often
JOIN_SECONDS = 2.0  # how long a stopped run waits for each of its threads


class Worker(Protocol):
    """What runs a plan's items: ``run`` answers a unit (a tuple of items) with one result
    per item; ``stop`` ends its search in progress, from any thread."""

    def run(self, unit: Any) -> Any: ...

    def stop(self) -> None: ...


@dataclass
class Plan:
    """Work described, not started: ``items`` in the order their results should come first,
    ``worker()`` to make a worker for them (one per thread; worker processes start from one
    made here), ``prepare(worker)`` run on each worker, in its thread, before its first item
    (while the run can already stop it). ``preview`` items are run first, on a worker of
    their own (``preview_worker()``), for a stream's first lines. With ``tallied``, the items
    are tasks of an engine session (the worker) tallied: processes start only once the first
    task took a while, and a cluster gets each task cut into parts (the engine's
    ``tally_tasks``)."""

    items: Iterable[Any]  # a sequence, or (here alone) made one by one as they are taken
    worker: Callable[[], Worker]
    prepare: Callable[[Any], None] | None = None
    preview: Sequence[Any] = ()
    preview_worker: Callable[[], Worker] | None = None
    tallied: bool = False


@dataclass(frozen=True)
class Finished:
    """One item's result: ``index`` into the plan's items (None for a preview item)."""

    index: int | None
    item: Any
    result: Any


class Here:
    """This thread, one item at a time, in order."""

    def begin(self, plan: Plan, run: Run) -> Iterator[Finished]:
        return self._results(plan, run)

    @staticmethod
    def _results(plan: Plan, run: Run) -> Iterator[Finished]:
        yield from _previews(plan, run)
        worker = run.enlist(plan.worker(), plan.prepare)
        counted = plan.tallied and hasattr(worker, "stats")
        before = worker.stats["nodes"] if counted else 0
        for index, item in enumerate(plan.items):
            if run.stopped:
                return
            run.check_time()
            result = worker.run((item,))[0]
            if counted:
                run.nodes = worker.stats["nodes"] - before
            yield Finished(index, item, result)


@dataclass(frozen=True)
class Threads:
    """``threads`` workers side by side in this process, each made in its own thread and
    taking the next item in order whenever it is free (items of unequal work even out);
    the first thread runs the previews first. A tallied plan's items are run as the
    engine's ``tally_tasks`` runs a sweep's: on the first thread's worker (its table warm)
    as long as ``tasks_stay_here`` says the rest would be quick (the other threads' tables
    start empty), and only then shared with the other threads. Results come as they are
    made (in no fixed order). A worker's
    error is raised to the reader unless the run was stopped; a reader that leaves early
    stops the others."""

    threads: int = 2

    def begin(self, plan: Plan, run: Run) -> Iterator[Finished]:
        items = list(plan.items)
        if not items and not plan.preview:
            return iter(())
        n = max(1, min(self.threads, len(items)))
        found: queue.Queue[Any] = queue.Queue()
        taken = 0  # items taken so far (in order)
        taking = threading.Lock()
        shared = threading.Event()  # the other threads may start
        if not plan.tallied:
            shared.set()

        def take() -> int | None:
            nonlocal taken
            with taking:
                if taken == len(items):
                    return None
                taken += 1
                return taken - 1

        def job(k: int) -> None:
            first: float | None = None
            try:
                if k == 0:
                    for done in _previews(plan, run):
                        found.put(done)
                else:
                    shared.wait()
                    if run.stopped or taken == len(items):
                        return
                worker = run.enlist(plan.worker(), plan.prepare)
                while not run.stopped and (index := take()) is not None:
                    start = time.process_time()  # (CPU: the clock counts a busy machine's)
                    found.put(Finished(index, items[index], worker.run((items[index],))[0]))
                    if shared.is_set():
                        continue
                    took = time.process_time() - start
                    left = len(items) - taken
                    if first is None:  # the second item runs here too, its table warm
                        first = took
                    elif left >= 2 and not tasks_stay_here(first, took, left, cold=True):
                        shared.set()  # the rest would be long: share it out
            except BaseException as exc:  # handed to the reader
                if not run.stopped:
                    found.put(_Failed(exc))
            finally:
                if k == 0:
                    shared.set()  # the others wait no more, whatever happened here
                found.put(_END)

        threads = [threading.Thread(target=job, args=(k,), daemon=True,
                                    name=f"cpmodels-run-{k}") for k in range(n)]
        for thread in threads:
            thread.start()
        return _Reading(found, threads, run)


class _Reading:
    """What threads put on the queue, as an iterator; closing it before the threads are
    done stops the run and waits for them."""

    def __init__(self, found: queue.Queue[Any], threads: list[threading.Thread],
                 run: Run) -> None:
        self.found, self.threads, self.run = found, threads, run
        self.finished = 0

    def __iter__(self) -> _Reading:
        return self

    def __next__(self) -> Finished:
        while self.finished < len(self.threads):
            item = self.found.get()
            if item is _END:
                self.finished += 1
            elif isinstance(item, _Failed):
                self.close()
                raise item.error
            else:
                return item
        raise StopIteration

    def close(self) -> None:
        if self.finished < len(self.threads):  # an error, or the reader left: stop the rest
            self.run.stop()
        for thread in self.threads:
            thread.join(timeout=JOIN_SECONDS)


@dataclass(frozen=True)
class Processes:
    """``jobs`` worker processes (None: every core), each starting from one worker made
    here (forked warm from the main thread; elsewhere spawned, compiled again). Items go
    in contiguous units of at most :data:`MAX_UNIT`; a tallied plan's tasks run as the
    engine's ``tally_tasks`` runs them (the first here), in order."""

    jobs: int | None = None

    def begin(self, plan: Plan, run: Run) -> Iterator[Finished]:
        return _in_units(plan, run, self.jobs, None)


@dataclass(frozen=True)
class OnCluster:
    """A Dask cluster's workers (``engine.connect``); a worker that dies has its units run
    again elsewhere. :attr:`Run.units` says how many units were sent."""

    cluster: Cluster

    def begin(self, plan: Plan, run: Run) -> Iterator[Finished]:
        return _in_units(plan, run, None, self.cluster)


Place = Here | Threads | Processes | OnCluster


def place_for(jobs: int | None = None, cluster: Cluster | None = None) -> Place:
    """Where ``jobs`` and ``cluster`` (as the command line and the API take them) say work
    runs: on the cluster when there is one, else in worker processes when more than one
    job is asked for (None: every core) and this thread may fork them, else here."""
    if cluster is not None:
        return OnCluster(cluster)
    return Processes(jobs) if parallel_here(jobs) else Here()


class Run:
    """One plan at one place: :meth:`results` as they come, :meth:`stop` from any thread.
    Past ``time_limit`` seconds (from the start) it raises
    :class:`~cpmodels.errors.OutOfTime`; once stopped it ends quietly."""

    def __init__(self, plan: Plan, place: Place, *, time_limit: float | None = None) -> None:
        self.plan, self.place, self.time_limit = plan, place, time_limit
        self.units = 0  # units of work sent to a cluster (0: none)
        self.nodes = 0  # a tallied plan's search nodes, here and in the workers
        self.deadline: float | None = None
        self._stopped = threading.Event()
        self._workers: list[Worker] = []
        self._lock = threading.Lock()
        self._started: Iterator[Finished] | None = None

    def start(self) -> Run:
        """Begin now (threads start at once) rather than when the results are first read."""
        if self._started is None:
            if self.time_limit is not None:
                self.deadline = time.perf_counter() + self.time_limit
            self._started = self.place.begin(self.plan, self)
        return self

    def results(self) -> Iterator[Finished]:
        """Each item's result as it is done (in item order here and in processes, as
        they come in threads and on a cluster); nothing more once stopped. The workers
        (sessions, their tables) are let go when this ends, however it ends."""
        if self._stopped.is_set():
            return
        started = self.start()._started
        assert started is not None
        try:
            for done in started:
                if self.stopped:
                    return
                yield done
                self.check_time()
        except OutOfTime:
            if not self.stopped:
                raise
        finally:
            close = getattr(started, "close", None)
            if close is not None:
                close()  # ends the workers: threads are stopped, processes ended
            with self._lock:
                self._workers = []

    def close(self) -> None:
        """Stop the run and end its place's work (threads waited for, processes ended)."""
        self.stop()
        close = getattr(self._started, "close", None)
        if close is not None:
            close()

    def stop(self) -> None:
        """End the run as soon as its workers look (from any thread)."""
        self._stopped.set()
        with self._lock:
            workers = list(self._workers)
        for worker in workers:
            worker.stop()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def seconds_left(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.perf_counter())

    def check_time(self) -> None:
        """:class:`OutOfTime` once the time limit has passed."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfTime("the time limit passed")

    def enlist(self, worker: Worker, prepare: Callable[[Any], None] | None = None) -> Any:
        """A place's worker, made known so that :meth:`stop` reaches it, then prepared."""
        with self._lock:
            self._workers.append(worker)
        if self.stopped:
            worker.stop()
        if prepare is not None:
            prepare(worker)
        return worker


class Sink(Protocol):
    """Where results go, each as it comes."""

    def take(self, done: Finished) -> None: ...


def run(plan: Plan, place: Place, sink: Sink, *, time_limit: float | None = None) -> Run:
    """Run ``plan`` at ``place`` to its end, each result handed to ``sink`` as it comes;
    the run (for :attr:`Run.units`). Raises what the work raises (``OutOfTime`` past
    ``time_limit``, ``KeyboardInterrupt``): the sink then holds what was finished."""
    running = Run(plan, place, time_limit=time_limit)
    for done in running.results():
        sink.take(done)
    return running


class Memory:
    """Results kept in memory (previews left out); ``on_result(result)`` hears of each as
    it comes."""

    def __init__(self, on_result: Callable[[Any], None] | None = None) -> None:
        self.found: dict[int, Any] = {}
        self.on_result = on_result

    def take(self, done: Finished) -> None:
        if done.index is None:
            return
        self.found[done.index] = done.result
        if self.on_result is not None:
            self.on_result(done.result)

    def in_order(self) -> list[Any]:
        """The results kept, in item order."""
        return [self.found[index] for index in sorted(self.found)]


class ResumableFile:
    """An output that a later run resumes: lines appended and flushed as they come
    (``files.open_stream``), so an interrupted run keeps complete lines only. With
    ``append`` the file is continued; ``rewrite`` (the lines an earlier run finished, as
    they should stand) first replaces it whole, dropping a line a killed run cut.
    ``lines_of(done)`` turns a result into lines when the file is used as a sink. Use it
    as a context manager."""

    def __init__(self, path: Path, *, append: bool = False,
                 rewrite: Sequence[str] | None = None,
                 lines_of: Callable[[Finished], Iterable[str]] | None = None) -> None:
        self.path, self.lines_of = path, lines_of
        if rewrite is not None:
            write_atomic(path, "".join(line + "\n" for line in rewrite))
        self.handle: IO[str] = open_stream(path, append=append or rewrite is not None)

    def write(self, lines: Iterable[str]) -> None:
        """Append ``lines`` (each without its newline), then flush."""
        self.handle.write("".join(line + "\n" for line in lines))
        self.handle.flush()

    def take(self, done: Finished) -> None:
        assert self.lines_of is not None, "a sink's file says how results become lines"
        self.write(self.lines_of(done))

    def close(self) -> None:
        self.handle.close()

    def __enter__(self) -> ResumableFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def csv_line(fields: Sequence[str]) -> str:
    """One CSV record (quoted as the csv module quotes), without its newline."""
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(fields)
    return out.getvalue()


@contextlib.contextmanager
def said_if_slow(seconds: float, say: Callable[[], None]) -> Generator[None, None, None]:
    """Run the block; if it takes longer than ``seconds``, ``say()`` is called then (on a
    thread of its own), while the block goes on."""
    done = threading.Event()

    def wait() -> None:
        if not done.wait(seconds):
            say()

    threading.Thread(target=wait, daemon=True, name="cpmodels-notice").start()
    try:
        yield
    finally:
        done.set()


def in_own_process(call: Callable[..., Any], args: tuple[Any, ...], *,
                   deadline: float | None, too_long: str,
                   preload: Sequence[str] = ()) -> Any:
    """``call(*args)`` in a process of its own (forked by a fork server that imported
    ``preload`` once), ended if ``deadline`` (a ``time.perf_counter`` value) passes first:
    :class:`OutOfTime` saying ``too_long``. For work that cannot be stopped midway, whose
    memory all goes back when its process ends. A :class:`~cpmodels.errors.CpmodelsError`
    it raises comes back as an :class:`InputError` saying the same; any other error as a
    ``RuntimeError``."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(preload))
    answers, answer = context.Pipe(duplex=False)
    process = context.Process(target=_answer, args=(call, args, answer), daemon=True,
                              name="cpmodels-call")
    try:
        with ctrl_c_held():  # started and known here at once: a Ctrl-C then ends it below
            process.start()
        answer.close()
        if not answers.poll(seconds_left(deadline)):
            raise OutOfTime(too_long)
        kind, value = answers.recv()
    except EOFError:
        kind, value = "failed", "the process ended without an answer"
    finally:
        answer.close()
        if process.pid is not None:  # started
            if process.is_alive():
                process.kill()
            process.join(5)
        answers.close()
    if kind == "made":
        return value
    if kind == "refused":
        raise InputError(value)
    raise RuntimeError(value)


def _answer(call: Callable[..., Any], args: tuple[Any, ...], answer: Any) -> None:
    """In :func:`in_own_process`'s process: the answer, or what went wrong, sent back."""
    leave_ctrl_c_to_parent()
    try:
        result: tuple[str, Any] = ("made", call(*args))
    except CpmodelsError as exc:
        result = ("refused", str(exc))
    except Exception as exc:  # said to the caller, which logs it
        result = ("failed", f"{type(exc).__name__}: {exc}")
    answer.send(result)
    answer.close()


# -- inside the places ------------------------------------------------------------------

_END = object()  # a thread's last word on the queue


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error


def _previews(plan: Plan, run: Run) -> Iterator[Finished]:
    """The plan's preview items, on a worker of their own."""
    if not plan.preview or plan.preview_worker is None or run.stopped:
        return
    worker = run.enlist(plan.preview_worker())
    for item in plan.preview:
        if run.stopped:
            return
        yield Finished(None, item, worker.run((item,))[0])


def _in_units(plan: Plan, run: Run, jobs: int | None,
              cluster: Cluster | None) -> Iterator[Finished]:
    """Processes' and a cluster's results: a tallied plan through ``tally_tasks`` (in
    order), any other in contiguous units through ``run_units`` (as each unit is done)."""
    yield from _previews(plan, run)
    items = list(plan.items)
    if not items or run.stopped:
        return
    worker = run.enlist(plan.worker(), plan.prepare)
    if plan.tallied:
        def sent(n: int) -> None:
            run.units = n

        searched: dict[str, int] = {}
        tallies = tally_tasks(worker, items, jobs=jobs, cluster=cluster, on_units=sent,
                              stats=searched)
        try:
            for index, (item, tally) in enumerate(zip(items, tallies)):
                run.nodes = searched.get("nodes", 0)
                yield Finished(index, item, tally)
        finally:
            tallies.close()  # stops the workers when the run ends early
        return
    parts = units_wanted(cluster, workers_for(jobs) * UNITS_PER_JOB)
    size = max(1, min(MAX_UNIT, -(-len(items) // parts)))
    starts = list(range(0, len(items), size))
    if cluster is not None:
        run.units = len(starts)
    results = run_units(worker, [tuple(items[k:k + size]) for k in starts], jobs=jobs,
                        cluster=cluster, time_limit=run.seconds_left())
    try:
        for unit, found in results:
            for offset, result in enumerate(found):
                index = starts[unit] + offset
                yield Finished(index, items[index], result)
    finally:
        results.close()
