"""The counting engine: a compiled exact-cover search (numba), for counts in bulk.

The search is Knuth's Algorithm X with a fixed branching order, on bitsets of any width:

* Every exact-one item (a board cell, a piece used once) is a bit; so is every secondary item.
  Items covered a range of times (a piece with several copies) are counters.
* The search always branches on the first uncovered exact-one item in a fixed order (the
  cover lists board cells in scan order along the shorter side, so this is the classic "first
  empty cell" of polyomino solvers) and tries only the options *anchored* there, the options
  whose first exact-one item that is. Options of a used piece are skipped as a block.
* Counting memoises the number of completions of each state (covered bits plus counter
  values) in an exact hash table (full keys, no hash-only matches), so a sub-board reached in
  several ways is counted once. The table is kept between calls.
* Counts can be *tallied*: split by which option covers each of a few chosen items. A state
  then keeps a vector of counts, one per combination of the options still open to those
  items, and memoised states store the nonzero run of it. This is how a sweep counts every
  label combination of a calendar in one search: the holes are options like any other, and
  a sub-board reached with the holes in different places is counted once for all of them.

Enumeration runs an explicit-stack search that can pause after any number of solutions and
resume, so solutions stream without being stored.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from cpmodels.backends.result import CoverResult
from cpmodels.cover import ExactCover
from cpmodels.errors import TooLargeError
from cpmodels.interrupt import interruptible

NAME = "engine"
DEFAULT_MEMO_SLOTS = 1 << 22
MAX_MASK_BYTES = 4 << 30  # option bitsets: options x words x 8 bytes
MAX_MEMO_KEY_BYTES = 2 << 30  # a memo's keys (committed only as they are touched)
STOP = 5  # index of the stop flag in Memo.stats
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@dataclass
class CompiledCover:
    """An exact cover laid out as arrays for the compiled search."""

    cover: ExactCover
    n_words: int
    n_branch: int  # exact-one items: bits 0 .. n_branch - 1, in branching order
    bit_of_item: np.ndarray  # item -> bit, or -1 for counter items
    counter_of_item: np.ndarray  # item -> counter, or -1
    opt_mask: np.ndarray  # [options, words] uint64
    opt_counter: np.ndarray  # [options] int64, -1 when the option touches no counter
    opt_tag_word: np.ndarray  # [options] word of the option's tag bit (-1: tag is a counter)
    opt_tag_bit: np.ndarray  # [options] uint64 mask of that bit
    anchor_start: np.ndarray  # [n_branch + 1] into anchor_opts
    anchor_opts: np.ndarray  # option ids grouped by anchor, then by tag
    group_end: np.ndarray  # [len(anchor_opts)] end of the run of options with the same tag
    counter_low: np.ndarray
    counter_high: np.ndarray
    radix: np.ndarray  # counter state code = sum(counter * radix)
    memo_ok: bool
    cell_nb: np.ndarray  # [n_branch, 4] neighbouring board-cell bits, -1 padded
    opt_nb_start: np.ndarray  # [options + 1] into opt_nb
    opt_nb: np.ndarray  # board-cell bits next to each option (outside it)
    fillable: np.ndarray  # fillable[k]: k cells can be filled by some of the pieces
    region_limit: int  # regions of fewer cells than this are checked (0: no pruning)


def compile_cover(cover: ExactCover) -> CompiledCover:
    """Lay out ``cover`` for the engine (branching follows the order of the exact-one items).

    Options that touch no exact-one item can never be chosen by Algorithm X and are dropped
    (as in Knuth's formulation, every option needs a primary item).
    """
    items = cover.items
    exact = [i for i, it in enumerate(items) if it.low == it.high == 1]
    order = exact
    secondary = [i for i, it in enumerate(items) if it.low == 0 and it.high == 1]
    counters = [i for i, it in enumerate(items)
                if not (it.low == it.high == 1) and not (it.low == 0 and it.high == 1)]
    n_branch = len(order)
    n_bits = n_branch + len(secondary)
    n_words = max(1, (n_bits + 63) // 64)
    bit_of_item = np.full(len(items), -1, dtype=np.int64)
    for bit, i in enumerate(order + secondary):
        bit_of_item[i] = bit
    counter_of_item = np.full(len(items), -1, dtype=np.int64)
    for c, i in enumerate(counters):
        counter_of_item[i] = c

    n_opts = len(cover.options)
    if n_opts * n_words * 8 > MAX_MASK_BYTES:
        raise TooLargeError(
            f"the problem is too large for the counting engine: {n_opts:,} options x "
            f"{n_bits:,} items need {n_opts * n_words * 8 / 2**30:.1f} GB of bitsets; the "
            f"limit is {MAX_MASK_BYTES / 2**30:.0f} GB. Try --backend cpsat or sat")
    opt_mask = np.zeros((n_opts, n_words), dtype=np.uint64)
    opt_counter = np.full(n_opts, -1, dtype=np.int64)
    opt_tag_word = np.full(n_opts, -1, dtype=np.int64)
    opt_tag_bit = np.zeros(n_opts, dtype=np.uint64)
    anchors: list[list[tuple[int, int]]] = [[] for _ in range(n_branch)]
    for j, option in enumerate(cover.options):
        bits = [int(bit_of_item[i]) for i in option if bit_of_item[i] >= 0]
        for b in bits:
            opt_mask[j, b >> 6] |= np.uint64(1) << np.uint64(b & 63)
        option_counters = [int(counter_of_item[i]) for i in option if counter_of_item[i] >= 0]
        if len(option_counters) > 1:
            raise ValueError("an option may cover at most one multiplicity item")
        if option_counters:
            opt_counter[j] = option_counters[0]
        branch_bits = [b for b in bits if b < n_branch]
        if not branch_bits:
            continue
        # The tag is the option's last item: the piece, in a packing cover.
        tag = option[-1]
        if bit_of_item[tag] >= 0:
            b = int(bit_of_item[tag])
            opt_tag_word[j] = b >> 6
            opt_tag_bit[j] = np.uint64(1) << np.uint64(b & 63)
        anchors[min(branch_bits)].append((tag, j))

    anchor_start = np.zeros(n_branch + 1, dtype=np.int64)
    flat: list[int] = []
    group_end: list[int] = []
    for a, entries in enumerate(anchors):
        anchor_start[a] = len(flat)
        entries.sort()
        start = len(flat)
        flat += [j for _, j in entries]
        tags = [t for t, _ in entries]
        ends = [0] * len(entries)
        run_end = len(entries)
        for k in range(len(entries) - 1, -1, -1):
            if k == len(entries) - 1 or tags[k] != tags[k + 1]:
                run_end = k + 1
            ends[k] = start + run_end
        group_end += ends
    anchor_start[n_branch] = len(flat)

    cell_nb, opt_nb_start, opt_nb, fillable, region_limit = _region_data(
        cover, bit_of_item, n_branch)
    low = np.array([items[i].low for i in counters], dtype=np.int64)
    high = np.array([items[i].high for i in counters], dtype=np.int64)
    radix = np.ones(len(counters), dtype=np.uint64)
    states = 1
    for c in range(len(counters)):
        radix[c] = np.uint64(states)
        states *= int(high[c]) + 1
    return CompiledCover(
        cover, n_words, n_branch, bit_of_item, counter_of_item, opt_mask, opt_counter,
        opt_tag_word, opt_tag_bit, anchor_start, np.array(flat, dtype=np.int64),
        np.array(group_end, dtype=np.int64), low, high, radix, states < 2**63,
        cell_nb, opt_nb_start, opt_nb, fillable, region_limit,
    )


def _region_data(cover: ExactCover, bit_of_item: np.ndarray, n_branch: int) -> tuple:
    """Adjacency of the board cells and the region sizes the pieces can fill.

    An empty region (cells joined by edges) must be filled by some of the pieces, so a region
    whose size is no sum of piece areas is a dead end. Only exact-one cell items count as
    board cells; without a consistent piece area per tag item the check is switched off.
    """
    cell_bit = {it.cell: int(bit_of_item[i]) for i, it in enumerate(cover.items)
                if it.cell is not None and 0 <= bit_of_item[i] < n_branch}
    cell_nb = np.full((max(n_branch, 1), 4), -1, dtype=np.int64)
    for (r, c), b in cell_bit.items():
        for k, nb in enumerate(((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))):
            cell_nb[b, k] = cell_bit.get(nb, -1)
    area: dict[int, int] = {}
    consistent = bool(cell_bit)
    opt_nb_start = np.zeros(len(cover.options) + 1, dtype=np.int64)
    flat: list[int] = []
    for j, option in enumerate(cover.options):
        cells = [cover.items[i].cell for i in option if cover.items[i].cell in cell_bit]
        if len(cells) != sum(1 for i in option if cover.items[i].cell is not None):
            consistent = False
        if area.setdefault(option[-1], len(cells)) != len(cells) or not cells:
            consistent = False
        inside = set(cells)
        around = {nb for r, c in cells for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                  if nb in cell_bit and nb not in inside}
        flat += sorted(cell_bit[nb] for nb in around)
        opt_nb_start[j + 1] = len(flat)
    total = len(cell_bit)
    fillable = np.zeros(total + 1, dtype=np.bool_)
    fillable[0] = True
    if consistent:
        for tag, size in area.items():
            for _ in range(cover.items[tag].high):
                fillable[size:] |= fillable[:-size].copy() if size <= total else False
    limit = 0
    if consistent:
        gaps = [k for k in range(1, total + 1) if not fillable[k]]
        # Flood fills cost time: look only at regions smaller than two of the largest pieces.
        cap = 2 * max(area.values()) + 2
        gaps = [k for k in gaps if k < cap]
        limit = max(gaps) + 1 if gaps else 0
    return cell_nb, opt_nb_start, np.array(flat, dtype=np.int64), fillable, limit


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


class SearchStopped(RuntimeError):
    """A search was stopped (by :meth:`Memo.stop`) before it finished: it has no count."""


class Memo:
    """An exact hash table of sub-board counts, reusable across calls on one compiled cover.

    Each stored state points into ``arena``, where the nonzero run of its count vector lives
    (one number when nothing is tallied). Storing stops, without harm, when the table is
    three quarters full or the arena is full.
    """

    def __init__(self, n_words: int, slots: int = DEFAULT_MEMO_SLOTS,
                 arena: int | None = None) -> None:
        fit = MAX_MEMO_KEY_BYTES // ((n_words + 1) * 8)  # wide boards get fewer slots
        size = 1 << max(4, (min(slots, fit) - 1).bit_length())
        if size > fit:
            size >>= 1
        # Zero-filled arrays are committed page by page as they are touched.
        self.keys = np.zeros((size, n_words + 1), dtype=np.uint64)
        self.values = np.zeros(size, dtype=np.int64)  # 1 + count or arena offset; 0: empty
        self.arena = np.zeros(4 * size if arena is None else arena, dtype=np.int64)
        # used slots, hits, misses, nodes, arena used, and a stop flag (STOP) that another
        # thread may set: the search then returns at its next node, storing nothing partial.
        self.stats = np.zeros(6, dtype=np.int64)
        self.owner: tuple | None = None  # the cover and tally layout the counts belong to

    def stop(self) -> None:
        """Ask the search using this memo to stop (safe from any thread, at any time).

        What the table holds stays true: only finished sub-boards are ever stored.
        """
        self.stats[STOP] = 1

    @property
    def stopped(self) -> bool:
        return bool(self.stats[STOP])

    def clear_stop(self) -> None:
        """Let this memo be searched again after a stop."""
        self.stats[STOP] = 0


@njit(cache=True, inline="always")
def _slot(filled, code, keys, values):
    n_words = filled.shape[0]
    h = code * _GOLDEN
    for w in range(n_words):
        x = filled[w] ^ h
        x = (x ^ (x >> np.uint64(30))) * _MIX1
        x = (x ^ (x >> np.uint64(27))) * _MIX2
        h = x ^ (x >> np.uint64(31))
    mask = np.uint64(values.shape[0] - 1)
    s = np.int64(h & mask)
    while values[s] > 0:
        same = keys[s, n_words] == code
        if same:
            for w in range(n_words):
                if keys[s, w] != filled[w]:
                    same = False
                    break
        if same:
            return s
        s = (s + 1) & np.int64(mask)
    return s


@njit(cache=True)
def _dead(o, filled, cell_nb, opt_nb_start, opt_nb, fillable, limit, scratch, stack):
    """True when option ``o`` (already applied) leaves an empty region no pieces can fill.

    Regions next to the option are flood-filled up to ``limit`` cells; ``scratch[0]`` marks
    the current fill, ``scratch[1]`` the regions measured to the end.
    """
    if limit == 0:
        return False
    n_words = filled.shape[0]
    for w in range(n_words):
        scratch[1, w] = filled[w]
    one = np.uint64(1)
    for q in range(opt_nb_start[o], opt_nb_start[o + 1]):
        b = opt_nb[q]
        if (scratch[1, b >> 6] >> np.uint64(b & 63)) & one:
            continue
        for w in range(n_words):
            scratch[0, w] = scratch[1, w]
        scratch[0, b >> 6] |= one << np.uint64(b & 63)
        size = 1
        top = 1
        stack[0] = b
        while top > 0 and size < limit:
            top -= 1
            x = stack[top]
            for d in range(4):
                y = cell_nb[x, d]
                if y >= 0 and not (scratch[0, y >> 6] >> np.uint64(y & 63)) & one:
                    scratch[0, y >> 6] |= one << np.uint64(y & 63)
                    stack[top] = y
                    top += 1
                    size += 1
        if size < limit:
            if not fillable[size]:
                return True
            for w in range(n_words):
                scratch[1, w] = scratch[0, w]
    return False


@njit(cache=True, inline="always")
def _uncovered_tally(filled, tally_bit, n_tally):
    mask = 0
    for t in range(n_tally):
        b = tally_bit[t]
        if not (filled[b >> 6] >> np.uint64(b & 63)) & np.uint64(1):
            mask |= 1 << t
    return mask


@njit(cache=True, inline="always")
def _add_into(acc, src, start, lo, n, o, mask, opt_tally, opt_index, stride, map_start,
              map_flat, n_tally):
    """Add a child's counts (entries ``lo .. lo+n-1`` of its vector, read from ``src`` at
    ``start``) to the parent's vector ``acc``; option ``o`` led from parent to child."""
    t = opt_tally[o]
    if t < 0:
        for x in range(n):
            acc[lo + x] += src[start + x]
    else:
        base = opt_index[o] * stride[mask, t]
        m0 = map_start[mask * max(n_tally, 1) + t] + lo
        for x in range(n):
            acc[base + map_flat[m0 + x]] += src[start + x]


