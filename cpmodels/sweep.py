"""Count every label combination of a calendar spec (2604 for month/day/weekday).

The whole calendar compiles to one exact cover: every board cell is an item, and each label
group gets a slack item that one *slack option* per label covers together with that label's
cell. A combination is the set of its slack options; the engine counts the solutions that
contain it, branching on the slack items first, and keeps one table of sub-board counts per
worker, shared by every combination that worker counts.
"""

from __future__ import annotations

import csv
import datetime as dt
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cpmodels.backends import engine
from cpmodels.cover import ExactCover, Item, packing_cover
from cpmodels.errors import InputError
from cpmodels.geometry import Placement
from cpmodels.instance import all_label_combinations
from cpmodels.spec.models import CalendarSpec

LEAP_YEAR = 2024  # real dates are the month/day pairs of a leap year (Feb 29 included)
SLACK_PREFIX = "@"


@dataclass
class Row:
    """One combination's count."""

    labels: tuple[str, ...]
    real_date: bool
    count: int


@dataclass
class SweepSummary:
    combinations: int = 0
    total: int = 0
    real_total: int = 0
    fewest: Row | None = None
    most: Row | None = None
    unsolvable: list[tuple[str, ...]] = field(default_factory=list)

    def add(self, row: Row) -> None:
        self.combinations += 1
        self.total += row.count
        if row.real_date:
            self.real_total += row.count
        if row.count == 0:
            self.unsolvable.append(row.labels)
        if self.fewest is None or row.count < self.fewest.count:
            self.fewest = row
        if self.most is None or row.count > self.most.count:
            self.most = row

    def as_dict(self) -> dict[str, Any]:
        def one(row: Row | None) -> dict[str, Any] | None:
            return None if row is None else {"labels": list(row.labels), "count": row.count}

        return {
            "combinations": self.combinations, "total": self.total,
            "real_total": self.real_total, "fewest": one(self.fewest), "most": one(self.most),
            "unsolvable": [list(labels) for labels in self.unsolvable],
        }


def sweep_cover(spec: CalendarSpec, *, face_up: bool = False) -> tuple[ExactCover, list[int]]:
    """The calendar as one exact cover with a slack item per group; returns it and those items.

    Slack option ids follow the placements; ``slack_option(label)`` finds them by label.
    """
    cover = packing_cover(spec.cells, spec.piece_kinds(face_up=face_up))
    cell_index = {it.cell: i for i, it in enumerate(cover.items) if it.cell is not None}
    slack_items = []
    for group, labels in spec.groups.items():
        item = len(cover.items)
        cover.items.append(Item(SLACK_PREFIX + group))
        slack_items.append(item)
        for label in labels:
            rc = spec.label_cells[label]
            cover.options.append((cell_index[rc], item))
            cover.placements.append(Placement(SLACK_PREFIX + group, (rc,)))
    return cover, slack_items


def combination_options(cover: ExactCover, labels_per_group: Sequence[Sequence[str]],
                        spec: CalendarSpec) -> dict[tuple[str, ...], list[int]]:
    """Slack option ids of every combination."""
    by_cell = {
        (p.piece, p.cells[0]): j for j, p in enumerate(cover.placements)
        if p.piece.startswith(SLACK_PREFIX)
    }
    groups = list(spec.groups)
    return {
        combo: [by_cell[(SLACK_PREFIX + g, spec.label_cells[label])]
                for g, label in zip(groups, combo)]
        for combo in labels_per_group
    }


# Worker state: one compiled cover and one table of sub-board counts per process.
_WORKER: dict[str, Any] = {}


def _worker_init(cover: ExactCover, slack_items: list[int], memo_slots: int) -> None:
    compiled = engine.compile_cover(cover, first=slack_items)
    _WORKER["compiled"] = compiled
    _WORKER["memo"] = engine.Memo(compiled.n_words, memo_slots)


def _worker_count(prefixes: list[list[int]]) -> list[int]:
    return engine.count_prefixes(_WORKER["compiled"], prefixes, _WORKER["memo"])


