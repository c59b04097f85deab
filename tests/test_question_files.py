"""Files that remember their question: a sweep's CSV and a design's verdicts start with the
question they answer, and are used only by a run that asks it; a file is checked whole
before anything in it changes, and damaged rows are counted again in their places."""

from __future__ import annotations

import json
import os

import pytest
from conftest import SPECS, cpu_seconds
from test_design import SMALL

from cpmodels import api
from cpmodels.errors import InputError

TINY = """\
kind: calendar
name: {name}
board:
  - "a b 1 2"
  - "3 x y ."
  - ". . . ."
groups:
  letter: [a, b]
  digit: ["1", "2", "3"]
  extra: [x, y]
pieces:
  - {{name: {piece}, shape: "{shape}", count: 3}}
"""


@pytest.fixture
def tiny(tmp_path):
    """A tiny calendar (12 combinations), and another with one piece changed."""
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY.format(name="tiny", piece="L", shape="##/#."))
    other = tmp_path / "tiny_i.yaml"
    other.write_text(TINY.format(name="tiny_i", piece="I", shape="###"))
    return path, other


def _fresh(run_cli, spec, out, *options):
    """The file an uninterrupted sweep writes."""
    code, _, err = run_cli("sweep", spec, "--out", out, *options)
    assert code == 0, err
    return out.read_bytes()


def _refused(run_cli, argv, path, fragment):
    """``argv`` exits 2 with one line holding ``fragment``, leaving ``path`` as it was."""
    before = path.read_bytes() if path.is_file() else None
    code, _, err = run_cli(*argv)
    assert code == 2 and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and fragment in err, err
    assert (path.read_bytes() if path.is_file() else None) == before


def test_a_sweep_does_not_resume_the_file_of_another_spec(run_cli, tmp_path, tiny):
    path, other = tiny
    out = tmp_path / "rows.csv"
    _fresh(run_cli, other, out)
    lines = out.read_text().splitlines()
    assert lines[0].startswith("# cpmodels sweep rows, question ") and \
        lines[0].endswith(": spec tiny_i") and lines[1] == "letter,digit,extra,real_date,count"
    out.write_text("\n".join(lines[:6]) + "\n")  # the same columns, other counts
    _refused(run_cli, ["sweep", path, "--out", out, "--resume"], out,
             f"{out} answers another question (spec tiny_i) than this run (spec tiny); "
             "give another --out")
    # Face up asks another question too.
    _fresh(run_cli, path, out)
    _refused(run_cli, ["sweep", path, "--out", out, "--resume", "--face-up"], out,
             "answers another question (spec tiny) than this run (spec tiny, face up)")
    with pytest.raises(InputError, match="answers another question"):
        api.SweepResult.read_csv(other, out)
    with pytest.raises(InputError, match=r"\(spec tiny\) than this run \(spec tiny, face up\)"):
        api.SweepResult.read_csv(path, out, face_up=True)
    assert api.SweepResult.read_csv(path, out).summary.combinations == 12
    _fresh(run_cli, path, out, "--face-up")
    assert api.SweepResult.read_csv(path, out, face_up=True).summary.combinations == 12


def test_the_question_hashes_the_compiled_puzzle_not_its_name(tmp_path):
    from cpmodels.questions import sweep_question
    from cpmodels.spec import load_spec

    day = load_spec(SPECS / "calendar_day.yaml")
    renamed = day.model_copy(update={"name": "another_name"})
    assert sweep_question(renamed).id == sweep_question(day).id
    turned = day.model_copy(update={"pieces": day.pieces[1:] + day.pieces[:1]})
    assert sweep_question(turned).id != sweep_question(day).id  # the pieces' order is compiled
    ids = {sweep_question(day, face_up=f, prove=p, difficulty=d).id
           for f in (False, True) for p in (False, True) for d in (False, True)}
    assert len(ids) == 8


