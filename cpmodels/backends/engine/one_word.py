"""The one-word kernel: counts on boards of at most 64 cells, every piece used once.

A square-grid board whose bounding box has at most 64 cells is one 64-bit word: bit
``slow * inner + fast`` for a cell, its axes in scan order (``cover.scan_order``: the longer
side varies slowest), so the lowest open bit is the first empty cell of the general
kernels, and their trees are the same. Bits that are no board cell start covered. The
pieces used are a second word, one bit a piece. Then:

* the options of each anchor (the lowest bit of an option) and piece are cell masks in a
  run, ``masks[start[x * n_pieces + p]:start[x * n_pieces + p + 1]]``, and ``avail[x]``
  says which pieces have options anchored at ``x``: a node walks the unused pieces of
  ``avail[x] & ~used`` by trailing zeros and tests each of their options with one load and
  one AND; the indices are unsigned, so numba adds no negative-index fix-up;
* the frame of a node is held in scalars; only a step down writes it to the stack, and the
  node count is written to the table's statistics once, at the end;
* regions grow by bit-parallel dilation: a cell's neighbours are the word shifted by one
  (masked at the ends of a line) and by a line's length. An empty cell with no empty
  neighbour is found for the whole board in a dozen operations; the regions next to the
  option just placed are then grown until they reach ``region_limit`` cells;
* the table of sub-board counts is keyed by the two words, the value beside them.

Tallies (:func:`tally_one_word`): the slack items are bits of the piece word too, and the
counts are split by the options that cover the tally items (``tally.py``'s layout, read as
:class:`~.tally.OneTallies`). The layout it reads, :class:`~.layout.OneWord`, is made by
:func:`~.layout.one_word_layout` (both importable from here as well).

Self-contained for numba's cache, like ``kernels.py`` and ``words.py`` (the layout is plain
Python, read as arguments).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from cpmodels import _native
from cpmodels.backends.engine.layout import OneWord as OneWord  # the layout it reads
from cpmodels.backends.engine.layout import one_word_layout as one_word_layout
from cpmodels.backends.engine.memo import (
    ARENA_USED,
    FLUSHES,
    HITS,
    MISSES,
    NODES,
    STOP,
    USED,
    Table,
)
from cpmodels.backends.engine.tally import OneTallies

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


# --- bits ---------------------------------------------------------------------------------


@intrinsic
def _ctpop(typingctx, x):
    """The number of set bits of a uint64 (LLVM's ctpop)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


@intrinsic
def _prefetch_row(typingctx, rows, r):
    """Ask the processor to bring row ``r`` of the 2-d array ``rows`` into its caches
    (LLVM's prefetch: no effect on the result; the row is not bounds-checked)."""
    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        at = cgutils.get_item_pointer(context, builder, array_type, array, [args[1], zero],
                                      wraparound=False, boundscheck=False)
        byte_ptr = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32]),
            "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(at, byte_ptr), ir.Constant(i32, 0),
                          ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return types.none(rows, types.uint64), codegen


@njit(cache=True, inline="always")
def _around(r, L):
    """The cells next to the cells of ``r`` (in the word's grid; ``r`` itself left out)."""
    return (((r >> _ONE) & ~L.last) | ((r << _ONE) & ~L.first)
            | (r >> L.inner) | (r << L.inner))


@njit(cache=True, inline="always")
def _dead_end(om, cells, L):
    """True when the cells left open (``~cells``) have a single cell no piece can fill, or
    the option just placed (``om``) borders a region of fewer than ``region_limit`` cells
    whose size no pieces add up to."""
    empty = ~cells
    if L.isolated_dead and empty & ~_around(empty, L) != _ZERO:
        return True
    limit = np.uint64(L.region_limit)
    seeds = _around(om, L) & empty
    while seeds != _ZERO:
        region = seeds & (~seeds + _ONE)
        size = _ONE
        while size < limit:
            grown = (region | _around(region, L)) & empty
            if grown == region:
                break
            region = grown
            size = _ctpop(region)
        if size < limit and not L.fillable[size]:
            return True
        seeds &= ~region
    return False


# --- the table ----------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _home(cells, used, keys):
    """The first slot a state's probe looks at."""
    x = used * _MIX1
    x = cells ^ (x ^ (x >> np.uint64(31)))
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    x ^= x >> np.uint64(31)
    return x & np.uint64(keys.shape[0] - 1)


@njit(cache=True, inline="always")
def _slot(cells, used, keys):
    """The slot of a state: rows hold the two words and the value (0: empty)."""
    return _slot_from(_home(cells, used, keys), cells, used, keys)


