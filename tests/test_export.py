"""Models out: every format read and solved by an outside solver, the answers decoded and
checked against the spec, the counts equal to the engine's.

The outside solvers come from the system packages (CaDiCaL, MiniZinc with Gecode) and PyPI
(HiGHS); a test that needs one skips when it is not installed, unless
``CPMODELS_SOLVERS=require`` (set by CI where it installed them)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from conftest import SPECS, cpu_seconds

from cpmodels import api
from cpmodels.backends.engine import count as engine_count
from cpmodels.drup import check_drup
from cpmodels.errors import InputError
from cpmodels.export import Subject, subject_of, write_model
from cpmodels.spec import load_spec

SOLVE_SECONDS = 120  # an outside solver's run is stopped after this


def _need(program: str) -> str:
    path = shutil.which(program)
    if path is None:
        if os.environ.get("CPMODELS_SOLVERS") == "require":
            pytest.fail(f"{program} is required (CPMODELS_SOLVERS=require) but not installed")
        pytest.skip(f"{program} is not installed (apt-get install cadical minizinc)")
    return path


@pytest.fixture(scope="session")
def cadical() -> str:
    return _need("cadical")


@pytest.fixture(scope="session")
def minizinc() -> str:
    return _need("minizinc")


@pytest.fixture(scope="session")
def highspy():
    try:
        import highspy
    except ImportError:
        if os.environ.get("CPMODELS_SOLVERS") == "require":
            pytest.fail("highspy is required (CPMODELS_SOLVERS=require) but not installed")
        pytest.skip("highspy is not installed (pip install highspy)")
    return highspy


def _run(*argv: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                          timeout=SOLVE_SECONDS, check=False)


def _subject(spec: str, **which) -> Subject:
    return subject_of(load_spec(SPECS / f"{spec}.yaml"), **which)


PUZZLES = [  # (spec, which puzzle, argv for the CLI): square, triangle, hex and cube grids
    ("calendar_week", {"labels": ["Jun", "7", "Tue"]}, ["--labels", "Jun", "7", "Tue"]),
    ("calendar_day", {"labels": ["Oct", "6"]}, ["--labels", "Oct", "6"]),
    ("pentominoes_6x10", {}, []),
    ("hexiamonds_rhombus", {}, []),
    ("polyhexes", {}, []),
    ("soma", {}, []),
]


@pytest.mark.parametrize(("spec", "which", "argv"), PUZZLES, ids=[p[0] for p in PUZZLES])
def test_dimacs_is_solved_by_cadical_and_python_sat(tmp_path, run_cli, cadical, spec, which,
                                                    argv):
    from pysat.formula import CNF
    from pysat.solvers import Solver

    cnf = tmp_path / "model.cnf"
    assert run_cli("export", str(SPECS / f"{spec}.yaml"), *argv, "--out", str(cnf))[0] == 0
    done = _run(cadical, "-q", cnf)
    assert done.returncode == 10 and "s SATISFIABLE" in done.stdout  # 10: satisfiable
    answer = tmp_path / "cadical.out"
    answer.write_text(done.stdout)
    code, out, _ = run_cli("decode", str(SPECS / f"{spec}.yaml"), *argv, "--format", "dimacs",
                           "--model", str(answer), "--output", "json")
    assert code == 0
    payload = json.loads(out)
    assert payload["checked"] and payload["status"] == "solved"
    pieces = load_spec(SPECS / f"{spec}.yaml").pieces
    assert len(payload["placements"]) == sum(p.count for p in pieces)

    with Solver(name="cadical153", bootstrap_with=CNF(from_file=str(cnf)).clauses) as sat:
        assert sat.solve()
        model = " ".join(map(str, sat.get_model()))
    decoded = api.decode(SPECS / f"{spec}.yaml", f"v {model} 0\n", format="dimacs", **which)
    assert decoded.status == "solved"


def _projected_count(cnf: Path) -> int:
    """Models of the formula projected on its ``c p show`` variables, by blocking clauses."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    shown = [int(x) for line in cnf.read_text().splitlines() if line.startswith("c p show ")
             for x in line.split()[3:] if x != "0"]
    found = 0
    with Solver(name="minisat22", bootstrap_with=CNF(from_file=str(cnf)).clauses) as sat:
        while sat.solve():
            model = sat.get_model()
            sat.add_clause([-model[v - 1] for v in shown])
            found += 1
    return found


