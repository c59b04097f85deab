"""The reach kernel's view of a calendar's sweep cover (``reach.py``): the one-word layout
scanned from the corner that suits it, the label groups' cells, the region sizes a set's
pieces fill, and the wanted combinations encoded as the kernel reads them: the group with
the most labels (the *bit group*) as a bit mask of cells, the others (at most two) as the
index into an array of such masks. Covers that do not suit (no one-word layout, more than
three groups) have no layout, and the caller asks date by date instead."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from typing import TYPE_CHECKING

import cpmodels._native as _native
from cpmodels.backends.engine.layouts.cover import OneWord, one_word_input, one_word_layout
from cpmodels.cover import ExactCover, ItemKind

if TYPE_CHECKING:
    import numpy as np

#: What the reach kernel reads (see :func:`reach_layout`).
ReachLayout = namedtuple("ReachLayout", [
    "start", "masks", "avail", "n_units", "opt_cells", "opt_unit", "slack_units", "optional",
    "covered", "inner", "first", "last", "group_cells", "group_unit", "bit_group", "a_group",
    "b_group", "a_label", "b_label", "a_stride", "n_index", "n_cells", "last_group"])

#: The region sizes a set's pieces fill with k holes, k = 0 .. groups (row k), and the
#: size below which regions are checked.
ReachRegions = namedtuple("ReachRegions", ["fill", "limit"])

#: A design's required dates as the core's design decision reads them (entry.h's
#: cpcore_design_input): each date's holes and those but the group left open (rows, -1
#: pads), the group of dates with the same held holes, and its combination encoded.
ReachDates = namedtuple("ReachDates", ["holes", "held", "group", "index", "bit"])

MAX_GROUPS = 3  # the bit group and at most two indexing groups


def reach_layout(cover: ExactCover) -> ReachLayout | None:
    """The reach kernel's view of a calendar's sweep cover, or None when it does not suit:
    the one-word layout of the cover (``one_word.py``: a square grid of at most 64 cells,
    pieces used once, slack and left-out options) with one to three slack items (label
    groups), each option's cells joined, read from it by the core
    (``cpcore_reach_groups_of``): the group cells, the bit group and the other groups'
    labels.

    Of the four corners the scan may start from, it takes the one the core ranks highest
    (``cpcore_reach_corner``, the first of equals): the one whose scan meets last the group
    with the most labels (the group a design's searches leave open, see
    ``design/reaching.py``: the fewer the searches), then one that is a board cell (the
    scan starts where the board does). On the weekday calendar that is the corner of
    Saturday, months last: 0.5 of the time of the scan from January (``docs/design.md``)."""
    given = one_word_input(cover)
    if given is None:
        return None
    flips = _native.reach_corner(*given)
    return None if flips < 0 else _reach_layout(cover, flips)


def _reach_layout(cover: ExactCover, flips: int) -> ReachLayout | None:
    """:func:`reach_layout` with the scan from the corner ``flips`` names."""
    one = one_word_layout(cover, flips)
    return None if one is None else _read(one)[1]


def _read(one: OneWord) -> tuple[int, ReachLayout | None]:
    """The rank of ``one``'s corner and the reach layout read from it (None when the reach
    search does not suit it)."""
    import numpy as np

    group_cells, group_unit = np.zeros(MAX_GROUPS, np.uint64), np.zeros(MAX_GROUPS, np.uint64)
    a_label, b_label = np.zeros(64, np.uint64), np.zeros(64, np.uint64)
    (suits, n_groups, bit_group, a_group, b_group, last_group, a_stride, n_index, n_cells,
     rank) = _native.reach_groups(one, group_cells, group_unit, a_label, b_label)
    if not suits:
        return rank, None
    return rank, ReachLayout(
        one.start, one.masks, one.avail, one.n_pieces, one.opt_cells, one.opt_piece,
        one.slack, one.optional, one.covered, one.inner, one.first, one.last,
        group_cells[:n_groups].copy(), group_unit[:n_groups].copy(), np.int64(bit_group),
        np.int64(a_group), np.int64(b_group), a_label, b_label, np.uint64(a_stride),
        np.int64(n_index), np.int64(n_cells), np.int64(last_group))


def left_open_holes(cover: ExactCover, layout: ReachLayout | bool | None) -> frozenset[int]:
    """The holes (slack options) of the group the layout's scan meets last: the group a
    search best leaves open, the others forced (none without a layout)."""
    if not isinstance(layout, ReachLayout):
        return frozenset()
    slack = [i for i, it in enumerate(cover.items) if it.kind is ItemKind.SLACK]
    item = slack[int(layout.last_group)]
    return frozenset(o for o, option in enumerate(cover.options) if item in option)


def reach_regions(layout: ReachLayout, areas: Sequence[int]) -> ReachRegions:
    """The region sizes pieces of ``areas`` fill with 0 .. groups holes of one cell, made
    by the core (``cpcore_reach_fills``)."""
    import numpy as np

    groups = len(layout.group_cells)
    fill = np.zeros((groups + 1, int(layout.n_cells) + 1), dtype=np.bool_)
    limit = _native.reach_fills(np.asarray(list(areas), dtype=np.int64).reshape(-1), groups,
                                fill)
    return ReachRegions(fill, np.uint64(limit))


def reach_dates(layout: ReachLayout, holes: Sequence[Sequence[int]],
                left_open: int = -1) -> ReachDates:
    """The dates whose holes are ``holes`` (one row of slack options each) as the design
    decision reads them, made by the core (``cpcore_design_dates``): the holes held are
    those not of group ``left_open`` (-1: every hole held); dates holding the same ones
    share a group, numbered as first met; each combination encoded as the reach search
    reads it. A row that does not leave one hole in each group is a ValueError."""
    import numpy as np

    cols = max([len(h) for h in holes] + [1])
    rows = np.full((len(holes), cols), -1, dtype=np.int64)
    for d, combo in enumerate(holes):
        rows[d, :len(combo)] = combo
    held = np.empty_like(rows)
    group = np.zeros(len(holes), dtype=np.int64)
    index = np.zeros(len(holes), dtype=np.int64)
    bit = np.zeros(len(holes), dtype=np.uint64)
    _native.design_dates(layout, left_open, rows, held, group, index, bit)
    return ReachDates(rows, held, group, index, bit)


class WantedLists:
    """The last few lists of wanted combinations, encoded (:func:`reach_dates`): a design
    asks a set's front and then its groups, set after set."""

    KEPT = 8

    def __init__(self) -> None:
        self._lists: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def encoded(self, layout: ReachLayout,
                wanted: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
        """``wanted`` encoded for ``layout``, from the lists kept when it is one of them."""
        key = tuple(map(tuple, wanted))
        found = self._lists.pop(key, None)
        if found is None:
            dates = reach_dates(layout, key)
            found = dates.index, dates.bit
            if len(self._lists) >= self.KEPT:
                del self._lists[next(iter(self._lists))]  # the least recently asked
        self._lists[key] = found
        return found
