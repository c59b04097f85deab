"""The pieces a board editor offers on each plane grid: every shape of 1 to 6 cells
(polyhexes up to 4), named as the pools name them on the square grid.

Nothing here knows about HTTP: the web editor serves :func:`pools` as it is, and the
benchmarks build their boards from it.
"""

from __future__ import annotations

from typing import Any

from cpmodels.errors import NotFound

POOL_SIZES = {"square": (1, 2, 3, 4, 5, 6), "triangle": (1, 2, 3, 4, 5, 6),
              "hex": (1, 2, 3, 4)}
POOL_NAMES = {1: "monominoes", 2: "dominoes", 3: "trominoes", 4: "tetrominoes",
              5: "pentominoes", 6: "hexominoes"}
FORM_NAMES = {"triangle": "iamonds", "hex": "hexes"}


def pools(grid: str) -> dict[str, list[dict[str, Any]]]:
    """The pieces offered on ``grid``, list by list (``pentominoes``, ``4-hexes``, ...),
    each piece as its ``name`` and ``cells`` (and on the square grid its ``shape``
    drawing); :class:`NotFound` for a grid the editor does not draw."""
    from cpmodels.grids import grid as grid_of
    from cpmodels.pools import polyforms, pool

    if grid not in POOL_SIZES:
        raise NotFound(f"the editor draws square, triangle and hex boards, not {grid!r}")
    out: dict[str, list[dict[str, Any]]] = {}
    for n in POOL_SIZES[grid]:
        if grid == "square":
            pieces = [(name, sorted(shape)) for name, shape in pool(POOL_NAMES[n])]
            out[POOL_NAMES[n]] = [{"name": name, "cells": [list(c) for c in cells],
                                   "shape": _drawing(cells)} for name, cells in pieces]
        else:
            shapes = polyforms(n, grid_of(grid))
            label = f"{n}-{FORM_NAMES[grid]}"
            out[label] = [{"name": f"{grid[0].upper()}{n}{chr(97 + k)}" if k < 26 else
                           f"{grid[0].upper()}{n}_{k}", "cells": [list(c) for c in sorted(s)]}
                          for k, s in enumerate(shapes)]
    return out


def _drawing(cells: list[tuple[int, ...]]) -> list[str]:
    """A square piece's cells as the rows of its drawing (``#`` a cell, ``.`` none)."""
    rows = max(r for r, _ in cells) + 1
    cols = max(c for _, c in cells) + 1
    return ["".join("#" if (r, c) in cells else "." for c in range(cols)) for r in range(rows)]
