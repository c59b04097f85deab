"""Puzzle design: candidate piece sets on a calendar board, checked against CP-SAT."""

from __future__ import annotations

import json

import pytest
from conftest import SPECS
from test_design_sets import CORNERS as MIRROR_BOARD
from test_design_sets import oracle_sets

from cpmodels.backends import solve_cover
from cpmodels.design import Design, load_board, run_design
from cpmodels.errors import InputError
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
    assert len(lines) == 7 and json.loads(lines[0])["cpmodels"] == "design verdicts"
    out.write_text("\n".join(lines[:4]) + "\n" + lines[4][:10])  # a killed run
    code, printed, _ = run_cli("design", path, "--out", out, "--resume", "--format", "json")
    result = json.loads(printed)
    assert code == 0 and result["candidates"] == 6
    assert [w["min"] for w in result["working"]] == [19, 10, 7, 2, 1]  # hardest date, best first
    again = out.read_text().splitlines()
    assert again[0] == lines[0] and sorted(again) == sorted(lines)


BAD_DESIGNS = [
    ("kind: calendar\nname: x\nboard: b.yaml\nchoose: []\n", "'kind' must be design"),
    ("kind: design\nname: x\nboard: nope.yaml\nchoose:\n  - {pool: pentominoes, count: 7}\n",
     "board: no calendar spec at"),
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - {pool: heptominoes, count: 7}\n",
     "choose[0].pool: no pool named 'heptominoes'"),
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - {pool: pentominos, count: 7}\n",
     "did you mean 'pentominoes'?"),
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - {pool: 5, count: 7}\n",
     "choose[0].pool: give a pool name"),
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - {pool: pentominoes, count: 13}\n",
     "count asks for 13 distinct pieces, but pentominoes has 12"),
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - pool: [{name: A, shape: '##'}]\n"
     "    count: 2\n", "count asks for 2 distinct pieces, but the pool lists 1"),
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - {pool: pentominoes, count: [3, 1]}\n",
     "min first"),
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - {pool: pentominoes, count: 7}\n"
     "require: all-dates\n", "require"),
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - {pool: pentominoes, count: 7, "
     "size: 3}\n", "unknown field 'size'"),
    # a list's problem alone, not also that a list is no pool's name
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - pool: [{name: Z, shape: '...'}]\n"
     "    count: 1\n", "choose[0].pool[0].shape: the piece has no squares"),
    # a drawn piece is one piece: its copies would leave the others' verdicts wrong
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - {pool: pentominoes, count: 6}\n"
     "  - pool: [{name: D, shape: '##', count: 2}, {name: O6, shape: '###/###'}]\n"
     "    count: 1\n", "choose[1]: piece 'D' has 2 copies; a pool's pieces are drawn one"),
    # a name is one piece wherever it is given
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - {pool: pentominoes, count: 7}\n"
     "  - pool: [{name: L, shape: '##/##'}]\n    count: 1\n",
     "two different pieces are named 'L' (choose[0] and choose[1]); a name is one piece"),
    ("kind: design\nname: x\nboard: b.yaml\nfixed:\n  - {name: L, shape: '###/###'}\n"
     "choose:\n  - {pool: pentominoes, count: 7}\n",
     "two different pieces are named 'L' (fixed and choose[0])"),
    ("kind: design\nname: x\nboard: b.yaml\nchoose:\n  - {pool: pentominoes, count: 7}\n"
     "  - pool: [{name: L, shape: '####/#...', flip: false}]\n    count: 1\n",
     "two different pieces are named 'L'"),
]


