"""Tallies: counts split by the options that cover a few chosen items (a sweep's holes).

See the package's introduction for the layout of a state's count vector.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cpmodels.backends.engine.layouts.cover import CompiledCover
from cpmodels.cover import ExactCover, ItemKind

#: What the search kernels read of a tally layout, bundled as one argument.
Tallies = namedtuple("Tallies", [
    "n_tally", "bit", "last_anchor", "opt_tally", "opt_index", "length", "stride",
    "map_start", "map_flat"])


@dataclass
class TallyLayout:
    """How counts split by the option chosen for each *tally item*.

    A tally item is an exact-one item whose covering option is recorded: counting then returns
    one count per combination of those options (for a sweep, one per label combination).
    A state in which the tally items of ``mask`` are still uncovered keeps a vector of
    ``length[mask]`` counts, tally item 0 varying slowest.
    """

    items: list[int]  # the tally items (cover item indices), in layout order
    options: list[list[int]]  # per tally item, the option ids that cover it, in index order
    bit: np.ndarray  # [T] the item's bit
    last_anchor: np.ndarray  # [T] the last branching position any of its options is tried at
    opt_tally: np.ndarray  # [options] tally item covered by the option, or -1
    opt_index: np.ndarray  # [options] the option's index among that item's options
    length: np.ndarray  # [2**T] vector length of a state whose uncovered tally items are mask
    stride: np.ndarray  # [2**T, T] stride of each uncovered tally item in that layout
    map_start: np.ndarray  # [2**T * T + 1] child-to-parent index maps, by (mask, item)
    map_flat: np.ndarray

    @property
    def kernel(self) -> Tallies:
        """The arrays the search kernels read, as one argument."""
        return Tallies(len(self.items), self.bit, self.last_anchor, self.opt_tally,
                       self.opt_index, self.length, self.stride, self.map_start, self.map_flat)


def tally_layout(cc: CompiledCover, items: Sequence[int]) -> TallyLayout:
    """The layout of counts split by the options covering ``items`` (exact-one items)."""
    cover = cc.cover
    for i in items:
        if not 0 <= cc.bit_of_item[i] < cc.n_branch:
            raise ValueError(f"tally item {cover.items[i].name} is not an exact-one item")
    n_t = len(items)
    if n_t > 16:
        raise ValueError("at most 16 tally items")
    covering: list[list[int]] = [[] for _ in items]
    where = {item: t for t, item in enumerate(items)}
    opt_tally = np.full(len(cover.options), -1, dtype=np.int64)
    opt_index = np.full(len(cover.options), -1, dtype=np.int64)
    anchor_of = np.full(len(cover.options), -1, dtype=np.int64)
    for a in range(cc.n_branch):
        anchor_of[cc.anchor_opts[cc.anchor_start[a]:cc.anchor_start[a + 1]]] = a
    last_anchor = np.full(max(n_t, 1), -1, dtype=np.int64)
    for j, option in enumerate(cover.options):
        hits = [where[i] for i in option if i in where]
        if len(hits) > 1:
            raise ValueError("an option may cover at most one tally item")
        if hits and anchor_of[j] >= 0:
            t = hits[0]
            opt_tally[j] = t
            opt_index[j] = len(covering[t])
            covering[t].append(j)
            last_anchor[t] = max(last_anchor[t], anchor_of[j])
    sizes = [max(1, len(c)) for c in covering]
    length = np.ones(1 << n_t, dtype=np.int64)
    stride = np.zeros((1 << n_t, max(n_t, 1)), dtype=np.int64)
    for mask in range(1 << n_t):
        n = 1
        for t in range(n_t - 1, -1, -1):
            if mask >> t & 1:
                stride[mask, t] = n
                n *= sizes[t]
        length[mask] = n
    map_start = np.zeros((1 << n_t) * max(n_t, 1) + 1, dtype=np.int64)
    flat: list[int] = []
    for mask in range(1 << n_t):
        for t in range(max(n_t, 1)):
            map_start[mask * max(n_t, 1) + t] = len(flat)
            if n_t == 0 or not mask >> t & 1:
                continue
            child = mask & ~(1 << t)
            for x in range(int(length[child])):
                # Spell out x in the child's layout, then place it in the parent's.
                y = 0
                for u in range(n_t):
                    if child >> u & 1:
                        coord = (x // int(stride[child, u])) % sizes[u]
                        y += coord * int(stride[mask, u])
                flat.append(y)
    map_start[-1] = len(flat)
    bits = np.array([int(cc.bit_of_item[i]) for i in items] or [0], dtype=np.int64)
    return TallyLayout(list(items), covering, bits, last_anchor, opt_tally, opt_index,
                       length, stride, map_start, np.array(flat or [0], dtype=np.int64))


#: What the one-word tally kernel reads of a tally layout (see :func:`one_word_tallies`):
#: ``bit[t]``, the piece-word bit of tally item ``t``; the rest as in :class:`Tallies`.
OneTallies = namedtuple("OneTallies", [
    "n_tally", "bit", "opt_tally", "opt_index", "length", "stride", "map_start", "map_flat"])


def one_word_tallies(cover: ExactCover, items: Sequence[int],
                     tallies: Tallies | None) -> OneTallies | None:
    """The one-word tally kernel's view of the tally layout ``tallies`` of ``items`` (no
    items: plain counts, ``tallies`` unused), or None when a tally item is a cell (the
    kernel reads the tally items in the piece word)."""
    others = [i for i, it in enumerate(cover.items) if it.kind is not ItemKind.CELL]
    if not items or tallies is None:
        none = np.full(len(cover.options), -1, dtype=np.int64)
        return OneTallies(0, np.zeros(1, np.uint64), none, none, np.ones(1, np.int64),
                          np.zeros((1, 1), np.int64), np.zeros(2, np.int64),
                          np.zeros(1, np.int64))
    if any(i not in others for i in items):
        return None
    bits = np.array([1 << others.index(i) for i in items], dtype=np.uint64)
    return OneTallies(len(items), bits, tallies.opt_tally, tallies.opt_index, tallies.length,
                      tallies.stride, tallies.map_start, tallies.map_flat)
