"""What the web page asks of a calendar: the k-th solution and the count (hints and the
player's positions are in :mod:`cpmodels.web.play`), and the answers the page reads
(:func:`listing`, :func:`solution_answer`, :func:`count_answer`, :func:`check_answer`).

Nothing here knows about HTTP. Solutions come from the counting engine in its fixed order,
so "solution k" means the same board on every request; each instance keeps the solutions
found so far and its count, in memory only, and the memory held over every instance is
bounded. Every method is safe to call from several threads at once.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import threading
import time
from array import array
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cpmodels.backends import engine
from cpmodels.backends.result import CoverResult
from cpmodels.counting import CountResult
from cpmodels.errors import InputError, NotFound, OutOfTime
from cpmodels.geometry import Placement
from cpmodels.instance import PackingInstance, packing_instance
from cpmodels.interrupt import seconds_left
from cpmodels.query import Query
from cpmodels.render import count_payload, packing_payload
from cpmodels.render.pictures import placements_picture
from cpmodels.render.svg import scene_svg
from cpmodels.spec import CalendarSpec, load_spec
from cpmodels.spec.bundled import bundled_specs, spec_path
from cpmodels.spec.loading import is_design
from cpmodels.web.limits import acquire, check_deadline
from cpmodels.web.plans import puzzle_parts, puzzle_plan
from cpmodels.web.play import board_layout, check_position, position_session, puzzle_title

MAX_KEPT_SOLUTIONS = 100_000  # per instance: stepping further is refused
MAX_KEPT_IN_ALL = 1_000_000  # solutions kept over every instance (about 40 MB at most)
MAX_INSTANCES = 64  # instances whose solutions and counts are kept (least recently used go)
DRAWN = "drawn-"
MAX_DRAWN = 32  # boards drawn in the editor and played, kept (least recently played go)


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
    _lock_positions: threading.Lock = field(default_factory=threading.Lock)
    _stream: Iterator[list[int]] | None = None
    _positions: engine.EngineSession | None = None

    @property
    def found(self) -> int:
        """How many solutions have been found (and kept) so far."""
        return len(self._ends)

    def _kept(self, index: int) -> list[int]:
        start = self._ends[index - 1] if index else 0
        return list(self._flat[start:self._ends[index]])

    def solution(self, index: int, deadline: float | None = None) -> list[int] | None:
        """Solution ``index`` (0-based), or None when there are not that many.

        Raises ``OutOfTime`` when ``deadline`` (a ``time.perf_counter`` value) passes
        first; the solutions found by then are kept for the next request.
        """
        if index >= MAX_KEPT_SOLUTIONS:
            raise InputError(f"the page steps through the first {MAX_KEPT_SOLUTIONS:,} "
                             "solutions only")
        acquire(self._lock, deadline)
        try:
            if self._stream is None:
                self._stream = engine.iter_solutions(self.instance.cover)
            while self.found <= index and not self.exhausted:
                check_deadline(deadline)
                chosen = next(self._stream, None) if self._stream is not None else None
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

    @property
    def positions(self) -> engine.EngineSession:
        """The kept engine session that judges players' positions on this puzzle."""
        with self._lock_positions:
            if self._positions is None:
                self._positions = position_session(self.instance.cover)
            return self._positions

    def total(self, deadline: float | None = None) -> int:
        """Every solution, counted by the engine in this thread (kept for next time).

        Raises ``OutOfTime`` when ``deadline`` passes first; the count is then stopped.
        """
        if self.count is not None:
            return self.count
        acquire(self._count_lock, deadline)
        try:
            if self.count is None:
                try:
                    self.count = engine.count(self.instance.cover,
                                              time_limit=seconds_left(deadline), jobs=1)
                except OutOfTime:
                    raise OutOfTime(f"counting {' '.join(self.instance.labels)} took longer "
                                    "than the server allows") from None
            return self.count
        finally:
            self._count_lock.release()


