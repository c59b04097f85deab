"""The compiled core's one-word layout (``cpcore/one_word_layout.hpp``) against the layout
the Python made before it (``layout_oracle.py``): array for array, dtypes and order, on
every bundled spec's covers, each corner, and on seeded random covers that suit the
one-word kernel or miss it by one thing; and the core's answers to arrays it cannot read."""

from __future__ import annotations

import ctypes
import random

import layout_oracle as oracle
import numpy as np
import pytest
from conftest import CORE_STRUCTS, SPECS, core_library

from cpmodels import _native
from cpmodels.backends.engine.layouts.cover import OneWord, compile_cover, one_word_layout
from cpmodels.backends.engine.layouts.described import struct_of
from cpmodels.backends.engine.layouts.flat import cover_arrays
from cpmodels.backends.engine.layouts.tally import OneTallies, one_word_tallies, tally_layout
from cpmodels.cover import ExactCover, Item, ItemKind
from cpmodels.geometry import OptionKind, Placement
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec
from cpmodels.spec.models import CalendarSpec, PackingSpec
from cpmodels.sweep import sweep_cover, sweep_plan

BUNDLED = sorted(p for p in SPECS.glob("*.yaml")
                 if isinstance(load_spec(p), (PackingSpec, CalendarSpec)))


def _same(native: OneWord | None, python: OneWord | None) -> None:
    assert (native is None) == (python is None)
    if native is None or python is None:
        return
    for name, a, b in zip(OneWord._fields, native, python, strict=True):
        if isinstance(b, np.ndarray):  # the core's: a buffer (layouts/buffers.py)
            assert isinstance(a, memoryview), name
            a = np.asarray(a)
            assert (a.dtype, a.shape) == (b.dtype, b.shape), name
            assert np.array_equal(a, b), name
        elif isinstance(b, np.integer):  # a word: a whole number
            assert type(a) is int and a == int(b), name
        else:
            assert type(a) is type(b) and a == b, name


def _same_tallies(native: OneTallies | None, python: OneTallies | None) -> None:
    assert (native is None) == (python is None)
    if native is None or python is None:
        return
    for name, a, b in zip(OneTallies._fields, native, python, strict=True):
        if isinstance(b, np.ndarray):
            a = np.asarray(a)
            assert (a.dtype, a.shape) == (b.dtype, b.shape), name
            assert np.array_equal(a, b), name
        else:
            assert type(a) is type(b) and a == b, name


def _check(cover: ExactCover) -> int:
    """The core's layout of ``cover`` from each corner is the oracle's; how many suit."""
    suits = 0
    for flips in range(4):
        native = one_word_layout(cover, flips)
        _same(native, oracle.one_word_layout(cover, flips))
        suits += native is not None
    return suits


def _covers(path):
    spec = load_spec(path)
    if not isinstance(spec, CalendarSpec):
        return [packing_instance(Query.of(spec)).cover]
    labels = [group[0] for group in spec.groups.values()]
    return [sweep_plan(spec).cover, sweep_cover(spec)[0], sweep_cover(spec, face_up=True)[0],
            packing_instance(Query.of(spec, labels=labels)).cover]


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_every_bundled_spec_lays_out_as_before(path):
    for cover in _covers(path):
        _check(cover)


@pytest.mark.parametrize("path", [p for p in BUNDLED
                                  if isinstance(load_spec(p), CalendarSpec)],
                         ids=lambda p: p.stem)
def test_every_calendar_tallies_as_before(path):
    """A sweep's tally items, each slack item, none, and a cell (the kernel does not suit)."""
    spec = load_spec(path)
    plan = sweep_plan(spec)
    cover, slack = sweep_cover(spec)
    for c, items in ((plan.cover, plan.tally_items), (plan.cover, []), (cover, slack),
                     (cover, slack[:1]), (cover, [0])):
        layout = tally_layout(compile_cover(c), items).kernel if items else None
        native = one_word_tallies(c, items, layout)
        _same_tallies(native, oracle.one_word_tallies(c, items, layout))
        assert (native is None) == (items == [0])


def test_the_weekday_sweep_suits():
    cover = sweep_plan(load_spec(SPECS / "calendar_week.yaml")).cover
    assert _check(cover) == 4