@njit(cache=True, inline="always")
def _slot_from(s, cells, used, keys):
    """:func:`_slot` from the state's first slot ``s`` (:func:`_home`)."""
    mask = np.uint64(keys.shape[0] - 1)
    while keys[s, 2] != _ZERO:
        if keys[s, 0] == cells and keys[s, 1] == used:
            return s
        s = (s + _ONE) & mask
    return s


@njit(cache=True, inline="always")
def _store(cells, used, count, keys, stats):
    """Keep a finished sub-board's count; a table three quarters full is emptied first."""
    if stats[USED] * 4 >= keys.shape[0] * 3:
        keys[:, 2] = _ZERO
        stats[USED] = 0
        stats[FLUSHES] += 1
    s = _slot(cells, used, keys)
    keys[s, 0] = cells
    keys[s, 1] = used
    keys[s, 2] = np.uint64(count + 1)
    stats[USED] += 1


# --- counting -----------------------------------------------------------------------------


@njit(cache=True)
def _count(cells, used, L, keys, stats, use_memo):
    """The completions of the state (covered ``cells``, ``used`` pieces), or -1 when the
    stop flag was seen."""
    all_pieces, n_pieces = L.all_pieces, L.n_pieces
    start, masks, avail = L.start, L.masks, L.avail
    zero, one, full = _ZERO, _ONE, ~_ZERO
    if cells == full:
        return 1 if used | L.optional == all_pieces else 0
    if use_memo:
        s = _slot(cells, used, keys)
        if keys[s, 2] != zero:
            return np.int64(keys[s, 2]) - 1
    depth_max = np.int64(n_pieces) + 1
    st_cells = np.empty(depth_max, dtype=np.uint64)
    st_used = np.empty(depth_max, dtype=np.uint64)
    st_m = np.empty(depth_max, dtype=np.uint64)
    st_k = np.empty(depth_max, dtype=np.uint64)
    st_end = np.empty(depth_max, dtype=np.uint64)
    st_x = np.empty(depth_max, dtype=np.uint64)
    st_bit = np.empty(depth_max, dtype=np.uint64)
    st_acc = np.empty(depth_max, dtype=np.int64)
    depth = 0
    nodes = 1
    x = np.uint64(trailing_zeros(~cells))
    m = avail[x] & ~used
    k = end = bit = zero
    acc = np.int64(0)
    while True:
        om = zero
        found = False
        while True:
            while k < end:
                om = masks[k]
                k += one
                if om & cells == zero:
                    found = True
                    break
            if found or m == zero:
                break
            p = np.uint64(trailing_zeros(m))
            m &= m - one
            k = start[x * n_pieces + p]
            end = start[x * n_pieces + p + one]
            bit = one << p
        if not found:  # every option tried: this sub-board is counted
            if use_memo:
                _store(cells, used, acc, keys, stats)
            if depth == 0:
                stats[NODES] += nodes
                return acc
            depth -= 1
            child = acc
            cells, used, m = st_cells[depth], st_used[depth], st_m[depth]
            k, end, x, bit = st_k[depth], st_end[depth], st_x[depth], st_bit[depth]
            acc = st_acc[depth] + child
            continue
        child_cells = cells | om
        child_used = used | bit
        if child_cells == full:
            if child_used | L.optional == all_pieces:
                acc += 1
            continue
        if L.region_limit > 0 and _dead_end(om, child_cells, L):
            continue
        if use_memo:
            s = _slot(child_cells, child_used, keys)
            if keys[s, 2] != zero:
                acc += np.int64(keys[s, 2]) - 1
                continue
        st_cells[depth], st_used[depth], st_m[depth] = cells, used, m
        st_k[depth], st_end[depth], st_x[depth], st_bit[depth] = k, end, x, bit
        st_acc[depth] = acc
        depth += 1
        nodes += 1
        if nodes & 4095 == 0 and stats[STOP] != 0:
            stats[NODES] += nodes
            return -1
        cells, used = child_cells, child_used
        x = np.uint64(trailing_zeros(~cells))
        m = avail[x] & ~used
        k = end = zero
        acc = np.int64(0)


@njit(cache=True, nogil=True)
def _count_one_word_numba(prefixes, L, table, use_memo, out):
    """``out[p]``: the completions of row ``p`` of ``prefixes`` (option ids forced first;
    -1 pads), 0 when they overlap; rows a stop left uncounted are -1."""
    keys, _, _, stats = table
    out[:] = -1
    for p in range(prefixes.shape[0]):
        if stats[STOP] != 0:
            return
        cells, used = L.covered, _ZERO
        ok = True
        for q in range(prefixes.shape[1]):
            o = prefixes[p, q]
            if o < 0:
                continue
            ok = ok and (cells & L.opt_cells[o]) | (used & L.opt_piece[o]) == _ZERO
            cells |= L.opt_cells[o]
            used |= L.opt_piece[o]
        n = _count(cells, used, L, keys, stats, use_memo) if ok else 0
        if n >= 0:
            out[p] = n


