"""What the engine in the browser needs to play a calendar: the whole calendar as one cover
(:func:`~cpmodels.sweep.sweep_cover`, a slack item per label group), its searches as plain
data, and how the page's pieces and labels map to the cover's options.

A date's puzzle is that cover with the slack option of each of its labels forced (those
cells left open): a player's position is the prefix [the slack option of each open label]
+ [the option of each piece placed], and its count is the engine's count of that prefix,
the same number :func:`~cpmodels.web.play.check_position` finds on the date's own cover.
The pages do not download the plan: :func:`puzzle_parts` is what the core in the page
makes it from (the board, its labels, the pieces and the groups, a few KB), answered at
``GET /api/puzzle/{name}`` and written by ``cpmodels site`` as that file; a worker of the
page makes the calendar's layout and the plan from it, as it does for a board drawn in the
editor. The server still answers :func:`puzzle_plan` at ``GET /api/plan/{name}.json`` (and
``{name}.face-up.json``): the plan the page makes is that one, search for search.

Nothing here knows about HTTP.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import Any

from cpmodels import grids
from cpmodels.backends.engine import EngineSession
from cpmodels.errors import NotFound
from cpmodels.render.scene import piece_colours
from cpmodels.spec import CalendarSpec
from cpmodels.sweep import slack_options, sweep_cover

PLAN_SUFFIX = ".json"
FACE_UP_SUFFIX = ".face-up.json"


def engine_built() -> bool:
    """Whether the install built the engine for the browser (``engine.wasm``: it needs clang
    and lld)."""
    return resources.files("cpmodels.web").joinpath("static/engine/engine.wasm").is_file()


def plan_file(name: str, face_up: bool) -> str:
    """The file name of a calendar's plan (``api/plan/`` holds it)."""
    return name + (FACE_UP_SUFFIX if face_up else PLAN_SUFFIX)


def plan_of_file(file: str, known: Callable[[str], bool]) -> tuple[str, bool]:
    """The calendar's name and whether the pieces stay face up, from a plan's file name:
    ``NAME.face-up.json`` is the face-up plan of NAME when ``known(NAME)``, else the plan of
    a calendar named ``NAME.face-up``. :class:`NotFound` for a name that is no plan's."""
    readings = [(file[:-len(suffix)], face_up)
                for suffix, face_up in ((FACE_UP_SUFFIX, True), (PLAN_SUFFIX, False))
                if file.endswith(suffix) and len(file) > len(suffix)]
    if not readings:
        raise NotFound(f"no plan {file[:60]!r}: a plan is NAME.json or NAME.face-up.json")
    return next((reading for reading in readings if known(reading[0])), readings[-1])


def puzzle_plan(spec: CalendarSpec, face_up: bool) -> dict[str, Any]:
    """The engine's plan of a calendar (pieces kept face up or not), as JSON.

    ``engine`` is the cover's searches (:meth:`EngineSession.browser_plan`); ``options``
    each option of the cover in order as ``[piece or label group, cells, kind]`` (kind 0 a
    piece placed, 1 a label left open, 2 an optional piece left out); ``slack`` the slack
    option of each label; ``letters`` the pieces' names in the order hints take them (the
    order of their letters, :meth:`~cpmodels.spec.CalendarSpec.letters`);
    ``copies`` how many of each piece the puzzle has. :class:`NotFound` for the face-up plan
    of a calendar whose pieces cannot be turned over.
    """
    if face_up and not spec.can_flip:
        raise NotFound(f"{spec.name}'s pieces are never turned over; it has no face-up plan")
    cover, _ = sweep_cover(spec, face_up=face_up)
    slack = slack_options(cover, spec)
    return {
        "spec": spec.name,
        "face_up": face_up,
        "engine": EngineSession(cover).browser_plan(),
        "options": [[p.piece, [list(cell) for cell in p.cells], int(p.kind)]
                    for p in cover.placements],
        "slack": {label: option for (_, label), option in slack.items()},
        "letters": list(spec.letters()),
        "copies": {piece.name: piece.high for piece in spec.pieces},
    }


def puzzle_parts(spec: CalendarSpec) -> dict[str, Any]:
    """What the core in the page makes a calendar's layout and plans from (the JSON of
    ``GET /api/puzzle/{name}``), in the shape the page gives a board drawn in the editor.

    ``cells`` the board's cells in order; ``labels`` each label's cell; ``pieces`` each
    piece's name, letter, colour, copies (``count`` at most, ``low`` at least), cells and
    whether it may be rotated and turned over; ``groups`` each group's labels' cells in
    order and ``groupNames`` the groups; ``letters`` and ``copies`` as in
    :func:`puzzle_plan`; ``flip`` whether any piece may be turned over (a face-up plan
    then); ``neighbours`` the offsets of a cell's neighbours by its tile, as
    ``GET /api/grids`` gives them.
    """
    letters = spec.letters()
    colours = piece_colours([piece.name for piece in spec.pieces])
    near = grids.grid(spec.grid).neighbours
    return {
        "spec": spec.name,
        "grid": spec.grid,
        "cells": [list(cell) for cell in sorted(spec.cells)],
        "labels": {label: list(cell) for label, cell in spec.label_cells.items()},
        "pieces": [{"name": piece.name, "letter": letters[piece.name],
                    "colour": colours[piece.name], "count": piece.high, "low": piece.low,
                    "cells": [list(cell) for cell in sorted(piece.cells)],
                    "rotate": spec.rotate if piece.rotate is None else piece.rotate,
                    "flip": spec.flip if piece.flip is None else piece.flip}
                   for piece in spec.pieces],
        "groups": [[list(spec.label_cells[label]) for label in labels]
                   for labels in spec.groups.values()],
        "groupNames": list(spec.groups),
        "letters": list(letters),
        "copies": {piece.name: piece.high for piece in spec.pieces},
        "flip": spec.can_flip,
        "neighbours": [[[[a - i, b - j] for a, b in near((i, j))] for j in (0, 1)]
                       for i in (0, 1)],
    }
