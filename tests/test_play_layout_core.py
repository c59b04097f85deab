"""Play mode's layout made by the engine core (cpcore/play_layout.hpp) agrees exactly with
the Python that made it before (play_layout_oracle.py): the board's cells drawn, each
piece's orientations, turns, flips, face-up marks, outlines, marks and places, on every
bundled plane spec (its pieces free to turn over and kept face up) and on seeded random
boards and pieces of each plane grid; web/play.py's JSON is the old one; what does not fit
the core is refused with a sentence, and its buffers are measured then filled."""

from __future__ import annotations

import ctypes
import random
from fractions import Fraction

import cpmodels._native as native
import play_layout_oracle as oracle
import pytest
from conftest import SMALL_BUFFER, SPECS, core_library, core_stream, core_struct, core_words
from test_geometry_core import grow_region

from cpmodels.geometry import SIXTHS, PlayLayout, play_layout
from cpmodels.grids import GRIDS
from cpmodels.spec import CalendarSpec, load_spec
from cpmodels.web.play import board_layout

PLANE = ("square", "triangle", "hex")
PLANE_SPECS = sorted(path for path in SPECS.glob("*.yaml")
                     if "kind: towers" not in path.read_text()
                     and "grid: cube" not in path.read_text())


def _exact(layout: PlayLayout) -> dict:
    """The core's layout in the oracle's terms: points in drawing units, as fractions."""
    def pt(p):
        return Fraction(p[0], SIXTHS), Fraction(p[1], SIXTHS)

    return {
        "box": tuple(Fraction(v, SIXTHS) for v in layout.box),
        "cells": [(c.cell, [pt(p) for p in c.corners], pt(c.centre)) for c in layout.cells],
        "pieces": [[{"cells": list(o.cells), "loops": [[pt(p) for p in loop] for loop in o.loops],
                     "mark": pt(o.mark), "face_up": o.face_up, "rotate": o.rotate,
                     "flip": o.flip,
                     "places": [(dr, dc, Fraction(dx, SIXTHS), Fraction(dy, SIXTHS))
                                for dr, dc, dx, dy in o.places]}
                    for o in shapes] for shapes in layout.pieces],
    }


def _agree(board, pieces, grid: str) -> int:
    """The core's layout equals the oracle's; the places compared."""
    got = _exact(play_layout(board, pieces, GRIDS[grid]))
    assert got == oracle.layout(board, pieces, grid), grid
    return sum(len(o["places"]) for shapes in got["pieces"] for o in shapes)


def _turns(spec) -> list[tuple]:
    return [(p.cells, spec.rotate if p.rotate is None else p.rotate,
             spec.flip if p.flip is None else p.flip) for p in spec.pieces]


@pytest.mark.parametrize("path", PLANE_SPECS, ids=[p.stem for p in PLANE_SPECS])
def test_a_bundled_plane_specs_layout(path):
    """Each bundled plane spec's pieces on its boards, free to turn over and kept face up
    (flip false); a calendar's JSON from web/play.py is the old code's, key for key."""
    spec = load_spec(path)
    boards = [spec.cells] if isinstance(spec, CalendarSpec) else \
        [t.cells for t in spec.all_targets()][:1]
    pieces = _turns(spec)
    kept_up = [(cells, rotate, False) for cells, rotate, _ in pieces]
    assert sum(_agree(board, chosen, spec.grid) for board in boards
               for chosen in (pieces, kept_up)) > 0
    if isinstance(spec, CalendarSpec):
        for variant in (spec, spec.model_copy(update={"flip": False})):
            assert board_layout(variant) == oracle.board_layout(variant)


@pytest.mark.parametrize("grid", PLANE)
def test_random_boards_and_pieces(grid):
    """A seeded sixty boards a grid, grown anywhere (negative coordinates too), each with
    one to four pieces of 1 to 8 cells given anywhere, each way they may turn."""
    g = GRIDS[grid]
    rng = random.Random(f"play layout {grid}")
    compared = 0
    for _ in range(60):
        board = grow_region(rng, g, rng.randint(1, 40), (rng.randint(-9, 9), rng.randint(-9, 9)))
        holey = [cell for cell in board if rng.random() < 0.85] or board[:1]
        pieces = [(grow_region(rng, g, rng.randint(1, 8), (rng.randint(-30, 30),
                                                           rng.randint(-30, 30))),
                   rng.random() < 0.8, rng.random() < 0.6) for _ in range(rng.randint(1, 4))]
        compared += _agree(holey, pieces, grid)
    assert compared > 500


def test_a_ring_has_its_hole_and_a_tie_takes_the_first_cell():
    """A ring of eight squares is two loops (its hole too), its mark the first of the four
    cells at the middle of a side; a domino's two cells are equally near its middle and
    the first is its mark; so is a heptomino's first of two, exactly."""
    ring = [(r, c) for r in range(3) for c in range(3) if (r, c) != (1, 1)]
    layout = play_layout([(r, c) for r in range(4) for c in range(4)], [(ring, True, True),
                                                                         ([(0, 0), (0, 1)],
                                                                          True, True)])
    (o,) = layout.pieces[0]
    assert len(o.loops) == 2 and o.mark == (9, 3)  # cell (0, 1)'s centre
    assert [s.mark for s in layout.pieces[1]] == [(3, 3), (3, 3)]
    _agree([(r, c) for r in range(4) for c in range(4)], [(ring, True, True)], "square")
    # cells (1, 1) and (2, 2) are equally near this heptomino's middle (25/49 each): the
    # first is its mark, where comparing floats took the second
    tie = [(0, 2), (1, 0), (1, 1), (1, 2), (2, 2), (3, 1), (3, 2)]
    (o,) = play_layout(tie, [(tie, False, False)]).pieces[0]
    assert o.mark == (9, 9)  # cell (1, 1)'s centre, (1.5, 1.5)
    centres = [(c + 0.5, r + 0.5) for r, c in tie]
    mx, my = (sum(p[k] for p in centres) / len(tie) for k in (0, 1))
    assert min(tie, key=lambda rc: (rc[1] + 0.5 - mx) ** 2 + (rc[0] + 0.5 - my) ** 2) == (2, 2)


