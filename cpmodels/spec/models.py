"""Pydantic models of the three spec kinds: ``packing``, ``calendar`` and ``towers``.

A spec describes a board, its pieces and its rules; it never contains solver code.
Board drawings are text rows with row 0 at the top:

* ``packing`` boards: one character per cell, ``.`` a cell to fill, ``#`` a wall.
* ``calendar`` boards: whitespace-separated tokens, ``#`` a wall, ``.`` a plain cell that is
  always covered, anything else a label that belongs to exactly one label group.
* pieces: one character per square, ``#`` part of the piece, ``.`` (or a space) empty;
  rows may be given as a list or as one string with ``/`` between rows.

Drawings are for the square grid. On every grid (``grid: square | triangle | hex | cube``,
see :mod:`cpmodels.grids`) boards, targets and pieces may instead list their ``cells`` as
coordinates; a cube board may be a ``box: [X, Y, Z]``, and cube boards and pieces may be
``layers`` of square drawings, bottom first (character ``x`` of row ``y`` of layer ``z`` is
cell ``[x, y, z]``). A calendar's token drawing reads as ``[row, col]`` on the square and
triangle grids and as axial ``[q, r] = [col, row]`` on the hex grid.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
from collections.abc import Sequence
from functools import cached_property
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PositiveInt,
    field_validator,
    model_validator,
)

from cpmodels.cover import PieceKind
from cpmodels.errors import InputError
from cpmodels.geometry import (
    SQUARE,
    Shape,
    fits_anywhere,
    is_connected,
    normalize,
    orientations,
    parse_drawing,
)
from cpmodels.grids import Cell, Grid, GridName, grid

#: Limits that keep a hand-written spec from asking for an absurd model.
MAX_BOARD_SIDE = 200
MAX_PIECE_SIDE = 50
MAX_COUNT = 1000
MAX_CELLS = MAX_BOARD_SIDE ** 2  # cells of a board given by coordinates, a box or layers
MAX_COORDINATE = 10_000

DATE_GROUPS = {"month": 12, "day": 31, "weekday": 7}  # label groups a real date fills
LEAP_YEAR = 2024  # real dates are the month/day pairs of a leap year (Feb 29 included)


class SpecFieldError(ValueError):
    """A validation failure that belongs to a field other than the one being validated."""

    def __init__(self, path: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.path = path


class StrictModel(BaseModel):
    """Base: unknown fields are errors, values are not silently coerced across types."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _check_characters(rows: list[str], allowed: str, how: str) -> None:
    """A ``ValueError`` naming the first row with a character outside ``allowed``."""
    for i, row in enumerate(rows):
        bad = sorted(set(row) - set(allowed))
        if bad:
            raise ValueError(f"row {i} has {', '.join(repr(b) for b in bad)}; {how}")


def _rows(value: object) -> object:
    """Accept a drawing as a list of rows or as one string with ``/`` or newlines between rows."""
    if isinstance(value, str):
        text = value.strip("\n")
        return text.split("\n") if "\n" in text else text.split("/")
    return value