@njit(cache=True, inline="always")
def _nonzero_range(vec, n):
    lo = 0
    while lo < n and vec[lo] == 0:
        lo += 1
    hi = n
    while hi > lo and vec[hi - 1] == 0:
        hi -= 1
    return lo, hi


@njit(cache=True, inline="always")
def _lookup(filled, code, keys, values, stats):
    slot = _slot(filled, code, keys, values)
    if values[slot] > 0:
        stats[1] += 1
        return values[slot] - 1
    stats[2] += 1
    return -1


@njit(cache=True, inline="always")
def _store(filled, code, vec, lo, hi, scalar, keys, values, arena, stats):
    """Keep a state's counts. A plain count goes in the table itself (as count + 1); a count
    vector goes in ``arena`` as its first nonzero index, the run length and the run."""
    top = stats[4]
    n = hi - lo
    if stats[0] * 4 < values.shape[0] * 3 and (scalar or top + n + 2 <= arena.shape[0]):
        n_words = filled.shape[0]
        slot = _slot(filled, code, keys, values)
        for w in range(n_words):
            keys[slot, w] = filled[w]
        keys[slot, n_words] = code
        stats[0] += 1
        if scalar:
            values[slot] = vec[0] + 1
            return
        arena[top] = lo
        arena[top + 1] = n
        for x in range(n):
            arena[top + 2 + x] = vec[lo + x]
        values[slot] = top + 1
        stats[4] = top + n + 2


