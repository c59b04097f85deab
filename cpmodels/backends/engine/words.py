"""The word-sized counting kernel: covers whose bits fit in one or two 64-bit words.

Every calendar board, the pentomino boxes and the small solids have at most 128 items that
are covered exactly once or at most once, so their whole state is two machine words (plus
the counter code, for pieces with several copies). This kernel walks the same tree as the
general one in ``kernels.py`` (first uncovered exact-one item, options anchored there,
exact memoisation, region pruning, tallies) with that state held in two scalars:

* the next item to branch on is the lowest zero bit of the state (every bit below the
  current item is covered), found by a de Bruijn multiply instead of a bit-by-bit scan;
* an option fits when ``(a & opt_a[o]) | (b & opt_b[o])`` is zero, one test per option;
* a region next to a placed option grows by whole neighbour masks (each cell's neighbours
  as two words, ``nb_a``/``nb_b``), counted with a population count;
* the table's rows are the two words, the counter code and the value side by side (one
  cache line a probe; the table is made with one more column for it, see
  :func:`table_words`).

Like ``kernels.py``, this file is self-contained for numba's cache.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from cpmodels import _native
from cpmodels.backends.engine.kernels import _rows
from cpmodels.backends.engine.memo import ARENA_USED, FLUSHES, HITS, MISSES, NODES, STOP, USED

#: What the word kernel reads of a compiled cover (see :func:`word_layout`).
WordLayout = namedtuple("WordLayout", [
    "opt_a", "opt_b", "opt_counter", "tag_a", "tag_b", "anchor_start", "anchor_opts",
    "group_end", "counter_low", "counter_high", "radix", "n_branch", "memo_ok", "nb_a", "nb_b",
    "opt_nb_start", "opt_nb", "fillable", "region_limit", "n_words", "k_a", "k_b", "k_tag_a",
    "k_tag_b", "k_counter", "branch_a", "branch_b", "memo_below"])

MAX_WORD_BITS = 128  # the bits the word kernel holds
MEMO_BELOW = 1000  # states with fewer uncovered exact-one items than this are kept

_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.array([
    0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4,
    62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
    63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
    46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6], dtype=np.int64)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)


def word_layout(cc: object) -> WordLayout | None:
    """The word kernel's view of a compiled cover, or None when its bits do not fit."""
    n_words = cc.n_words  # type: ignore[attr-defined]
    if n_words > 2:
        return None
    mask = cc.opt_mask  # type: ignore[attr-defined]
    opt_a = np.ascontiguousarray(mask[:, 0])
    opt_b = (np.ascontiguousarray(mask[:, 1]) if n_words == 2
             else np.zeros(len(opt_a), dtype=np.uint64))
    tag_word, tag_bit = cc.opt_tag_word, cc.opt_tag_bit  # type: ignore[attr-defined]
    tag_a = np.where(tag_word == 0, tag_bit, np.uint64(0)).astype(np.uint64)
    tag_b = np.where(tag_word == 1, tag_bit, np.uint64(0)).astype(np.uint64)
    cell_nb = cc.cell_nb  # type: ignore[attr-defined]
    n_branch = cc.n_branch  # type: ignore[attr-defined]
    nb_a = np.zeros(max(n_branch, 1), dtype=np.uint64)
    nb_b = np.zeros(max(n_branch, 1), dtype=np.uint64)
    for x in range(min(n_branch, cell_nb.shape[0])):
        for y in cell_nb[x]:
            if y < 0:
                continue
            if y < 64:
                nb_a[x] |= np.uint64(1) << np.uint64(y)
            else:
                nb_b[x] |= np.uint64(1) << np.uint64(y - 64)
    flat = cc.anchor_opts  # type: ignore[attr-defined]
    branch = [min(n_branch, 64), max(0, n_branch - 64)]
    full = [np.uint64((1 << n) - 1) if n < 64 else ~np.uint64(0) for n in branch]
    return WordLayout(
        opt_a, opt_b, cc.opt_counter, tag_a, tag_b,  # type: ignore[attr-defined]
        cc.anchor_start, flat, cc.group_end,  # type: ignore[attr-defined]
        cc.counter_low, cc.counter_high, cc.radix, n_branch,  # type: ignore[attr-defined]
        cc.memo_ok, nb_a, nb_b, cc.opt_nb_start, cc.opt_nb,  # type: ignore[attr-defined]
        cc.fillable, cc.region_limit, n_words,  # type: ignore[attr-defined]
        opt_a[flat].copy(), opt_b[flat].copy(), tag_a[flat].copy(), tag_b[flat].copy(),
        cc.opt_counter[flat].copy(), full[0], full[1], MEMO_BELOW)  # type: ignore[attr-defined]


