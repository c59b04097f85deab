"""What to solve: a packing spec plus a target, a date or labels, compiled to an exact cover."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from cpmodels.cover import ExactCover, packing_cover
from cpmodels.errors import InputError
from cpmodels.geometry import Cell
from cpmodels.spec.models import CalendarSpec, PackingLike, PackingSpec


@dataclass
class PackingInstance:
    """One concrete packing problem: the cells to fill, the pieces, and its exact cover."""

    spec: PackingLike
    target: str
    labels: tuple[str, ...]
    uncovered: tuple[Cell, ...]
    cells: frozenset[Cell]
    cover: ExactCover
    face_up: bool = False

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def board_cells(self) -> frozenset[Cell]:
        """Every non-wall cell of the drawing, the uncovered ones included."""
        return self.cells | frozenset(self.uncovered)

    def cell_labels(self) -> dict[Cell, str]:
        """Label drawn on each labelled cell (calendar specs), for rendering."""
        if isinstance(self.spec, CalendarSpec):
            return {rc: label for label, rc in self.spec.label_cells.items()}
        return {}


def date_labels(spec: CalendarSpec, date: dt.date) -> tuple[str, ...]:
    """The labels a real date leaves uncovered, in group order."""
    if "month" not in spec.groups or "day" not in spec.groups:
        raise InputError(f"{spec.name} has no 'month' and 'day' label groups; "
                         "ask for --labels instead of a date")
    index = {"month": date.month - 1, "day": date.day - 1, "weekday": date.weekday()}
    labels = []
    for group, group_labels in spec.groups.items():
        if group not in index:
            raise InputError(f"{spec.name}'s group {group!r} is not part of a date; "
                             "ask for --labels instead")
        labels.append(group_labels[index[group]])
    return tuple(labels)


def parse_date(text: str) -> dt.date:
    """A YYYY-MM-DD date, or an :class:`InputError` that says what is wrong with it."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise InputError(f"--date {text!r} is not a real date in YYYY-MM-DD form ({exc}); "
                         "for impossible dates such as Feb 30 use --labels") from None


def check_labels(spec: CalendarSpec, labels: Sequence[str]) -> tuple[str, ...]:
    """Validate a label combination (one label per group, any order); return it in group order."""
    chosen: dict[str, str] = {}
    for label in labels:
        group = spec.group_of(label)
        if group is None:
            known = "; ".join(f"{g}: {' '.join(ls)}" for g, ls in spec.groups.items())
            raise InputError(f"unknown label {label!r} for {spec.name} (labels are {known})")
        if group in chosen:
            raise InputError(f"labels {chosen[group]!r} and {label!r} are both in group "
                             f"{group!r}; give one label per group")
        chosen[group] = label
    missing = [g for g in spec.groups if g not in chosen]
    if missing:
        raise InputError(f"no label given for group(s) {', '.join(missing)}; "
                         f"{spec.name} needs one label from each of "
                         f"{', '.join(spec.groups)}")
    return tuple(chosen[g] for g in spec.groups)


def all_label_combinations(spec: CalendarSpec) -> Iterator[tuple[str, ...]]:
    """Every combination of one label per group, in group order (2604 for month/day/weekday)."""
    return itertools.product(*spec.groups.values())


def real_date_of(spec: CalendarSpec, labels: Sequence[str], year: int) -> dt.date | None:
    """The date in ``year`` that these labels stand for, if they name one (weekday included)."""
    try:
        month = spec.groups["month"].index(labels[list(spec.groups).index("month")]) + 1
        day = spec.groups["day"].index(labels[list(spec.groups).index("day")]) + 1
        date = dt.date(year, month, day)
    except (KeyError, ValueError):
        return None
    if "weekday" in spec.groups:
        weekday = spec.groups["weekday"].index(labels[list(spec.groups).index("weekday")])
        if date.weekday() != weekday:
            return None
    return date


def packing_instance(spec: PackingLike, *, target: str | None = None,
                     labels: Sequence[str] | None = None, date: dt.date | None = None,
                     face_up: bool = False) -> PackingInstance:
    """Compile a spec into one exact-cover instance.

    Calendar specs take ``labels`` or a ``date`` (today when neither is given); packing specs
    with several targets take ``target`` (the first when not given). ``face_up`` keeps every
    piece as drawn, rotations only.
    """
    kinds = spec.piece_kinds(face_up=face_up)
    if isinstance(spec, CalendarSpec):
        if target is not None:
            raise InputError(f"{spec.name} is a calendar; it has no targets")
        if labels is not None and date is not None:
            raise InputError("give --date or --labels, not both")
        if labels is not None:
            chosen = check_labels(spec, labels)
        else:
            chosen = date_labels(spec, date or dt.date.today())
        uncovered = tuple(spec.label_cells[label] for label in chosen)
        cells = spec.cells - frozenset(uncovered)
        return PackingInstance(spec, spec.name, chosen, uncovered, cells,
                               packing_cover(cells, kinds), face_up)
    assert isinstance(spec, PackingSpec)
    if labels is not None or date is not None:
        raise InputError(f"{spec.name} is not a calendar; --date and --labels do not apply")
    targets = {t.name: t for t in spec.all_targets()}
    if target is None:
        chosen_target = next(iter(targets.values()))
    elif target in targets:
        chosen_target = targets[target]
    else:
        raise InputError(f"{spec.name} has no target {target!r}; targets: "
                         f"{', '.join(targets)}")
    cells = chosen_target.cells
    return PackingInstance(spec, chosen_target.name, (), (), cells,
                           packing_cover(cells, kinds), face_up)