@pytest.mark.parametrize(("spec", "which"), [
    ("calendar_day", {"labels": ["Oct", "6"]}),
    ("calendar_week", {"labels": ["Jan", "1", "Mon"], "face_up": True}),
    ("calendar_week", {"labels": ["Jan", "27", "Mon"], "face_up": True}),  # none
])
def test_dimacs_models_projected_on_the_placements_are_the_solutions(tmp_path, spec, which):
    subject = _subject(spec, **which)
    cnf = tmp_path / "model.cnf"
    write_model(subject, "dimacs", cnf)
    head = cnf.read_text().splitlines()
    show = next(line for line in head if line.startswith("c p show "))
    assert show.split()[3:] == [str(v) for v in range(1, subject.n_vars + 1)] + ["0"]
    assert f"c x1 = {subject.meaning(1)}" in head
    assert _projected_count(cnf) == engine_count(subject.cover)


def _xcc_count(text: str) -> int:
    """An independent exact-cover counter over the XCC text: Algorithm X on sets, primary items
    with ``low:high|name`` multiplicities and secondary items. Every option holds an item
    covered exactly once (a board cell), so a solution ends when every primary item is
    covered often enough."""
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("|")]
    head, options = lines[0].split(), [frozenset(line.split()) for line in lines[1:]]
    bounds: dict[str, tuple[int, int]] = {}
    secondary = False
    for token in head:
        if token == "|":
            secondary = True
            continue
        match = re.fullmatch(r"(\d+):(\d+)\|(.+)", token)
        if secondary:
            bounds[token] = (0, 1)
        elif match:
            bounds[match[3]] = (int(match[1]), int(match[2]))
        else:
            bounds[token] = (1, 1)

    def search(used: dict[str, int], allowed: list[frozenset]) -> int:
        short = [i for i, (low, _) in bounds.items() if used[i] < low]
        if not short:
            return 1
        item = min(short, key=lambda i: sum(1 for o in allowed if i in o))
        total = 0
        for k, option in enumerate(allowed):
            if item not in option:
                continue
            now = {i: used[i] + (i in option) for i in used}
            rest = [o for o in allowed[k + 1:] if all(now[i] < bounds[i][1] for i in o)]
            earlier = [o for o in allowed[:k] if item not in o
                       and all(now[i] < bounds[i][1] for i in o)]
            total += search(now, earlier + rest)
        return total

    return search(dict.fromkeys(bounds, 0), options)


COPIES = """\
kind: packing
name: copies
board: ["....", "....", "...."]
pieces:
  - {name: L, shape: "###/#..", count: 2}
  - {name: I, shape: "####", count: [0, 1]}
  - {name: O, shape: "##/##", count: [0, 1]}
"""


@pytest.mark.parametrize("spec", ["calendar_day", "calendar_week", "copies"])
def test_xcc_counted_by_an_independent_counter_equals_the_engine(tmp_path, spec):
    if spec == "copies":
        path = tmp_path / "copies.yaml"
        path.write_text(COPIES)
        subject = subject_of(load_spec(path))
    else:
        labels = ["Oct", "6"] if spec == "calendar_day" else ["Jan", "1", "Mon"]
        subject = _subject(spec, labels=labels, face_up=spec == "calendar_week")
    out = tmp_path / "model.xcc"
    write_model(subject, "xcc", out)
    text = out.read_text()
    if spec == "copies":  # copies as a multiplicity, optional pieces as secondary items
        assert "2:2|L" in text and text.splitlines()[-len(subject.cover.options) - 1].endswith(
            "| I O")
    expected = engine_count(subject.cover)
    assert expected > 0 and _xcc_count(text) == expected
    # A solution printed as DLX prints it (its options' lines) decodes and checks.
    first = next(api.solutions(subject.instance.query, backend="engine"))
    lines = text.splitlines()
    options = [line for line in lines[1:] if not line.startswith("|")][1:]
    chosen = [options[j] for j in first.result.chosen]
    assert api.decode(subject.instance.spec, "\n".join(chosen), format="xcc",
                      **_which(subject)).status == "solved"


def _which(subject: Subject) -> dict:
    query = subject.instance.query
    if query.labels:
        return {"labels": list(query.labels), "face_up": query.face_up}
    return {"target": query.target, "face_up": query.face_up}