def table_words(n_words: int) -> int:
    """The width a table for the word kernel is made with (``Memo(n_words=...)``): one more
    column than the state's words, so each key row also holds its value."""
    return n_words + 1


# --- bits ---------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _lowest(x):
    """The index of the lowest set bit of ``x`` (nonzero)."""
    return _DEBRUIJN_INDEX[((x & (~x + _ONE)) * _DEBRUIJN) >> np.uint64(58)]


@njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def _next_open(a, b, n_branch):
    """The lowest uncovered bit (every bit below the item last branched on is covered),
    or ``n_branch`` when every exact-one item is covered."""
    if a != ~_ZERO:
        x = _lowest(~a)
    elif b != ~_ZERO:
        x = 64 + _lowest(~b)
    else:
        return n_branch
    return x if x < n_branch else n_branch


@njit(cache=True, inline="always")
def _bit_set(a, b, x):
    if x < 64:
        return (a >> np.uint64(x)) & _ONE
    return (b >> np.uint64(x - 64)) & _ONE


# --- the table ----------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _slot(a, b, n_words, code, keys):
    """The slot of a state: the general kernel's hash of the same words. A slot is one row
    of ``keys``: the words, the counter code, then the value (0: empty), so a probe reads
    one cache line."""
    h = code * _GOLDEN
    x = a ^ h
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    h = x ^ (x >> np.uint64(31))
    if n_words == 2:
        x = b ^ h
        x = (x ^ (x >> np.uint64(30))) * _MIX1
        x = (x ^ (x >> np.uint64(27))) * _MIX2
        h = x ^ (x >> np.uint64(31))
    mask = np.uint64(keys.shape[0] - 1)
    s = np.int64(h & mask)
    v = n_words + 1
    while keys[s, v] != _ZERO:
        if keys[s, n_words] == code and keys[s, 0] == a and (n_words == 1 or keys[s, 1] == b):
            return s
        s = (s + 1) & np.int64(mask)
    return s


@njit(cache=True, inline="always")
def _lookup(a, b, n_words, code, keys, stats):
    s = _slot(a, b, n_words, code, keys)
    v = keys[s, n_words + 1]
    if v != _ZERO:
        stats[HITS] += 1
        return np.int64(v) - 1
    stats[MISSES] += 1
    return -1


@njit(cache=True, inline="always")
def _store(a, b, n_words, code, vec, lo, hi, scalar, keys, arena, stats):
    """As the general kernel's ``store``: a count in the slot itself, a vector in the
    arena; a table three quarters full, or an arena without room, is emptied first."""
    n = hi - lo
    if not scalar and n + 2 > arena.shape[0]:
        return
    if (stats[USED] * 4 >= keys.shape[0] * 3
            or not (scalar or stats[ARENA_USED] + n + 2 <= arena.shape[0])):
        keys[:, n_words + 1] = _ZERO
        stats[USED] = 0
        stats[ARENA_USED] = 0
        stats[FLUSHES] += 1
    top = stats[ARENA_USED]
    s = _slot(a, b, n_words, code, keys)
    keys[s, 0] = a
    if n_words == 2:
        keys[s, 1] = b
    keys[s, n_words] = code
    stats[USED] += 1
    if scalar:
        keys[s, n_words + 1] = np.uint64(vec[0] + 1)
        return
    arena[top] = lo
    arena[top + 1] = n
    for x in range(n):
        arena[top + 2 + x] = vec[lo + x]
    keys[s, n_words + 1] = np.uint64(top + 1)
    stats[ARENA_USED] = top + n + 2


