"""Counting solutions of one instance: raw, or up to the board's symmetries."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from cpmodels.backends import engine, iter_cover_solutions
from cpmodels.cover import ExactCover
from cpmodels.instance import PackingInstance
from cpmodels.symmetry import canonical, problem_symmetries, reduce_by_symmetry
from cpmodels.work import Counter, CountJob, StopAt, can_fork_here, run_units

Progress = Callable[[int, int], None]  # (branches done, branches in all)


@dataclass
class CountResult:
    """A solution count; ``count`` is ``None`` when the time limit stopped it."""

    count: int | None
    distinct: bool
    symmetries: int
    backend: str
    seconds: float


PARALLEL_AFTER = 0.5  # seconds of counting here before the other branches go to workers


def count_cover(cover: ExactCover, *, deadline: float | None = None,
                progress: Progress | None = None, jobs: int | None = None) -> int | None:
    """Count with the engine, one top-level branch at a time (so it can stop and report).

    ``None`` when ``deadline`` (a ``time.perf_counter`` value) passes first. Branches are
    counted here; once that has taken more than half a second, the rest are shared among
    ``jobs`` worker processes (default: every core), which start from this call's compiled
    cover and table of sub-board counts. Safe to call from several threads at once: each
    call owns its counter, and off the main thread it counts in the calling thread.
    """
    job = CountJob(cover)
    counter = Counter(job)
    pending = counter.branches()
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
        with StopAt(counter, deadline):
            while pending and (not parallel or len(pending) < 2
                               or time.perf_counter() - start < PARALLEL_AFTER):
                if not counted(counter.count(pending.pop(0))):
                    return None
    except engine.SearchStopped:
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


def count_by_enumeration(backend: str, cover: ExactCover, *,
                         deadline: float | None = None) -> int | None:
    """Count the solutions another backend streams (``None`` when ``deadline`` passes)."""
    total = 0
    for _ in iter_cover_solutions(backend, cover):
        total += 1
        if deadline is not None and time.perf_counter() > deadline:
            return None
    return total


def count_instance(instance: PackingInstance, *, distinct: bool = False,
                   time_limit: float | None = None, progress: Progress | None = None,
                   backend: str = engine.NAME) -> CountResult:
    """Count the instance's solutions, raw or up to symmetry (``distinct``).

    The engine counts without listing solutions; the ``sat`` and ``cpsat`` backends count
    the solutions they enumerate.
    """
    start = time.perf_counter()
    deadline = start + time_limit if time_limit else None
    cover = instance.cover
    symmetries = [{}]
    if distinct:
        symmetries = problem_symmetries(cover, instance.cells, instance.cell_labels())
        reduced = reduce_by_symmetry(cover, symmetries)
        if reduced is None:
            keys = set()
            for chosen in iter_cover_solutions(backend, cover):
                keys.add(canonical(cover.decode(chosen), symmetries))
                if deadline is not None and time.perf_counter() > deadline:
                    return CountResult(None, True, len(symmetries), backend,
                                       time.perf_counter() - start)
            return CountResult(len(keys), True, len(symmetries), backend,
                               time.perf_counter() - start)
        cover = reduced.cover
    if backend == engine.NAME:
        total = count_cover(cover, deadline=deadline, progress=progress)
    else:
        total = count_by_enumeration(backend, cover, deadline=deadline)
    return CountResult(total, distinct, len(symmetries), backend,
                       time.perf_counter() - start)
