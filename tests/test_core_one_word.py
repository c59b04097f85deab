"""The compiled core's one-word count and tally and its reach search: counts, tally vectors,
verdicts and statistics recorded from the numba kernels they replaced, on the bundled specs'
covers, boards of 63 and 64 cells, random prefixes and tables that flush; a stop leaves true
tables; several threads count at once; bad arguments are refused before a search."""

from __future__ import annotations

import ctypes
import itertools
import random
import re
import threading
from typing import Any

import numpy as np
import pytest
from conftest import ROOT, SPECS, core_library, core_struct

from cpmodels.backends.engine import searches
from cpmodels.backends.engine.kernels import one_word, reach
from cpmodels.backends.engine.kernels.memo import Memo
from cpmodels.backends.engine.layouts.cover import one_word_layout
from cpmodels.cover import ExactCover, PieceKind, packing_cover
from cpmodels.design import Design, load_board
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


def _prefixes(cover: ExactCover, name: str) -> np.ndarray:
    """Twelve rows of one to three random options (-1 pads; some rows overlap)."""
    rng = random.Random(len(name))
    out = np.full((13, 3), -1, dtype=np.int64)
    for r in range(1, 13):
        for q in range(rng.randint(1, 3)):
            out[r, q] = rng.randrange(len(cover.options))
    return out[1:]


# Recorded from the numba kernel: each row's count; the table's statistics (USED, HITS,
# MISSES, NODES, ARENA_USED, STOP, FLUSHES) after the rows, by table slots (0: none), are
# the core's since a count keeps only the states with four pieces left (cpcore/choice.hpp).
COUNTS = {
    "6x10": ([0, 15, 0, 52, 0, 3, 0, 0, 0, 57, 0, 0], {
        0: [0, 0, 0, 368702, 0, 0, 0],
        1 << 10: [145, 0, 0, 323353, 0, 0, 313],
        1 << 18: [149372, 0, 0, 197269, 0, 0, 0]}),
    "8x8 centre": ([0, 0, 0, 1, 0, 9, 0, 1, 0, 0, 0, 0], {
        0: [0, 0, 0, 133475, 0, 0, 0],
        1 << 10: [621, 0, 0, 122378, 0, 0, 129],
        1 << 18: [85044, 0, 0, 101277, 0, 0, 0]}),
    "64 cells": ([1117, 0, 0, 2290, 344, 0, 0, 0, 3, 0, 0, 0], {}),
    "63 cells": ([2307, 0, 0, 3199, 4461, 0, 0, 0, 0, 0, 0, 2], {}),
}
SLOW_ROWS = {"64 cells": [0], "63 cells": [4]}  # (seconds each: left out)


@pytest.mark.parametrize("name,slots", [
    (name, slots) for name in COVERS for slots in (0, 1 << 10, 1 << 18)
    if name not in SLOW_ROWS or slots == 1 << 18])  # (63 and 64 cells: the roomy table)
def test_counts_are_the_recorded_ones(name, slots):
    """Random prefixes counted with no table, a table that flushes and a roomy one: the
    numba kernel's counts and, where recorded, its statistics."""
    counts, stats = COUNTS[name]
    cover = COVERS[name]()
    layout = one_word_layout(cover)
    assert layout is not None
    rows = [r for r in range(len(counts)) if r not in SLOW_ROWS.get(name, [])]
    table = Memo(2, max(16, slots))
    out = np.zeros(len(rows), dtype=np.int64)
    one_word.count_one_word(_prefixes(cover, name)[rows], layout, table.kernel, slots > 0,
                            out, table.stop_flag)
    assert out.tolist() == [counts[r] for r in rows]
    if slots in stats:
        assert table.stats.tolist() == stats[slots]


def _counted(name: str, slots: int) -> tuple[Memo, Any]:
    """Every row of the cover's prefixes counted with a table of ``slots`` (the recorded
    counts checked): the table and the layout."""
    counts, _ = COUNTS[name]
    cover = COVERS[name]()
    layout = one_word_layout(cover)
    table = Memo(2, slots)
    out = np.zeros(len(counts), dtype=np.int64)
    one_word.count_one_word(_prefixes(cover, name), layout, table.kernel, True, out,
                            table.stop_flag)
    assert out.tolist() == counts
    return table, layout


