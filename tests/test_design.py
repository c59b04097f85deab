"""Puzzle design: candidate piece sets on a calendar board, checked against CP-SAT."""

from __future__ import annotations

import json

import pytest
from conftest import SPECS

from cpmodels.backends import solve_cover
from cpmodels.design import Design, load_board, run_design
from cpmodels.instance import packing_instance
from cpmodels.pools import POOLS, free_polyominoes, pool
from cpmodels.query import Query
from cpmodels.spec.loading import load_design

SMALL = f"""\
kind: design
name: one_more_pentomino
board: {SPECS / "calendar_day.yaml"}
fixed:
  - {{name: O6, shape: "###/###"}}
  - {{name: L, shape: "####/#..."}}
  - {{name: N, shape: ".###/##.."}}
  - {{name: P, shape: "##./###"}}
  - {{name: U, shape: "#.#/###"}}
  - {{name: V, shape: "###/#../#.."}}
  - {{name: Y, shape: "####/..#."}}
choose:
  - {{pool: pentominoes, count: 1}}
"""


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    spec = load_design(path)
    return Design(spec, load_board(spec, path))


def test_pools_hold_every_free_polyomino():
    assert [len(free_polyominoes(n)) for n in range(1, 9)] == [1, 1, 2, 5, 12, 35, 108, 369]
    assert {name for name, _ in pool("pentominoes")} == set("FILNPTUVWXYZ")
    assert [name for name, _ in pool("tetrominoes")] == ["I4", "L4", "T4", "O4", "S4"]
    assert all(len(pool(name)) for name in POOLS)


def test_verdicts_agree_with_cp_sat(small):
    verdicts = {tuple(v.pieces[7:]): v for v in run_design(small)}
    assert set(verdicts) == {("F",), ("I",), ("T",), ("W",), ("X",), ("Z",)}  # L N P U V Y fixed
    commercial = verdicts[("Z",)]  # the A-Puzzle-A-Day set: the reference figures
    assert commercial.works and (commercial.min, commercial.argmin) == (7, ("Oct", "6"))
    assert commercial.total == 24405 and commercial.max == 216
    assert [k for k, v in verdicts.items() if not v.works] == [("X",)]
    sets = {tuple(small.names(chosen)[7:]): chosen for chosen in small.candidates()}
    for key, verdict in verdicts.items():
        spec = small.set_spec(sets[key])
        if verdict.works:  # its hardest date has a solution, by CP-SAT too
            dates = [verdict.argmin]
            expected = "solved"
        else:  # its first failure has none, by CP-SAT too
            dates = [verdict.first_failure]
            expected = "unsolvable"
        for labels in dates:
            cover = packing_instance(Query.of(spec, labels=list(labels))).cover
            assert solve_cover("cpsat", cover).status == expected, (key, labels)


def test_design_cli_writes_lines_resumes_and_ranks(tmp_path, run_cli):
    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    out = tmp_path / "sets.jsonl"
    code, text, _ = run_cli("design", path, "--out", out)
    assert code == 0 and "6 candidate sets, 5 solve every required combination (366)" in text
    lines = out.read_text().splitlines()
    assert len(lines) == 6
    out.write_text("\n".join(lines[:3]) + "\n" + lines[3][:10])  # a killed run
    code, printed, _ = run_cli("design", path, "--out", out, "--resume", "--format", "json")
    result = json.loads(printed)
    assert code == 0 and result["candidates"] == 6
    assert [w["min"] for w in result["working"]] == [19, 10, 7, 2, 1]  # hardest date, best first
    assert sorted(out.read_text().splitlines()) == sorted(lines)


BAD_DESIGNS = [
    ("kind: calendar\nname: x\nboard: b.yaml\nchoose: []\n", "'kind' must be design"),
    ("kind: design\nname: x\nboard: nope.yaml\nchoose:\n  - {pool: pentominoes, count: 7}\n",
     "board: no calendar spec at"),
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - {pool: heptominoes, count: 7}\n",
     "choose[0].pool"),
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - {pool: pentominoes, count: [3, 1]}\n",
     "min first"),
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - {pool: pentominoes, count: 7}\n"
     "require: all-dates\n", "require"),
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - {pool: pentominoes, count: 7, "
     "size: 3}\n", "unknown field 'size'"),
]


