"""The ``calendar`` kind: a board of labelled cells in groups, and the dates it shows."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Sequence
from functools import cached_property
from typing import Literal

from pydantic import Field, field_validator, model_validator

from cpmodels.errors import InputError
from cpmodels.grids import Cell
from cpmodels.spec.base import DATE_GROUPS, LEAP_YEAR, Name, SpecFieldError
from cpmodels.spec.pieces import (
    PieceSetSpec,
    _area_check,
    _board_rows,
    _check_rectangular,
    _fit_check,
)


class CalendarSpec(PieceSetSpec):
    """A packing board whose labelled cells leave one label of each group uncovered."""

    kind: Literal["calendar"]
    board: list[str] = Field(min_length=1, description="rows of whitespace-separated tokens: "
                                                       "'#' wall, '.' plain cell, else a label")
    groups: dict[Name, list[Name]] = Field(
        min_length=1,
        description="label groups in order; 'month' (12), 'day' (31) and 'weekday' (7, Monday "
                    "first) let real dates be asked for",
    )

    _normalize_board = field_validator("board", mode="before")(_board_rows)

    @field_validator("groups", mode="before")
    @classmethod
    def _labels_as_text(cls, groups: object) -> object:
        """Day numbers may be written as YAML integers; labels are compared as text."""
        if isinstance(groups, dict):
            return {
                k: [str(x) if isinstance(x, int) and not isinstance(x, bool) else x for x in v]
                if isinstance(v, list) else v
                for k, v in groups.items()
            }
        return groups

    @field_validator("board")
    @classmethod
    def _check_board(cls, rows: list[str]) -> list[str]:
        _check_rectangular([len(r.split()) for r in rows], "token")
        return rows

    @field_validator("groups")
    @classmethod
    def _check_groups(cls, groups: dict[str, list[str]]) -> dict[str, list[str]]:
        seen: dict[str, str] = {}
        for name, labels in groups.items():
            if not labels:
                raise ValueError(f"group {name!r} has no labels")
            for label in labels:
                if label in seen:
                    where = "twice in" if seen[label] == name else f"in {seen[label]!r} and"
                    raise ValueError(f"label {label!r} appears {where} group {name!r}")
                seen[label] = name
            if name in DATE_GROUPS and len(labels) != DATE_GROUPS[name]:
                raise ValueError(f"group {name!r} must list {DATE_GROUPS[name]} labels in "
                                 f"calendar order, not {len(labels)}")
        return groups

    @model_validator(mode="after")
    def _check_labels(self) -> CalendarSpec:
        grouped = {label for labels in self.groups.values() for label in labels}
        placed: dict[str, Cell] = {}
        for r, row in enumerate(self.board):
            for c, token in enumerate(row.split()):
                if token in ("#", "."):
                    continue
                if token not in grouped:
                    raise SpecFieldError(
                        ("board", r),
                        f"label {token!r} (column {c + 1}) is in no group; add it to 'groups' "
                        "or draw a plain cell with '.'",
                    )
                if token in placed:
                    raise SpecFieldError(("board", r), f"label {token!r} is drawn twice")
                placed[token] = (r, c)
        missing = [label for label in sorted(grouped) if label not in placed]
        if missing:
            raise SpecFieldError(("groups",), "labels not drawn on the board: "
                                              + ", ".join(missing))
        if self.geometry.dim != 2:
            raise SpecFieldError(("grid",), "a calendar is drawn in the plane: use grid "
                                            "square, triangle or hex")
        self._check_piece_grid()
        _area_check(self, len(self.cells), len(self.groups), ("pieces",))
        _fit_check(self, self.cells)
        return self

    def _token_cell(self, row: int, col: int) -> Cell:
        """The cell of the drawing's token ``col`` in row ``row``: ``[row, col]``, or axial
        ``[q, r] = [col, row]`` on the hex grid."""
        return (col, row) if self.grid == "hex" else (row, col)

    @cached_property
    def cells(self) -> frozenset[Cell]:
        return frozenset(
            self._token_cell(r, c) for r, row in enumerate(self.board)
            for c, token in enumerate(row.split()) if token != "#"
        )

    @cached_property
    def label_cells(self) -> dict[str, Cell]:
        """Where each label is drawn."""
        return {
            token: self._token_cell(r, c) for r, row in enumerate(self.board)
            for c, token in enumerate(row.split()) if token not in ("#", ".")
        }

    @cached_property
    def cell_labels(self) -> dict[Cell, str]:
        """The label drawn on each labelled cell (``label_cells`` the other way round)."""
        return {rc: label for label, rc in self.label_cells.items()}

    def group_of(self, label: str) -> str | None:
        """The group a label belongs to, or None when it is no label of this calendar."""
        return next((g for g, labels in self.groups.items() if label in labels), None)

    # --- dates and label combinations: the one place that knows what they mean ---------

    @property
    def has_dates(self) -> bool:
        """Whether real dates can be asked for: groups 'month' and 'day', and 'weekday' at
        most besides."""
        return {"month", "day"} <= set(self.groups) <= set(DATE_GROUPS)

    def date_labels(self, date: dt.date) -> tuple[str, ...]:
        """The labels a real date leaves uncovered, in group order."""
        if not self.has_dates:
            raise InputError(f"{self.name} has groups {', '.join(self.groups)}, not a month, "
                             "a day and perhaps a weekday; ask for labels instead of a date")
        index = {"month": date.month - 1, "day": date.day - 1, "weekday": date.weekday()}
        return tuple(self.groups[g][index[g]] for g in self.groups)

    def real_date(self, labels: Sequence[str]) -> dt.date | None:
        """The month and day that ``labels`` name, as a date of a leap year (so Feb 29 is
        real); None for Feb 30 and the like, or when the calendar has no dates. The weekday
        is not checked: every weekday of a real month/day is a real combination."""
        if not self.has_dates:
            return None
        named = dict(zip(self.groups, labels))
        try:
            return dt.date(LEAP_YEAR, self.groups["month"].index(named["month"]) + 1,
                           self.groups["day"].index(named["day"]) + 1)
        except ValueError:
            return None

    def check_labels(self, labels: Sequence[str]) -> tuple[str, ...]:
        """Check a label combination (one label per group, any order); return it in group
        order, or raise an :class:`InputError` that says what is wrong."""
        chosen: dict[str, str] = {}
        for label in labels:
            group = self.group_of(label)
            if group is None:
                known = "; ".join(f"{g}: {' '.join(ls)}" for g, ls in self.groups.items())
                raise InputError(f"unknown label {label!r} for {self.name} (labels are "
                                 f"{known})")
            if group in chosen:
                raise InputError(f"labels {chosen[group]!r} and {label!r} are both in group "
                                 f"{group!r}; give one label per group")
            chosen[group] = label
        missing = [g for g in self.groups if g not in chosen]
        if missing:
            raise InputError(f"no label given for group(s) {', '.join(missing)}; "
                             f"{self.name} needs one label from each of "
                             f"{', '.join(self.groups)}")
        return tuple(chosen[g] for g in self.groups)

    def label_combinations(self) -> list[tuple[str, ...]]:
        """Every combination of one label per group, in group order and sweep order (2604
        for month/day/weekday)."""
        return list(itertools.product(*self.groups.values()))
