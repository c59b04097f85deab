"""What the web page asks of a calendar: the k-th solution, the count, the next hint.

Nothing here knows about HTTP. Solutions come from the counting engine in its fixed order,
so "solution k" means the same board on every request; each instance keeps the solutions
found so far and its count, in memory only, and the memory held over every instance is
bounded. Every method is safe to call from several threads at once.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from array import array
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cpmodels.backends import engine
from cpmodels.errors import CpmodelsError, InputError, NotFound
from cpmodels.geometry import Placement
from cpmodels.instance import PackingInstance, packing_instance
from cpmodels.query import Query
from cpmodels.spec import CalendarSpec, load_spec

MAX_KEPT_SOLUTIONS = 100_000  # per instance: stepping further is refused
MAX_KEPT_IN_ALL = 1_000_000  # solutions kept over every instance (about 40 MB at most)
MAX_INSTANCES = 64  # instances whose solutions and counts are kept (least recently used go)


class TooSlow(CpmodelsError):
    """The answer could not be found within the request's time limit."""


def _check(deadline: float | None) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise TooSlow("the search ran out of time; try again, or ask for an earlier solution")


def _acquire(lock: threading.Lock, deadline: float | None) -> None:
    """Take ``lock``, waiting no later than ``deadline``; :class:`TooSlow` if it passes."""
    wait = -1 if deadline is None else max(0.0, deadline - time.perf_counter())
    if not lock.acquire(timeout=wait):
        _check(0.0)


@dataclass
class Solutions:
    """The solutions of one instance, found lazily in the engine's order, and its count.

    Safe for several threads: stepping is done under one lock and counting under another
    (so one thread counts while the others wait for its answer). The solutions found are
    kept as one flat array of option ids, :data:`MAX_KEPT_SOLUTIONS` at most.
    """

    instance: PackingInstance
    exhausted: bool = False
    count: int | None = None
    _flat: array = field(default_factory=lambda: array("i"))
    _ends: array = field(default_factory=lambda: array("q"))
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _count_lock: threading.Lock = field(default_factory=threading.Lock)
    _stream: Iterator[list[int]] | None = None

    @property
    def found(self) -> int:
        """How many solutions have been found (and kept) so far."""
        return len(self._ends)

    def _kept(self, index: int) -> list[int]:
        start = self._ends[index - 1] if index else 0
        return list(self._flat[start:self._ends[index]])

    def solution(self, index: int, deadline: float | None = None) -> list[int] | None:
        """Solution ``index`` (0-based), or None when there are not that many.

        Raises :class:`TooSlow` when ``deadline`` (a ``time.perf_counter`` value) passes
        first; the solutions found by then are kept for the next request.
        """
        if index >= MAX_KEPT_SOLUTIONS:
            raise InputError(f"the page steps through the first {MAX_KEPT_SOLUTIONS:,} "
                             "solutions only")
        _acquire(self._lock, deadline)
        try:
            if self._stream is None:
                self._stream = engine.iter_solutions(self.instance.cover)
            while self.found <= index and not self.exhausted:
                _check(deadline)
                chosen = next(self._stream, None)
                if chosen is None:
                    self.exhausted = True
                    self.count = self.found
                    self._stream = None
                else:
                    self._flat.extend(sorted(chosen))
                    self._ends.append(len(self._flat))
            return self._kept(index) if index < self.found else None
        finally:
            self._lock.release()

    def total(self, deadline: float | None = None) -> int:
        """Every solution, counted by the engine in this thread (kept for next time).

        Raises :class:`TooSlow` when ``deadline`` passes first; the count is then stopped.
        """
        if self.count is not None:
            return self.count
        _acquire(self._count_lock, deadline)
        try:
            if self.count is None:
                left = None if deadline is None else max(0.0, deadline - time.perf_counter())
                counted = engine.count(self.instance.cover, time_limit=left, jobs=1)
                if counted is None:
                    raise TooSlow(f"counting {' '.join(self.instance.labels)} took longer "
                                  "than the server allows")
                self.count = counted
            return self.count
        finally:
            self._count_lock.release()


class Puzzles:
    """The calendar specs a server shows, and the instances asked for so far."""

    def __init__(self, spec_paths: Sequence[str | Path]) -> None:
        self.specs: dict[str, CalendarSpec] = {}
        for path in spec_paths:
            spec = load_spec(path)
            if not isinstance(spec, CalendarSpec):
                raise InputError(f"{path} is a {spec.kind} spec; the page shows calendars")
            if spec.name in self.specs:
                raise InputError(f"two specs are named {spec.name!r}")
            self.specs[spec.name] = spec
        if not self.specs:
            raise InputError("no calendar specs to serve; name some, e.g. specs/*.yaml")
        self._cache: OrderedDict[tuple, Solutions] = OrderedDict()
        self._lock = threading.Lock()

    def spec(self, name: str) -> CalendarSpec:
        spec = self.specs.get(name)
        if spec is None:
            raise NotFound(f"no spec named {name!r}; specs: {', '.join(self.specs)}")
        return spec

    def query(self, name: str, date: dt.date | None, labels: Sequence[str] | None,
              face_up: bool) -> Query:
        """The puzzle asked for: a date (default today) or a label combination."""
        return Query.of(self.spec(name), date=date, labels=labels, face_up=face_up)

    def solutions(self, query: Query) -> Solutions:
        """The (kept) solutions and count of a query."""
        with self._lock:
            found = self._cache.get(query.key)
            if found is None:
                found = self._cache[query.key] = Solutions(packing_instance(query))
            self._cache.move_to_end(query.key)
            kept = sum(s.found for s in self._cache.values())
            while len(self._cache) > MAX_INSTANCES or (kept > MAX_KEPT_IN_ALL
                                                       and len(self._cache) > 1):
                _, dropped = self._cache.popitem(last=False)
                kept -= dropped.found
            return found


def option_ids(instance: PackingInstance, placements: Sequence[Placement]) -> list[int]:
    """The cover's option id of each placement, or an :class:`InputError` naming the bad one."""
    index = {p: j for j, p in enumerate(instance.cover.placements)}
    ids = []
    for p in placements:
        key = Placement(p.piece, tuple(sorted(p.cells)))
        if key not in index:
            raise InputError(f"{p.piece} on {list(key.cells)} is not a placement of "
                             f"{instance.name} {' '.join(instance.labels)}")
        ids.append(index[key])
    return ids


def next_hint(instance: PackingInstance,
              revealed: Sequence[Placement]) -> tuple[Placement | None, bool]:
    """One more piece of a full solution that contains ``revealed``.

    Returns ``(placement, True)``, ``(None, True)`` when every piece is shown, or
    ``(None, False)`` when no solution contains the revealed pieces.
    """
    ids = option_ids(instance, revealed)
    if len(set(ids)) != len(ids):
        raise InputError("a piece is revealed twice")
    solution = next(engine.iter_solutions(instance.cover, forced=ids, batch=1), None)
    if solution is None:
        return None, False
    shown = set(ids)
    rest = [j for j in sorted(solution) if j not in shown]
    if not rest:
        return None, True
    order = {name: k for k, name in enumerate(instance.spec.letters())}
    j = min(rest, key=lambda j: (order.get(instance.cover.placements[j].piece, 0), j))
    return instance.cover.placements[j], True
