"""The compiled searches of solids and of difficulty against the numba kernels they replace:
the same counts, nodes, verdicts and links, on the bundled covers and random ones."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest
from conftest import SPECS
from test_grids import _random_cover

from cpmodels import api
from cpmodels.backends.engine import bit_cover, difficulty, links
from cpmodels.cover import ExactCover, Item, packing_cover
from cpmodels.geometry import Placement
from cpmodels.spec import load_spec
from cpmodels.sweep import slack_options, sweep_cover


def _covers():
    yield "soma", api.instance(SPECS / "soma.yaml").cover
    yield "2x3x10", api.instance(SPECS / "solid_pentominoes.yaml", target="box_2x3x10").cover
    yield "6x10", api.instance(SPECS / "pentominoes_6x10.yaml").cover
    yield "8x8", api.instance(SPECS / "pentominoes_8x8_centre.yaml").cover
    for n_items in (5, 63, 64, 65, 127, 128, 129, 200):
        for seed in range(2):
            yield f"random{n_items}/{seed}", _random_cover(n_items, seed)


COVERS = dict(_covers())


def _prefixes(cover, rng: random.Random, n: int = 6) -> list[tuple[int, ...]]:
    """Forced option sets: none, the root's first tasks, random (possibly clashing) ones."""
    found: list[tuple[int, ...]] = [()]
    for task in bit_cover.root_tasks(cover)[:2]:
        found += [task, *bit_cover.root_tasks(cover, task)[:2]]
    found += [tuple(rng.sample(range(len(cover.options)), k)) for k in (1, 2, 3)]
    return found[:n]


def _fresh_stop(value: int = 0) -> np.ndarray:
    return np.full(1, value, np.int64)


def _bits_both(cover, forced, stop_value=0):
    low, high, need_low, need_high, depth = bit_cover.masks(cover)
    f = np.array(forced, np.int64)
    ours = bit_cover.count_kernel(low, high, need_low, need_high, depth, f,
                                  _fresh_stop(stop_value))
    theirs = bit_cover._numba_count_kernel(low, high, need_low, need_high, depth, f,
                                           _fresh_stop(stop_value))
    return tuple(map(int, ours)), tuple(map(int, theirs))


@pytest.mark.parametrize("name", [n for n, c in COVERS.items() if bit_cover.fits(c)])
def test_bits_count_node_for_node(name):
    cover = COVERS[name]
    rng = random.Random(name)
    for forced in _prefixes(cover, rng):
        if not forced and name in ("6x10", "8x8"):
            continue  # the whole count is long; its tasks are checked
        ours, theirs = _bits_both(cover, forced)
        assert ours == theirs, forced


def _links_both(cover, forced, stop_value=0):
    lk = links.links(cover)
    first = np.array([lk.first_node[j] for j in forced], np.int64)
    ours_arrays, theirs_arrays = lk.copy(), lk.copy()
    ours = links.count_kernel(*ours_arrays, first, _fresh_stop(stop_value))
    theirs = links._numba_count_kernel(*theirs_arrays, first, _fresh_stop(stop_value))
    if ours[0] >= 0:  # a finished count leaves the links as they were after the take
        for a, b in zip(ours_arrays, theirs_arrays):
            assert np.array_equal(a, b)
    return tuple(map(int, ours)), tuple(map(int, theirs))


@pytest.mark.parametrize("name", list(COVERS))
def test_links_count_node_for_node(name):
    cover = COVERS[name]
    rng = random.Random(name)
    lk = links.links(cover)
    for forced in _prefixes(cover, rng):
        if not forced and name in ("6x10", "8x8"):
            continue
        ours, theirs = _links_both(cover, forced)
        assert ours == theirs, forced
        first = np.array([lk.first_node[j] for j in forced], np.int64)
        a, b = lk.copy(), lk.copy()
        took = links.take_kernel(*a, first)
        assert took == links._numba_take_kernel(*b, first)
        if took:
            for x, y in zip(a, b):
                assert np.array_equal(x, y)
            assert links.most_constrained_kernel(a[3], a[5]) \
                == links._numba_most_constrained_kernel(b[3], b[5])


@pytest.mark.parametrize("both", [_bits_both, _links_both])
def test_a_set_stop_flag_ends_both_at_the_same_node(both):
    cover = COVERS["6x10"]
    ours, theirs = both(cover, (), stop_value=1)
    assert ours == theirs == (-1, 1 << 16)


def test_a_stop_from_another_thread_ends_a_count_with_the_gil_released():
    cover = COVERS["6x10"]
    low, high, need_low, need_high, depth = bit_cover.masks(cover)
    stop = _fresh_stop()
    found: list = []
    worker = threading.Thread(target=lambda: found.append(bit_cover.count_kernel(
        low, high, need_low, need_high, depth, np.zeros(0, np.int64), stop)))
    worker.start()
    stop[0] = 1  # set while the count runs (the main thread runs: the GIL is free)
    worker.join(timeout=60)
    assert not worker.is_alive() and found[0][0] == -1


def test_counts_from_several_threads_equal_those_of_one():
    cover = COVERS["8x8"]
    tasks = bit_cover.root_tasks(cover)[:4]
    alone = [_bits_both(cover, t)[1] for t in tasks]
    results: dict[int, list] = {}

    def work(k: int) -> None:
        order = tasks[k:] + tasks[:k]
        results[k] = [_bits_both(cover, t)[0] for t in order]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, got in results.items():
        assert got == alone[k:] + alone[:k]