@njit(cache=True)
def _tally(filled, counters, code, opt_mask, opt_counter, tag_word, tag_bit, anchor_start,
           anchor_opts, group_end, low, high, radix, n_branch, use_memo, keys, values, arena,
           stats, cell_nb, opt_nb_start, opt_nb, fillable, limit, n_tally, tally_bit,
           last_anchor, opt_tally, opt_index, length, stride, map_start, map_flat, out):
    """Count the completions of a state, split by the options that cover the tally items.

    Writes ``length[mask]`` counts to ``out``, where ``mask`` holds the tally items the state
    leaves uncovered. Explicit stack (no recursion); one count vector per depth.
    """
    n_words = filled.shape[0]
    scalar = n_tally == 0  # a plain count: the table holds counts, not arena offsets
    one = np.ones(1, dtype=np.int64)
    root_mask = _uncovered_tally(filled, tally_bit, n_tally)
    n_root = length[root_mask]
    for x in range(n_root):
        out[x] = 0
    pos = 0
    while pos < n_branch and (filled[pos >> 6] >> np.uint64(pos & 63)) & np.uint64(1):
        pos += 1
    if pos == n_branch:
        out[0] = 1
        for c in range(counters.shape[0]):
            if counters[c] < low[c]:
                out[0] = 0
        return
    for t in range(n_tally):
        if (root_mask >> t) & 1 and last_anchor[t] < pos:
            return
    if use_memo:
        at = _lookup(filled, code, keys, values, stats)
        if at >= 0 and scalar:
            out[0] = at
            return
        if at >= 0:
            for x in range(arena[at + 1]):
                out[arena[at] + x] = arena[at + 2 + x]
            return
    depth_max = n_branch + 1
    acc = np.zeros((depth_max, n_root), dtype=np.int64)
    stack_pos = np.zeros(depth_max, dtype=np.int64)
    stack_k = np.zeros(depth_max, dtype=np.int64)
    stack_code = np.zeros(depth_max, dtype=np.uint64)
    stack_mask = np.zeros(depth_max, dtype=np.int64)
    chosen = np.zeros(depth_max, dtype=np.int64)
    scratch = np.zeros((2, n_words), dtype=np.uint64)
    fill_stack = np.zeros(n_branch + 1, dtype=np.int64)
    depth = 0
    stack_pos[0] = pos
    stack_k[0] = anchor_start[pos]
    stack_code[0] = code
    stack_mask[0] = root_mask
    stats[3] += 1
    while True:
        pos = stack_pos[depth]
        k = stack_k[depth]
        if k >= anchor_start[pos + 1]:
            lo, hi = 0, 1
            if not scalar:
                lo, hi = _nonzero_range(acc[depth], length[stack_mask[depth]])
            if use_memo:
                _store(filled, stack_code[depth], acc[depth], lo, hi, scalar, keys, values,
                       arena, stats)
            if depth == 0:
                for x in range(lo, hi):
                    out[x] = acc[0, x]
                return
            depth -= 1
            o = chosen[depth]
            for w in range(n_words):
                filled[w] ^= opt_mask[o, w]
            if opt_counter[o] >= 0:
                counters[opt_counter[o]] -= 1
            if scalar:
                acc[depth, 0] += acc[depth + 1, 0]
            else:
                _add_into(acc[depth], acc[depth + 1], lo, lo, hi - lo, o, stack_mask[depth],
                          opt_tally, opt_index, stride, map_start, map_flat, n_tally)
            continue
        o = anchor_opts[k]
        tw = tag_word[o]
        c = opt_counter[o]
        if (tw >= 0 and filled[tw] & tag_bit[o]) or (c >= 0 and counters[c] >= high[c]):
            stack_k[depth] = group_end[k]
            continue
        stack_k[depth] = k + 1
        fits = True
        for w in range(n_words):
            if opt_mask[o, w] & filled[w]:
                fits = False
                break
        if not fits:
            continue
        for w in range(n_words):
            filled[w] |= opt_mask[o, w]
        child_code = stack_code[depth]
        if c >= 0:
            counters[c] += 1
            child_code += radix[c]
        mask = stack_mask[depth]
        child_mask = mask
        if opt_tally[o] >= 0:
            child_mask = mask & ~(1 << opt_tally[o])
        nxt = pos + 1
        while nxt < n_branch and (filled[nxt >> 6] >> np.uint64(nxt & 63)) & np.uint64(1):
            nxt += 1
        done = True
        if nxt == n_branch:
            ok = True
            for cc in range(counters.shape[0]):
                if counters[cc] < low[cc]:
                    ok = False
            if ok and scalar:
                acc[depth, 0] += 1
            elif ok:
                _add_into(acc[depth], one, 0, 0, 1, o, mask, opt_tally, opt_index, stride,
                          map_start, map_flat, n_tally)
        else:
            starved = False
            for t in range(n_tally):
                if (child_mask >> t) & 1 and last_anchor[t] < nxt:
                    starved = True
            if starved or _dead(o, filled, cell_nb, opt_nb_start, opt_nb, fillable, limit,
                                scratch, fill_stack):
                pass
            elif use_memo:
                at = _lookup(filled, child_code, keys, values, stats)
                if at >= 0 and scalar:
                    acc[depth, 0] += at
                elif at >= 0:
                    _add_into(acc[depth], arena, at + 2, arena[at], arena[at + 1], o, mask,
                              opt_tally, opt_index, stride, map_start, map_flat, n_tally)
                else:
                    done = False
            else:
                done = False
        if done:
            for w in range(n_words):
                filled[w] ^= opt_mask[o, w]
            if c >= 0:
                counters[c] -= 1
            continue
        chosen[depth] = o
        stats[3] += 1
        if stats[STOP] != 0:
            return
        depth += 1
        stack_pos[depth] = nxt
        stack_k[depth] = anchor_start[nxt]
        stack_code[depth] = child_code
        stack_mask[depth] = child_mask
        for x in range(length[child_mask]):
            acc[depth, x] = 0