def _chunks(items: list, size: int) -> Iterator[list]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def read_rows(path: Path, columns: list[str]) -> dict[tuple[str, ...], Row]:
    """Finished rows of an earlier run (only complete lines with the expected columns)."""
    rows: dict[tuple[str, ...], Row] = {}
    if not path.exists():
        return rows
    with path.open(newline="") as handle:
        text = handle.read()
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines = lines[:-1]  # a line cut by a killed run
    reader = csv.reader(lines)
    header = next(reader, None)
    if header is None:
        return rows
    if header != columns:
        raise InputError(f"{path} has columns {','.join(header)}, not {','.join(columns)}; "
                         "it belongs to another spec: give another --out")
    n = len(columns) - 2
    for record in reader:
        if len(record) != len(columns) or not record[-1].isdigit():
            continue
        rows[tuple(record[:n])] = Row(tuple(record[:n]), record[-2] == "true", int(record[-1]))
    return rows


def run_sweep(spec: CalendarSpec, out: Path, *, jobs: int | None = None, resume: bool = False,
              face_up: bool = False, chunk: int | None = None,
              memo_slots: int = engine.DEFAULT_MEMO_SLOTS,
              on_row: Callable[[Row], None] | None = None) -> SweepSummary:
    """Count every combination, appending one CSV row per combination in a fixed order.

    Rows are flushed as soon as they and every row before them are known, so an interrupted
    run keeps complete rows only; ``resume`` skips the rows an earlier run finished.
    """
    columns = [*spec.groups, "real_date", "count"]
    combos = [tuple(c) for c in all_label_combinations(spec)]
    done = read_rows(out, columns) if resume else {}
    todo = [c for c in combos if c not in done]
    cover, slack_items = sweep_cover(spec, face_up=face_up)
    options = combination_options(cover, todo, spec)
    jobs = jobs or os.cpu_count() or 1
    size = chunk or max(1, min(64, len(todo) // (jobs * 4) or 1))
    summary = SweepSummary()
    by_labels = dict(done)

    def real(labels: tuple[str, ...]) -> bool:
        return real_date_of_any_year(spec, labels) is not None

    if done:
        # Rewrite the kept rows (in sweep order) atomically, dropping any line a killed run cut.
        tmp = out.with_name(out.name + ".tmp")
        with tmp.open("w", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(columns)
            for combo in combos:
                if combo in done:
                    row = done[combo]
                    writer.writerow([*combo, "true" if row.real_date else "false", row.count])
        os.replace(tmp, out)
    with out.open("a" if done else "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        if not done:
            writer.writerow(columns)
            handle.flush()
        batches = list(_chunks(todo, size))
        prefix_batches = [[options[c] for c in batch] for batch in batches]
        if jobs == 1:
            _worker_init(cover, slack_items, memo_slots)
            results: Iterator[list[int]] = map(_worker_count, prefix_batches)
            pool = None
        else:
            pool = ProcessPoolExecutor(jobs, initializer=_worker_init,
                                       initargs=(cover, slack_items, memo_slots))
            results = pool.map(_worker_count, prefix_batches)
        try:
            for batch, counts in zip(batches, results):
                for labels, n in zip(batch, counts):
                    row = Row(labels, real(labels), n)
                    writer.writerow([*labels, "true" if row.real_date else "false", n])
                    by_labels[labels] = row
                    if on_row is not None:
                        on_row(row)
                handle.flush()
        finally:
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
    for combo in combos:
        if combo in by_labels:
            summary.add(by_labels[combo])
    return summary


def real_date_of_any_year(spec: CalendarSpec, labels: Sequence[str]) -> dt.date | None:
    """The month/day as a date of a leap year when the labels name one (weekday ignored)."""
    if "month" not in spec.groups or "day" not in spec.groups:
        return None
    plain = [label for label, g in zip(labels, spec.groups) if g != "weekday"]
    groups = [g for g in spec.groups if g != "weekday"]
    if groups != ["month", "day"]:
        return None
    month = spec.groups["month"].index(plain[0]) + 1
    day = spec.groups["day"].index(plain[1]) + 1
    try:
        return dt.date(LEAP_YEAR, month, day)
    except ValueError:
        return None

