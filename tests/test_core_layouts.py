"""The general kernels' layout and its tallies, made by the compiled core
(``cpcore/cover_layout.hpp``): array for array, bit for bit, what the Python made before
(``layout_oracle.py``) on every bundled spec's covers and on seeded random small covers;
refusals in the same words; a cover the core cannot read refused, not read out of bounds."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import layout_oracle as oracle
import numpy as np
import pytest
from conftest import SPECS

from cpmodels import _native
from cpmodels.backends.engine.layouts.cover import CompiledCover, compile_cover
from cpmodels.backends.engine.layouts.described import struct_of
from cpmodels.backends.engine.layouts.flat import cover_arrays
from cpmodels.backends.engine.layouts.regions import region_sizes
from cpmodels.backends.engine.layouts.tally import TallyLayout, tally_layout
from cpmodels.cover import ExactCover, Item, ItemKind
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec
from cpmodels.spec.models import CalendarSpec, PackingSpec
from cpmodels.sweep import sweep_cover, sweep_plan

BUNDLED = sorted(p for p in SPECS.glob("*.yaml")
                 if isinstance(load_spec(p), (PackingSpec, CalendarSpec)))


def _same(native: object, python: object, skip: tuple[str, ...]) -> None:
    """Every field of two layouts equal: arrays in dtype, shape and every entry."""
    for f in dataclasses.fields(native):
        if f.name in skip:
            continue
        a, b = getattr(native, f.name), getattr(python, f.name)
        if isinstance(a, memoryview):  # a buffer of the standard library (buffers.py)
            a = np.asarray(a)
        if isinstance(b, np.ndarray):
            assert isinstance(a, np.ndarray), f.name
            assert (a.dtype, a.shape) == (b.dtype, b.shape), f.name
            assert np.array_equal(a, b), f.name
        else:
            assert type(a) is type(b) and a == b, f.name


def _check(cover: ExactCover, tallies: list[list[int]] = ()) -> CompiledCover:
    """The core's layout of ``cover`` and of each list of tally items is the oracle's."""
    native, python = compile_cover(cover).numpy(), oracle.compile_cover(cover)
    _same(native, python, skip=("cover", "arrays"))
    for items in tallies:
        _same(tally_layout(native, items), oracle.tally_layout(python, items), skip=())
    return native


def _covers(path: Path) -> list[tuple[ExactCover, list[list[int]]]]:
    """A spec's covers: a calendar's sweep cover (tallied by its free groups, as a sweep
    tallies, and by every slack item), its cover of one date and its face-up sweep; any
    other spec's cover."""
    spec = load_spec(path)
    if not isinstance(spec, CalendarSpec):
        return [(packing_instance(Query.of(spec)).cover, [])]
    plan = sweep_plan(spec)
    cover, slack = sweep_cover(spec)
    labels = [group[0] for group in spec.groups.values()]
    face_up, _ = sweep_cover(spec, face_up=True)
    return [(plan.cover, [plan.tally_items, []]), (cover, [slack, slack[:1]]),
            (packing_instance(Query.of(spec, labels=labels)).cover, []), (face_up, [])]


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_every_bundled_spec_lays_out_as_before(path):
    for cover, tallies in _covers(path):
        _check(cover, tallies)


