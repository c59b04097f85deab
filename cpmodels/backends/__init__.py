"""Solvers. Packing backends consume an :class:`~cpmodels.cover.ExactCover` and nothing else.

* ``engine``: the compiled exact-cover search (counts in bulk, streams solutions);
* ``cpsat``: OR-Tools CP-SAT (solves, enumerates on one worker);
* ``sat``: CNF for python-sat (solves, enumerates, proves unsolvability with a DRUP proof).
"""

from __future__ import annotations

from collections.abc import Iterator

from cpmodels.backends.result import CoverResult, Status
from cpmodels.cover import ExactCover

BACKENDS = ("engine", "cpsat", "sat")

__all__ = ["BACKENDS", "CoverResult", "Status", "iter_cover_solutions", "solve_cover"]


def solve_cover(backend: str, cover: ExactCover, *, time_limit: float | None = None,
                ) -> CoverResult:
    """One solution of ``cover`` (or a proof of none) from the named backend."""
    if backend == "cpsat":
        from cpmodels.backends import cpsat

        return cpsat.solve(cover, time_limit=time_limit)
    if backend == "sat":
        from cpmodels.backends import cnf

        return cnf.solve(cover, time_limit=time_limit)
    if backend == "engine":
        from cpmodels.backends import engine

        return engine.solve(cover)
    raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")


def iter_cover_solutions(backend: str, cover: ExactCover) -> Iterator[list[int]]:
    """Every solution of ``cover`` (option ids), streamed by the named backend."""
    if backend == "cpsat":
        from cpmodels.backends import cpsat

        return cpsat.enumerate_solutions(cover)
    if backend == "sat":
        from cpmodels.backends import cnf

        return cnf.iter_solutions(cover)
    if backend == "engine":
        from cpmodels.backends import engine

        return engine.iter_solutions(cover)
    raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
