"""A laser's sheets of parts, laid out by the engine core (``cpcore_cut_sheets``,
``cpcore/cut.hpp``), the code the browser runs too.

The core outlines each piece (its cells' union, the clearance off), the board's frame and
its base, adds the kerf (mitred), turns each part by one of its grid's rotations to its
lowest box and places the parts tallest first on shelves across the sheet, a shelf opened
below the last one when no shelf has room, and a new sheet when the sheet is full. Parts
keep ``gap`` millimetres (and the kerf) between their cut lines and ``margin`` from the
sheet's edges. It writes each sheet's SVG (``laser.py`` says how it reads) and where each
part went; the DXF and the previews draw the same parts from there.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from shapely import affinity

from cpmodels.errors import InputError
from cpmodels.geometry import GRID_NAMES, Cell
from cpmodels.make.shapes import Flat, polygons

KINDS = ("piece", "frame", "base")


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
    area: float = 0.0  # the nominal part's and its cut line's areas (mm²), the core's
    cut_area: float = 0.0

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
    svg: str = ""


def _engraving_words(shapes: Iterable[Flat | None]) -> bytes:
    """The engraving of each owner as cpcore_cut_input's stream: polygons, rings, points."""
    words: list[np.ndarray] = []
    for shape in shapes:
        polys = polygons(shape)
        words.append(np.array([len(polys)], dtype=np.int64))
        for poly in polys:
            rings = (poly.exterior, *poly.interiors)
            words.append(np.array([len(rings)], dtype=np.int64))
            for ring in rings:
                points = np.asarray(ring.coords, dtype=np.float64)[:-1]  # first repeated
                words.append(np.array([len(points)], dtype=np.int64))
                words.append(points.reshape(-1).view(np.int64))
    return np.concatenate(words).tobytes() if words else b""


def engrave(grid: str, labels: dict[Cell, str],
            pieces: Sequence[tuple[str, tuple[Cell, ...], int]], sizes: Sequence[float],
            glyphs: bytes) -> list[Flat | None]:
    """What the core engraves (``cpcore_engrave``) on each piece (its name) and then on the
    base (``labels``) in the glyph table ``glyphs`` (``make/glyphs.py``): each as polygons
    (None for nothing), their rings as the core wrote them. ``sizes`` as :func:`lay_out`'s."""
    from shapely.geometry import MultiPolygon, Polygon

    import cpmodels._native as native

    data = native.engrave(GRID_NAMES.index(grid),
                          list(labels.items()),
                          [(cells, copies, name) for name, cells, copies in pieces],
                          list(sizes), glyphs)
    words = np.frombuffer(data, dtype=np.int64)
    floats = words.view(np.float64)
    if words[0] != 0:
        raise InputError(f"the font has no glyph for {chr(int(words[0]))!r}")
    owners: list[Flat | None] = []
    at = 1
    for _ in range(len(pieces) + 1):
        polys = []
        n_polys, at = int(words[at]), at + 1
        for _ in range(n_polys):
            rings = []
            n_rings, at = int(words[at]), at + 1
            for _ in range(n_rings):
                n, at = int(words[at]), at + 1
                rings.append(floats[at: at + 2 * n].reshape(-1, 2))
                at += 2 * n
            polys.append(Polygon(rings[0], rings[1:]))
        owners.append(MultiPolygon(polys) if polys else None)
    assert at == len(words)
    return owners


def lay_out(grid: str, board: Iterable[Cell],
            pieces: Sequence[tuple[str, tuple[Cell, ...], int]], parts: Sequence[Part],
            sizes: tuple[float, ...]) -> list[Sheet]:
    """The sheets of ``parts`` (each piece's copies, the frame, the base, as ``pieces``
    lists them) cut for ``board``: each part's sheet, turn and place set, each sheet's SVG.
    ``sizes``: the cell's side, kerf, clearance, sheet width and height, frame border, gap
    and margin (mm)."""
    import cpmodels._native as native

    engraved: list[Flat | None] = []
    k = 0
    for _, _, copies in pieces:
        engraved.append(parts[k].engrave)
        k += copies
    engraved.append(parts[-1].engrave)
    data = native.cut_sheets(GRID_NAMES.index(grid), list(board),
                             [(cells, copies, name.encode()) for name, cells, copies in pieces],
                             list(sizes), _engraving_words(engraved))
    words = np.frombuffer(data, dtype=np.int64)
    floats = words.view(np.float64)
    width, height = sizes[3], sizes[4]
    n_sheets = int(words[0])
    if n_sheets == 0:  # a part fits on no sheet
        part, w, h = parts[int(words[1])], floats[2], floats[3]
        raise InputError(f"the {part.kind} {part.name!r} ({w:.1f} x {h:.1f} mm with the kerf) "
                         f"does not fit on a {width:g} x {height:g} mm sheet with "
                         f"{sizes[7]:g} mm margins, turned any way the grid allows")
    sheets, at = [], 1
    for number in range(1, n_sheets + 1):
        n_bytes = int(words[at])
        text = data[8 * (at + 1): 8 * (at + 1) + n_bytes].decode()
        at += 1 + (n_bytes + 7) // 8
        sheets.append(Sheet(number, (width, height), svg=text))
    n_parts = int(words[at])
    at += 1
    for _ in range(n_parts):
        part = parts[int(words[at])]
        part.sheet, part.turn = int(words[at + 1]), float(words[at + 2])
        part.at = (float(floats[at + 3]), float(floats[at + 4]))
        part.area, part.cut_area = float(floats[at + 5]), float(floats[at + 6])
        sheets[part.sheet - 1].parts.append(part)
        at += 7
    return sheets

