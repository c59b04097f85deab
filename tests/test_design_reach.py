"""How a design decides a set: the reach search against the date-by-date searches, and
``--best K`` against the full ranking."""

from __future__ import annotations

import itertools
import json
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import SPECS, early_call, figures_of, write_figures

from cpmodels.design import Design, Verdict, best_sets, load_board, ranked, run_design
from cpmodels.design.reaching import LearntOrder
from cpmodels.errors import OutOfTime
from cpmodels.spec.loading import load_design

DESIGNS = SPECS / "designs"


def _design(name: str, **options: bool) -> Design:
    path = DESIGNS / f"{name}.yaml"
    spec = load_design(path)
    return Design(spec, load_board(spec, path), **options)


def _date_by_date(design: Design) -> Design:
    """The design with its covers' sessions kept off the reach search (every date a
    first-solution search of the word kernel, as before it)."""
    for face_up in (False, True) if design.spec.face_up else (False,):
        design._cover(face_up).session.use_one_word = False
    return design


EARLY_FIGURES = pytest.mark.early.with_args(partial(early_call, "test_design_reach",
                                                    "figures"))


def _every_set(name: str) -> dict[str, Any]:
    """Every set of a bundled design decided by reach searches and date by date: whether
    each way's session reaches, the order each learnt, the verdicts each way."""
    reach = _design(name, with_counts=False)
    reaches = [reach._cover(False).session.reaches]
    dates = _date_by_date(_design(name, with_counts=False))
    reaches.append(dates._cover(False).session.reaches)
    new, old = run_design(reach), run_design(dates)
    return {"reaches": reaches, "orders": [reach._learnt.order.tolist(),
                                           dates._learnt.order.tolist()],
            "new": [v.as_dict() for v in new], "old": [v.as_dict() for v in old]}


EVERY_SET = ["apad_rectangle_pentominoes"]


@EARLY_FIGURES
@pytest.mark.parametrize("name", EVERY_SET)
def test_every_set_of_a_bundled_design_gets_the_same_verdict(name, early):
    found = figures_of(early, f"every {name}")
    assert found["reaches"] == [True, False]
    # learnt by reach searches, and date by date
    assert found["orders"][0] == found["orders"][1]
    new = found["new"]
    assert new == found["old"]
    assert sum(v["works"] for v in new) == (37 if name == "apad_rectangle_pentominoes" else 0)


def _weekday_sample() -> dict[str, Any]:
    """A sample of the weekday question's 7,920 sets, passing and failing, decided both ways
    with the same learnt order (a short one); the verdicts each way, and the dates the
    learnt order puts in front."""
    reach = _design("weekday_pentominoes_tetrominoes", with_counts=False)
    reach.learn_order(6)
    dates = _date_by_date(_design("weekday_pentominoes_tetrominoes", with_counts=False))
    dates._learnt = LearntOrder(reach._learnt.order.copy(), reach._learnt.front.copy(),
                                reach._learnt.late.copy())
    sample = list(itertools.islice(reach.candidates(), 6, None, 331))
    return {"new": [reach.decide(c).as_dict() for c in sample],
            "old": [dates.decide(c).as_dict() for c in sample],
            "front": [list(reach.required[i]) for i in np.flatnonzero(reach._learnt.front)]}


def _best_of_the_ranking() -> dict[str, Any]:
    """The full ranking of the rectangle's sets, and ``--best K`` for a few of the best and
    for every working set: its verdicts, and whether each set it counted was counted to the
    end (no floor stopped it); the counted ones ranked."""
    full = ranked(run_design(_design("apad_rectangle_pentominoes")))
    out: dict[str, Any] = {"full": [v.as_dict() for v in full]}
    for best in (5, 37):  # a few of the best, and every working set
        design = _design("apad_rectangle_pentominoes")
        in_full: list[bool] = []
        count = design.counts

        def counting(chosen, *, floor=None, probes=(), count=count, in_full=in_full):
            found = count(chosen, floor=floor, probes=probes)
            in_full.append(found is not None)
            return found

        design.counts = counting  # type: ignore[method-assign]
        verdicts = best_sets(design, best)
        out[str(best)] = {"verdicts": [v.as_dict() for v in verdicts], "in_full": in_full,
                          "counted": [v.as_dict() for v in
                                      ranked([v for v in verdicts if v.min is not None])]}
    return out


