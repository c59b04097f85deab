"""Play mode: what the page needs to let a player build a board, and what a position is worth.

* :func:`board_layout` is a calendar's board and pieces as the page draws them: every cell
  as a polygon (pixels) with its label, and for each piece its orientations (outlines in
  pixels, which orientation a turn or a flip leads to, which keep the piece face up) and
  every place on the full board each orientation fits. The page snaps a dropped piece to
  the nearest of those places; it does no geometry of its own, so every plane grid works.
* :func:`check_position` judges a player's position: ``invalid`` (:class:`InvalidPosition`,
  naming the placement and what is wrong with it), ``solved``, ``open`` with the number of
  solutions that still contain it, or ``dead_end`` with the placed pieces whose removal
  alone would make the position solvable again.
* :func:`hint_answer` is a hint as the page shows it (the pieces shown, drawn), and
  :func:`grid_drawing` a plane grid's cell drawing as the editor draws cells with it.

Nothing here knows about HTTP; a puzzle keeps one engine session (:func:`position_session`:
its compiled cover and a small table of sub-board counts) between the positions judged on it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cpmodels import grids
from cpmodels.backends import engine
from cpmodels.cover import ExactCover
from cpmodels.errors import CpmodelsError, InputError, OutOfTime
from cpmodels.geometry import SIXTHS, Cell, Placement, play_layout
from cpmodels.instance import PackingInstance
from cpmodels.interrupt import seconds_left
from cpmodels.render.pictures import placements_picture
from cpmodels.render.scene import DRAWINGS, CellDrawing, piece_colours
from cpmodels.render.svg import scene_svg
from cpmodels.spec import CalendarSpec
from cpmodels.spec.kinds import CalendarKind, PackingKind


class InvalidPosition(InputError):
    """A position no one could lay on the board (a 4xx, with status ``invalid``)."""


class NoSolution(CpmodelsError):
    """A hint was asked for where no solution keeps the pieces shown (409)."""


def _px(drawing: CellDrawing, point: tuple[float, float]) -> list[float]:
    (x, y), (sx, sy) = point, drawing.unit
    return [round(x * sx, 2), round(y * sy, 2)]


def _px6(drawing: CellDrawing, point: tuple[int, int]) -> list[float]:
    """A point in sixths of a drawing unit (:data:`~cpmodels.geometry.SIXTHS`) in pixels."""
    return _px(drawing, (point[0] / SIXTHS, point[1] / SIXTHS))


def board_layout(spec: CalendarSpec) -> dict[str, Any]:
    """The board and the pieces of a calendar, as the page's play mode draws them.

    Coordinates are pixels. ``cells`` lists each board cell once (``cell``, ``points``,
    ``centre``, ``label`` or null). Each piece has ``name``, ``letter``, ``colour``,
    ``count`` (copies at most), ``low`` (at least) and ``orientations``: each with its
    ``cells`` (normalized), ``loops`` (its outline, holes included), ``mark`` (the centre of
    its middle cell, where its letter goes), ``face_up`` (reachable
    without turning the piece over), ``rotate`` and ``flip`` (the index of the orientation
    a turn or a flip gives, or null where the piece may not be turned so) and ``places``:
    ``[dr, dc, x, y]``, each translation that puts it on the board and the pixel offset that
    translation moves its outline by. The geometry is the engine core's
    (:func:`~cpmodels.geometry.play_layout`, exact; the browser's ``engine.playLayout``
    runs the same code); this adds the names, colours and pixels.
    """
    drawing = DRAWINGS[spec.grid]
    labels = spec.cell_labels
    layout = play_layout(spec.cells, [(p.cells, spec.rotate if p.rotate is None else p.rotate,
                                       spec.flip if p.flip is None else p.flip)
                                      for p in spec.pieces], spec.geometry)
    colours = piece_colours([p.name for p in spec.pieces])
    letters = spec.letters()
    pieces = []
    for piece, shapes in zip(spec.pieces, layout.pieces):
        orientations = [{
            "cells": [list(cell) for cell in shape.cells],
            "loops": [[_px6(drawing, pt) for pt in loop] for loop in shape.loops],
            "mark": _px6(drawing, shape.mark),
            "face_up": shape.face_up,
            "rotate": shape.rotate,
            "flip": shape.flip,
            "places": [[dr, dc, *_px6(drawing, (dx, dy))] for dr, dc, dx, dy in shape.places],
        } for shape in shapes]
        pieces.append({"name": piece.name, "letter": letters[piece.name],
                       "colour": colours[piece.name], "count": piece.high, "low": piece.low,
                       "orientations": orientations})
    x0, y0, x1, y1 = layout.box
    return {
        "spec": spec.name,
        "grid": spec.grid,
        "origin": _px6(drawing, (x0, y0)),
        "size": [round((x1 - x0) / SIXTHS * drawing.unit[0], 2),
                 round((y1 - y0) / SIXTHS * drawing.unit[1], 2)],
        "cells": [{"cell": list(c.cell), "points": [_px6(drawing, pt) for pt in c.corners],
                   "centre": _px6(drawing, c.centre), "label": labels.get(c.cell)}
                  for c in layout.cells],
        "pieces": pieces,
    }


def _where(cell: Cell) -> str:
    return f"[{', '.join(str(x) for x in cell)}]"


def validate(instance: PackingInstance, placements: Sequence[Placement]) -> list[int]:
    """The cover's option id of each placement, or an :class:`InvalidPosition` that names
    the first placement (1-based, with its piece) that could not be on the board and why."""
    spec = instance.spec
    geo = spec.geometry
    pieces = {p.name: p for p in spec.pieces}
    kinds = {k.name: set(k.orientations) for k in spec.piece_kinds(face_up=instance.face_up)}
    turned_over = {k.name: set(k.orientations) for k in spec.piece_kinds(face_up=False)}
    board = instance.board_cells
    open_labels = dict(zip(instance.uncovered, instance.labels))
    index = {p: j for j, p in enumerate(instance.cover.placements)}
    owner: dict[Cell, int] = {}
    used: Counter[str] = Counter()
    ids = []
    for n, p in enumerate(placements, 1):
        what = f"placement {n} ({p.piece})"
        if p.piece not in pieces:
            raise InvalidPosition(f"placement {n}: there is no piece {p.piece!r} in "
                                  f"{spec.name}; pieces: {', '.join(pieces)}")
        cells = tuple(sorted(p.cells))
        if len(set(cells)) != len(cells):
            twice = next(c for c in cells if cells.count(c) > 1)
            raise InvalidPosition(f"{what}: cell {_where(twice)} is listed twice")
        for cell in cells:
            if cell not in board:
                raise InvalidPosition(f"{what}: cell {_where(cell)} is not on the board")
            if cell in open_labels:
                raise InvalidPosition(f"{what} covers {open_labels[cell]}, which "
                                      f"{' '.join(instance.labels)} leaves open")
        shape = geo.normalize(cells)
        if shape not in kinds[p.piece]:
            if shape in turned_over[p.piece]:
                raise InvalidPosition(f"{what} is turned over, and the pieces are face up")
            raise InvalidPosition(f"{what}: cells {', '.join(map(_where, cells))} are not "
                                  f"the shape of {p.piece}")
        used[p.piece] += 1
        if used[p.piece] > pieces[p.piece].high:
            copies = pieces[p.piece].high
            raise InvalidPosition(f"{what}: {p.piece} is placed {used[p.piece]} times; the "
                                  f"puzzle has {copies} of it" if copies > 1 else
                                  f"{what}: {p.piece} is placed twice; the puzzle has one")
        for cell in cells:
            if cell in owner:
                other = placements[owner[cell] - 1].piece
                raise InvalidPosition(f"{what} overlaps placement {owner[cell]} ({other}) "
                                      f"at {_where(cell)}")
            owner[cell] = n
        ids.append(index[Placement(p.piece, cells)])
    return ids


@dataclass(frozen=True)
class PositionVerdict:
    """What a valid position is worth."""

    status: str  # "solved", "open" or "dead_end"
    completions: int  # solutions that contain the position (1 when it is one)
    message: str
    take_back: tuple[int, ...] = ()  # dead end: placements (0-based) whose removal suffices


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


POSITION_TABLE_SLOTS = 1 << 14  # sub-board counts kept per puzzle between positions (~1 MB)


def position_session(cover: ExactCover) -> engine.EngineSession:
    """The engine session a puzzle keeps to judge positions: its compiled cover and a small
    table of sub-board counts, kept between the positions judged on it (one search at a
    time; the others wait within their time limits)."""
    return engine.EngineSession(cover, table_slots=POSITION_TABLE_SLOTS)


def check_position(instance: PackingInstance, placements: Sequence[Placement], *,
                   deadline: float | None = None, session: engine.EngineSession | None = None,
                   total: Callable[[float | None], int] | None = None) -> PositionVerdict:
    """Judge a position: solved, open (with its completions counted) or a dead end (with the
    pieces to take back).

    ``deadline`` is the request's ``time.perf_counter`` value the search must end by (else
    :class:`~cpmodels.errors.OutOfTime`; each engine question gets the seconds left);
    ``session`` is the puzzle's kept engine session (default: :func:`position_session`);
    ``total`` counts the empty board (a count kept elsewhere, say).
    """
    ids = validate(instance, placements)
    cover = instance.cover
    if cover.is_solution(ids):
        return PositionVerdict("solved", 1, "solved!")
    session = session or position_session(cover)
    try:
        found = total(deadline) if not ids and total is not None else session.count(
            ids, time_limit=seconds_left(deadline))
    except OutOfTime:
        raise OutOfTime("counting the solutions left from this position took longer than "
                        "the server allows; place a few more pieces and try again") from None
    if found:
        return PositionVerdict("open", found,
                               f"{_plural(found, 'solution')} still possible from here")
    puzzle = " ".join(instance.labels) + (" with the pieces face up" if instance.face_up
                                          else "")
    if not ids:
        return PositionVerdict("dead_end", 0, f"{puzzle} has no solution")
    fewer = [ids[:k] + ids[k + 1:] for k in range(len(ids))]
    way_out = session.exists([*fewer, []], remember=False, time_limit=seconds_left(deadline))
    take_back = [k for k in range(len(ids)) if way_out[k]]
    message = "dead end: no solution contains these pieces"
    if take_back:
        names = [placements[k].piece for k in take_back]
        message += "; take back " + (names[0] if len(names) == 1 else
                                     ", ".join(names[:-1]) + " or " + names[-1])
        message += " to get out of it"
    elif not way_out[-1]:
        message = f"dead end: {puzzle} has no solution"
    else:
        message += "; taking back one piece is not enough"
    return PositionVerdict("dead_end", 0, message, tuple(take_back))


def next_hint(instance: PackingInstance,
              shown: Sequence[Placement], *,
              deadline: float | None = None) -> tuple[Placement | None, bool]:
    """One more piece of a full solution that contains the pieces ``shown`` (a player's
    position or earlier hints), checked as :func:`validate` does.

    Returns ``(placement, True)``, ``(None, True)`` when the board is full, or
    ``(None, False)`` when no solution contains the pieces shown.
    """
    ids = validate(instance, shown)
    try:
        solution = engine.EngineSession(instance.cover).first_solution(
            ids, time_limit=seconds_left(deadline))
    except OutOfTime:
        raise OutOfTime("the search ran out of time; try again with more pieces placed") from None
    if solution is None:
        return None, False
    rest = [j for j in sorted(solution) if j not in set(ids)]
    if not rest:
        return None, True
    order = {name: k for k, name in enumerate(instance.spec.letters())}
    j = min(rest, key=lambda j: (order.get(instance.cover.placements[j].piece, 0), j))
    return instance.cover.placements[j], True


def puzzle_title(spec: PackingKind | CalendarKind) -> str:
    """A puzzle's title as the pages name it: its description up to any parenthesis ("10-piece
    weekday calendar"), else its name."""
    head = (spec.description or "").split(" (")[0].strip()
    return head or spec.name


