"""Bad input: one clear line naming the file, the field (and line) and the fix; exit 2."""

from __future__ import annotations

import textwrap

import pytest
from conftest import SPECS

GOOD_PACKING = """\
kind: packing
name: tiny
board: ["....", "...."]
pieces:
  - {name: L, shape: "###/#.."}
  - {name: O, shape: "#../###"}
"""


def _write(tmp_path, text: str, name: str = "spec.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def _fails(run_cli, *argv) -> str:
    code, out, err = run_cli(*argv)
    assert code == 2, (code, out, err)
    assert "Traceback" not in err
    assert err.startswith("error: ") or "error:" in err
    return err.strip()


CASES = [
    # (spec text, expected fragments of the first error line)
    ("kind: packing\nname: tiny\n  board: [\n", ["YAML syntax error", ":3"]),
    (GOOD_PACKING.replace("board:", "boardd:"),
     [":3:", "boardd", "unknown field", "did you mean 'board'"]),
    (GOOD_PACKING.replace('{name: O, shape: "#../###"}', '{name: O, shape: "#../###", count: "2"}'),
     [":6:", "pieces[1].count", "give a count: a number of copies", '"2"']),
    (GOOD_PACKING.replace('"#../###"', '"#./.#/#."').replace('"....", "...."', '"...", "..."')
     .replace('"###/#.."', '"###"'),
     [":6:", "pieces[1].shape", "not connected"]),
    (GOOD_PACKING.replace('"....", "...."', '"....", "....."'),
     [":3:", "board", "row 2 has 5 characters but row 1 has 4", "pad short rows"]),
    (GOOD_PACKING.replace('"....", "...."', '"....", "..##"'),
     [":3:", "board", "pieces cover 8 cells", "board has 6 cells"]),
    (GOOD_PACKING.replace("name: O", "name: L"), [":4:", "pieces", "two pieces are named 'L'"]),
    (GOOD_PACKING.replace('"#../###"}', '"#../###", count: 0}'),
     ["pieces[1].count", "give a count from 1 to 1000"]),
    (GOOD_PACKING.replace('"#../###"', '"##/#x"'), ["pieces[1].shape", "'x'"]),
    (GOOD_PACKING.replace("kind: packing", "kind: jigsaw"), [":1:", "kind", "one of packing"]),
    (GOOD_PACKING.replace("kind: packing\n", ""), ["kind", "'kind' must be one of"]),
    ("", ["the spec is empty"]),
    ("- a\n- b\n", ["must be a mapping"]),
    ("kind: packing\nkind: packing\n", [":2:", "duplicate key 'kind'"]),
    ("a: &x [1]\nb: *x\n", ["aliases"]),
    ("""\
     kind: calendar
     name: cal
     board: ["Jan Feb 1", "2 . #"]
     groups: {month: [Jan, Feb], day: [1, 2]}
     pieces: [{name: I, shape: "#"}]
     """, ["groups", "must list 12 labels"]),
    ("""\
     kind: calendar
     name: cal
     board: ["A B 1", "2 X ."]
     groups: {g: [A, B], h: [1, 2]}
     pieces: [{name: I, shape: "##"}]
     """, [":3:", "board[1]", "label 'X'", "in no group"]),
    ("""\
     kind: calendar
     name: cal
     board: ["A B 1", "2 . ."]
     groups: {g: [A, B], h: [1, 2, 3]}
     pieces: [{name: I, shape: "##"}]
     """, ["groups", "not drawn on the board: 3"]),
    ("""\
     kind: calendar
     name: cal
     board: ["A B 1", "2 . ."]
     groups: {g: [A, B], h: [1, A]}
     pieces: [{name: I, shape: "##"}]
     """, ["groups", "label 'A' appears in 'g' and group 'h'"]),
    ("""\
     kind: calendar
     name: cal
     board: ["A B 1", "2 . ."]
     groups: {g: [A, B], h: []}
     pieces: [{name: I, shape: "##"}]
     """, ["groups", "group 'h' has no labels"]),
    ("""\
     kind: calendar
     name: cal
     board: ["A B 1", "2 . ."]
     groups: {g: [A, B], h: [1, 2]}
     pieces: [{name: I, shape: "###"}]
     """, ["pieces", "cover 3 cells", "6 cells, 2 of them uncovered, leaving 4 to fill"]),
    ("""\
     kind: towers
     name: t
     colours: [{name: Blue, letter: B, points: 10, needs: [Red]}]
     """, ["colours", "needs 'Red', which is not a colour"]),
    ("""\
     kind: towers
     name: t
     rows: 2
     cols: 3
     colours: [{name: Blue, letter: B, points: 10}]
     fixed: ["B??"]
     """, ["fixed", "must be 2 strings of 3 characters"]),
    ("""\
     kind: towers
     name: t
     rows: 1
     cols: 3
     colours: [{name: Blue, letter: B, points: 10}]
     fixed: ["BX?"]
     """, ["fixed[0]", "'X' at column 1 is not a colour letter"]),
]


@pytest.mark.parametrize(("text", "fragments"), CASES)
def test_bad_spec_messages(run_cli, tmp_path, text, fragments):
    path = _write(tmp_path, text)
    err = _fails(run_cli, "validate", path)
    first = err.splitlines()[0]
    assert str(path) in first
    for fragment in fragments:
        assert fragment in first, (fragment, first)


def test_solve_reports_the_same_as_validate(run_cli, tmp_path):
    path = _write(tmp_path, GOOD_PACKING.replace("board:", "boardd:"))
    assert "unknown field 'boardd'" in _fails(run_cli, "solve", path)


def test_good_tiny_spec_solves(run_cli, tmp_path):
    path = _write(tmp_path, GOOD_PACKING)
    code, out, _ = run_cli("solve", path)
    assert code == 0 and "solved" in out


def test_missing_file(run_cli, tmp_path):
    err = _fails(run_cli, "solve", tmp_path / "nope.yaml")
    assert "nope.yaml" in err and "no such file" in err


def test_directory_is_not_a_spec(run_cli, tmp_path):
    assert "not a file" in _fails(run_cli, "solve", tmp_path)


def test_impossible_date(run_cli):
    err = _fails(run_cli, "solve", SPECS / "calendar_week.yaml", "--date", "2026-02-30")
    assert "2026-02-30" in err and "not a real date" in err and "--labels" in err


def test_unknown_label(run_cli):
    err = _fails(run_cli, "solve", SPECS / "calendar_week.yaml", "--labels", "Feb", "31", "Xyz")
    assert "unknown label 'Xyz'" in err


def test_two_labels_of_one_group(run_cli):
    err = _fails(run_cli, "solve", SPECS / "calendar_week.yaml", "--labels", "Feb", "Mar", "Sun")
    assert "both in group 'month'" in err


def test_missing_group_label(run_cli):
    err = _fails(run_cli, "solve", SPECS / "calendar_day.yaml", "--labels", "Feb")
    assert "no label given for group(s) day" in err


def test_unknown_target(run_cli):
    err = _fails(run_cli, "solve", SPECS / "sixpack.yaml", "--target", "circle")
    assert "no target 'circle'" in err and "square" in err


def test_options_that_do_not_apply(run_cli):
    assert "towers" in _fails(run_cli, "solve", SPECS / "calendar_week.yaml", "--size", "3x3")
    assert "towers" in _fails(run_cli, "solve", SPECS / "towers.yaml", "--date", "2026-01-01")
    assert "not a calendar" in _fails(run_cli, "solve", SPECS / "sixpack.yaml",
                                      "--labels", "Jan")


@pytest.mark.parametrize("argv", [
    ["solve", "x.yaml", "--size", "4x"], ["solve", "x.yaml", "--time-limit", "-1"],
    ["solve", "x.yaml", "--price-steps", "0"], ["solve", "x.yaml", "--price-steps", "100001"],
    ["solve", "x.yaml", "--price-scale", "1e3"], ["solve", "x.yaml", "--price-scale", "-5"],
    ["solve", "x.yaml", "--price-method", "newton"],
    ["solve"], ["bogus"],
])
def test_bad_arguments_exit_2(capsys, argv):
    from cpmodels.cli import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_time_limit_without_answer_exits_3(run_cli):
    # The 8x8 box's 129,168 solutions take about half a second to count on a quiet machine
    # (less on a faster one): a hundredth of a second gives no answer on any.
    code, out, _ = run_cli("count", SPECS / "pentominoes_8x8_square.yaml", "--time-limit",
                           "0.01")
    assert code == 3 and "unknown" in out


def test_towers_time_limit_gives_the_best_board_or_unknown(run_cli):
    code, out, _ = run_cli("solve", SPECS / "towers.yaml", "--size", "12x12",
                           "--time-limit", "0.001")
    assert code in (0, 3)
    assert ("unknown" in out) == (code == 3)


@pytest.mark.parametrize(("which", "fragment"), [
    ({"date": 5}, "is not a date"),
    ({"labels": "Jun 7 Tue"}, "give a list of label names"),
    ({"labels": [1, 2, 3]}, "give a list of label names"),
    ({"date": "2026-02-30"}, "(--labels Feb 30)"),
    ({"date": "2026-06-02", "labels": ["Jun", "2", "Tue"]}, "not both"),
    ({"target": "5x12"}, "is a calendar; it has no targets"),
    ({"face_up": True, "labels": ["Jun", "99", "Tue"]}, "unknown label '99'"),
])
def test_a_bad_query_from_python_is_one_clear_error(which, fragment):
    from cpmodels import api
    from cpmodels.errors import InputError

    with pytest.raises(InputError) as caught:
        api.query(SPECS / "calendar_week.yaml", **which)
    assert fragment in str(caught.value)


@pytest.mark.parametrize(("text", "allowed"), [
    (GOOD_PACKING + "packing: 1\n", "allowed fields: board, cells"),
    ((SPECS / "calendar_week.yaml").read_text() + "\ncalendar: 1\n", "allowed fields: name"),
    ((SPECS / "towers.yaml").read_text() + "\ntowers: 1\n", "did you mean 'rows'?"),
    ((SPECS / "designs" / "weekday_pentominoes_tetrominoes.yaml").read_text()
     + "\ndesign: 1\n", "allowed fields: kind, name")])
def test_an_unknown_field_named_as_the_kind_is_one_clear_line(run_cli, tmp_path, text, allowed):
    """A field named like the spec's kind is an unknown field as any other (it is not
    taken for the kind's place in pydantic's report)."""
    kind = text.rsplit("\n", 2)[-2].split(":")[0]
    first = _fails(run_cli, "validate", _write(tmp_path, text)).splitlines()[0]
    assert f"{kind}: unknown field {kind!r}; {allowed}" in first, first
