"""The four grids a packing spec can use, one coordinate convention each.

* ``square``: cell ``(row, col)``, row 0 at the top; 4 neighbours; 8 symmetries.
* ``triangle``: cell ``(row, col)``; the cell points up when ``row + col`` is even. Its
  neighbours are ``(row, col - 1)``, ``(row, col + 1)`` and ``(row + 1, col)`` when it points
  up or ``(row - 1, col)`` when it points down; 12 symmetries.
* ``hex``: axial ``(q, r)`` of pointy-top hexagons, ``q`` across and ``r`` down (each row
  shifted half a cell right of the one above); neighbours ``(q +- 1, r)``, ``(q, r +- 1)``,
  ``(q + 1, r - 1)`` and ``(q - 1, r + 1)``; 12 symmetries.
* ``cube``: ``(x, y, z)``; 6 neighbours; 24 rotations and 24 mirror images.

A :class:`Grid` knows its neighbours, its symmetries as exact maps on cells (rotations
first, the identity first of all, then the mirror images), and which translations map the
grid onto itself (on the triangle grid, only those that keep a cell pointing the same way).
Everything else is worked out from these: board symmetries in :mod:`cpmodels.geometry`,
orientations and placements by the engine core (``cpcore/placements.hpp``), which holds the
same conventions exactly.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

Cell = tuple[int, ...]
Transform = Callable[[Cell], Cell]
GridName = Literal["square", "triangle", "hex", "cube"]
GRID_NAMES: tuple[GridName, ...] = ("square", "triangle", "hex", "cube")


@dataclass(frozen=True)
class Grid:
    """One grid: its name, its dimension, its neighbours, symmetries and translations."""

    name: GridName
    dim: int
    rotations: tuple[Transform, ...]  # the identity first
    reflections: tuple[Transform, ...]  # each a rotation composed with one mirror
    neighbours: Callable[[Cell], tuple[Cell, ...]]
    coordinates: str  # how a cell is written, e.g. "[row, col]"

    @property
    def symmetries(self) -> tuple[Transform, ...]:
        """Every symmetry: the rotations, then the mirror images."""
        return self.rotations + self.reflections

    def origin(self, cells: Iterable[Cell]) -> Cell:
        """The translation :meth:`normalize` takes off: the smallest coordinate on each axis,
        on the triangle grid moved one column left when it would turn cells over."""
        cells = list(cells)
        if not cells:
            return (0,) * self.dim  # nothing to move
        low = tuple(min(cell[k] for cell in cells) for k in range(self.dim))
        if self.name == "triangle" and (low[0] + low[1]) % 2:
            low = (low[0], low[1] - 1)
        return low

    def normalize(self, cells: Iterable[Cell]) -> frozenset[Cell]:
        """The cells translated to their canonical place (smallest coordinates near 0)."""
        cells = list(cells)
        if not cells:
            return frozenset()
        low = self.origin(cells)
        return frozenset(tuple(a - b for a, b in zip(cell, low)) for cell in cells)

    def translates(self, a: Cell, b: Cell) -> bool:
        """Whether the translation taking cell ``a`` to cell ``b`` maps the grid onto itself."""
        if self.name == "triangle":
            return (a[0] + a[1] - b[0] - b[1]) % 2 == 0
        return True

    def is_connected(self, cells: Iterable[Cell]) -> bool:
        """True when the cells form one region joined by shared edges (or faces)."""
        todo = set(cells)
        if not todo:
            return False
        stack = [todo.pop()]
        while stack:
            for nb in self.neighbours(stack.pop()):
                if nb in todo:
                    todo.remove(nb)
                    stack.append(nb)
        return not todo


# --- square -----------------------------------------------------------------------------

def _square_neighbours(cell: Cell) -> tuple[Cell, ...]:
    r, c = cell
    return ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))


SQUARE_ROTATIONS: tuple[Transform, ...] = (
    lambda rc: (rc[0], rc[1]),
    lambda rc: (rc[1], -rc[0]),
    lambda rc: (-rc[0], -rc[1]),
    lambda rc: (-rc[1], rc[0]),
)
SQUARE_REFLECTIONS: tuple[Transform, ...] = (
    lambda rc: (rc[0], -rc[1]),
    lambda rc: (rc[1], rc[0]),
    lambda rc: (-rc[0], rc[1]),
    lambda rc: (-rc[1], -rc[0]),
)

# --- triangle ---------------------------------------------------------------------------
# A triangle's centroid in a lattice basis (e1 = one side across, e2 = one side up-right),
# scaled by 6 so that it is integral, taken about a corner of the grid: there a rotation by
# 60 degrees is (a, b) -> (-b, a + b) and a mirror is (a, b) -> (-a - b, b).


def _tri_to_lattice(cell: Cell) -> tuple[int, int]:
    r, c = cell
    if (r + c) % 2 == 0:  # points up
        return 3 * (c - r) - 2, 6 * r + 4
    return 3 * (c - r) - 1, 6 * r + 2


def _tri_from_lattice(a: int, b: int) -> Cell:
    r = (b - 2) // 6
    up = b % 6 == 4
    return r, (a + (2 if up else 1)) // 3 + r


def _tri_rotation(turns: int) -> Transform:
    def rotate(cell: Cell) -> Cell:
        a, b = _tri_to_lattice(cell)
        for _ in range(turns):
            a, b = -b, a + b
        return _tri_from_lattice(a, b)
    return rotate


def _tri_reflection(turns: int) -> Transform:
    rotate = _tri_rotation(turns)

    def reflect(cell: Cell) -> Cell:
        a, b = _tri_to_lattice(rotate(cell))
        return _tri_from_lattice(-a - b, b)
    return reflect


def _triangle_neighbours(cell: Cell) -> tuple[Cell, ...]:
    r, c = cell
    return ((r, c - 1), (r, c + 1), (r + 1, c) if (r + c) % 2 == 0 else (r - 1, c))


# --- hex --------------------------------------------------------------------------------

def _hex_rotation(turns: int) -> Transform:
    def rotate(cell: Cell) -> Cell:
        q, r = cell
        for _ in range(turns):
            q, r = -r, q + r
        return q, r
    return rotate


def _hex_reflection(turns: int) -> Transform:
    rotate = _hex_rotation(turns)

    def reflect(cell: Cell) -> Cell:
        q, r = rotate(cell)
        return r, q
    return reflect


def _hex_neighbours(cell: Cell) -> tuple[Cell, ...]:
    q, r = cell
    return ((q + 1, r), (q - 1, r), (q, r + 1), (q, r - 1), (q + 1, r - 1), (q - 1, r + 1))


# --- cube -------------------------------------------------------------------------------

def _signed_permutations(det: int) -> tuple[Transform, ...]:
    """The 24 rotations (``det`` 1) or the 24 mirror images (``det`` -1) of the cube, as
    signed permutations of the axes, the identity first among the rotations."""
    found: list[Transform] = []
    for perm in itertools.permutations(range(3)):
        parity = 1 if sum(perm[i] > perm[j] for i in range(3) for j in range(i + 1, 3)) % 2 == 0 \
            else -1
        for signs in itertools.product((1, -1), repeat=3):
            if parity * signs[0] * signs[1] * signs[2] != det:
                continue

            def signed(xyz: Cell, p: tuple[int, ...] = perm,
                       s: tuple[int, ...] = signs) -> Cell:
                return s[0] * xyz[p[0]], s[1] * xyz[p[1]], s[2] * xyz[p[2]]

            found.append(signed)
    return tuple(found)


def _cube_neighbours(cell: Cell) -> tuple[Cell, ...]:
    x, y, z = cell
    return ((x - 1, y, z), (x + 1, y, z), (x, y - 1, z), (x, y + 1, z), (x, y, z - 1),
            (x, y, z + 1))


GRIDS: dict[str, Grid] = {
    "square": Grid("square", 2, SQUARE_ROTATIONS, SQUARE_REFLECTIONS, _square_neighbours,
                   "[row, col]"),
    "triangle": Grid("triangle", 2, tuple(_tri_rotation(k) for k in range(6)),
                     tuple(_tri_reflection(k) for k in range(6)), _triangle_neighbours,
                     "[row, col]"),
    "hex": Grid("hex", 2, tuple(_hex_rotation(k) for k in range(6)),
                tuple(_hex_reflection(k) for k in range(6)), _hex_neighbours, "[q, r]"),
    "cube": Grid("cube", 3, _signed_permutations(1), _signed_permutations(-1), _cube_neighbours,
                 "[x, y, z]"),
}


def grid(name: str) -> Grid:
    """The grid of that name (``square``, ``triangle``, ``hex`` or ``cube``)."""
    try:
        return GRIDS[name]
    except KeyError:
        raise ValueError(f"unknown grid {name!r}; grids: {', '.join(GRIDS)}") from None
