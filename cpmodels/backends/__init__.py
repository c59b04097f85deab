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
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Protocol, cast

from cpmodels.backends.result import CoverResult, Status
from cpmodels.errors import InputError

if TYPE_CHECKING:
    from cpmodels.cover import ExactCover


class Capability(Enum):
    """What a backend can do beyond the contract every backend keeps."""

    COUNT = "counts without listing the solutions"
    PROVE = "proves unsolvability with a checked proof"
    CLUSTER = "runs its work in units on a Dask cluster"


@dataclass(frozen=True)
class BackendInfo:
    """A backend's module (imported when first asked for: CP-SAT and python-sat load large
    libraries) and what it declares it can do."""

    module: str
    capabilities: frozenset[Capability]


#: Backend name -> its module and capabilities.
BACKENDS: dict[str, BackendInfo] = {
    "engine": BackendInfo("cpmodels.backends.engine",
                          frozenset({Capability.COUNT, Capability.CLUSTER})),
    "cpsat": BackendInfo("cpmodels.backends.cpsat", frozenset()),
    "sat": BackendInfo("cpmodels.backends.cnf", frozenset({Capability.PROVE})),
}


class Backend(Protocol):
    """The contract of a packing backend (``TEMPLATE.py`` says it in full)."""

    NAME: str
    STREAMS: bool

    def solve(self, cover: ExactCover, *, time_limit: float | None = None,
              forced: Sequence[int] = ()) -> CoverResult: ...

    def iter_solutions(self, cover: ExactCover, *, time_limit: float | None = None,
                       forced: Sequence[int] = ()) -> Iterator[list[int]]: ...

    def count(self, cover: ExactCover, *, time_limit: float | None = None,
              forced: Sequence[int] = (),
              progress: Callable[[int, int], None] | None = None) -> int: ...


__all__ = ["BACKENDS", "Backend", "BackendInfo", "Capability", "CoverResult", "Status",
           "backend", "count_cover", "iter_cover_solutions", "require", "solve_cover"]


def _info(name: str) -> BackendInfo:
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    return BACKENDS[name]


def backend(name: str) -> Backend:
    """The backend called ``name`` (see ``TEMPLATE.py`` for what it offers)."""
    return cast(Backend, importlib.import_module(_info(name).module))


def require(name: str, capability: Capability, asked: str) -> None:
    """Refuse ``asked`` (what the user asked for, as they said it) when the backend ``name``
    lacks ``capability``, naming the backends that have it."""
    if capability not in _info(name).capabilities:
        able = [other for other, info in BACKENDS.items() if capability in info.capabilities]
        raise InputError(f"{asked} needs a backend that {capability.value} "
                         f"({', '.join(able)}), not {name}")


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