@pytest.mark.parametrize("first", [
    "letter,digit,extra,real_date,count",  # an older version's file: no question line
    '{"cpmodels": "design verdicts", "question": "0123456789abcdef", "about": "design x"}',
    "# cpmodels sweep rows, question: no hash",
    "# some other program",
])
def test_a_sweep_file_without_its_question_line_is_refused(run_cli, tmp_path, tiny, first):
    path, _ = tiny
    out = tmp_path / "rows.csv"
    full = _fresh(run_cli, path, out).decode().splitlines()
    out.write_text("\n".join([first, *full[1:]]) + "\n")
    fragment = "holds design verdicts, not sweep rows" if "verdicts" in first else \
        "has no question line"
    _refused(run_cli, ["sweep", path, "--out", out, "--resume"], out, fragment)
    with pytest.raises(InputError, match=fragment):
        api.SweepResult.read_csv(path, out)


@pytest.mark.parametrize(("content", "fragment"), [
    (b"month,day,real_date,count\nJan,1,true,64", "has no question line"),
    (b"notes with no final newline", "it has no question line"),
    (bytes(range(256)) * 4, "has no question line"),
    (b"caf\xe9\n", "it is not UTF-8 text"),
], ids=["old-file-cut", "one-line", "binary", "not-utf8"])
def test_a_sweep_refuses_a_file_before_changing_it(run_cli, tmp_path, tiny, content,
                                                    fragment):
    path, _ = tiny
    out = tmp_path / "rows.csv"
    out.write_bytes(content)
    _refused(run_cli, ["sweep", path, "--out", out, "--resume"], out, fragment)


def test_the_question_must_agree_with_the_columns(run_cli, tmp_path, tiny):
    path, _ = tiny
    out = tmp_path / "rows.csv"
    lines = _fresh(run_cli, path, out).decode().splitlines()
    out.write_text("\n".join([lines[0], lines[1] + ",difficulty", *lines[2:]]) + "\n")
    _refused(run_cli, ["sweep", path, "--out", out, "--resume"], out,
             "has columns letter,digit,extra,real_date,count,difficulty, not "
             "letter,digit,extra,real_date,count")


@pytest.mark.parametrize("damage", [
    lambda row: row.rsplit(",", 1)[0] + ",abc",
    lambda row: row.rsplit(",", 1)[0] + ",1\0",
    lambda row: row.rsplit(",", 1)[0] + "," + "9" * 21,
    lambda row: row.rsplit(",", 1)[0] + ",-5",
    lambda row: row + ",1,2",  # six fields
    lambda row: row.rsplit(",", 1)[0] + "," + "7" * 200_000,
    lambda row: row.rsplit(",", 1)[0] + ',"' + "7" * 200_000 + '"',
    lambda row: row.replace("true", "maybe").replace("false", "maybe"),
    lambda row: row.replace("true", "x").replace("false", "true").replace("x", "false"),
    lambda row: row.replace("a,", "c,", 1),  # a label the spec does not have
    lambda row: '"' + row,  # a stray quote, which must not swallow the rows after it
    lambda row: "",
    lambda row: row[:-1] + "\udcff",  # a byte that is not UTF-8
    lambda row: row + "\n" + row + "1",  # the combination twice, with two counts
], ids=["abc", "nul", "21-digits", "negative", "six-fields", "long", "long-quoted",
        "real-date", "real-date-swapped", "no-label", "stray-quote", "empty", "not-utf8",
        "twice"])
