"""The core's design decision (``cpcore_design``) and its dates (``cpcore_design_dates``)
through their bindings: every array read checked against the layout and the others first, the
stop flag, the progress count, the answers against first-solution searches of the dates alone,
and the dates against what they encode."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import cpmodels._native as _native
import numpy as np
import pytest
from conftest import SPECS

from cpmodels.design import Design, load_board
from cpmodels.spec.loading import load_design

STOPPED = -1  # entry.h's CPCORE_STOPPED


@pytest.fixture(scope="module")
def design() -> Design:
    path = SPECS / "designs" / "apad_rectangle_pentominoes.yaml"
    spec = load_design(path)
    found = Design(spec, load_board(spec, path), with_counts=False)
    found.learn_order(6)
    return found


def _arguments(design: Design, sets: list[tuple[int, ...]]) -> dict[str, Any]:
    """The binding's arguments for ``sets``, as the session makes them."""
    compiled = design._cover(False)
    session = compiled.session
    dates = session.reach_dates(compiled.holes)
    learnt = design._learnt
    call = session.searches.design_call(
        dates, learnt.order.copy(), learnt.front.copy(), learnt.late.copy(),
        [design._left_out(compiled, c) for c in sets], [design._areas(c) for c in sets],
        False)
    (layout, fills, limits, table, settled, calls, dates, order, front, late, forced, shape,
     learning, failure, decided, stop) = call.args
    return {"layout": layout, "fills": fills, "limits": limits, "table": table,
            "settled": settled, "calls": calls, "holes": dates.holes, "held": dates.held,
            "group": dates.group, "index": dates.index, "bit": dates.bit, "order": order,
            "front": front, "late": late, "forced": forced, "shape": shape,
            "learning": learning, "failure": failure, "decided": decided, "stop": stop}


def _alone(design: Design, chosen: tuple[int, ...]) -> int:
    """The first date of the learnt order with no solution, each searched alone (the
    number of dates when every one has one)."""
    compiled = design._cover(False)
    out = design._left_out(compiled, chosen)
    for i in design._learnt.order.tolist():
        if not compiled.session.exists([[*out, *compiled.holes[i]]],
                                       regions=design._regions(chosen))[0]:
            return i
    return len(design.required)


def test_each_set_gets_the_first_date_that_fails_alone(design):
    sets = list(itertools.islice(design.candidates(), 0, 792, 61))
    args = _arguments(design, sets)
    assert _native.design(**args) == len(sets)
    assert args["decided"].tolist() == [len(sets)]
    assert args["failure"].tolist() == [_alone(design, c) for c in sets]
    assert len(design.required) in args["failure"].tolist()
    assert args["calls"][0] > 1  # the searches marked their table entries


def test_a_stopped_decision_answers_nothing(design):
    sets = list(itertools.islice(design.candidates(), 5))
    args = _arguments(design, sets)
    args["stop"][0] = 1
    assert _native.design(**args) == STOPPED
    assert args["failure"].tolist() == [STOPPED] * 5
    assert args["decided"].tolist() == [0]


def _set(name: str, value: Callable[[Any], Any]) -> Callable[[dict[str, Any]], None]:
    def change(args: dict[str, Any]) -> None:
        args[name] = value(args[name])
    return change


def _poke(name: str, at: int, value: int) -> Callable[[dict[str, Any]], None]:
    def change(args: dict[str, Any]) -> None:
        np.asarray(args[name]).reshape(-1)[at] = value  # a buffer: written in place
    return change


