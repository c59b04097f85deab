"""Algorithm X on bits: the most constrained item first, for covers of at most 128 items.

Dancing links (``links.py``) keeps each item's number of options left by unlinking, one
pointer at a time, every option a placement rules out, and linking them back on the way
up. When the items fit in two 64-bit words, a node can instead rebuild what it needs from
its parent: the options still possible at depth ``d`` are a list of masks (two words each),
and a child's list is its parent's filtered by one test (disjoint from the option placed),
written without a branch (a kept mask is stored and the end moves on by the test's 0 or 1).
The same pass adds each kept mask into bit-sliced counters: four bits and a saturation bit
for every item, a carry-save adder over the two words. The open item with the fewest
options is then the lowest bit of the first nonempty class 0, 1, 2, ... 15; only when every
open item has 16 or more options left (near the root) are they counted one by one.

Items are chosen as dancing links chooses them (the fewest options left, the lowest index
first) and each item's options are tried in the same order (the cover's), so the two
searches walk the same tree, node for node. Nothing is undone on the way up: a level's
list stays as it was while its children are searched. The indices are unsigned and the
frame of a level is a few scalars on an explicit stack.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from cpmodels import _native
from cpmodels.cover import ExactCover

MAX_ITEMS = 128
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_SIXTY_FOUR = np.uint64(64)
_SATURATED = np.uint64(16)  # the class past the counters' reach: count one by one
_CHECK_EVERY = np.uint64((1 << 16) - 1)  # nodes between looks at the stop flag


def fits(cover: ExactCover) -> bool:
    """Whether the cover's items fit the two words of :func:`count_kernel`."""
    return 0 < len(cover.items) <= MAX_ITEMS


def masks(cover: ExactCover) -> tuple[np.ndarray, np.ndarray, np.uint64, np.uint64, int]:
    """The options as masks (``low``, ``high``: items ``0..63`` and ``64..127``), the items to
    cover exactly once as a mask (``need_low``, ``need_high``; the others are covered at
    most once), and how deep a search can go (one more than the most options that can be
    disjoint: each covers at least one item to cover)."""
    low = np.zeros(len(cover.options), np.uint64)
    high = np.zeros(len(cover.options), np.uint64)
    need = [i for i, item in enumerate(cover.items) if item.low == 1]
    need_bits = sum(1 << i for i in need)
    for j, option in enumerate(cover.options):
        bits = sum(1 << i for i in option)
        low[j] = bits & 0xFFFF_FFFF_FFFF_FFFF
        high[j] = bits >> 64
    least_need = min((sum(1 for i in o if cover.items[i].low == 1) for o in cover.options),
                     default=1)
    depth = len(need) // max(1, least_need) + 2
    return (low, high, np.uint64(need_bits & 0xFFFF_FFFF_FFFF_FFFF), np.uint64(need_bits >> 64),
            depth)


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


@njit(cache=True, inline="always")
def _add(c0, c1, c2, c3, sat, x):
    """The bit-sliced counters plus one for each bit of ``x`` (saturating past 15)."""
    t = c0 & x
    c0 ^= x
    u = c1 & t
    c1 ^= t
    t = c2 & u
    c2 ^= u
    u = c3 & t
    c3 ^= t
    return c0, c1, c2, c3, sat | u


@njit(cache=True, inline="always")
def _pick(c0, c1, c2, c3, v):
    """The bits whose counter is ``v`` (the bits of ``v`` chosen from ``c`` or ``~c``)."""
    return ((c0 if v & _ONE else ~c0) & (c1 if v & np.uint64(2) else ~c1)
            & (c2 if v & np.uint64(4) else ~c2) & (c3 if v & np.uint64(8) else ~c3))


@njit(cache=True, inline="always")
def _fewest(a0, a1, a2, a3, a_sat, b0, b1, b2, b3, b_sat, open_low, open_high):
    """The open item with the fewest options (the lowest index of them) as a one-bit mask in
    two words, and that number; the number is 16 when every open item has 16 or more."""
    low = open_low & ~a_sat
    high = open_high & ~b_sat
    v = _ZERO
    while v < _SATURATED:
        x = low & _pick(a0, a1, a2, a3, v)
        if x != _ZERO:
            return x & (~x + _ONE), _ZERO, v
        y = high & _pick(b0, b1, b2, b3, v)
        if y != _ZERO:
            return _ZERO, y & (~y + _ONE), v
        v += _ONE
    return _ZERO, _ZERO, _SATURATED


@njit(cache=True, inline="always")
def _fewest_counted(live_low, live_high, d, n, open_low, open_high, counts):
    """:func:`_fewest` by counting each open item's options one by one (any number)."""
    counts[:] = 0
    for k in range(n):
        x = live_low[d, k] & open_low
        while x != _ZERO:
            counts[np.uint64(trailing_zeros(x))] += _ONE
            x &= x - _ONE
        y = live_high[d, k] & open_high
        while y != _ZERO:
            counts[np.uint64(trailing_zeros(y)) + _SIXTY_FOUR] += _ONE
            y &= y - _ONE
    best = _ZERO
    least = ~_ZERO
    for i in range(np.uint64(128)):
        is_open = (open_low >> i) & _ONE if i < _SIXTY_FOUR else (
            (open_high >> (i - _SIXTY_FOUR)) & _ONE)
        if is_open != _ZERO and counts[i] < least:
            best, least = i, counts[i]
    if best < _SIXTY_FOUR:
        return _ONE << best, _ZERO, least
    return _ZERO, _ONE << (best - _SIXTY_FOUR), least