def test_damaged_rows_are_counted_again_in_their_places(run_cli, tmp_path, tiny, damage):
    path, _ = tiny
    out = tmp_path / "rows.csv"
    full = _fresh(run_cli, path, out)
    lines = full.decode().splitlines()
    lines[5] = damage(lines[5])  # a row in the middle
    del lines[9]  # and one missing
    out.write_bytes(("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))
    read = api.SweepResult.read_csv(path, out)  # the rows that read, and no other
    assert list(read.rows) == [labels for labels in read.spec.label_combinations()
                               if labels in read.rows]
    assert len(read.rows) == 12 - 2  # the damaged row and the missing one
    code, _, err = run_cli("sweep", path, "--out", out, "--resume")
    assert code == 0 and "Traceback" not in err, err
    assert out.read_bytes() == full
    assert api.SweepResult.read_csv(path, out).summary.combinations == 12


@pytest.mark.parametrize("kept", [
    lambda lines: "",  # an empty file: a run killed as it began
    lambda lines: lines[0][:20],  # its question line cut short
    lambda lines: lines[0] + "\n",  # the question alone
    lambda lines: "\n".join(lines[:2]) + "\n",  # the question and columns
    lambda lines: "\r\n".join(lines[:7]) + "\r\n",  # CRLF line ends
], ids=["empty", "cut-question", "question", "columns", "crlf"])
def test_a_sweep_resumes_what_a_killed_run_left_to_the_same_file(run_cli, tmp_path, tiny,
                                                                   kept):
    path, _ = tiny
    out = tmp_path / "rows.csv"
    full = _fresh(run_cli, path, out)
    out.write_text(kept(full.decode().splitlines()), newline="")
    code, _, err = run_cli("sweep", path, "--out", out, "--resume")
    assert code == 0, err
    assert out.read_bytes() == full


def test_the_readers_read_the_file_with_pandas_too(run_cli, tmp_path, tiny):
    pd = pytest.importorskip("pandas")
    path, _ = tiny
    out = tmp_path / "rows.csv"
    _fresh(run_cli, path, out)
    frame = pd.read_csv(out, comment="#")
    assert list(frame.columns) == ["letter", "digit", "extra", "real_date", "count"]
    assert len(frame) == 12
    assert frame["count"].tolist() == [row.count for row in
                                       api.SweepResult.read_csv(path, out).rows.values()]


@pytest.mark.parametrize("kind", ["directory", "link", "fifo"])
def test_a_resumed_sweep_file_must_be_a_regular_file(run_cli, tmp_path, tiny, kind):
    path, _ = tiny
    out = tmp_path / "rows.csv"
    if kind == "directory":
        out.mkdir()
    elif kind == "link":
        _fresh(run_cli, path, tmp_path / "real.csv")
        out.symlink_to(tmp_path / "real.csv")
    else:
        os.mkfifo(out)
    code, _, err = run_cli("sweep", path, "--out", out, "--resume")
    assert code == 2 and "Traceback" not in err and str(out) in err
    assert len(err.strip().splitlines()) == 1


def test_a_huge_sparse_file_is_refused_without_reading_it(run_cli, tmp_path, tiny):
    path, _ = tiny
    out = tmp_path / "rows.csv"
    with out.open("wb") as handle:  # sparse: no disk taken
        handle.truncate(2_000_000_000)
    before = out.stat()
    start = cpu_seconds()
    code, _, err = run_cli("sweep", path, "--out", out, "--resume")
    assert code == 2 and err.strip() == f"error: cannot read {out}: a line is over " \
        "1,000,000 bytes: not a file of sweep rows"
    assert cpu_seconds() - start < 5
    after = out.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


# -- design verdicts (SMALL: a design of 6 candidate sets, named one_more_pentomino) -----



@pytest.fixture(scope="module")
def unranked(tmp_path_factory):
    """A small design (6 candidate sets), its face-up twin, and the verdicts of a
    ``--no-counts`` run of the first."""
    from cpmodels.cli import main

    folder = tmp_path_factory.mktemp("designs")
    path, face_up = folder / "small.yaml", folder / "small_up.yaml"
    path.write_text(SMALL)
    face_up.write_text(SMALL + "face_up: true\n")
    out = folder / "sets.jsonl"
    assert main(["design", str(path), "--no-counts", "--out", str(out), "--quiet"]) == 0
    return path, face_up, out.read_bytes()


def test_verdicts_start_with_their_question(tmp_path, unranked):
    _, _, verdicts = unranked
    lines = verdicts.decode().splitlines()
    first = json.loads(lines[0])
    assert set(first) == {"cpmodels", "question", "about"}
    assert first["cpmodels"] == "design verdicts"
    assert first["about"] == "design one_more_pentomino, no counts"
    assert len(first["question"]) == 16 and len(lines) == 1 + 6


def test_a_design_does_not_resume_verdicts_of_another_question(run_cli, tmp_path, unranked):
    path, face_up, verdicts = unranked
    out = tmp_path / "sets.jsonl"
    out.write_bytes(verdicts)
    _refused(run_cli, ["design", path, "--out", out, "--resume"], out,
             f"{out} answers another question (design one_more_pentomino, no counts) than this run "
             "(design one_more_pentomino); give another --out")
    _refused(run_cli, ["design", face_up, "--no-counts", "--out", out, "--resume"], out,
             "than this run (design one_more_pentomino, face up, no counts)")
    _refused(run_cli, ["design", path, "--no-counts", "--difficulty", "--out", out,
                       "--resume"], out,
             "than this run (design one_more_pentomino, no counts, difficulty)")


def test_verdicts_without_counts_cannot_rank_a_set_to_make(run_cli, tmp_path, unranked):
    path, _, verdicts = unranked
    out = tmp_path / "sets.jsonl"
    out.write_bytes(verdicts)
    _refused(run_cli, ["make", path, "--set", "1", "--verdicts", out, "--out",
                       tmp_path / "made"], out,
             f"the verdicts in {out} were written with --no-counts and cannot rank the sets")
    with pytest.raises(InputError, match="cannot rank the sets"):
        api.make(path, tmp_path / "made", rank=1, verdicts=out)
    assert not (tmp_path / "made").exists()


def test_make_refuses_the_verdicts_of_another_design(run_cli, tmp_path, unranked):
    path, _, verdicts = unranked
    out = tmp_path / "sets.jsonl"
    lines = verdicts.decode().splitlines()
    record = json.loads(lines[0]) | {"question": "0" * 16, "about": "design other"}
    out.write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    _refused(run_cli, ["make", path, "--set", "1", "--verdicts", out, "--out",
                       tmp_path / "made"], out,
             "answers another question (design other) than this run (design one_more_pentomino)")
    out.write_text("\n".join(lines[1:]) + "\n")  # an older version's verdicts
    _refused(run_cli, ["make", path, "--set", "1", "--verdicts", out, "--out",
                       tmp_path / "made"], out, "has no question line")


@pytest.mark.parametrize(("content", "fragment"), [
    (b"a text file with no final newline", "it has no question line"),
    (b"line one\nline two, with no final newline", "has no question line"),
    (bytes(range(256)) * 4, "has no question line"),  # a binary file
    (bytes(range(11, 256)) * 4, "it has no question line"),  # no line end at all
    (b"caf\xe9\n", "it is not UTF-8 text"),
    (b"[1, 2]\n", "has no question line"),  # JSON, but not a question
    (b'"design verdicts"\n', "has no question line"),
    (b'{"cpmodels": "design verdicts", "question": 5}\n', "has no question line"),
    (b"# cpmodels sweep rows, question 0123456789abcdef: spec tiny\nx,y\n",
     "holds sweep rows, not design verdicts"),
], ids=["one-line", "two-lines", "binary", "binary-one-line", "not-utf8", "list", "string",
        "number", "sweep-file"])
def test_a_design_refuses_a_file_whole_before_changing_it(run_cli, tmp_path, unranked,
                                                           content, fragment):
    path, _, _ = unranked
    out = tmp_path / "sets.jsonl"
    out.write_bytes(content)
    _refused(run_cli, ["design", path, "--no-counts", "--out", out, "--resume"], out,
             fragment)  # and nothing cut


@pytest.mark.parametrize("kept", [
    lambda lines: "",
    lambda lines: lines[0][:30],  # the question line cut short
    lambda lines: lines[0] + "\n",
    lambda lines: "\n".join(lines[:4]) + "\n" + lines[4][:10],  # a line cut short
    lambda lines: "\r\n".join(lines[:4]) + "\r\n",
], ids=["empty", "cut-question", "question", "cut-line", "crlf"])
def test_a_design_resumes_what_a_killed_run_left(run_cli, tmp_path, unranked, kept):
    path, _, verdicts = unranked
    out = tmp_path / "sets.jsonl"
    lines = verdicts.decode().splitlines()
    out.write_text(kept(lines), newline="")
    code, _, err = run_cli("design", path, "--no-counts", "--out", out, "--resume")
    assert code == 0, err
    again = out.read_text().replace("\r\n", "\n").splitlines()
    assert again[0] == lines[0] and sorted(again) == sorted(lines)


# -- enumerate's solutions ----------------------------------------------------------------

DAY = SPECS / "calendar_day.yaml"


def _placements(path):
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["cpmodels"] == "enumerate solutions"
    return [json.loads(line)["placements"] for line in lines[1:]]


def test_enumerate_resumes_only_the_solutions_of_its_question(run_cli, tmp_path):
    out = tmp_path / "sols.jsonl"
    assert run_cli("enumerate", DAY, "--labels", "Oct", "6", "--out", out, "--limit", "3",
                   "--backend", "sat")[0] == 0
    first = json.loads(out.read_text().splitlines()[0])
    assert first["about"] == "spec calendar_day, labels Oct 6, backend sat"
    # Another backend finds the solutions in another order: the kept ones cannot be skipped.
    _refused(run_cli, ["enumerate", DAY, "--labels", "Oct", "6", "--out", out, "--resume",
                       "--limit", "5"], out,
             "answers another question (spec calendar_day, labels Oct 6, backend sat) than "
             "this run (spec calendar_day, labels Oct 6, backend engine)")
    _refused(run_cli, ["enumerate", DAY, "--labels", "Oct", "6", "--face-up", "--out", out,
                       "--resume", "--backend", "sat"], out, "answers another question")
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[1:]) + "\n")  # an older version's file
    _refused(run_cli, ["enumerate", DAY, "--labels", "Oct", "6", "--out", out, "--resume",
                       "--backend", "sat"], out, "has no question line")
    out.write_bytes(b"notes with no final newline")
    _refused(run_cli, ["enumerate", DAY, "--labels", "Oct", "6", "--out", out, "--resume"],
             out, "has no question line")