@pytest.mark.parametrize("name", ["6x10", "8x8 centre"])
def test_a_count_keeps_only_the_states_with_pieces_left(name):
    """The count keeps a state only while it has COUNT_KEEPS_FROM pieces or more left to
    place (the core's rule, ``cpcore/choice.hpp``; below, a sub-board is searched again):
    every row kept has that many, the states kept are fewer than the nodes, and the counts
    are those with no table."""
    header = (ROOT / "cpmodels" / "_core" / "include" / "cpcore" / "choice.hpp").read_text()
    found = re.search(r"COUNT_KEEPS_FROM = (\d+);", header)
    assert found is not None
    keeps_from = int(found.group(1))
    table, layout = _counted(name, 1 << 18)
    keys = np.asarray(table.keys)
    rows = keys[keys[:, 2] != 0]
    left = [bin(int(layout.all_pieces) & ~int(used)).count("1") for used in rows[:, 1]]
    assert len(rows) == table.stats[0] and 0 < len(rows) < table.stats[3]
    assert min(left) == keeps_from


def test_the_boxes_counts_walk_their_options_by_vectors_in_the_native_module():
    """The core's rule (``cpcore/choice.hpp``): the native module's count tests a node's
    options by vectors (AnchorWalk) when its layout has at most COUNT_VECTOR_OPTIONS options
    (their unit bits are held on the count's stack), and WebAssembly walks them by runs. The
    boxes it was measured on fit, so their counts and node figures (recorded from the runs
    walk: test_counts_are_the_recorded_ones, tests/test_search_oracle.py) are the vector
    walk's."""
    header = (ROOT / "cpmodels" / "_core" / "include" / "cpcore" / "choice.hpp").read_text()
    found = re.search(r"COUNT_VECTOR_OPTIONS = (\d+);", header)
    assert found is not None
    assert re.search(r"#if defined\(__wasm__\)\nconst bool COUNT_WALKS_BY_VECTORS = false;",
                     header)
    for make in [*COVERS.values(), lambda: _spec_cover("pentominoes_8x8_square.yaml")]:
        layout = one_word_layout(make())
        assert layout is not None and 0 < len(layout.masks) <= int(found.group(1))


@pytest.mark.parametrize("name", ["6x10", "8x8 centre"])
def test_a_large_table_grows_and_keeps_what_a_whole_one_keeps(name):
    """A table of 2 million slots grows from its first ones (``cpcore/table.hpp``): the
    counts and statistics are the roomy table's, and every row it holds lies in the live
    slots the states kept call for (the rest of the table is never touched)."""
    table, _ = _counted(name, 1 << 21)
    assert table.stats.tolist() == COUNTS[name][1][1 << 18]
    live = 1 << 14
    while table.stats[0] * 8 >= live * 5:  # (five eighths full: table.hpp's full_to_grow)
        live *= 2
    assert live < 1 << 21
    keys = np.asarray(table.keys)
    assert not keys[live:].any()
    assert np.count_nonzero(keys[:live, 2]) == table.stats[0]


@pytest.mark.parametrize("row,whole", [(5, False), (3, True)])
def test_a_count_table_keeps_its_first_quarter_until_that_fills(row, whole):
    """A table of 65,536 to 1,048,576 slots (the count's) probes its first quarter until
    five eighths of that is full, then all of it (``cpcore/table.hpp``): a count that keeps
    few states touches a quarter of the rows, and the counts and statistics are those of a
    table that grows from its first slots (and of one searched whole, the recorded ones)."""
    cover = COVERS["8x8 centre"]()
    layout = one_word_layout(cover)
    prefix = _prefixes(cover, "8x8 centre")[row:row + 1]
    tables = []
    for slots in (1 << 18, 1 << 21):
        table = Memo(2, slots)
        out = np.zeros(1, dtype=np.int64)
        one_word.count_one_word(prefix, layout, table.kernel, True, out, table.stop_flag)
        assert out[0] == COUNTS["8x8 centre"][0][row]
        tables.append(table)
    quarter, grown = tables
    assert quarter.stats.tolist() == grown.stats.tolist()
    used = int(quarter.stats[0])
    assert (used * 8 >= (1 << 16) * 5) == whole  # (five eighths full: full_to_grow)
    live = 1 << 18 if whole else 1 << 16
    keys = np.asarray(quarter.keys)
    assert not keys[live:].any()
    assert np.count_nonzero(keys[:live, 2]) == used


