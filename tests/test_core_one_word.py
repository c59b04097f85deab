"""The compiled core's one-word count and tally and its reach search against the numba
kernels they replace (kept as the oracle): every count, tally vector, verdict and statistic,
and the tables themselves, equal on the bundled specs' covers, boards of 63 and 64 cells,
random prefixes, small tables that flush; a stop leaves true tables; several threads count
at once."""

from __future__ import annotations

import itertools
import random
import threading
from unittest.mock import patch

import numpy as np
import pytest
from conftest import SPECS

from cpmodels.backends.engine import EngineSession, one_word, reach
from cpmodels.backends.engine import session as session_module
from cpmodels.backends.engine.layout import one_word_layout
from cpmodels.backends.engine.memo import Memo
from cpmodels.cover import ExactCover, PieceKind, packing_cover
from cpmodels.design import Design, load_board
from cpmodels.design.reaching import first_failure
from cpmodels.geometry import orientations
from cpmodels.instance import packing_instance
from cpmodels.pools import pool
from cpmodels.query import Query
from cpmodels.spec import load_spec
from cpmodels.spec.loading import load_design
from cpmodels.sweep import TallyPlan


def _spec_cover(name: str) -> ExactCover:
    return packing_instance(Query.of(load_spec(SPECS / name))).cover


def _pentominoes_and(extra: frozenset, rows: int, cols: int) -> ExactCover:
    """The twelve pentominoes and one more piece on a rows x cols rectangle."""
    shapes = [shape for _, shape in pool("pentominoes")] + [extra]
    kinds = [PieceKind(f"P{k}", tuple(orientations(s)), 1) for k, s in enumerate(shapes)]
    return packing_cover([(r, c) for r in range(rows) for c in range(cols)], kinds)


COVERS = {
    "6x10": lambda: _spec_cover("pentominoes_6x10.yaml"),
    "8x8 centre": lambda: _spec_cover("pentominoes_8x8_centre.yaml"),
    "64 cells": lambda: _pentominoes_and(frozenset({(0, 0), (0, 1), (1, 0), (1, 1)}), 8, 8),
    "63 cells": lambda: _pentominoes_and(frozenset({(0, 0), (0, 1), (1, 0)}), 7, 9),
}


def _prefixes(n_options: int, rows: int, width: int, seed: int) -> np.ndarray:
    """Rows of random options (-1 pads; some rows overlap, one forces nothing)."""
    rng = random.Random(seed)
    out = np.full((rows, width), -1, dtype=np.int64)
    for r in range(1, rows):
        for q in range(rng.randint(1, width)):
            out[r, q] = rng.randrange(n_options)
    return out


def _tables_equal(a: Memo, b: Memo) -> None:
    assert a.stats.tolist() == b.stats.tolist()
    assert np.array_equal(a.keys, b.keys)
    assert np.array_equal(a.arena, b.arena)


@pytest.mark.parametrize("name", list(COVERS))
@pytest.mark.parametrize("slots", [0, 1 << 10, 1 << 18])
def test_counts_equal_the_numba_kernel(name, slots):
    """Random prefixes of the cover counted by both, with no table, a table that flushes
    and a roomy one: the same counts, statistics and table rows."""
    cover = COVERS[name]()
    layout = one_word_layout(cover)
    assert layout is not None
    prefixes = _prefixes(len(cover.options), 12 if name in ("6x10", "8x8 centre") else 40,
                         3 if "cells" in name else 2, seed=slots)
    if "cells" in name:
        prefixes = prefixes[1:]  # (a whole count of these boards takes a while)
    runs = []
    for kernel in (one_word._count_one_word_numba, one_word.count_one_word):
        table = Memo(2, max(16, slots))
        out = np.zeros(len(prefixes), dtype=np.int64)
        kernel(prefixes, layout, table.kernel, slots > 0, out)
        runs.append((out, table))
    assert runs[0][0].tolist() == runs[1][0].tolist()
    assert any(runs[0][0] > 0)
    _tables_equal(runs[0][1], runs[1][1])


def test_a_board_of_65_cells_has_no_one_word_layout():
    cover = _pentominoes_and(frozenset({(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)}), 5, 13)
    assert one_word_layout(cover) is None


def _tally_runs(plan: TallyPlan, tasks: list[tuple[int, ...]], slots: int,
                arena: int | None, tallies: bool = True) -> list[tuple]:
    """Each kernel's tallies of the tasks (the session's layouts), and its table."""
    session = plan.session() if tallies else EngineSession(plan.cover)
    layout, tally, _ = session._one_word_tally(None)
    prefixes = session_module._task_array(tasks)
    runs = []
    for kernel in (one_word._tally_one_word_numba, one_word.tally_one_word):
        table = Memo(2, max(16, slots), arena)
        out = np.zeros((len(tasks), int(tally.length[-1])), dtype=np.int64)
        masks = np.zeros(len(tasks), dtype=np.int64)
        kernel(prefixes, layout, tally, table.kernel, slots > 0, out, masks)
        runs.append((out, masks, table))
    return runs


@pytest.mark.parametrize("spec", ["calendar_day.yaml", "calendar_week.yaml"])
@pytest.mark.parametrize("slots,arena", [(0, None), (1 << 9, 64), (1 << 12, None),
                                         (1 << 16, None)])
