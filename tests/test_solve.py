"""Every reference spec solves, and an independent checker confirms each answer."""

from __future__ import annotations

import datetime as dt

import pytest
from checker import check_packing, check_towers
from conftest import SPECS

from cpmodels.spec import load_spec

PACKING = [
    ("calendar_week.yaml", ["--labels", "Jun", "7", "Tue"]),
    ("calendar_week.yaml", ["--labels", "Feb", "31", "Sun"]),
    ("calendar_week.yaml", ["--date", "2026-04-06"]),
    ("calendar_day.yaml", ["--labels", "Oct", "6"]),
    ("calendar_day.yaml", ["--date", "2024-02-29"]),
    ("calendar_week_11.yaml", ["--labels", "Jan", "1", "Mon"]),
    ("pentominoes_8x8_square.yaml", []),
    ("pentominoes_8x8_centre.yaml", []),
    ("pentominoes_6x10.yaml", []),
    ("pentominoes_6x10.yaml", ["--target", "3x20"]),
] + [("sixpack.yaml", ["--target", t])
     for t in ("square", "long", "wide", "stairs", "hat", "zigzag")]


@pytest.mark.parametrize(("spec", "args"), PACKING)
def test_reference_specs_solve(solve_json, spec, args):
    code, payload = solve_json(SPECS / spec, *args)
    assert code == 0
    assert payload["backend"] == "cpsat"
    check_packing(SPECS / spec, payload)


def test_calendar_without_date_solves_today(solve_json):
    today = dt.date.today()
    code, payload = solve_json(SPECS / "calendar_week.yaml")
    assert code == 0
    assert payload["labels"] == [today.strftime("%b"), str(today.day), today.strftime("%a")]
    check_packing(SPECS / "calendar_week.yaml", payload)


def test_date_maps_to_labels_with_weekday(solve_json):
    _, payload = solve_json(SPECS / "calendar_week.yaml", "--date", "2026-11-21")
    assert payload["labels"] == ["Nov", "21", "Sat"]
    spec = load_spec(SPECS / "calendar_week.yaml")
    assert [tuple(rc) for rc in payload["uncovered"]] == [
        spec.label_cells["Nov"], spec.label_cells["21"], spec.label_cells["Sat"]]


def test_face_up_solution_uses_only_rotations(solve_json):
    code, payload = solve_json(SPECS / "calendar_week.yaml", "--labels", "Jun", "7", "Tue",
                               "--no-flip")
    assert code == 0
    check_packing(SPECS / "calendar_week.yaml", payload, face_up=True)


def test_text_output_draws_board_and_labels(run_cli):
    code, out, _ = run_cli("solve", SPECS / "calendar_week.yaml", "--labels", "Dec", "31",
                           "Sun")
    assert code == 0
    lines = out.splitlines()
    assert "uncovered: Dec 31 Sun" in lines[0]
    board = "\n".join(lines[1:9])
    for label in ("Dec", "31", "Sun"):
        assert label in board
    assert "Jan" not in board
    assert lines[-1].startswith("solved in")


def test_every_bundled_spec_validates(run_cli):
    specs = sorted(SPECS.glob("*.yaml"))
    assert len(specs) >= 7
    code, out, _ = run_cli("validate", *specs)
    assert code == 0
    assert out.count(": ok") == len(specs)


def test_schema_is_json_schema(run_cli):
    import json

    code, out, _ = run_cli("schema")
    schema = json.loads(out)
    assert code == 0
    text = json.dumps(schema)
    for kind in ("packing", "calendar", "towers"):
        assert f'"{kind}"' in text


@pytest.mark.parametrize(("size", "score"), [("3x3", 200), ("4x4", 440), ("5x5", 730),
                                             ("6x6", 1130)])
def test_towers_proves_known_optima(solve_json, size, score):
    code, payload = solve_json(SPECS / "towers.yaml", "--size", size)
    rows, cols = map(int, size.split("x"))
    assert code == 0
    assert payload["status"] == "solved"
    assert payload["optimal"] is True
    assert payload["score"] == score == payload["bound"]
    assert check_towers(payload["grid"], rows, cols) == score


def test_towers_default_size_and_text(run_cli):
    code, out, _ = run_cli("solve", SPECS / "towers.yaml")
    assert code == 0
    assert "score 730, optimal (proved)" in out
    grid = [line.replace(" ", "") for line in out.splitlines()[1:6]]
    assert check_towers(grid, 5, 5) == 730


def test_towers_rectangular(solve_json):
    code, payload = solve_json(SPECS / "towers.yaml", "--size", "2x6")
    assert code == 0 and payload["optimal"]
    assert check_towers(payload["grid"], 2, 6) == payload["score"]