@pytest.mark.parametrize(("change", "says"), [
    (_set("order", lambda a: np.array([a[0], *a[:-1]], dtype=np.int64)),
     "the order is not every date once"),
    (_poke("order", 0, 10**6), "the order is not every date once"),
    (_poke("group", 3, -1), "a date's group is out of range"),
    (_poke("front", 2, 7), "the front holds 0 or 1 a date"),
    (_poke("late", 2, -1), "a date's count of failures is out of range"),
    (_poke("index", 0, 10**9), "a wanted combination's index is out of range"),
    (_poke("holes", 0, 10**7), "a prefix names an option the layout does not have"),
    (_poke("forced", 0, -5), "a prefix names an option the layout does not have"),
    (_poke("shape", 0, 9), "a set's region sizes are out of range"),
    (_poke("limits", 0, 10**4), "a region limit is past the sizes"),
    (_set("held", lambda a: a[:-1].copy()), "the held holes are not one row a date"),
    (_set("bit", lambda a: a[:-1].copy()), "are not one a date"),
    (_set("shape", lambda a: a[:-1].copy()), "are not one a set"),
    (_set("fills", lambda a: np.ascontiguousarray(a[:, :-1])), "a row for each number"),
    (_set("calls", lambda a: np.ones(2, dtype=np.uint64)), "hold one number each"),
])
def test_what_does_not_fit_is_refused_before_the_search(design, change, says):
    sets = list(itertools.islice(design.candidates(), 3))
    args = _arguments(design, sets)
    change(args)
    with pytest.raises(ValueError, match=says):
        _native.design(**args)
    assert args["decided"].tolist() == [0]


# --- the dates (cpcore_design_dates) -------------------------------------------------------

def _date_arguments(design: Design) -> dict[str, Any]:
    """The dates binding's arguments for the design's required dates, as the session makes
    them."""
    session = design._cover(False).session
    holes = session.reach_dates(design._cover(False).holes).holes.copy()
    n = len(holes)
    return {"layout": session.searches._reach,
            "left_open": int(session.searches._reach.last_group), "holes": holes,
            "held": np.empty_like(holes), "group": np.zeros(n, np.int64),
            "index": np.zeros(n, np.int64), "bit": np.zeros(n, np.uint64)}


def test_the_dates_encode_their_holes(design):
    args = _date_arguments(design)
    _native.design_dates(**args)
    session = design._cover(False).session
    layout, left_open = args["layout"], session.reach_left_open
    cells = [int(c) for c in layout.opt_cells]
    combos = [frozenset(int(o) for o in row if o >= 0) for row in args["holes"]]
    held = [tuple(int(o) for o in row if o >= 0) for row in args["held"]]
    assert len(set(combos)) == len(combos) == len(design.required) == 366
    # Each date's bit is its hole in the bit group (one cell), the rest its index: no two
    # dates read alike, and a date is read alike whatever the order of its holes.
    for combo, bit in zip(combos, args["bit"].tolist()):
        assert bit in {cells[o] for o in combo} and bin(bit).count("1") == 1
    pairs = list(zip(args["index"].tolist(), args["bit"].tolist()))
    assert len(set(pairs)) == len(pairs)
    assert all(0 <= i < int(layout.n_index) for i, _ in pairs)
    turned = {**args, "holes": np.ascontiguousarray(args["holes"][:, ::-1]),
              "index": np.zeros_like(args["index"]), "bit": np.zeros_like(args["bit"]),
              "held": np.empty_like(args["held"]), "group": np.zeros_like(args["group"])}
    _native.design_dates(**turned)
    assert turned["index"].tolist() == args["index"].tolist()
    assert turned["bit"].tolist() == args["bit"].tolist()
    # The held holes are the date's but the group left open's, in the row's order; the
    # dates holding the same ones share a group, numbered as first met.
    for row, kept in zip(args["holes"], held):
        assert kept == tuple(int(o) for o in row if o >= 0 and int(o) not in left_open)
    first: dict[tuple[int, ...], int] = {}
    assert args["group"].tolist() == [first.setdefault(h, len(first)) for h in held]
    assert len(first) == 12  # the months held, the days left open


def test_every_hole_held_with_none_left_open(design):
    args = {**_date_arguments(design), "left_open": -1}
    _native.design_dates(**args)
    assert np.array_equal(args["held"], args["holes"])
    assert args["group"].tolist() == list(range(len(args["holes"])))


def _hole_of_group_twice(args: dict[str, Any]) -> None:
    """Date 0 given date 1's hole in a group date 1 does not share with it."""
    row0, row1 = args["holes"][0], args["holes"][1]
    k = next(k for k in range(row0.size) if row0[k] != row1[k])
    args["holes"] = np.ascontiguousarray(np.column_stack([args["holes"], args["holes"][:, k]]))
    args["holes"][0, -1] = row1[k]
    args["held"] = np.empty_like(args["holes"])


