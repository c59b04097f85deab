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
  several ways is counted once. The table is kept between calls, which lets a sweep share
  sub-board counts across label combinations.

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

NAME = "engine"
DEFAULT_MEMO_SLOTS = 1 << 22
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


def compile_cover(cover: ExactCover, first: Sequence[int] = ()) -> CompiledCover:
    """Lay out ``cover`` for the engine; items in ``first`` are branched on before all others.

    Options that touch no exact-one item can never be chosen by Algorithm X and are dropped
    (as in Knuth's formulation, every option needs a primary item).
    """
    items = cover.items
    exact = [i for i, it in enumerate(items) if it.low == it.high == 1]
    first_list = [i for i in first if items[i].low == items[i].high == 1]
    order = first_list + [i for i in exact if i not in set(first_list)]
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


class Memo:
    """An exact hash table of sub-board counts, reusable across calls on one compiled cover."""

    def __init__(self, n_words: int, slots: int = DEFAULT_MEMO_SLOTS) -> None:
        size = 1 << max(4, (slots - 1).bit_length())
        self.keys = np.zeros((size, n_words + 1), dtype=np.uint64)
        self.values = np.full(size, -1, dtype=np.int64)
        self.stats = np.zeros(4, dtype=np.int64)  # used slots, hits, misses, nodes

    @property
    def used(self) -> int:
        return int(self.stats[0])


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
    while values[s] >= 0:
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
def _store(filled, code, total, keys, values, stats):
    if stats[0] * 4 < values.shape[0] * 3:
        n_words = filled.shape[0]
        slot = _slot(filled, code, keys, values)
        for w in range(n_words):
            keys[slot, w] = filled[w]
        keys[slot, n_words] = code
        values[slot] = total
        stats[0] += 1


@njit(cache=True)
def _count(filled, counters, code, opt_mask, opt_counter, tag_word, tag_bit, anchor_start,
           anchor_opts, group_end, low, high, radix, n_branch, use_memo, keys, values, stats,
           cell_nb, opt_nb_start, opt_nb, fillable, limit):
    """Count the completions of a state with an explicit stack (no recursion)."""
    n_words = filled.shape[0]
    pos = 0
    while pos < n_branch and (filled[pos >> 6] >> np.uint64(pos & 63)) & np.uint64(1):
        pos += 1
    if pos == n_branch:
        for c in range(counters.shape[0]):
            if counters[c] < low[c]:
                return 0
        return 1
    if use_memo:
        slot = _slot(filled, code, keys, values)
        if values[slot] >= 0:
            stats[1] += 1
            return values[slot]
    depth_max = n_branch + 1
    stack_pos = np.zeros(depth_max, dtype=np.int64)
    stack_k = np.zeros(depth_max, dtype=np.int64)
    stack_total = np.zeros(depth_max, dtype=np.int64)
    stack_code = np.zeros(depth_max, dtype=np.uint64)
    chosen = np.zeros(depth_max, dtype=np.int64)
    scratch = np.zeros((2, n_words), dtype=np.uint64)
    fill_stack = np.zeros(n_branch + 1, dtype=np.int64)
    depth = 0
    stack_pos[0] = pos
    stack_k[0] = anchor_start[pos]
    stack_code[0] = code
    stats[3] += 1
    while True:
        pos = stack_pos[depth]
        k = stack_k[depth]
        if k >= anchor_start[pos + 1]:
            total = stack_total[depth]
            if use_memo:
                _store(filled, stack_code[depth], total, keys, values, stats)
            depth -= 1
            if depth < 0:
                return total
            o = chosen[depth]
            for w in range(n_words):
                filled[w] ^= opt_mask[o, w]
            if opt_counter[o] >= 0:
                counters[opt_counter[o]] -= 1
            stack_total[depth] += total
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
        nxt = pos + 1
        while nxt < n_branch and (filled[nxt >> 6] >> np.uint64(nxt & 63)) & np.uint64(1):
            nxt += 1
        done = False
        if nxt == n_branch:
            ok = 1
            for cc in range(counters.shape[0]):
                if counters[cc] < low[cc]:
                    ok = 0
            stack_total[depth] += ok
            done = True
        elif _dead(o, filled, cell_nb, opt_nb_start, opt_nb, fillable, limit, scratch, fill_stack):
            done = True
        elif use_memo:
            slot = _slot(filled, child_code, keys, values)
            if values[slot] >= 0:
                stats[1] += 1
                stack_total[depth] += values[slot]
                done = True
            else:
                stats[2] += 1
        if done:
            for w in range(n_words):
                filled[w] ^= opt_mask[o, w]
            if c >= 0:
                counters[c] -= 1
            continue
        chosen[depth] = o
        stats[3] += 1
        depth += 1
        stack_pos[depth] = nxt
        stack_k[depth] = anchor_start[nxt]
        stack_total[depth] = 0
        stack_code[depth] = child_code


@njit(cache=True)
def _count_prefixes(prefixes, opt_mask, opt_counter, tag_word, tag_bit, anchor_start,
                    anchor_opts, group_end, low, high, radix, n_branch, n_words, use_memo,
                    keys, values, stats, cell_nb, opt_nb_start, opt_nb, fillable, limit):
    """Count the completions of each row of ``prefixes`` (option ids forced first; -1 pads)."""
    out = np.zeros(prefixes.shape[0], dtype=np.int64)
    for p in range(prefixes.shape[0]):
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
        if ok:
            out[p] = _count(filled, counters, code, opt_mask, opt_counter, tag_word,
                            tag_bit, anchor_start, anchor_opts, group_end, low, high, radix,
                            n_branch, use_memo, keys, values, stats, cell_nb, opt_nb_start,
                            opt_nb, fillable, limit)
    return out


@njit(cache=True)
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


def count_prefixes(cc: CompiledCover, prefixes: Sequence[Sequence[int]],
                   memo: Memo | None = None) -> list[int]:
    """Count the solutions that contain each given set of options (one count per set)."""
    if memo is None:
        memo = Memo(cc.n_words)
    width = max([len(p) for p in prefixes] + [1])
    arr = np.full((len(prefixes), width), -1, dtype=np.int64)
    for r, prefix in enumerate(prefixes):
        arr[r, :len(prefix)] = prefix
    counts = _count_prefixes(arr, *_args(cc), cc.radix, cc.n_branch, cc.n_words,
                             cc.memo_ok, memo.keys, memo.values, memo.stats, *_geometry(cc))
    return [int(x) for x in counts]


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
    """Stream every solution (option ids, forced ones included), ``batch`` at a time."""
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
    while state[0] != -2:
        _search(state, filled, counters, chosen, stack_pos, stack_k, *_args(cc), cc.n_branch,
                out, batch, *_geometry(cc))
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