@njit(cache=True, inline="always")
def _filter(src_low, src_high, s, n, dst_low, dst_high, d, o_low, o_high):
    """Row ``d`` of ``dst`` := the first ``n`` masks of row ``s`` of ``src`` disjoint from
    ``o``, without a branch; the number kept and the bit-sliced counts of their items."""
    a0 = a1 = a2 = a3 = a_sat = _ZERO
    b0 = b1 = b2 = b3 = b_sat = _ZERO
    m = _ZERO
    for k in range(n):
        x = src_low[s, k]
        y = src_high[s, k]
        kept = np.uint64(((x & o_low) | (y & o_high)) == _ZERO)
        dst_low[d, m] = x
        dst_high[d, m] = y
        m += kept
        keep = _ZERO - kept
        a0, a1, a2, a3, a_sat = _add(a0, a1, a2, a3, a_sat, x & keep)
        b0, b1, b2, b3, b_sat = _add(b0, b1, b2, b3, b_sat, y & keep)
    return m, a0, a1, a2, a3, a_sat, b0, b1, b2, b3, b_sat


def count_kernel(opt_low: np.ndarray, opt_high: np.ndarray, need_low: int, need_high: int,
                 depth: int, forced: np.ndarray, stop: np.ndarray) -> tuple[int, int]:
    """The solutions that contain the ``forced`` options (their indices), and the nodes the
    search took; the count is -1 when ``stop[0]`` was set before it finished. Compiled
    (``cpmodels/_core/src/bit_cover.cpp``); it releases the GIL while it searches."""
    return _native.bit_cover_count(
        np.ascontiguousarray(opt_low, np.uint64), np.ascontiguousarray(opt_high, np.uint64),
        int(need_low), int(need_high), int(depth), np.ascontiguousarray(forced, np.int64),
        stop)


@njit(cache=True, nogil=True)
def _numba_count_kernel(opt_low, opt_high, need_low, need_high, depth, forced, stop):
    """The solutions that contain the ``forced`` options (their indices), and the nodes the
    search took; the count is -1 when ``stop[0]`` was set before it finished."""
    n_options = np.uint64(opt_low.shape[0])
    placed_low = _ZERO
    placed_high = _ZERO
    for f in forced:
        if (placed_low & opt_low[f]) | (placed_high & opt_high[f]) != _ZERO:
            return 0, np.int64(0)
        placed_low |= opt_low[f]
        placed_high |= opt_high[f]
    rows = np.uint64(depth)
    live_low = np.empty((rows, n_options), np.uint64)
    live_high = np.empty((rows, n_options), np.uint64)
    n_live = np.empty(rows, np.uint64)
    filled_low = np.empty(rows, np.uint64)
    filled_high = np.empty(rows, np.uint64)
    item_low = np.empty(rows, np.uint64)  # the item branched on, as a one-bit mask
    item_high = np.empty(rows, np.uint64)
    least = np.empty(rows, np.uint64)  # its number of options (16: count them one by one)
    at = np.empty(rows, np.uint64)  # where the walk of its options is
    counts = np.zeros(128, np.uint64)
    source = np.empty((1, n_options), np.uint64)
    source[0, :] = opt_low
    source_high = np.empty((1, n_options), np.uint64)
    source_high[0, :] = opt_high
    m, a0, a1, a2, a3, a_sat, b0, b1, b2, b3, b_sat = _filter(
        source, source_high, _ZERO, n_options, live_low, live_high, _ZERO, placed_low,
        placed_high)
    n_live[0] = m
    filled_low[0] = placed_low
    filled_high[0] = placed_high
    item_low[0], item_high[0], least[0] = _fewest(
        a0, a1, a2, a3, a_sat, b0, b1, b2, b3, b_sat, need_low & ~placed_low,
        need_high & ~placed_high)
    count = 0
    nodes = _ZERO
    d = _ZERO
    entering = True
    while True:
        if entering:  # a new node at depth d: its list and its choice are ready
            open_low = need_low & ~filled_low[d]
            open_high = need_high & ~filled_high[d]
            if open_low | open_high == _ZERO:
                count += 1
                if d == _ZERO:
                    return count, np.int64(nodes)
                d -= _ONE
                entering = False
                continue
            nodes += _ONE
            if nodes & _CHECK_EVERY == _ZERO and stop[0]:
                return -1, np.int64(nodes)
            if least[d] == _SATURATED:
                item_low[d], item_high[d], least[d] = _fewest_counted(
                    live_low, live_high, d, n_live[d], open_low, open_high, counts)
            if least[d] == _ZERO:  # an item no option can cover: a dead end
                if d == _ZERO:
                    return count, np.int64(nodes)
                d -= _ONE
                entering = False
                continue
            at[d] = _ZERO
        # the next option at depth d that covers its item
        b_low = item_low[d]
        b_high = item_high[d]
        k = at[d]
        n = n_live[d]
        while k < n and (live_low[d, k] & b_low) | (live_high[d, k] & b_high) == _ZERO:
            k += _ONE
        if k >= n:
            if d == _ZERO:
                return count, np.int64(nodes)
            d -= _ONE
            entering = False
            continue
        at[d] = k + _ONE
        o_low = live_low[d, k]
        o_high = live_high[d, k]
        child = d + _ONE
        m, a0, a1, a2, a3, a_sat, b0, b1, b2, b3, b_sat = _filter(
            live_low, live_high, d, n, live_low, live_high, child, o_low, o_high)
        n_live[child] = m
        filled_low[child] = filled_low[d] | o_low
        filled_high[child] = filled_high[d] | o_high
        item_low[child], item_high[child], least[child] = _fewest(
            a0, a1, a2, a3, a_sat, b0, b1, b2, b3, b_sat, need_low & ~filled_low[child],
            need_high & ~filled_high[child])
        d = child
        entering = True
