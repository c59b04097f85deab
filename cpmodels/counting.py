"""Counting solutions of one instance: raw, or up to the board's symmetries."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cpmodels.backends import Capability, count_cover, iter_cover_solutions, require
from cpmodels.cover import ExactCover
from cpmodels.errors import OutOfTime
from cpmodels.instance import PackingInstance
from cpmodels.symmetry import (
    IDENTITY,
    count_classes,
    fixed_cover,
    option_permutations,
    problem_symmetries,
    reduce_by_symmetry,
)

if TYPE_CHECKING:
    from cpmodels.backends.engine import Cluster

Progress = Callable[[int, int], None]  # (branches done, branches in all)


@dataclass
class CountResult:
    """A solution count; ``count`` is ``None`` (and ``status`` "unknown") when the time
    limit stopped it."""

    count: int | None
    distinct: bool
    symmetries: int
    backend: str
    seconds: float

    @property
    def status(self) -> str:
        """"counted", or "unknown" when the time limit passed first."""
        return "unknown" if self.count is None else "counted"


def count_instance(instance: PackingInstance, *, distinct: bool = False,
                   time_limit: float | None = None, progress: Progress | None = None,
                   backend: str = "engine", cluster: Cluster | None = None) -> CountResult:
    """Count the instance's solutions, raw or up to symmetry (``distinct``).

    The engine counts without listing solutions (across processes, or in units on a Dask
    ``cluster``); the ``sat`` and ``cpsat`` backends count the solutions they enumerate.
    """
    start = time.perf_counter()
    if cluster is not None:
        require(backend, Capability.CLUSTER, "a cluster")
    symmetries = [IDENTITY]
    cover = instance.cover
    orbit = 1  # a raw count is the count of ``cover`` times this
    if distinct:
        symmetries = problem_symmetries(cover, instance.cells, instance.cell_labels())
        reduced = reduce_by_symmetry(cover, symmetries)
        if reduced is None:  # no placement to pin: Burnside, or one member of each class
            permutations = option_permutations(cover, symmetries)
            maybe = [fixed_cover(cover, perm) for perm in permutations[1:]]
            fixed = [f for f in maybe if f is not None]
            if len(fixed) == len(maybe):
                classes = _burnside([cover, *fixed], backend, start, time_limit, progress,
                                    cluster)
                return CountResult(classes, True, len(symmetries), backend,
                                   time.perf_counter() - start)
            try:
                classes = count_classes(
                    iter_cover_solutions(backend, cover, time_limit=time_limit), permutations)
            except OutOfTime:
                return CountResult(None, True, len(symmetries), backend,
                                   time.perf_counter() - start)
            return CountResult(classes, True, len(symmetries), backend,
                               time.perf_counter() - start)
        cover = reduced
    elif backend == "engine":
        cover, orbit = _orbit_representatives(instance)
    left = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))
    total: int | None
    try:
        total = _count(cover, backend, left, progress, cluster) * orbit
    except OutOfTime:
        total = None
    return CountResult(total, distinct, len(symmetries), backend,
                       time.perf_counter() - start)


def _burnside(covers: list[ExactCover], backend: str, start: float, time_limit: float | None,
              progress: Progress | None, cluster: Cluster | None) -> int | None:
    """Classes of solutions by Burnside's lemma: the mean of the counts of ``covers`` (the
    problem itself, then the solutions each other symmetry fixes); None at the time limit."""
    total = 0
    for k, cover in enumerate(covers):
        left = None if time_limit is None else time_limit - (time.perf_counter() - start)
        if left is not None and left <= 0:
            return None
        try:
            total += _count(cover, backend, left, progress if k == 0 else None,
                            cluster if k == 0 else None)
        except OutOfTime:
            return None
    if total % len(covers):
        raise AssertionError(f"Burnside's sum {total} is not a multiple of {len(covers)}")
    return total // len(covers)


def _count(cover: ExactCover, backend: str, time_limit: float | None,
           progress: Progress | None, cluster: Cluster | None) -> int:
    """The named backend's count of ``cover``, or the engine's in units on ``cluster``."""
    if cluster is not None:
        from cpmodels.backends import engine

        return engine.count(cover, time_limit=time_limit, progress=progress, cluster=cluster)
    return count_cover(backend, cover, time_limit=time_limit, progress=progress)


def _orbit_representatives(instance: PackingInstance) -> tuple[ExactCover, int]:
    """A raw count's shortcut on a symmetric board: the cover with one piece held to one
    placement per orbit, and the orbits' size.

    When some piece used once has no placement that a symmetry fixes, no solution is fixed
    by a symmetry either (that piece would be), so every class of equivalent solutions has
    exactly as many members as there are symmetries, and exactly one of them has the held
    piece's chosen placement: the raw count is the reduced count times the symmetries.
    Otherwise (no symmetry, or no such piece): the cover itself, and 1.
    """
    cover = instance.cover
    symmetries = problem_symmetries(cover, instance.cells, instance.cell_labels())
    if len(symmetries) > 1:
        reduced = reduce_by_symmetry(cover, symmetries)
        if reduced is not None:
            return reduced, len(symmetries)
    return cover, 1