def test_minizinc_solves_and_counts_the_packing_model(tmp_path, run_cli, minizinc):
    subject = _subject("calendar_day", labels=["Oct", "6"])
    model, data = write_model(subject, "mzn", tmp_path / "oct6.mzn")
    assert data.suffix == ".dzn"
    done = _run(minizinc, "--solver", "gecode", "--all-solutions", model, data)
    assert done.returncode == 0, done.stderr
    answers = done.stdout.split("----------")[:-1]
    assert "==========" in done.stdout and len(answers) == engine_count(subject.cover) == 7
    seen = set()
    for text in answers:
        decoded = api.decode(SPECS / "calendar_day.yaml", text, format="mzn",
                             labels=["Oct", "6"])
        assert decoded.status == "solved"
        seen.add(tuple(decoded.result.chosen))
    assert len(seen) == 7


def test_minizinc_finds_the_towers_optimum(tmp_path, run_cli, minizinc):
    model, data = write_model(_subject("towers", size=(4, 4)), "mzn", tmp_path / "t.mzn")
    done = _run(minizinc, "--solver", "gecode", model, data)
    assert done.returncode == 0 and "==========" in done.stdout  # proved optimal
    answer = tmp_path / "t.out"
    answer.write_text(done.stdout)
    code, out, _ = run_cli("decode", str(SPECS / "towers.yaml"), "--size", "4x4", "--format",
                           "mzn", "--model", str(answer), "--output", "json")
    assert code == 0 and json.loads(out)["score"] == 440


@pytest.mark.parametrize(("size", "optimum"), [(4, 440), (5, 730)])
def test_highs_solves_the_towers_mps_to_the_optimum(tmp_path, run_cli, highspy, size,
                                                     optimum):
    mps = tmp_path / "towers.mps"
    assert run_cli("export", str(SPECS / "towers.yaml"), "--size", f"{size}x{size}",
                   "--out", str(mps))[0] == 0
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("time_limit", float(SOLVE_SECONDS))
    highs.readModel(str(mps))
    highs.run()
    assert highs.modelStatusToString(highs.getModelStatus()) == "Optimal"
    assert round(highs.getInfo().objective_function_value) == optimum
    solution = tmp_path / "towers.sol"
    highs.writeSolution(str(solution), 0)
    code, out, _ = run_cli("decode", str(SPECS / "towers.yaml"), "--size", f"{size}x{size}",
                           "--format", "mps", "--model", str(solution), "--output", "json")
    assert code == 0 and json.loads(out)["score"] == optimum


def test_highs_reads_the_packing_lp_and_its_answer_checks(tmp_path, highspy):
    out = tmp_path / "jun7.lp"
    api.export(SPECS / "calendar_week.yaml", out, labels=["Jun", "7", "Tue"])
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.readModel(str(out))
    highs.run()
    assert highs.modelStatusToString(highs.getModelStatus()) == "Optimal"
    solution = tmp_path / "jun7.sol"
    highs.writeSolution(str(solution), 0)
    decoded = api.decode(SPECS / "calendar_week.yaml", solution, format="lp",
                         labels=["Jun", "7", "Tue"])
    assert decoded.status == "solved"


@pytest.mark.parametrize("name", ["model.pb", "model.pbtxt"])
def test_the_cp_sat_model_is_loaded_and_solved_by_or_tools(tmp_path, name):
    from google.protobuf import text_format
    from ortools.sat import cp_model_pb2
    from ortools.sat.python import cp_model

    for spec, which, check in [("towers", {"size": (4, 4)}, 440),
                               ("calendar_week", {"labels": ["Jun", "7", "Tue"]}, None)]:
        path = tmp_path / name
        api.export(SPECS / f"{spec}.yaml", path, **which)
        proto = cp_model_pb2.CpModelProto()
        if name.endswith("txt"):
            text_format.Parse(path.read_text(), proto)
        else:
            proto.ParseFromString(path.read_bytes())
        model = cp_model.CpModel()
        model.proto.parse_text_format(text_format.MessageToString(proto))
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 2
        assert solver.solve(model) == cp_model.OPTIMAL
        decoded = api.decode(SPECS / f"{spec}.yaml", str(solver.response_proto),
                             format="cpsat", **which)
        assert decoded.status == "solved"
        if check is not None:
            assert decoded.score == check


