"""What every spec kind shares: limits, the strict base model, drawing and coordinate checks."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from cpmodels.spec.kinds import DATE_GROUPS, LEAP_YEAR, MAX_BOARD_SIDE

#: Limits that keep a hand-written spec from asking for an absurd model.
MAX_PIECE_SIDE = 50
MAX_COUNT = 1000
MAX_CELLS = MAX_BOARD_SIDE ** 2  # cells of a board given by coordinates, a box or layers
MAX_COORDINATE = 10_000

__all__ = ["DATE_GROUPS", "LEAP_YEAR", "MAX_BOARD_SIDE", "MAX_CELLS", "MAX_COORDINATE",
           "MAX_COUNT", "MAX_PIECE_SIDE", "Name", "SpecFieldError", "StrictModel"]


class SpecFieldError(ValueError):
    """A validation failure that belongs to a field other than the one being validated."""

    def __init__(self, path: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.path = path


class StrictModel(BaseModel):
    """Base: unknown fields are errors, values are not silently coerced across types. A
    model builds its validator when it first validates (``defer_build``), not as it
    loads: a command builds those of the specs it reads."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


def _check_characters(rows: list[str], allowed: str, how: str) -> None:
    """A ``ValueError`` naming the first row (counted from 1) with a character outside
    ``allowed``."""
    for i, row in enumerate(rows, 1):
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