@njit(cache=True, nogil=True)
def _tally_prefixes(prefixes, opt_mask, opt_counter, tag_word, tag_bit, anchor_start,
                    anchor_opts, group_end, low, high, radix, n_branch, n_words, use_memo,
                    keys, values, arena, stats, cell_nb, opt_nb_start, opt_nb, fillable, limit,
                    n_tally, tally_bit, last_anchor, opt_tally, opt_index, length, stride,
                    map_start, map_flat, out, out_mask):
    """Tally the completions of each row of ``prefixes`` (option ids forced first; -1 pads)."""
    for p in range(prefixes.shape[0]):
        if stats[STOP] != 0:
            return
        filled = np.zeros(n_words, dtype=np.uint64)
        counters = np.zeros(low.shape[0], dtype=np.int64)
        code = np.uint64(0)
        ok = True
        for q in range(prefixes.shape[1]):
            o = prefixes[p, q]
            if o < 0:
                continue
            for w in range(n_words):
                if opt_mask[o, w] & filled[w]:
                    ok = False
                filled[w] |= opt_mask[o, w]
            c = opt_counter[o]
            if c >= 0:
                counters[c] += 1
                code += radix[c]
                if counters[c] > high[c]:
                    ok = False
        out_mask[p] = _uncovered_tally(filled, tally_bit, n_tally)
        if ok:
            _tally(filled, counters, code, opt_mask, opt_counter, tag_word, tag_bit,
                   anchor_start, anchor_opts, group_end, low, high, radix, n_branch, use_memo,
                   keys, values, arena, stats, cell_nb, opt_nb_start, opt_nb, fillable, limit,
                   n_tally, tally_bit, last_anchor, opt_tally, opt_index, length, stride,
                   map_start, map_flat, out[p])
        else:
            out[p, :] = 0