@pytest.mark.parametrize("kept", [0, 1, 3])
def test_enumerate_resumes_a_killed_run_as_an_uninterrupted_one(run_cli, tmp_path, kept):
    full, out = tmp_path / "full.jsonl", tmp_path / "sols.jsonl"
    assert run_cli("enumerate", DAY, "--labels", "Oct", "6", "--out", full)[0] == 0
    lines = full.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:1 + kept]) + lines[1 + kept][:12])  # a line cut short
    code, text, err = run_cli("enumerate", DAY, "--labels", "Oct", "6", "--out", out,
                              "--resume")
    assert code == 0 and "7 solutions written" in text, err
    assert out.read_text().splitlines()[0] == lines[0].rstrip("\n")
    assert _placements(out) == _placements(full)


def _swapped(lines):
    return [*lines[:2], lines[3], lines[2], *lines[4:]]


@pytest.mark.parametrize("damage", [
    lambda lines: [*lines[:3], lines[2], *lines[3:]],  # a solution twice
    _swapped,  # two solutions out of the run's order
    lambda lines: [*lines[:2], lines[2].replace('"piece": "', '"piece": "Q', 1), *lines[3:]],
    lambda lines: [*lines[:2], lines[2].replace("[[", "[[99, 99], [", 1), *lines[3:]],
    lambda lines: [*lines[:2], lines[2][:-2] + ', "x": "' + "a" * 300000 + '"}\n', *lines[3:]],
    lambda lines: [*lines[:2], lines[2].replace('"seconds": ', '"seconds": -', 1), *lines[3:]],
    lambda lines: [*lines[:2], lines[2].replace("\n", "\r\n"), *lines[3:]],
    lambda lines: [*lines, lines[-1]],  # one more line than the puzzle has solutions
], ids=["twice", "swapped", "unknown-piece", "cell-off-board", "extra-field",
        "negative-seconds", "crlf", "past-the-last"])
