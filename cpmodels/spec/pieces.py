"""Pieces and a set of pieces (used once, several times or a range of times), and the
checks a board makes of them."""

from __future__ import annotations

import json

from pydantic import Field, field_validator, model_validator

from cpmodels.geometry import fits_anywhere, is_connected, parse_drawing
from cpmodels.grids import Cell, Grid, GridName
from cpmodels.spec.base import (
    MAX_BOARD_SIDE,
    MAX_COUNT,
    MAX_PIECE_SIDE,
    Name,
    SpecFieldError,
    StrictModel,
    _check_characters,
    _check_coordinates,
    _check_layers,
    _layers,
    _rows,
)
from cpmodels.spec.kinds import PieceSetKind, PieceShape


class Piece(PieceShape, StrictModel):
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

    @field_validator("count", mode="before")
    @classmethod
    def _count_shape(cls, count: object) -> object:
        if isinstance(count, float) and count.is_integer() and not 1 <= count <= MAX_COUNT:
            # a whole number too large, as JSON may write one (1e+21)
            raise ValueError(f"give a count from 1 to {MAX_COUNT}, or a range [min, max]")
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

class PieceSetSpec(PieceSetKind, StrictModel):
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

def _board_rows(value: object) -> object:
    if isinstance(value, str):
        return value.strip("\n").split("\n")
    return value


def _check_rectangular(widths: list[int], unit: str) -> None:
    if not widths:
        raise ValueError("the board has no rows; draw one string per row")
    if len(widths) > MAX_BOARD_SIDE or max(widths) > MAX_BOARD_SIDE:
        raise ValueError(f"a board is at most {MAX_BOARD_SIDE} {unit}s on a side")
    for i, w in enumerate(widths, 1):  # (rows and columns are said counted from 1)
        if w != widths[0]:
            raise ValueError(
                f"row {i} has {w} {unit}s but row 1 has {widths[0]}; "
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