# --- region pruning -----------------------------------------------------------------------


@njit(cache=True, inline="always")
def _dead_end(o, a, b, W):
    """True when option ``o`` (placed: ``a``, ``b`` include it) leaves an empty region of
    fewer than ``region_limit`` cells that no pieces can fill.

    Each empty neighbour of the option starts a fill unless a fill already took it in;
    a fill stops at ``region_limit`` cells, or when it meets a region already known to be
    that large (the same region).
    """
    limit = W.region_limit
    if limit == 0:
        return False
    seen_a, seen_b = _ZERO, _ZERO  # cells of regions already filled from
    big_a, big_b = _ZERO, _ZERO  # cells of regions of at least ``limit`` cells
    for q in range(W.opt_nb_start[o], W.opt_nb_start[o + 1]):
        x = W.opt_nb[q]
        if _bit_set(a | seen_a, b | seen_b, x):
            continue
        if x < 64:
            ra, rb = _ONE << np.uint64(x), _ZERO
        else:
            ra, rb = _ZERO, _ONE << np.uint64(x - 64)
        fa, fb = ra, rb  # the frontier: cells of the region not yet grown from
        size = 1
        while size < limit and (fa | fb) != _ZERO:
            if fa != _ZERO:
                y = _lowest(fa)
                fa &= fa - _ONE
            else:
                y = 64 + _lowest(fb)
                fb &= fb - _ONE
            na = W.nb_a[y] & ~a & ~ra
            nb = W.nb_b[y] & ~b & ~rb
            if (na & big_a) | (nb & big_b) != _ZERO:
                size = limit  # it joins a region known to be large
                break
            ra |= na
            rb |= nb
            fa |= na
            fb |= nb
            size += _popcount(na) + _popcount(nb)
        if size < limit and not W.fillable[size]:
            return True
        seen_a |= ra
        seen_b |= rb
        if size >= limit:
            big_a |= ra
            big_b |= rb
    return False


@njit(cache=True, inline="always")
def _next_fit(k, end, a, b, counters, W):
    """The next option to try from the anchor's run ``k:end``: ``(option, k after it)``, or
    ``(-1, end)``. A used piece's options are skipped as a run (their tag bit is covered,
    or their counter is full); the others need one test against the state."""
    while k < end:
        c = W.k_counter[k]
        if (a & W.k_tag_a[k]) | (b & W.k_tag_b[k]) != _ZERO or (
                c >= 0 and counters[c] >= W.counter_high[c]):
            k = W.group_end[k]
            continue
        if (a & W.k_a[k]) | (b & W.k_b[k]) == _ZERO:
            return W.anchor_opts[k], k + 1
        k += 1
    return -1, end


# --- tallies (the same layout as the general kernel's) ------------------------------------


@njit(cache=True, inline="always")
def _uncovered_tally(a, b, tally_bit, n_tally):
    mask = 0
    for t in range(n_tally):
        if not _bit_set(a, b, tally_bit[t]):
            mask |= 1 << t
    return mask


@njit(cache=True, inline="always")
def _add_into(acc, src, start, lo, n, o, mask, tal):
    t = tal.opt_tally[o]
    if t < 0:
        for x in range(n):
            acc[lo + x] += src[start + x]
    else:
        base = tal.opt_index[o] * tal.stride[mask, t]
        m0 = tal.map_start[mask * max(tal.n_tally, 1) + t] + lo
        for x in range(n):
            acc[base + tal.map_flat[m0 + x]] += src[start + x]


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
def _counters_full(counters, low):
    for c in range(counters.shape[0]):  # noqa: SIM110 (a plain loop compiles best)
        if counters[c] < low[c]:
            return False
    return True


