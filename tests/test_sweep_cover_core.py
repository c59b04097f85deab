"""The sweep cover assembled by the engine core (cpcore/sweep_cover.hpp) equals, bit for bit
and in order, the one the Python made before (cover_oracle.py): items, options,
placements, kinds, slack items and the groups a sweep fixes, on every bundled spec, face up
and not, and on seeded random boards of each grid with random pieces and label groups;
what does not fit the core is refused with a sentence, and its raw call reports the buffers
it needs."""

from __future__ import annotations

import ctypes
import random

import cover_oracle as oracle
import pytest
from conftest import SPECS, core_library, core_stream, core_struct, core_words
from test_geometry_core import grow_region
from test_grids import HEX_CALENDAR as HEX
from test_wasm import TRIANGLE

from cpmodels import cover as cover_module
from cpmodels import sweep
from cpmodels.cover import (
    MAX_PLACEMENTS,
    AssembledCover,
    ExactCover,
    ItemKind,
    PieceKind,
    assemble_cover,
    check_placement_count,
    packing_cover,
    scan_order,
)
from cpmodels.errors import TooLargeError
from cpmodels.geometry import OptionKind, Placement, orientations
from cpmodels.grids import GRID_NAMES, GRIDS, Cell, Grid
from cpmodels.spec import load_spec
from cpmodels.sweep import scan_fixed_groups, sweep_cover

BUNDLED = sorted(path for path in SPECS.glob("*.yaml")
                 if "kind: towers" not in path.read_text())


def _same(got: ExactCover, expected: ExactCover) -> None:
    assert got.grid == expected.grid
    assert got.items == expected.items
    assert [it.kind for it in got.items] == [it.kind for it in expected.items]
    assert got.options == expected.options
    assert got.placements == expected.placements
    assert [p.kind for p in got.placements] == [p.kind for p in expected.placements]


def _group_cells(spec) -> dict[str, list[Cell]]:
    return {g: [spec.label_cells[label] for label in labels] for g, labels in spec.groups.items()}


