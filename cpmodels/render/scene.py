"""What a picture of a result shows, independent of the file format.

A :class:`Scene` is a grid of cells: the board's outline (its walls), one polygon per
piece (its outline traced around the piece, not around each cell), coloured cells (towers),
text on cells (labels left uncovered, tower letters) and a title; for solids, shaded faces
and captions besides. The SVG and PNG writers draw a scene and nothing else.

Points are in the units of the scene's :class:`CellDrawing`, integral at cell corners so
that shared edges cancel exactly: the square grid's corners, the triangle grid's corners
at half a side across and one row down, a pointy-top hexagon's corners at half its width
across and half its side down.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from matplotlib import colormaps
from matplotlib.colors import to_hex, to_rgb

from cpmodels.geometry import Cell, Placement

Point = tuple[float, float]  # (x, y) in drawing units: x across, y down
Loop = tuple[Point, ...]

CELL_PX = 40  # side of a cell in pixels (SVG user units and PNG pixels alike)
MARGIN_PX = 12
TITLE_PX = 28
TITLE_CHAR_PX = 9.5  # room each title character takes at 15 px
INK = "#222222"
WALL = "#d9d4cc"
BOARD = "#faf7f2"


@dataclass(frozen=True)
class CellDrawing:
    """How a grid's cells are drawn: each cell's corners (clockwise on screen) and centre
    in drawing units, and the size of a unit in pixels across and down."""

    name: str
    corners: Callable[[Cell], tuple[Point, ...]]
    centre: Callable[[Cell], Point]
    unit: tuple[float, float]


def _square_corners(cell: Cell) -> tuple[Point, ...]:
    r, c = cell
    return ((c, r), (c + 1, r), (c + 1, r + 1), (c, r + 1))


def _triangle_corners(cell: Cell) -> tuple[Point, ...]:
    r, c = cell
    if (r + c) % 2 == 0:  # points up
        return ((c + 1, r), (c + 2, r + 1), (c, r + 1))
    return ((c, r), (c + 2, r), (c + 1, r + 1))


def _triangle_centre(cell: Cell) -> Point:
    r, c = cell
    return c + 1, r + (2 / 3 if (r + c) % 2 == 0 else 1 / 3)


def _hex_corners(cell: Cell) -> tuple[Point, ...]:
    x, y = _hex_centre(cell)
    return ((x, y - 2), (x + 1, y - 1), (x + 1, y + 1), (x, y + 2), (x - 1, y + 1),
            (x - 1, y - 1))


def _hex_centre(cell: Cell) -> Point:
    q, r = cell
    return 2 * q + r, 3 * r


TRIANGLE_SIDE_PX = 1.3 * CELL_PX
HEX_SIDE_PX = 0.62 * CELL_PX
DRAWINGS: dict[str, CellDrawing] = {
    "square": CellDrawing("square", _square_corners, lambda rc: (rc[1] + 0.5, rc[0] + 0.5),
                          (CELL_PX, CELL_PX)),
    "triangle": CellDrawing("triangle", _triangle_corners, _triangle_centre,
                            (TRIANGLE_SIDE_PX / 2, TRIANGLE_SIDE_PX * math.sqrt(3) / 2)),
    "hex": CellDrawing("hex", _hex_corners, _hex_centre,
                       (HEX_SIDE_PX * math.sqrt(3) / 2, HEX_SIDE_PX / 2)),
}
SQUARE = DRAWINGS["square"]


@dataclass
class Face:
    """A filled polygon in drawing units (a face of a cube in a solid's picture)."""

    loop: Loop
    colour: str
    piece: str = ""


@dataclass
class Shape:
    """One piece on the board: its name, fill colour and outline loops (holes included)."""

    name: str
    letter: str
    colour: str
    loops: list[Loop]
    cells: tuple[Cell, ...]


@dataclass
class Scene:
    """A drawing of cells within ``bounds`` (x0, y0, x1, y1 in drawing units)."""

    bounds: tuple[float, float, float, float]
    title: str
    drawing: CellDrawing = SQUARE
    board: list[Loop] = field(default_factory=list)  # outline of every non-wall cell
    walls: list[Cell] = field(default_factory=list)  # cells inside the frame that are walls
    shapes: list[Shape] = field(default_factory=list)
    fills: dict[Cell, str] = field(default_factory=dict)  # single coloured cells (towers)
    texts: dict[Cell, str] = field(default_factory=dict)  # text centred on a cell
    faces: list[Face] = field(default_factory=list)  # shaded polygons, drawn in order
    captions: list[tuple[Point, str]] = field(default_factory=list)  # small text at a point

    def px(self, point: Point) -> tuple[float, float]:
        """Pixel position of a point in drawing units."""
        (x, y), (x0, y0, _, _), (sx, sy) = point, self.bounds, self.drawing.unit
        return MARGIN_PX + (x - x0) * sx, MARGIN_PX + TITLE_PX + (y - y0) * sy

    def ink(self, cell: Cell) -> str:
        """Text colour on a cell: white on a dark fill, else the ink colour."""
        fill = self.fills.get(cell)
        if fill is None:
            return INK
        red, green, blue = to_rgb(fill)
        return "white" if 0.299 * red + 0.587 * green + 0.114 * blue < 0.5 else INK

    @property
    def size_px(self) -> tuple[int, int]:
        """(width, height) of the picture in pixels."""
        title_px = int(len(self.title) * TITLE_CHAR_PX)
        (x0, y0, x1, y1), (sx, sy) = self.bounds, self.drawing.unit
        return (max(math.ceil((x1 - x0) * sx), title_px) + 2 * MARGIN_PX,
                math.ceil((y1 - y0) * sy) + 2 * MARGIN_PX + TITLE_PX)


def outline(cells: Iterable[Cell], drawing: CellDrawing = SQUARE) -> list[Loop]:
    """The boundary of a set of cells as closed loops of corner points, corners only.

    Each cell contributes its edges clockwise (on screen); an edge whose reverse is also
    present is shared by two cells and cancels. What is left chains into loops: the outer
    boundary and one loop per hole.
    """
    edges: dict[Point, list[Point]] = {}
    present: set[tuple[Point, Point]] = set()
    for cell in cells:
        corners = list(drawing.corners(cell))
        for a, b in zip(corners, corners[1:] + corners[:1]):
            if (b, a) in present:
                present.discard((b, a))
            else:
                present.add((a, b))
    for a, b in sorted(present):
        edges.setdefault(a, []).append(b)
    loops: list[Loop] = []
    while edges:
        start = min(edges)
        points = [start]
        here = start
        while True:
            nexts = edges[here]
            there = nexts.pop()
            if not nexts:
                del edges[here]
            if there == start:
                break
            points.append(there)
            here = there
        loops.append(_corners_only(points))
    return loops


def _corners_only(points: Sequence[Point]) -> Loop:
    """Drop points in the middle of a straight run."""
    kept = []
    n = len(points)
    for i, p in enumerate(points):
        a, b = points[i - 1], points[(i + 1) % n]
        if (p[0] - a[0]) * (b[1] - p[1]) != (p[1] - a[1]) * (b[0] - p[0]):
            kept.append(p)
    return tuple(kept)


_TAB20_LIGHT_FIRST = (*range(1, 20, 2), *range(0, 20, 2))


def palette_colour(index: int) -> str:
    """The ``index``-th of 20 distinct colours (matplotlib's tab20, the light half first)."""
    return to_hex(colormaps["tab20"](_TAB20_LIGHT_FIRST[index % 20]))


def piece_colours(names: Sequence[str]) -> dict[str, str]:
    """A distinct colour per piece name, in the spec's order."""
    return {name: palette_colour(i) for i, name in enumerate(names)}


def packing_scene(board_cells: frozenset[Cell], placements: Sequence[Placement],
                  letters: Mapping[str, str], labels: Mapping[Cell, str], title: str,
                  grid: str = "square") -> Scene:
    """A packing board: walls, one outlined polygon per placed piece, labels left uncovered.

    Square boards show their walls inside the frame; on the triangle and hex grids the
    board's outline shows its shape.
    """
    drawing = DRAWINGS[grid]
    every = set(board_cells) | set(labels)
    colours = piece_colours(list(letters))
    if grid == "square":  # walls are drawn inside the board's frame
        r0, c0 = min(r for r, _ in every), min(c for _, c in every)
        rows = max(r for r, _ in every) + 1
        cols = max(c for _, c in every) + 1
        scene = Scene((c0, r0, cols, rows), title, drawing, board=outline(board_cells))
        scene.walls = [(r, c) for r in range(r0, rows) for c in range(c0, cols)
                       if (r, c) not in board_cells]
    else:
        corners = [pt for cell in every for pt in drawing.corners(cell)]
        bounds = (min(x for x, _ in corners), min(y for _, y in corners),
                  max(x for x, _ in corners), max(y for _, y in corners))
        scene = Scene(bounds, title, drawing, board=outline(board_cells, drawing))
    for p in placements:
        scene.shapes.append(Shape(p.piece, letters.get(p.piece, p.piece),
                                  colours.get(p.piece, "#cccccc"), outline(p.cells, drawing),
                                  p.cells))
    scene.texts.update(labels)
    return scene


def colour_of(name: str, index: int) -> str:
    """A tower colour's fill: its name when that names a colour, else a palette colour."""
    for candidate in (f"tab:{name.lower()}", name.lower()):
        try:
            return to_hex(candidate)
        except ValueError:
            continue
    return palette_colour(index)


def towers_scene(grid: Sequence[str], colours: Mapping[str, str], title: str) -> Scene:
    """A towers board: each cell filled with its tower's colour and lettered."""
    rows, cols = len(grid), max((len(row) for row in grid), default=0)
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    scene = Scene((0, 0, cols, rows), title, board=outline(cells))
    for r, row in enumerate(grid):
        for c, letter in enumerate(row):
            if letter in colours:
                scene.fills[(r, c)] = colours[letter]
            scene.texts[(r, c)] = letter
    return scene


# --- solids: an isometric view and the layers side by side --------------------------------

ISO_EDGE_PX = 26  # a cube's edge in the isometric view
LAYER_CELL_PX = 22  # a cell of a layer drawing
GAP_PX = 24
CAPTION_PX = 20
PIXELS = CellDrawing("pixels", _square_corners, lambda rc: (rc[1] + 0.5, rc[0] + 0.5), (1, 1))


def _shade(colour: str, factor: float) -> str:
    """The colour darkened (factor < 1) or lightened towards white (factor > 1)."""
    rgb = to_rgb(colour)
    if factor <= 1:
        return to_hex((rgb[0] * factor, rgb[1] * factor, rgb[2] * factor))
    red, green, blue = (v + (1 - v) * (factor - 1) for v in rgb)
    return to_hex((red, green, blue))


def _iso(x: float, y: float, z: float) -> Point:
    """A point of space in the isometric view, in pixels (y down), seen from +x +y +z."""
    cos30 = math.sqrt(3) / 2
    return (x - y) * cos30 * ISO_EDGE_PX, ((x + y) / 2 - z) * ISO_EDGE_PX


def _cube_faces(x: int, y: int, z: int) -> list[tuple[Loop, float]]:
    """The three faces of a cube the viewer sees (top, +x side, +y side) and their shades."""
    top = ((x, y, z + 1), (x + 1, y, z + 1), (x + 1, y + 1, z + 1), (x, y + 1, z + 1))
    side_x = ((x + 1, y, z), (x + 1, y + 1, z), (x + 1, y + 1, z + 1), (x + 1, y, z + 1))
    side_y = ((x, y + 1, z), (x + 1, y + 1, z), (x + 1, y + 1, z + 1), (x, y + 1, z + 1))
    return [(tuple(_iso(*p) for p in face), shade)
            for face, shade in ((top, 1.25), (side_x, 0.85), (side_y, 0.65))]


def solid_scene(board_cells: frozenset[Cell], placements: Sequence[Placement],
                letters: Mapping[str, str], title: str) -> Scene:
    """A cube-grid board: an isometric view of the filled cells (empty board cells pale),
    and beside it each layer from the bottom up, one outlined polygon per piece per layer.

    In a layer, cell ``(x, y, z)`` is drawn at column ``x`` and row ``y``.
    """
    colours = piece_colours(list(letters))
    owner = {cell: p.piece for p in placements for cell in p.cells}
    x0, y0, z0 = (min(c[k] for c in board_cells) for k in range(3))
    x1, y1, z1 = (max(c[k] for c in board_cells) + 1 for k in range(3))
    faces: list[Face] = []
    for x, y, z in sorted(board_cells, key=lambda c: (sum(c), c[2])):
        piece = owner.get((x, y, z), "")
        base = colours.get(piece, "#cccccc") if piece else BOARD
        for loop, shade in _cube_faces(x - x0, y - y0, z - z0):
            faces.append(Face(loop, _shade(base, shade), piece))
    corners = [pt for face in faces for pt in face.loop]
    left, top = min(x for x, _ in corners), min(y for _, y in corners)
    iso_w = max(x for x, _ in corners) - left
    iso_h = max(y for _, y in corners) - top
    for face in faces:
        face.loop = tuple((x - left, y - top) for x, y in face.loop)
    layer_w, layer_h = (x1 - x0) * LAYER_CELL_PX, (y1 - y0) * LAYER_CELL_PX
    height = max(iso_h, layer_h + CAPTION_PX)
    scene = Scene((0, 0, iso_w + (z1 - z0) * (GAP_PX + layer_w), height), title, PIXELS,
                  faces=faces)
    for k, z in enumerate(range(z0, z1)):
        dx, dy = iso_w + GAP_PX + k * (layer_w + GAP_PX), (height - layer_h - CAPTION_PX) / 2

        def place(loops: list[Loop], dx: float = dx, dy: float = dy) -> list[Loop]:
            return [tuple((dx + (px - x0) * LAYER_CELL_PX, dy + (py - y0) * LAYER_CELL_PX)
                          for px, py in loop) for loop in loops]

        layer = [(y, x) for x, y, zz in board_cells if zz == z]
        scene.board += place(outline(layer))
        for p in placements:
            cells = [(y, x) for x, y, zz in p.cells if zz == z]
            if cells:
                scene.shapes.append(Shape(p.piece, letters.get(p.piece, p.piece),
                                          colours.get(p.piece, "#cccccc"),
                                          place(outline(cells)), p.cells))
        scene.captions.append(((dx + layer_w / 2, dy + layer_h + CAPTION_PX / 2),
                               f"z = {z}"))
    return scene
