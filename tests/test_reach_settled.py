"""The reach search's states with at most one hole open, settled for good: answers equal to
first-solution searches whichever holes a task leaves open, whichever corner the scan
starts from, across sets, after a stop; and the corner and the group left open chosen."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import SPECS

from cpmodels.backends.engine.kernels.memo import NODES
from cpmodels.backends.engine.layouts.reach import _reach_layout, reach_layout
from cpmodels.design import Design, load_board
from cpmodels.errors import OutOfTime
from cpmodels.spec.loading import load_design

DESIGNS = SPECS / "designs"


def _design(name: str) -> Design:
    path = DESIGNS / f"{name}.yaml"
    spec = load_design(path)
    return Design(spec, load_board(spec, path), with_counts=False)


@pytest.fixture(scope="module")
def weekday() -> Design:
    return _design("weekday_pentominoes_tetrominoes")


def _month_of(design: Design, label: str) -> list[int]:
    return [i for i, combo in enumerate(design.required) if combo[0] == label]


def _by_dates(design: Design, chosen: tuple[int, ...], dates: list[int]) -> list[bool | None]:
    """Each date's answer by a first-solution search of the word kernel, on a fresh cover."""
    fresh = _design(design.spec.name)
    compiled = fresh._cover(False)
    out = fresh._left_out(compiled, chosen)
    return compiled.session.exists([[*out, *compiled.holes[i]] for i in dates],
                                   regions=fresh._regions(chosen))


def _tasks(design: Design, dates: list[int], held_groups: tuple[int, ...]
           ) -> list[tuple[tuple[int, ...], list[tuple[int, ...]]]]:
    """The dates grouped by their holes in ``held_groups`` (forced), the others open."""
    holes = design._cover(False).holes
    groups: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for i in dates:
        groups.setdefault(tuple(holes[i][g] for g in held_groups), []).append(holes[i])
    return list(groups.items())


def _reached(design: Design, chosen: tuple[int, ...], dates: list[int],
             held_groups: tuple[int, ...]) -> dict[tuple[int, ...], bool | None]:
    compiled = design._cover(False)
    tasks = _tasks(design, dates, held_groups)
    found = compiled.session.reach(design._left_out(compiled, chosen), tasks,
                                   areas=design._areas(chosen))
    return {combo: ok for (_, wanted), oks in zip(tasks, found) for combo, ok in zip(wanted, oks)}


def test_every_way_of_leaving_holes_open_answers_as_the_dates_do(weekday):
    """Three sets (one that works, two that do not), two months of dates: every choice of
    the groups forced (none, one, two, all three) gives each date the answer of its own
    first-solution search, on one session whose settled states carry from set to set."""
    candidates = list(weekday.candidates())
    sets = [candidates[k] for k in (0, 358, 538)]  # works; Nov 6 Mon fails; Feb 8 Wed does
    dates = _month_of(weekday, "Feb") + _month_of(weekday, "Nov")
    holes = weekday._cover(False).holes
    answers = []
    for chosen in sets:
        expected = dict(zip((holes[i] for i in dates), _by_dates(weekday, chosen, dates)))
        answers.append(list(expected.values()))
        for held in [(), (0,), (2,), (1, 2), (0, 1), (0, 1, 2)]:
            assert _reached(weekday, chosen, dates, held) == expected, (chosen, held)
    assert any(all(a) for a in answers) and any(not all(a) for a in answers)


def test_a_set_searched_again_costs_next_to_nothing_and_answers_the_same():
    """The settled states hold for later searches of the same set: the second search of a
    month finds its answers in the table (a table of its own, which no flush empties in
    between)."""
    weekday = _design("weekday_pentominoes_tetrominoes")
    chosen = next(itertools.islice(weekday.candidates(), 1, None))
    dates = _month_of(weekday, "Mar")
    session = weekday._cover(False).session
    first = _reached(weekday, chosen, dates, (1, 2))
    nodes = int(session.searches._reached.stats[NODES])
    again = _reached(weekday, chosen, dates, (1, 2))
    assert again == first and all(first.values())
    assert int(session.searches._reached.stats[NODES]) - nodes < len(dates)


def test_a_stopped_reach_search_leaves_its_tables_true(weekday):
    """A search stopped part way keeps only states decided in full: the next search of the
    same set, and of another, still answers as the dates do."""
    design = _design("weekday_pentominoes_tetrominoes")
    compiled = design._cover(False)
    session = compiled.session
    sets = list(itertools.islice(design.candidates(), 3, 7920, 1500))
    dates = _month_of(design, "Jan") + _month_of(design, "Dec")
    stopped = 0
    for chosen in sets:
        tasks = _tasks(design, dates, (1, 2))
        try:
            session.reach(design._left_out(compiled, chosen), tasks,
                          areas=design._areas(chosen), time_limit=1e-3)
        except OutOfTime:
            stopped += 1
        holes = compiled.holes
        expected = dict(zip((holes[i] for i in dates), _by_dates(design, chosen, dates)))
        assert _reached(design, chosen, dates, (1, 2)) == expected
    assert stopped  # (each search takes tens of milliseconds)


@pytest.mark.parametrize("flips", range(4))
def test_the_scan_from_every_corner_answers_the_same(weekday, flips):
    """The reach search on the layout scanned from each corner of the board."""
    design = _design("weekday_pentominoes_tetrominoes")
    session = design._cover(False).session
    assert session.reaches
    session.searches._reach = _reach_layout(session.cover, flips)
    chosen = next(itertools.islice(design.candidates(), 2000, None))
    dates = _month_of(design, "Apr")[:60] + _month_of(design, "Aug")[-60:]
    expected = dict(zip((design._cover(False).holes[i] for i in dates),
                        _by_dates(design, chosen, dates)))
    assert _reached(design, chosen, dates, (1, 2)) == expected
    assert _reached(design, chosen, dates, (0,)) == expected


def test_the_scan_meets_last_the_group_with_the_most_labels():
    """The weekday calendar is scanned from Saturday's corner, the months last (left open);
    the month/day calendar from January's, the days last; the corner is a board cell."""
    for name, left_open, size in [("weekday_pentominoes_tetrominoes", 0, 12),
                                  ("apad_rectangle_pentominoes", 1, 31)]:
        design = _design(name)
        compiled = design._cover(False)
        session = compiled.session
        layout = reach_layout(session.cover)
        assert layout is not None and int(layout.last_group) == left_open
        assert not int(layout.covered) & 1
        assert bin(int(layout.group_cells[left_open])).count("1") == size
        assert session.reach_left_open == {holes[left_open] for holes in compiled.holes}
        # Each corner numbers the same cells: the groups keep their sizes.
        for flips in range(4):
            other = _reach_layout(session.cover, flips)
            assert other is not None
            assert sorted(bin(int(m)).count("1") for m in other.group_cells) == sorted(
                bin(int(m)).count("1") for m in layout.group_cells)
            assert np.array_equal(np.sort(np.array([bin(int(m)).count("1")
                                                    for m in other.opt_cells])),
                                  np.sort(np.array([bin(int(m)).count("1")
                                                    for m in layout.opt_cells])))