def hint_answer(instance: PackingInstance, revealed: Sequence[Placement], *,
                deadline: float | None = None) -> dict[str, Any]:
    """The pieces ``revealed`` and one more of a full solution that keeps them, with the
    board drawn (SVG); :class:`NoSolution` when no solution keeps them."""
    more, consistent = next_hint(instance, revealed, deadline=deadline)
    labels = " ".join(instance.labels)
    if not consistent:
        raise NoSolution(f"{labels} has no solution" if not revealed else
                         "no solution has the pieces shown; take some back")
    shown = [*(Placement(p.piece, tuple(sorted(p.cells))) for p in revealed),
             *([more] if more else [])]
    low = sum(p.low for p in instance.spec.pieces)
    high = sum(p.high for p in instance.spec.pieces)
    pieces = f"{high}" if low == high else f"{low} to {high}"
    title = f"{puzzle_title(instance.spec)}, {labels}: hint, {len(shown)} of {pieces} pieces"
    return {
        "spec": instance.name, "labels": list(instance.labels),
        "revealed": [{"piece": p.piece, "cells": [list(rc) for rc in p.cells]}
                     for p in shown],
        "complete": more is None,
        "svg": scene_svg(placements_picture(instance, shown, title)),
    }


DRAWN_GRIDS = ("square", "triangle", "hex")  # the plane grids the editor draws