def test_enumerate_resumes_only_the_lines_the_run_writes_in_their_places(run_cli, tmp_path,
                                                                         damage):
    full, out = tmp_path / "full.jsonl", tmp_path / "sols.jsonl"
    assert run_cli("enumerate", DAY, "--labels", "Oct", "6", "--out", full)[0] == 0
    lines = full.read_text().splitlines(keepends=True)
    out.write_text("".join(damage(lines)))
    _refused(run_cli, ["enumerate", DAY, "--labels", "Oct", "6", "--out", out, "--resume"],
             out, "line ")
    assert "Traceback" not in run_cli("enumerate", DAY, "--labels", "Oct", "6", "--out", out,
                                      "--resume")[2]


@pytest.mark.parametrize("damage", ["proof-deleted", "formula-garbage", "proof-garbage",
                                    "formula-of-another", "column-names-another",
                                    "proof-on-a-solved-row"])
def test_a_resumed_sweep_checks_its_kept_proofs_again(run_cli, tmp_path, tiny, damage):
    path, _ = tiny
    out = tmp_path / "tiny.csv"
    fresh = _fresh(run_cli, path, out, "--prove")
    folder = tmp_path / "tiny.csv.proofs"
    proofs = {p.name: p.read_bytes() for p in folder.iterdir()}
    text = fresh.decode()
    if damage == "proof-deleted":
        (folder / "a-1-x.drup").unlink()
    elif damage == "formula-garbage":
        (folder / "a-1-x.drup.cnf").write_text("p cnf 1 1\n1 0\n")
    elif damage == "proof-garbage":
        (folder / "a-1-x.drup").write_bytes(b"\xff\xfe not a proof\n")
    elif damage == "formula-of-another":
        (folder / "a-1-x.drup.cnf").write_bytes(proofs["b-2-y.drup.cnf"])
    elif damage == "column-names-another":
        text = text.replace("a,1,x,false,0,tiny.csv.proofs/a-1-x.drup",
                            "a,1,x,false,0,tiny.csv.proofs/b-2-y.drup")
    else:
        text = text.replace("a,2,x,false,1,", "a,2,x,false,1,tiny.csv.proofs/a-1-x.drup")
    assert text != fresh.decode() or damage not in ("column-names-another",
                                                   "proof-on-a-solved-row")
    out.write_text(text)
    code, printed, err = run_cli("sweep", path, "--out", out, "--prove", "--resume",
                                 "--format", "json")
    assert code == 0, err
    assert json.loads(printed)["proofs"] == len(json.loads(printed)["unsolvable"]) == 10
    assert out.read_bytes() == fresh
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == proofs


