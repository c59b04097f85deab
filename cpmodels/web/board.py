"""A board someone draws, as the editor's API sees it: its arithmetic at once, and the count
of every label combination streamed as each is decided.

A board comes as a calendar spec's fields in JSON (``board``, ``groups``, ``pieces``, ...;
``kind`` and ``name`` may be left out). :func:`board_spec` validates it as a spec file is
validated, and refuses at once, before any search, what no search should be started for: a
board of more than :data:`MAX_CELLS` cells, more than :data:`MAX_COMBINATIONS` label
combinations or :data:`MAX_PLACEMENTS` possible placements, or pieces whose area can never
match the cells left to cover.

:class:`BoardCounts` counts every combination by the sweep's own plan
(:func:`~cpmodels.sweep.sweep_plan`: one exact cover with a slack item per group, the group
the search passes first fixed task by task, the rest tallied in one search) on sessions
with about the sweep's table, at the run layer's threads (the kernels release the GIL):
as the sweep's, the tasks stay on one session while the rest would be quick and are
shared among ``threads`` after. One combination of the first task comes first (a preview
on a small table), then each task's rows as soon as it is done.
:meth:`BoardCounts.stop` ends it from any thread within a kernel's stop check.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from cpmodels.errors import InputError, SpecError
from cpmodels.running import Run, Threads
from cpmodels.spec.loading import validate_data
from cpmodels.spec.models import CalendarSpec
from cpmodels.sweep import Row, SweepSummary, sweep_plan
from cpmodels.web.wording import plain, problem_sentence

MAX_CELLS = 400  # a board cell by cell in a browser: far more than any calendar
MAX_COMBINATIONS = 20_000
# Placements a board's pieces may have (bounded before anything is compiled, at cells x
# pieces x the grid's turns and flips): every pentomino and hexomino on 400 cells is 150,400.
MAX_PLACEMENTS = 250_000
TURNS = {"square": 8, "triangle": 12, "hex": 12}
# Each session's table of sub-board counts: a board of 48 cells or more (the weekday
# calendar, 50) needs the sweep's large table to count as fast as the sweep (1 << 22 slots:
# 26 s, 1 << 24: 10 s); a smaller one answers its first line sooner with a small table
# (the month/day calendar, 43 cells: 0.4 s instead of 0.9 s).
TABLE_SLOTS = (1 << 22, 1 << 24)
LARGE_BOARD = 48
ARENA = 1 << 28  # counts (8 bytes each) the table may keep (committed only as it is used)
# Bytes of a session's table keys and values: a board with wider states (more items) gets
# fewer slots (the weekday calendar's 1 << 24 slots of 2 words fit).
TABLE_BYTES = 1 << 29
# Bytes of a board's tables over all its sessions (keys, values and arenas), and of each
# session's: a board's memory is bounded whatever its size and however many cores count
# it. A session gets up to 2 GB, near the sweep's one table (calendar_week_11's first task
# fills 1.2 GB of arena: with 1 GB a session, as two sessions had in 2 GB, its table was
# emptied twice a task and the counts took twice the CPU).
BOARD_BYTES = 1 << 32
SESSION_BYTES = 1 << 31
SOURCE = "board"


class Stoppable(Protocol):
    """Work the server streams: rows as they are made, stopped from any thread."""

    def rows(self) -> Iterator[dict[str, Any]]: ...

    def stop(self) -> None: ...

    @property
    def stopped(self) -> bool: ...


class NothingFits(InputError):
    """The pieces' area never matches the cells to cover: no search is started."""