def test_a_board_of_65_cells_has_no_one_word_layout():
    cover = _pentominoes_and(frozenset({(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)}), 5, 13)
    assert one_word_layout(cover) is None


# Recorded from the numba kernel on calendar_day's tasks: each row's total, sum of index x
# count, nonzero entries and open tally items. The table's statistics are the core's since
# the tally's dead-end check asks what the pieces left fill and its arena keeps packed runs
# of 2 to 64 bits a count (the numba kernel's: 368,763 nodes with no table; 1,366 flushes,
# 324,612 nodes in the small table; 185,749 nodes and 12,468 arena entries in the roomy one;
# runs of bytes at least: 688 flushes, 263,764 nodes; 1,369 arena entries). Since the
# tally asks whether its small regions are covered exactly by the units left (one_word.cpp's
# tiles): 298,297 nodes with no table; 686 flushes and 263,735 nodes in the small table;
# 3 flushes, 166,733 nodes and 905 arena entries in the roomy one.
TALLIES = {
    (0, None): [0, 0, 0, 141991, 0, 0, 0],
    (1 << 9, 64): [331, 10204, 126046, 126048, 36, 0, 330],
    (1 << 16, None): [37052, 24283, 86202, 86204, 2501, 0, 1],
}


@pytest.mark.parametrize("slots,arena", list(TALLIES))
def test_tallies_are_the_recorded_ones(slots, arena):
    """A sweep's tasks (and two holes of one group: overlapping options) tallied with no
    table, a table and arena that fill up, and a roomy table: the numba kernel's vectors
    and statistics."""
    plan = TallyPlan.of(load_spec(SPECS / "calendar_day.yaml"))
    tasks = [plan.task_holes(task) for task in plan.tasks()[::7][:4]]
    tasks.append(tasks[0] + tasks[1])
    layout, tally, _ = plan.session().searches._one_word_tally(None)
    table = Memo(2, max(16, slots), arena)
    out = np.zeros((len(tasks), int(tally.length[-1])), dtype=np.int64)
    masks = np.zeros(len(tasks), dtype=np.int64)
    one_word.tally_one_word(searches.task_array(tasks), layout, tally, table.kernel,
                            slots > 0, out, masks, table.stop_flag)
    index = np.arange(out.shape[1])
    assert out.sum(axis=1).tolist() == [3221, 2813, 0]
    assert (out * index).sum(axis=1).tolist() == [52582, 45250, 0]
    assert (out != 0).sum(axis=1).tolist() == [31, 31, 0]
    assert masks.tolist() == [1, 1, 1]
    assert table.stats.tolist() == TALLIES[(slots, arena)]


def test_a_tally_of_few_units_keeps_rows_of_two_words():
    """A tally whose units (pieces and label groups) fit in 24 bits keeps rows of two words
    (cpcore's NarrowRows): the cells covered, then the value above the units used; it
    touches only the first two thirds of the table's words, and keeps what a table of rows
    of three kept (the recorded statistics above)."""
    plan = TallyPlan.of(load_spec(SPECS / "calendar_day.yaml"))
    tasks = [plan.task_holes(task) for task in plan.tasks()[::7][:4]]
    layout, tally, _ = plan.session().searches._one_word_tally(None)
    units = int(layout.all_pieces) | int(layout.slack) | int(np.bitwise_or.reduce(layout.opt_piece))
    bits = units.bit_length()
    assert bits <= 24
    slots = 1 << 16
    table = Memo(2, slots)
    out = np.zeros((len(tasks), int(tally.length[-1])), dtype=np.int64)
    masks = np.zeros(len(tasks), dtype=np.int64)
    one_word.tally_one_word(searches.task_array(tasks), layout, tally, table.kernel, True, out,
                            masks, table.stop_flag)
    words = np.asarray(table.keys).reshape(-1)
    assert not words[2 * slots:].any()
    rows = words[:2 * slots].reshape(-1, 2)
    kept = rows[rows[:, 1] != 0]
    assert len(kept) == table.stats[0] > 0
    used = kept[:, 1] & np.uint64((1 << bits) - 1)
    assert not (used & ~np.uint64(units)).any()
    assert ((kept[:, 1] >> np.uint64(bits)) != 0).all()  # (a value is never 0)