def _random_cover(rng: random.Random) -> ExactCover:
    """A square board somewhere on the grid (at times past 64 cells in its box), pieces and
    slack items with their options, some left out; most suit, the rest miss by one thing."""
    rows, cols = rng.randint(1, 9), rng.randint(1, 9)
    x0, y0 = rng.randint(-5, 5), rng.randint(-5, 5)
    cells = [(x0 + r, y0 + c) for r in range(rows) for c in range(cols)
             if rng.random() < 0.9]
    cells = cells or [(x0, y0)]
    rng.shuffle(cells)
    items = [Item(f"c{k}", cell=cell) for k, cell in enumerate(cells)]
    kinds = [rng.choice([ItemKind.PIECE, ItemKind.PIECE, ItemKind.SLACK])
             for _ in range(rng.randint(1, 6))]
    items += [Item(f"p{k}", kind=kind) for k, kind in enumerate(kinds)]
    board = list(range(len(cells)))
    area = {p: rng.randint(1, min(4, len(board))) for p in range(len(kinds))}
    options, placed = [], []
    for _ in range(rng.randint(1, 40)):
        p = rng.randrange(len(kinds))
        owner = len(cells) + p
        if kinds[p] is ItemKind.SLACK:
            chosen, kind = rng.sample(board, 1), OptionKind.SLACK
        elif rng.random() < 0.1:
            chosen, kind = [], OptionKind.LEFT_OUT
        else:
            chosen, kind = rng.sample(board, area[p]), OptionKind.PIECE
        option = [*chosen, owner]
        rng.shuffle(option)
        options.append(tuple(option))
        placed.append(Placement(f"p{p}", tuple(sorted(cells[c] for c in chosen)), kind))
    miss = rng.randrange(8)
    if miss == 0:
        options.append((board[0],))  # an option of no piece
    elif miss == 1:
        items.append(Item("two", low=0, high=1))  # an item not exactly once
    elif miss == 2 and placed:
        placed[0] = Placement(placed[0].piece, placed[0].cells, OptionKind.SLACK)
    elif miss == 3:
        area[0] += 1
        options.append((*rng.sample(board, min(area[0], len(board))), len(cells)))
    return ExactCover(items, options, placed if miss not in (0, 3) and rng.random() < 0.7
                      else [], grid=rng.choice(["square"] * 5 + ["hex"]))


@pytest.mark.parametrize("seed", range(6))
def test_random_covers_lay_out_as_before(seed):
    rng = random.Random(seed)
    suits = sum(_check(_random_cover(rng)) > 0 for _ in range(80))
    assert 10 < suits < 80  # both answers met


def _board(n: int) -> ExactCover:
    cells = [Item(f"c{k}", cell=(0, k)) for k in range(n)]
    return ExactCover([*cells, Item("p")], [(k, n) for k in range(n)])


def test_past_a_word_it_does_not_suit():
    assert one_word_layout(_board(64)) is not None
    assert one_word_layout(_board(65)) is None
    many = ExactCover([Item("c", cell=(0, 0)), *(Item(f"p{k}") for k in range(65))],
                      [(0, k + 1) for k in range(65)])
    assert one_word_layout(many) is None and oracle.one_word_layout(many) is None
    far = ExactCover([Item("a", cell=(-2**62, 0)), Item("b", cell=(2**62, 0)), Item("p")],
                     [(0, 2), (1, 2)])
    assert one_word_layout(far) is None and oracle.one_word_layout(far) is None


def _input(cover: ExactCover) -> tuple:
    xy = np.array(list(dict.fromkeys(it.cell for it in cover.items if it.cell)),
                  dtype=np.int64).reshape(-1, 2)
    kinds = np.array([it.kind for it in cover.items], dtype=np.int64)
    arrays = {name: np.asarray(a) for name, a in cover_arrays(cover).items()}
    return arrays, xy, kinds, np.zeros(0, dtype=np.int64)


def _sizes(raw: bytes) -> dict[str, int]:
    """The sizes the one-word layout's bindings hand back (their struct's bytes), by field."""
    return struct_of("cpcore_one_word_sizes", raw)


