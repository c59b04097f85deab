"""Play mode's layout as web/play.py's board_layout made it in Python before the engine core
made it (cpcore/play_layout.hpp): the oracle the core is checked against (tests only).

One change from the old code: the mark cell (the cell whose centre is nearest the mean of
the centres) is chosen in exact arithmetic (fractions), where the old code compared floats.
In a tie (two cells equally near, as in a straight tromino's ends) float rounding could
pick the later cell; the exact answer, the first of the nearest, is the right one and the
one the core gives.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import geometry_oracle

from cpmodels.grids import GRIDS, Cell
from cpmodels.render.scene import DRAWINGS, outline, piece_colours
from cpmodels.spec import CalendarSpec

Point = tuple[Fraction, Fraction]


def centre(grid: str, cell: Cell) -> Point:
    """A cell's centre in drawing units, exactly (render/scene.py's drawings)."""
    a, b = cell
    if grid == "square":
        return Fraction(2 * b + 1, 2), Fraction(2 * a + 1, 2)
    if grid == "triangle":
        return Fraction(b + 1), a + Fraction(2 if (a + b) % 2 == 0 else 1, 3)
    return Fraction(2 * a + b), Fraction(3 * b)


def layout(board: Iterable[Cell], pieces: Sequence[tuple[Iterable[Cell], bool, bool]],
           grid: str) -> dict[str, Any]:
    """The geometry of the board and the pieces (``(cells, rotate, flip)`` each), points in
    drawing units as fractions: ``box``, ``cells`` [(cell, corners, centre)], ``pieces``
    [[{cells, loops, mark, face_up, rotate, flip, places}]]."""
    geo, drawing = GRIDS[grid], DRAWINGS[grid]
    cells = sorted(set(board))
    corners = [pt for cell in cells for pt in drawing.corners(cell)]
    box = (min(x for x, _ in corners), min(y for _, y in corners),
           max(x for x, _ in corners), max(y for _, y in corners))
    found = []
    for shape_cells, rotate, flip in pieces:
        base = list(shape_cells)
        shapes = geometry_oracle.orientations(base, rotate=rotate, flip=flip, grid=geo)
        upright = set(geometry_oracle.orientations(base, rotate=rotate, flip=False, grid=geo))
        index = {shape: k for k, shape in enumerate(shapes)}
        orientations = []
        for shape in shapes:
            ordered = sorted(shape)
            anchor = ordered[0]
            cx, cy = centre(grid, anchor)
            places = []
            for placed in geometry_oracle.fits([shape], cells, geo):
                target = placed[0]
                tx, ty = centre(grid, target)
                places.append((target[0] - anchor[0], target[1] - anchor[1], tx - cx, ty - cy))
            mx = sum(centre(grid, cell)[0] for cell in ordered) / len(ordered)
            my = sum(centre(grid, cell)[1] for cell in ordered) / len(ordered)
            middle = min(ordered, key=lambda cell: (centre(grid, cell)[0] - mx) ** 2
                         + (centre(grid, cell)[1] - my) ** 2)
            orientations.append({
                "cells": [tuple(cell) for cell in ordered],
                "loops": [[(Fraction(x), Fraction(y)) for x, y in loop]
                          for loop in outline(ordered, drawing)],
                "mark": centre(grid, middle),
                "face_up": shape in upright,
                "rotate": index.get(geo.normalize(map(geo.rotations[1], shape))),
                "flip": index.get(geo.normalize(map(geo.reflections[0], shape))),
                "places": places,
            })
        found.append(orientations)
    return {"box": tuple(Fraction(v) for v in box),
            "cells": [(cell, [(Fraction(x), Fraction(y)) for x, y in drawing.corners(cell)],
                       centre(grid, cell)) for cell in cells],
            "pieces": found}


def _px(grid: str, point: tuple[Fraction, Fraction] | tuple[float, float]) -> list[float]:
    (x, y), (sx, sy) = point, DRAWINGS[grid].unit
    return [round(float(x) * sx, 2), round(float(y) * sy, 2)]


def board_layout(spec: CalendarSpec) -> dict[str, Any]:
    """web/play.py's board_layout as it was (its JSON, in pixels)."""
    grid = spec.grid
    unit = DRAWINGS[grid].unit
    found = layout(spec.cells, [(p.cells, spec.rotate if p.rotate is None else p.rotate,
                                 spec.flip if p.flip is None else p.flip)
                                for p in spec.pieces], grid)
    colours = piece_colours([p.name for p in spec.pieces])
    letters = spec.letters()
    labels = spec.cell_labels
    pieces = []
    for piece, shapes in zip(spec.pieces, found["pieces"]):
        pieces.append({
            "name": piece.name, "letter": letters[piece.name], "colour": colours[piece.name],
            "count": piece.high, "low": piece.low,
            "orientations": [{
                "cells": [list(cell) for cell in o["cells"]],
                "loops": [[_px(grid, pt) for pt in loop] for loop in o["loops"]],
                "mark": _px(grid, o["mark"]), "face_up": o["face_up"],
                "rotate": o["rotate"], "flip": o["flip"],
                "places": [[dr, dc, *_px(grid, (dx, dy))] for dr, dc, dx, dy in o["places"]],
            } for o in shapes]})
    x0, y0, x1, y1 = found["box"]
    return {
        "spec": spec.name, "grid": grid, "origin": _px(grid, (x0, y0)),
        "size": [round(float(x1 - x0) * unit[0], 2), round(float(y1 - y0) * unit[1], 2)],
        "cells": [{"cell": list(cell), "points": [_px(grid, pt) for pt in corners],
                   "centre": _px(grid, mid), "label": labels.get(cell)}
                  for cell, corners, mid in found["cells"]],
        "pieces": pieces,
    }
