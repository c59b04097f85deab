"""Algorithm X on bits: the most constrained item first, for covers of at most 128 items.

Dancing links (``links.py``) keeps each item's number of options left by unlinking, one
pointer at a time, every option a placement rules out, and linking them back on the way
up. When the items fit in two 64-bit words, a node can instead rebuild what it needs from
its parent: the options still possible at depth ``d`` are a list of masks (two words each),
kept in pairs (low word, high word), and a child's list is its parent's filtered by one test
(disjoint from the option placed), written without a branch (a kept pair is stored and the
end moves on by the test's 0 or 1). A second pass over the pairs kept adds them into
bit-sliced counters: four bits and a saturation bit for every item, a carry-save adder,
over four words at once (two options), the lanes added up at the end. The open item with
the fewest options is then the lowest bit of the first nonempty class 0, 1, 2, ... 15; only
when every open item has 16 or more options left (near the root) are they counted one by
one.

Items are chosen as dancing links chooses them (the fewest options left, the lowest index
first) and each item's options are tried in the same order (the cover's), so the two
searches walk the same tree, node for node. Nothing is undone on the way up: a level's
list stays as it was while its children are searched. The search is compiled
(``cpmodels/_core/src/bit_cover.cpp``; its walk, shared with dancing links, in
``cpcore/cover.hpp``): a level's frame is a few words in buffers the caller hands in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cpmodels._native as _native
from cpmodels.backends.engine.layouts.buffers import of
from cpmodels.cover import ExactCover

if TYPE_CHECKING:
    import numpy as np

MAX_ITEMS = 128
# What masks() gives: the options' low and high words, the items to cover's, the depth.
Masks = tuple[memoryview, memoryview, int, int, int]
WORD = (1 << 64) - 1


def fits(cover: ExactCover) -> bool:
    """Whether the cover's items fit the two words of :func:`count_kernel`."""
    return 0 < len(cover.items) <= MAX_ITEMS


def masks(cover: ExactCover) -> Masks:
    """The options as masks (``low``, ``high``: items ``0..63`` and ``64..127``), the items to
    cover exactly once as a mask (``need_low``, ``need_high``; the others are covered at
    most once), and how deep a search can go (one more than the most options that can be
    disjoint: each covers at least one item to cover). The masks are buffers
    (``layouts/buffers.py``: a solid's count loads no numpy), the words whole numbers."""
    need = [i for i, item in enumerate(cover.items) if item.low == 1]
    need_bits = sum(1 << i for i in need)
    option_bits = [sum(1 << i for i in option) for option in cover.options]
    low = of((bits & WORD for bits in option_bits), "Q")
    high = of((bits >> 64 for bits in option_bits), "Q")
    least_need = min((sum(1 for i in o if cover.items[i].low == 1) for o in cover.options),
                     default=1)
    depth = len(need) // max(1, least_need) + 2
    return low, high, need_bits & WORD, need_bits >> 64, depth


def root_tasks(cover: ExactCover, forced: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    """The options of the item :func:`count_kernel` branches on first once ``forced`` is
    taken (the fewest options left, the lowest index of them), each with ``forced``: the
    top-level branches of a count (none when ``forced`` overlap; ``forced`` alone when it
    covers every item to cover)."""
    placed: set[int] = set()
    for j in forced:
        if placed.intersection(cover.options[j]):
            return []
        placed.update(cover.options[j])
    open_items = [i for i, item in enumerate(cover.items) if item.low == 1 and i not in placed]
    if not open_items:
        return [forced]
    live = [j for j, option in enumerate(cover.options) if placed.isdisjoint(option)]
    left = dict.fromkeys(open_items, 0)
    for j in live:
        for i in cover.options[j]:
            if i in left:
                left[i] += 1
    best = min(open_items, key=lambda i: (left[i], i))
    return [(*forced, j) for j in live if best in cover.options[j]]


def count_kernel(opt_low: np.ndarray | memoryview, opt_high: np.ndarray | memoryview,
                 need_low: int | np.uint64, need_high: int | np.uint64, depth: int,
                 forced: np.ndarray | memoryview, stop: np.ndarray | memoryview
                 ) -> tuple[int, int]:
    """The solutions that contain the ``forced`` options (their indices), and the nodes the
    search took; the count is the core's ``STOPPED`` (-1) when ``stop[0]`` was set before
    it finished. Compiled (``cpmodels/_core/src/bit_cover.cpp``); it releases the GIL while
    it searches."""
    return _native.bit_cover_count(_buffer(opt_low, "Q"), _buffer(opt_high, "Q"),
                                   int(need_low), int(need_high), int(depth),
                                   _buffer(forced, "q"), stop)


def _buffer(a: np.ndarray | memoryview, fmt: str) -> np.ndarray | memoryview:
    """``a`` as the core reads it: a buffer of format ``fmt`` as it is, anything else a
    C-contiguous array of that type."""
    if isinstance(a, memoryview) and a.format == fmt:
        return a
    import numpy as np

    return np.ascontiguousarray(a, np.uint64 if fmt == "Q" else np.int64)
