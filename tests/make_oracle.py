"""make's sheets and engraving as the package wrote them in Python (shapely turns and
first-fit shelves, then SVG text; glyph outlines from matplotlib's text paths, each piece's
name at shapely's pole of inaccessibility), kept as the oracle the core's cut sheets
(cpcore_cut_sheets) and engraving (cpcore_engrave) are checked against in
tests/test_cut_core.py and tests/test_engrave.py, and the boards both compare on."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import quoteattr

import numpy as np
from matplotlib.textpath import TextPath
from shapely import affinity
from shapely.geometry import Polygon
from shapely.ops import polylabel, unary_union

from cpmodels.make.shapes import polygons

# The bundled puzzles both tests compare on: each plane grid, with labels and without.
BUNDLED = ["calendar_day", "calendar_week", "calendar_week_11", "hexiamonds_rhombus", "polyhexes",
           "pentominoes_6x10"]


def spec_pieces(spec: Any) -> list[tuple[str, tuple[tuple[int, int], ...], int]]:
    """A spec's pieces as make lays them out: (name, cells in order, copies) each."""
    return [(p.name, tuple(sorted(p.cells)), p.high) for p in spec.pieces]


def blob(rng: random.Random, grid: str, n: int) -> set[tuple[int, int]]:
    """n cells of a grid grown from one through edges."""
    from cpmodels.grids import grid as grid_of

    geometry = grid_of(grid)
    cells = {(0, 0)}
    while len(cells) < n:
        cell = rng.choice(sorted(cells))
        cells.add(rng.choice(sorted(geometry.neighbours(cell))))
    return cells


def turns(grid: str) -> tuple[float, ...]:
    """The angles (degrees) a part may be turned by on a sheet: the grid's rotations."""
    return (0.0, 90.0, 180.0, 270.0) if grid == "square" else tuple(60.0 * k for k in range(6))


@dataclass
class Placed:
    """A part to lay out: its name, kind, cut line and engraving; where it went."""

    name: str
    kind: str
    cut: Any
    engrave: Any = None
    sheet: int = 0
    turn: float = 0.0
    at: tuple[float, float] = (0.0, 0.0)

    def moved(self, shape: Any) -> Any:
        if shape is None:
            return None
        return affinity.translate(affinity.rotate(shape, self.turn, origin=(0, 0)), *self.at)


@dataclass
class _Shelf:
    sheet: int
    y: float
    height: float
    x: float


@dataclass
class OracleSheet:
    number: int
    size: tuple[float, float]
    parts: list[Placed] = field(default_factory=list)


def lay_out(parts: Sequence[Placed], size: tuple[float, float], turns: Sequence[float], *,
            gap: float, margin: float) -> list[OracleSheet]:
    """Turn and place every part on sheets of ``size`` (width, height) millimetres."""
    width, height = size[0] - 2 * margin, size[1] - 2 * margin
    boxes = []
    for part in parts:
        best = None
        for turn in turns:
            x0, y0, x1, y1 = affinity.rotate(part.cut, turn, origin=(0, 0)).bounds
            w, h = x1 - x0, y1 - y0
            if w <= width + 1e-9 and h <= height + 1e-9 and (
                    best is None or (round(h, 6), round(w, 6)) < (round(best[2], 6),
                                                                   round(best[1], 6))):
                best = (turn, w, h, x0, y0)
        assert best is not None
        boxes.append((part, *best))
    boxes.sort(key=lambda b: (-round(b[3], 6), -round(b[2], 6), b[0].name))
    shelves: list[_Shelf] = []
    sheets: list[OracleSheet] = []
    for part, turn, w, h, x0, y0 in boxes:
        shelf = next((s for s in shelves if h <= s.height + 1e-9 and s.x + w <= width + 1e-9),
                     None)
        if shelf is None:
            last = shelves[-1] if shelves else None
            top = last.y + last.height + gap if last is not None else 0.0
            if last is None or top + h > height + 1e-9:
                sheets.append(OracleSheet(len(sheets) + 1, size))
                top = 0.0
            shelf = _Shelf(len(sheets), top, h, 0.0)
            shelves.append(shelf)
        part.sheet, part.turn = shelf.sheet, turn
        part.at = (margin + shelf.x - x0, margin + shelf.y - y0)
        sheets[shelf.sheet - 1].parts.append(part)
        shelf.x += w + gap
    return sheets