@pytest.mark.parametrize(("text", "fragment"), BAD_DESIGNS)
def test_bad_design_files_get_one_clear_line(tmp_path, run_cli, text, fragment):
    (tmp_path / "b.yaml").write_text((SPECS / "calendar_day.yaml").read_text())
    path = tmp_path / "design.yaml"
    path.write_text(text)
    code, _, err = run_cli("design", path)
    assert code == 2 and fragment in err and "Traceback" not in err
    assert err.startswith(f"error: {path}")


def test_a_design_needs_a_calendar_board(tmp_path, run_cli):
    path = tmp_path / "design.yaml"
    path.write_text(f"kind: design\nname: x\nboard: {SPECS / 'towers.yaml'}\n"
                    "choose:\n  - {pool: pentominoes, count: 7}\n")
    code, _, err = run_cli("design", path)
    assert code == 2 and "is a towers spec; a design needs a calendar board" in err


def test_api_design_ranks_draws_and_converts(tmp_path):
    from cpmodels import api

    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    result = api.design(path)
    assert [w.pieces[-1] for w in result.working] == ["F", "T", "Z", "I", "W"]
    assert result.to_dict()["candidates"] == 6
    html = result._repr_html_()
    assert "<table>" in html and "<svg" in html and "5 of 6 sets" in html
    best = result.hardest()
    assert best.status == "solved" and best.instance.labels == ("Apr", "6")
    frame = result.to_dataframe()
    assert len(frame) == 6 and frame["works"].sum() == 5
    cut = api.design(path, time_limit=1e-9)  # stopped before the first set
    assert cut.verdicts == []


def test_the_bundled_designs_validate(run_cli):
    designs = sorted((SPECS / "designs").glob("*.yaml"))
    code, out, err = run_cli("validate", *designs)
    assert code == 0 and len(designs) >= 3 and err == ""
    assert out.count(": ok (design '") == len(designs)


def test_face_up_tries_every_choice_of_sides(tmp_path):
    """The commercial set face up: whichever side of each piece is up, some date has no
    solution; each side choice's failing date is checked by CP-SAT."""
    import itertools

    path = tmp_path / "small.yaml"
    path.write_text(SMALL + "face_up: true\n")
    spec = load_design(path)
    design = Design(spec, load_board(spec, path))
    verdicts = {tuple(v.pieces[7:]): v for v in run_design(design)}
    assert not any(v.works for v in verdicts.values())
    chosen = next(c for c in design.candidates() if design.names(c)[7:] == ["Z"])
    compiled = design._cover(True)
    picks = list(itertools.product(*(compiled.sides[i] for i in chosen)))
    assert len(picks) == 2 ** 5  # L N P Y Z are chiral; O6 U V are not
    for pick in picks:
        failure = design._first_failure(compiled, design._left_out(compiled, pick),
                                        design._regions(chosen))
        assert failure is not None
        sided = design.board.model_copy(update={"pieces": [compiled.pieces[k] for k in pick]})
        cover = packing_instance(Query.of(sided, labels=list(failure), face_up=True)).cover
        assert solve_cover("cpsat", cover).status == "unsolvable", (pick, failure)


def test_worker_processes_give_the_same_verdicts(tmp_path):
    path = tmp_path / "small.yaml"
    path.write_text(SMALL.replace("count: 1}", "count: [1, 2]}").replace(
        '  - {name: Y, shape: "####/..#."}\n', ""))  # 6 fixed: only draws of 2 fill the board
    spec = load_design(path)
    alone = run_design(Design(spec, load_board(spec, path)), jobs=1)
    shared = run_design(Design(spec, load_board(spec, path)), jobs=2)
    assert len(alone) == 21 and [v.as_dict() for v in shared] == [v.as_dict() for v in alone]
    assert any(v.works for v in alone) and any(not v.works for v in alone)