@njit(cache=True, nogil=True)
def _search(state, filled, counters, chosen, stack_pos, stack_k, opt_mask, opt_counter, tag_word,
            tag_bit, anchor_start, anchor_opts, group_end, low, high, n_branch, out, max_out,
            cell_nb, opt_nb_start, opt_nb, fillable, limit):
    """Resumable depth-first search; writes up to ``max_out`` solutions (option ids) to ``out``.

    ``state[0]`` is the depth (-1 before the start, -2 when finished); ``state[1]`` counts
    the solutions written by this call. The arrays keep the search between calls.
    """
    n_words = filled.shape[0]
    scratch = np.zeros((2, n_words), dtype=np.uint64)
    fill_stack = np.zeros(n_branch + 1, dtype=np.int64)
    written = 0
    depth = state[0]
    if depth == -2:
        state[1] = 0
        return
    if depth == -1:
        pos = 0
        while pos < n_branch and (filled[pos >> 6] >> np.uint64(pos & 63)) & np.uint64(1):
            pos += 1
        if pos == n_branch:  # nothing to branch on: the forced options are the solution
            ok = True
            for c in range(counters.shape[0]):
                if counters[c] < low[c]:
                    ok = False
            if ok:
                out[0, 0] = -1
                written = 1
            state[0] = -2
            state[1] = written
            return
        depth = 0
        stack_pos[0] = pos
        stack_k[0] = anchor_start[pos]
    while depth >= 0:
        if written >= max_out:
            break
        pos = stack_pos[depth]
        k = stack_k[depth]
        if k >= anchor_start[pos + 1]:
            depth -= 1
            if depth >= 0:
                o = chosen[depth]
                for w in range(n_words):
                    filled[w] ^= opt_mask[o, w]
                if opt_counter[o] >= 0:
                    counters[opt_counter[o]] -= 1
            continue
        o = anchor_opts[k]
        tw = tag_word[o]
        c = opt_counter[o]
        if (tw >= 0 and filled[tw] & tag_bit[o]) or (c >= 0 and counters[c] >= high[c]):
            stack_k[depth] = group_end[k]
            continue
        stack_k[depth] = k + 1
        fits = True
        for w in range(n_words):
            if opt_mask[o, w] & filled[w]:
                fits = False
                break
        if not fits:
            continue
        for w in range(n_words):
            filled[w] |= opt_mask[o, w]
        if c >= 0:
            counters[c] += 1
        chosen[depth] = o
        nxt = pos + 1
        while nxt < n_branch and (filled[nxt >> 6] >> np.uint64(nxt & 63)) & np.uint64(1):
            nxt += 1
        if nxt == n_branch:
            ok = True
            for cc in range(counters.shape[0]):
                if counters[cc] < low[cc]:
                    ok = False
            if ok:
                for d in range(depth + 1):
                    out[written, d] = chosen[d]
                if depth + 1 < out.shape[1]:
                    out[written, depth + 1] = -1
                written += 1
            for w in range(n_words):
                filled[w] ^= opt_mask[o, w]
            if c >= 0:
                counters[c] -= 1
            continue
        if _dead(o, filled, cell_nb, opt_nb_start, opt_nb, fillable, limit, scratch, fill_stack):
            for w in range(n_words):
                filled[w] ^= opt_mask[o, w]
            if c >= 0:
                counters[c] -= 1
            continue
        depth += 1
        stack_pos[depth] = nxt
        stack_k[depth] = anchor_start[nxt]
    state[0] = depth if depth >= 0 else -2
    state[1] = written


