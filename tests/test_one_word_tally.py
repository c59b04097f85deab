"""The one-word kernel on covers with slack items and left-out options (a sweep's and a
design's covers): its layout, and its counts against the word kernel and the general kernel."""

from __future__ import annotations

import itertools

import pytest
from conftest import SPECS

from cpmodels.backends import engine
from cpmodels.cover import ExactCover, Item, ItemKind, PieceKind, packing_cover
from cpmodels.geometry import OptionKind, Placement
from cpmodels.spec import load_spec
from cpmodels.sweep import TallyPlan


def _kernels(cover: ExactCover, **kw) -> dict[str, engine.EngineSession]:
    """Sessions of the one-word kernel, the word kernel and the general kernel."""
    return {"one": engine.EngineSession(cover, **kw),
            "words": engine.EngineSession(cover, one_word=False, **kw),
            "general": engine.EngineSession(cover, word_kernel=False, **kw)}


def _layout(cover: ExactCover):
    """The one-word kernel's layout of ``cover`` as a session makes it (None: no fit)."""
    return engine.EngineSession(cover)._one_word(None)


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
    assert sessions["one"]._one_word(None) is not None
    combos = list(itertools.islice(itertools.product(*calendar.groups.values()), 0, None, 97))
    tasks = [plan.holes(c) for c in combos[:6]]
    counts = {name: s.tally_many(tasks) for name, s in sessions.items()}
    assert counts["one"] == counts["words"] == counts["general"]
    assert all(counts["one"])


@pytest.mark.parametrize("rows", [3, 4])
def test_counts_with_pieces_left_out_equal_the_other_kernels(rows):
    """Four tetrominoes, a domino and two monominoes on a 3x6 or 4x5 board, the last three
    optional: forced left out or not (an unforced left-out option is taken when the board
    is full), every kernel counts the same."""
    from cpmodels.geometry import orientations
    from cpmodels.pools import pool

    tetrominoes = dict(pool("tetrominoes"))
    shapes = [tetrominoes[name] for name in ("I4", "L4", "O4", "S4")] + [
        frozenset({(0, 0), (0, 1)}), frozenset({(0, 0)}), frozenset({(0, 0)})]
    kinds = [PieceKind(f"P{k}", tuple(orientations(s)), 1) for k, s in enumerate(shapes)]
    cover = packing_cover([(r, c) for r in range(rows) for c in range(18 // rows + rows - 3)],
                          kinds)
    left_out = _with_left_out(cover, [4, 5, 6])
    sessions = _kernels(cover)
    assert sessions["one"]._one_word(None) is not None
    tasks = [[], [left_out[5]], [left_out[5], left_out[6]], [left_out[4]],
             [left_out[4], left_out[5]], [left_out[4], left_out[4]]]
    counts = {name: [s.count(t) for t in tasks] for name, s in sessions.items()}
    assert counts["one"] == counts["words"] == counts["general"]
    assert counts["one"][:4] == ([148, 20, 20, 128] if rows == 3 else [1888, 0, 0, 0])


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
    assert (sessions["one"]._one_word(None) is not None) == (n <= 64)
    counts = {name: s.count() for name, s in sessions.items()}
    assert counts["one"] == counts["words"] == counts["general"] == 2 * 120
