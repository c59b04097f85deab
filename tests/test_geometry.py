"""Orientations, placements and board symmetries against counts worked out by hand."""

from __future__ import annotations

import pytest
from checker import SMALL_BOARDS, brute_force_count, variants_of
from conftest import SPECS

from cpmodels.backends import cpsat
from cpmodels.cover import PieceKind, packing_cover
from cpmodels.geometry import (
    board_symmetries,
    is_connected,
    orientations,
    parse_drawing,
    placements,
)
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec


@pytest.mark.parametrize(("drawing", "both", "face_up"), [
    ("#####", 2, 2), (".#./###/.#.", 1, 1), (".##/##./.#.", 8, 4), ("##/##", 1, 1),
    ("#../###", 8, 4), ("##./.##", 4, 2), ("###/.#./.#.", 4, 4), ("#.#/###", 4, 4),
])
def test_orientation_counts(drawing, both, face_up):
    cells = parse_drawing(drawing.split("/"))
    assert len(orientations(cells)) == both
    assert len(orientations(cells, flip=False)) == face_up
    assert len(orientations(cells, rotate=False, flip=False)) == 1
    assert set(orientations(cells)) == variants_of(drawing)


def test_placements_counts():
    board = {(r, c) for r in range(6) for c in range(10)}
    shapes = orientations(parse_drawing(["#####"]))
    assert len(placements("I", shapes, board)) == 6 * 6 + 10 * 2
    x = orientations(parse_drawing([".#.", "###", ".#."]))
    assert len(placements("X", x, board)) == 4 * 8


def test_connectivity():
    assert is_connected({(0, 0), (0, 1), (1, 1)})
    assert not is_connected({(0, 0), (1, 1)})
    assert not is_connected(set())


@pytest.mark.parametrize(("spec", "size"), [
    ("pentominoes_8x8_square.yaml", 8), ("pentominoes_8x8_centre.yaml", 8),
    ("pentominoes_6x10.yaml", 4), ("calendar_week.yaml", 1), ("calendar_day.yaml", 1),
])
def test_board_symmetry_group_sizes(spec, size):
    s = load_spec(SPECS / spec)
    if s.kind == "calendar":
        labels = {rc: label for label, rc in s.label_cells.items()}
        assert len(board_symmetries(s.cells, labels)) == size
    else:
        assert len(board_symmetries(s.all_targets()[0].cells)) == size


def test_unlabelled_calendar_shape_symmetry_is_still_one():
    s = load_spec(SPECS / "calendar_day.yaml")
    assert len(board_symmetries(s.cells)) == 1


@pytest.mark.parametrize(("cells", "pieces"), SMALL_BOARDS)
def test_cpsat_enumeration_matches_brute_force(cells, pieces):
    shapes = {name: variants_of(rows) for name, rows in pieces.items()}
    kinds = [PieceKind(name, tuple(s), 1) for name, s in shapes.items()]
    cover = packing_cover(cells, kinds)
    found = list(cpsat.iter_solutions(cover))
    assert len(found) == brute_force_count(cells, shapes)
    assert all(cover.is_solution(sol) for sol in found)
    assert len({tuple(sorted(sol)) for sol in found}) == len(found)


def test_counts_of_copies_are_not_multiplied():
    # 2x4 box with two copies of the L tetromino: 2 tilings, not 2 x 2! = 4.
    kinds = [PieceKind("L", tuple(orientations(parse_drawing(["###", "#.."]))), 2)]
    cover = packing_cover({(r, c) for r in range(2) for c in range(4)}, kinds)
    assert len(list(cpsat.iter_solutions(cover))) == 2


def test_pentominoes_3x20_has_two_distinct_solutions():
    spec = load_spec(SPECS / "pentominoes_6x10.yaml")
    cover = packing_instance(Query.of(spec, target="3x20")).cover
    raw = list(cpsat.iter_solutions(cover))
    assert len(raw) == 2 * 4  # 2 distinct x the 4 symmetries of a rectangle


def test_render_shape_draws_what_parse_drawing_reads():
    from cpmodels.geometry import render_shape

    for drawing in ([".##", "##.", ".#."], ["####", "#..."], ["#"]):
        assert render_shape(parse_drawing(drawing)) == drawing