def _random_cover(rng: random.Random) -> tuple[ExactCover, list[int]]:
    """A small cover of every kind of item: cells (some twice, some secondary, some off the
    board), pieces once and in copies, slack items, counters; options with and without an
    exact-one item, a counter, a cell; and tally items among the exact-one items."""
    grid = rng.choice(["square", "triangle", "hex"])
    side = rng.randint(2, 5)
    cells = [(r, c) for r in range(side) for c in range(side) if rng.random() < 0.85]
    items = [Item(f"c{k}", low=rng.choice([1, 1, 1, 0]), high=1, cell=cell)
             for k, cell in enumerate(cells)]
    if cells and rng.random() < 0.3:
        items.append(Item("again", cell=rng.choice(cells)))  # a cell named twice
    for k in range(rng.randint(1, 6)):
        low, high = rng.choice([(1, 1), (1, 1), (0, 1), (2, 3), (0, 2), (3, 3)])
        items.append(Item(f"p{k}", low=low, high=high,
                          kind=rng.choice([ItemKind.PIECE, ItemKind.SLACK])))
    counters = [i for i, it in enumerate(items) if not (it.high == 1 and it.low <= 1)]
    plain = [i for i in range(len(items)) if i not in counters]
    options = []
    board = [i for i, it in enumerate(items) if it.cell is not None and it.low == 1]
    pieces = [i for i, it in enumerate(items) if it.cell is None]
    if board and rng.random() < 0.5:
        # Placements: each piece its own number of board cells (region sizes apply), some
        # left out (no cell).
        area = {p: rng.randint(1, min(4, len(board))) for p in pieces}
        for _ in range(rng.randint(1, 40)):
            p = rng.choice(pieces)
            cells = rng.sample(board, area[p]) if rng.random() < 0.9 else []
            options.append((*cells, p))
    for _ in range(rng.randint(0, 40) if not options or rng.random() < 0.3 else 0):
        option = rng.sample(plain, rng.randint(0, min(5, len(plain))))
        if counters and rng.random() < 0.5:
            option.append(rng.choice(counters))
        if option or rng.random() < 0.2:
            options.append(tuple(option))
    exact = [i for i, it in enumerate(items) if it.low == it.high == 1]
    tally = [i for i in rng.sample(exact, min(len(exact), rng.randint(0, 3)))
             if sum(i in o for o in options) > 0]
    # At most one tally item an option (a second would be refused).
    kept = []
    for i in tally:
        if not any(i in o and any(t in o for t in kept) for o in options):
            kept.append(i)
    return ExactCover(items, options, grid=grid), kept


@pytest.mark.parametrize("seed", range(6))
def test_random_covers_lay_out_as_before(seed):
    rng = random.Random(seed)
    for _ in range(60):
        cover, tally = _random_cover(rng)
        _check(cover, [tally, []])


def test_region_sizes_as_before():
    rng = random.Random(7)
    for _ in range(300):
        areas = [rng.randint(1, 9) for _ in range(rng.randint(0, 7))]
        total = rng.randint(0, 40)
        fillable, limit = region_sizes(areas, total)
        want, want_limit = oracle.region_sizes(areas, total)
        assert np.array_equal(fillable, want) and limit == want_limit
    with pytest.raises(ValueError, match="area must be positive"):
        region_sizes([3, 0], 5)


def _pieces(n: int) -> list[Item]:
    return [Item(f"p{k}") for k in range(n)]


def test_refusals_keep_their_words():
    two_counters = ExactCover([Item("a"), Item("x", 0, 2), Item("y", 0, 2)], [(0, 1, 2)])
    with pytest.raises(ValueError, match=r"^an option may cover at most one multiplicity"):
        compile_cover(two_counters)
    cc = compile_cover(ExactCover([Item("a"), Item("b"), Item("s", 0, 1)], [(0, 1), (2,)]))
    with pytest.raises(ValueError, match=r"^an option may cover at most one tally item"):
        tally_layout(cc, [0, 1])
    with pytest.raises(ValueError, match=r"^tally item s is not an exact-one item"):
        tally_layout(cc, [0, 2])
    many = compile_cover(ExactCover(_pieces(17), [(k,) for k in range(17)]))
    with pytest.raises(ValueError, match=r"^at most 16 tally items"):
        tally_layout(many, list(range(17)))
    with pytest.raises(ValueError, match=r"^an option lists an item twice"):
        compile_cover(ExactCover(_pieces(2), [(0, 1, 0)]))


def _sizes(name: str, raw: bytes) -> dict[str, int]:
    """The sizes a layout binding hands back (``cpcore_NAME_sizes``'s bytes), by field."""
    return struct_of(f"cpcore_{name}_sizes", raw)