@pytest.mark.parametrize(("text", "fragment"), BAD_DESIGNS)
def test_bad_design_files_get_one_clear_line(tmp_path, run_cli, text, fragment):
    (tmp_path / "b.yaml").write_text((SPECS / "calendar_day.yaml").read_text())
    path = tmp_path / "design.yaml"
    path.write_text(text)
    code, _, err = run_cli("design", path)
    assert code == 2 and fragment in err and "Traceback" not in err
    assert err.startswith(f"error: {path}")
    assert "function-after" not in err and "literal[" not in err  # no pydantic internals
    assert len(err.strip().splitlines()) == 1


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
    assert html.count("<table>") == 1 and "<svg" in html and "5 solve every" in html
    assert "Z" in str(result) and "fewest" in str(result)
    best = result.hardest()
    assert best.status == "solved" and best.instance.labels == ("Apr", "6")
    frame = result.to_dataframe()
    assert len(frame) == 6 and frame["works"].sum() == 5
    cut = api.design(path, time_limit=1e-9)  # stopped before the first set
    assert cut.verdicts == []
    gentle = api.design(path, counts=False, difficulty=True, jobs=1)
    assert {tuple(w.pieces) for w in gentle.working} == {tuple(w.pieces)
                                                         for w in result.working}
    assert len(gentle.by_difficulty) == 5 and all(w.min is None for w in gentle.working)
    html = gentle._repr_html_()
    assert html.count("<table>") == 1 and "gentlest first" in html and "<svg" in html
    assert gentle.hardest().instance.labels == gentle.working[0].difficulty_argmax
    assert list(gentle.to_dataframe().columns)[-3:] == ["difficulty", "difficulty_argmax",
                                                         "difficulty_mean"]


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
        [failure] = design._first_failures(compiled, [pick], [chosen])
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


MIRROR_DESIGN = """\
kind: design
name: one_sided_tetrominoes
board: corners.yaml
fixed:
  - {name: V3, shape: "##/#."}
choose:
  - count: 4
    pool:
      - {name: L4, shape: "###/#..", flip: false}
      - {name: J4, shape: "###/..#", flip: false}
      - {name: S4, shape: ".##/##.", flip: false}
      - {name: Z4, shape: "##./.##", flip: false}
      - {name: I4, shape: "####"}
      - {name: O4, shape: "##/##"}
      - {name: T4, shape: "###/.#."}
require: all-combinations
"""


def test_mirror_image_sets_are_decided_once(tmp_path):
    """On a board with a mirror symmetry that maps the required holes onto each other, a
    set of one-sided pieces and its mirror image (L4 for J4, S4 for Z4) solve the same
    combinations: only the first is decided. Deciding every set shows why."""
    (tmp_path / "corners.yaml").write_text(MIRROR_BOARD)
    path = tmp_path / "design.yaml"
    path.write_text(MIRROR_DESIGN)
    spec = load_design(path)
    design = Design(spec, load_board(spec, path), with_counts=False)
    swap = {"L4": "J4", "J4": "L4", "S4": "Z4", "Z4": "S4"}
    every = {tuple(sorted(design.names(c))): design.decide(c).works
             for c, _ in oracle_sets(design)}
    assert len(every) == 35 and any(every.values()) and not all(every.values())
    for names, works in every.items():
        assert every[tuple(sorted(swap.get(n, n) for n in names))] == works
    self_mirrored = sum(tuple(sorted(swap.get(n, n) for n in names)) == names
                        for names in every)
    decided = run_design(design)
    assert design.skipped() == (35 - self_mirrored) // 2 and \
        len(decided) == 35 - design.skipped()
    for verdict in decided:
        assert verdict.works == every[tuple(sorted(verdict.pieces))]
    # Pieces that may turn over make no mirror pairs: L4 and J4 are then one piece.
    free = Design(load_design(path).model_copy(update={"choose": [
        spec.choose[0].model_copy(update={"pool": [p.model_copy(update={"flip": None})
                                                   for p in spec.choose[0].pool]})]}),
        load_board(spec, path), with_counts=False)
    # 16 sets of distinct shapes, 5 once named alike (4 of the 5 free tetrominoes).
    assert sum(1 for _ in free.candidates()) == 5 and free.skipped() == 11