def test_a_refusal_says_what_differs_when_the_words_are_the_same(run_cli, tmp_path, tiny):
    path, _ = tiny
    out = tmp_path / "rows.csv"
    _fresh(run_cli, path, out)
    changed = tmp_path / "changed.yaml"
    changed.write_text(TINY.format(name="tiny", piece="L", shape="#./##"))  # mirrored
    changed.write_text(changed.read_text().replace("count: 3", "count: 3, flip: false"))
    _refused(run_cli, ["sweep", changed, "--out", out, "--resume"], out,
             "answers another question (spec tiny) than this run (spec tiny, face up); ")
    same_words = tmp_path / "same_words.yaml"
    same_words.write_text(TINY.format(name="tiny", piece="L", shape="###"))  # one changed
    _refused(run_cli, ["sweep", same_words, "--out", out, "--resume"], out,
             "answers another question (spec tiny) than this run (spec tiny), its board or "
             "pieces differ; give another --out")


def test_a_spec_that_keeps_its_pieces_face_up_asks_what_face_up_asks(run_cli, tmp_path):
    turned = tmp_path / "day_face_up.yaml"
    turned.write_text(DAY.read_text().replace("\npieces:", "\nflip: false\npieces:", 1))
    assert "flip: false" in turned.read_text()
    out = tmp_path / "sols.jsonl"
    assert run_cli("enumerate", DAY, "--labels", "Jan", "7", "--face-up", "--limit", "1",
                   "--out", out)[0] == 0
    first = json.loads(out.read_text().splitlines()[0])
    assert first["about"] == "spec calendar_day, labels Jan 7, face up, backend engine"
    code, text, err = run_cli("enumerate", turned, "--labels", "Jan", "7", "--limit", "2",
                              "--out", out, "--resume")
    assert code == 0 and "2 solutions written" in text, err
    assert json.loads(out.read_text().splitlines()[0]) == first

    from cpmodels.questions import sweep_question
    from cpmodels.spec import load_spec

    face_up = sweep_question(load_spec(DAY), face_up=True)
    assert sweep_question(load_spec(turned)) == face_up
    assert face_up.about == "spec calendar_day, face up"


