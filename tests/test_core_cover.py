"""The compiled searches of solids and of difficulty (``cpmodels/_core``): the bit cover and
dancing links walk the same tree, node for node, with the counts and nodes recorded from the
numba kernels they replaced; the stop flag, threads, the backtracker's figures, bad arrays."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from conftest import SPECS
from test_grids import _random_cover

from cpmodels import api
from cpmodels.backends.engine.kernels import bit_cover, difficulty, links
from cpmodels.backends.engine.kernels.memo import NODES, STATS
from cpmodels.backends.engine.searches import task_array
from cpmodels.cover import ExactCover, Item, packing_cover
from cpmodels.errors import OutOfTime
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


# (count, nodes) of the whole search, recorded from the numba kernels the core replaced.
RECORDED = {"soma": (11_520, 245_397), "2x3x10": (96, 444_051), "random63/0": (4, 331),
            "random64/0": (4, 344), "random65/1": (4, 778), "random127/0": (4, 13_809),
            "random128/1": (4, 11_921), "random129/0": (4, 12_433),
            "random200/1": (4, 392_221)}
RECORDED_TASKS = {"6x10": {(1648,): (0, 1), (1649,): (389, 146_756), (1650,): (342, 119_842)},
                  "8x8": {(1264,): (0, 1), (1265,): (19, 10_402), (1266,): (20, 12_880)}}


def _bits(cover, forced, stop_value=0) -> tuple[int, int]:
    low, high, need_low, need_high, depth = bit_cover.masks(cover)
    found = bit_cover.count_kernel(low, high, need_low, need_high, depth,
                                   np.array(forced, np.int64), _fresh_stop(stop_value))
    return int(found[0]), int(found[1])


def _links(cover, forced, stop_value=0) -> tuple[int, int]:
    """The count by dancing links; a finished count leaves the links as the take left them."""
    lk = links.links(cover)
    first = np.array([lk.first_node[j] for j in forced], np.int64)
    arrays, taken = lk.copy(), lk.copy()
    found = links.count_kernel(*arrays, first, _fresh_stop(stop_value))
    if found[0] >= 0 and links.take_kernel(*taken, first):
        for a, b in zip(arrays, taken):
            assert np.array_equal(a, b)
    return int(found[0]), int(found[1])


@pytest.mark.parametrize("name", list(COVERS))
def test_bits_and_links_walk_the_same_tree(name):
    cover = COVERS[name]
    rng = random.Random(name)
    walked: dict[tuple[int, ...], tuple[tuple[int, int] | None, tuple[int, int]]] = {}

    def walk(forced: tuple[int, ...]) -> tuple[tuple[int, int] | None, tuple[int, int]]:
        """Both kernels' (count, nodes) with ``forced`` (bits: None when the cover does
        not fit them), each walk made once (a recorded task is among the prefixes)."""
        if forced not in walked:
            walked[forced] = (_bits(cover, forced) if bit_cover.fits(cover) else None,
                              _links(cover, forced))
        return walked[forced]

    for forced in _prefixes(cover, rng):
        if not forced and name in ("6x10", "8x8"):
            continue  # the whole count is long; its tasks are checked
        by_bits, by_links = walk(forced)
        if by_bits is not None:
            assert by_bits == by_links, forced
        if not forced and name in RECORDED:
            assert by_links == RECORDED[name]
    for forced, figures in RECORDED_TASKS.get(name, {}).items():
        assert walk(forced) == (figures, figures), forced


def test_forced_options_that_clash_count_nothing():
    cover = COVERS["soma"]
    a = bit_cover.root_tasks(cover)[0][0]
    clash = next(j for j, o in enumerate(cover.options) if j != a
                 and set(o) & set(cover.options[a]))
    assert _bits(cover, (a, clash)) == _links(cover, (a, clash)) == (0, 0)
    lk = links.links(cover)
    arrays = lk.copy()
    assert not links.take_kernel(*arrays, np.array([lk.first_node[a], lk.first_node[clash]]))
    arrays = lk.copy()
    assert links.take_kernel(*arrays, np.array([lk.first_node[a]]))
    length, nxt = arrays[3], arrays[5]
    open_items, i = [], nxt[0]
    while i != 0:
        open_items.append(int(i))
        i = nxt[i]
    fewest = min(open_items, key=lambda i: (length[i], open_items.index(i)))
    assert links.most_constrained_kernel(length, nxt) == fewest


@pytest.mark.parametrize("count", [_bits, _links])
def test_a_set_stop_flag_ends_a_count_at_its_first_look(count):
    """The flag is looked at before the search starts: no node is searched."""
    from cpmodels import _native

    assert count(COVERS["6x10"], (), stop_value=1) == (_native.STOPPED, 0)


def test_a_set_stop_flag_ends_the_difficulty_search():
    _, bt, holes = next(_backtrackers())
    with pytest.raises(OutOfTime):
        bt.nodes(holes[0], stop=np.ones(1, np.int64))


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


@pytest.mark.parametrize("count", [_bits, _links])
def test_counts_from_several_threads_equal_those_of_one(count):
    cover = COVERS["8x8"]
    tasks = bit_cover.root_tasks(cover)[:4]
    alone = [count(cover, t) for t in tasks]
    results: dict[int, list] = {}

    def work(k: int) -> None:
        results[k] = [count(cover, t) for t in tasks[k:] + tasks[:k]]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [0, 1, 2, 3]
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


# Nodes per piece order for three dates, recorded from the numba backtracker.
RECORDED_NODES = {"calendar_day": [[70, 1358, 435, 1497], [165, 768, 130, 1009],
                                   [1619, 1651, 1363, 6835]],
                  "calendar_week": [[706, 458, 28, 2983], [2915, 98, 4593, 309],
                                    [2948, 1478, 1402, 1471]]}


def _first_solution(bt, forced, order, max_nodes):
    filled = np.zeros(bt.n_cells, np.uint8)
    used = np.zeros(len(bt.capacity), np.int64)
    for o in forced:
        filled[bt.cells[bt.cells_start[o]:bt.cells_start[o + 1]]] += 1
        np.add.at(used, bt.counters[bt.counters_start[o]:bt.counters_start[o + 1]], 1)
    return difficulty._first_solution_nodes(
        bt.n_cells, filled, used, bt.capacity, bt.low, bt.start[order], bt.listed[order],
        bt.cells, bt.cells_start, bt.counters, bt.counters_start, max_nodes,
        np.zeros(1, np.int64))


def test_difficulty_figures_and_the_node_limit():
    for name, bt, holes in _backtrackers():
        for forced, recorded in zip(holes, RECORDED_NODES[name]):
            assert bt.nodes(forced) == recorded
            for order, n in enumerate(recorded):  # capped exactly when the limit is reached
                assert _first_solution(bt, forced, order, n + 1) == n
                assert _first_solution(bt, forced, order, n) == difficulty.CAPPED
    for width in (5, 6):  # an odd strip: no solution once the whole tree is searched
        bt = difficulty.Backtracker.of(_strip(width, 1), orders=2)
        found = [_first_solution(bt, [], order, difficulty.MAX_NODES) for order in (0, 1)]
        assert (found == [difficulty.NO_SOLUTION] * 2) == (width % 2 == 1)
        assert bt.difficulty() is None if width % 2 else bt.difficulty() is not None


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
            bt.counters, bt.counters_start, 100, np.zeros(1, np.int64)]
    layout = [bt.n_cells, len(bt.capacity), bt.start[0], bt.listed[0], bt.cells,
              bt.cells_start, bt.counters, bt.counters_start]
    _native.check_backtracker(*layout)  # the layout Backtracker.of made
    bad_cells = bt.cells.copy()
    bad_cells[3] = bt.n_cells
    with pytest.raises(ValueError, match="a cell out of range"):
        _native.check_backtracker(*layout[:4], bad_cells, *layout[5:])
    with pytest.raises(ValueError, match="one entry a cell"):
        _native.first_solution_nodes(bt.n_cells + 1, *args[1:])
    with pytest.raises(ValueError, match="one entry a cell"):
        _native.check_backtracker(bt.n_cells + 1, *layout[1:])
    elsewhere = bt.listed[0].copy()  # an option under a cell it does not cover
    elsewhere[bt.start[0][0]] = elsewhere[bt.start[0][-2]]
    with pytest.raises(ValueError, match="listed under a cell it does not cover"):
        _native.check_backtracker(*layout[:3], elsewhere, *layout[4:])
    bad_start = bt.start[0].copy()
    bad_start[1] = bad_start[-1] + 1
    with pytest.raises(ValueError, match=r"start must not decrease|runs past"):
        _native.check_backtracker(*layout[:2], bad_start, *layout[3:])


@pytest.mark.parametrize("name, on_bits", [("8x8", True), ("random200/1", False)])
def test_a_count_in_threads_is_the_count_in_one(name, on_bits):
    # links.count_tasks counts tasks in turn; tasks counted from several threads at once
    # (each its own copy of the links) give the counts and the nodes of one thread, and a
    # task's parts at its most constrained item add up to its count.
    cover = COVERS[name]
    tasks = [()] if name != "8x8" else bit_cover.root_tasks(cover)[1:4]
    lk = None if on_bits else links.links(cover)
    bits = bit_cover.masks(cover) if on_bits else None

    def counted(some):
        stats = np.zeros(STATS, np.int64)
        out = np.zeros(len(some), np.int64)
        links.count_tasks(task_array(some), lk, bits, out, stats)
        return out.tolist(), int(stats[NODES])

    alone = counted(tasks)
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda task: counted([task]), tasks * 2))
    assert [c for (c,), _ in together] == alone[0] * 2
    assert sum(n for _, n in together) == 2 * alone[1]
    assert alone[0] == [_links(cover, t)[0] for t in tasks]
    parts = (bit_cover.root_tasks(cover, tasks[0]) if on_bits
             else links.root_tasks(links.links(cover), tasks[0]))
    assert sum(counted(parts)[0]) == alone[0][0]