# --- counting -----------------------------------------------------------------------------


@njit(cache=True)
def _tally(a, b, counters, code, W, tal, table, out):
    """Count the completions of the state ``a``, ``b`` (and ``counters``), split by the
    options that cover the tally items: the general kernel's ``_tally`` on two words."""
    opt_a, opt_b, opt_counter = W.opt_a, W.opt_b, W.opt_counter
    anchor_start = W.anchor_start
    low, radix, n_branch, n_words = W.counter_low, W.radix, W.n_branch, W.n_words
    use_memo = W.memo_ok
    branch_a, branch_b, memo_below = W.branch_a, W.branch_b, W.memo_below
    n_tally, tally_bit, last_anchor, length = tal.n_tally, tal.bit, tal.last_anchor, tal.length
    keys, _, arena, stats = table  # the word kernel keeps values in the key rows
    scalar = n_tally == 0
    has_counters = counters.shape[0] > 0
    one = np.ones(1, dtype=np.int64)
    root_mask = _uncovered_tally(a, b, tally_bit, n_tally)
    n_root = length[root_mask]
    for x in range(n_root):
        out[x] = 0
    pos = _next_open(a, b, n_branch)
    if pos == n_branch:
        out[0] = 1 if _counters_full(counters, low) else 0
        return
    for t in range(n_tally):
        if (root_mask >> t) & 1 and last_anchor[t] < pos:
            return
    if use_memo:
        at = _lookup(a, b, n_words, code, keys, stats)
        if at >= 0 and scalar:
            out[0] = at
            return
        if at >= 0:
            for x in range(arena[at + 1]):
                out[arena[at] + x] = arena[at + 2 + x]
            return
    depth_max = n_branch + 1
    acc = np.zeros((depth_max, n_root), dtype=np.int64)
    st_pos = np.zeros(depth_max, dtype=np.int64)
    st_k = np.zeros(depth_max, dtype=np.int64)
    st_code = np.zeros(depth_max, dtype=np.uint64)
    st_mask = np.zeros(depth_max, dtype=np.int64)
    chosen = np.zeros(depth_max, dtype=np.int64)
    depth = 0
    st_pos[0] = pos
    st_k[0] = anchor_start[pos]
    st_code[0] = code
    st_mask[0] = root_mask
    stats[NODES] += 1
    while True:
        pos = st_pos[depth]
        o, st_k[depth] = _next_fit(st_k[depth], anchor_start[pos + 1], a, b, counters, W)
        if o < 0:  # every option tried: this sub-board is counted
            lo, hi = 0, 1
            if not scalar:
                lo, hi = _nonzero_range(acc[depth], length[st_mask[depth]])
            if use_memo and (n_branch - _popcount(a & branch_a) - _popcount(b & branch_b)
                             < memo_below):
                _store(a, b, n_words, st_code[depth], acc[depth], lo, hi, scalar, keys, arena,
                       stats)
            if depth == 0:
                for x in range(lo, hi):
                    out[x] = acc[0, x]
                return
            depth -= 1
            o = chosen[depth]
            a ^= opt_a[o]
            b ^= opt_b[o]
            if has_counters and opt_counter[o] >= 0:
                counters[opt_counter[o]] -= 1
            if scalar:
                acc[depth, 0] += acc[depth + 1, 0]
            else:
                _add_into(acc[depth], acc[depth + 1], lo, lo, hi - lo, o, st_mask[depth], tal)
            continue
        a |= opt_a[o]
        b |= opt_b[o]
        child_code = st_code[depth]
        c = opt_counter[o]
        if c >= 0:
            counters[c] += 1
            child_code += radix[c]
        mask = st_mask[depth]
        child_mask = mask
        if not scalar and tal.opt_tally[o] >= 0:
            child_mask = mask & ~(1 << tal.opt_tally[o])
        nxt = _next_open(a, b, n_branch)
        done = True
        if nxt == n_branch:
            ok = _counters_full(counters, low)
            if ok and scalar:
                acc[depth, 0] += 1
            elif ok:
                _add_into(acc[depth], one, 0, 0, 1, o, mask, tal)
        else:
            starved = False
            for t in range(n_tally):
                if (child_mask >> t) & 1 and last_anchor[t] < nxt:
                    starved = True
            if starved or _dead_end(o, a, b, W):
                pass
            elif use_memo and (n_branch - _popcount(a & branch_a) - _popcount(b & branch_b)
                               < memo_below):
                at = _lookup(a, b, n_words, child_code, keys, stats)
                if at >= 0 and scalar:
                    acc[depth, 0] += at
                elif at >= 0:
                    _add_into(acc[depth], arena, at + 2, arena[at], arena[at + 1], o, mask,
                              tal)
                else:
                    done = False
            else:
                done = False
        if done:
            a ^= opt_a[o]
            b ^= opt_b[o]
            if c >= 0:
                counters[c] -= 1
            continue
        chosen[depth] = o
        stats[NODES] += 1
        if stats[STOP] != 0:
            return
        depth += 1
        st_pos[depth] = nxt
        st_k[depth] = anchor_start[nxt]
        st_code[depth] = child_code
        st_mask[depth] = child_mask
        for x in range(length[child_mask]):
            acc[depth, x] = 0


