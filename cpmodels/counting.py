"""Counting solutions of one instance: raw, or up to the board's symmetries."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cpmodels.backends import count_cover, iter_cover_solutions
from cpmodels.errors import InputError
from cpmodels.instance import PackingInstance
from cpmodels.symmetry import canonical, problem_symmetries, reduce_by_symmetry

if TYPE_CHECKING:
    from cpmodels.backends.engine.cluster import Cluster

Progress = Callable[[int, int], None]  # (branches done, branches in all)


@dataclass
class CountResult:
    """A solution count; ``count`` is ``None`` when the time limit stopped it."""

    count: int | None
    distinct: bool
    symmetries: int
    backend: str
    seconds: float


def count_instance(instance: PackingInstance, *, distinct: bool = False,
                   time_limit: float | None = None, progress: Progress | None = None,
                   backend: str = "engine", cluster: Cluster | None = None) -> CountResult:
    """Count the instance's solutions, raw or up to symmetry (``distinct``).

    The engine counts without listing solutions (across processes, or in units on a Dask
    ``cluster``); the ``sat`` and ``cpsat`` backends count the solutions they enumerate.
    """
    start = time.perf_counter()
    if cluster is not None and backend != "engine":
        raise InputError(f"a cluster runs the engine's units of work, not {backend}'s; "
                         "leave out --backend or --cluster")
    symmetries = [{}]
    cover = instance.cover
    if distinct:
        symmetries = problem_symmetries(cover, instance.cells, instance.cell_labels())
        reduced = reduce_by_symmetry(cover, symmetries)
        if reduced is None:  # no placement to pin: keep one canonical form of each solution
            keys = set()
            try:
                for chosen in iter_cover_solutions(backend, cover, time_limit=time_limit):
                    keys.add(canonical(cover.decode(chosen), symmetries))
            except TimeoutError:
                return CountResult(None, True, len(symmetries), backend,
                                   time.perf_counter() - start)
            return CountResult(len(keys), True, len(symmetries), backend,
                               time.perf_counter() - start)
        cover = reduced
    left = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))
    if cluster is not None:
        from cpmodels.backends.engine.cluster import count_on

        total = count_on(cluster, cover, time_limit=left, progress=progress)
    else:
        total = count_cover(backend, cover, time_limit=left, progress=progress)
    return CountResult(total, distinct, len(symmetries), backend,
                       time.perf_counter() - start)
