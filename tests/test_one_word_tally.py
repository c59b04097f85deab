"""The one-word kernel on covers with slack items and left-out options (a sweep's and a
design's covers): its layout, and its counts against the word kernel and the general kernel."""

from __future__ import annotations

import itertools

import pytest
from conftest import SPECS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cpmodels.backends import engine
from cpmodels.cover import ExactCover, Item, ItemKind, PieceKind, packing_cover
from cpmodels.geometry import OptionKind, Placement
from cpmodels.pools import pool
from cpmodels.spec import load_spec
from cpmodels.sweep import TallyPlan


def _kernels(cover: ExactCover, **kw) -> dict[str, engine.EngineSession]:
    """Sessions of the one-word kernel, the word kernel and the general kernel."""
    return {"one": engine.EngineSession(cover, **kw),
            "words": engine.EngineSession(cover, one_word=False, **kw),
            "general": engine.EngineSession(cover, word_kernel=False, **kw)}


def _layout(cover: ExactCover):
    """The one-word kernel's layout of ``cover`` as a session makes it (None: no fit)."""
    return engine.EngineSession(cover).searches._one_word_layout()


def _with_left_out(cover: ExactCover, pieces: list[int]) -> dict[int, int]:
    """Give the ``pieces`` (indices among the piece items) a left-out option each, as a
    design does; returns piece -> its left-out option."""
    items = [i for i, it in enumerate(cover.items) if it.kind is ItemKind.PIECE]
    left_out = {}
    for k in pieces:
        left_out[k] = len(cover.options)
        cover.options.append((items[k],))
        cover.placements.append(Placement(cover.items[items[k]].name, (), OptionKind.LEFT_OUT))
    return left_out


def test_the_layout_of_a_sweeps_cover():
    """Slack items are bits of the piece word, their options one cell each; the layout says
    which bits they are and the cells their options cover."""
    spec = load_spec(SPECS / "calendar_week.yaml")
    plan = TallyPlan.of(spec)
    layout = _layout(plan.cover)
    assert layout is not None
    others = [i for i, it in enumerate(plan.cover.items) if it.kind is not ItemKind.CELL]
    assert int(layout.n_pieces) == len(others) and int(layout.optional) == 0
    for g, item in enumerate(plan.slack_items):
        bit = others.index(item)
        assert int(layout.slack) >> bit & 1
        labels = spec.groups[plan.groups[g]]
        assert bin(int(layout.slack_cells[bit])).count("1") == len(labels)
        for label in labels:
            o = plan.option_of[(plan.groups[g], label)]
            assert int(layout.opt_piece[o]) == 1 << bit
            assert int(layout.opt_cells[o]) & int(layout.slack_cells[bit]) == int(
                layout.opt_cells[o]) and bin(int(layout.opt_cells[o])).count("1") == 1
    assert int(layout.slack).bit_count() == len(plan.slack_items)


def test_the_layout_of_a_design_cover_and_what_it_refuses():
    """Left-out options: no cells, in no anchor's run, their pieces marked optional. A
    piece with two ways to be left out, a slack option of two cells, or an item covered
    twice is no one-word cover."""
    spec = load_spec(SPECS / "calendar_day.yaml")
    plan = TallyPlan.of(spec)
    left_out = _with_left_out(plan.cover, [0, 2])
    layout = _layout(plan.cover)
    assert layout is not None
    for o in left_out.values():
        assert int(layout.opt_cells[o]) == 0 and o not in set(layout.opts.tolist())
    assert int(layout.optional) == int(layout.opt_piece[left_out[0]] | layout.opt_piece[
        left_out[2]])
    twice = ExactCover(list(plan.cover.items), list(plan.cover.options),
                       list(plan.cover.placements))
    _with_left_out(twice, [0])
    assert _layout(twice) is None
    wide = ExactCover(list(plan.cover.items), list(plan.cover.options),
                      list(plan.cover.placements))
    j = next(j for j, p in enumerate(wide.placements) if p.kind is OptionKind.SLACK)
    wide.options[j] = (0, 1, wide.options[j][-1])
    assert _layout(wide) is None
    copies = ExactCover([*plan.cover.items[:-1], Item("extra", 1, 2, kind=ItemKind.SLACK)],
                        list(plan.cover.options), list(plan.cover.placements))
    assert _layout(copies) is None