def _ring(coords: Any) -> str:
    pts = list(coords)[:-1]  # shapely repeats the first point last
    return "M " + " L ".join(f"{x:.4f} {y:.4f}" for x, y in pts) + " Z"


def sheet_svg(sheet: OracleSheet) -> str:
    """One sheet as SVG text."""
    w, h = sheet.size
    cuts, engraving = [], []
    for part in sheet.parts:
        title = quoteattr(part.name)
        for poly in polygons(part.moved(part.cut)):
            for ring in (poly.exterior, *poly.interiors):
                cuts.append(f'    <path data-part={title} d="{_ring(ring.coords)}"/>')
        for poly in polygons(part.moved(part.engrave)):
            d = " ".join(_ring(r.coords) for r in (poly.exterior, *poly.interiors))
            engraving.append(f'    <path data-part={title} d="{d}"/>')
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<svg xmlns="http://www.w3.org/2000/svg" '
        'xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" '
        f'width="{w:g}mm" height="{h:g}mm" viewBox="0 0 {w:g} {h:g}">',
        '  <g id="engrave" inkscape:groupmode="layer" inkscape:label="engrave" '
        'fill="#000000" fill-rule="evenodd" stroke="none">',
        *engraving,
        "  </g>",
        '  <g id="cut" inkscape:groupmode="layer" inkscape:label="cut" fill="none" '
        'stroke="#ff0000" stroke-width="0.01">',
        *cuts,
        "  </g>",
        "</svg>",
        "",
    ])


# Label size as a share of a cell's side: a glyph run fits inside the cell's inner circle.
LABEL_SIZE = {"square": (0.34, 0.8), "triangle": (0.17, 0.38), "hex": (0.4, 1.1)}


def glyphs(text: str, font: Any) -> Any:
    """``text`` as filled glyph outlines at size 10, y up (the font's own way)."""
    path = TextPath((0, 0), text, size=10, prop=font)
    shape: Any = Polygon()
    for ring in path.to_polygons():
        if np.shape(ring)[0] >= 3:
            shape = shape.symmetric_difference(Polygon(ring).buffer(0))  # holes of a glyph
    return shape


def text_outlines(texts: dict[tuple[float, float], str], height: float, width: float,
                  font: Any) -> Any:
    """Each text as filled glyph outlines centred on its point (x across, y down), all at one
    size: the largest at which every text is at most ``height`` tall and ``width`` wide, in
    millimetres. None when there is no text."""
    shapes = {at: glyphs(text, font) for at, text in texts.items()}
    shapes = {at: g for at, g in shapes.items() if not g.is_empty}
    if not shapes:
        return None
    factor = min(min(height / (g.bounds[3] - g.bounds[1]), width / (g.bounds[2] - g.bounds[0]))
                 for g in shapes.values())
    placed = []
    for (x, y), shape in shapes.items():
        shape = affinity.scale(shape, factor, -factor, origin=(0, 0))  # y up to y down
        x0, y0, x1, y1 = shape.bounds
        placed.append(affinity.translate(shape, x - (x0 + x1) / 2, y - (y0 + y1) / 2))
    return unary_union(placed)


def name_on(piece: Any, name: str, height: float, width: float, font: Any) -> Any:
    """``name`` engraved on a piece, centred on the point deepest inside it and shrunk until
    it lies inside with a margin; None when even a small one does not fit."""
    inside = piece if piece.geom_type == "Polygon" else max(piece.geoms, key=lambda g: g.area)
    at = polylabel(inside, tolerance=0.01)
    room = inside.buffer(-0.05 * height)
    for _ in range(4):
        shape = text_outlines({(at.x, at.y): name}, height, width, font)
        if shape is None or room.contains(shape):
            return shape
        height, width = height * 0.7, width * 0.7
    return None