def figures(scratch: Path) -> None:
    """The figures of the heaviest searches of these tests, in ``scratch``. Started with
    the session (the tests' early command): the second processor searches while the suite
    runs."""
    write_figures({"weekday": _weekday_sample, "best": _best_of_the_ranking,
                   "counted": _counted_sets,
                   **{f"every {name}": partial(_every_set, name) for name in EVERY_SET},
                   **{f"first failures {name} {learn} {step}":
                      partial(_first_failures, name, learn, step)
                      for name, learn, step in FIRST_FAILURES}}, scratch)


@EARLY_FIGURES
def test_weekday_sets_get_the_same_verdict_and_first_failure(early):
    """A sample of the weekday question's 7,920 sets, passing and failing, decided both ways
    with the same learnt order (a short one: the failing sets meet every path, a failure
    among the dates searched one by one and one found by a month's reach search)."""
    sample = figures_of(early, "weekday")
    new = sample["new"]
    assert new == sample["old"]
    assert any(v["works"] for v in new) and any(not v["works"] for v in new)
    front = sample["front"]
    assert any(v["first_failure"] is not None and v["first_failure"] not in front
               for v in new)


def test_the_reach_search_answers_each_combination_as_the_dates_do():
    """On the session: a task with the holes open answers every combination it wants as a
    first-solution search with the holes forced does; a set left out answers no."""
    design = _design("apad_rectangle_pentominoes", with_counts=False)
    compiled = design._cover(False)
    session = compiled.session
    for chosen in itertools.islice(design.candidates(), 0, 792, 97):
        out = design._left_out(compiled, chosen)
        areas = design._areas(chosen)
        by_month: dict[int, list[int]] = {}
        for i, holes in enumerate(compiled.holes):
            by_month.setdefault(holes[0], []).append(i)
        tasks = [((month,), [compiled.holes[i] for i in members])
                 for month, members in by_month.items()]
        found = session.reach(out, tasks, areas=areas)
        reached = {i: ok for (_, members), answers in zip(by_month.items(), found)
                   for i, ok in zip(members, answers)}
        whole = session.reach(out, [((), compiled.holes)], areas=areas)[0]
        each = session.exists([[*out, *holes] for holes in compiled.holes],
                              regions=design._regions(chosen))
        assert [reached[i] for i in range(len(each))] == whole == each


def _counted_sets() -> dict[str, Any]:
    """The rectangle's sets decided by existence searches alone, and with counts: the order
    each learnt, and for each set past the learnt front its verdict each way, and for the
    working ones the verdict of a count of each alone."""
    searched = _design("apad_rectangle_pentominoes", with_counts=False)
    by_search = dict(zip(searched.candidates(), run_design(searched)))
    counted = _design("apad_rectangle_pentominoes")
    counted.learn_order()
    orders = [counted._learnt.order.tolist(), searched._learnt.order.tolist()]
    reaches = counted._cover(False).session.reaches
    front = {counted.required[i] for i in np.flatnonzero(counted._learnt.front)}
    late = [c for c, v in by_search.items() if v.first_failure not in front]  # and working
    sets = []
    for chosen in late:
        old, new = by_search[chosen], counted.decide(chosen)
        alone = None
        if new.works:
            expected = Verdict(new.pieces, True)
            counts = searched.counts(chosen)
            if counts is not None:
                searched.add_counts(expected, counts)
                alone = expected.as_dict()
        sets.append({"old": old.as_dict(), "new": new.as_dict(), "alone": alone})
    return {"orders": orders, "reaches": reaches, "late": sets}


@EARLY_FIGURES
def test_a_set_counted_gets_the_same_verdict_and_counts(early):
    """With counts, the sets past the learnt front get the verdicts and first failures of
    the existence searches, and the working ones the counts of a count of each alone."""
    found = figures_of(early, "counted")
    assert found["orders"][0] == found["orders"][1]
    assert found["reaches"]
    late = found["late"]
    assert len(late) > 37
    working = 0
    for one in late:
        old, new = one["old"], one["new"]
        working += new["works"]
        assert (new["works"], new["first_failure"]) == (old["works"], old["first_failure"])
        if new["works"]:
            assert one["alone"] is not None  # counted
            assert new == one["alone"]
    assert working == 37