def grid_drawing(grid: str) -> dict[str, Any]:
    """How the cells of a plane grid are drawn, in pixels, as a table the page can read
    any cell's corners from: ``tiles[i][j]`` are the corners of cell ``(i, j)`` (``i`` and
    ``j`` 0 or 1), ``step`` the offsets two steps along the cell's first and second
    coordinate move a cell by. Cell ``(a, b)``'s corners are the tile of ``(a mod 2,
    b mod 2)`` moved by ``a // 2`` first steps and ``b // 2`` second ones (each plane
    grid's drawing repeats so: the tests check the table against the drawing cell by
    cell). ``neighbours[i][j]`` are the offsets of the neighbours of a cell of tile
    ``(i, j)`` in the grid's order (what the engine in the browser needs to lay out a
    board's cover)."""
    drawing = DRAWINGS[grid]
    near = grids.grid(grid).neighbours
    origin = drawing.corners((0, 0))[0]

    def moved(cell: Cell) -> list[float]:
        x, y = drawing.corners(cell)[0]
        return _px(drawing, (x - origin[0], y - origin[1]))

    return {"grid": grid,
            "tiles": [[[_px(drawing, pt) for pt in drawing.corners((i, j))] for j in (0, 1)]
                      for i in (0, 1)],
            "step": [moved((2, 0)), moved((0, 2))],
            "neighbours": [[[[a - i, b - j] for a, b in near((i, j))] for j in (0, 1)]
                           for i in (0, 1)]}