# --- tallies ------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _slack_dead_end(om, cells, used, L):
    """:func:`_dead_end` for a cover with slack items, each of which leaves one of its
    cells open: ``L.fillable`` and ``L.region_limit`` are the region sizes of the pieces
    alone, and a region may also hold one cell of each slack item still open whose cells
    it meets. A slack item none of whose cells is open is a dead end too."""
    empty = ~cells
    open_slack = _ZERO
    groups = L.slack & ~used
    while groups != _ZERO:
        g = np.uint64(trailing_zeros(groups))
        groups &= groups - _ONE
        mine = L.slack_cells[g] & empty
        if mine == _ZERO:
            return True
        open_slack |= mine
    if L.isolated_dead and (empty & ~_around(empty, L)) & ~open_slack != _ZERO:
        return True
    limit = np.uint64(L.region_limit)
    seeds = _around(om, L) & empty
    while seeds != _ZERO:
        region = seeds & (~seeds + _ONE)
        size = _ONE
        while size < limit:
            grown = (region | _around(region, L)) & empty
            if grown == region:
                break
            region = grown
            size = _ctpop(region)
        if size < limit and not L.fillable[size]:
            if region & open_slack == _ZERO:
                return True
            holes = _ZERO  # the slack items that may leave a cell of the region open
            groups = L.slack & ~used
            while groups != _ZERO:
                g = np.uint64(trailing_zeros(groups))
                groups &= groups - _ONE
                if L.slack_cells[g] & region != _ZERO:
                    holes += _ONE
            fits = False
            h = _ONE
            while h <= holes and h <= size:
                if L.fillable[size - h]:
                    fits = True
                    break
                h += _ONE
            if not fits:
                return True
        seeds &= ~region
    return False


@njit(cache=True, inline="always")
def _open_tallies(used, T):
    """The tally items ``used`` leaves uncovered, as a mask of tally indices."""
    mask = np.uint64(0)
    for t in range(T.n_tally):
        if used & T.bit[t] == _ZERO:
            mask |= _ONE << np.uint64(t)
    return mask


@njit(cache=True, inline="always")
def _add_vector(acc, src, at, lo, n, o, mask, T):
    """Add ``src[at:at + n]`` (a child's vector from its index ``lo``) into ``acc``, the
    vector of the state with uncovered tally items ``mask`` that placed option ``o``;
    returns the range of ``acc`` it added to (child indices map to parent indices in the
    same order)."""
    t = T.opt_tally[o]
    if t < 0:
        for x in range(n):
            acc[lo + x] += src[at + x]
        return lo, lo + n
    base = T.opt_index[o] * T.stride[mask, t]
    m0 = T.map_start[np.int64(mask) * max(T.n_tally, 1) + t] + lo
    for x in range(n):
        acc[base + T.map_flat[m0 + x]] += src[at + x]
    return base + T.map_flat[m0], base + T.map_flat[m0 + n - 1] + 1


_SINGLE = 1 << 16  # a vector of one nonzero count below this index is kept in the row
_SINGLE_MOST = 1 << 45  # and that count below this


@njit(cache=True, inline="always")
def _store_vector(cells, used, vec, lo, hi, keys, arena, stats):
    """Keep a finished sub-board's vector: at most one nonzero count ``c`` at index ``y``
    in the row itself (``2 * (c * 2**16 + y) + 2``), else its nonzero run in the arena
    (``2 * offset + 1``). A table three quarters full, or an arena without room, is
    emptied first."""
    n = hi - lo
    single = n <= 1 and lo < _SINGLE and (n == 0 or vec[lo] < _SINGLE_MOST)
    if not single and n + 2 > arena.shape[0]:
        return
    if (stats[USED] * 4 >= keys.shape[0] * 3
            or not (single or stats[ARENA_USED] + n + 2 <= arena.shape[0])):
        keys[:, 2] = _ZERO
        stats[USED] = 0
        stats[ARENA_USED] = 0
        stats[FLUSHES] += 1
    s = _slot(cells, used, keys)
    keys[s, 0] = cells
    keys[s, 1] = used
    stats[USED] += 1
    if single:
        keys[s, 2] = np.uint64(2 * ((vec[lo] if n == 1 else 0) * _SINGLE + lo) + 2)
        return
    top = stats[ARENA_USED]
    arena[top] = lo
    arena[top + 1] = n
    for x in range(n):
        arena[top + 2 + x] = vec[lo + x]
    keys[s, 2] = np.uint64(2 * top + 1)
    stats[ARENA_USED] = top + n + 2