@EARLY_FIGURES
def test_best_sets_are_the_first_of_the_full_ranking(early):
    figures = figures_of(early, "best")
    full = figures["full"]
    for best in (5, 37):  # a few of the best, and every working set
        verdicts, in_full = figures[str(best)]["verdicts"], figures[str(best)]["in_full"]
        assert figures[str(best)]["counted"] == full[:best]
        assert len(verdicts) == 792 and sum(v["works"] for v in verdicts) == 37
        # The sets with the most on the leaders' hardest dates go first, and the rest
        # stop before a count once the floor is above their bound.
        assert sum(in_full) == 37 if best == 37 else len(in_full) < 20


def test_best_sets_break_ties_as_the_ranking_does(tmp_path):
    """The small design's sets tie on their hardest date's count only through the totals
    and names; every K gives the ranking's first K."""
    from test_design import SMALL

    path = tmp_path / "small.yaml"
    path.write_text(SMALL.replace("count: 1}", "count: [1, 2]}").replace(
        '  - {name: Y, shape: "####/..#."}\n', ""))
    spec = load_design(path)
    full = ranked(run_design(Design(spec, load_board(spec, path))))
    assert len(full) >= 3
    for best in sorted({1, len(full) // 2, len(full)}):  # the first, the middle, all
        verdicts = best_sets(Design(spec, load_board(spec, path)), best)
        counted = ranked([v for v in verdicts if v.min is not None])
        assert [v.as_dict() for v in counted] == [v.as_dict() for v in full[:best]]


def test_design_best_on_the_command_line(run_cli):
    design = str(DESIGNS / "apad_rectangle_pentominoes.yaml")
    code, out, err = run_cli("design", design, "--best", "2", "--format", "json", "--quiet")
    assert code == 0, err
    working = [w for w in json.loads(out)["working"] if w["min"] is not None]
    assert [(" ".join(w["pieces"]), w["min"]) for w in working] == [
        ("O6 F L N P U V Y", 19), ("O6 L N P T U V Y", 10)]
    for args, fragment in [(["--best", "793"], "792 candidate sets"),
                           (["--best", "3", "--no-counts"], "--no-counts")]:
        code, out, err = run_cli("design", design, *args, "--quiet")
        assert code != 0 and fragment in err and "Traceback" not in err
    with pytest.raises(SystemExit) as refused:  # not a positive whole number
        run_cli("design", design, "--best", "0")
    assert refused.value.code == 2


def _first_failure_alone(design: Design, chosen: tuple[int, ...]) -> tuple[str, ...] | None:
    """The oracle: the required dates in the learnt order, each searched alone (a first
    solution with every hole forced), up to the first without a solution."""
    compiled = design._cover(False)
    out = design._left_out(compiled, chosen)
    regions = design._regions(chosen)
    for i in design._learnt.order.tolist():
        if not compiled.session.exists([[*out, *compiled.holes[i]]], regions=regions)[0]:
            return design.required[i]
    return None


FIRST_FAILURES = [("apad_rectangle_pentominoes", 0, 53), ("apad_rectangle_pentominoes", 12, 41),
                  ("weekday_pentominoes_tetrominoes", 8, 997)]


def _first_failures(name: str, learn: int, step: int) -> dict[str, Any]:
    """A sample of a design's sets: each one's first failure as the core decides it (dates
    at the front alone, the others by groups of held holes, in one call for all the sets),
    and as first-solution searches of the dates alone find it."""
    design = _design(name, with_counts=False)
    design.learn_order(learn)
    compiled = design._cover(False)
    sample = list(itertools.islice(design.candidates(), 0, None, step))
    return {"core": design._first_failures(compiled, sample, sample),
            "alone": [_first_failure_alone(design, chosen) for chosen in sample]}


@EARLY_FIGURES
@pytest.mark.parametrize(("name", "learn", "step"), FIRST_FAILURES)
def test_the_cores_first_failures_are_the_dates_searched_alone(name, learn, step, early):
    """Each set's first failure as the core decides it is the first date of the learnt
    order that a first-solution search of the date alone finds without a solution."""
    found = figures_of(early, f"first failures {name} {learn} {step}")["core"]
    assert found == figures_of(early, f"first failures {name} {learn} {step}")["alone"]
    assert None in found and any(f is not None for f in found)


def test_the_order_is_learnt_as_the_dates_searched_alone_learn_it():
    """Learning in the core moves each set's first failure to the front of the order, as
    a set after set of first failures found date by date does."""
    design = _design("apad_rectangle_pentominoes", with_counts=False)
    design.learn_order(24)
    oracle = _design("apad_rectangle_pentominoes", with_counts=False)
    for chosen in itertools.islice(oracle.candidates(), 24):
        failure = _first_failure_alone(oracle, chosen)
        if failure is not None:
            oracle._learnt.move_to_front(oracle.required.index(failure))
    assert design._learnt.order.tolist() == oracle._learnt.order.tolist()
    assert design._learnt.front.tolist() == oracle._learnt.front.tolist()
    assert int(design._learnt.front.sum()) >= 2


def test_a_design_decision_stopped_decides_nothing_more():
    """The session stopped before the core's decision: it raises OutOfTime at once, and
    the order learnt so far is left as it was."""
    design = _design("apad_rectangle_pentominoes", with_counts=False)
    design.learn_order(8)
    before = design._learnt.order.copy()
    design.stop()
    with pytest.raises(OutOfTime):
        design.run(list(itertools.islice(design.candidates(), 50)))
    assert design._learnt.order.tolist() == before.tolist()


def _settled_with(arena: int) -> tuple[list, list[int]]:
    """A sample of apad's sets decided on a small settled table (flushed many times) whose
    arena holds ``arena`` words: the first failures and the table's figures."""
    from cpmodels.backends.engine.kernels.memo import Memo
    from cpmodels.backends.engine.searches import REACH_SLOTS

    design = _design("apad_rectangle_pentominoes", with_counts=False)
    searches = design._cover(False).session.searches
    searches._reached = Memo(3, slots=REACH_SLOTS)
    searches._settled = Memo(3, slots=1 << 10, arena=arena)
    design.learn_order(8)
    sample = list(itertools.islice(design.candidates(), 0, None, 9))
    failures = design._first_failures(design._cover(False), sample, sample)
    return failures, searches._settled.stats.tolist()


def test_the_settled_tables_tags_change_no_answer_and_no_figure():
    """The settled states' table with its tags (an arena of a byte a slot) and without
    (the rows alone say which slots are in use): the same first failures, and the same
    slots used, hits, misses, nodes and flushes, flushes included."""
    tagged, rows_alone = _settled_with((1 << 10) // 8), _settled_with(1)
    assert tagged == rows_alone
    assert tagged[1][6] > 0  # flushed
    assert None in tagged[0] and any(f is not None for f in tagged[0])


def test_the_reach_searchs_tree_is_the_runs_walks_whatever_the_walk():
    """The reach search walks a node's placements by vectors in the native module (the core's
    rule, ``cpcore/choice.hpp``'s REACH_WALKS_BY_VECTORS; WebAssembly keeps the runs), asks
    the caches for its children's entries ahead, and looks a child up in the settled table
    before it grows its regions: the same tree as the runs walk with the regions grown
    first, whose figures these are (slots used, misses, nodes and flushes; a hit is now
    also a child the regions would have cut, so the hits are not the old ones). The
    layouts of the designs fit the vectors' bound."""
    header = (Path(__file__).parent.parent / "cpmodels" / "_core" / "include" / "cpcore"
              / "choice.hpp").read_text()
    assert "const bool REACH_WALKS_BY_VECTORS = COUNT_WALKS_BY_VECTORS;" in header
    _, stats = _settled_with((1 << 10) // 8)
    assert [stats[0], *stats[2:]] == [467, 453, 1_581_046, 0, 0, 2058]
    for name in ("apad_rectangle_pentominoes", "weekday_pentominoes_tetrominoes"):
        searches = _design(name, with_counts=False)._cover(False).session.searches
        assert searches.reaches
        assert 0 < int(searches._reach.start[-1]) <= 4096
