"""The CNF backend: counts against the other backends, checked proofs, the prove command."""

from __future__ import annotations

import csv
import json

import pytest
from checker import SMALL_BOARDS, brute_force_count, check_packing, variants_of
from conftest import SPECS

from cpmodels.backends import cnf, cpsat, engine
from cpmodels.cover import Item, PieceKind, packing_cover
from cpmodels.drup import check_drup
from cpmodels.geometry import orientations, parse_drawing
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.questions import sweep_question
from cpmodels.spec import load_spec


@pytest.mark.parametrize(("cells", "pieces"), SMALL_BOARDS)
def test_cnf_enumeration_agrees_with_engine_and_cpsat(cells, pieces):
    shapes = {name: variants_of(rows) for name, rows in pieces.items()}
    cover = packing_cover(cells, [PieceKind(n, tuple(s), 1) for n, s in shapes.items()])
    by_sat = [tuple(sorted(s)) for s in cnf.iter_solutions(cover)]
    assert len(by_sat) == len(set(by_sat)) == brute_force_count(cells, shapes)
    assert set(by_sat) == {tuple(sorted(s)) for s in engine.iter_solutions(cover)}
    assert set(by_sat) == {tuple(sorted(s)) for s in cpsat.iter_solutions(cover)}
    assert (cnf.solve(cover).status == "solved") == bool(by_sat)


def test_cnf_multiplicities_and_secondary_items():
    l4 = tuple(orientations(parse_drawing(["###", "#.."])))
    cover = packing_cover({(r, c) for r in range(2) for c in range(4)}, [PieceKind("L", l4, 2)])
    assert cnf.count(cover) == 2 == engine.count(cover)
    cover.items.append(Item("x", 0, 1))
    for j in range(len(cover.options)):
        if cover.placements[j].cells[0] == (0, 0):
            cover.options[j] = (*cover.options[j], len(cover.items) - 1)
    assert cnf.count(cover) == engine.count(cover)
    # An item no option covers makes the formula unsatisfiable, not malformed.
    cover.items.append(Item("nowhere"))
    assert cnf.count(cover) == 0 and cnf.solve(cover).status == "unsolvable"


@pytest.mark.parametrize(("spec", "labels", "expected"), [
    ("calendar_day.yaml", ["Oct", "6"], 7),
    ("calendar_day.yaml", ["Jan", "3"], 47),
    ("calendar_week.yaml", ["Apr", "6", "Mon"], 97),
])
def test_cnf_reference_counts(run_cli, spec, labels, expected):
    code, text, _ = run_cli("count", SPECS / spec, "--labels", *labels, "--backend", "sat",
                            "--format", "json")
    payload = json.loads(text)
    assert code == 0 and payload["count"] == expected and payload["backend"] == "sat"


def test_enumerate_and_solve_say_which_backend(run_cli, tmp_path):
    out = tmp_path / "sols.jsonl"
    code, text, _ = run_cli("enumerate", SPECS / "calendar_day.yaml", "--labels", "Oct", "6",
                            "--out", out, "--backend", "sat")
    assert code == 0 and "7 solutions" in text and "(sat)" in text
    for line in out.read_text().splitlines()[1:]:  # after the question line
        payload = json.loads(line)
        assert payload["backend"] == "sat"
        check_packing(SPECS / "calendar_day.yaml", payload)
    for backend in ("sat", "engine", "cpsat"):
        code, text, _ = run_cli("solve", SPECS / "calendar_day.yaml", "--labels", "Oct", "6",
                                "--backend", backend, "--format", "json")
        payload = json.loads(text)
        assert code == 0 and payload["backend"] == backend
        check_packing(SPECS / "calendar_day.yaml", payload)


@pytest.fixture(scope="module")
def face_up_refutation():
    spec = load_spec(SPECS / "calendar_week.yaml")
    cover = packing_instance(Query.of(spec, labels=["Feb", "4", "Mon"], face_up=True)).cover
    refutation = cnf.refute(cover)
    assert refutation.chosen is None
    return refutation