def _calendars(tmp_path):
    """A triangle calendar with copies of a piece and a hex weekday calendar."""
    made = []
    for name, text in (("triangle", TRIANGLE), ("hex", HEX)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(text)
        made.append(path)
    return made


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_a_bundled_spec(path):
    _agree(load_spec(path))


def test_a_triangle_and_a_hex_calendar(tmp_path):
    for path in _calendars(tmp_path):
        _agree(load_spec(path))


def _agree(spec) -> None:
    """Calendars: the sweep cover face up and not, and the fixed groups; the other specs:
    each target's packing cover (the cube's too), turned over and face up."""
    if hasattr(spec, "label_cells"):
        groups = _group_cells(spec)
        for face_up in (False, True):
            got, slack = sweep_cover(spec, face_up=face_up)
            expected, expected_slack = oracle.sweep_cover(
                spec.cells, spec.piece_kinds(face_up=face_up), groups, spec.geometry)
            _same(got, expected)
            assert slack == expected_slack and len(got.options) > len(spec.cells)
        assert scan_fixed_groups(spec) == oracle.scan_fixed_groups(spec.cells, groups)
        return
    for target in spec.all_targets():
        for face_up in (False, True):
            kinds = spec.piece_kinds(face_up=face_up)
            got = packing_cover(target.cells, kinds, spec.geometry)
            _same(got, oracle.packing_cover(target.cells, kinds, spec.geometry))
            assert got.options


def test_the_specs_take_in_copies_optional_pieces_and_every_grid(tmp_path):
    specs = [load_spec(path) for path in BUNDLED + _calendars(tmp_path)]
    kinds = [kind for spec in specs for kind in spec.piece_kinds()]
    assert any(kind.count > 1 for kind in kinds)
    assert any(kind.low is not None and kind.low < kind.count for kind in kinds)
    assert {spec.geometry.name for spec in specs} == set(GRID_NAMES)


def test_the_fixed_groups_of_the_week_calendars():
    """The months on calendar_week (its top rows), the weekdays on calendar_week_11."""
    assert scan_fixed_groups(load_spec(SPECS / "calendar_week.yaml")) == ("month",)
    assert scan_fixed_groups(load_spec(SPECS / "calendar_week_11.yaml")) == ("weekday",)


def _random_problem(rng: random.Random, g: Grid):
    """A board grown anywhere (listed shuffled, some cells twice), pieces of 1 to 5 cells
    with copies and optional ones, and label groups on distinct board cells."""
    board = grow_region(rng, g, rng.randint(1, 60),
                        tuple(rng.randint(-9, 9) for _ in range(g.dim)))
    listed = board + rng.sample(board, min(3, len(board)))
    rng.shuffle(listed)
    kinds = []
    for k in range(rng.randint(0, 4)):
        cells = grow_region(rng, g, rng.randint(1, 5), (0,) * g.dim)
        count = rng.randint(1, 3)
        low = rng.choice([None, 0, count])
        turned = orientations(cells, rotate=rng.random() < 0.7, flip=rng.random() < 0.5, grid=g)
        kinds.append(PieceKind(f"p{k}", tuple(turned), count, low))
    free = rng.sample(board, len(board))
    groups = {}
    for k in range(rng.randint(0, 4)):
        size = rng.randint(1, max(1, min(12, len(free))))
        if len(free) < size:
            break
        groups[f"g{k}"], free = free[:size], free[size:]
    return listed, kinds, groups


@pytest.mark.parametrize("name", GRID_NAMES)
def test_random_boards_pieces_and_groups(name):
    g = GRIDS[name]
    rng = random.Random(f"sweep cover {name}")
    options = 0
    for _ in range(60):
        board, kinds, groups = _random_problem(rng, g)
        made = assemble_cover(board, kinds, groups, g)
        expected, slack = oracle.sweep_cover(board, kinds, groups, g)
        _same(made.cover, expected)
        assert made.slack_items == slack
        fixed = tuple(list(groups)[k] for k in made.fixed)
        assert fixed == oracle.scan_fixed_groups(board, groups)
        _same(packing_cover(board, kinds, g), oracle.packing_cover(board, kinds, g))
        assert scan_order(board) == oracle.scan_order(board)
        options += len(expected.options)
    assert options > 1000


@pytest.mark.parametrize("sizes, fixed", [
    ((2,) * 10, (9,)),       # dropping any group leaves 512: the one passed first
    ((2,) * 11, (0, 1)),     # dropping one leaves 1024: the leading groups leaving 512
    ((3, 513), (1,)),        # 513 left past the limit, 3 within it
    ((1, 512, 1), (2,)),     # any may go: the last group is passed first
    ((1, 513, 1), (1,)),
    ((600,), (0,)),
])
def test_the_fixed_groups_at_the_tally_limit(sizes, fixed):
    """MAX_TALLY is the core's limit too: groups on a 40 x 40 board whose last cells come
    later the earlier the group (so the last group is passed first)."""
    g = GRIDS["square"]
    board = [(r, c) for r in range(40) for c in range(40)]
    free = list(reversed(board))
    groups = {}
    for k, size in enumerate(sizes):
        groups[f"g{k}"], free = list(reversed(free[:size])), free[size:]
    made = assemble_cover(board, [], groups, g)
    assert made.fixed == fixed
    assert tuple(list(groups)[k] for k in fixed) == oracle.scan_fixed_groups(board, groups)
    assert sweep.MAX_TALLY == oracle.MAX_TALLY


def test_too_many_placements_are_refused_as_before():
    """The refusal and its message are the ones of check_placement_count, before the core
    runs; the core refuses past its bound itself."""
    g = GRIDS["square"]
    board = [(r, c) for r in range(710) for c in range(710)]
    kinds = [PieceKind("x", (frozenset({(0, 0)}),))]
    with pytest.raises(TooLargeError) as refused:
        packing_cover(board, kinds, g)
    with pytest.raises(TooLargeError) as expected:
        check_placement_count(len(board), kinds)
    assert str(refused.value) == str(expected.value)
    assert "the problem is too large: up to 504,100 placements" in str(refused.value)
    native = cover_module._native()
    with pytest.raises(ValueError, match="too many placements"):
        native.sweep_cover(0, [(0, 0), (0, 1)], [([[(0, 0)]], 1, 1)], [], 1)
    assert len(native.sweep_cover(0, [(0, 0)], [([[(0, 0)]], 1, 1)], [], 1)[2]) == 1
    assert MAX_PLACEMENTS == 500_000


def test_the_core_is_used_for_the_cover(monkeypatch):
    monkeypatch.setattr(cover_module, "_native", lambda: None)
    with pytest.raises(AttributeError):
        packing_cover([(0, 0)], [], GRIDS["square"])
    with pytest.raises(AttributeError):
        scan_fixed_groups(load_spec(SPECS / "calendar_week.yaml"))
    with pytest.raises(AttributeError):
        scan_order([(0, 0)])


def test_scan_order_of_wide_tall_and_deep_boards():
    """The longest axis slowest: columns first on a wide board, rows on a tall one; in
    space the deepest axis; each cell once; a cell of another length refused."""
    wide = [(r, c) for r in range(2) for c in range(3)]
    assert scan_order(wide + wide[:2]) == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]
    assert scan_order([(c, r) for r, c in wide]) == sorted((c, r) for r, c in wide)
    deep = [(x, y, z) for x in range(2) for y in range(2) for z in range(3)]
    assert scan_order(deep) == oracle.scan_order(deep) == sorted(
        deep, key=lambda c: (c[2], c[0], c[1]))  # z slowest; x before y on their tie
    assert scan_order([]) == []
    with pytest.raises(ValueError, match="two whole numbers"):
        scan_order([(0, 0), (0, 0, 1)])


