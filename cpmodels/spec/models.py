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

The kinds live one to a module (``base.py``, ``pieces.py``, ``packing.py``, ``calendar.py``,
``towers.py``); this module names them together, with the union a spec file validates to.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from cpmodels.spec.base import (
    DATE_GROUPS,
    LEAP_YEAR,
    MAX_BOARD_SIDE,
    MAX_CELLS,
    MAX_COORDINATE,
    MAX_COUNT,
    MAX_PIECE_SIDE,
    SpecFieldError,
    StrictModel,
)
from cpmodels.spec.calendar import CalendarSpec
from cpmodels.spec.packing import BoardFields, PackingSpec, Target
from cpmodels.spec.pieces import Piece, PieceSetSpec
from cpmodels.spec.towers import Colour, TowersSpec

__all__ = [
    "DATE_GROUPS", "LEAP_YEAR", "MAX_BOARD_SIDE", "MAX_CELLS", "MAX_COORDINATE", "MAX_COUNT",
    "MAX_PIECE_SIDE", "BoardFields", "CalendarSpec", "Colour", "PackingLike", "PackingSpec",
    "Piece", "PieceSetSpec", "Spec", "SpecFieldError", "StrictModel", "Target", "TowersSpec",
]

Spec = Annotated[PackingSpec | CalendarSpec | TowersSpec, Field(discriminator="kind")]
PackingLike = PackingSpec | CalendarSpec