def _args(cc: CompiledCover) -> tuple:
    return (cc.opt_mask, cc.opt_counter, cc.opt_tag_word, cc.opt_tag_bit, cc.anchor_start,
            cc.anchor_opts, cc.group_end, cc.counter_low, cc.counter_high)


def _geometry(cc: CompiledCover) -> tuple:
    return cc.cell_nb, cc.opt_nb_start, cc.opt_nb, cc.fillable, cc.region_limit


def _layout_args(layout: TallyLayout) -> tuple:
    return (len(layout.items), layout.bit, layout.last_anchor, layout.opt_tally,
            layout.opt_index, layout.length, layout.stride, layout.map_start, layout.map_flat)


def tally_prefixes(cc: CompiledCover, layout: TallyLayout,
                   prefixes: Sequence[Sequence[int]], memo: Memo | None = None,
                   ) -> list[dict[tuple[int, ...], int]]:
    """For each set of forced options, the solution counts by tally combination.

    Each result maps a tuple of option ids (the options covering the tally items, in
    ``layout.items`` order) to the number of solutions that contain them and the forced
    options; combinations without solutions are left out.
    """
    if memo is None:
        memo = Memo(cc.n_words)
    owner = (id(cc), tuple(layout.items))
    if memo.owner is None:
        memo.owner = owner
    elif memo.owner != owner:
        raise ValueError("this memo holds counts of another cover or another tally layout")
    width = max([len(p) for p in prefixes] + [1])
    arr = np.full((len(prefixes), width), -1, dtype=np.int64)
    for r, prefix in enumerate(prefixes):
        arr[r, :len(prefix)] = prefix
    n_t = len(layout.items)
    out = np.zeros((len(prefixes), int(layout.length[-1])), dtype=np.int64)
    masks = np.zeros(len(prefixes), dtype=np.int64)
    if memo.stopped:
        raise SearchStopped("this memo's search was stopped")
    interruptible(_tally_prefixes, arr, *_args(cc), cc.radix, cc.n_branch, cc.n_words,
                  cc.memo_ok, memo.keys, memo.values, memo.arena, memo.stats, *_geometry(cc),
                  *_layout_args(layout), out, masks, stop=memo.stop)
    if memo.stopped:  # the counts are partial: none of them may get out
        raise SearchStopped("the search was stopped before it finished")
    results = []
    for r, prefix in enumerate(prefixes):
        mask = int(masks[r])
        fixed = {int(layout.opt_tally[o]): int(o) for o in prefix if layout.opt_tally[o] >= 0}
        counts: dict[tuple[int, ...], int] = {}
        for x in np.flatnonzero(out[r, :int(layout.length[mask])]):
            combo = []
            for t in range(n_t):
                if mask >> t & 1:
                    index = (int(x) // int(layout.stride[mask, t])) % len(layout.options[t])
                    combo.append(layout.options[t][index])
                else:
                    combo.append(fixed.get(t, -1))
            counts[tuple(combo)] = int(out[r, x])
        results.append(counts)
    return results


def count_prefixes(cc: CompiledCover, prefixes: Sequence[Sequence[int]],
                   memo: Memo | None = None) -> list[int]:
    """Count the solutions that contain each given set of options (one count per set)."""
    layout = tally_layout(cc, [])
    return [counts.get((), 0) for counts in tally_prefixes(cc, layout, prefixes, memo)]


def top_branches(cc: CompiledCover) -> list[list[int]]:
    """The options anchored at the first branching item: disjoint parts of the search."""
    if cc.n_branch == 0:
        return [[]]
    return [[int(o)] for o in cc.anchor_opts[cc.anchor_start[0]:cc.anchor_start[1]]]


def count(cover: ExactCover, *, memo_slots: int = DEFAULT_MEMO_SLOTS,
          deadline: float | None = None) -> tuple[int | None, float]:
    """Count every solution; ``(None, seconds)`` when ``deadline`` (a perf_counter) passes."""
    start = time.perf_counter()
    cc = compile_cover(cover)
    memo = Memo(cc.n_words, memo_slots)
    total = 0
    for branch in top_branches(cc):
        if deadline is not None and time.perf_counter() > deadline:
            return None, time.perf_counter() - start
        total += count_prefixes(cc, [branch], memo)[0]
    return total, time.perf_counter() - start


def iter_solutions(cover: ExactCover, *, forced: Sequence[int] = (),
                   batch: int = 1024) -> Iterator[list[int]]:
    """Stream every solution (option ids, forced ones included).

    The search pauses to hand over 1, 2, 4, ... and then ``batch`` solutions at a time, so
    the first ones arrive at once and the rest with little overhead.
    """
    cc = compile_cover(cover)
    filled = np.zeros(cc.n_words, dtype=np.uint64)
    counters = np.zeros(len(cc.counter_low), dtype=np.int64)
    for o in forced:
        if np.any(cc.opt_mask[o] & filled):
            return
        filled |= cc.opt_mask[o]
        if cc.opt_counter[o] >= 0:
            counters[cc.opt_counter[o]] += 1
    if np.any(counters > cc.counter_high):
        return
    depth_max = cc.n_branch + 1
    chosen = np.zeros(depth_max, dtype=np.int64)
    stack_pos = np.zeros(depth_max, dtype=np.int64)
    stack_k = np.zeros(depth_max, dtype=np.int64)
    out = np.zeros((batch, depth_max), dtype=np.int64)
    state = np.array([-1, 0], dtype=np.int64)
    base = [int(o) for o in forced]
    step = 1
    while state[0] != -2:
        interruptible(_search, state, filled, counters, chosen, stack_pos, stack_k, *_args(cc),
                      cc.n_branch, out, step, *_geometry(cc))
        step = min(2 * step, batch)
        for r in range(int(state[1])):
            row = out[r]
            n = int(np.argmax(row < 0)) if np.any(row < 0) else len(row)
            yield base + [int(o) for o in row[:n]]


def solve(cover: ExactCover) -> CoverResult:
    """The first solution, or a proof by exhaustion that there is none."""
    start = time.perf_counter()
    first = next(iter_solutions(cover, batch=1), None)
    seconds = time.perf_counter() - start
    if first is None:
        return CoverResult("unsolvable", NAME, seconds)
    return CoverResult("solved", NAME, seconds, sorted(first))


def warm_up() -> None:
    """Load (or compile) the search kernels now, on a tiny board, not in a first real search.

    numba compiles under its own global lock, so first calls from several threads at once
    are safe too; this only moves the wait to a convenient moment (a server's start).
    """
    from cpmodels.cover import PieceKind, packing_cover

    domino = PieceKind("D", (frozenset({(0, 0), (0, 1)}), frozenset({(0, 0), (1, 0)})), 2)
    cover = packing_cover([(r, c) for r in range(2) for c in range(2)], [domino])
    cc = compile_cover(cover)
    tally_prefixes(cc, tally_layout(cc, [0]), [[]])
    count_prefixes(cc, [[]])
    next(iter_solutions(cover), None)