def test_the_same_shapes_under_other_names_are_one_set(tmp_path, run_cli):
    path = tmp_path / "small.yaml"
    path.write_text(SMALL.replace("{pool: pentominoes, count: 1}", """count: 1
    pool:
      - {name: Z, shape: "##./.#./.##"}
      - {name: S, shape: ".##/.#./##."}
      - {name: X, shape: ".#./###/.#."}"""))
    code, text, _ = run_cli("design", path, "--format", "json")
    result = json.loads(text)
    assert code == 0 and result["candidates"] == 2 and result["skipped_as_equal"] == 1
    assert [w["pieces"][-1] for w in result["working"]] == ["Z"]


def test_difficulty_ranks_the_working_sets_and_matches_a_sweep(tmp_path, run_cli):
    from cpmodels.sweep import run_sweep

    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    out = tmp_path / "sets.jsonl"
    code, text, _ = run_cli("design", path, "--difficulty", "--no-counts", "--format",
                            "json", "--out", out)
    result = json.loads(text)
    assert code == 0 and len(result["working"]) == 5
    assert all(w["min"] is None for w in result["working"])  # --no-counts
    hardest = [w["difficulty"] for w in result["by_difficulty"]]
    assert hardest == sorted(hardest) and len(hardest) == 5
    commercial = next(w for w in result["by_difficulty"] if w["pieces"][-1] == "Z")
    spec = load_design(path)
    design = Design(spec, load_board(spec, path))
    chosen = next(c for c in design.candidates() if design.names(c)[-1] == "Z")
    rows = run_sweep(design.set_spec(chosen), tmp_path / "z.csv", difficulty=True,
                     jobs=1).rows
    scores = {labels: row.difficulty for labels, row in rows.items() if row.real_date}
    assert commercial["difficulty"] == max(scores.values())
    assert tuple(commercial["difficulty_argmax"]) == max(scores, key=scores.get)
    assert commercial["difficulty_mean"] == round(sum(scores.values()) / len(scores))
    # The lines resume with their difficulties.
    code, again, _ = run_cli("design", path, "--difficulty", "--no-counts", "--format",
                             "json", "--out", out, "--resume")
    assert code == 0 and json.loads(again)["by_difficulty"] == result["by_difficulty"]


@pytest.mark.parametrize("line", ['{"pieces": "O6", "works": true}', '{"works": true}',
                                  '[1, 2]', '{"pieces": ["O6"], "works": 3}',
                                  '{"pieces": ["O6"], "works": true, "first_failure": null, '
                                  '"min": null, "argmin": null, "max": null, "total": null, '
                                  '"colour": 1}'])
def test_a_resumed_file_with_a_foreign_line_is_refused(tmp_path, run_cli, line):
    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    out = tmp_path / "sets.jsonl"
    out.write_text(_question_line(path) + "\n" + line + "\n")
    code, _, err = run_cli("design", path, "--out", out, "--resume")
    assert code == 2 and "line 2 is no design verdict" in err and "Traceback" not in err


def _question_line(path, **options):
    """The first line a design --out run of the design file ``path`` writes."""
    from cpmodels.design.kept import design_question

    spec = load_design(path)
    return design_question(Design(spec, load_board(spec, path)), **options).line()


def test_the_order_of_dates_is_learnt_from_more_sets_in_a_large_design(small):
    LEARN_FROM, LEARN_MOST = 64, 320  # (the core's cpcore_design_learning_sets)

    assert small.learning_sets() == LEARN_FROM  # 12 candidates: the floor
    weekday = SPECS / "designs" / "weekday_pentominoes_tetrominoes.yaml"
    spec = load_design(weekday)
    big = Design(spec, load_board(spec, weekday))
    assert LEARN_FROM < big.learning_sets() == big.count_candidates() // 25 <= LEARN_MOST


