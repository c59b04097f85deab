"""Counting solutions of one instance: raw, or up to the board's symmetries."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cpmodels.backends import Capability, count_cover, iter_cover_solutions, require
from cpmodels.cover import ExactCover
from cpmodels.errors import OutOfTime
from cpmodels.instance import PackingInstance
from cpmodels.symmetry import (
    HeldOrbit,
    HeldPiece,
    Permutations,
    ProblemSymmetry,
    checked_permutations,
    count_classes,
    fixed_cover,
    problem_symmetry,
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
    nodes: int | None = None  # the engine's search nodes (None: another backend)

    @property
    def status(self) -> str:
        """"counted", or "unknown" when the time limit passed first."""
        return "unknown" if self.count is None else "counted"


def count_instance(instance: PackingInstance, *, distinct: bool = False,
                   time_limit: float | None = None, progress: Progress | None = None,
                   backend: str = "engine", cluster: Cluster | None = None) -> CountResult:
    """Count the instance's solutions, raw or up to symmetry (``distinct``).

    On a symmetric board the most constrained piece used once is placed first, one
    placement per orbit (:func:`~cpmodels.symmetry.held_piece`); without one, the classes
    come from Burnside's lemma or canonical forms. The engine counts without listing
    solutions (across processes, or in units on a Dask ``cluster``); the ``sat`` and
    ``cpsat`` backends count the solutions they enumerate.
    """
    start = time.perf_counter()
    if cluster is not None:
        require(backend, Capability.CLUSTER, "a cluster")
    cover = instance.cover
    found = (problem_symmetry(cover, instance.cells, instance.cell_labels())
             if distinct or backend == "engine" else ProblemSymmetry.identity(len(cover.options)))
    symmetries = found.symmetries
    reported = len(symmetries) if distinct else 1

    def left() -> float | None:
        return None if time_limit is None else max(0.0, time_limit - (time.perf_counter()
                                                                      - start))

    stats: dict[str, int] = {}  # the engine's nodes, added up by each count

    def result(total: int | None) -> CountResult:
        return CountResult(total, distinct, reported, backend, time.perf_counter() - start,
                           stats.get("nodes"))

    held = found.held
    try:
        if held is not None:
            return result(_count_held(cover, held, found, distinct, backend, left,
                                      progress, cluster, stats))
        if not distinct or len(symmetries) == 1:
            return result(_count_each(cover, [()], backend, left(), progress, cluster,
                                      stats)[0])
        permutations = checked_permutations(cover, found)
        maybe = [fixed_cover(cover, perm) for perm in permutations[1:]]
        fixed = [f for f in maybe if f is not None]
        if len(fixed) == len(maybe):  # Burnside over the whole problem
            return result(_burnside([cover, *fixed], backend, left, progress, cluster, stats))
        return result(count_classes(
            iter_cover_solutions(backend, cover, time_limit=left()), permutations))
    except OutOfTime:
        return result(None)


def _count_held(cover: ExactCover, held: HeldPiece, found: ProblemSymmetry,
                distinct: bool, backend: str, left: Callable[[], float | None],
                progress: Progress | None, cluster: Cluster | None,
                stats: dict[str, int]) -> int:
    """The count with ``held``'s representatives placed first (see
    :func:`~cpmodels.symmetry.held_piece`): raw, each representative's count times its
    orbit's size; distinct, the classes each representative holds."""
    counts = _count_each(cover, held.tasks, backend, left(), progress, cluster, stats)
    if not distinct:
        return sum(orbit.size * n for orbit, n in zip(held.orbits, counts))
    fixed = [orbit for orbit in held.orbits if orbit.fixers]
    if not fixed:  # every class with a representative has one member holding it
        return sum(counts)
    permutations = checked_permutations(cover, found)
    fixing = _fixed_counts(cover, fixed, permutations, backend, left, stats)
    total = 0
    for orbit, n in zip(held.orbits, counts):
        if not orbit.fixers:
            total += n
        elif all((orbit.option, g) in fixing for g in orbit.fixers):
            total += _burnside_holding(n, [fixing[orbit.option, g] for g in orbit.fixers])
        else:  # a symmetry's fixed solutions are no exact cover: canonical forms
            solutions = iter_cover_solutions(backend, cover, time_limit=left(),
                                             forced=(orbit.option,))
            total += count_classes(solutions, [permutations[g] for g in (0, *orbit.fixers)])
    return total


