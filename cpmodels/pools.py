"""Named pools of free polyominoes: every shape of n squares, up to rotation and reflection.

Pools are made, not listed: :func:`free_polyominoes` grows the shapes of n squares from
those of n - 1 and keeps one canonical form of each. Conventional names are given where
there are some (the pentomino letters F I L N P T U V W X Y Z; I4 O4 T4 S4 L4; I3 V3);
hexominoes are H01 to H35 in canonical order.
"""

from __future__ import annotations

from collections.abc import Iterable

from cpmodels.errors import InputError
from cpmodels.geometry import D4, ROTATIONS, Cell, Shape, normalize, parse_drawing
from cpmodels.grids import Grid

#: Pool names and the size of their pieces.
POOLS = {"monominoes": 1, "dominoes": 2, "trominoes": 3, "tetrominoes": 4,
         "pentominoes": 5, "hexominoes": 6}

#: Conventional names, by a drawing of the shape.
NAMED = {
    "M1": "#", "D2": "##", "I3": "###", "V3": "##/#.",
    "I4": "####", "O4": "##/##", "T4": "###/.#.", "S4": ".##/##.", "L4": "###/#..",
    "F": ".##/##./.#.", "I": "#####", "L": "####/#...", "N": "##../.###",
    "P": "##/##/#.", "T": "###/.#./.#.", "U": "#.#/###", "V": "#../#../###",
    "W": "#../##./.##", "X": ".#./###/.#.", "Y": "####/.#..", "Z": "##./.#./.##",
}


def canonical_shape(shape: Iterable[Cell], *, flip: bool = True) -> tuple[Cell, ...]:
    """One form of a shape shared by all its rotations and reflections (``flip`` False:
    by its rotations only)."""
    cells = list(shape)
    return min(tuple(sorted(normalize(t(rc) for rc in cells)))
               for t in (D4 if flip else ROTATIONS))


def polyforms(n: int, grid: Grid, *, flip: bool = True) -> list[Shape]:
    """Every shape of ``n`` cells of ``grid`` joined by edges (faces), up to the grid's
    rotations and, with ``flip``, its mirror images; in canonical order (1 <= n <= 8)."""
    if not 1 <= n <= 8:
        raise InputError(f"shapes of {n} cells: give 1 to 8")
    transforms = grid.symmetries if flip else grid.rotations

    def form(cells: Iterable[Cell]) -> tuple[Cell, ...]:
        cells = list(cells)
        return min(tuple(sorted(grid.normalize(t(c) for c in cells))) for t in transforms)

    shapes = {form([(0,) * grid.dim])}
    for _ in range(n - 1):
        shapes = {form(set(shape) | {nb}) for shape in shapes for cell in shape
                  for nb in grid.neighbours(cell) if nb not in shape}
    return [frozenset(shape) for shape in sorted(shapes)]


def free_polyominoes(n: int) -> list[Shape]:
    """Every free polyomino of ``n`` squares (1 <= n <= 8), in canonical order."""
    if not 1 <= n <= 8:
        raise InputError(f"polyominoes of {n} squares: give 1 to 8")
    shapes = {canonical_shape(frozenset({(0, 0)}))}
    for _ in range(n - 1):
        grown = set()
        for form in shapes:
            cells = set(form)
            for r, c in form:
                for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if nb not in cells:
                        grown.add(canonical_shape(frozenset(cells | {nb})))
        shapes = grown
    return [frozenset(form) for form in sorted(shapes)]


def pool(name: str) -> list[tuple[str, Shape]]:
    """The named pool's pieces as ``(name, shape)``, in canonical order."""
    if name not in POOLS:
        raise InputError(f"unknown pool {name!r}; pools: {', '.join(POOLS)}")
    names = {canonical_shape(parse_drawing(drawing.split("/"))): piece
             for piece, drawing in NAMED.items()}
    out = []
    for k, shape in enumerate(free_polyominoes(POOLS[name]), start=1):
        out.append((names.get(canonical_shape(shape), f"H{k:02d}"), shape))
    return out