@pytest.fixture(scope="module", params=[(), ("-DCPCORE_NARROW_UNITS=0",)],
                ids=["rows of two", "rows of three"])
def one_search(request, tmp_path_factory):
    """src/one_word.cpp built alone with WebAssembly's tally (TALLY_ONE_SEARCH: one search
    reads rows of either width, cpcore's SizedRows); with CPCORE_NARROW_UNITS=0 every tally
    keeps rows of three."""
    return core_library(tmp_path_factory, "one_word.cpp",
                        ("-DCPCORE_TALLY_ONE_SEARCH", *request.param))


def _core_tally(lib: ctypes.CDLL, layout, tally, prefixes: np.ndarray, table: Memo,
                first_live: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The tally of each row of ``prefixes`` by ``lib``'s cpcore_tally_one_word (a core
    source built alone) on ``table``, its first live slots ``first_live``: the vectors and
    the uncovered tally items."""
    width = int(tally.length[-1])
    out = np.zeros((len(prefixes), width), dtype=np.int64)
    masks = np.zeros(len(prefixes), dtype=np.int64)
    arrays = {f: np.ascontiguousarray(getattr(layout, f)) for f in (
        "start", "masks", "opts", "avail", "opt_cells", "opt_piece", "fillable",
        "slack_cells")}
    L = core_struct("one_word", **arrays, n_options=len(layout.opt_cells),
                    n_pieces=int(layout.n_pieces), all_pieces=int(layout.all_pieces),
                    optional=int(layout.optional), covered=int(layout.covered),
                    inner=int(layout.inner), first=int(layout.first), last=int(layout.last),
                    slack=int(layout.slack), n_fillable=len(layout.fillable),
                    region_limit=int(layout.region_limit),
                    isolated_dead=int(layout.isolated_dead))
    stride = np.ascontiguousarray(tally.stride, dtype=np.int64)
    T = core_struct("one_tallies", n_tally=int(tally.n_tally),
                    **{f: np.ascontiguousarray(getattr(tally, f)) for f in (
                        "bit", "opt_tally", "opt_index", "length", "map_start", "map_flat")},
                    stride=stride, stride_cols=stride.shape[1])
    keys, arena, stats = (np.asarray(a) for a in (table.keys, table.arena,
                                                  table.stats))  # (views)
    t = core_struct("one_word_table", keys=keys, n_slots=len(keys), arena=arena,
                    arena_size=len(arena), stats=stats, first_live=first_live)
    scratch = np.zeros((int(layout.n_pieces) + 1) * width, dtype=np.int64)
    status = lib.cpcore_tally_one_word(
        ctypes.byref(L), ctypes.byref(T), prefixes.ctypes.data, len(prefixes),
        prefixes.shape[1], ctypes.byref(t), 1, out.ctypes.data, width, masks.ctypes.data,
        scratch.ctypes.data, stats[5:].ctypes.data)
    assert status == 0
    return out, masks


def test_the_browsers_one_search_tallies_as_the_native_searches(one_search):
    """The browser's tally (its one search of both widths of row, built natively here, and
    under the sanitizers in tests/test_sanitized.py) writes the native tally's vectors and
    uncovered tally items, and keeps, finds and misses the same states (its table's
    statistics are the native one's)."""
    plan = TallyPlan.of(load_spec(SPECS / "calendar_day.yaml"))
    tasks = [plan.task_holes(task) for task in plan.tasks()[::5][:6]]
    layout, tally, _ = plan.session().searches._one_word_tally(None)
    prefixes = np.ascontiguousarray(searches.task_array(tasks), dtype=np.int64)
    width = int(tally.length[-1])
    made = {}
    for side in ("native", "one search"):
        table = Memo(2, 1 << 12)
        if side == "native":
            out = np.zeros((len(tasks), width), dtype=np.int64)
            masks = np.zeros(len(tasks), dtype=np.int64)
            one_word.tally_one_word(prefixes, layout, tally, table.kernel, True, out, masks,
                                    table.stop_flag)
        else:
            out, masks = _core_tally(one_search, layout, tally, prefixes, table)
        made[side] = (out.tolist(), masks.tolist(), np.asarray(table.stats).tolist())
    assert made["one search"] == made["native"]
    assert made["native"][2][0] > 0 and any(map(any, made["native"][0]))


@pytest.fixture(scope="module")
def small_growth(tmp_path_factory):
    """src/one_word.cpp built alone with a growing table's sizes made small (a table of
    more than 64 slots grows from 16), so that a few thousand states grow one many times."""
    return core_library(tmp_path_factory, "one_word.cpp", (
        "-DCPCORE_FIRST_LIVE=16", "-DCPCORE_GROWS_ABOVE=64", "-DCPCORE_QUARTER_FROM=32"))


def test_a_table_started_from_more_live_slots_keeps_the_same_states(small_growth):
    """Where the caller has a large table start (first_live, any number: the power of two
    at or below it, from the core's least to past the table's slots) changes where its
    states lie, never which: the same vectors, uncovered items and statistics (states kept,
    found, missed, searched, arena used, flushes), over tasks tallied in turn on one table
    (held from call to call, its live slots found again from the states it holds), and in
    a table that fills and is emptied. No state lies past the live slots the states held
    make (doubled from 16 while five eighths full); a table started from all its slots
    spreads them past. Under tests/test_sanitized.py the growth's invariants (every state
    found again from its hash) are checked at each doubling."""
    plan = TallyPlan.of(load_spec(SPECS / "calendar_day.yaml"))
    tasks = [plan.task_holes(task) for task in plan.tasks()[::3][:4]]
    layout, tally, _ = plan.session().searches._one_word_tally(None)
    prefixes = np.ascontiguousarray(searches.task_array(tasks), dtype=np.int64)
    for slots in (1 << 19, 1 << 10):  # (the second fills: emptied on the way)
        made, last_row = {}, {}
        for first in (0, 16, 100, 1000, slots, 1 << 40):
            table = Memo(2, slots, 1 << 22)
            found = [_core_tally(small_growth, layout, tally, prefixes[k:k + 2], table, first)
                     for k in range(0, len(prefixes), 2)]
            made[first] = ([o.tolist() for o, _ in found], [m.tolist() for _, m in found],
                           np.asarray(table.stats).tolist())
            rows = np.asarray(table.keys).reshape(slots, -1)
            last_row[first] = int(np.flatnonzero(rows[:, 1]).max())  # (a value is never 0)
        assert all(one == made[0] for one in made.values()), "a first live changed a tally"
        used, flushes = made[0][2][0], made[0][2][6]
        assert used > 0 and any(map(any, made[0][0][0]))
        live = 16
        while live < slots and used * 8 >= live * 5:
            live *= 2
        if slots == 1 << 19:
            assert flushes == 0 and live < slots
            assert max(last_row[f] for f in (0, 16, 100, 1000)) < live <= last_row[1 << 40]
        else:
            assert flushes > 0


def test_the_native_tally_starts_a_large_table_where_its_memo_says():
    """The module hands the core a memo's first live slots (Memo's first_live, which the
    engine sets for the tallies of a board of 48 cells or more): the same tally, its
    states spread over the slots asked for from the start."""
    plan = TallyPlan.of(load_spec(SPECS / "calendar_day.yaml"))
    tasks = [plan.task_holes(task) for task in plan.tasks()[:2]]
    layout, tally, _ = plan.session().searches._one_word_tally(None)
    prefixes = np.ascontiguousarray(searches.task_array(tasks), dtype=np.int64)
    made, last_row = {}, {}
    for first in (0, 1 << 21):
        table = Memo(2, 1 << 21, 1 << 20, first_live=first)  # (a large table: over 2**20)
        out = np.zeros((len(tasks), int(tally.length[-1])), dtype=np.int64)
        masks = np.zeros(len(tasks), dtype=np.int64)
        one_word.tally_one_word(prefixes, layout, tally, table.kernel, True, out, masks,
                                table.stop_flag)
        made[first] = (out.tolist(), masks.tolist(), np.asarray(table.stats).tolist())
        last_row[first] = int(np.flatnonzero(np.asarray(table.keys)[:, 1]).max())
    assert made[0] == made[1 << 21] and made[0][2][0] > 0
    assert last_row[0] < 1 << 19 < last_row[1 << 21]
    large = TallyPlan.of(load_spec(SPECS / "calendar_week.yaml")).session().searches
    assert large._one_word_table(True).first_live == searches.TALLY_FIRST_LIVE
    assert plan.session().searches._one_word_table(True).first_live == 0


def _design(name: str) -> Design:
    path = SPECS / "designs" / f"{name}.yaml"
    spec = load_design(path)
    return Design(spec, load_board(spec, path), with_counts=False)


def test_reach_searches_are_the_recorded_ones():
    """A design's first failures, set after set in one call of the core (its settled
    states carried over): the answers and the statistics of both its tables. (A settling
    looks a child up before it grows the child's regions, so a hit is also a child the
    regions would have cut: 55,745 hits where the regions grown first made 55,713; the
    slots, misses and nodes are as before.)"""
    design = _design("apad_rectangle_pentominoes")
    compiled = design._cover(False)
    sample = list(itertools.islice(design.candidates(), 0, 792, 40))
    failures = design._first_failures(compiled, sample, sample)
    answers = [None if f is None else design.required.index(f) for f in failures]
    assert answers == [None, 31, 0, 0, 4, 14, 0, 5, 0, 0, 0, 0, 71, 60, 0, 36, 1, 3, 5, 4]
    session = compiled.session
    assert session.searches._reached.stats.tolist() == [0, 0, 0, 251931, 0, 0, 0]
    assert session.searches._settled.stats.tolist() == [235302, 55745, 84, 251931, 0, 0, 0]


def test_a_count_stopped_before_it_starts_counts_nothing():
    cover = COVERS["6x10"]()
    layout = one_word_layout(cover)
    table = Memo(2, 1 << 10)
    table.stop()
    out = np.zeros(12, dtype=np.int64)
    one_word.count_one_word(_prefixes(cover, "6x10"), layout, table.kernel, True, out,
                            table.stop_flag)
    assert out.tolist() == [-1] * 12 and table.stats.tolist() == [0, 0, 0, 0, 0, 1, 0]


def test_a_count_stopped_part_way_leaves_a_true_table():
    """A stop from another thread ends the count at a node (the whole board: millions of
    nodes); the rows it finished are right, and counting again on the same table gives the
    recorded counts."""
    cover = COVERS["6x10"]()
    layout = one_word_layout(cover)
    prefixes = np.vstack([np.full((1, 3), -1), _prefixes(cover, "6x10")])
    expected = [9356, *COUNTS["6x10"][0]]
    table = Memo(2, 1 << 12)
    out = np.zeros(len(prefixes), dtype=np.int64)
    stopper = threading.Timer(0.01, table.stop)
    stopper.start()
    one_word.count_one_word(prefixes, layout, table.kernel, True, out, table.stop_flag)
    stopper.join()
    assert out[0] == -1 and all(n in (-1, e) for n, e in zip(out.tolist(), expected))
    table.clear_stop()
    one_word.count_one_word(prefixes[1:], layout, table.kernel, True, out[1:],
                            table.stop_flag)
    assert out[1:].tolist() == expected[1:]


def test_threads_count_at_once_as_one_at_a_time():
    """Four threads counting on tables of their own (the GIL released) give the counts of
    one at a time."""
    cover = COVERS["8x8 centre"]()
    layout = one_word_layout(cover)
    prefixes = np.vstack([np.full((1, 3), -1), _prefixes(cover, "8x8 centre")])

    def count(out: np.ndarray) -> None:
        table = Memo(2, 1 << 16)
        one_word.count_one_word(prefixes, layout, table.kernel, True, out, table.stop_flag)

    alone = np.zeros(len(prefixes), dtype=np.int64)
    count(alone)
    assert alone.tolist() == [520, *COUNTS["8x8 centre"][0]]
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
            one_word.count_one_word(np.array([[bad]]), layout, Memo(2, 16).kernel, True, out,
                                    np.zeros(1, np.int64))
    with pytest.raises(ValueError, match="width"):
        one_word.count_one_word(np.array([[0]]), layout, Memo(3, 16).kernel, True, out,
                                np.zeros(1, np.int64))
    table = Memo(2, 16).kernel
    with pytest.raises(TypeError):
        narrow = np.asarray(table.stats).astype(np.int32)
        one_word.count_one_word(np.array([[0]]), layout, table._replace(stats=narrow), True,
                                out, np.zeros(1, np.int64))
    with pytest.raises(ValueError, match="region"):
        one_word.count_one_word(np.array([[0]]), layout._replace(region_limit=10**6),
                                Memo(2, 16).kernel, True, out, np.zeros(1, np.int64))
    assert out.tolist() == [0]  # (nothing searched: the errors come first)


def test_bad_tally_and_reach_arguments_are_refused_before_the_search():
    """The tally and the reach search refuse options and wanted combinations their layouts
    do not have, and a layout whose labels index past its combinations."""
    plan = TallyPlan.of(load_spec(SPECS / "calendar_day.yaml"))
    layout, tally, _ = plan.session().searches._one_word_tally(None)
    out = np.zeros((1, int(tally.length[-1])), dtype=np.int64)
    masks = np.zeros(1, dtype=np.int64)
    with pytest.raises(ValueError, match="option"):
        one_word.tally_one_word(np.array([[len(plan.cover.options)]]), layout, tally,
                                Memo(2, 16).kernel, True, out, masks, np.zeros(1, np.int64))
    with pytest.raises(ValueError, match="tally item"):
        one_word.tally_one_word(np.array([[0]]), layout, tally._replace(
            opt_tally=np.full_like(tally.opt_tally, 5)), Memo(2, 16).kernel, True, out, masks,
            np.zeros(1, np.int64))
    assert not out.any()
    design = _design("apad_rectangle_pentominoes")
    session = design._cover(False).session
    assert session.reaches
    parts = session.searches._reach_parts([], [5] * 7)
    reach_layout, regions, _, _, table, settled = parts
    found = np.full(1, 7, dtype=np.int64)

    def ask(index: int, layout=reach_layout) -> None:
        reach.reach_kernel(np.full(1, -1), np.full((1, 1), -1), np.array([0, 1]), layout,
                           regions, table.kernel, settled.kernel, 1, np.array([index]),
                           np.array([1], dtype=np.uint64), found, False, np.zeros(1, np.int64))

    with pytest.raises(ValueError, match="index"):
        ask(int(reach_layout.n_index))
    with pytest.raises(ValueError, match="labels"):
        ask(0, reach_layout._replace(n_index=np.int64(1)))
    assert found.tolist() == [7]


@pytest.mark.parametrize("name", sorted(COVERS))
def test_the_counts_branching_step_on_its_own_layout_is_the_general_one(name):
    """``split_one_word`` (cpcore_split_one_word) cuts a task as the general layout's step
    does (cpcore_split_n_words, the oracle): the same options in the same order, at the
    root, two steps down, and on random rows whose options may clash; a task that fills the
    board is left to the general step (None), and an option the layout does not have is
    refused."""
    from cpmodels.backends.engine.kernels.general import split_kernel
    from cpmodels.backends.engine.layouts.cover import compile_cover

    cover = COVERS[name]()
    layout = one_word_layout(cover)
    general = compile_cover(cover).kernel
    tasks: list[tuple[int, ...]] = [()]
    for first in split_kernel(general, np.zeros(0, np.int64))[:4]:
        tasks.append((first,))
        tasks += [(first, o) for o in split_kernel(general, np.array([first]))[:3]]
    tasks += [tuple(int(o) for o in row if o >= 0) for row in _prefixes(cover, name)]
    for task in tasks:
        got = one_word.split_one_word(np.array(task, dtype=np.int64), layout)
        assert got == split_kernel(general, np.array(task, dtype=np.int64)), task
    # A solution fills the board: its step is the general layout's.
    session = searches.Searches(cover)
    solution: tuple[int, ...] = ()
    while (parts := session.split(solution)) != [solution]:
        solution = next(p for p in parts if _holds_one(session, p))
    assert one_word.split_one_word(np.array(solution, dtype=np.int64), layout) is None
    for bad in (len(cover.options), -2):
        with pytest.raises(ValueError, match="option"):
            one_word.split_one_word(np.array([bad], dtype=np.int64), layout)


def _holds_one(session: searches.Searches, task: tuple[int, ...]) -> bool:
    """Whether some solution holds ``task``'s options (the count's own call)."""
    call = session.tally_call([task], None)
    call.kernel(*call.args)
    return bool(call.out[0])