def test_tallies_equal_the_numba_kernel(spec, slots, arena):
    """A sweep's tasks tallied by both, with tables and arenas that fill up: the same
    vectors, masks, statistics and table rows; likewise the counts of whole dates (slack
    items, no tally items)."""
    plan = TallyPlan.of(load_spec(SPECS / spec))
    tasks = [plan.task_holes(task) for task in plan.tasks()[::7][:6]]
    tasks.append(tasks[0] + tasks[1])  # two holes in one group: overlapping options
    numba, core = _tally_runs(plan, tasks, slots, arena)
    assert numba[0].tolist() == core[0].tolist() and numba[1].tolist() == core[1].tolist()
    assert numba[0].sum() > 0
    _tables_equal(numba[2], core[2])
    dates = [plan.holes(c) for c in itertools.islice(
        itertools.product(*plan.spec.groups.values()), 0, None, 53)][:6]
    numba, core = _tally_runs(plan, dates, slots, arena, tallies=False)
    assert numba[0].tolist() == core[0].tolist() and numba[0].sum() > 0
    _tables_equal(numba[2], core[2])


def _design(name: str) -> Design:
    path = SPECS / "designs" / f"{name}.yaml"
    spec = load_design(path)
    return Design(spec, load_board(spec, path), with_counts=False)


def _first_failures(name: str, sets: slice, numba: bool) -> tuple[list, list]:
    """The first failure of each of the sets by the reach search, and the reach tables."""
    design = _design(name)
    compiled = design._cover(False)
    kernel = reach._reach_kernel_numba if numba else reach.reach_kernel
    with patch.object(session_module, "reach_kernel", kernel):
        answers = [first_failure(design, compiled, design._left_out(compiled, chosen),
                                 design._areas(chosen))
                   for chosen in itertools.islice(design.candidates(), sets.start,
                                                  sets.stop, sets.step)]
    session = compiled.session
    return answers, [session._reached, session._settled]


@pytest.mark.parametrize("name,sets", [
    ("weekday_pentominoes_tetrominoes", slice(0, 7920, 400)),
    ("apad_rectangle_pentominoes", slice(0, 792, 20)),
])
def test_reach_searches_equal_the_numba_kernel(name, sets):
    """A design's first failures, set after set on one session (its settled states
    carried over): the same answers, statistics and rows of both tables."""
    numba = _first_failures(name, sets, True)
    core = _first_failures(name, sets, False)
    assert numba[0] == core[0]
    assert any(a is None for a in core[0]) and any(a is not None for a in core[0])
    for a, b in zip(numba[1], core[1]):
        _tables_equal(a, b)


def test_a_count_stopped_before_it_starts_counts_nothing():
    cover = COVERS["6x10"]()
    layout = one_word_layout(cover)
    table = Memo(2, 1 << 10)
    table.stop()
    out = np.zeros(3, dtype=np.int64)
    one_word.count_one_word(_prefixes(len(cover.options), 3, 2, 1), layout, table.kernel,
                            True, out)
    assert out.tolist() == [-1, -1, -1] and table.stats.tolist() == [0, 0, 0, 0, 0, 1, 0]


def test_a_count_stopped_part_way_leaves_a_true_table():
    """A stop from another thread ends the count at a node; the rows it finished are
    right, and counting again on the same table gives the oracle's counts."""
    cover = COVERS["6x10"]()
    layout = one_word_layout(cover)
    prefixes = _prefixes(len(cover.options), 6, 1, 3)
    expected = np.zeros(len(prefixes), dtype=np.int64)
    one_word._count_one_word_numba(prefixes, layout, Memo(2, 1 << 12).kernel, True, expected)
    table = Memo(2, 1 << 12)
    out = np.zeros(len(prefixes), dtype=np.int64)
    stopper = threading.Timer(0.01, table.stop)
    stopper.start()
    one_word.count_one_word(prefixes, layout, table.kernel, True, out)
    stopper.join()
    assert all(n in (-1, e) for n, e in zip(out.tolist(), expected.tolist()))
    table.clear_stop()
    one_word.count_one_word(prefixes, layout, table.kernel, True, out)
    assert out.tolist() == expected.tolist()


def test_threads_count_at_once_as_one_at_a_time():
    """Four threads counting on tables of their own (the GIL released) give the counts of
    one at a time."""
    cover = COVERS["8x8 centre"]()
    layout = one_word_layout(cover)
    prefixes = _prefixes(len(cover.options), 4, 1, 5)

    def count(out: np.ndarray) -> None:
        one_word.count_one_word(prefixes, layout, Memo(2, 1 << 16).kernel, True, out)

    alone = np.zeros(len(prefixes), dtype=np.int64)
    count(alone)
    outs = [np.zeros(len(prefixes), dtype=np.int64) for _ in range(4)]
    threads = [threading.Thread(target=count, args=(out,)) for out in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(out.tolist() == alone.tolist() for out in outs)


def test_bad_arguments_are_refused_before_the_search():
    """An option the layout does not have, a table of the wrong width or type: a clear
    error, no search."""
    cover = COVERS["8x8 centre"]()
    layout = one_word_layout(cover)
    out = np.zeros(1, dtype=np.int64)
    for bad in (len(cover.options), -2):
        with pytest.raises(ValueError, match="option"):
            one_word.count_one_word(np.array([[bad]]), layout, Memo(2, 16).kernel, True, out)
    with pytest.raises(ValueError, match="width"):
        one_word.count_one_word(np.array([[0]]), layout, Memo(3, 16).kernel, True, out)
    table = Memo(2, 16).kernel
    with pytest.raises(TypeError):
        one_word.count_one_word(np.array([[0]]), layout,
                                table._replace(stats=table.stats.astype(np.int32)), True, out)
    with pytest.raises(ValueError, match="region"):
        one_word.count_one_word(np.array([[0]]), layout._replace(region_limit=10**6),
                                Memo(2, 16).kernel, True, out)
    assert out.tolist() == [0]  # (nothing searched: the errors come first)
