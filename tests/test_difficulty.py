"""The difficulty measure: a plain first-empty-cell backtracker's nodes to its first solution."""

from __future__ import annotations

import csv
import threading

import pytest
from conftest import SPECS
from test_design import MIRROR_BOARD as CORNERS

from cpmodels.backends import solve_cover
from cpmodels.backends.engine import Backtracker
from cpmodels.cover import ExactCover, Item, packing_cover
from cpmodels.geometry import Placement
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec, parse_spec
from cpmodels.sweep import run_sweep, slack_options, sweep_cover

TETROMINOES = {"L4": "###/#..", "I4": "####", "O4": "##/##", "T4": "###/.#.",
               "S4": ".##/##.", "J4": "###/..#", "Z4": "##./.##"}


def test_it_finds_a_solution_exactly_when_cp_sat_does():
    """Every 4 of 7 tetrominoes (one-sided) with a V tromino, each corner left open: the
    backtracker solves the combinations CP-SAT solves, and no other."""
    import itertools

    base = parse_spec(CORNERS)
    solved = unsolved = 0
    for names in itertools.combinations(TETROMINOES, 4):
        pieces = [{"name": "V3", "shape": "##/#."}] + [
            {"name": n, "shape": TETROMINOES[n], "flip": False} for n in names]
        spec = base.model_copy(update={"pieces": [type(base.pieces[0])(**p) for p in pieces]})
        cover, _ = sweep_cover(spec)
        slack = slack_options(cover, spec)
        backtracker = Backtracker.of(cover, orders=3)
        for label in "abcd":
            found = backtracker.difficulty([slack[("corner", label)]])
            instance = packing_instance(Query.of(spec, labels=[label])).cover
            status = solve_cover("cpsat", instance).status
            assert (found is not None) == (status == "solved"), (names, label)
            solved += found is not None
            unsolved += found is None
    assert solved and unsolved


def test_nodes_are_the_placements_of_the_search():
    """A 1 x 4 strip and two dominoes: the first order that tries a domino first puts down
    2 placements; a cover whose pieces cannot fill the strip has no solution."""
    cover = packing_cover([(0, c) for c in range(4)], [])
    cover.items += [Item("A", 1, 1), Item("B", 1, 1)]
    for piece, item in (("A", 4), ("B", 5)):
        for c in range(3):
            cover.options.append((c, c + 1, item))
            cover.placements.append(Placement(piece, ((0, c), (0, c + 1))))
    found = Backtracker.of(cover, orders=4).difficulty()
    assert found is not None and (found.fewest, found.most, found.score) == (2, 2, 2)
    short = ExactCover(cover.items, cover.options[:2] + cover.options[3:4],
                       cover.placements[:2] + cover.placements[3:4])
    assert Backtracker.of(short).difficulty() is None
    with pytest.raises(ValueError, match="at least one"):
        Backtracker.of(cover, orders=0)


def test_the_same_figures_from_threads_and_from_run_to_run():
    spec = load_spec(SPECS / "calendar_day.yaml")
    cover, _ = sweep_cover(spec)
    slack = slack_options(cover, spec)
    dates = [("Jan", "1"), ("Oct", "6"), ("Nov", "24"), ("Feb", "29"), ("Jul", "31")]
    holes = [[slack[("month", m)], slack[("day", d)]] for m, d in dates]
    shared = Backtracker.of(cover)
    alone = [shared.difficulty(h) for h in holes]
    assert alone == [Backtracker.of(cover).difficulty(h) for h in holes]
    results: dict[int, list] = {}

    def work(k: int) -> None:
        results[k] = [shared.difficulty(h) for h in holes[k % 5:] + holes[:k % 5]]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, got in results.items():
        assert got == alone[k % 5:] + alone[:k % 5]


def test_sweep_difficulty_column_resumes_and_summarises(tmp_path, run_cli):
    out = tmp_path / "rows.csv"
    code, text, _ = run_cli("sweep", SPECS / "calendar_day.yaml", "--out", out,
                            "--difficulty", "--jobs", "2")
    assert code == 0 and "most difficult: " in text and "least difficult: " in text
    with out.open() as handle:
        handle.readline()  # the question line
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["month", "day", "real_date", "count", "difficulty"]
    assert len(rows) == 372 and all(int(r["difficulty"]) > 0 for r in rows)
    spec = load_spec(SPECS / "calendar_day.yaml")
    by_hand = Backtracker.of(sweep_cover(spec)[0])
    slack = slack_options(sweep_cover(spec)[0], spec)
    for row in rows[::97]:
        found = by_hand.difficulty([slack[("month", row["month"])], slack[("day", row["day"])]])
        assert found is not None and found.score == int(row["difficulty"])
    # A killed run: half the rows, then --resume gives the same file.
    text = out.read_text().splitlines(keepends=True)
    out.write_text("".join(text[:180]) + text[180][:5])
    code, _, _ = run_cli("sweep", SPECS / "calendar_day.yaml", "--out", out, "--difficulty",
                         "--resume")
    assert code == 0 and out.read_text() == "".join(text)
    # The rows without the column do not mix with it.
    code, _, err = run_cli("sweep", SPECS / "calendar_day.yaml", "--out", out, "--resume")
    assert code == 2 and "answers another question (spec calendar_day, difficulty) than this " \
        "run (spec calendar_day)" in err


def test_unsolvable_rows_have_no_difficulty(tmp_path):
    spec = load_spec(SPECS / "calendar_week.yaml")
    spec = spec.model_copy(update={"groups": {"month": ["Jan"], "day": ["27", "28"],
                                              "weekday": spec.groups["weekday"]}})
    summary = run_sweep(spec, tmp_path / "rows.csv", face_up=True, difficulty=True, jobs=1)
    assert summary.unsolvable == [("Jan", "27", "Mon"), ("Jan", "28", "Mon")]
    for row in summary.rows.values():
        assert (row.difficulty is None) == (row.count == 0)
