"""What a picture of a result shows, independent of the file format.

A :class:`Scene` is a grid of unit cells: the board's outline (its walls), one polygon per
piece (its outline traced around the piece, not around each cell), coloured cells (towers),
text on cells (labels left uncovered, tower letters) and a title. The SVG and PNG writers
draw a scene and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from matplotlib import colormaps
from matplotlib.colors import to_hex, to_rgb

from cpmodels.geometry import Cell, Placement

Point = tuple[int, int]  # (x, y): x = column, y = row, both at cell corners
Loop = tuple[Point, ...]

CELL_PX = 40  # side of a cell in pixels (SVG user units and PNG pixels alike)
MARGIN_PX = 12
TITLE_PX = 28
TITLE_CHAR_PX = 9.5  # room each title character takes at 15 px
INK = "#222222"
WALL = "#d9d4cc"
BOARD = "#faf7f2"


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
    """A drawing on a grid of ``rows`` x ``cols`` cells."""

    rows: int
    cols: int
    title: str
    board: list[Loop] = field(default_factory=list)  # outline of every non-wall cell
    walls: list[Cell] = field(default_factory=list)  # cells inside the frame that are walls
    shapes: list[Shape] = field(default_factory=list)
    fills: dict[Cell, str] = field(default_factory=dict)  # single coloured cells (towers)
    texts: dict[Cell, str] = field(default_factory=dict)  # text centred on a cell

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
        return (max(self.cols * CELL_PX, title_px) + 2 * MARGIN_PX,
                self.rows * CELL_PX + 2 * MARGIN_PX + TITLE_PX)


def outline(cells: Iterable[Cell]) -> list[Loop]:
    """The boundary of a set of cells as closed loops of corner points, corners only.

    Each cell contributes its four edges clockwise (on screen); an edge whose reverse is also
    present is shared by two cells and cancels. What is left chains into loops: the outer
    boundary and one loop per hole.
    """
    edges: dict[Point, list[Point]] = {}
    present: set[tuple[Point, Point]] = set()
    for r, c in cells:
        corners = [(c, r), (c + 1, r), (c + 1, r + 1), (c, r + 1)]
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
                  letters: Mapping[str, str], labels: Mapping[Cell, str], title: str) -> Scene:
    """A packing board: walls, one outlined polygon per placed piece, labels left uncovered."""
    every = set(board_cells) | set(labels)
    rows = max(r for r, _ in every) + 1
    cols = max(c for _, c in every) + 1
    colours = piece_colours(list(letters))
    scene = Scene(rows, cols, title, board=outline(board_cells))
    scene.walls = [(r, c) for r in range(rows) for c in range(cols)
                   if (r, c) not in board_cells]
    for p in placements:
        scene.shapes.append(Shape(p.piece, letters.get(p.piece, p.piece),
                                  colours.get(p.piece, "#cccccc"), outline(p.cells), p.cells))
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
    scene = Scene(rows, cols, title, board=outline(cells))
    for r, row in enumerate(grid):
        for c, letter in enumerate(row):
            if letter in colours:
                scene.fills[(r, c)] = colours[letter]
            scene.texts[(r, c)] = letter
    return scene
