"""Where the engine's work is split into units and run: here, on two threads, in worker
processes, or on Dask.

Counting and sweeping cut one search into independent *tasks* (tuples of forced option
ids, see :class:`~cpmodels.backends.engine.session.EngineSession`); a *unit* is a tuple of
tasks one worker runs in turn, sharing its tables. :func:`run_units` runs units of any
*runner* (an engine session, or a design's candidate sets) on this machine's worker
processes (``processes.py``) or on a Dask cluster (``cluster.py``) and hands back each
result as it finishes; everything else here is built on it:

* :func:`count_each`: the counts of several tasks (and :func:`count`, the engine's count in
  the backend contract), their first millisecond here and the rest on two threads (a
  session and its twin, sharing one queue of parts), or in workers where there are more
  cores than threads;
* :func:`tally_tasks`: a sweep's tasks tallied, each task's tally handed back in order;
* :func:`cluster_solutions`: every solution, enumerated in units on a cluster.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from cpmodels.backends.engine.placement.processes import Runner, can_fork_here, workers_for
from cpmodels.backends.engine.placement.processes import run_units as run_in_processes
from cpmodels.backends.engine.session import EngineSession, Tally, Task
from cpmodels.cover import ExactCover
from cpmodels.errors import OutOfTime

if TYPE_CHECKING:
    from cpmodels.backends.engine.placement.cluster import Cluster

Progress = Callable[[int, int], None]  # (branches done, branches in all)
# Seconds of CPU a count spends on branches here before the rest go to workers: CPU time, not
# the clock's, so a small count on a busy machine does not start workers it does not need.
# Worker processes are started only when ``jobs`` asks for more workers than the threads.
COUNT_FORK_AFTER = 0.5
# The threads a count shares its parts among (a first one and a second, on a twin session) ...
COUNT_THREADS = 2
# ... once the first has taken this many seconds on parts counted one a call, whole (a count
# smaller than that stays on one thread: a second costs its own table's first misses and a
# thread's start; the first thread's task is cut short only when none is left for the
# second) ...
COUNT_THREADS_AFTER = 0.001
# ... a task is cut as a thread takes it, and a part taken when fewer than this many are
# left is cut too, at most this many steps below its task (the last parts small, so the two
# threads end together).
COUNT_CUT_BELOW = 4
# (The first thread's call cut short for the second is asked again after this many seconds
# until it is: an ask that comes as the call begins is lost.)
COUNT_CUT_RETRY = 0.0002
COUNT_CUT_DEEPER = 3
# While more are left, the thread at the queue's back takes 1 / (COUNT_SHARE *
# COUNT_THREADS) of those left (one at least) a call of the kernel, the one at the front
# one part (the first parts are the large ones): few calls, and small last ...
COUNT_SHARE = 2
# ... but parts that took less than this many seconds of a thread's CPU each cost less than
# a call of the kernel each: while its parts are that small, the front thread takes half
# the back's share, and a thread cuts no part further at the end (the 8x8 board with the
# centre hole: its last parts, cut three steps down, were a hundred calls and more of a
# few hundred nodes each).
COUNT_CUT_SMALL = 0.0003
# Seconds of CPU (this process's, its search threads' included: the clock's would count the
# other programs' turns on a busy machine, and the time the caller takes between tasks) a
# sweep's first task must take before the rest go to workers ...
TALLY_FORK_AFTER = 1.0
# ... and the seconds the tasks left would take here, at the last one's pace: below this,
# the table warm here (most sub-boards are shared by every task) beats two processes that
# each fill their own (calendar_week: 7.4 s of CPU in one process, 13.3 s forked).
TALLY_FORK_REST = 8.0


def run_units(runner: Runner, units: Sequence[Any], *, jobs: int | None = None,
              cluster: Cluster | None = None, time_limit: float | None = None,
              ) -> Generator[tuple[int, Any], None, None]:
    """Run ``units`` with ``runner``; yield ``(unit index, results)`` as each finishes (in no
    fixed order; see :func:`in_order`).

    On ``cluster`` when one is given, else in ``jobs`` worker processes (default: every
    core) that start from ``runner`` as it is here where processes fork. Closing the
    iterator (Ctrl-C, an error) stops the work; past ``time_limit`` seconds it raises
    :class:`~cpmodels.errors.OutOfTime`.
    """
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    if cluster is not None:
        from cpmodels.backends.engine.placement.cluster import run_units_on

        return run_units_on(cluster, runner, units, deadline)
    return run_in_processes(runner, units, jobs=workers_for(jobs), deadline=deadline)


def parallel_here(jobs: int | None = None) -> bool:
    """Whether work may go to worker processes from this thread (more than one job, and the
    main thread of a process that can fork)."""
    return workers_for(jobs) > 1 and can_fork_here()


def units_wanted(cluster: Cluster | None, here: int) -> int:
    """How many units to cut work into: enough for ``cluster``'s workers to even out their
    loads, or ``here`` on this machine."""
    if cluster is not None:
        from cpmodels.backends.engine.placement.cluster import units_for

        return units_for(cluster)
    return here


def in_order(results: Iterator[tuple[int, Any]]) -> Generator[Any, None, None]:
    """The results of :func:`run_units` by unit index, each as soon as its turn comes."""
    held: dict[int, Any] = {}
    turn = 0
    for index, result in results:
        held[index] = result
        while turn in held:
            yield held.pop(turn)
            turn += 1


def split_tasks(session: EngineSession, tasks: Sequence[Task], at_least: int,
                depth: int = 3) -> list[list[Task]]:
    """Each task cut (breadth first, at most ``depth`` steps) until there are ``at_least``
    parts in all: for each task, the parts whose tallies add up to its tally."""
    parts = [[task] for task in tasks]
    for _ in range(depth):
        if sum(map(len, parts)) >= at_least:
            break
        parts = [[piece for part in group for piece in session.split(part)] for group in parts]
    return parts


def add_tallies(tallies: Sequence[Tally]) -> Tally:
    """The tally of a task from the tallies of its parts."""
    total: Tally = {}
    for tally in tallies:
        for key, n in tally.items():
            total[key] = total.get(key, 0) + n
    return total


def count(cover: ExactCover, *, time_limit: float | None = None, forced: Sequence[int] = (),
          progress: Progress | None = None, jobs: int | None = None,
          cluster: Cluster | None = None) -> int:
    """Count every solution (that contains the ``forced`` options): :func:`count_each` of
    the one task ``forced``."""
    return count_each(cover, [tuple(forced)], time_limit=time_limit, progress=progress,
                      jobs=jobs, cluster=cluster)[0]


class Counting:
    """What a worker runs for :func:`count_each`: a session's tallies of a unit, and the
    nodes they took (a session pickles as its cover, so this does too)."""

    def __init__(self, session: EngineSession) -> None:
        self.session = session

    def run(self, unit: Sequence[Task]) -> tuple[list[Tally], int]:
        before = self.session.stats["nodes"]
        tallies = self.session.run(tuple(unit))
        return tallies, self.session.stats["nodes"] - before


def count_each(cover: ExactCover, tasks: Sequence[Task], *, time_limit: float | None = None,
               progress: Progress | None = None, jobs: int | None = None,
               cluster: Cluster | None = None,
               stats: dict[str, int] | None = None) -> list[int]:
    """How many solutions contain each task's options, each task cut into its next
    branching step's parts so the work can be shared and stop and report
    ``progress(parts done, parts in all)`` (from the calling thread).

    When no second worker could share the work (``jobs`` 1, or one core) and no progress is
    asked, the tasks are one call of the kernel (with progress: calls of 1, 2, 4, ...
    tasks). Else the tasks are counted one a call, whole, on a thread of their own for
    :data:`COUNT_THREADS_AFTER` seconds; what is left is then shared by
    :data:`COUNT_THREADS` threads, that one's session and a twin of it
    (:meth:`~.EngineSession.twin`: the compiled cover shared, tables of its own), which take
    parts from the two ends of one queue (so the large parts and the small ones spread),
    cutting each task as they take it and a part further when the queue runs short (see
    :func:`_count_on_threads`). Only when ``jobs`` (default: every core) asks for more
    workers than the threads, and once the count has taken :data:`COUNT_FORK_AFTER` seconds
    of CPU, are the parts left shared among worker processes instead, forked warm from this
    call's session. On a ``cluster``, the tasks are cut into units up front and counted
    there. Raises :class:`~cpmodels.errors.OutOfTime` (``partial``: the count of the parts
    finished) when ``time_limit`` seconds pass first; no thread of the call is left running
    when it returns or raises. Safe to call from several threads at once: each call owns its
    sessions. The session chooses the search (a solid's: the most constrained item first,
    cut there too). ``stats["nodes"]``, when given, is increased by the nodes the search
    took in every thread and worker.
    """
    start = time.perf_counter()
    session = EngineSession(cover)
    workers = workers_for(jobs)
    shared = _Shared(len(tasks), progress, stats)

    def left() -> float | None:
        return None if time_limit is None else time_limit - (time.perf_counter() - start)

    try:
        if cluster is None and workers == 1 and progress is None:  # one call, uncut
            before = session.stats["nodes"]
            tallies = session.tally_many(tasks, time_limit=left())
            shared.add_nodes(session.stats["nodes"] - before)
            return [sum(tally.values()) for tally in tallies]
        if cluster is not None:
            groups = split_tasks(session, tasks, units_wanted(cluster, 1))
        elif workers == 1 and len(tasks) < 2:  # one worker: one task cut, for progress
            groups = [session.split(task) for task in tasks]
        else:  # whole: the threads cut each task as they take it (the cut, in parallel
            groups = [[task] for task in tasks]  # with the other thread's search)
        pending: deque[Part] = deque((t, part, 0 if len(group) == 1 else 1)
                                     for t, group in enumerate(groups) for part in group)
        shared.in_all = len(pending)
        threads = 1 if cluster is not None else min(COUNT_THREADS, workers)
        forks = cluster is None and parallel_here(jobs) and workers > threads
        cpu_start = time.process_time()
        if threads > 1:
            _count_on_threads(session, pending, shared, left, forks, cpu_start)
        batch = 1  # one worker: parts counted here in one call of the kernel: 1, 2, 4, ...
        while pending and cluster is None and threads == 1:
            if forks and time.process_time() - cpu_start >= COUNT_FORK_AFTER:
                pending = _cut_whole(session, pending, shared)  # for the workers
                if len(pending) >= 2:
                    break
            taken = [pending.popleft() for _ in range(min(batch, len(pending)))]
            before = session.stats["nodes"]
            tallies = session.tally_many([part for _, part, _ in taken], time_limit=left())
            shared.add_nodes(session.stats["nodes"] - before)
            for (t, _, _), tally in zip(taken, tallies):
                shared.counted(t, sum(tally.values()))
                shared.tell()
            batch *= 2
        if pending:
            if cluster is None:  # the tasks left whole, cut for the workers
                pending = _cut_whole(session, pending, shared)
            units = [(part,) for _, part, _ in pending]
            results = run_units(Counting(session), units, jobs=jobs, cluster=cluster,
                                time_limit=left())
            try:
                for index, ((tally,), searched) in results:
                    shared.add_nodes(searched)
                    shared.counted(pending[index][0], sum(tally.values()))
                    shared.tell()
            finally:
                results.close()
    except OutOfTime as stop:
        raise OutOfTime(f"counted {shared.done} of {shared.in_all} branches before the time "
                        "limit", partial=sum(shared.counts)) from stop
    shared.tell()
    return shared.counts


Part = tuple[int, Task, int]  # (the task it is a part of, its options, cuts below the task)


def _cut_whole(session: EngineSession, pending: deque[Part], shared: _Shared) -> deque[Part]:
    """``pending`` with each whole task cut into its parts (the parts in all told)."""
    cut = deque((t, piece, 1) for t, part, depth in pending
                for piece in (session.split(part) if depth == 0 else [part]))
    shared.in_all += len(cut) - len(pending)
    return cut


class _Shared:
    """What the threads of one :func:`count_each` share, under one lock: each task's count
    so far, the parts done and in all, the nodes; ``progress`` is told from the calling
    thread only (:meth:`tell`), woken by :attr:`changed` when a part is counted."""

    def __init__(self, n_tasks: int, progress: Progress | None,
                 stats: dict[str, int] | None) -> None:
        self.lock = threading.Lock()
        self.changed = threading.Event()
        self.counts = [0] * n_tasks
        self.done = self.in_all = 0
        self.told = (0, 0)
        self.progress, self.stats = progress, stats
        self.quit = False  # set when a thread failed or was stopped: the others end too
        self.failures: list[BaseException] = []  # what ended the counting threads

    def add_nodes(self, n: int) -> None:
        if self.stats is not None:
            with self.lock:
                self.stats["nodes"] = self.stats.get("nodes", 0) + n

    def counted(self, t: int, n: int) -> None:
        with self.lock:
            self.counts[t] += n
            self.done += 1
        if self.progress is not None:  # else the calling thread sleeps until the end
            self.changed.set()

    def tell(self) -> None:
        """``progress(done, in all)`` when either has changed since it was last told."""
        with self.lock:
            now = (self.done, self.in_all)
        if self.progress is not None and now != self.told:
            self.told = now
            self.progress(*now)


def _count_on_threads(session: EngineSession, queue: deque[Part], shared: _Shared,
                      left: Callable[[], float | None], forks: bool, cpu_start: float) -> None:
    """Count the parts of ``queue`` on threads of their own (the calling thread tells
    progress meanwhile, and takes Ctrl-C): first one, on ``session``, which counts the
    parts one a call from the queue's front, whole, for :data:`COUNT_THREADS_AFTER`
    seconds (a count that ends by then starts no second thread); then a second on a twin
    of it (its own tables) from the queue's back. When the first thread holds the last
    whole task then, its call is cut short (:meth:`~.EngineSession.interrupt`) and the
    task goes back to the queue's front (the sub-boards it finished stay in its table).
    From then on a thread cuts each whole task it takes into its parts (with ``session``'s
    layouts, under the queue's lock), and a part too when fewer than
    :data:`COUNT_CUT_BELOW` are left (at most :data:`COUNT_CUT_DEEPER` steps below its
    task), and while its thread's last parts took at least :data:`COUNT_CUT_SMALL` seconds
    each. The back thread adds to its part 1 / (:data:`COUNT_SHARE` x threads) of those
    left behind it, up to a whole task; the front thread one part (the large parts come
    first), or half as many while its parts took less than :data:`COUNT_CUT_SMALL` each.
    So the threads end together. With ``forks``, the
    threads stop taking parts once the count has taken :data:`COUNT_FORK_AFTER` seconds of
    CPU (the rest stay in ``queue``, for worker processes). When a thread fails (an error,
    the time limit) or the calling thread is interrupted, every session is stopped; the
    threads have ended when this returns or raises, and an error of theirs is raised here
    (before a time limit's)."""
    sessions = [session, *(session.twin() for _ in range(COUNT_THREADS - 1))]
    turn = threading.Condition(shared.lock)  # the first thread's part cut short is back
    state = {"first": True, "cut": False}  # (under the lock) the first phase; a cut asked
    last = {True: float("inf"), False: float("inf")}  # each thread's last CPU a part
    in_hand: list[Part] = []  # the part the first thread counts in its first phase

    def take(front: bool) -> list[tuple[int, Task]]:
        with shared.lock:
            if front and state["cut"]:  # its call ended before the cut reached it
                state["cut"] = False
                turn.notify_all()
            while state["cut"] and not queue and not shared.quit:
                turn.wait()
            if shared.quit or not queue:
                return []
            if (forks and len(queue) >= 2
                    and time.process_time() - cpu_start >= COUNT_FORK_AFTER):
                return []
            if state["first"]:  # one thread yet: the front part, whole
                in_hand[:] = [queue.popleft()]
                return [in_hand[0][:2]]
            while True:  # a whole task is cut, a part too when few are left
                t, part, depth = queue.popleft() if front else queue.pop()
                if depth > 0 and (len(queue) >= COUNT_CUT_BELOW or depth >= COUNT_CUT_DEEPER
                                  or last[front] < COUNT_CUT_SMALL):
                    break
                # The calling thread's session cuts (its layouts made once), under the lock.
                more = [(t, piece, depth + 1) for piece in session.split(part)]
                shared.in_all += len(more) - 1
                if front:
                    queue.extendleft(reversed(more))
                else:
                    queue.extend(more)
            taken = [(t, part)]
            # A share of the parts behind it (no whole task): at the front, half as many and
            # only while its parts are small (the large ones come first).
            share = len(queue) // (COUNT_SHARE * COUNT_THREADS * (2 if front else 1))
            for _ in range(share if not front or last[front] < COUNT_CUT_SMALL else 0):
                if queue[-1 if not front else 0][2] == 0:
                    break
                t, part, _ = queue.popleft() if front else queue.pop()
                taken.append((t, part))
            return taken

    def cut_short() -> bool:
        """Whether the call just stopped was cut short for the second thread (its part then
        back at the queue's front), not stopped by the time limit or a failure."""
        with shared.lock:
            if not state["cut"] or shared.quit:
                return False
            state["cut"] = False
            queue.appendleft(in_hand[0])
            turn.notify_all()
            return True

    def work(own: EngineSession, front: bool) -> None:
        try:
            while taken := take(front):
                before = own.stats["nodes"]
                began = time.thread_time()
                try:
                    tallies = own.tally_many([part for _, part in taken], time_limit=left())
                    last[front] = (time.thread_time() - began) / len(taken)
                except OutOfTime:
                    if front and cut_short():
                        continue
                    raise
                finally:
                    shared.add_nodes(own.stats["nodes"] - before)
                for (t, _), tally in zip(taken, tallies):
                    shared.counted(t, sum(tally.values()))
        except BaseException as exc:  # raised in the calling thread
            with shared.lock:
                shared.failures.append(exc)
                shared.quit = True
                turn.notify_all()
            for other in sessions:
                other.stop()
        finally:
            shared.changed.set()

    def second() -> bool:
        """The first phase ended: whether a second thread has parts to take (the first
        thread's whole task cut short when it holds the last one)."""
        with shared.lock:
            state["first"] = False
            if shared.quit:
                return False
            if not queue and threads[0].is_alive():
                state["cut"] = True
            return bool(queue) or state["cut"]

    def cutting() -> bool:
        """Whether the first thread's call is still to be cut short: it is asked again
        (an ask that came as the call began, before it could be stopped, is lost)."""
        with shared.lock:
            if state["cut"]:
                session.interrupt()
            return state["cut"]

    threads = [threading.Thread(target=work, args=(own, k % 2 == 0), daemon=True,
                                name="cpmodels-count") for k, own in enumerate(sessions)]
    try:
        threads[0].start()
        switch: float | None = time.perf_counter() + COUNT_THREADS_AFTER
        while any(thread.is_alive() for thread in threads):
            wait = 0.05
            if switch is not None:
                wait = min(wait, switch - time.perf_counter())
                if wait <= 0:
                    switch = None
                    if second():
                        for own, thread in zip(sessions[1:], threads[1:]):
                            own.share_layouts(session)  # (those the first calls made)
                            thread.start()
                    continue
            elif cutting():
                wait = COUNT_CUT_RETRY
            shared.changed.wait(wait)
            shared.changed.clear()
            shared.tell()
    except BaseException:  # Ctrl-C, or progress failed: every thread stops
        with shared.lock:
            shared.quit = True
            turn.notify_all()
        for own in sessions:
            own.stop()
        raise
    finally:
        for thread in threads:
            if thread.ident is not None:
                thread.join()
    failures = shared.failures
    if failures:
        raise next((exc for exc in failures if not isinstance(exc, OutOfTime)), failures[0])


def tally_tasks(session: EngineSession, tasks: Sequence[Task], *, jobs: int | None = None,
                cluster: Cluster | None = None,
                on_units: Callable[[int], None] | None = None,
                stats: dict[str, int] | None = None,
                ) -> Generator[Tally, None, None]:
    """Tally every task of ``session``, handing back each task's tally in task order.

    Here: the first task in this process, the rest split into runs across worker processes
    that start from this session after the first task (forked from the main thread, each
    starts with its table warm: most sub-boards are shared by every task; elsewhere they
    are spawned and compile the cover again); when the first task was quick, so are the
    rest, and they run here. After a long first task, the next ones run here too as long
    as those left would take less than :data:`TALLY_FORK_REST` seconds at the pace of the
    last one (the table warmed by the first makes them quick). On a ``cluster``: each task cut into
    parts (enough that no part is a large share of the work, ``on_units`` told how many),
    every part a unit; a task's tally is ready when all its parts are. ``stats["nodes"]``,
    when given, is increased by the nodes the tallies took here and in the workers.
    """
    def nodes(n: int) -> None:
        if stats is not None:
            stats["nodes"] = stats.get("nodes", 0) + n

    def here(task: Task) -> Tally:
        before = session.stats["nodes"]
        tally = session.tally(task)
        nodes(session.stats["nodes"] - before)
        return tally

    if cluster is not None:
        yield from _tally_on_cluster(session, tasks, cluster, on_units, nodes)
        return
    if workers_for(jobs) == 1 or len(tasks) < 3:
        yield from map(here, tasks)
        return
    start = time.process_time()
    tally = here(tasks[0])
    first, last, done = time.process_time() - start, None, 1
    yield tally
    while done < len(tasks) and tasks_stay_here(first, last, len(tasks) - done):
        start = time.process_time()
        tally = here(tasks[done])
        done += 1
        last = time.process_time() - start
        yield tally
    rest = tasks[done:]
    if len(rest) < 2:
        yield from map(here, rest)
        return
    results = run_units(Counting(session), [(task,) for task in rest],
                        jobs=min(workers_for(jobs), len(rest)))
    try:
        for (tally,), searched in in_order(results):
            nodes(searched)
            yield tally
    finally:
        results.close()


def tasks_stay_here(first: float, last: float | None, left: int, *,
                    cold: bool = False) -> bool:
    """Whether a sweep's next task runs on the worker that ran the ones before it (its
    table warm) rather than the tasks ``left`` being shared out: always when the first task
    took less than :data:`TALLY_FORK_AFTER` seconds of CPU (so will the rest), and the second
    (``last`` None); then as long as those left would take less than
    :data:`TALLY_FORK_REST` seconds at the pace of the last one. With ``cold`` (the others
    start on empty tables, not forked warm), a worker sharing the rest pays about the first
    task's seconds again, which halving the rest wins back only past twice that: those
    seconds are added to the threshold (calendar_week_11's weekdays then stay on one)."""
    rest = TALLY_FORK_REST + (2 * first if cold else 0.0)
    return first < TALLY_FORK_AFTER or last is None or left * last < rest


def _tally_on_cluster(session: EngineSession, tasks: Sequence[Task], cluster: Cluster,
                      on_units: Callable[[int], None] | None, nodes: Callable[[int], None],
                      ) -> Generator[Tally, None, None]:
    groups = split_tasks(session, tasks, units_wanted(cluster, 1))
    units = [(part,) for group in groups for part in group]
    owner = [t for t, group in enumerate(groups) for _ in group]
    if on_units is not None:
        on_units(len(units))
    left = [len(group) for group in groups]
    done: dict[int, list[Tally]] = {}
    turn = 0
    results = run_units(Counting(session), units, cluster=cluster)
    try:
        for index, ((tally,), searched) in results:
            nodes(searched)
            task = owner[index]
            done.setdefault(task, []).append(tally)
            left[task] -= 1
            while turn < len(groups) and left[turn] == 0:
                yield add_tallies(done.pop(turn, []))
                turn += 1
    finally:
        results.close()


def cluster_solutions(cover: ExactCover, cluster: Cluster) -> Iterator[list[int]]:
    """Every solution of ``cover``, enumerated in units on the cluster and handed back in
    the order one process finds them."""
    from cpmodels.backends.engine.placement.cluster import solutions_on

    session = EngineSession(cover)
    parts = [part for group in split_tasks(session, [()], units_wanted(cluster, 1))
             for part in group]
    for found in in_order(solutions_on(cluster, session, parts)):
        yield from found