def board_spec(data: Any) -> CalendarSpec:
    """The calendar a board's JSON describes, validated (:class:`SpecError` naming the
    field) and within the editor's limits (:class:`InputError`)."""
    if not isinstance(data, dict):
        raise SpecError(SOURCE, "a board is a JSON object of a calendar spec's fields")
    if data.get("kind", "calendar") != "calendar":
        raise SpecError(SOURCE, "the editor draws calendars: kind must be 'calendar'",
                        field="kind")
    rows = data.get("board")
    if isinstance(rows, list) and sum(len(str(r).split()) for r in rows) > MAX_CELLS * 4:
        raise InputError(f"the board has more than {MAX_CELLS} cells")
    spec = validate_data({"name": "my-board", **data, "kind": "calendar"}, SOURCE)
    assert isinstance(spec, CalendarSpec)
    if len(spec.cells) > MAX_CELLS:
        raise InputError(f"the board has {len(spec.cells):,} cells; the editor takes at most "
                         f"{MAX_CELLS}")
    placements = len(spec.cells) * len(spec.pieces) * TURNS.get(spec.grid, 12)
    if placements > MAX_PLACEMENTS:
        raise InputError(f"{len(spec.pieces)} kinds of piece on {len(spec.cells)} cells may "
                         f"have {placements:,} placements; the editor takes at most "
                         f"{MAX_PLACEMENTS:,} (fewer kinds of piece, or a smaller board)")
    combos = 1
    for labels in spec.groups.values():
        combos *= len(labels)
    if combos > MAX_COMBINATIONS:
        raise InputError(f"the groups make {combos:,} label combinations; the editor counts "
                         f"at most {MAX_COMBINATIONS:,}")
    return spec


def arithmetic(spec: CalendarSpec) -> dict[str, Any]:
    """Cells to cover (the board less one label per group) against the pieces' area, with
    the difference said in words."""
    cells = len(spec.cells)
    cover = cells - len(spec.groups)
    low = sum(p.area * p.low for p in spec.pieces)
    high = sum(p.area * p.high for p in spec.pieces)
    area = f"{low}" if low == high else f"{low} to {high}"
    if low <= cover <= high:
        said = (f"the pieces cover {area} cells and {cover} are left to cover "
                f"({cells} cells less one label per group): the area matches")
    elif cover > high:
        said = (f"{cover} cells are left to cover but the pieces cover at most {high}: "
                f"{cover - high} cells too many, so no combination can be solved")
    else:
        said = (f"{cover} cells are left to cover but the pieces cover at least {low}: "
                f"{low - cover} cells too few, so no combination can be solved")
    return {"cells": cells, "groups": len(spec.groups), "to_cover": cover,
            "pieces_area": [low, high], "difference": 0 if low <= cover <= high else
            (cover - high if cover > high else cover - low),
            "fits": low <= cover <= high, "message": said,
            "combinations": len(spec.label_combinations())}


def check(data: Any) -> dict[str, Any]:
    """The board's validation errors, or its arithmetic; never searches. Each error has
    its ``field`` (a path, or None), the precise ``error`` and the same said for a person
    (``message``, :mod:`cpmodels.web.wording`)."""
    try:
        spec = board_spec(data)
    except SpecError as exc:
        errors = [{"field": p.field, "error": p.reason, "message": problem_sentence(p)}
                  for p in exc.problems]
        return {"valid": False, "errors": errors}
    except InputError as exc:
        return {"valid": False,
                "errors": [{"field": None, "error": str(exc), "message": plain(exc)}]}
    return {"valid": True, "errors": [], **arithmetic(spec)}


