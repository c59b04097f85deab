"""Solvers. Packing backends consume an :class:`~cpmodels.cover.ExactCover` and nothing else.

Every packing backend keeps one contract (``TEMPLATE.py``: ``NAME``, ``STREAMS``, ``solve``,
``iter_solutions``, ``count``, each with ``time_limit`` and ``forced``), and this table is
the one place that maps a name to one:

* ``engine``: the compiled exact-cover search (counts in bulk, streams solutions);
* ``cpsat``: OR-Tools CP-SAT (solves; enumerates on one worker, streamed);
* ``sat``: CNF for python-sat (solves, enumerates, proves unsolvability with a DRUP proof).

The towers maximisation has its own solver (the ``cpmodels.towers`` package), not this
contract.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType

from cpmodels.backends.result import CoverResult, Status
from cpmodels.cover import ExactCover

#: Backend name -> its module (imported when first asked for: CP-SAT and python-sat load
#: large libraries).
BACKENDS: dict[str, str] = {
    "engine": "cpmodels.backends.engine",
    "cpsat": "cpmodels.backends.cpsat",
    "sat": "cpmodels.backends.cnf",
}

__all__ = ["BACKENDS", "CoverResult", "Status", "backend", "count_cover",
           "iter_cover_solutions", "solve_cover"]


def backend(name: str) -> ModuleType:
    """The backend module called ``name`` (see ``TEMPLATE.py`` for what it offers)."""
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    return importlib.import_module(BACKENDS[name])


def solve_cover(name: str, cover: ExactCover, *, time_limit: float | None = None,
                forced: Sequence[int] = ()) -> CoverResult:
    """One solution of ``cover`` (or a proof of none) from the named backend."""
    return backend(name).solve(cover, time_limit=time_limit, forced=forced)


def iter_cover_solutions(name: str, cover: ExactCover, *, time_limit: float | None = None,
                         forced: Sequence[int] = ()) -> Iterator[list[int]]:
    """Every solution of ``cover`` (option ids) from the named backend."""
    return backend(name).iter_solutions(cover, time_limit=time_limit, forced=forced)


def count_cover(name: str, cover: ExactCover, *, time_limit: float | None = None,
                forced: Sequence[int] = (),
                progress: Callable[[int, int], None] | None = None) -> int:
    """How many solutions ``cover`` has (:class:`~cpmodels.errors.OutOfTime` when the time
    limit passes first)."""
    return backend(name).count(cover, time_limit=time_limit, forced=forced, progress=progress)