class Puzzles:
    """The calendar specs a server shows, and the instances asked for so far."""

    def __init__(self, spec_paths: Sequence[str | Path]) -> None:
        self.specs: dict[str, CalendarSpec] = {}
        self.paths: dict[str, Path] = {}  # each served spec's file, as the editor starts from it
        for path in spec_paths:
            spec = load_spec(path)
            if not isinstance(spec, CalendarSpec):
                raise InputError(f"{path} is a {spec.kind} spec; the page shows calendars")
            if spec.name in self.specs:
                raise InputError(f"two specs are named {spec.name!r}")
            self.specs[spec.name] = spec
            self.paths[spec.name] = spec_path(path)
        if not self.specs:
            raise InputError("no calendar specs to serve; name some, e.g. specs/*.yaml")
        self._cache: OrderedDict[tuple, Solutions] = OrderedDict()
        self._layouts: dict[str, dict[str, Any]] = {}
        self._plans: dict[tuple[str, bool], dict[str, Any]] = {}
        self._drawn: OrderedDict[str, CalendarSpec] = OrderedDict()
        self._lock = threading.Lock()

    def spec(self, name: str) -> CalendarSpec:
        spec = self.specs.get(name)
        if spec is None:
            with self._lock:
                spec = self._drawn.get(name)
        if spec is None:
            raise NotFound(f"no spec named {name[:60]!r}; specs: {', '.join(self.specs)}"
                           + (" (a drawn board is played again from its link)"
                              if name.startswith(DRAWN) else ""))
        return spec

    def known(self, name: str) -> bool:
        """Whether a spec of this name is served or drawn (and kept)."""
        with self._lock:
            return name in self.specs or name in self._drawn

    def spec_file(self, name: str) -> Path:
        """The file a served calendar was read from (:class:`NotFound` for any other)."""
        path = self.paths.get(name)
        if path is None:
            raise NotFound(f"no calendar {name[:60]!r} is served; served: "
                           f"{', '.join(self.paths)}")
        return path

    def drawn(self, spec: CalendarSpec) -> CalendarSpec:
        """A board drawn in the editor, to be played: kept under a name its content gives
        (``drawn-`` and a digest), so the same board is one puzzle however often it comes."""
        digest = hashlib.sha256(spec.model_dump_json(by_alias=True).encode()).hexdigest()
        name = f"{DRAWN}{digest[:12]}"
        with self._lock:
            if name not in self._drawn:
                self._drawn[name] = spec.model_copy(update={
                    "name": name, "description": f"{spec.name}, drawn in the editor"})
            self._drawn.move_to_end(name)
            while len(self._drawn) > MAX_DRAWN:
                gone, _ = self._drawn.popitem(last=False)
                self._layouts.pop(gone, None)
                for face_up in (False, True):
                    self._plans.pop((gone, face_up), None)
            return self._drawn[name]

    def layout(self, name: str) -> dict[str, Any]:
        """The board and pieces of a spec as play mode draws them (worked out once, outside
        the lock every request takes: a drawn board's layout may take seconds)."""
        spec = self.spec(name)
        with self._lock:
            found = self._layouts.get(name)
        if found is None:
            found = board_layout(spec)
            with self._lock:
                if name in self.specs or name in self._drawn:  # not dropped meanwhile
                    found = self._layouts.setdefault(name, found)
        return found

    def parts(self, name: str) -> dict[str, Any]:
        """What the core in the page makes a spec's layout and plans from
        (:func:`~cpmodels.web.plans.puzzle_parts`)."""
        return puzzle_parts(self.spec(name))

    def plan(self, name: str, face_up: bool) -> dict[str, Any]:
        """The engine's plan of a spec for the browser (:func:`~cpmodels.web.plans.puzzle_plan`),
        worked out once as :meth:`layout` is."""
        spec = self.spec(name)
        key = (name, face_up)
        with self._lock:
            found = self._plans.get(key)
        if found is None:
            found = puzzle_plan(spec, face_up)
            with self._lock:
                if name in self.specs or name in self._drawn:  # not dropped meanwhile
                    found = self._plans.setdefault(key, found)
        return found

    def query(self, name: str, date: dt.date | None, labels: Sequence[str] | None,
              face_up: bool) -> Query:
        """The puzzle asked for: a date (default today) or a label combination."""
        return Query.of(self.spec(name), date=date, labels=labels, face_up=face_up)

    def find(self, name: str, date: dt.date | None, labels: Sequence[str] | None,
             face_up: bool) -> Solutions:
        """The (kept) solutions and count of the puzzle asked for (:meth:`query`)."""
        return self.solutions(self.query(name, date, labels, face_up))

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


