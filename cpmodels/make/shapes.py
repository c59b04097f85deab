"""The flat shapes of a puzzle in millimetres: cells, pieces, the board, labels as outlines.

Cells are drawn as the pictures draw them (``render.scene.DRAWINGS``), scaled so that a
cell's side is ``cell`` millimetres. A piece is the union of its cells (one polygon, as the
pieces are connected through edges). Offsets are exact polygon offsets with mitred corners
(shapely's ``buffer``), so straight edges move by exactly the distance asked and corners
stay sharp. Labels become outlines of glyphs (DejaVu Sans Bold by default, laid out by the
engine core from ``glyphs.py``'s table), so a cutter needs no font.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import TypeAlias

from matplotlib.font_manager import FontProperties
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from cpmodels.errors import InputError
from cpmodels.files import check_input
from cpmodels.geometry import Cell
from cpmodels.render.scene import DRAWINGS, CellDrawing

Flat: TypeAlias = BaseGeometry  # a polygon, or several
FONT = FontProperties(family="DejaVu Sans", weight="bold")


def _side_units(drawing: CellDrawing) -> float:
    """The length of a cell's side in the drawing's pixels (the first two corners)."""
    (x0, y0), (x1, y1) = drawing.corners((0, 0))[:2]
    ux, uy = drawing.unit
    return math.hypot((x1 - x0) * ux, (y1 - y0) * uy)


class Sheetwork:
    """Cells of one grid as millimetre polygons, a cell's side ``cell`` millimetres long."""

    def __init__(self, grid: str, cell: float) -> None:
        if grid not in DRAWINGS:
            raise ValueError(f"flat shapes are for the square, triangle and hex grids, "
                             f"not {grid}")
        self.grid, self.cell = grid, cell
        self.drawing = DRAWINGS[grid]
        scale = cell / _side_units(self.drawing)
        self.sx, self.sy = self.drawing.unit[0] * scale, self.drawing.unit[1] * scale

    def point(self, x: float, y: float) -> tuple[float, float]:
        """A drawing point in millimetres: x across, y down (as on a sheet)."""
        return x * self.sx, y * self.sy

    def cell_polygon(self, cell: Cell) -> Polygon:
        return Polygon([self.point(*pt) for pt in self.drawing.corners(cell)])

    def centre(self, cell: Cell) -> tuple[float, float]:
        return self.point(*self.drawing.centre(cell))

    def region(self, cells: Iterable[Cell]) -> Flat:
        """The union of the cells: one polygon for a connected set."""
        return unary_union([self.cell_polygon(c) for c in cells]).buffer(0)

    @property
    def cell_area(self) -> float:
        return self.cell_polygon((0, 0)).area


def offset(shape: Flat, distance: float) -> Flat:
    """``shape`` grown by ``distance`` millimetres (shrunk when negative), corners mitred."""
    if distance == 0:
        return shape
    return shape.buffer(distance, join_style="mitre", mitre_limit=10.0)


def _covers(path: str, text: str) -> set[str]:
    """The characters of ``text`` the font file at ``path`` has no glyph for."""
    from matplotlib.ft2font import FT2Font

    try:
        charmap = FT2Font(path).get_charmap()
    except (OSError, RuntimeError, ValueError):
        return set(text)
    return {ch for ch in text if not ch.isspace() and ord(ch) not in charmap}


MAX_FONT_BYTES = 100_000_000  # a font file longer than this is refused unread


def engraving_font(texts: Iterable[str], font: str | None = None) -> FontProperties:
    """The font the labels are engraved in: the font file ``font`` (TTF or OTF), or DejaVu
    Sans Bold when it has every character, or else the first font on this machine that has
    them all; :class:`InputError` naming the characters when none has."""
    from matplotlib import font_manager

    text = "".join(sorted(set("".join(texts))))
    if font is not None:
        if not Path(font).exists():
            raise InputError(f"--font {font}: no such font file")
        check_input(font, MAX_FONT_BYTES, "font")
        from matplotlib.ft2font import FT2Font

        try:
            FT2Font(font)
        except (OSError, RuntimeError, ValueError):
            raise InputError(f"--font {font}: not a TTF or OTF font that can be read") from None
        missing = _covers(font, text)
        if missing:
            raise InputError(f"--font {font} has no glyph for {' '.join(sorted(missing))}")
        return FontProperties(fname=font)
    missing = _covers(font_manager.findfont(FONT), text)
    if not missing:
        return FONT
    for entry in font_manager.fontManager.ttflist:
        if not _covers(entry.fname, text):
            return FontProperties(fname=entry.fname)
    raise InputError(f"the labels have characters no font here can engrave "
                     f"({' '.join(sorted(missing))}); give --font a TTF or OTF file that "
                     "has them (for Chinese, Japanese or Korean: Noto Sans CJK)")


def polygons(shape: Flat | None) -> list[Polygon]:
    """The polygons of a shape (none for no shape), empty ones dropped."""
    if shape is None or shape.is_empty:
        return []
    if isinstance(shape, Polygon):
        return [shape]
    return [p for p in shape.geoms if isinstance(p, Polygon) and not p.is_empty]