def test_proof_is_checked_and_tampering_is_caught(face_up_refutation):
    clauses, proof = face_up_refutation.model.clauses, face_up_refutation.proof
    good = check_drup(clauses, proof)
    assert good.ok and good.lemmas > 100
    lemmas = [k for k, line in enumerate(proof) if not line.startswith("d") and line != "0"]
    # A changed lemma: the first one replaced by "option 1 is in every solution".
    changed = [*proof[:lemmas[0]], "1 0", *proof[lemmas[0] + 1:]]
    verdict = check_drup(clauses, changed)
    assert not verdict.ok and verdict.message.startswith(f"step {lemmas[0] + 1}: lemma 1 ")
    # A removed lemma: the last one before the empty clause is what that clause follows from.
    removed = proof[:lemmas[-1]] + proof[lemmas[-1] + 1:]
    assert not check_drup(clauses, removed).ok
    # Without its lemmas the proof does not reach the empty clause.
    assert not check_drup(clauses, ["0"]).ok
    assert not check_drup(clauses, ["1 2 x 0"]).ok


def test_prove_command(run_cli, tmp_path):
    proof = tmp_path / "jan27.drup"
    code, text, _ = run_cli("prove", SPECS / "calendar_week.yaml", "--labels", "Jan", "27",
                            "Mon", "--no-flip", "--proof", proof)
    assert code == 1 and text.startswith("unsolvable (proof checked:")
    assert proof.exists() and proof.with_name("jan27.drup.cnf").read_text().startswith("p cnf")
    code, text, _ = run_cli("prove", SPECS / "calendar_week.yaml", "--labels", "Jan", "27",
                            "Mon", "--format", "json")
    payload = json.loads(text)
    assert code == 0 and payload["status"] == "solved"
    check_packing(SPECS / "calendar_week.yaml", payload)


def test_face_up_calendar_has_56_unsolvable_combinations(run_cli, tmp_path):
    code, text, _ = run_cli("sweep", SPECS / "calendar_week.yaml", "--no-flip", "--out",
                            tmp_path / "up.csv", "--format", "json")
    summary = json.loads(text)
    assert code == 0 and len(summary["unsolvable"]) == 56
    assert ["Jan", "27", "Mon"] in summary["unsolvable"]


def test_sweep_prove_attaches_checked_proofs(run_cli, tmp_path):
    # Resume a face-up calendar_day sweep that lacks two rows: Jan 6 (unsolvable) and Jan 7.
    out = tmp_path / "day.csv"
    code, _, _ = run_cli("sweep", SPECS / "calendar_day.yaml", "--no-flip", "--out", out)
    rows = list(csv.reader(out.open()))[1:]  # after the question line
    assert ["Jan", "6", "true", "0"] in rows
    kept = [[*r, ""] for r in rows[1:] if r[:2] not in (["Jan", "6"], ["Jan", "7"])]
    spec = load_spec(SPECS / "calendar_day.yaml")
    with out.open("w", newline="") as handle:
        handle.write(sweep_question(spec, face_up=True, prove=True).csv_line() + "\n")
        csv.writer(handle, lineterminator="\n").writerows(
            [["month", "day", "real_date", "count", "proof"], *kept])
    code, text, _ = run_cli("sweep", SPECS / "calendar_day.yaml", "--no-flip", "--out", out,
                            "--resume", "--prove", "--format", "json")
    assert code == 0 and json.loads(text)["proofs"] == 1
    rows = {tuple(r[:2]): r for r in csv.reader(out.open())}
    assert rows[("Jan", "6")][4] == "day.csv.proofs/Jan-6.drup"
    assert rows[("Jan", "7")][4] == "" and int(rows[("Jan", "7")][3]) > 0
    proof = (tmp_path / "day.csv.proofs" / "Jan-6.drup").read_text().splitlines()
    cnf_text = (tmp_path / "day.csv.proofs" / "Jan-6.drup.cnf").read_text().splitlines()
    clauses = [[int(x) for x in line.split()[:-1]] for line in cnf_text[1:]]
    assert check_drup(clauses, proof).ok
