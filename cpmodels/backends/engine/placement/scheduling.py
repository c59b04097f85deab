"""Where the engine's work is split into units and run: here, in worker processes, or on Dask.

Counting and sweeping cut one search into independent *tasks* (tuples of forced option
ids, see :class:`~cpmodels.backends.engine.session.EngineSession`); a *unit* is a tuple of
tasks one worker runs in turn, sharing its tables. :func:`run_units` runs units of any
*runner* (an engine session, or a design's candidate sets) on this machine's worker
processes (``processes.py``) or on a Dask cluster (``cluster.py``) and hands back each
result as it finishes; everything else here is built on it:

* :func:`count_each`: the counts of several tasks (and :func:`count`, the engine's count in
  the backend contract), their first branches here and the rest in workers once that has
  taken :data:`COUNT_FORK_AFTER` seconds of CPU;
* :func:`tally_tasks`: a sweep's tasks tallied, each task's tally handed back in order;
* :func:`cluster_solutions`: every solution, enumerated in units on a cluster.
"""

from __future__ import annotations

import time
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
COUNT_FORK_AFTER = 0.5
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
    """How many solutions contain each task's options, counted in one session (its table
    shared by every task), each task cut into its next branching step's parts so it can stop
    and report ``progress(parts done, parts in all)``.

    Parts are counted here, in batches of 1, 2, 4, ... parts a call of the kernel; once
    that has taken :data:`COUNT_FORK_AFTER` seconds of this process's CPU,
    the rest are shared among ``jobs`` worker processes (default: every core), which start
    from this call's session warm, so a count that fits one core starts none. On a
    ``cluster``, the tasks are cut into units up front and counted there. Raises
    :class:`~cpmodels.errors.OutOfTime` (``partial``: the count of the parts finished) when
    ``time_limit`` seconds pass first. Safe to call from several threads at once: each call
    owns its session, and off the main thread it counts in the calling thread. The session
    chooses the search (a solid's: the most constrained item first, cut there too).
    ``stats["nodes"]``, when given, is increased by the nodes the search took here and in
    the workers.
    """
    start, cpu_start = time.perf_counter(), time.process_time()
    session = EngineSession(cover)
    workers = workers_for(jobs)
    cut = cluster is not None or len(tasks) < 2 * workers  # too few to share: cut now
    if cluster is not None:
        groups = split_tasks(session, tasks, units_wanted(cluster, 1))
    elif cut:
        groups = [session.split(task) for task in tasks]
    else:  # cut only what is left for the workers, if it comes to that
        groups = [[task] for task in tasks]
    pending = [(t, part) for t, group in enumerate(groups) for part in group]
    in_all = len(pending)
    counts = [0] * len(tasks)
    done = 0

    def left() -> float | None:
        return None if time_limit is None else time_limit - (time.perf_counter() - start)

    def nodes(n: int) -> None:
        if stats is not None:
            stats["nodes"] = stats.get("nodes", 0) + n

    def counted(t: int, n: int) -> None:
        nonlocal done
        counts[t] += n
        done += 1
        if progress is not None:
            progress(done, in_all)

    try:
        parallel = parallel_here(jobs)
        batch = 1  # parts counted here in one call of the kernel: 1, 2, 4, ...
        while pending and cluster is None:
            if parallel and time.process_time() - cpu_start >= COUNT_FORK_AFTER:
                if not cut:  # the tasks left, cut for the workers
                    pending = [(t, part) for t, task in pending for part in session.split(task)]
                    in_all, cut = done + len(pending), True
                if len(pending) >= 2:
                    break
            taken, pending = pending[:batch], pending[batch:]
            before = session.stats["nodes"]
            tallies = session.tally_many([part for _, part in taken], time_limit=left())
            nodes(session.stats["nodes"] - before)
            for (t, _), tally in zip(taken, tallies):
                counted(t, sum(tally.values()))
            batch *= 2
        if not pending:
            return counts
        results = run_units(Counting(session), [(part,) for _, part in pending], jobs=jobs,
                            cluster=cluster, time_limit=left())
        try:
            for index, ((tally,), searched) in results:
                nodes(searched)
                counted(pending[index][0], sum(tally.values()))
        finally:
            results.close()
    except OutOfTime as stop:
        raise OutOfTime(f"counted {done} of {in_all} branches before the time limit",
                        partial=sum(counts)) from stop
    return counts


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
