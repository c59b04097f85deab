"""The problem's symmetries as the engine core finds them (``cpcore_option_symmetries``,
through ``cpmodels/symmetry.py``) against the pure-Python oracle they replaced
(``symmetry_oracle.py``): the symmetries kept, each with its piece map, what each does to
the options, and the held piece with its orbits, on every bundled spec (each target, face
up too; the calendars' sweep covers, slack options and left-out pieces with them) and on
random boards."""

from __future__ import annotations

import random
from array import array

import cpmodels._native as native
import pytest
import symmetry_oracle as oracle
from conftest import SPECS

from cpmodels.cover import PieceKind, packing_cover
from cpmodels.geometry import orientations, parse_drawing
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec
from cpmodels.spec.kinds import CalendarKind, PackingKind
from cpmodels.symmetry import (
    held_piece,
    option_permutations,
    problem_symmetries,
    problem_symmetry,
)

SPEC_NAMES = sorted(path.stem for path in SPECS.glob("*.yaml"))
POOL = {
    "X": [".#.", "###", ".#."], "T4": ["###", ".#."], "I3": ["###"], "O": ["##", "##"],
    "L4": ["###", "#.."], "V3": ["#.", "##"], "I2": ["##"], "P": ["##", "##", "#."],
    "Z4": ["##.", ".##"], "U": ["#.#", "###"], "I1": ["#"], "S4": [".##", "##."],
    "J4": ["#..", "###"],
}


def _agrees(cover, board, labels=None) -> None:
    """The core's answer for the cover on this board is the oracle's."""
    found = problem_symmetry(cover, frozenset(board), labels)
    symmetries = oracle.problem_symmetries(cover, frozenset(board), labels)
    assert found.symmetries == symmetries
    assert found.held == oracle.held_piece(cover, symmetries)
    try:
        expected = oracle.option_permutations(cover, symmetries)
    except KeyError:  # some option's image is no option (a slack option's, as a rule)
        assert any(-1 in row for row in found.permutations)
    else:
        assert found.permutations == expected
        assert option_permutations(cover, symmetries) == expected
    assert problem_symmetries(cover, frozenset(board), labels) == symmetries
    assert held_piece(cover, symmetries) == found.held


@pytest.mark.parametrize("name", SPEC_NAMES)
def test_the_core_agrees_with_the_oracle_on_every_bundled_spec(name):
    spec = load_spec(SPECS / f"{name}.yaml")
    if not isinstance(spec, (CalendarKind, PackingKind)):
        pytest.skip(f"{name} is no packing")
    if isinstance(spec, CalendarKind):
        from cpmodels.sweep import sweep_cover

        for face_up in (False, True):
            cover, _ = sweep_cover(spec, face_up=face_up)
            _agrees(cover, spec.cells, spec.cell_labels)
        cover, _ = sweep_cover(spec, left_out=[0])
        _agrees(cover, spec.cells, spec.cell_labels)
        queries = [Query.of(spec, date="2024-06-07"), Query.of(spec, date="2025-01-01")]
    else:
        targets = [t.name for t in spec.targets] if getattr(spec, "targets", None) else [None]
        queries = [Query.of(spec, target=t, face_up=up) for t in targets[:6]
                   for up in (False, True)]
    for query in queries:
        instance = packing_instance(query)
        _agrees(instance.cover, instance.cells, instance.cell_labels())
        _agrees(instance.cover, instance.cells)


def _random_board(rng: random.Random) -> frozenset:
    """A board of 8 .. 30 cells: a symmetric one at times (a box, with a centre hole or a
    corner cut symmetrically), else cells grown at random."""
    rows, cols = rng.randint(2, 6), rng.randint(3, 6)
    box = {(r, c) for r in range(rows) for c in range(cols)}
    kind = rng.random()
    if kind < 0.3:
        return frozenset(box)
    if kind < 0.6:
        corners = {(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)}
        return frozenset(box - corners if rng.random() < 0.5 else
                         box - {(rows // 2, cols // 2), ((rows - 1) // 2, (cols - 1) // 2)})
    cells = {(0, 0)}
    while len(cells) < rng.randint(8, 24):
        r, c = rng.choice(sorted(cells))
        dr, dc = rng.choice([(0, 1), (1, 0), (0, -1), (-1, 0)])
        cells.add((r + dr, c + dc))
    return frozenset(cells)


def test_the_core_agrees_with_the_oracle_on_random_boards():
    """Random boards and pieces (copies, optional pieces, mirror twins among them)."""
    rng = random.Random(7)
    held = twins = 0
    for _ in range(120):
        board = _random_board(rng)
        names = rng.sample(sorted(POOL), rng.randint(1, 5))
        kinds = []
        for name in names:
            flip = rng.random() < 0.7
            shapes = tuple(orientations(parse_drawing(POOL[name]), flip=flip))
            high = rng.choice([1, 1, 1, 2, 3])
            kinds.append(PieceKind(name, shapes, high, rng.choice([high, high, 0])))
        if rng.random() < 0.4:  # a pair of mirror twins, face up
            pair = rng.choice([("S4", "Z4"), ("J4", "L4")])
            high = rng.choice([1, 2])
            kinds = [k for k in kinds if k.name not in pair] + [
                PieceKind(name, tuple(orientations(parse_drawing(POOL[name]), flip=False)),
                          high) for name in pair]
        cover = packing_cover(board, kinds)
        _agrees(cover, board)
        symmetries = oracle.problem_symmetries(cover, board)
        twins += any(sym.pieces for sym in symmetries)
        held += oracle.held_piece(cover, symmetries) is not None
    assert held >= 10 and twins >= 10


def test_the_core_refuses_inputs_that_do_not_read():
    def call(**change):
        args = dict(n_cells=2, n_maps=1, item_cell=[0, 1, -1], options=[(0, 1, 2)],
                    opt_piece=[0], opt_placed=b"\1", piece_bounds=[0], piece_once=b"\1",
                    maps=[1, 0])
        args.update(change)
        return native.option_symmetries(*[array("q", v) if isinstance(v, list)
                                          and k not in ("options",) else v
                                          for k, v in args.items()])

    words = memoryview(call()).cast("q").tolist()
    assert words == [1, -1, 0, 0, 0, 0]  # one map kept (the swap), no held piece
    for change in ({"maps": [0, 0]}, {"options": [(0, 0, 2)]}, {"opt_piece": [1]},
                   {"item_cell": [0, 2, -1]}, {"options": [(0, 1, 3)]}):
        with pytest.raises(ValueError, match="do not read"):
            call(**change)
    with pytest.raises(ValueError, match="differ in length"):
        call(opt_placed=b"")
    with pytest.raises(ValueError, match="differ in length"):
        call(options=[])
    with pytest.raises(ValueError, match="not a sequence"):
        call(options=[3])


def test_runs_are_read_flat():
    starts, items = native.flat_runs([(3, 1), (), [2**40, -5, 0]])
    assert array("q", starts).tolist() == [0, 2, 2, 5]
    assert array("q", items).tolist() == [3, 1, 2**40, -5, 0]
    with pytest.raises(ValueError, match="whole number"):
        native.flat_runs([(1.5,)])
