"""Counting solutions of one instance: raw, or up to the board's symmetries."""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cpmodels.backends import engine, iter_cover_solutions
from cpmodels.cover import ExactCover
from cpmodels.instance import PackingInstance
from cpmodels.interrupt import leave_ctrl_c_to_parent
from cpmodels.symmetry import canonical, problem_symmetries, reduce_by_symmetry

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

# The cover being counted, for forked workers to inherit.
_COUNTING: dict[str, Any] = {}


def _count_branch(branch: list[int]) -> int:
    return engine.count_prefixes(_COUNTING["compiled"], [branch], _COUNTING["memo"])[0]


def count_cover(cover: ExactCover, *, deadline: float | None = None,
                progress: Progress | None = None, jobs: int | None = None) -> int | None:
    """Count with the engine, one top-level branch at a time (so it can stop and report).

    Branches are counted here; once that has taken more than half a second, the rest are
    shared among ``jobs`` forked workers (default: every core), which inherit the compiled
    cover and its sub-board table.
    """
    compiled = engine.compile_cover(cover)
    _COUNTING.update(compiled=compiled, memo=engine.Memo(compiled.n_words))
    pending = engine.top_branches(compiled)
    in_all = len(pending)
    jobs = jobs or os.cpu_count() or 1
    can_fork = "fork" in mp.get_all_start_methods()
    start = time.perf_counter()
    total = done = 0

    def counted(n: int) -> bool:
        """Add one branch's count; False when the deadline has passed."""
        nonlocal total, done
        total, done = total + n, done + 1
        if progress is not None:
            progress(done, in_all)
        return deadline is None or time.perf_counter() <= deadline

    while pending and (jobs == 1 or not can_fork or len(pending) < 2
                       or time.perf_counter() - start < PARALLEL_AFTER):
        if deadline is not None and time.perf_counter() > deadline:
            return None
        if not counted(_count_branch(pending.pop(0))):
            return None
    if not pending:
        return total
    pool = mp.get_context("fork").Pool(min(jobs, len(pending)),
                                       initializer=leave_ctrl_c_to_parent)
    try:
        for n in pool.imap_unordered(_count_branch, pending):
            if not counted(n):
                pool.terminate()
                return None
    except BaseException:
        pool.terminate()
        raise
    pool.close()
    pool.join()
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
