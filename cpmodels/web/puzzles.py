"""What the web page asks of a calendar: the k-th solution, the count, the next hint.

Nothing here knows about HTTP. Solutions come from the counting engine in its fixed order,
so "solution k" means the same board on every request; each instance keeps the solutions
found so far (bounded) and its count, in memory only.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cpmodels.backends import engine
from cpmodels.counting import count_cover
from cpmodels.errors import InputError
from cpmodels.geometry import Placement
from cpmodels.instance import PackingInstance, check_labels, date_labels, packing_instance
from cpmodels.spec import CalendarSpec, load_spec

MAX_KEPT_SOLUTIONS = 100_000  # per instance: stepping further is refused
MAX_INSTANCES = 64  # instances whose solutions and counts are kept (least recently used go)


@dataclass
class Solutions:
    """The solutions of one instance, found lazily in the engine's order, and its count."""

    instance: PackingInstance
    found: list[list[int]] = field(default_factory=list)
    exhausted: bool = False
    count: int | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    _stream: Iterator[list[int]] | None = None

    def solution(self, index: int) -> list[int] | None:
        """Solution ``index`` (0-based), or None when there are not that many."""
        if index >= MAX_KEPT_SOLUTIONS:
            raise InputError(f"the page steps through the first {MAX_KEPT_SOLUTIONS:,} "
                             "solutions only")
        with self.lock:
            if self._stream is None:
                self._stream = engine.iter_solutions(self.instance.cover)
            while len(self.found) <= index and not self.exhausted:
                chosen = next(self._stream, None)
                if chosen is None:
                    self.exhausted = True
                    self.count = len(self.found)
                else:
                    self.found.append(sorted(chosen))
            return self.found[index] if index < len(self.found) else None

    def total(self) -> int:
        """Every solution, counted by the engine (in this thread; kept for next time)."""
        if self.count is None:
            self.count = count_cover(self.instance.cover, jobs=1)
        return int(self.count)


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
        try:
            return self.specs[name]
        except KeyError:
            raise LookupError(f"no spec named {name!r}; specs: {', '.join(self.specs)}") \
                from None

    def labels(self, name: str, date: dt.date | None,
               labels: Sequence[str] | None) -> tuple[str, ...]:
        """The labels a date (default today) or an explicit combination leaves uncovered."""
        spec = self.spec(name)
        if labels is not None and date is not None:
            raise InputError("give a date or labels, not both")
        if labels is None:
            return date_labels(spec, date or dt.date.today())
        return check_labels(spec, labels)

    def solutions(self, name: str, labels: Sequence[str], face_up: bool) -> Solutions:
        spec = self.spec(name)
        if face_up and not spec.flip:
            face_up = False  # the pieces are face up already
        key = (name, tuple(labels), face_up)
        with self._lock:
            found = self._cache.get(key)
            if found is None:
                instance = packing_instance(spec, labels=labels, face_up=face_up)
                found = self._cache[key] = Solutions(instance)
                while len(self._cache) > MAX_INSTANCES:
                    self._cache.popitem(last=False)
            self._cache.move_to_end(key)
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