@njit(cache=True, inline="always")
def _force(prefix, counters, W):
    """Place the options of ``prefix`` (-1 pads) on an empty state: ``(whether they fit
    together, the two words, the counter code)``."""
    a, b, code = _ZERO, _ZERO, _ZERO
    ok = True
    for q in range(prefix.shape[0]):
        o = prefix[q]
        if o < 0:
            continue
        ok = ok and ((a & W.opt_a[o]) | (b & W.opt_b[o])) == _ZERO
        a |= W.opt_a[o]
        b |= W.opt_b[o]
        c = W.opt_counter[o]
        if c >= 0:
            counters[c] += 1
            code += W.radix[c]
            ok = ok and counters[c] <= W.counter_high[c]
    return ok, a, b, code


@njit(cache=True, nogil=True)
def _tally_prefixes_numba(prefixes, W, tal, table, out, out_mask):
    """The word kernel's ``tally_prefixes_kernel``: row ``p`` of ``prefixes`` (option ids
    forced first; -1 pads) tallied into ``out[p]``, its uncovered tally items in
    ``out_mask[p]``."""
    stats = table.stats
    for p in range(prefixes.shape[0]):
        if stats[STOP] != 0:
            return
        counters = np.zeros(W.counter_low.shape[0], dtype=np.int64)
        ok, a, b, code = _force(prefixes[p], counters, W)
        out_mask[p] = _uncovered_tally(a, b, tal.bit, tal.n_tally)
        if ok:
            _tally(a, b, counters, code, W, tal, table, out[p])
        else:
            out[p, :] = 0


# --- existence ----------------------------------------------------------------------------