@pytest.mark.parametrize("board, pieces, grid, match", [
    ([], [([(0, 0)], True, True)], GRIDS["square"], "the board has no cells"),
    ([(0, 0, 0)], [([(0, 0, 0)], True, True)], GRIDS["cube"], "plane grids"),
    ([(0, 2**20 + 1)], [([(0, 0)], True, True)], GRIDS["hex"], r"more than 2\*\*20"),
    ([(0, 0)], [([(-2**20 - 1, 0)], True, True)], GRIDS["triangle"], r"more than 2\*\*20"),
    ([(0, 2**40)], [([(0, 0)], True, True)], GRIDS["square"], "too large"),
    ([(0, 0)], [([], True, True)], GRIDS["square"], "a shape has no cells"),
    ([(0, 0)], [([(0, 0.5)], True, True)], GRIDS["square"], "whole numbers"),
    ([(0, 0)], [([(0, 0)], True)], GRIDS["square"], r"\(its cells, rotate, flip\)"),
    ([(0, c) for c in range(2**16 + 1)], [([(0, 0)], True, True)], GRIDS["square"],
     "too many cells"),
    ([(0, 0)], [([(0, c) for c in range(2**11 + 1)], True, True)], GRIDS["square"],
     "too many cells"),
])
def test_what_does_not_fit_the_core_is_refused(board, pieces, grid, match):
    with pytest.raises(ValueError, match=match):
        play_layout(board, pieces, grid)


def test_the_core_is_what_the_page_gets(monkeypatch):
    """board_layout asks the core: without it there is no layout."""
    spec = load_spec(SPECS / "calendar_day.yaml")
    monkeypatch.delattr(native, "play_layout")
    with pytest.raises(AttributeError):
        board_layout(spec)


# --- the core's call alone, over buffers the caller gives ---------------------------------

@pytest.fixture(scope="module")
def core(tmp_path_factory):
    """src/play_layout.cpp built alone as a shared library, its entry point typed."""
    return core_library(tmp_path_factory, "play_layout.cpp")


def _input(grid, board, n_board, cells, start, turns, n_pieces, n_cells):
    return ctypes.byref(core_struct(
        "play_input", grid=grid, board=board, n_board=n_board, piece_cells=cells,
        piece_start=start, piece_turns=turns, n_pieces=n_pieces, n_piece_cells=n_cells))


UNKNOWN_GRID, TOO_MANY, EMPTY_SHAPE, BAD_SHAPES = -2, -4, -5, -6
NOT_PLANE, NO_CELLS, COORDINATE = -12, -13, -14


def test_the_core_reports_the_buffers_it_needs(core):
    """The call says what its buffers must hold and refuses them a word short (writing
    nothing past their end); with enough, the core writes the stream the Python side
    reads."""
    board = [(r, c) for r in range(2) for c in range(3)]
    piece = [(0, 0), (0, 1), (1, 1)]
    cells = core_words(x for cell in board for x in cell)
    flat = core_words(x for c in piece for x in c)
    given = _input(2, cells, len(board), flat, core_words([0, 3]), core_words([1, 1]), 1, 3)
    words = core_stream(lambda buffers: core.cpcore_play_layout(given, buffers))
    assert words == native.play_layout(2, board, [(piece, True, True)])  # the hex grid


def test_the_core_refuses_what_does_not_read(core):
    one, turns = core_words([0, 0]), core_words([1, 1, 1, 1])

    def call(grid=0, board=one, n_board=1, cells=one, start=(0, 1), n_pieces=1, n_cells=1):
        return core.cpcore_play_layout(
            _input(grid, board, n_board, cells, core_words(start), turns, n_pieces, n_cells),
            ctypes.byref(core_struct("buffers")))

    assert call(grid=3) == NOT_PLANE
    assert call(grid=4) == UNKNOWN_GRID and call(grid=-1) == UNKNOWN_GRID
    assert call(n_board=0) == NO_CELLS
    assert call(n_board=2**16 + 1) == TOO_MANY
    assert call(start=(1, 1)) == BAD_SHAPES and call(start=(0, 2)) == BAD_SHAPES
    assert call(start=(0, 1, 0), n_pieces=2) == BAD_SHAPES
    assert call(start=(0, 0)) == EMPTY_SHAPE
    assert call(board=core_words([0, 2**20 + 1])) == COORDINATE
    assert call(cells=core_words([-2**20 - 1, 0])) == COORDINATE
    assert call(start=(0,), n_pieces=0) == SMALL_BUFFER  # no pieces: a board alone is fine