Name = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[^\s/#]+$")]


def _layers(value: object) -> object:
    """Accept each layer as a list of rows or one string with ``/`` or newlines between rows."""
    if isinstance(value, list):
        return [_rows(layer) for layer in value]
    return value


def _check_coordinates(cells: list[list[int]], limit: int) -> list[list[int]]:
    """Cells as coordinates: one arity (2 or 3), in range, none twice, at most ``limit``."""
    if not cells:
        raise ValueError("no cells; list them as coordinates, e.g. [[0, 0], [0, 1]]")
    if len(cells) > limit:
        raise ValueError(f"{len(cells):,} cells; at most {limit:,}")
    arity = len(cells[0])
    seen: set[tuple[int, ...]] = set()
    for i, cell in enumerate(cells):
        if len(cell) not in (2, 3):
            raise ValueError(f"cell {i} is {cell}: a cell is [a, b] on a plane grid or "
                             "[x, y, z] on the cube grid")
        if len(cell) != arity:
            raise ValueError(f"cell {i} is {cell} but cell 0 is {cells[0]}: give every cell "
                             "the same number of coordinates")
        if any(abs(x) > MAX_COORDINATE for x in cell):
            raise ValueError(f"cell {i} is {cell}: coordinates are at most {MAX_COORDINATE:,}"
                             " in size")
        if tuple(cell) in seen:
            raise ValueError(f"cell {cell} is listed twice")
        seen.add(tuple(cell))
    return cells


def _check_layers(layers: list[list[str]], mark: str,
                  how: tuple[str, str, str]) -> list[list[str]]:
    """Layers of square drawings: allowed characters, sizes, at least one ``mark``; ``how``
    is the two characters allowed and what they draw, in words."""
    if not layers:
        raise ValueError("no layers; give one drawing per layer, bottom first")
    if len(layers) > MAX_PIECE_SIDE * 4:
        raise ValueError(f"{len(layers)} layers; at most {MAX_PIECE_SIDE * 4}")
    for z, rows in enumerate(layers):
        if not rows:
            raise ValueError(f"layer {z} has no rows; draw an empty layer as '.'")
        try:
            _check_characters(rows, how[0] + how[1] + " ", f"draw {how[2]}")
        except ValueError as exc:
            raise ValueError(f"layer {z}: {exc}") from None
        if len(rows) > MAX_BOARD_SIDE or max(len(r) for r in rows) > MAX_BOARD_SIDE:
            raise ValueError(f"layer {z} is over {MAX_BOARD_SIDE} cells on a side")
    if not any(mark in row for rows in layers for row in rows):
        raise ValueError(f"the layers have no cells; draw them with {mark!r}")
    return layers


def _layer_cells(layers: list[list[str]], mark: str) -> frozenset[Cell]:
    """Cells ``(x, y, z)`` of layers drawn bottom first: character x of row y of layer z."""
    return frozenset((x, y, z) for z, rows in enumerate(layers)
                     for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == mark)


class Piece(StrictModel):
    """A named piece: a drawing (square grid), its cells' coordinates (any grid), or layers
    of drawings (cube grid)."""

    name: Name
    shape: list[str] | None = Field(None, min_length=1,
                                    description="rows, '#' = square, '.' = empty (square grid)")
    coords: list[list[int]] | None = Field(
        None, alias="cells", description="the piece's cells as coordinates in the spec's grid")
    layers: list[list[str]] | None = Field(
        None, description="square drawings of the piece's layers, bottom first (cube grid)")
    count: int | list[int] = Field(1, description="how many copies must be used: a number, "
                                   "or [min, max] for a piece used a range of times")
    rotate: bool | None = Field(None, description="override the spec-wide rotate setting")
    flip: bool | None = Field(None, description="override the spec-wide flip setting")
    letter: str | None = Field(None, min_length=1, max_length=1,
                               description="letter that draws this piece in text output")

    _normalize_shape = field_validator("shape", mode="before")(_rows)
    _normalize_layers = field_validator("layers", mode="before")(_layers)

    @field_validator("coords")
    @classmethod
    def _check_coords(cls, cells: list[list[int]] | None) -> list[list[int]] | None:
        return None if cells is None else _check_coordinates(cells, MAX_PIECE_SIDE ** 2)

    @field_validator("layers")
    @classmethod
    def _check_piece_layers(cls, layers: list[list[str]] | None) -> list[list[str]] | None:
        if layers is None:
            return None
        if len(layers) > MAX_PIECE_SIDE:
            raise ValueError(f"a piece is at most {MAX_PIECE_SIDE} layers high")
        return _check_layers(layers, "#", ("#", ".", "cubes with '#' and empty places "
                                                     "with '.'"))

    @model_validator(mode="after")
    def _one_form(self) -> Piece:
        given = [k for k, v in (("shape", self.shape), ("cells", self.coords),
                                ("layers", self.layers)) if v is not None]
        if len(given) != 1:
            raise ValueError("give the piece as one of 'shape' (a drawing, square grid), "
                             "'cells' (coordinates, any grid) or 'layers' (cube grid)"
                             + (f", not {' and '.join(given)}" if given else ""))
        return self

    @property
    def form(self) -> str:
        """Which key gives the piece: ``shape``, ``cells`` or ``layers``."""
        return "shape" if self.shape is not None else "cells" if self.coords is not None \
            else "layers"

    @field_validator("count", mode="before")
    @classmethod
    def _count_shape(cls, count: object) -> object:
        if isinstance(count, bool) or not isinstance(count, (int, list)) or (
                isinstance(count, list) and not all(isinstance(x, int) and
                                                    not isinstance(x, bool) for x in count)):
            try:
                shown = json.dumps(count)
            except (TypeError, ValueError):
                shown = repr(count)
            raise ValueError("give a count: a number of copies, or [min, max] for a piece "
                             f"used a range of times (got {shown[:40]})")
        return count

    @field_validator("count")
    @classmethod
    def _check_count(cls, count: int | list[int]) -> int | list[int]:
        if isinstance(count, int):
            if not 1 <= count <= MAX_COUNT:
                raise ValueError(f"give a count from 1 to {MAX_COUNT}, or a range [min, max]")
            return count
        if len(count) != 2 or not 0 <= count[0] <= count[1] or not 1 <= count[1] <= MAX_COUNT:
            raise ValueError(f"a range is [min, max] with 0 <= min <= max and 1 <= max <= "
                             f"{MAX_COUNT}, e.g. [0, 1] for a piece that may be left out")
        return count

    @property
    def low(self) -> int:
        """The fewest copies a solution uses."""
        return self.count if isinstance(self.count, int) else self.count[0]

    @property
    def high(self) -> int:
        """The most copies a solution uses."""
        return self.count if isinstance(self.count, int) else self.count[1]

    @field_validator("shape")
    @classmethod
    def _check_shape(cls, rows: list[str] | None) -> list[str] | None:
        if rows is None:
            return None
        _check_characters(rows, "#. ", "draw squares with '#' and empty places with '.'")
        if len(rows) > MAX_PIECE_SIDE or max(len(r) for r in rows) > MAX_PIECE_SIDE:
            raise ValueError(f"a piece is at most {MAX_PIECE_SIDE} squares on a side")
        cells = parse_drawing(rows)
        if not cells:
            raise ValueError("the piece has no squares; draw them with '#'")
        if not is_connected(cells):
            raise ValueError("the piece is not connected: every '#' must touch another "
                             "'#' by an edge")
        return rows

    @cached_property
    def cells(self) -> Shape:
        """The piece's cells as given (a drawing's squares moved to row and column 0)."""
        if self.shape is not None:
            return normalize(parse_drawing(self.shape))
        if self.coords is not None:
            return frozenset(tuple(cell) for cell in self.coords)
        assert self.layers is not None
        return _layer_cells(self.layers, "#")

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


class PieceSetSpec(StrictModel):
    """Fields shared by the packing kinds: the pieces and how they may be turned."""

    name: Name
    description: str = ""
    grid: GridName = Field("square", description="the grid: square, triangle, hex or cube")
    rotate: bool = Field(True, description="pieces may be rotated")
    flip: bool = Field(True, description="pieces may be turned over (their mirror images; "
                                         "false by default on the cube grid)")
    pieces: list[Piece] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _solid_pieces_keep_their_hand(cls, data: object) -> object:
        """A real 3-D piece cannot be turned into its mirror image: on the cube grid
        ``flip`` is false unless the spec says otherwise."""
        if isinstance(data, dict) and data.get("grid") == "cube" and "flip" not in data:
            return {**data, "flip": False}
        return data

    @property
    def geometry(self) -> Grid:
        """The spec's grid (:mod:`cpmodels.grids`)."""
        return grid(self.grid)

    def _check_piece_grid(self) -> None:
        """Each piece is given in a form its grid allows, with cells of the grid's arity,
        connected in the grid."""
        geo = self.geometry
        for i, piece in enumerate(self.pieces):
            path = ("pieces", i, piece.form)
            _check_form(piece.form, piece.cells, geo, path, "piece")
            if not is_connected(piece.cells, geo):
                joined = "a face" if geo.dim == 3 else "an edge"
                raise SpecFieldError(path, f"the piece is not connected on the {geo.name} "
                                           f"grid: every cell must share {joined} with another")

    @field_validator("pieces")
    @classmethod
    def _unique_pieces(cls, pieces: list[Piece]) -> list[Piece]:
        seen: set[str] = set()
        letters: set[str] = set()
        for p in pieces:
            if p.name in seen:
                raise ValueError(f"two pieces are named {p.name!r}; names must be unique")
            seen.add(p.name)
            if p.letter is not None:
                if p.letter in letters:
                    raise ValueError(f"two pieces are drawn with letter {p.letter!r}")
                letters.add(p.letter)
        return pieces

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


def _board_rows(value: object) -> object:
    if isinstance(value, str):
        return value.strip("\n").split("\n")
    return value


def _check_rectangular(widths: list[int], unit: str) -> None:
    if not widths:
        raise ValueError("the board has no rows; draw one string per row")
    if len(widths) > MAX_BOARD_SIDE or max(widths) > MAX_BOARD_SIDE:
        raise ValueError(f"a board is at most {MAX_BOARD_SIDE} {unit}s on a side")
    for i, w in enumerate(widths):
        if w != widths[0]:
            raise ValueError(
                f"row {i} has {w} {unit}s but row 0 has {widths[0]}; "
                "pad short rows with '#' so every row has the same width"
            )


def _area_check(spec: PieceSetSpec, board_cells: int, uncovered: int,
                path: tuple[str | int, ...]) -> None:
    need = board_cells - uncovered
    if not spec.covers_exactly(need):
        detail = f"{board_cells} cells"
        if uncovered:
            detail += f", {uncovered} of them uncovered, leaving {need} to fill"
        low = sum(p.area * p.low for p in spec.pieces)
        cover = (f"cover {spec.piece_area}" if low == spec.piece_area else
                 f"cover from {low} to {spec.piece_area} (but no choice of copies within the "
                 f"counts covers {need})" if low <= need <= spec.piece_area else
                 f"cover from {low} to {spec.piece_area}")
        raise SpecFieldError(
            path,
            f"the pieces {cover} cells but the board has {detail}; "
            "add or remove pieces or board cells",
        )


def _fit_check(spec: PieceSetSpec, cells: frozenset[Cell], board: str = "the board") -> None:
    """Every piece must fit somewhere on the board, in one of its allowed orientations."""
    for i, kind in enumerate(spec.piece_kinds()):
        if not fits_anywhere(kind.orientations, cells, spec.geometry):
            first = kind.orientations[0]
            size = "x".join(str(1 + max(c[k] for c in first)) for k in range(len(next(iter(
                first))))) if spec.grid in ("square", "cube") else f"{len(first)} cells"
            raise SpecFieldError(
                ("pieces", i), f"piece {kind.name!r} ({size}) fits nowhere on {board}"
                + ("" if spec.rotate else " (rotate is false)"))


def _check_form(form: str, cells: frozenset[Cell], geo: Grid, path: tuple[str | int, ...],
                what: str) -> None:
    """A drawing is for the square grid, a box or layers for the cube grid; every cell has
    the grid's number of coordinates."""
    if form in ("shape", "board") and geo.name != "square":
        raise SpecFieldError(path, f"a drawing is read on the square grid; on the {geo.name} "
                                   f"grid give the {what}'s 'cells' as {geo.coordinates}")
    if form in ("box", "layers") and geo.name != "cube":
        raise SpecFieldError(path, f"'{form}' is for the cube grid; on the {geo.name} grid "
                                   f"give the {what}'s 'cells' as {geo.coordinates}"
                                   + (" or draw it" if geo.name == "square" else ""))
    bad = next((list(c) for c in cells if len(c) != geo.dim), None)
    if bad is not None:
        raise SpecFieldError(path, f"cell {bad} has {len(bad)} coordinates; on the "
                                   f"{geo.name} grid a cell is {geo.coordinates}")


class BoardFields(StrictModel):
    """The ways to give a packing board: a drawing (square grid), coordinates (any grid), a
    box or layers of drawings (cube grid). Exactly one is given."""

    board: list[str] | None = Field(None,
                                    description="rows, '.' = cell, '#' = wall (square grid)")
    coords: list[list[int]] | None = Field(
        None, alias="cells", description="the board's cells as coordinates in the spec's grid")
    box: list[int] | None = Field(None, description="[X, Y, Z]: a box of cubes (cube grid)")
    layers: list[list[str]] | None = Field(
        None, description="square drawings of the board's layers, bottom first, "
                          "'.' = cell, '#' = wall (cube grid)")

    _normalize_board = field_validator("board", mode="before")(_board_rows)
    _normalize_layers = field_validator("layers", mode="before")(_layers)

    @field_validator("board")
    @classmethod
    def _check_board(cls, rows: list[str] | None) -> list[str] | None:
        if rows is None:
            return None
        _check_characters(rows, ".#", "draw cells with '.' and walls with '#'")
        _check_rectangular([len(r) for r in rows], "character")
        if "." not in "".join(rows):
            raise ValueError("the board has no cells; draw them with '.'")
        return rows

    @field_validator("coords")
    @classmethod
    def _check_coords(cls, cells: list[list[int]] | None) -> list[list[int]] | None:
        return None if cells is None else _check_coordinates(cells, MAX_CELLS)

    @field_validator("box")
    @classmethod
    def _check_box(cls, box: list[int] | None) -> list[int] | None:
        if box is None:
            return None
        if len(box) != 3 or not all(1 <= side <= MAX_BOARD_SIDE for side in box):
            raise ValueError(f"a box is [X, Y, Z], each side 1 to {MAX_BOARD_SIDE}")
        if box[0] * box[1] * box[2] > MAX_CELLS:
            raise ValueError(f"a box of {box[0] * box[1] * box[2]:,} cells; at most "
                             f"{MAX_CELLS:,}")
        return box

    @field_validator("layers")
    @classmethod
    def _check_board_layers(cls, layers: list[list[str]] | None) -> list[list[str]] | None:
        if layers is None:
            return None
        for z, rows in enumerate(layers):
            try:
                _check_rectangular([len(r) for r in rows], "character")
            except ValueError as exc:
                raise ValueError(f"layer {z}: {exc}") from None
        return _check_layers(layers, ".", (".", "#", "cells with '.' and walls with '#'"))

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
        return _layer_cells(self.layers or [], ".")

    def check_grid(self, geo: Grid, path: tuple[str | int, ...]) -> None:
        """The board is given in a form the grid allows, with cells of its arity."""
        form = self.given()[0]
        _check_form(form, self.cells, geo, (*path, form), "board")


class Target(BoardFields):
    """One of several boards that the same piece set must fill, one at a time."""

    name: Name

    @model_validator(mode="after")
    def _one_board(self) -> Target:
        if len(self.given()) != 1:
            raise ValueError("give the target's board as one of 'board' (a drawing), 'cells' "
                             "(coordinates), 'box' or 'layers' (cube grid)")
        return self


class PackingSpec(PieceSetSpec, BoardFields):
    """Fill a board (or each of several target boards) with every piece exactly as counted."""

    kind: Literal["packing"]
    targets: list[Target] | None = Field(None, min_length=1,
                                         description="several boards to fill one at a time")

    @model_validator(mode="after")
    def _check_targets(self) -> PackingSpec:
        given = self.given()
        if len(given) > 1 or bool(given) == (self.targets is not None):
            raise SpecFieldError((given[-1] if given else "board",),
                                 "give the board as one of 'board' (a drawing), 'cells', "
                                 "'box' or 'layers', or give 'targets'; not both and not "
                                 "neither")
        self._check_piece_grid()
        names: set[str] = set()
        for i, target in enumerate(self.all_targets()):
            if target.name in names:
                raise SpecFieldError(("targets", i, "name"),
                                     f"two targets are named {target.name!r}")
            names.add(target.name)
            path: tuple[str | int, ...] = () if self.targets is None else ("targets", i)
            target.check_grid(self.geometry, path)
            _area_check(self, len(target.cells), 0, path or (given[0],))
            _fit_check(self, target.cells,
                       f"target {target.name!r}" if self.targets else "the board")
        return self

    def all_targets(self) -> list[Target]:
        """The boards to fill: the single board (named like the spec) or the ``targets``."""
        if self.targets is not None:
            return list(self.targets)
        return [Target.model_validate({"name": self.name, "board": self.board,
                                       "cells": self.coords, "box": self.box,
                                       "layers": self.layers})]


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
                        f"label {token!r} (column {c}) is in no group; add it to 'groups' "
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


class Colour(StrictModel):
    """A tower colour: its points and the colours it needs among its orthogonal neighbours."""

    name: Name
    letter: str = Field(min_length=1, max_length=1)
    points: int = Field(ge=-10**6, le=10**6)
    needs: list[Name] = Field(default_factory=list)


class TowersSpec(StrictModel):
    """Fill an R x C grid with towers to maximise the total score."""

    kind: Literal["towers"]
    name: Name
    description: str = ""
    rows: PositiveInt = Field(5, le=MAX_BOARD_SIDE)
    cols: PositiveInt = Field(5, le=MAX_BOARD_SIDE)
    colours: list[Colour] = Field(min_length=1)
    allow_empty: bool = Field(False, description="cells may stay empty (0 points)")
    empty_letter: str = Field(".", min_length=1, max_length=1)
    fixed: list[str] | None = Field(
        None, description="a partly built city: one string per row, a colour letter (or the "
        "empty letter) for a cell already built, ? for a free cell")

    @model_validator(mode="after")
    def _check_fixed(self) -> TowersSpec:
        if self.fixed is None:
            return self
        if len(self.fixed) != self.rows or any(len(row) != self.cols for row in self.fixed):
            raise SpecFieldError(("fixed",), f"must be {self.rows} strings of {self.cols} "
                                 f"characters (the board is {self.rows}x{self.cols})")
        letters = {c.letter for c in self.colours} | {"?"}
        if self.allow_empty:
            letters.add(self.empty_letter)
        for r, row in enumerate(self.fixed):
            for c, ch in enumerate(row):
                if ch not in letters:
                    raise SpecFieldError(("fixed", r), f"{ch!r} at column {c} is not a colour "
                                         f"letter, '?'" + (" or the empty letter"
                                                          if self.allow_empty else ""))
        return self

    @field_validator("colours")
    @classmethod
    def _check_colours(cls, colours: list[Colour]) -> list[Colour]:
        names = [c.name for c in colours]
        letters = [c.letter for c in colours]
        for i, colour in enumerate(colours):
            if names.index(colour.name) != i:
                raise ValueError(f"two colours are named {colour.name!r}")
            if letters.index(colour.letter) != i:
                raise ValueError(f"two colours are drawn with letter {colour.letter!r}")
            for need in colour.needs:
                if need not in names:
                    raise ValueError(f"{colour.name} needs {need!r}, which is not a colour "
                                     f"(colours: {', '.join(names)})")
                if need == colour.name:
                    raise ValueError(f"{colour.name} cannot need itself")
            if len(set(colour.needs)) != len(colour.needs):
                raise ValueError(f"{colour.name} lists a needed colour twice")
            if len(colour.needs) > 4:
                raise ValueError(f"{colour.name} needs {len(colour.needs)} colours but a cell "
                                 "has at most 4 neighbours")
        return colours


Spec = Annotated[PackingSpec | CalendarSpec | TowersSpec, Field(discriminator="kind")]
PackingLike = PackingSpec | CalendarSpec