@njit(cache=True)
def _first_solution(a, b, counters, code, W, table, use_table, stop, chosen, st_pos, st_k,
                    st_code):
    """Whether the state has a completion (the general kernel's ``_first_solution`` on two
    words): a depth-first search that ends at its first solution, every state it exhausts
    kept in ``table`` as dead when ``use_table``. Returns False at once when ``stop[0]`` is
    set (the caller checks it)."""
    opt_a, opt_b, opt_counter = W.opt_a, W.opt_b, W.opt_counter
    anchor_start = W.anchor_start
    low, radix, n_branch, n_words = W.counter_low, W.radix, W.n_branch, W.n_words
    keys, _, arena, stats = table
    use_table = use_table and W.memo_ok
    none = np.zeros(1, dtype=np.int64)
    pos = _next_open(a, b, n_branch)
    if pos == n_branch:
        return _counters_full(counters, low)
    if use_table and _lookup(a, b, n_words, code, keys, stats) >= 0:
        return False
    depth = 0
    st_pos[0] = pos
    st_k[0] = anchor_start[pos]
    st_code[0] = code
    while True:
        if stop[0] != 0:
            return False
        pos = st_pos[depth]
        o, st_k[depth] = _next_fit(st_k[depth], anchor_start[pos + 1], a, b, counters, W)
        if o < 0:  # every option tried: this state has no completion
            if use_table:
                _store(a, b, n_words, st_code[depth], none, 0, 1, True, keys, arena, stats)
            depth -= 1
            if depth < 0:
                return False
            o = chosen[depth]
            a ^= opt_a[o]
            b ^= opt_b[o]
            if opt_counter[o] >= 0:
                counters[opt_counter[o]] -= 1
            continue
        a |= opt_a[o]
        b |= opt_b[o]
        chosen[depth] = o
        child_code = st_code[depth]
        c = opt_counter[o]
        if c >= 0:
            counters[c] += 1
            child_code += radix[c]
        nxt = _next_open(a, b, n_branch)
        if nxt == n_branch:
            if _counters_full(counters, low):
                return True
        elif not (_dead_end(o, a, b, W) or (
                use_table and _lookup(a, b, n_words, child_code, keys, stats) >= 0)):
            depth += 1
            st_pos[depth] = nxt
            st_k[depth] = anchor_start[nxt]
            st_code[depth] = child_code
            continue
        a ^= opt_a[o]
        b ^= opt_b[o]
        if c >= 0:
            counters[c] -= 1


@njit(cache=True, nogil=True)
def _exists_numba(prefixes, W, table, use_table, out, first_failure, stop):
    """The word kernel's ``exists_kernel``: ``out[p]`` is 1 when some solution contains the
    options of row ``p`` (-1 pads), else 0; with ``first_failure``, the rows after the
    first 0 are not searched, nor those after a stop."""
    depth_max = W.n_branch + 1
    chosen = np.zeros(depth_max, dtype=np.int64)
    st_pos = np.zeros(depth_max, dtype=np.int64)
    st_k = np.zeros(depth_max, dtype=np.int64)
    st_code = np.zeros(depth_max, dtype=np.uint64)
    for p in range(prefixes.shape[0]):
        if stop[0] != 0:
            return
        counters = np.zeros(W.counter_low.shape[0], dtype=np.int64)
        ok, a, b, code = _force(prefixes[p], counters, W)
        found = ok and _first_solution(a, b, counters, code, W, table, use_table, stop,
                                       chosen, st_pos, st_k, st_code)
        if stop[0] != 0:
            return
        out[p] = 1 if found else 0
        if first_failure and out[p] == 0:
            return


# --- the compiled core's searches (cpcore/packing_search.hpp, the two-word state) -------


def tally_prefixes_words(prefixes: np.ndarray, W: WordLayout, tal: tuple, table: tuple,
                         out: np.ndarray, out_mask: np.ndarray) -> None:
    """:func:`~.kernels.tally_prefixes_kernel` on the two-word state: row ``p`` of
    ``prefixes`` (option ids forced first; -1 pads) tallied into ``out[p]``, its uncovered
    tally items in ``out_mask[p]`` (``table`` made :func:`table_words` wide)."""
    _native.tally_prefixes_two_words(_rows(prefixes), W, tal, table, out, out_mask)


def exists_words(prefixes: np.ndarray, W: WordLayout, table: tuple, use_table: bool,
                 out: np.ndarray, first_failure: bool, stop: np.ndarray) -> None:
    """:func:`~.kernels.exists_kernel` on the two-word state: ``out[p]`` is 1 when some
    solution contains the options of row ``p`` (-1 pads), else 0; with ``first_failure``,
    the rows after the first 0 are not searched, nor those after a stop."""
    _native.exists_two_words(_rows(prefixes), W, table, bool(use_table), out,
                             bool(first_failure), stop)