def _fixed_counts(cover: ExactCover, orbits: Sequence[HeldOrbit], permutations: Permutations,
                  backend: str, left: Callable[[], float | None],
                  stats: dict[str, int]) -> dict[tuple[int, int], int]:
    """``{(representative, symmetry): the solutions that hold the representative and that
    the symmetry leaves as they are}`` for each orbit's representative and each symmetry
    that fixes it. Each symmetry's fixed solutions are an exact cover of their own, made
    once and counted in one session for all the representatives it fixes; a symmetry for
    which that cannot be done (:func:`~cpmodels.symmetry.fixed_cover`) is left out."""
    counts: dict[tuple[int, int], int] = {}
    for g in sorted({g for orbit in orbits for g in orbit.fixers}):
        fixed = fixed_cover(cover, permutations[g])
        if fixed is None:
            continue
        option_of = {p: j for j, p in enumerate(fixed.placements)}
        reps = [orbit.option for orbit in orbits if g in orbit.fixers]
        tasks = [(option_of[cover.placements[rep]],) for rep in reps]
        for rep, n in zip(reps, _count_each(fixed, tasks, backend, left(), None, None, stats)):
            counts[rep, g] = n
    return counts


def _burnside_holding(holding: int, fixed: Sequence[int]) -> int:
    """The classes among the ``holding`` solutions that hold a representative: the orbits
    of its stabiliser on them, by Burnside's lemma (``fixed``: the solutions holding it
    that each of the stabiliser's symmetries but the identity leaves as they are)."""
    total = holding + sum(fixed)
    if total % (len(fixed) + 1):
        raise AssertionError(f"Burnside's sum {total} over a stabiliser of "
                             f"{len(fixed) + 1} is not a multiple of it")
    return total // (len(fixed) + 1)


def _burnside(covers: list[ExactCover], backend: str, left: Callable[[], float | None],
              progress: Progress | None, cluster: Cluster | None,
              stats: dict[str, int]) -> int:
    """Classes of solutions by Burnside's lemma: the mean of the counts of ``covers`` (the
    problem itself, then the solutions each other symmetry fixes)."""
    total = 0
    for k, cover in enumerate(covers):
        total += _count_each(cover, [()], backend, left(), progress if k == 0 else None,
                             cluster if k == 0 else None, stats)[0]
    if total % len(covers):
        raise AssertionError(f"Burnside's sum {total} is not a multiple of {len(covers)}")
    return total // len(covers)


def _count_each(cover: ExactCover, tasks: Sequence[tuple[int, ...]], backend: str,
                time_limit: float | None, progress: Progress | None,
                cluster: Cluster | None, stats: dict[str, int]) -> list[int]:
    """The named backend's count of ``cover`` with each task's options forced (the engine's
    in one session, in units on ``cluster``, its nodes added to ``stats``); OutOfTime when
    ``time_limit`` passes."""
    if time_limit is not None and time_limit <= 0:
        raise OutOfTime("the count ran out of time")
    if backend == "engine":
        from cpmodels.backends import engine

        return engine.count_each(cover, tasks, time_limit=time_limit, progress=progress,
                                 cluster=cluster, stats=stats)
    start = time.perf_counter()
    counts = []
    for task in tasks:
        left = None if time_limit is None else time_limit - (time.perf_counter() - start)
        counts.append(count_cover(backend, cover, time_limit=left, forced=task,
                                  progress=progress if len(tasks) == 1 else None))
    return counts