@pytest.mark.parametrize(("change", "says"), [
    (_poke("holes", 0, 0), "no label's hole"),
    (_poke("holes", 1, -1), "one hole in each label group"),
    (_hole_of_group_twice, "one hole in each label group"),
    (_poke("holes", 0, 10**7), "a prefix names an option the layout does not have"),
    (_set("left_open", lambda _: 3), "no such label group"),
    (_set("held", lambda a: a[:-1].copy()), "the held holes are not one row a date"),
    (_set("bit", lambda a: a[:-1].copy()), "are not one a date"),
])
def test_dates_that_do_not_fit_are_refused(design, change, says):
    args = _date_arguments(design)
    change(args)
    with pytest.raises(ValueError, match=says):
        _native.design_dates(**args)


# --- the reach layout's groups (cpcore_reach_groups_of) ------------------------------------

def _groups(one: Any) -> tuple[Any, ...]:
    arrays = (np.zeros(3, np.uint64), np.zeros(3, np.uint64), np.zeros(64, np.uint64),
              np.zeros(64, np.uint64))
    return (*_native.reach_groups(one, *arrays), *arrays)


def test_the_groups_of_each_corner(design):
    from cpmodels.backends.engine.layouts.cover import one_word_layout

    cover = design._cover(False).plan.cover
    chosen = design._cover(False).session.searches._reach
    ranks = []
    for flips in range(4):
        one = one_word_layout(cover, flips)
        (suits, n_groups, bit_group, a_group, b_group, last_group, a_stride, n_index, n_cells,
         rank, cells, units, a_label, b_label) = _groups(one)
        assert suits and n_groups == 2 and b_group == -1 and n_cells == 43
        sizes = [bin(int(c)).count("1") for c in cells[:2]]
        assert sorted(sizes) == [12, 31] and sizes[bit_group] == 31  # the days, one bit each
        assert (a_stride, n_index) == (1, 12)  # the months, an index each
        assert sorted(int(a_label[b]) for b in range(64) if int(cells[a_group]) >> b & 1) \
            == list(range(12))
        assert not b_label.any() and int(units[0]) & int(one.slack)
        # The group the scan meets last: its first cell comes after the other's.
        first = [int(c) & -int(c) for c in cells[:2]]
        assert first[last_group] == max(first)
        ranks.append(rank)
    # The corner taken is the first of the best ranked, meeting the days last.
    assert bin(int(chosen.group_cells[int(chosen.last_group)])).count("1") == 31
    best = ranks.index(max(ranks))
    assert np.array_equal(one_word_layout(cover, best).start, chosen.start)


def test_options_whose_cells_fall_apart_do_not_suit(design):
    from cpmodels.backends.engine.layouts.cover import one_word_layout

    one = one_word_layout(design._cover(False).plan.cover)
    assert _groups(one)[0]
    masks = np.array(one.masks)
    masks[0] = np.uint64(1 | 1 << 40)  # two cells far apart
    assert not _groups(one._replace(masks=masks))[0]
    with pytest.raises(ValueError, match="3, 3, 64 and 64 words"):
        _native.reach_groups(one, np.zeros(2, np.uint64), np.zeros(3, np.uint64),
                             np.zeros(64, np.uint64), np.zeros(64, np.uint64))


def _fills_in_python(groups: int, total: int, areas: list[int]) -> tuple[np.ndarray, int]:
    """The region sizes a set fills with 0 .. groups holes as the Python side made them
    before the core did (the oracle of ``cpcore_reach_fills``)."""
    from cpmodels.backends.engine.layouts.regions import region_sizes

    fill = np.zeros((groups + 1, total + 1), dtype=np.bool_)
    limit = 0
    for k in range(groups + 1):
        fill[k], found = region_sizes(list(areas) + [1] * k, total)
        limit = max(limit, found)
    return fill, limit