@njit(cache=True)
def _tally(cells, used, L, T, table, use_memo, out):
    """The completions of the state (covered ``cells``, ``used`` pieces and slack items)
    split by the options that cover the tally items, into ``out`` (the layout of the
    state's uncovered tally items; see ``tally.py``). Returns False when the stop flag was
    seen.

    Each depth's vector is zero outside the range ``lo:hi`` its node has added to so far
    (a node's vector is mostly zeros): a node starts with an empty range, and its range is
    zeroed again once it is added to its parent, so no node clears or scans more of its
    vector than it used."""
    keys, _, arena, stats = table
    all_pieces, n_pieces, optional = L.all_pieces, L.n_pieces, L.optional
    start, masks, opts, avail = L.start, L.masks, L.opts, L.avail
    length = T.length
    zero, one, full = _ZERO, _ONE, ~_ZERO
    root_mask = _open_tallies(used, T)
    n_root = length[root_mask]
    out[:n_root] = 0
    if cells == full:
        if used | optional == all_pieces:
            out[0] = 1
        return True
    if L.slack != zero and _slack_dead_end(zero, cells, used, L):
        return True
    if use_memo:
        s = _slot(cells, used, keys)
        v = keys[s, 2]
        if v != zero:
            if v & one == zero:
                w = np.int64(v >> one) - 1
                out[w % _SINGLE] = w // _SINGLE
            else:
                at = np.int64(v >> one)
                for x in range(arena[at + 1]):
                    out[arena[at] + x] = arena[at + 2 + x]
            return True
    depth_max = np.int64(n_pieces) + 1
    acc = np.zeros((depth_max, n_root), dtype=np.int64)
    st_cells = np.empty(depth_max, dtype=np.uint64)
    st_used = np.empty(depth_max, dtype=np.uint64)
    st_m = np.empty(depth_max, dtype=np.uint64)
    st_k = np.empty(depth_max, dtype=np.uint64)
    st_end = np.empty(depth_max, dtype=np.uint64)
    st_x = np.empty(depth_max, dtype=np.uint64)
    st_bit = np.empty(depth_max, dtype=np.uint64)
    st_mask = np.empty(depth_max, dtype=np.uint64)
    st_o = np.empty(depth_max, dtype=np.int64)
    st_lo = np.empty(depth_max, dtype=np.int64)
    st_hi = np.empty(depth_max, dtype=np.int64)
    depth = 0
    nodes = 1
    x = np.uint64(trailing_zeros(~cells))
    m = avail[x] & ~used
    k = end = bit = zero
    mask = root_mask
    lo, hi = n_root, 0  # the range this node has added to (empty)
    while True:
        om = zero
        found = False
        while True:
            while k < end:
                om = masks[k]
                k += one
                if om & cells == zero:
                    found = True
                    break
            if found or m == zero:
                break
            p = np.uint64(trailing_zeros(m))
            m &= m - one
            k = start[x * n_pieces + p]
            end = start[x * n_pieces + p + one]
            bit = one << p
        if not found:  # every option tried: this sub-board is counted
            row = acc[depth]
            used_lo, used_hi = lo, hi
            while lo < hi and row[lo] == 0:
                lo += 1
            while hi > lo and row[hi - 1] == 0:
                hi -= 1
            if hi <= lo:
                lo, hi = 0, 0
            if use_memo:
                _store_vector(cells, used, row, lo, hi, keys, arena, stats)
            if depth == 0:
                out[lo:hi] = row[lo:hi]
                stats[NODES] += nodes
                return True
            depth -= 1
            cells, used, m = st_cells[depth], st_used[depth], st_m[depth]
            k, end, x, bit = st_k[depth], st_end[depth], st_x[depth], st_bit[depth]
            mask = st_mask[depth]
            child_lo, child_hi = lo, hi
            lo, hi = st_lo[depth], st_hi[depth]
            if child_hi > child_lo:
                a, b = _add_vector(acc[depth], row, child_lo, child_lo, child_hi - child_lo,
                                   st_o[depth], mask, T)
                lo, hi = min(lo, a), max(hi, b)
            for y in range(used_lo, used_hi):
                row[y] = 0
            continue
        o = opts[k - one]
        child_cells = cells | om
        child_used = used | bit
        t = T.opt_tally[o]
        child_mask = mask if t < 0 else mask & ~(one << np.uint64(t))
        if child_cells == full:
            if child_used | optional == all_pieces:
                y = 0 if t < 0 else T.opt_index[o] * T.stride[mask, t]
                acc[depth, y] += 1
                lo, hi = min(lo, y), max(hi, y + 1)
            continue
        home = zero
        if use_memo:  # the probe's row is fetched while the regions are checked
            home = _home(child_cells, child_used, keys)
            _prefetch_row(keys, home)
        if L.region_limit > 0 or L.slack != zero:
            if L.slack != zero:
                if _slack_dead_end(om, child_cells, child_used, L):
                    continue
            elif _dead_end(om, child_cells, L):
                continue
        if use_memo:
            s = _slot_from(home, child_cells, child_used, keys)
            v = keys[s, 2]
            if v == zero:
                stats[MISSES] += 1
            else:
                stats[HITS] += 1
                if v & one == zero:
                    w = np.int64(v >> one) - 1
                    c, y = w // _SINGLE, w % _SINGLE
                    if c != 0:
                        if t >= 0:
                            y = T.opt_index[o] * T.stride[mask, t] + T.map_flat[
                                T.map_start[np.int64(mask) * max(T.n_tally, 1) + t] + y]
                        acc[depth, y] += c
                        lo, hi = min(lo, y), max(hi, y + 1)
                else:
                    at = np.int64(v >> one)
                    a, b = _add_vector(acc[depth], arena, at + 2, arena[at], arena[at + 1], o,
                                       mask, T)
                    lo, hi = min(lo, a), max(hi, b)
                continue
        st_cells[depth], st_used[depth], st_m[depth] = cells, used, m
        st_k[depth], st_end[depth], st_x[depth], st_bit[depth] = k, end, x, bit
        st_mask[depth] = mask
        st_o[depth] = o
        st_lo[depth], st_hi[depth] = lo, hi
        depth += 1
        nodes += 1
        if nodes & 4095 == 0 and stats[STOP] != 0:
            stats[NODES] += nodes
            return False
        cells, used, mask = child_cells, child_used, child_mask
        lo, hi = n_root, 0
        x = np.uint64(trailing_zeros(~cells))
        m = avail[x] & ~used
        k = end = zero