def test_an_empty_board():
    made = assemble_cover([], [PieceKind("x", (frozenset({(0, 0)}),))], {}, GRIDS["hex"])
    assert isinstance(made, AssembledCover)
    assert [it.name for it in made.cover.items] == ["x"] and made.cover.options == []
    assert made.fixed == ()


def _native_call(pieces=(), groups=(), board=((0, 0), (0, 1)), grid=0, most=10**6,
                 left_out=()):
    return cover_module._native().sweep_cover(grid, list(board), list(pieces), list(groups),
                                              most, list(left_out))


def test_pieces_left_out_each_have_an_option_after_the_slack_options():
    """A piece named in ``left_out`` gets one option more, its item alone, after the slack
    options, in piece order (a design's shared cover); the placements and slack options
    stay as they are, and so do the indices of everything before."""
    spec = load_spec(SPECS / "calendar_week.yaml")
    pieces = spec.piece_kinds()
    plain = assemble_cover(spec.cells, pieces, _group_cells(spec), spec.geometry)
    made = assemble_cover(spec.cells, pieces, _group_cells(spec), spec.geometry,
                          left_out=[5, 1, 7])
    n = len(plain.cover.options)
    assert made.cover.options[:n] == plain.cover.options
    assert made.cover.placements[:n] == plain.cover.placements
    assert made.cover.items == plain.cover.items and made.fixed == plain.fixed
    piece_items = [i for i, it in enumerate(made.cover.items) if it.kind is ItemKind.PIECE]
    assert made.cover.options[n:] == [(piece_items[k],) for k in (1, 5, 7)]
    assert made.cover.placements[n:] == [Placement(pieces[k].name, (), OptionKind.LEFT_OUT)
                                         for k in (1, 5, 7)]
    plan = sweep.TallyPlan.of(spec, left_out=[1, 5, 7])
    assert plan.cover.options == made.cover.options


