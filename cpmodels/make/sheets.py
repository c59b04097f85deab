"""Parts laid out on sheets of material without overlap (first-fit shelves).

Each part is turned by one of its grid's rotations to its lowest box, then the parts are
placed tallest first on shelves across the sheet, a shelf opened below the last one when no
shelf has room, and a new sheet when the sheet is full. Parts keep ``gap`` millimetres
between their cut lines and ``margin`` from the sheet's edges. Boxes never overlap, so
neither do the parts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from shapely import affinity

from cpmodels.errors import InputError
from cpmodels.make.shapes import Flat


@dataclass
class Part:
    """One thing to cut: its cut line (the kerf added), the engraving on it, and the part as
    it comes out of the cutter (``nominal``); on a sheet once laid out."""

    name: str
    kind: str  # "piece", "frame" or "base"
    cut: Flat
    nominal: Flat
    engrave: Flat | None = None
    piece: str | None = None
    cells: tuple = ()
    sheet: int = 0
    turn: float = 0.0
    at: tuple[float, float] = (0.0, 0.0)

    def moved(self, shape: Flat | None) -> Flat | None:
        """``shape`` of this part as it lies on its sheet."""
        if shape is None:
            return None
        turned = affinity.rotate(shape, self.turn, origin=(0, 0))
        return affinity.translate(turned, *self.at)


@dataclass
class Sheet:
    number: int
    size: tuple[float, float]
    parts: list[Part] = field(default_factory=list)


@dataclass
class _Shelf:
    sheet: int
    y: float
    height: float
    x: float


def lay_out(parts: Sequence[Part], size: tuple[float, float], turns: Sequence[float], *,
            gap: float, margin: float) -> list[Sheet]:
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
        if best is None:
            x0, y0, x1, y1 = part.cut.bounds
            raise InputError(f"the {part.kind} {part.name!r} ({x1 - x0:.1f} x {y1 - y0:.1f} mm "
                             f"with the kerf) does not fit on a {size[0]:g} x {size[1]:g} mm "
                             f"sheet with {margin:g} mm margins, turned any way the grid allows")
        boxes.append((part, *best))
    boxes.sort(key=lambda b: (-round(b[3], 6), -round(b[2], 6), b[0].name))
    shelves: list[_Shelf] = []
    sheets: list[Sheet] = []
    for part, turn, w, h, x0, y0 in boxes:
        shelf = next((s for s in shelves if h <= s.height + 1e-9 and s.x + w <= width + 1e-9),
                     None)
        if shelf is None:
            last = shelves[-1] if shelves else None
            top = last.y + last.height + gap if last is not None else 0.0
            if last is None or top + h > height + 1e-9:
                sheets.append(Sheet(len(sheets) + 1, size))
                top = 0.0
            shelf = _Shelf(len(sheets), top, h, 0.0)
            shelves.append(shelf)
        part.sheet, part.turn = shelf.sheet, turn
        part.at = (margin + shelf.x - x0, margin + shelf.y - y0)
        sheets[shelf.sheet - 1].parts.append(part)
        shelf.x += w + gap
    return sheets