def test_the_core_answers_what_it_cannot_read():
    """Bad arrays are refused in the general layout's words; kinds it does not know do not
    suit; arrays of the wrong sizes are an error, nothing read past their ends."""
    arrays, xy, kinds, none = _input(_board(3))
    assert _sizes(_native.one_word_layout_sizes(arrays, xy, kinds, none, 0))["suits"]
    bad = arrays | {"opt_items": np.array([0, 3, 1, 3, 2, 9], dtype=np.int64)}
    sizes = _sizes(_native.one_word_layout_sizes(bad, xy, kinds, none, 0))
    assert sizes["error"] == 4 and not sizes["suits"]
    assert _native.layout_error(sizes["error"]) == (
        "an option names an item the cover does not have")
    for kind in (-1, 3):
        odd = np.array([0, 0, 0, kind], dtype=np.int64)
        assert not _sizes(_native.one_word_layout_sizes(arrays, xy, odd, none, 0))["suits"]
    wrong_kinds = np.array([OptionKind.SLACK] * 3, dtype=np.int64)
    assert not _sizes(_native.one_word_layout_sizes(arrays, xy, kinds, wrong_kinds, 0))["suits"]
    with pytest.raises(ValueError, match="cell_xy"):
        _native.one_word_layout_sizes(arrays, xy[:2], kinds, none, 0)
    with pytest.raises(ValueError, match="item_kind"):
        _native.one_word_layout_sizes(arrays, xy, kinds[:3], none, 0)
    with pytest.raises(ValueError, match="option_kind"):
        _native.one_word_layout_sizes(arrays, xy, kinds, kinds, 0)
    out = {"start": np.empty(65, np.uint64), "masks": np.empty(3, np.uint64),
           "opts": np.empty(3, np.int64), "avail": np.empty(64, np.uint64),
           "opt_cells": np.empty(3, np.uint64), "opt_piece": np.empty(3, np.uint64),
           "slack_cells": np.empty(64, np.uint64), "areas": np.empty(1, np.int64),
           "fillable": np.empty(4, np.bool_)}
    assert _sizes(_native.one_word_layout_fill(arrays, xy, kinds, none, 0, out))["suits"]
    assert out["opts"].tolist() == [0, 1, 2] and out["areas"].tolist() == [1]
    with pytest.raises(ValueError, match="wrong size"):
        _native.one_word_layout_fill(arrays, xy, kinds, none, 0,
                                     out | {"masks": np.empty(2, np.uint64)})
    bits = np.empty(1, dtype=np.uint64)
    assert _native.one_word_tally_bits(kinds, np.array([3], np.int64), 0, bits) == 1
    assert bits.tolist() == [1]
    assert _native.one_word_tally_bits(kinds, np.array([0], np.int64), 0, bits) == 0
    for item in (-1, 4):
        assert _native.one_word_tally_bits(kinds, np.array([item], np.int64), 0, bits) == -4
    with pytest.raises(ValueError, match="bits"):
        _native.one_word_tally_bits(kinds, np.array([3, 3], np.int64), 0, bits)
    with pytest.raises(TypeError):
        _native.one_word_layout_fill(arrays, xy, kinds, none, 0,
                                     out | {"opts": np.empty(3, np.int32)})


# --- the core's calls alone, over buffers the caller gives ---------------------------------

_CoverInput = CORE_STRUCTS["cover_input"]
_OneWordInput = CORE_STRUCTS["one_word_input"]
_Sizes = CORE_STRUCTS["one_word_sizes"]
_Layout = CORE_STRUCTS["one_word_layout"]
LAYOUT_ARRAYS = [name for name, _ in _Layout._fields_]


@pytest.fixture(scope="module")
def core(tmp_path_factory):
    """src/one_word_layout.cpp built alone, freestanding, as a shared library."""
    return core_library(tmp_path_factory, "one_word_layout.cpp")


GUARD = 0x5A5A5A5A5A5A5A5A  # a word past each buffer's end, that the core must not touch


def _guarded(n: int, dtype) -> np.ndarray:
    a = np.zeros(n * np.dtype(dtype).itemsize + 8, dtype=np.uint8)
    a[-8:] = np.frombuffer(np.uint64(GUARD).tobytes(), dtype=np.uint8)
    return a