def bundled_calendars() -> list[Path]:
    """The bundled calendar specs (designs and other kinds left out), the weekday calendar
    (the main puzzle) first: the pages open on the first. :class:`InputError` when none is
    found."""
    paths = sorted((p for p in bundled_specs().values()
                    if not is_design(p) and isinstance(load_spec(p), CalendarSpec)),
                   key=lambda p: (p.stem != "calendar_week", p.name))
    if not paths:
        raise InputError("no bundled calendar specs were found; name the calendar specs")
    return paths


def listing(spec: CalendarSpec, today: dt.date) -> dict[str, Any]:
    """A puzzle as the page lists it: its name, title, groups, and today's labels."""
    todays = spec.date_labels(today) if spec.has_dates else spec.label_combinations()[0]
    return {"name": spec.name, "title": puzzle_title(spec), "description": spec.description,
            "groups": spec.groups, "flip": spec.can_flip, "today": list(todays),
            "dates": spec.has_dates}


def solution_answer(found: Solutions, index: int, deadline: float | None) -> dict[str, Any]:
    """Solution ``index`` of a puzzle as the page shows it: the CLI's JSON, where the page
    stands in the solutions (found so far, all found, the count if known) and the board
    drawn (SVG); :class:`NotFound` past the last solution."""
    instance = found.instance
    chosen = found.solution(index, deadline)
    if chosen is None and index > 0:
        count = f"{found.count:,}" if found.count else "no solution"
        raise NotFound(f"there is no solution {index + 1}: "
                       f"{' '.join(instance.labels)} has {count}")
    result = (CoverResult("solved", "engine", 0.0, chosen) if chosen is not None
              else CoverResult("unsolvable", "engine", 0.0))
    payload = packing_payload(instance, result)
    title = f"{puzzle_title(instance.spec)}, {' '.join(instance.labels)}" + (
        f": solution {index + 1}" if chosen is not None else ": no solution")
    placements = instance.cover.decode(chosen) if chosen is not None else []
    payload.update(index=index, found=found.found, exhausted=found.exhausted,
                   count=found.count, face_up=instance.face_up,
                   svg=scene_svg(placements_picture(instance, placements, title)))
    if chosen is None:
        payload["message"] = (f"{' '.join(instance.labels)} has no solution"
                              + (" with the pieces face up" if instance.face_up else ""))
    return payload


def count_answer(found: Solutions, deadline: float | None) -> dict[str, Any]:
    """A puzzle's count as the CLI's JSON says it."""
    start = time.perf_counter()
    total = found.total(deadline)
    return count_payload(found.instance, CountResult(total, False, 1, "engine",
                                                     time.perf_counter() - start))


def check_answer(found: Solutions, placements: Sequence[Placement],
                 deadline: float | None) -> dict[str, Any]:
    """A player's position on a puzzle judged (:func:`~cpmodels.web.play.check_position`,
    on the puzzle's kept session and count)."""
    verdict = check_position(found.instance, placements, deadline=deadline,
                             session=found.positions, total=found.total)
    return {"spec": found.instance.name, "labels": list(found.instance.labels),
            "face_up": found.instance.face_up, "status": verdict.status,
            "completions": verdict.completions, "message": verdict.message,
            "take_back": list(verdict.take_back)}
