"""The reach kernel's view of a calendar's sweep cover (``reach.py``): the one-word layout
scanned from the corner that suits it, the label groups' cells, the region sizes a set's
pieces fill, and the wanted combinations encoded as the kernel reads them: the group with
the most labels (the *bit group*) as a bit mask of cells, the others (at most two) as the
index into an array of such masks. Covers that do not suit (no one-word layout, more than
three groups) have no layout, and the caller asks date by date instead."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence

import numpy as np

import cpmodels._native as _native
from cpmodels.backends.engine.layouts.cover import one_word_layout
from cpmodels.backends.engine.layouts.regions import region_sizes
from cpmodels.cover import ExactCover, ItemKind

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
    groups), read from it: the group cells, the bit group and the other groups' labels.

    Of the four corners the scan may start from, it takes the one whose scan meets last
    the group with the most labels (the group a design's searches leave open, see
    ``design/reaching.py``: the fewer the searches), then one that is a board cell (the
    scan starts where the board does). On the weekday calendar that is the corner of
    Saturday, months last: 0.5 of the time of the scan from January (``docs/design.md``)."""
    layouts = [layout for flips in range(4)
               if (layout := _reach_layout(cover, flips)) is not None]
    if not layouts or not _joined(layouts[0]):
        return None

    def preference(layout: ReachLayout) -> tuple[int, bool]:
        last = int(layout.group_cells[layout.last_group])
        return bin(last).count("1"), not int(layout.covered) & 1
    return max(layouts, key=preference)  # the first of the best, on a tie


def _joined(layout: ReachLayout) -> bool:
    """Whether each option's cells are joined through their sides, as a piece's are: the
    search's region pruning holds only then (a cover made by hand may have options whose
    cells fall apart; the one-word layout switches its own region check off for them)."""
    masks = np.asarray(layout.masks, dtype=np.uint64)
    inner, first, last = (np.uint64(int(v)) for v in (layout.inner, layout.first, layout.last))
    one = np.uint64(1)
    reached = masks & (~masks + one)  # each option's lowest cell
    while True:
        around = (((reached >> one) & ~last) | ((reached << one) & ~first)
                  | (reached >> inner) | (reached << inner))
        grown = (reached | around) & masks
        if np.array_equal(grown, reached):
            return bool(np.array_equal(reached, masks))
        reached = grown


def _reach_layout(cover: ExactCover, flips: int) -> ReachLayout | None:
    """:func:`reach_layout` with the scan from the corner ``flips`` names."""
    one = one_word_layout(cover, flips)
    if one is None:
        return None
    n_units = int(one.n_pieces)
    slack_bits = [p for p in range(n_units) if int(one.slack) >> p & 1]
    if not 0 < len(slack_bits) <= MAX_GROUPS:
        return None
    group_cells = [int(one.slack_cells[p]) for p in slack_bits]
    sizes = [bin(m).count("1") for m in group_cells]
    if min(sizes) == 0:
        return None
    bit_group = max(range(len(slack_bits)), key=lambda g: (sizes[g], -g))
    others = [g for g in range(len(slack_bits)) if g != bit_group]

    def labels(g: int) -> np.ndarray:
        """Each cell bit of group ``g``'s labels -> the label's index (in bit order)."""
        out = np.zeros(64, dtype=np.uint64)
        if g >= 0:
            for k, b in enumerate(b for b in range(64) if group_cells[g] >> b & 1):
                out[b] = k
        return out

    a_group = others[0] if others else -1
    b_group = others[1] if len(others) > 1 else -1
    a_size = sizes[a_group] if a_group >= 0 else 1
    b_size = sizes[b_group] if b_group >= 0 else 1
    n_cells = 64 - bin(int(one.covered)).count("1")
    return ReachLayout(
        one.start, one.masks, one.avail, one.n_pieces, one.opt_cells, one.opt_piece,
        one.slack, one.optional, one.covered, one.inner, one.first, one.last,
        np.array(group_cells, dtype=np.uint64),
        np.array([1 << p for p in slack_bits], dtype=np.uint64),
        np.int64(bit_group), np.int64(a_group), np.int64(b_group), labels(a_group),
        labels(b_group), np.uint64(b_size), np.int64(a_size * b_size), np.int64(n_cells),
        np.int64(max(range(len(group_cells)), key=lambda g: (group_cells[g] & -group_cells[g],
                                                            g))))


def left_open_holes(cover: ExactCover, layout: ReachLayout | bool | None) -> frozenset[int]:
    """The holes (slack options) of the group the layout's scan meets last: the group a
    search best leaves open, the others forced (none without a layout)."""
    if not isinstance(layout, ReachLayout):
        return frozenset()
    slack = [i for i, it in enumerate(cover.items) if it.kind is ItemKind.SLACK]
    item = slack[int(layout.last_group)]
    return frozenset(o for o, option in enumerate(cover.options) if item in option)


def reach_regions(layout: ReachLayout, areas: Sequence[int]) -> ReachRegions:
    """The region sizes pieces of ``areas`` fill with 0 .. groups holes of one cell."""
    groups = len(layout.group_cells)
    total = int(layout.n_cells)
    fill = np.zeros((groups + 1, total + 1), dtype=np.bool_)
    limit = 0
    for k in range(groups + 1):
        fill[k], found = region_sizes(list(areas) + [1] * k, total)
        limit = max(limit, found)
    return ReachRegions(fill, np.uint64(limit))


def reach_dates(layout: ReachLayout, holes: Sequence[Sequence[int]],
                left_open: int = -1) -> ReachDates:
    """The dates whose holes are ``holes`` (one row of slack options each) as the design
    decision reads them, made by the core (``cpcore_design_dates``): the holes held are
    those not of group ``left_open`` (-1: every hole held); dates holding the same ones
    share a group, numbered as first met; each combination encoded as the reach search
    reads it. A row that does not leave one hole in each group is a ValueError."""
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