def _untouched(a: np.ndarray) -> bool:
    return int(a[-8:].view(np.uint64)[0]) == GUARD


def _lay_out(core, cover: ExactCover, cell_xy: np.ndarray | None = None):
    """The core's layout over buffers of exactly the sizes it asks for, each with a guard
    word after it; the sizes, the arrays and whether every guard is intact."""
    arrays, xy, kinds, _ = _input(cover)
    xy = xy if cell_xy is None else cell_xy
    c = _CoverInput(len(kinds), *(arrays[k].ctypes.data for k in ("low", "high", "item_cell")),
                    len(arrays["cell_nb_start"]) - 1, arrays["cell_nb_start"].ctypes.data,
                    arrays["cell_nbs"].ctypes.data, len(arrays["cell_nbs"]),
                    len(arrays["opt_start"]) - 1, arrays["opt_start"].ctypes.data,
                    arrays["opt_items"].ctypes.data, len(arrays["opt_items"]))
    one = _OneWordInput(ctypes.addressof(c), xy.ctypes.data, kinds.ctypes.data, None, 0)
    work = _guarded(core.cpcore_one_word_layout_work(ctypes.byref(one)), np.int64)
    sizes = _Sizes()
    core.cpcore_one_word_layout_measure(ctypes.byref(one), work.ctypes.data,
                                        ctypes.byref(sizes))
    if sizes.error or not sizes.suits:
        return sizes, None, _untouched(work)
    n_opts = len(cover.options)
    lengths = {"start": (64 * sizes.n_pieces + 1, np.uint64), "masks": (sizes.n_flat, np.uint64),
               "opts": (sizes.n_flat, np.int64), "avail": (64, np.uint64),
               "opt_cells": (n_opts, np.uint64), "opt_piece": (n_opts, np.uint64),
               "slack_cells": (64, np.uint64), "areas": (sizes.n_pieces, np.int64),
               "fillable": (sizes.n_board_cells + 1, np.bool_)}
    out = {name: _guarded(*lengths[name]) for name in LAYOUT_ARRAYS}
    layout = _Layout(*(out[name].ctypes.data for name in LAYOUT_ARRAYS))
    core.cpcore_one_word_layout_fill(ctypes.byref(one), work.ctypes.data, ctypes.byref(sizes),
                                     ctypes.byref(layout))
    intact = _untouched(work) and all(_untouched(a) for a in out.values())
    return sizes, {name: a[:-8].view(lengths[name][1]) for name, a in out.items()}, intact


def test_the_core_alone_fills_the_buffers_it_asks_for_and_no_further(core):
    cover = sweep_plan(load_spec(SPECS / "calendar_week.yaml")).cover
    sizes, got, intact = _lay_out(core, cover)
    assert intact and sizes.suits and got is not None
    want = oracle.one_word_layout(cover)
    for name in LAYOUT_ARRAYS:
        assert np.array_equal(got[name], getattr(want, name)), name
    assert (sizes.covered, sizes.inner, sizes.region_limit) == (
        int(want.covered), int(want.inner), want.region_limit)


def test_the_core_alone_takes_coordinates_at_the_ends_of_a_word(core):
    """Cells at the least and the most 64-bit coordinates: too far apart, not a
    wrapped-around board."""
    cover = ExactCover([Item("a", cell=(0, 0)), Item("b", cell=(0, 1)), Item("p")],
                       [(0, 2), (1, 2)])
    for xy in ([[0, -2**63], [0, 2**63 - 1]], [[-2**63, 0], [2**63 - 1, 0]],
               [[2**63 - 1, 0], [-2**63, 0]]):
        sizes, got, intact = _lay_out(core, cover, np.array(xy, dtype=np.int64))
        assert intact and sizes.error == 0 and not sizes.suits and got is None
    sizes, got, intact = _lay_out(core, cover, np.array([[2**63 - 1, 5], [2**63 - 1, 6]],
                                                        dtype=np.int64))
    assert intact and sizes.suits and got is not None and got["opt_cells"].tolist() == [1, 2]