ONE = [(0, 0)]
# Each hostile input refused with one sentence (ValueError), before or by the core.
REFUSED = [
    ("not on the board", lambda: _native_call(groups=[[(5, 5)]])),
    ("no labels", lambda: _native_call(groups=[[]])),
    ("0 <= low <= high", lambda: _native_call(pieces=[([ONE], 2, 1)])),
    ("0 <= low <= high", lambda: _native_call(pieces=[([ONE], -1, 1)])),
    ("0 <= low <= high", lambda: _native_call(pieces=[([ONE], 0, 2**31 + 1)])),
    ("0 <= low <= high", lambda: _native_call(pieces=[([ONE], 0, 2**70)])),
    ("0 <= low <= high", lambda: _native_call(pieces=[([ONE], "1", 1)])),
    ("a piece is", lambda: _native_call(pieces=[([ONE], 1)])),
    ("a piece is", lambda: _native_call(pieces=[5])),
    ("a shape has no cells", lambda: _native_call(pieces=[([[]], 1, 1)])),
    ("more than 2\\*\\*30", lambda: _native_call(groups=[[(2**30 + 1, 0)]])),
    ("more than 2\\*\\*30", lambda: _native_call(board=[(0, -2**31)])),
    ("whole numbers", lambda: _native_call(groups=[[(0, 0, 0)]])),
    ("whole numbers", lambda: _native_call(board=[(0.5, 0)])),
    ("not a sequence", lambda: _native_call(groups=[5])),
    ("not a sequence", lambda: cover_module._native().sweep_cover(0, [], 5, [], 1)),
    ("not one of the core's", lambda: _native_call(grid=4)),
    ("a piece left out is the index of a piece",
     lambda: _native_call(pieces=[([ONE], 1, 1)], left_out=[1])),
    ("a piece left out is the index of a piece",
     lambda: _native_call(pieces=[([ONE], 1, 1)], left_out=[-1])),
]


@pytest.mark.parametrize("match, call", REFUSED)
def test_what_does_not_fit_the_core_is_refused(match, call):
    with pytest.raises(ValueError, match=match):
        call()


# --- the core's call alone, over buffers the caller gives ---------------------------------

@pytest.fixture(scope="module")
def core(tmp_path_factory):
    """src/sweep_cover.cpp built alone as a shared library, its entry point typed."""
    return core_library(tmp_path_factory, "sweep_cover.cpp")


UNKNOWN_GRID, EMPTY_SHAPE, BAD_SHAPES = -2, -5, -6
TOO_LARGE, BAD_PIECES, BAD_GROUPS, EMPTY_GROUP, OFF_BOARD = -7, -8, -9, -10, -11


def _inputs(board, shapes, piece_start, bounds, groups, group_start, grid=0, most=10**6):
    flat = lambda cells: core_words(x for cell in cells for x in cell)  # noqa: E731
    shape_start = [0]
    for shape in shapes:
        shape_start.append(shape_start[-1] + len(shape))
    labels = [c for g in groups for c in g]
    return core_struct(
        "sweep_input", grid=grid, board=flat(board), n_board=len(board),
        shape_cells=flat([c for s in shapes for c in s]), shape_start=core_words(shape_start),
        n_shapes=len(shapes), n_shape_cells=shape_start[-1], piece_start=core_words(piece_start),
        piece_bounds=core_words(bounds), n_pieces=len(piece_start) - 1, group_cells=flat(labels),
        group_start=core_words(group_start), n_groups=len(group_start) - 1, n_labels=len(labels),
        max_placements=most)


def _cover(core, given, buffers=None):
    """cpcore_sweep_cover of the input ``given`` into ``buffers`` (none: no buffers)."""
    buffers = buffers if buffers is not None else ctypes.byref(core_struct("buffers"))
    return core.cpcore_sweep_cover(ctypes.byref(given), buffers)