def test_the_cores_region_sizes_with_holes_are_the_python_ones():
    """``cpcore_reach_fills`` (each row the pieces' sizes with k holes more, the largest
    limit) against the rows made one by one from the pieces and k areas of 1."""
    rng = np.random.default_rng(7)
    cases = [(3, 50, [5] * 7 + [4] * 3), (2, 43, [6] + [5] * 7), (3, 10, []), (0, 12, [3, 4]),
             (1, 0, [2])]
    for _ in range(200):
        cases.append((int(rng.integers(0, 4)), int(rng.integers(0, 70)),
                      [int(a) for a in rng.integers(1, 9, size=rng.integers(0, 12))]))
    for groups, total, areas in cases:
        fill = np.zeros((groups + 1, total + 1), dtype=np.bool_)
        limit = _native.reach_fills(np.array(areas, dtype=np.int64), groups, fill)
        want, want_limit = _fills_in_python(groups, total, areas)
        assert (fill == want).all() and limit == want_limit, (groups, total, areas)
    with pytest.raises(ValueError, match="area must be positive"):
        _native.reach_fills(np.array([3, 0]), 1, np.zeros((2, 8), dtype=np.bool_))
    with pytest.raises(ValueError, match="a row of total"):
        _native.reach_fills(np.array([3]), 2, np.zeros((2, 8), dtype=np.bool_))


def test_the_cores_verdict_of_a_working_set_is_the_python_one():
    """``cpcore_design_summary`` (the date of the fewest, the first such, the fewest, the
    most, the total) against the summary the Python side made before the core did."""
    rng = np.random.default_rng(11)
    for _ in range(300):
        counts = [int(c) for c in rng.integers(0, 6, size=rng.integers(1, 30))]
        dates = list(range(len(counts)))
        low = min(dates, key=lambda d: counts[d])
        high = max(dates, key=lambda d: counts[d])
        assert _native.design_summary(np.array(counts, dtype=np.int64)) == \
            (low, counts[low], counts[high], sum(counts))
    for bad in ([], [3, -1], [1 << 62, 1 << 62]):
        with pytest.raises(ValueError, match="out of range"):
            _native.design_summary(np.array(bad, dtype=np.int64))


def _corner_in_python(cover: Any) -> int:
    """The corner the Python side chose before the core did (the oracle of
    ``cpcore_reach_corner``): of the corners whose one-word layout suits, the first of the
    highest ranked; -1 when none suits or one's groups do not."""
    from cpmodels.backends.engine.layouts.cover import one_word_layout

    best: tuple[int, int] | None = None
    for flips in range(4):
        one = one_word_layout(cover, flips)
        if one is None:
            continue
        suits, *_, rank = _groups(one)[:10]
        if not suits:
            return -1
        if best is None or rank > best[0]:
            best = rank, flips
    return -1 if best is None else best[1]


@pytest.mark.parametrize("name", ["calendar_day", "calendar_week", "calendar_week_11",
                                  "pentominoes_6x10"])
def test_the_cores_corner_is_the_python_one(design, name):
    """``cpcore_reach_corner`` chooses the corner the Python loop over the four chose, on
    the bundled calendars' sweep covers (with and without pieces that may be left out), a
    design's, and a box with no label group (none suits)."""
    from cpmodels.api import instance
    from cpmodels.backends.engine.layouts.cover import one_word_input
    from cpmodels.backends.engine.layouts.reach import reach_layout
    from cpmodels.spec.loading import load_spec
    from cpmodels.sweep import TallyPlan

    covers = [design._cover(False).plan.cover]
    spec = load_spec(SPECS / f"{name}.yaml")
    if name.startswith("calendar"):
        covers += [TallyPlan.of(spec).cover,
                   TallyPlan.of(spec, left_out=range(len(spec.pieces))).cover]
    else:
        covers.append(instance(name).cover)
    for cover in covers:
        given = one_word_input(cover)
        flips = -1 if given is None else _native.reach_corner(*given)
        assert flips == _corner_in_python(cover)
        assert (reach_layout(cover) is None) == (flips < 0)


def test_the_cores_learning_sets_are_the_python_rule():
    """``cpcore_design_learning_sets`` against the rule the Python side kept before the
    core did: 64, or one in 25 of the sets asked when that is more, at most 320."""
    for asked in [0, 1, 63, 64, 1599, 1600, 1625, 7920, 8000, 8024, 19_448, 1 << 40, 1 << 63]:
        assert _native.design_learning_sets(asked) == max(64, min(320, asked // 25))