def test_a_design_count_of_one_number_is_the_range_of_it(tmp_path):
    from cpmodels.design import Design, load_board
    from cpmodels.design.kept import design_question
    from cpmodels.spec.loading import load_design

    questions = []
    for count in ("7", "[7, 7]"):
        path = tmp_path / f"d{len(questions)}.yaml"
        path.write_text(f"kind: design\nname: d\nboard: {DAY}\nchoose:\n"
                        f"  - {{pool: pentominoes, count: {count}}}\n")
        spec = load_design(path)
        questions.append(design_question(Design(spec, load_board(spec, path))))
    assert questions[0] == questions[1]


def test_the_api_refuses_files_in_its_own_words(tmp_path, tiny):
    path, other = tiny
    out = tmp_path / "rows.csv"
    api.sweep(other, out)
    with pytest.raises(InputError) as refused:
        api.sweep(path, out, resume=True)
    assert str(refused.value).endswith("; give another out path, or resume=False")
    with pytest.raises(InputError) as refused:
        api.SweepResult.read_csv(path, out)
    assert "--" not in str(refused.value) and "give the path of a sweep" in str(refused.value)
    for text in ("", "# cpmodels sweep ro"):
        out.write_text(text)
        with pytest.raises(InputError, match="holds no sweep rows yet"):
            api.SweepResult.read_csv(path, out)


@pytest.mark.parametrize("damage", ["repeated", "unknown pieces", "counts dropped"])
def test_make_refuses_counted_verdicts_with_a_line_the_design_does_not_make(
        run_cli, tmp_path, damage):
    """A damaged verdicts file never picks the set to make: ``design --resume`` mends it."""
    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    out = tmp_path / "sets.jsonl"
    assert run_cli("design", path, "--out", out, "--quiet")[0] == 0
    lines = out.read_text().splitlines()
    working = next(k for k, line in enumerate(lines[1:], 1) if json.loads(line)["works"])
    record = json.loads(lines[working])
    if damage == "repeated":
        lines.append(json.dumps(record | {"min": record["min"] + 1}))
    elif damage == "unknown pieces":
        lines.append(json.dumps(record | {"pieces": ["QQ", *record["pieces"][1:]]}))
    else:
        lines[working] = json.dumps(record | {"min": None, "total": None})
    out.write_text("\n".join(lines) + "\n")
    _refused(run_cli, ["make", path, "--set", "1", "--verdicts", out, "--out",
                       tmp_path / "made"], out, f"of {out} are not verdicts this design makes")
    assert not (tmp_path / "made").exists()
    assert run_cli("design", path, "--out", out, "--resume", "--quiet")[0] == 0
    assert run_cli("make", path, "--set", "1", "--verdicts", out, "--out",
                   tmp_path / "made")[0] == 0
