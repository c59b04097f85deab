"""Which puzzle of a spec: the one value the CLI, the API, the web page and the sweep build.

A :class:`Query` names a packing or calendar spec and which of its puzzles is meant: for a
calendar the labels left uncovered (from a date, default today, or given), for a packing
spec the target board (default the first), and whether the pieces stay face up. It is
checked once, where it is built (:meth:`Query.of`), so everything that takes a query can
trust it. :func:`cpmodels.instance.packing_instance` compiles it to an exact cover.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from cpmodels.errors import InputError
from cpmodels.spec.kinds import CalendarKind, PackingKind


def parse_date(text: str) -> dt.date:
    """A YYYY-MM-DD date, or an :class:`InputError` that says what is wrong with it."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise InputError(f"date {text!r} is not a real date in YYYY-MM-DD form ({exc}); "
                         "for impossible dates such as Feb 30 give the labels instead "
                         "(--labels Feb 30)") from None


@dataclass(frozen=True)
class Query:
    """One puzzle of a packing or calendar spec (build it with :meth:`of`)."""

    spec: PackingKind | CalendarKind  # a model, or a bundled spec's record (kinds.Known)
    target: str  # the target board's name (a calendar's is the spec's name)
    labels: tuple[str, ...] = ()  # calendar: the labels left uncovered, in group order
    face_up: bool = False  # every piece kept as drawn, rotations only

    @classmethod
    def of(cls, spec: PackingKind | CalendarKind, *, date: dt.date | str | None = None,
           labels: Sequence[str] | None = None, target: str | None = None,
           face_up: bool = False) -> Query:
        """The query for a date (default today) or labels of a calendar, or a target board
        of a packing spec; an :class:`InputError` when they do not fit the spec.

        ``face_up`` is kept only where it changes something (some piece may be flipped).
        """
        face_up = face_up and spec.can_flip
        if isinstance(spec, CalendarKind):
            if target is not None:
                raise InputError(f"{spec.name} is a calendar; it has no targets")
            if labels is not None and date is not None:
                raise InputError("give a date or labels, not both")
            if labels is not None:
                if isinstance(labels, str) or not all(isinstance(x, str) for x in labels):
                    raise InputError(f"labels {labels!r}: give a list of label names, one "
                                     "per group")
                chosen = spec.check_labels(labels)
            else:
                day = parse_date(date) if isinstance(date, str) else date
                if day is not None and not isinstance(day, dt.date):
                    raise InputError(f"date {date!r} is not a date; give a datetime.date or "
                                     "YYYY-MM-DD text")
                chosen = spec.date_labels(day or dt.date.today())
            return cls(spec, spec.name, chosen, face_up)
        assert isinstance(spec, PackingKind)
        if labels is not None or date is not None:
            raise InputError(f"{spec.name} is not a calendar; dates and labels do not apply")
        names = [t.name for t in spec.all_targets()]
        if target is not None and target not in names:
            raise InputError(f"{spec.name} has no target {target!r}; targets: "
                             f"{', '.join(names)}")
        return cls(spec, target or names[0], (), face_up)

    @property
    def key(self) -> tuple[str, str, tuple[str, ...], bool]:
        """What tells two queries of one set of specs apart (for caches)."""
        return (self.spec.name, self.target, self.labels, self.face_up)

    def describe(self) -> str:
        """``calendar_week Jun 7 Tue`` or ``pentominoes_6x10 / 5x12`` (``, face up``)."""
        what = " ".join(self.labels) if self.labels else (
            f"/ {self.target}" if self.target != self.spec.name else "")
        return f"{self.spec.name} {what}".rstrip() + (", face up" if self.face_up else "")
