"""Orientations and placements made by the engine core (cpcore/placements.hpp) agree exactly,
order included, with the Python that made them before (geometry_oracle.py): on every bundled
spec's pieces and boards, on random polyforms and boards of each grid, and on the empty and
degenerate cases; what does not fit the core is refused with a sentence."""

from __future__ import annotations

import ctypes
import random
from itertools import product

import cpmodels._native as native
import geometry_oracle as oracle
import pytest
from conftest import SPECS, core_library, core_stream, core_struct, core_words

from cpmodels import geometry
from cpmodels.geometry import fits_anywhere, orientations, placements
from cpmodels.grids import GRID_NAMES, GRIDS, Cell, Grid
from cpmodels.spec import load_spec

CHOICES = list(product((True, False), repeat=2))  # (rotate, flip)
BUNDLED = sorted(path for path in SPECS.glob("*.yaml")
                 if "kind: towers" not in path.read_text())  # the specs of pieces


def _agree(shape: list[Cell] | frozenset[Cell], boards: list[list[Cell]], g: Grid) -> int:
    """The package's orientations and placements equal the oracle's, each way the piece may
    turn, on each board (and fits_anywhere says whether there is one): the placements
    compared."""
    compared = 0
    for rotate, flip in CHOICES:
        turned = orientations(shape, rotate=rotate, flip=flip, grid=g)
        assert turned == oracle.orientations(shape, rotate=rotate, flip=flip, grid=g), \
            (g.name, rotate, flip)
        code = GRID_NAMES.index(g.name)
        assert [frozenset(s) for s in native.orientations(code, shape, rotate, flip)] == turned
        for board in boards:
            expected = list(oracle.fits(turned, board, g))
            assert [p.cells for p in placements("x", turned, board, g)] == expected
            assert native.placements(code, turned, board, 2**63) == expected
            assert fits_anywhere(turned, board, g) == bool(expected)
            compared += len(expected)
    return compared


def _pieces_and_boards(path):
    spec = load_spec(path)
    boards = [spec.cells] if hasattr(spec, "label_cells") else \
        [t.cells for t in spec.all_targets()]
    return spec.geometry, [p.cells for p in spec.pieces], [sorted(b) for b in boards]


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_a_bundled_specs_pieces_and_boards(path):
    g, pieces, boards = _pieces_and_boards(path)
    assert sum(_agree(cells, boards, g) for cells in pieces) > 0


def test_the_bundled_specs_cover_every_grid():
    grids = {_pieces_and_boards(path)[0].name for path in BUNDLED}
    assert grids == set(GRID_NAMES)


def grow_region(rng: random.Random, g: Grid, size: int, start: Cell) -> list[Cell]:
    """A random region of ``size`` cells joined by edges (faces), grown from ``start``."""
    cells = [start]
    taken = {start}
    while len(cells) < size:
        nb = rng.choice(g.neighbours(rng.choice(cells)))
        if nb not in taken:
            taken.add(nb)
            cells.append(nb)
    return cells


@pytest.mark.parametrize("name", GRID_NAMES)
def test_random_polyforms_on_random_boards(name):
    """A seeded hundred shapes of 1 to 7 cells a grid, each given anywhere (not
    normalized, negative coordinates too) on boards grown anywhere, and a board with holes
    listed with repeats."""
    g = GRIDS[name]
    rng = random.Random(f"placements {name}")
    compared = 0
    for _ in range(100):
        somewhere = tuple(rng.randint(-40, 40) for _ in range(g.dim))
        shape = grow_region(rng, g, rng.randint(1, 7), somewhere)
        board = grow_region(rng, g, rng.randint(1, 40),
                            tuple(rng.randint(-5, 5) for _ in range(g.dim)))
        holey = [cell for cell in board if rng.random() < 0.8] + board[:3]
        rng.shuffle(holey)
        compared += _agree(shape, [board, holey], g)
    assert compared > 1000


@pytest.mark.parametrize("name", GRID_NAMES)
def test_empty_and_degenerate_cases(name):
    g = GRIDS[name]
    one = (0,) * g.dim
    assert orientations([], grid=g) == oracle.orientations([], grid=g) == [frozenset()]
    assert orientations([one, one], grid=g) == oracle.orientations([one, one], grid=g)
    assert placements("x", [], [one], g) == []
    assert placements("x", [frozenset({one})], [], g) == []
    assert not fits_anywhere([], [one], g) and not fits_anywhere([frozenset({one})], [], g)
    numpy = pytest.importorskip("numpy")
    as_numpy = [tuple(numpy.int64(x) for x in cell) for cell in [one, (1,) * g.dim]]
    assert orientations(as_numpy, grid=g) == oracle.orientations(as_numpy, grid=g)
    far = tuple(2**30 for _ in range(g.dim))
    _agree([one], [[one], [far], [one, far, one]], g)
    _agree([far], [[one, far]], g)


def test_fits_anywhere_stops_at_the_first_fit():
    square = GRIDS["square"]
    board = [(r, c) for r in range(3) for c in range(3)]
    shapes = [frozenset({(0, 0), (0, 1)}), frozenset({(0, 0)})]
    assert native.placements(0, shapes, board, 1) == [((0, 0), (0, 1))]
    assert native.placements(0, shapes, board, 0) == []
    assert fits_anywhere(shapes, board, square)