def test_the_core_refuses_a_cover_it_cannot_read():
    """Arrays out of range, runs out of order, bounds past 2**31: an error, nothing read
    past an array's end."""
    good = cover_arrays(ExactCover([Item("a", cell=(0, 0)), Item("b", cell=(0, 1)),
                                    Item("p", 2, 2)], [(0, 2), (1, 2)]))
    assert _sizes("cover", _native.cover_layout_sizes(good))["error"] == 0

    def bad(**change):
        return _sizes("cover", _native.cover_layout_sizes(
            good | {k: np.array(v, dtype=np.int64) for k, v in change.items()}))["error"]

    assert bad(opt_items=[0, 2, 1, 3]) == 4  # no item 3
    assert bad(opt_items=[0, 2, 1, -1]) == 4
    assert bad(opt_start=[0, 3, 2]) == 3  # runs decrease, and end short of the items
    assert bad(opt_start=[1, 2, 4]) == 3
    assert bad(opt_start=[0, 2, 5]) == 3  # past the items
    assert bad(high=[1, 1, 2**31]) == 1
    assert bad(low=[1, 2, 2]) == 1  # low above high
    assert bad(item_cell=[0, 2, -1]) == 2  # no cell 2
    nbs = np.asarray(good["cell_nbs"])
    assert bad(cell_nbs=np.where(nbs == 1, 5, nbs)) == 2
    with pytest.raises(TypeError):
        _native.cover_layout_sizes(good | {"low": np.zeros(3, dtype=np.int32)})
    with pytest.raises(ValueError, match="wrong size"):
        _native.cover_layout_sizes(good | {"high": np.zeros(2, dtype=np.int64)})
    cc = compile_cover(ExactCover([Item("a"), Item("b")], [(0,), (1,)]))
    arrays = {"bit_of_item": cc.bit_of_item, "anchor_start": cc.anchor_start,
              "anchor_opts": np.array([0, 5], dtype=np.int64)}
    items = np.array([0], dtype=np.int64)
    assert _sizes("tally", _native.tally_layout_sizes(cc.arrays, arrays, items))["error"] == 3
    arrays["anchor_opts"] = cc.anchor_opts
    nine = np.array([9], np.int64)
    assert _sizes("tally", _native.tally_layout_sizes(cc.arrays, arrays, nine))["error"] == 8


def test_a_fill_takes_arrays_of_the_measured_sizes_alone():
    cover = ExactCover([Item("a", cell=(0, 0)), Item("b", cell=(0, 1))], [(0, 1)])
    arrays = cover_arrays(cover)
    cc = compile_cover(cover).numpy()
    out = {name: getattr(cc, name).copy() for name in (
        "bit_of_item", "counter_of_item", "opt_mask", "opt_counter", "opt_tag_word",
        "opt_tag_bit", "anchor_start", "anchor_opts", "group_end", "counter_low",
        "counter_high", "radix", "cell_nb", "opt_nb_start", "opt_nb", "fillable")}
    assert _sizes("cover", _native.cover_layout_fill(arrays, out))["error"] == 0
    with pytest.raises(ValueError, match="opt_nb_start has the wrong size"):
        _native.cover_layout_fill(arrays, out | {"opt_nb_start": np.zeros(1, np.int64)})
    with pytest.raises(TypeError, match="fillable"):
        _native.cover_layout_fill(arrays, out | {"fillable": np.zeros(3, np.int64)})
    tallies = tally_layout(cc, [0])
    assert isinstance(tallies, TallyLayout) and tallies.options == [[0]]


def test_counters_past_what_a_memo_key_holds():
    """Seven counters of 0 to 1000 make more states than 2**63: no memo, the radix as
    before; six fit."""
    for n, memo in ((6, True), (7, False)):
        items = [Item("a"), *(Item(f"k{c}", 0, 1000) for c in range(n))]
        cc = _check(ExactCover(items, [(0, c + 1) for c in range(n)]))
        assert cc.memo_ok is memo and int(cc.radix[-1]) == 1001 ** (n - 1)