def _opb_rows(text: str) -> tuple[list[tuple[dict[int, int], str, int]], dict[int, int]]:
    """An independent reading of OPB: the rows and the objective to minimise."""
    rows, objective = [], {}
    for line in text.splitlines():
        if line.startswith("*") or not line.strip():
            continue
        body = line.rstrip(" ;")
        if body.startswith("min:"):
            terms = body[4:].split()
            objective = {int(terms[k + 1][1:]): int(terms[k]) for k in range(0, len(terms), 2)}
            continue
        lhs, op, rhs = re.fullmatch(r"(.*) (>=|=) (-?\d+)", body).groups()
        terms = lhs.split()
        rows.append(({int(terms[k + 1][1:]): int(terms[k]) for k in range(0, len(terms), 2)},
                     op, int(rhs)))
    return rows, objective


def _satisfies(rows, true: set[int]) -> bool:
    for terms, op, rhs in rows:
        value = sum(a for v, a in terms.items() if v in true)
        if (op == "=" and value != rhs) or (op == ">=" and value < rhs):
            return False
    return True


def test_opb_holds_the_solutions_and_the_score(tmp_path):
    from cpmodels.export.decode import towers_vars

    subject = _subject("towers", size=(4, 4))
    out = tmp_path / "t.opb"
    write_model(subject, "opb", out)
    text = out.read_text()
    rows, objective = _opb_rows(text)
    assert text.startswith(f"* #variable= {subject.n_vars} #constraint= {len(rows)}")
    best = api.towers(SPECS / "towers.yaml", (4, 4))
    true = set(towers_vars(subject, best.result.grid))
    assert _satisfies(rows, true) and -sum(objective[v] for v in true) == 440
    broken = list(best.result.grid)
    broken[0] = "R" + broken[0][1:] if broken[0][0] != "R" else "B" + broken[0][1:]
    assert not _satisfies(rows, set(towers_vars(subject, broken))) or \
        subject.towers.violations(broken) == []

    packing = _subject("calendar_day", labels=["Oct", "6"])
    write_model(packing, "opb", tmp_path / "p.opb")
    rows, objective = _opb_rows((tmp_path / "p.opb").read_text())
    assert not objective
    solutions = [{j + 1 for j in s.result.chosen}
                 for s in api.solutions(packing.instance.query, backend="engine")]
    assert len(solutions) == 7 and all(_satisfies(rows, s) for s in solutions)
    assert not _satisfies(rows, solutions[0] - {min(solutions[0])})


def test_an_unsatisfiable_face_up_date_is_refuted_with_a_checked_drat_proof(
        tmp_path, run_cli, cadical):
    # Mar 1 Wed face up: unit propagation alone does not refute it (Jan 27 Mon's does).
    argv = [str(SPECS / "calendar_week.yaml"), "--labels", "Mar", "1", "Wed", "--face-up"]
    cnf = tmp_path / "mar1.cnf"
    assert run_cli("export", *argv, "--out", str(cnf))[0] == 0
    for binary in ("true", "false"):
        proof = tmp_path / f"mar1-{binary}.drat"
        done = _run(cadical, "-q", f"--binary={binary}", cnf, proof)
        assert done.returncode == 20 and "s UNSATISFIABLE" in done.stdout
        answer = tmp_path / "cadical.out"
        answer.write_text(done.stdout)
        code, out, _ = run_cli("decode", *argv, "--format", "dimacs", "--model", str(answer),
                               "--proof", str(proof), "--output", "json")
        payload = json.loads(out)
        assert code == 1 and payload["proof_checked"] and payload["lemmas"] > 0
    # A proof that claims the empty clause at once does not follow: rejected.
    wrong = tmp_path / "bare.drat"
    wrong.write_text("0\n")
    code, out, _ = run_cli("decode", *argv, "--format", "dimacs", "--model", str(answer),
                           "--proof", str(wrong))
    assert code == 3 and "rejected" in out


BAD_EXPORTS = [
    (["towers", "--format", "dimacs"], "no objective"),
    (["towers", "--format", "xcc"], "no objective"),
    (["calendar_week", "--size", "4x4"], "towers specs only"),
    (["towers", "--labels", "Jan", "1"], "does not apply"),
    (["calendar_week", "--labels", "Jan", "99", "Mon"], "99"),
]


