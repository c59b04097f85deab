"""The ``calendar`` kind: a board of labelled cells in groups, and the dates it shows."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from cpmodels.grids import Cell
from cpmodels.spec.base import DATE_GROUPS, Name, SpecFieldError
from cpmodels.spec.kinds import CalendarKind
from cpmodels.spec.pieces import (
    PieceSetSpec,
    _area_check,
    _board_rows,
    _check_rectangular,
    _fit_check,
)


class CalendarSpec(CalendarKind, PieceSetSpec):
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