def _backtrackers():
    for name in ("calendar_day", "calendar_week"):
        spec = load_spec(SPECS / f"{name}.yaml")
        cover, _ = sweep_cover(spec)
        slack = slack_options(cover, spec)
        holes = [[slack[(g, labels[(7 * k + 3 * i) % len(labels)])]
                  for i, (g, labels) in enumerate(spec.groups.items())] for k in range(6)]
        yield name, difficulty.Backtracker.of(cover, orders=4), holes


def _strip(width: int, cut: int) -> ExactCover:
    """A 1 x ``width`` strip and dominoes A and B, A's placement at ``cut`` left out."""
    cover = packing_cover([(0, c) for c in range(width)], [])
    cover.items += [Item("A", 0, width), Item("B", 0, width)]
    for piece, item in (("A", width), ("B", width + 1)):
        for c in range(width - 1):
            if (piece, c) != ("A", cut):
                cover.options.append((c, c + 1, item))
                cover.placements.append(Placement(piece, ((0, c), (0, c + 1))))
    return cover


@pytest.mark.parametrize("max_nodes", [1, 50, 5_000, difficulty.MAX_NODES])
def test_difficulty_node_for_node(max_nodes):
    strips = [("strip", difficulty.Backtracker.of(_strip(w, 1), orders=2), [])
              for w in (5, 6)]  # odd: no solution after the whole tree
    outcomes = set()
    for _, bt, holes in [*_backtrackers(), *strips]:
        for forced in [[], *holes]:
            filled = np.zeros(bt.n_cells, np.uint8)
            used = np.zeros(len(bt.capacity), np.int64)
            for o in forced:
                filled[bt.cells[bt.cells_start[o]:bt.cells_start[o + 1]]] += 1
                np.add.at(used, bt.counters[bt.counters_start[o]:bt.counters_start[o + 1]], 1)
            for start, listed in zip(bt.start, bt.listed):
                args = (bt.n_cells, filled, used, bt.capacity, bt.low, start, listed,
                        bt.cells, bt.cells_start, bt.counters, bt.counters_start, max_nodes)
                found = difficulty._first_solution_nodes(*args)
                assert found == difficulty._numba_first_solution_nodes(*args)
                outcomes.add(found if found < 0 else 0)
    assert outcomes == ({difficulty.CAPPED} if max_nodes == 1
                        else {0, difficulty.NO_SOLUTION} | outcomes)


def test_bad_arrays_are_refused_with_a_clear_error():
    from cpmodels import _native

    cover = COVERS["soma"]
    low, high, need_low, need_high, depth = bit_cover.masks(cover)
    stop = _fresh_stop()
    with pytest.raises(ValueError, match="forced option out of range"):
        _native.bit_cover_count(low, high, need_low, need_high, depth,
                                np.array([len(low)], np.int64), stop)
    with pytest.raises(ValueError, match="differ in number"):
        _native.bit_cover_count(low, high[:-1], need_low, need_high, depth,
                                np.zeros(0, np.int64), stop)
    with pytest.raises(ValueError, match="depth"):
        _native.bit_cover_count(low, high, need_low, need_high, 0, np.zeros(0, np.int64), stop)
    with pytest.raises(TypeError):  # the flag must be the caller's own int64 array
        _native.bit_cover_count(low, high, need_low, need_high, depth,
                                np.zeros(0, np.int64), np.zeros(1, np.int32))
    lk = links.links(cover)
    arrays = lk.copy()
    with pytest.raises(ValueError, match="spacer"):
        _native.links_count(*arrays, np.array([len(cover.items) + 1], np.int64), stop)
    with pytest.raises(ValueError, match="forced node out of range"):
        _native.links_take(*arrays, np.array([len(lk.top)], np.int64))
    with pytest.raises(ValueError, match="differ in length"):
        _native.links_count(arrays[0], arrays[1][:-1], *arrays[2:],
                            np.zeros(0, np.int64), stop)
    with pytest.raises(TypeError):  # a copy would be changed, not the caller's links
        _native.links_take(arrays[0], arrays[1].astype(np.int32), *arrays[2:],
                           np.zeros(0, np.int64))
    _, bt, _ = next(_backtrackers())
    args = [bt.n_cells, np.zeros(bt.n_cells, np.uint8), np.zeros(len(bt.capacity), np.int64),
            bt.capacity, bt.low, bt.start[0], bt.listed[0], bt.cells, bt.cells_start,
            bt.counters, bt.counters_start, 100]
    bad_cells = bt.cells.copy()
    bad_cells[3] = bt.n_cells
    with pytest.raises(ValueError, match="a cell out of range"):
        _native.first_solution_nodes(*args[:7], bad_cells, *args[8:])
    with pytest.raises(ValueError, match="one entry a cell"):
        _native.first_solution_nodes(bt.n_cells + 1, *args[1:])
    bad_start = bt.start[0].copy()
    bad_start[1] = bad_start[-1] + 1
    with pytest.raises(ValueError, match="start must not decrease|runs past"):
        _native.first_solution_nodes(*args[:5], bad_start, *args[6:])
