"""Counting solutions of one instance: raw, or up to the board's symmetries."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from cpmodels.backends import engine, iter_cover_solutions
from cpmodels.cover import ExactCover
from cpmodels.instance import PackingInstance
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


def count_cover(cover: ExactCover, *, deadline: float | None = None,
                progress: Progress | None = None) -> int | None:
    """Count with the engine, one top-level branch at a time (so it can stop and report)."""
    compiled = engine.compile_cover(cover)
    memo = engine.Memo(compiled.n_words)
    branches = engine.top_branches(compiled)
    total = 0
    for done, branch in enumerate(branches):
        if deadline is not None and time.perf_counter() > deadline:
            return None
        total += engine.count_prefixes(compiled, [branch], memo)[0]
        if progress is not None:
            progress(done + 1, len(branches))
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
