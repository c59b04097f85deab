"""The core's searches against figures recorded before their code was rewritten: for each
search (count, tally, existence, first solution, the solution stream, reach, difficulty,
the counts of solids) on calendars (square, triangle, hex), the pentomino boxes, a solid
and strips at the edges of a word, the answers and the search's statistics (nodes, table
hits, misses, slots used, flushes) must equal the recorded ones.

``python tests/test_search_oracle.py`` writes the figures again (only when a change of the
search tree is meant: the nodes then change, and the answers must not).
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import SPECS, early_call, figures_of, write_figures
from test_grids import HEX_CALENDAR
from test_wasm import TRIANGLE

from cpmodels.backends.engine import Backtracker, EngineSession
from cpmodels.backends.engine.kernels import bit_cover, links
from cpmodels.backends.engine.kernels.memo import NODES, STATS
from cpmodels.backends.engine.searches import task_array
from cpmodels.cover import PieceKind, packing_cover
from cpmodels.design import Design, load_board
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec, parse_spec
from cpmodels.spec.loading import load_design
from cpmodels.sweep import TallyPlan, slack_options, sweep_cover

RECORDED = Path(__file__).with_name("search_oracle.json")
KERNELS = {"one_word": {}, "words": {"one_word": False}, "general": {"word_kernel": False},
           "bare": {"table_slots": 0}, "small": {"table_slots": 1 << 10, "arena": 1 << 12}}


def _stats(session: EngineSession) -> list[list[int]]:
    """Every table of the session, its statistics (but the stop flag)."""
    return [[int(t.stats[k]) for k in range(STATS) if k != 5]
            for t in session.searches.tables()]


def _cover(name: str, labels: list[str] | None = None, text: str | None = None,
           target: str | None = None) -> Any:
    spec = parse_spec(text) if text is not None else load_spec(SPECS / name)
    kw: dict[str, Any] = {}
    if labels:
        kw["labels"] = labels
    if target:
        kw["target"] = target
    return packing_instance(Query.of(spec, **kw)).cover


def _bars(n: int) -> Any:
    lengths = [n - 10, 1, 2, 3, 4]
    kinds = [PieceKind(f"B{k}", tuple({frozenset((0, c) for c in range(size)),
                                       frozenset((c, 0) for c in range(size))}), 1)
             for k, size in enumerate(lengths)]
    return packing_cover([(0, c) for c in range(n)], kinds)


def _packing_figures(cover: Any, parts: int, solutions: int,
                     whole: bool = True) -> dict[str, Any]:
    """Counts of the whole (``whole``) and of a few parts, on each kernel, their tables'
    statistics; existence with and without the table of dead states; the first solutions."""
    out: dict[str, Any] = {}
    base = EngineSession(cover)
    tasks: list[tuple[int, ...]] = [()] if whole else []
    for b in base.branches()[:parts]:
        for part in base.split(b)[:2]:
            tasks += [part] if whole else base.split(part)[:2]
    for name, kw in KERNELS.items():
        session = EngineSession(cover, **kw)
        counts = [session.count(t) for t in tasks]
        out[f"count_{name}"] = [counts, _stats(session)]
        if name in ("words", "general"):
            session = EngineSession(cover, **kw)
            clash = [(t[-1], t[-1]) for t in tasks if t]
            answers = [session.exists(tasks + clash, remember=r, first_failure=f)
                       for r in (False, True) for f in (False, True)]
            out[f"exists_{name}"] = [answers, _stats(session)]
    session = EngineSession(cover)
    stream = []
    for solution in session.solutions():
        stream.append(solution)
        if len(stream) >= solutions:
            break
    out["solutions"] = stream
    out["first"] = [session.first_solution(t) for t in tasks[:4]]
    return out


def _tally_figures() -> dict[str, Any]:
    """A sweep's tallies (the one-word tally kernel), and the same tasks on the word and
    the general kernels."""
    out: dict[str, Any] = {}
    for name in ("calendar_day.yaml", "calendar_week.yaml"):
        plan = TallyPlan.of(load_spec(SPECS / name))
        tasks = [plan.task_holes(task) for task in plan.tasks()[:6 if "day" in name else 2]]
        for kernel, kw in (("one_word", {}), ("words", {"one_word": False}),
                           ("general", {"word_kernel": False})):
            session = plan.session()
            session.use_one_word = "one_word" not in kw
            session.use_words = "word_kernel" not in kw
            tallies = session.tally_many(tasks)
            out[f"{name}_{kernel}"] = [[sorted([list(k), v] for k, v in t.items())
                                        for t in tallies], _stats(session)]
    return out


def _reach_figures() -> dict[str, Any]:
    path = SPECS / "designs" / "weekday_pentominoes_tetrominoes.yaml"
    spec = load_design(path)
    design = Design(spec, load_board(spec, path), with_counts=False)
    compiled = design._cover(False)
    holes = compiled.holes
    candidates = list(design.candidates())
    out = []
    for k in (0, 358, 538):
        chosen = candidates[k]
        dates = [i for i, combo in enumerate(design.required) if combo[0] in ("Feb", "Nov")]
        groups: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
        for i in dates:
            groups.setdefault((holes[i][2],), []).append(holes[i])
        tasks = list(groups.items())
        found = compiled.session.reach(design._left_out(compiled, chosen), tasks,
                                       areas=design._areas(chosen))
        searches = compiled.session.searches
        out.append([found, [int(x) for x in searches._reached.stats],
                    [int(x) for x in searches._settled.stats]])
    return {"weekday": out}


def _difficulty_figures() -> dict[str, Any]:
    spec = load_spec(SPECS / "calendar_day.yaml")
    cover, _ = sweep_cover(spec)
    slack = slack_options(cover, spec)
    dates = [("Jan", "1"), ("Oct", "6"), ("Nov", "24"), ("Feb", "29"), ("Jul", "31")]
    backtracker = Backtracker.of(cover)
    out = {"day": [backtracker.nodes([slack[("month", m)], slack[("day", d)]])
                   for m, d in dates]}
    week = load_spec(SPECS / "calendar_week.yaml")
    cover, _ = sweep_cover(week)
    slack = slack_options(cover, week)
    backtracker = Backtracker.of(cover)
    out["week"] = [backtracker.nodes([slack[("month", m)], slack[("day", d)],
                                      slack[("weekday", w)]], max_nodes=20000)
                   for m, d, w in [("Jun", "7", "Tue"), ("Jan", "1", "Mon"),
                                   ("Dec", "31", "Sun")]]
    return out


def _solid_figures() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, target in (("soma.yaml", None), ("solid_pentominoes.yaml", "box_2x3x10")):
        cover = _cover(name, target=target)
        for on_bits in (True, False):  # the root's tasks counted one by one, added up
            lk = None if on_bits else links.links(cover)
            bits = bit_cover.masks(cover) if on_bits else None
            parts = (bit_cover.root_tasks(cover) if lk is None else links.root_tasks(lk))
            found = np.zeros(len(parts), np.int64)
            stats = np.zeros(STATS, np.int64)
            links.count_tasks(task_array(parts), lk, bits, found, stats)
            out[f"{name}_{on_bits}"] = [[int(found.sum())], int(stats[NODES])]
        assert bit_cover.fits(cover)
    return out


CASES = {
    "week_jun7tue": lambda: _packing_figures(
        _cover("calendar_week.yaml", ["Jun", "7", "Tue"]), 3, 40),
    "week_jan1mon": lambda: _packing_figures(
        _cover("calendar_week.yaml", ["Jan", "1", "Mon"]), 2, 10),
    "day_oct6": lambda: _packing_figures(_cover("calendar_day.yaml", ["Oct", "6"]), 3, 10),
    "triangle_a": lambda: _packing_figures(_cover("", ["A"], TRIANGLE), 3, 10),
    "hex_mon": lambda: _packing_figures(_cover("", ["Mon"], HEX_CALENDAR), 3, 10),
    "rect_6x10": lambda: _packing_figures(_cover("pentominoes_6x10.yaml"), 2, 5, False),
    "square_8x8": lambda: _packing_figures(_cover("pentominoes_8x8_square.yaml"), 2, 5,
                                          False),
    **{f"strip_{n}": (lambda n=n: _packing_figures(_bars(n), 2, 5))
       for n in (63, 64, 65, 127, 128, 129)},
    "tally": _tally_figures,
    "reach": _reach_figures,
    "difficulty": _difficulty_figures,
    "solids": _solid_figures,
}


def _plain(x: Any) -> Any:
    """Figures as JSON keeps them (tuples as lists, numpy numbers as ints)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (np.integer, np.bool_)):
        return x.item()
    return x


def figures(scratch: Path) -> None:
    """Every case's figures computed (as JSON keeps them), in ``scratch``. Started with the
    session (the tests' early command): the second processor searches while the suite
    runs."""
    write_figures({case: (lambda make=make: _plain(make())) for case, make in CASES.items()},
                  scratch)


@pytest.mark.early.with_args(partial(early_call, "test_search_oracle", "figures"))
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_searches_find_the_recorded_answers_in_the_recorded_nodes(case, early):
    recorded = json.loads(RECORDED.read_text())[case]
    assert figures_of(early, case) == recorded


def _record() -> None:
    figures = {}
    for case, make in CASES.items():
        figures[case] = _plain(make())
        print(case, flush=True)
    RECORDED.write_text(json.dumps(figures, indent=None, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    _record()
