"""What a spec of each kind means, without pydantic: its cells, its pieces' orientations, its
targets, its dates and labels.

Two sorts of object hold a spec and share these meanings: the pydantic models, which
validate a file (``pieces.py``, ``packing.py``, ``calendar.py``, ``towers.py``: each model
is its kind's class here and a strict model), and the records of the bundled specs known
valid (:class:`Known` and its kinds, built by :mod:`cpmodels.spec.validated` from the
catalogue with their fields as validation made them). A command that reads a bundled spec
and searches it (``solve``, ``count``) so starts without pydantic; what needs the model
itself (its schema, a copy with other pieces, its JSON) loads the model. Code that asks
which kind a spec is asks of these classes (:class:`CalendarKind`, :class:`PackingKind`,
:class:`TowersKind`), which both sorts are.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from cpmodels.cover import PieceKind
from cpmodels.errors import InputError
from cpmodels.geometry import SQUARE, Shape, normalize, orientations, parse_drawing
from cpmodels.grids import Cell, Grid, grid

MAX_BOARD_SIDE = 200  # a board's side (rows, columns, tokens) at most
DATE_GROUPS = {"month": 12, "day": 31, "weekday": 7}  # label groups a real date fills
LEAP_YEAR = 2024  # real dates are the month/day pairs of a leap year (Feb 29 included)


def layer_cells(layers: list[list[str]], mark: str) -> frozenset[Cell]:
    """Cells ``(x, y, z)`` of layers drawn bottom first: character x of row y of layer z."""
    return frozenset((x, y, z) for z, rows in enumerate(layers)
                     for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == mark)


class PieceShape:
    """A named piece: a drawing (square grid), its cells' coordinates (any grid), or layers
    of drawings (cube grid), and how many copies a solution uses."""

    if TYPE_CHECKING:
        name: str
        shape: list[str] | None
        coords: list[list[int]] | None
        layers: list[list[str]] | None
        count: int | list[int]
        rotate: bool | None
        flip: bool | None
        letter: str | None

    @property
    def form(self) -> str:
        """Which key gives the piece: ``shape``, ``cells`` or ``layers``."""
        return "shape" if self.shape is not None else "cells" if self.coords is not None \
            else "layers"

    @property
    def low(self) -> int:
        """The fewest copies a solution uses."""
        return self.count if isinstance(self.count, int) else self.count[0]

    @property
    def high(self) -> int:
        """The most copies a solution uses."""
        return self.count if isinstance(self.count, int) else self.count[1]

    @cached_property
    def cells(self) -> Shape:
        """The piece's cells as given (a drawing's squares moved to row and column 0)."""
        if self.shape is not None:
            return normalize(parse_drawing(self.shape))
        if self.coords is not None:
            return frozenset(tuple(cell) for cell in self.coords)
        assert self.layers is not None
        return layer_cells(self.layers, "#")

    @property
    def area(self) -> int:
        return len(self.cells)

    def kind(self, *, rotate: bool, flip: bool, face_up: bool = False,
             grid: Grid = SQUARE) -> PieceKind:
        """The cover's view of this piece under the given defaults (the piece may override).

        ``face_up`` keeps the piece as given (rotations only), whatever the settings say.
        """
        rot = rotate if self.rotate is None else self.rotate
        flp = False if face_up else (flip if self.flip is None else self.flip)
        shapes = orientations(self.cells, rotate=rot, flip=flp, grid=grid)
        return PieceKind(self.name, tuple(shapes), self.high, self.low)


class PieceSetKind:
    """What the packing kinds share: the pieces and how they may be turned."""

    if TYPE_CHECKING:
        name: str
        description: str
        grid: str
        rotate: bool
        flip: bool
        pieces: Sequence[PieceShape]

    @property
    def geometry(self) -> Grid:
        """The spec's grid (:mod:`cpmodels.grids`)."""
        return grid(self.grid)

    @property
    def piece_area(self) -> int:
        """The cells the pieces cover (each at its most copies)."""
        return sum(p.area * p.high for p in self.pieces)

    def covers_exactly(self, cells: int) -> bool:
        """Whether some choice of copies, each piece within its count, covers ``cells``."""
        reachable = 1  # bit k: k cells can be covered
        for p in self.pieces:
            step = 0
            for k in range(p.low, p.high + 1):
                step |= reachable << (k * p.area)
                if k * p.area > cells:
                    break
            reachable = step & ((1 << (cells + 1)) - 1)
        return bool(reachable >> cells & 1)

    @property
    def can_flip(self) -> bool:
        """Whether any piece may be turned over (so asking for face-up pieces changes
        something): the spec's ``flip`` as each piece overrides it."""
        return any(self.flip if p.flip is None else p.flip for p in self.pieces)

    def piece_kinds(self, *, face_up: bool = False) -> list[PieceKind]:
        """Pieces with their allowed orientations; ``face_up`` forbids turning any piece over."""
        return [p.kind(rotate=self.rotate, flip=self.flip, face_up=face_up, grid=self.geometry)
                for p in self.pieces]

    def letters(self) -> dict[str, str]:
        """One distinct display letter per piece: its own, else a letter of its name, else A-Z."""
        taken = {p.letter for p in self.pieces if p.letter}
        result: dict[str, str] = {}
        pool = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        for p in self.pieces:
            if p.letter:
                result[p.name] = p.letter
                continue
            for ch in [ch for ch in p.name.upper() if ch.isalpha()] + list(pool):
                if ch not in taken:
                    taken.add(ch)
                    result[p.name] = ch
                    break
            else:  # more pieces than symbols: reuse, the drawing is still readable by colour
                result[p.name] = "?"
        return result