@pytest.mark.parametrize(("draws", "fragment"), [
    ("  - {pool: pentominoes, count: 2}\n", "41 for the pieces; the fixed pieces cover 0 "
     "and with the draws the sets cover 10"),
    ("  - {pool: tetrominoes, count: [1, 5]}\n", "the sets cover 4, 8, 12, 16, 20"),
    ("  - {pool: pentominoes, count: [0, 12]}\n", "the sets cover 0 to 60 (never 41)"),
])
def test_a_design_whose_sets_cannot_cover_the_board_says_why(tmp_path, run_cli, draws,
                                                              fragment):
    path = tmp_path / "design.yaml"
    path.write_text(f"kind: design\nname: x\nboard: {SPECS / 'calendar_day.yaml'}\n"
                    f"choose:\n{draws}")
    code, out, err = run_cli("design", path)
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.startswith(f"error: {path}: no set the design allows covers the board: "
                          "calendar_day has 43 cells less 2 left open for the labels")
    assert fragment in err and len(err.strip().splitlines()) == 1
    with pytest.raises(InputError, match="covers the board"):
        from cpmodels import api

        api.design(path)


@pytest.mark.parametrize("line", [
    "[" * 100_000,  # nested past Python's recursion limit
    '{"pieces": ["A"], "works": true, "first_failure": null, "min": ' + "9" * 5000 + "}",
    '{"pieces": ["A"], "works": true, "first_failure": null, "argmin": null, "min": NaN}',
    '{"pieces": ["A"], "works": true, "first_failure": null, "argmin": null, "min": -1}',
])
def test_a_verdicts_file_that_does_not_read_gets_one_line(tmp_path, run_cli, line):
    design = SPECS / "designs" / "apad_rectangle_pentominoes.yaml"
    verdicts = tmp_path / "verdicts.jsonl"
    verdicts.write_text(_question_line(design) + "\n" + line + "\n")
    for argv in (["design", design, "--out", verdicts, "--resume"],
                 ["make", design, "--set", "1", "--verdicts", verdicts, "--out",
                  tmp_path / "made"]):
        code, _, err = run_cli(*argv)
        assert code == 2 and "Traceback" not in err
        assert err.strip().splitlines()[-1] == f"error: {verdicts}: line 2 is no design " \
                                               "verdict; give another --out"


def test_the_shared_cover_types_its_options_and_items(small):
    """The cover a design shares holds pieces, one slack option per label (its cell and its
    group's slack item) and one left-out option per optional piece (its piece item, no
    cell), each typed by kind: no marker in a name says which is which."""
    from cpmodels.cover import ItemKind
    from cpmodels.geometry import OptionKind

    design = small
    compiled = design._cover(False)
    cover = compiled.plan.cover
    kinds = [p.kind for p in cover.placements]
    assert kinds.count(OptionKind.SLACK) == len(design.board.label_cells)
    assert sorted(j for j, kind in enumerate(kinds)
                  if kind is OptionKind.LEFT_OUT) == sorted(compiled.left_out.values())
    for j, placement in enumerate(cover.placements):
        items = [cover.items[i].kind for i in cover.options[j]]
        if placement.kind is OptionKind.SLACK:
            assert items == [ItemKind.CELL, ItemKind.SLACK]
            assert placement.piece in design.board.groups and len(placement.cells) == 1
        elif placement.kind is OptionKind.LEFT_OUT:
            assert items == [ItemKind.PIECE] and placement.cells == ()
        else:
            assert items[-1] is ItemKind.PIECE and set(items[:-1]) == {ItemKind.CELL}
    pieces = [it for it in cover.items if it.kind is ItemKind.PIECE]
    assert [it.name for it in pieces] == [p.name for p in design.pieces]


ONE_SIDE_UP = """\
kind: design
name: one_side_up
board: corners.yaml
fixed:
  - {name: V3, shape: "##/#."}
  - {name: I4, shape: "####"}
  - {name: O4, shape: "##/##"}
  - {name: L4, shape: "###/#.."}
choose:
  - count: 1
    pool:
      - {name: Z4, shape: "##./.##"}
require: all-combinations
face_up: true
"""