@pytest.mark.parametrize("spec", ["calendar_week.yaml", "calendar_day.yaml"])
def test_counts_with_holes_forced_equal_the_other_kernels(spec):
    """A sweep's cover without tally items: each date's count, its holes forced as slack
    options, by the one-word kernel (which now takes it) and the others."""
    calendar = load_spec(SPECS / spec)
    plan = TallyPlan.of(calendar)
    sessions = _kernels(plan.cover)
    assert sessions["one"].searches.chosen() == "tally_one_word"
    combos = list(itertools.islice(itertools.product(*calendar.groups.values()), 0, None, 97))
    tasks = [plan.holes(c) for c in combos[:3]]
    counts = {name: s.tally_many(tasks) for name, s in sessions.items()}
    assert counts["one"] == counts["words"] == counts["general"]
    assert all(counts["one"])


@pytest.mark.parametrize("rows", [3, 4])
def test_counts_with_pieces_left_out_equal_the_other_kernels(rows):
    """Four tetrominoes, a domino and two monominoes on a 3x6 or 4x5 board, the last three
    optional: forced left out or not (an unforced left-out option is taken when the board
    is full), every kernel counts the same."""
    from cpmodels.geometry import orientations

    tetrominoes = dict(pool("tetrominoes"))
    shapes = [tetrominoes[name] for name in ("I4", "L4", "O4", "S4")] + [
        frozenset({(0, 0), (0, 1)}), frozenset({(0, 0)}), frozenset({(0, 0)})]
    kinds = [PieceKind(f"P{k}", tuple(orientations(s)), 1) for k, s in enumerate(shapes)]
    cover = packing_cover([(r, c) for r in range(rows) for c in range(18 // rows + rows - 3)],
                          kinds)
    left_out = _with_left_out(cover, [4, 5, 6])
    sessions = _kernels(cover)
    assert sessions["one"].searches.chosen() == "count_one_word"
    tasks = [[], [left_out[5]], [left_out[5], left_out[6]], [left_out[4]],
             [left_out[4], left_out[5]], [left_out[4], left_out[4]]]
    counts = {name: [s.count(t) for t in tasks] for name, s in sessions.items()}
    assert counts["one"] == counts["words"] == counts["general"]
    assert counts["one"][:4] == ([148, 20, 20, 128] if rows == 3 else [1888, 0, 0, 0])


def test_a_tally_item_that_may_be_left_out_is_refused_by_the_core():
    """The one-word tally places no left-out option, so it cannot split counts by a piece
    that may be left out: the core's tally bits say it does not suit (the session tallies
    with another kernel, the same as the others), and the search itself, handed such
    tallies all the same, refuses them and writes nothing."""
    import numpy as np

    from cpmodels.backends.engine import searches
    from cpmodels.backends.engine.kernels import one_word
    from cpmodels.backends.engine.kernels.memo import Memo
    from cpmodels.backends.engine.layouts.tally import one_word_tallies

    spec = load_spec(SPECS / "calendar_day.yaml")
    plan = TallyPlan.of(spec)
    left_out = _with_left_out(plan.cover, [0])
    piece = plan.cover.options[left_out[0]][0]
    sessions = _kernels(plan.cover, tally_items=[piece])
    assert sessions["one"].searches._one_word_layout() is not None
    assert sessions["one"].searches.chosen() != "tally_one_word"
    tasks = [plan.task_holes(task) for task in plan.tasks()[:2]]
    tallies = {name: s.tally_many(tasks) for name, s in sessions.items()}
    assert tallies["one"] == tallies["words"] == tallies["general"]
    assert all(tallies["one"])

    searching = sessions["one"].searches
    layout = searching._one_word_layout()
    kernel = searching._tally_layout().kernel
    assert one_word_tallies(plan.cover, [piece], kernel, int(layout.optional)) is None
    forced = one_word_tallies(plan.cover, [piece], kernel)  # (its optional bit not given)
    assert forced is not None and int(forced.bit[0]) & int(layout.optional)
    out = np.full((len(tasks), int(forced.length[-1])), -7, dtype=np.int64)
    masks = np.full(len(tasks), -7, dtype=np.int64)
    table = Memo(2, 1 << 10, None)
    with pytest.raises(ValueError, match="may be left out"):
        one_word.tally_one_word(searches.task_array(tasks), layout, forced, table.kernel,
                                True, out, masks, table.stop_flag)
    assert (out == -7).all() and (masks == -7).all()


@pytest.mark.parametrize("n", [63, 64, 65])
def test_a_strip_with_slack_at_the_edges_of_a_word(n):
    """A 1 x n strip of bars and a slack group of two cells at its ends: the one-word
    kernel takes strips of at most 64 cells, and every kernel counts the same."""
    lengths = [n - 11, 1, 2, 3, 4]
    kinds = [PieceKind(f"B{k}", tuple({frozenset((0, c) for c in range(size)),
                                       frozenset((c, 0) for c in range(size))}), 1)
             for k, size in enumerate(lengths)]
    cover = packing_cover([(0, c) for c in range(n)], kinds)
    slack = len(cover.items)
    cover.items.append(Item("ends", kind=ItemKind.SLACK))
    for c in (0, n - 1):
        cover.options.append((c, slack))
        cover.placements.append(Placement("ends", ((0, c),), OptionKind.SLACK))
    sessions = _kernels(cover)
    assert (sessions["one"].searches.chosen() == "tally_one_word") == (n <= 64)
    counts = {name: s.count() for name, s in sessions.items()}
    assert counts["one"] == counts["words"] == counts["general"] == 2 * 120


def _tallies_agree(cover: ExactCover, tally_items: list[int], tasks: list, **kw) -> list:
    """Every task's tally by the one-word, word and general kernels (asserted equal, the
    one-word kernel taking them); returns the one-word kernel's."""
    sessions = _kernels(cover, tally_items=tally_items, **kw)
    assert sessions["one"].searches.chosen() == "tally_one_word"
    found = {name: s.tally_many(tasks) for name, s in sessions.items()}
    assert found["one"] == found["words"] == found["general"]
    return found["one"]


@pytest.mark.parametrize("face_up", [False, True])
def test_a_calendar_days_tallies_equal_the_other_kernels(face_up):
    """calendar_day's month tasks tallied by day (pieces turned over, or face up), and
    some with a day forced too (the tally item then shows its forced option)."""
    spec = load_spec(SPECS / "calendar_day.yaml")
    plan = TallyPlan.of(spec, face_up=face_up)
    tasks = [plan.holes(t) for t in plan.tasks()[::4]]
    tasks += [plan.holes(("Oct", "6")), plan.holes(("Feb", "30"))]
    tallies = _tallies_agree(plan.cover, plan.tally_items, tasks)
    if not face_up:
        assert tallies[-2] == {(plan.option_of[("day", "6")],): 7}
        sweep = _kernels(plan.cover, tally_items=plan.tally_items)["one"]
        every = sweep.tally_many([plan.holes(t) for t in plan.tasks()])
        assert sum(sum(t.values()) for t in every) == 25_061


def test_a_calendar_weeks_tallies_equal_the_other_kernels():
    """calendar_week tallied by day and weekday: tasks that also fix a day (a search of
    a few thousand nodes), with the sizes of a sweep's table."""
    spec = load_spec(SPECS / "calendar_week.yaml")
    plan = TallyPlan.of(spec)
    tasks = [plan.holes(t) for t in [("Jun", "7"), ("Apr", "6")]]
    tallies = _tallies_agree(plan.cover, plan.tally_items, tasks, table_slots=1 << 16,
                             arena=1 << 18)
    tue = plan.option_of[("weekday", "Tue")]
    assert tallies[0][(plan.option_of[("day", "7")], tue)] == 10_374
    assert tallies[1][(plan.option_of[("day", "6")], plan.option_of[("weekday", "Mon")])] == 97


def test_a_design_covers_counts_equal_the_other_kernels():
    """A design's counts (pieces left out, the set's region sizes, tallies by day) by
    the one-word kernel and by the word kernel, for a few sets."""
    from cpmodels.design import Design, load_board
    from cpmodels.spec.loading import load_design

    spec = load_design("apad_rectangle_pentominoes")
    counts = []
    for one_word in (True, False):
        design = Design(spec, load_board(spec, "apad_rectangle_pentominoes"))
        session = design._cover(False).session
        session.use_one_word = one_word
        sets = list(itertools.islice(design.candidates(), 0, 200, 40))
        counts.append([design.counts(chosen) for chosen in sets])
        assert (session.searches.chosen() == "tally_one_word") == one_word
    assert counts[0] == counts[1] and any(sum(c.values()) for c in counts[0])


@pytest.mark.parametrize("n", [63, 64, 65])
def test_a_tally_at_the_edges_of_a_word(n):
    """The strip of bars with a slack group at its ends, tallied by the slack group: the
    one-word kernel up to 64 cells, the word kernel at 65, the same tallies."""
    lengths = [n - 11, 1, 2, 3, 4]
    kinds = [PieceKind(f"B{k}", tuple({frozenset((0, c) for c in range(size)),
                                       frozenset((c, 0) for c in range(size))}), 1)
             for k, size in enumerate(lengths)]
    cover = packing_cover([(0, c) for c in range(n)], kinds)
    slack = len(cover.items)
    cover.items.append(Item("ends", kind=ItemKind.SLACK))
    for c in (0, n - 1):
        cover.options.append((c, slack))
        cover.placements.append(Placement("ends", ((0, c),), OptionKind.SLACK))
    sessions = _kernels(cover, tally_items=[slack])
    assert (sessions["one"].searches.chosen() == "tally_one_word") == (n <= 64)
    tallies = {name: s.tally_many([[]]) for name, s in sessions.items()}
    ends = len(cover.options) - 2
    assert tallies["one"] == tallies["words"] == tallies["general"] == [
        {(ends,): 120, (ends + 1,): 120}]


PIECES = [shape for _, shape in pool("tetrominoes")] + [shape for _, shape in
                                                          pool("trominoes")]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sets(st.sampled_from([(r, c) for r in range(7) for c in range(7)]), min_size=8,
               max_size=30),
       st.lists(st.sampled_from(range(len(PIECES))), min_size=1, max_size=6),
       st.lists(st.integers(1, 4), min_size=1, max_size=3), st.integers(0, 2),
       st.booleans())
def test_random_boards_with_slack_items_agree(cells, chosen, groups, tallied, forced):
    """Random boards, pieces each used once and one to three slack groups of one to four
    cells (a hole each): tallied by some of the groups, a group's first hole forced or
    not, the one-word kernel (with its table and without) against the others."""
    from cpmodels.geometry import orientations

    kinds = [PieceKind(f"P{i}", tuple(orientations(PIECES[k])), 1)
             for i, k in enumerate(chosen)]
    board = sorted(cells)[:sum(len(PIECES[k]) for k in chosen) + len(groups)]
    cover = packing_cover(board, kinds)
    by_cell = {it.cell: i for i, it in enumerate(cover.items) if it.cell is not None}
    if len(board) < len(groups) * max(groups):
        return
    slack_items = []
    for g, size in enumerate(groups):  # group g: every len(groups)-th cell from g on
        item = len(cover.items)
        cover.items.append(Item(f"G{g}", kind=ItemKind.SLACK))
        slack_items.append(item)
        for cell in board[g::len(groups)][:size]:
            cover.options.append((by_cell[cell], item))
            cover.placements.append(Placement(f"G{g}", (cell,), OptionKind.SLACK))
    tally_items = slack_items[:min(tallied, len(slack_items))]
    first_hole = next(j for j, p in enumerate(cover.placements) if p.kind is OptionKind.SLACK)
    tasks = [[first_hole]] if forced else [[]]
    found = _tallies_agree(cover, tally_items, tasks)
    bare = engine.EngineSession(cover, tally_items=tally_items, table_slots=0)
    assert bare.tally_many(tasks) == found