@njit(cache=True, nogil=True)
def _tally_one_word_numba(prefixes, L, T, table, use_memo, out, out_mask):
    """The one-word kernel's tallies: row ``p`` of ``prefixes`` (option ids forced first;
    -1 pads) tallied into ``out[p]`` (zeros when they overlap), its uncovered tally items
    in ``out_mask[p]``; a stop leaves the rows from the one it met uncounted."""
    stats = table.stats
    for p in range(prefixes.shape[0]):
        if stats[STOP] != 0:
            return
        cells, used = L.covered, _ZERO
        ok = True
        for q in range(prefixes.shape[1]):
            o = prefixes[p, q]
            if o < 0:
                continue
            ok = ok and (cells & L.opt_cells[o]) | (used & L.opt_piece[o]) == _ZERO
            cells |= L.opt_cells[o]
            used |= L.opt_piece[o]
        out_mask[p] = np.int64(_open_tallies(used, T))
        if not ok:
            out[p, :] = 0
        elif not _tally(cells, used, L, T, table, use_memo, out[p]):
            return


# --- the compiled core --------------------------------------------------------------------


def count_one_word(prefixes: np.ndarray, L: OneWord, table: Table, use_memo: bool,
                   out: np.ndarray) -> None:
    """``out[p]``: the completions of row ``p`` of ``prefixes`` (option ids forced first;
    -1 pads), 0 when they overlap; rows a stop left uncounted are -1 (the core's search,
    run with the GIL released)."""
    _native.count_one_word(np.ascontiguousarray(prefixes, dtype=np.int64), L, table,
                           bool(use_memo), out)


def tally_one_word(prefixes: np.ndarray, L: OneWord, T: OneTallies, table: Table,
                   use_memo: bool, out: np.ndarray, out_mask: np.ndarray) -> None:
    """The one-word tallies: row ``p`` of ``prefixes`` (option ids forced first; -1 pads)
    tallied into ``out[p]`` (zeros when they overlap), its uncovered tally items in
    ``out_mask[p]``; a stop leaves the rows from the one it met uncounted (the core's
    search, run with the GIL released)."""
    _native.tally_one_word(np.ascontiguousarray(prefixes, dtype=np.int64), L, T, table,
                           bool(use_memo), out, out_mask)