@pytest.mark.parametrize(("argv", "fragment"), BAD_EXPORTS)
def test_an_export_that_does_not_fit_gets_one_line(tmp_path, run_cli, argv, fragment):
    code, _, err = run_cli("export", str(SPECS / f"{argv[0]}.yaml"), *argv[1:],
                           "--out", str(tmp_path / "model.cnf"))
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_unwritable_places_and_unknown_extensions_get_one_line(tmp_path, run_cli):
    spec = str(SPECS / "calendar_day.yaml")
    for out, fragment in [(tmp_path / "missing" / "m.cnf", "cannot write"),
                          (tmp_path, "cannot tell the format"),
                          (tmp_path / "model.txt", "cannot tell the format")]:
        code, _, err = run_cli("export", spec, "--out", str(out))
        assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1
    (tmp_path / "dir.cnf").mkdir()
    code, _, err = run_cli("export", spec, "--out", str(tmp_path / "dir.cnf"))
    assert code == 2 and "directory" in err
    # MiniZinc writes two files: when the second cannot be written, neither is left.
    (tmp_path / "m.dzn").mkdir()
    code, _, err = run_cli("export", spec, "--out", str(tmp_path / "m.mzn"))
    assert code == 2 and not (tmp_path / "m.mzn").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.cnf", "m.dzn"]


@pytest.mark.parametrize(("fmt", "answer", "fragment"), [
    ("dimacs", "hello world", "not a list of literals"),
    ("dimacs", "s SATISFIABLE\nv 1 -2 0\n", "partial assignment"),
    ("dimacs", "v 999999 0\n", "not in the model"),
    ("dimacs", "v 1 -1 0\n", "both true and false"),
    ("opb", "v x1 y2\n", "not a literal"),
    ("mps", "nothing here\n", "no line"),
    ("mps", "x1 0.5\n", "not 0 or 1"),
    ("mzn", "options = [1, two];\n", "not a list of numbers"),
    ("mzn", "----------\n", "no 'options"),
    ("xcc", "r0c0 r9c9\n", "no line"),
    ("cpsat", "\x00\xff garbage", "not a CP-SAT response"),
    ("cpsat", "status: OPTIMAL\nsolution: 1\n", "values"),
    ("dimacs", "", "no literals"),
])
def test_garbage_and_partial_answers_are_refused_with_the_reason(tmp_path, run_cli, fmt,
                                                                 answer, fragment):
    path = tmp_path / "answer.txt"
    path.write_bytes(answer.encode("latin-1"))
    code, _, err = run_cli("decode", str(SPECS / "calendar_day.yaml"), "--labels", "Oct", "6",
                           "--format", fmt, "--model", str(path))
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1


def test_a_wrong_assignment_says_which_rule_it_breaks(tmp_path, run_cli):
    spec = SPECS / "calendar_day.yaml"
    first = next(api.solutions(spec, labels=["Oct", "6"], backend="engine"))
    chosen = {j + 1 for j in first.result.chosen}
    n = len(first.instance.cover.options)
    dropped = min(chosen)
    literals = [v if v in chosen and v != dropped else -v for v in range(1, n + 1)]
    path = tmp_path / "answer.txt"
    path.write_text("s SATISFIABLE\nv " + " ".join(map(str, literals)) + " 0\n")
    code, _, err = run_cli("decode", str(spec), "--labels", "Oct", "6", "--format", "dimacs",
                           "--model", str(path))
    assert code == 2 and "not covered" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(InputError, match="not placed"):
        api.decode(spec, path, format="dimacs", labels=["Oct", "6"])
    # A towers board that breaks a rule names the cell.
    grid = ["R" * 4] * 4  # red needs a blue neighbour
    with pytest.raises(InputError, match="neighbour"):
        rows = ", ".join(f'"{row}"' for row in grid)
        api.decode(SPECS / "towers.yaml", f"board = [{rows}];", format="mzn", size=(4, 4))