def test_the_core_reports_the_buffers_it_needs(core):
    """The call says what its buffers must hold and refuses them a word short; with enough,
    the core writes the package's cover."""
    board = [(r, c) for r in range(2) for c in range(3)]
    shape = [(0, 0), (0, 1)]
    turned = [sorted(s) for s in orientations(shape)]
    groups = [[(0, 0), (1, 2)], [(0, 2)]]
    given = _inputs(board, turned, [0, len(turned)], [1, 2], groups, [0, 2, 3])
    words = core_stream(lambda buffers: _cover(core, given, buffers))
    n_items, n_options, n_fixed = words[:3]
    assert (n_items, n_options, n_fixed) == (6 + 1 + 2, 7 + 3, 1)
    rows = [tuple(words[3 + 4 * i:7 + 4 * i]) for i in range(n_items)]
    at = 3 + 4 * n_items
    options = []
    for _ in range(n_options):
        kind, owner, n = words[at:at + 3]
        options.append((kind, owner, tuple(words[at + 3:at + 3 + n])))
        at += 3 + n
    fixed = words[at:]
    kinds = [PieceKind("d", tuple(frozenset(s) for s in turned), 2, 1)]
    expected, slack = oracle.sweep_cover(board, kinds, {"a": groups[0], "b": groups[1]},
                                         GRIDS["square"])
    assert [(kind, low, high) for kind, low, high, _ in rows] == \
        [(int(it.kind), it.low, it.high) for it in expected.items]
    assert [board[at] for *_, at in rows[:6]] == [it.cell for it in expected.items[:6]]
    assert [items for *_, items in options] == expected.options
    assert [kind for kind, *_ in options] == [int(p.kind) for p in expected.placements]
    assert [owner for _, owner, _ in options] == [0] * 7 + [0, 0, 1]
    assert fixed == [1] and slack == [7, 8]
    # The piece may be left out: one option more, its item alone, after the others.
    may_go = (ctypes.c_uint8 * 1)(1)
    given.left_out, given.kept["left_out"] = ctypes.addressof(may_go), may_go
    words = core_stream(lambda buffers: _cover(core, given, buffers))
    assert words[:3] == [n_items, n_options + 1, n_fixed]
    assert words[at:at + 4] == [2, 0, 1, 6] and words[at + 4:] == fixed


@pytest.mark.parametrize("change, status", [
    ({"grid": 7}, UNKNOWN_GRID),
    ({"piece_start": [0, 2]}, BAD_PIECES),      # past the shapes
    ({"piece_start": [1, 1]}, BAD_PIECES),      # not from 0
    ({"bounds": [2, 1]}, BAD_PIECES),
    ({"bounds": [-1, 1]}, BAD_PIECES),
    ({"group_start": [0, 5]}, BAD_GROUPS),      # past the labels given
    ({"group_start": [0, 2**40]}, BAD_GROUPS),
    ({"group_start": [1, 1]}, BAD_GROUPS),
    ({"group_start": [0, 0]}, EMPTY_GROUP),
    ({"groups": [[(9, 9)]]}, OFF_BOARD),
    ({"shapes": [[]]}, EMPTY_SHAPE),
    ({"most": 1}, TOO_LARGE),
])
def test_the_core_refuses_what_does_not_read(core, change, status):
    given = {"board": [(0, 0), (0, 1)], "shapes": [[(0, 0)]], "piece_start": [0, 1],
             "bounds": [1, 1], "groups": [[(0, 1)]], "group_start": [0, 1], "grid": 0,
             "most": 10**6} | change
    scratch = core_words([0] * 100)
    buffers = core_struct("buffers", scratch=scratch, n_scratch=100)
    assert _cover(core, _inputs(**given), ctypes.byref(buffers)) == status


@pytest.mark.parametrize("shape_start", [[1, 1], [0, 2], [0, 2**40]])
def test_the_core_refuses_shapes_that_do_not_run_up_their_cells(core, shape_start):
    given = _inputs([(0, 0)], [[(0, 0)]], [0, 1], [1, 1], [], [0])
    starts = core_words(shape_start)
    given.shape_start = ctypes.addressof(starts)
    assert _cover(core, given) == BAD_SHAPES
