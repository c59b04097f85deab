"""The core's design decision (``cpcore_design``) through its binding: every array it
reads checked against the layout and the others before the search, the stop flag, the
progress count, and its answers against first-solution searches of the dates alone."""

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
        args[name].reshape(-1)[at] = value
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