def test_the_suite_is_written_whole_with_verified_answers(tmp_path, run_cli, cadical):
    out = tmp_path / "suite"
    code, text, _ = run_cli("export-suite", str(out), "--quiet")
    assert code == 0 and "11 instances" in text
    manifest = json.loads((out / "manifest.json").read_text())
    by_name = {item["name"]: item for item in manifest["instances"]}
    assert by_name["calendar_week-Jun-7-Tue"]["expected"]["solutions"] == 10374
    assert by_name["pentominoes_6x10"]["expected"]["solutions"] == 4 * 2339
    assert [by_name[f"towers-{n}x{n}"]["expected"]["optimum"] for n in (4, 5, 6)] == \
        [440, 730, 1130]
    for item in manifest["instances"]:
        for paths in item["files"].values():
            assert all((out / p).is_file() for p in paths)
    for name in ("calendar_week-Jan-27-Mon-face-up", "calendar_day-Oct-6"):
        done = _run(cadical, "-q", out / by_name[name]["files"]["dimacs"][0])
        assert (done.returncode == 10) == by_name[name]["expected"]["satisfiable"]
    code, _, err = run_cli("export-suite", str(out))
    assert code == 2 and "not an empty directory" in err


def test_exports_run_at_once_in_threads_give_whole_files(tmp_path):
    subject = _subject("calendar_week", labels=["Jun", "7", "Tue"])
    alone = tmp_path / "alone.cnf"
    write_model(subject, "dimacs", alone)
    target = tmp_path / "shared.cnf"
    errors: list[BaseException] = []

    def export() -> None:
        try:
            for _ in range(3):
                write_model(_subject("calendar_week", labels=["Jun", "7", "Tue"]), "dimacs",
                            target)
        except BaseException as exc:  # handed to the test
            errors.append(exc)

    threads = [threading.Thread(target=export) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors and target.read_bytes() == alone.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alone.cnf", "shared.cnf"]


def test_a_model_goes_to_standard_output_and_a_missing_answer_is_named(run_cli, tmp_path):
    spec = str(SPECS / "calendar_day.yaml")
    code, out, _ = run_cli("export", spec, "--labels", "Oct", "6", "--format", "opb",
                           "--out", "-")
    assert code == 0 and out.startswith("* #variable= ")
    code, _, err = run_cli("export", spec, "--format", "mzn", "--out", "-")
    assert code == 2 and "two files" in err
    code, _, err = run_cli("decode", spec, "--format", "xcc", "--model",
                           str(tmp_path / "none.out"))
    assert code == 2 and "cannot read" in err


# --- numbers bounded where they are read ----------------------------------------------

@pytest.mark.parametrize(("fmt", "answer", "fragment"), [
    ("mps", "x1 1e400\n", "x1 = 1e400 is not 0 or 1"),
    ("lp", "x1 -1e400\n", "x1 = -1e400 is not 0 or 1"),
    ("mps", "x1 nan\n", "x1 = nan is not 0 or 1"),
    ("lp", "x1 -inf\n", "x1 = -inf is not 0 or 1"),
    ("mps", "x1 Infinity\n", "x1 = Infinity is not 0 or 1"),
    ("mps", "x1 " + "9" * 5000 + "\n", "is not 0 or 1"),
    ("lp", "x" + "9" * 5000 + " 1\n", "99999999999999999999... (5,000 digits) is not in"),
    ("mps", "x18446744073709551617 1\n", "variable 18446744073709551617 (20 digits) is not in"),
    ("opb", "v x" + "9" * 5000 + "\n", "(5,000 digits) is not in the model"),
    ("dimacs", "v " + "9" * 5000 + " 0\n", "(5,000 digits) is not in the model"),
    ("dimacs", "v -18446744073709551617 0\n", "is not in the model"),
    ("mzn", "options = [" + "9" * 5000 + "];\n", "is not in the model"),
])
def test_huge_and_non_finite_numbers_in_answers_get_one_line(tmp_path, run_cli, fmt, answer,
                                                              fragment):
    path = tmp_path / "answer.txt"
    path.write_text(answer)
    code, out, err = run_cli("decode", str(SPECS / "calendar_day.yaml"), "--date",
                             "2026-03-04", "--format", fmt, "--model", str(path))
    assert code == 2 and out == "" and "Traceback" not in err
    assert fragment in err and len(err.strip().splitlines()) == 1


def _binary_literal(lit: int) -> bytes:
    value = 2 * abs(lit) + (lit < 0)
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes([*out, value])


UNSAT_DATE = ["--labels", "Mar", "1", "Wed", "--face-up"]


@pytest.mark.parametrize(("proof", "fragment"), [
    (b"1 -2 " + str(10**8).encode() + b" 0\n0\n", "literal 100000000 is past the formula's"),
    (str(10**12).encode() + b" 0\n", "literal 1000000000000 is past the formula's"),
    (str(2**64 + 1).encode() + b" 0\n", "literal 18446744073709551617 is past"),
    (b"-" + b"9" * 5000 + b" 0\n", "(5,001 digits) is past the formula's"),
    (b"a" + _binary_literal(10**12) + b"\x00", "a literal is past the formula's"),
    (b"a" + _binary_literal(2**70) + b"\x00", "a literal is past the formula's"),
    (b"a" + b"\xff" * 40 + b"\x01\x00", "a literal is past the formula's"),
    (b"a\x02\x80\x00", "a literal runs into its closing 0 byte"),
])
def test_proof_literals_past_the_formula_are_refused_at_once(tmp_path, run_cli, proof,
                                                             fragment):
    answer, path = tmp_path / "cadical.out", tmp_path / "proof.drat"
    answer.write_text("s UNSATISFIABLE\n")
    path.write_bytes(proof)
    start = cpu_seconds()
    code, out, err = run_cli("decode", str(SPECS / "calendar_week.yaml"), *UNSAT_DATE,
                             "--format", "dimacs", "--model", str(answer), "--proof", str(path))
    assert cpu_seconds() - start < 5, "the checker's work grew with a literal"
    assert "Traceback" not in err and fragment in out + err
    assert code in (2, 3)  # an unreadable proof is bad input; a wrong one is rejected


def test_repeated_lemmas_are_checked_once():
    # Unsatisfiable: 1 follows by unit propagation, then the empty clause does. A million
    # copies of the unit lemma cost no more than one (each used to be propagated again).
    clauses = [[1, 2], [1, -2], [-1, 3], [-1, -3]]
    start = cpu_seconds()
    verdict = check_drup(clauses, ["1 0"] * 1_000_000 + ["0"])
    assert verdict.ok and verdict.lemmas == 1_000_001
    assert cpu_seconds() - start < 15
    # Deleting one of two copies of a clause leaves the other; deleting both removes it.
    assert check_drup(clauses, ["1 0", "1 0", "d 1 0", "0"]).ok
    wrong = check_drup([[1, 2], [1, -2], [-1, 3], [-1, -3], [1, 4]],
                       ["d 1 2 0", "d 1 -2 0", "1 0"])
    assert not wrong.ok and "step 3" in wrong.message


def test_a_repeated_binary_proof_answers_in_seconds(tmp_path, run_cli):
    answer, path = tmp_path / "cadical.out", tmp_path / "proof.drat"
    answer.write_text("s UNSATISFIABLE\n")
    path.write_bytes((b"a" + _binary_literal(1) + _binary_literal(-2) + b"\x00") * 1_000_000)
    start = cpu_seconds()
    code, out, _ = run_cli("decode", str(SPECS / "calendar_week.yaml"), *UNSAT_DATE,
                           "--format", "dimacs", "--model", str(answer), "--proof", str(path))
    assert code == 3 and "rejected" in out
    assert cpu_seconds() - start < 20


def test_oversized_and_non_regular_answers_and_proofs_are_refused_unread(tmp_path, run_cli):
    from cpmodels.drup import MAX_PROOF_BYTES
    from cpmodels.export.decode import MAX_ANSWER_BYTES

    answer, huge = tmp_path / "cadical.out", tmp_path / "huge"
    answer.write_text("s UNSATISFIABLE\n")
    with huge.open("wb") as handle:  # sparse: no disk taken
        handle.truncate(max(MAX_PROOF_BYTES, MAX_ANSWER_BYTES) + 1)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    base = ["decode", str(SPECS / "calendar_week.yaml"), *UNSAT_DATE, "--format", "dimacs"]
    for argv, fragment in [
            (["--model", huge], "a solver's answer is at most"),
            (["--model", answer, "--proof", huge], "a proof is at most"),
            (["--model", fifo], "not a file: it is a FIFO"),
            (["--model", answer, "--proof", fifo], "not a file: it is a FIFO"),
            (["--model", answer, "--proof", tmp_path], "not a file: it is a directory"),
            (["--model", "/dev/zero"], "not a file: it is a character device")]:
        code, _, err = run_cli(*base, *map(str, argv))
        assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1, err