class BoardShape:
    """A packing board: a drawing (square grid), coordinates (any grid), a box or layers of
    drawings (cube grid); one is given."""

    if TYPE_CHECKING:
        board: list[str] | None
        coords: list[list[int]] | None
        box: list[int] | None
        layers: list[list[str]] | None

    def given(self) -> list[str]:
        """The keys given, by their names in a spec."""
        return [k for k, v in (("board", self.board), ("cells", self.coords), ("box", self.box),
                               ("layers", self.layers)) if v is not None]

    @cached_property
    def cells(self) -> frozenset[Cell]:
        """The board's cells in its grid's coordinates."""
        if self.board is not None:
            return parse_drawing(self.board, filled=".")
        if self.coords is not None:
            return frozenset(tuple(cell) for cell in self.coords)
        if self.box is not None:
            return frozenset(itertools.product(*(range(side) for side in self.box)))
        return layer_cells(self.layers or [], ".")


class TargetShape(BoardShape):
    """One of several boards that the same piece set must fill, one at a time."""

    if TYPE_CHECKING:
        name: str


class PackingKind(PieceSetKind, BoardShape):
    """Fill a board (or each of several target boards) with every piece exactly as counted."""

    if TYPE_CHECKING:
        kind: str
        targets: Sequence[TargetShape] | None

    def all_targets(self) -> list[TargetShape]:
        """The boards to fill: the single board (named like the spec) or the ``targets``."""
        if self.targets is not None:
            return list(self.targets)
        return [self._board_target({"name": self.name, "board": self.board,
                                    "cells": self.coords, "box": self.box,
                                    "layers": self.layers})]

    def _board_target(self, fields: dict[str, Any]) -> TargetShape:
        """The spec's own board as a target (``fields`` by their names in a spec)."""
        raise NotImplementedError


class CalendarKind(PieceSetKind):
    """A packing board whose labelled cells leave one label of each group uncovered."""

    if TYPE_CHECKING:
        kind: str
        board: list[str]
        groups: dict[str, list[str]]

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


MAX_CODES = 58  # colours (and "empty") a cell of the exact programme's 64-bit key can hold
MAX_TOWER_CHOICES = 320_000  # cells x colours of the CP-SAT model (200x200 with 8 colours)


def check_tower_choices(rows: int, cols: int, codes: int) -> str | None:
    """Why a ``rows`` x ``cols`` board of ``codes`` colours (with "empty") is more than the
    solvers take, or None when it is not."""
    if codes > MAX_CODES:
        return (f"{codes} colours: the exact programme holds at most "
                f"{MAX_CODES} in a cell (empty counts as one)")
    if rows * cols * codes > MAX_TOWER_CHOICES:
        return (f"a {rows}x{cols} board of {codes} colours is {rows * cols * codes:,} "
                f"choices of a colour for a cell; the CP-SAT model takes at most "
                f"{MAX_TOWER_CHOICES:,} (a smaller board or fewer colours)")
    return None


class ColourKind:
    """A tower colour: its points and the colours it needs among its orthogonal neighbours."""

    if TYPE_CHECKING:
        name: str
        letter: str
        points: int
        needs: list[str]


class TowersKind:
    """Fill an R x C grid with towers to maximise the total score."""

    if TYPE_CHECKING:
        kind: str
        name: str
        description: str
        rows: int
        cols: int
        colours: Sequence[ColourKind]
        allow_empty: bool
        empty_letter: str
        rules: str
        fixed: list[str] | None


# --- the records of the bundled specs known valid ---------------------------------------

class Known:
    """A part of a bundled spec known valid, as the catalogue records it: its fields (by
    their names in the model) as attributes, read-only, built without validating them."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a {type(self).__name__} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a {type(self).__name__} is read-only")

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()
                          if not isinstance(getattr(type(self), k, None), cached_property))
        return f"{type(self).__name__}({shown})"


class KnownPiece(Known, PieceShape):
    """A piece of a bundled spec known valid."""


class KnownTarget(Known, TargetShape):
    """A target board of a bundled spec known valid."""


class KnownPacking(Known, PackingKind):
    """A bundled packing spec known valid."""

    def _board_target(self, fields: dict[str, Any]) -> TargetShape:
        return KnownTarget(name=fields["name"], board=fields["board"], coords=fields["cells"],
                           box=fields["box"], layers=fields["layers"])


class KnownCalendar(Known, CalendarKind):
    """A bundled calendar spec known valid."""


class KnownColour(Known, ColourKind):
    """A tower colour of a bundled spec known valid."""


class KnownTowers(Known, TowersKind):
    """A bundled towers spec known valid."""


#: The record class of each model the catalogue records (by the model's name).
KNOWN: dict[str, type[Known]] = {
    "PackingSpec": KnownPacking, "CalendarSpec": KnownCalendar, "TowersSpec": KnownTowers,
    "Piece": KnownPiece, "Target": KnownTarget, "Colour": KnownColour}