def test_face_up_sides_say_which_side_is_up_by_a_field(tmp_path, run_cli):
    """Face up, the set works with Z4 turned over (as S4: with Z4 as drawn a corner has no
    solution). The side is typed (``mirrored``); the verdict line writes it ``Z4~`` and reads
    it back as the same side, and a piece whose own name ends in the mark is that piece's
    side as drawn, told apart by the piece the side belongs to."""
    from cpmodels.design import Side, Verdict

    (tmp_path / "corners.yaml").write_text(MIRROR_BOARD)
    path = tmp_path / "design.yaml"
    path.write_text(ONE_SIDE_UP)
    spec = load_design(path)
    [verdict] = run_design(Design(spec, load_board(spec, path), with_counts=False))
    assert verdict.works and verdict.face_up_sides == [
        Side("V3"), Side("I4"), Side("O4"), Side("L4"), Side("Z4", mirrored=True)]
    line = verdict.as_dict()
    assert line["face_up_sides"] == ["V3", "I4", "O4", "L4", "Z4~"]
    assert Verdict.from_dict(json.loads(json.dumps(line))) == verdict
    code, out, _ = run_cli("design", path, "--no-counts", "--format", "json")
    assert code == 0 and json.loads(out)["working"][0]["face_up_sides"][-1] == "Z4~"
    tilde = Verdict.from_dict({**line, "pieces": ["V3", "I4", "O4", "L4", "Z4~"]})
    assert tilde.face_up_sides is not None and tilde.face_up_sides[-1] == Side("Z4~")
    for sides in (["V3"], ["V3", "I4", "O4", "L4", "S4"]):
        with pytest.raises(ValueError):
            Verdict.from_dict({**line, "face_up_sides": sides})


def _replaced(lines, index, old, new):
    assert old in lines[index]
    return [*lines[:index], lines[index].replace(old, new, 1), *lines[index + 1:]]


DAMAGED_VERDICTS = {  # what a damaged file holds, from the lines of a finished one
    "unknown-piece": lambda v: _replaced(v, 1, '"I"', '"QQ"'),
    "piece-twice": lambda v: _replaced(v, 1, '"I"', '"L"'),
    "short": lambda v: _replaced(v, 1, ', "I"', ""),
    "reordered": lambda v: _replaced(v, 1, '"O6", "L"', '"L", "O6"'),
    "twice-another-min": lambda v: [*v, v[1].replace('"min": 2', '"min": 1')],
    "twice-the-same": lambda v: [*v, v[2]],
    "no-total": lambda v: _replaced(v, 1, ', "total": 20330', ""),
    "no-counts": lambda v: _replaced(v, 1, '"min": 2', '"min": null'),
    "min-over-max": lambda v: _replaced(v, 1, '"min": 2', '"min": 400'),
    "failure-not-required": lambda v: _replaced(v, 6, '["Jul", "15"]', '["Feb", "31"]'),
    "failure-with-counts": lambda v: _replaced(v, 6, '"total": null', '"total": 3'),
    "difficulty-not-asked": lambda v: _replaced(
        v, 2, '}', ', "difficulty": 1, "difficulty_argmax": ["Jul", "2"], '
        '"difficulty_mean": 1}'),
}


@pytest.mark.parametrize("damage", list(DAMAGED_VERDICTS))
def test_a_resumed_design_decides_again_the_lines_that_do_not_fit(tmp_path, run_cli, damage):
    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    out = tmp_path / "sets.jsonl"
    assert run_cli("design", path, "--out", out, "--jobs", "1")[0] == 0
    fresh = out.read_text().splitlines()
    out.write_text("\n".join(DAMAGED_VERDICTS[damage](fresh)) + "\n")
    code, printed, err = run_cli("design", path, "--out", out, "--resume", "--jobs", "1",
                                 "--format", "json")
    assert code == 0, err
    assert sorted(out.read_text().splitlines()) == sorted(fresh)
    assert [w["min"] for w in json.loads(printed)["working"]] == [19, 10, 7, 2, 1]


def test_the_first_sets_alone_get_the_whole_designs_verdicts(small):
    """``first=N`` decides the first N candidates, after the order learnt as for the
    whole design: their verdicts are the whole run's."""
    whole = run_design(small, jobs=1)
    spec, board = small.spec, small.board
    few = run_design(Design(spec, board), jobs=1, first=3)
    assert len(whole) > 3 and [v.as_dict() for v in few] == [v.as_dict() for v in whole[:3]]