# Each hostile input refused with one sentence (ValueError), before the core runs.
REFUSED = [
    ("a shape has no cells", lambda g: placements("x", [frozenset()], [(0,) * g.dim], g)),
    ("more than 2\\*\\*30 from 0",
     lambda g: orientations([(2**30 + 1,) * g.dim], grid=g)),
    ("more than 2\\*\\*30 from 0",
     lambda g: placements("x", [frozenset({(0,) * g.dim})], [(-2**30 - 1,) * g.dim], g)),
    ("more than 2\\*\\*30 from 0", lambda g: orientations([(2**70,) * g.dim], grid=g)),
    ("whole numbers", lambda g: orientations([(0,) * (g.dim + 1)], grid=g)),
    ("whole numbers", lambda g: placements("x", [frozenset({(0,) * g.dim})], [(0,)], g)),
    ("whole numbers", lambda g: orientations([(0.5,) * g.dim], grid=g)),
    ("whole numbers", lambda g: orientations(["ab" * g.dim], grid=g)),
    ("whole numbers", lambda g: orientations([7], grid=g)),
    ("not a sequence", lambda g: placements("x", 5, [(0,) * g.dim], g)),  # type: ignore[arg-type]
]


@pytest.mark.parametrize("name", GRID_NAMES)
@pytest.mark.parametrize("match, call", REFUSED)
def test_what_does_not_fit_the_core_is_refused(name, match, call):
    with pytest.raises(ValueError, match=match):
        call(GRIDS[name])


def test_the_core_is_used_for_orientations_and_placements(monkeypatch):
    """geometry asks the compiled core: without it there are no orientations."""
    monkeypatch.setattr(geometry, "_native", lambda: None)
    with pytest.raises(AttributeError):
        orientations([(0, 0)])
    with pytest.raises(AttributeError):
        placements("x", [frozenset({(0, 0)})], [(0, 0)])


# --- the core's calls alone, over buffers the caller gives --------------------------------

@pytest.fixture(scope="module")
def core(tmp_path_factory):
    """src/placements.cpp built alone as a shared library, its entry points typed."""
    return core_library(tmp_path_factory, "placements.cpp")


def _orientations(core, grid, cells, n_cells, rotate, flip):
    given = core_struct("shape_input", grid=grid, cells=cells, n_cells=n_cells, rotate=rotate,
                        flip=flip)
    return lambda buffers: core.cpcore_orientations(ctypes.byref(given), buffers)


def _placements(core, grid, shape_cells, shape_start, n_shapes, n_shape_cells, board, n_board,
                limit):
    given = core_struct("placements_input", grid=grid, shape_cells=shape_cells,
                        shape_start=shape_start, n_shapes=n_shapes, n_shape_cells=n_shape_cells,
                        board=board, n_board=n_board, limit=limit)
    return lambda buffers: core.cpcore_placements(ctypes.byref(given), buffers)


def _refused(call) -> int:
    """What a call with no buffers answers."""
    return call(ctypes.byref(core_struct("buffers")))


COORDINATE, EMPTY_SHAPE, BAD_SHAPES = -3, -5, -6


def test_the_core_reports_the_buffers_it_needs(core):
    """The calls say what their buffers must hold and refuse them a word short; with
    enough, the core writes what the Python side gets."""
    shape = [(0, 0), (1, 0), (1, 1)]
    flat = core_words(x for cell in shape for x in cell)
    words = core_stream(_orientations(core, 0, flat, 3, 1, 1))
    assert words[:2] == [4, 3] and len(words) == 2 + 4 * 3 * 2
    out = words[2:]
    assert [frozenset(zip(out[k * 6:k * 6 + 6:2], out[k * 6 + 1:k * 6 + 6:2]))
            for k in range(4)] == orientations(shape)

    board = [(r, c) for r in range(2) for c in range(3)]
    cells = core_words(x for cell in board for x in cell)
    start = core_words([0, 3])
    words = core_stream(_placements(core, 0, flat, start, 1, 3, cells, len(board), 2**63))
    assert len(words) == 2 * (1 + 3) and words[0] == words[4] == 0  # shape 0, twice
    got = [tuple(board[words[4 * p + 1 + i]] for i in range(3)) for p in range(2)]
    assert got == [p.cells for p in placements("x", [frozenset(shape)], board)]
    assert core_stream(_placements(core, 0, flat, start, 1, 3, cells, len(board), 1)) == \
        words[:4]


def test_the_core_refuses_shapes_that_do_not_run_up_their_cells(core):
    cells = core_words([0, 0, 0, 1])
    board = core_words([0, 0])
    for start, status in (([1, 2], BAD_SHAPES), ([0, 3], BAD_SHAPES), ([0, 2, 1], BAD_SHAPES),
                          ([0, 0], EMPTY_SHAPE)):
        assert _refused(_placements(core, 0, cells, core_words(start), len(start) - 1, 2,
                                    board, 1, 1)) == status
    far = core_words([0, 2**30 + 1])
    assert _refused(_placements(core, 0, far, core_words([0, 1]), 1, 1, board, 1, 1)) == \
        COORDINATE
    assert _refused(_orientations(core, 1, far, 1, 1, 1)) == COORDINATE