class BoardCounts:
    """Every label combination's count of a board, task by task on up to ``threads``
    sessions side by side (the run layer's :class:`~cpmodels.running.Threads`, which runs
    a sweep's tasks as the sweep does).

    Made at once (the cover compiled, the board's arithmetic checked); the sessions and
    their tables are made when :meth:`rows` starts and let go when it ends, however it
    ends, so a board waiting for its turn or done holds no table.
    """

    def __init__(self, spec: CalendarSpec, *, threads: int = 2) -> None:
        found = arithmetic(spec)
        if not found["fits"]:
            raise NothingFits(found["message"])
        self.spec = spec
        self.plan = sweep_plan(spec)
        self.cover = self.plan.cover
        self.tasks = self.plan.tasks()
        self.previews = self.plan.preview_tasks()
        self.threads = max(1, min(threads, len(self.tasks)))
        self.table_slots, self.arena = table_sizes(len(spec.cells), len(self.cover.items),
                                                   self.threads)
        # One session a thread with its large table, and a small one for the preview (a
        # large table takes a second to lay out; the first rows should not wait for it).
        work = self.plan.work(
            self.tasks, lambda: self.plan.session(table_slots=self.table_slots,
                                                  arena=self.arena),
            preview_worker=lambda: self.plan.session(table_slots=PREVIEW_SLOTS))
        self.run = Run(work, Threads(self.threads))

    def stop(self) -> None:
        """End the counting as soon as the kernels look (from any thread)."""
        self.run.stop()

    @property
    def stopped(self) -> bool:
        return self.run.stopped

    def rows(self) -> Iterator[dict[str, Any]]:
        """Each combination's row as its task is done (tasks in no fixed order), then the
        summary (:class:`~cpmodels.sweep.SweepSummary`'s rule); nothing more once stopped.
        The sessions live as long as this runs."""
        start = time.perf_counter()
        counted: dict[tuple[str, ...], int] = {}  # a preview's rows come again with its task
        for done in self.run.results():
            task = self.previews[0] if done.index is None else self.tasks[done.index]
            for labels, count in self.plan.rows(task, done.result):
                if labels not in counted:
                    counted[labels] = count
                    yield {"labels": list(labels), "count": count}
        if self.stopped:
            return
        summary = SweepSummary()
        for labels in self.spec.label_combinations():
            if labels in counted:
                summary.add(Row(labels, self.spec.real_date(labels) is not None,
                                counted[labels]))
        found = summary.as_dict()
        out = {"done": True, "combinations": summary.combinations,
               "unsolvable": found["unsolvable"],
               "solvable": summary.combinations - len(summary.unsolvable),
               "fewest": found["fewest"], "most": found["most"],
               "seconds": round(time.perf_counter() - start, 3)}
        if self.spec.has_dates:  # a calendar's question: is every real date solvable
            out["unsolvable_real_dates"] = [
                labels for labels in found["unsolvable"]
                if self.spec.real_date(tuple(labels)) is not None]
        yield out


PREVIEW_SLOTS = 1 << 19  # the preview's table: small, so it is laid out at once (20 MB)


def table_sizes(cells: int, items: int, sessions: int) -> tuple[int, int]:
    """The slots and the arena (in counts) of each of ``sessions`` tables of sub-board
    counts for a board of ``cells`` cells whose cover has ``items`` items: the large table
    from :data:`LARGE_BOARD` cells, never more than :data:`TABLE_BYTES` of keys and values
    per session, nor :data:`SESSION_BYTES` of keys, values and arena per session, nor
    :data:`BOARD_BYTES` in all."""
    share = min(SESSION_BYTES, BOARD_BYTES // max(1, sessions))
    words = -(-items // 64)
    slot_bytes = (words + 2) * 8 + 8  # a key row (state words, value, check) and a value
    slots = TABLE_SLOTS[cells >= LARGE_BOARD]
    while slots > 1 << 12 and slots * slot_bytes > min(TABLE_BYTES, share // 2):
        slots >>= 1
    return slots, min(ARENA, (share - slots * slot_bytes) // 8)




def to_yaml(data: Any) -> str:
    """A valid board as the YAML that ``cpmodels solve/sweep/design/make`` read."""
    import yaml

    spec = board_spec(data)
    fields = {"kind": "calendar", "name": spec.name, **{k: v for k, v in data.items()
                                                        if k not in ("kind", "name")}}
    return yaml.safe_dump(fields, sort_keys=False, allow_unicode=True, width=100)


def from_yaml(text: str, source: str = SOURCE) -> dict[str, Any]:
    """A calendar spec's YAML as the editor's JSON fields (validated)."""
    data = _yaml_fields(text, source)
    board_spec(data)
    return data


def read_fields(path: Path) -> Any:
    """A served calendar's spec file as the editor's JSON fields (served, so valid)."""
    return _yaml_fields(path.read_text(encoding="utf-8"), path.name)


def _yaml_fields(text: str, source: str) -> Any:
    """YAML read by the spec reader, as a spec file is."""
    from cpmodels.spec.loading import parse_yaml

    try:
        data, _ = parse_yaml(text, source)
    except ValueError as exc:  # a number Python will not read (more than 4,300 digits)
        raise SpecError(source, " ".join(f"the YAML holds a value that cannot be read: "
                                         f"{exc}".split())[:300]) from None
    return data
