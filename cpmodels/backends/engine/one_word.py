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

Self-contained for numba's cache, like ``kernels.py`` and ``words.py``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from cpmodels.backends.engine.memo import FLUSHES, NODES, STOP, USED
from cpmodels.backends.engine.regions import region_sizes
from cpmodels.cover import ExactCover, ItemKind
from cpmodels.geometry import OptionKind

#: What the one-word kernel reads (see :func:`one_word_layout`).
OneWord = namedtuple("OneWord", [
    "start", "masks", "opts", "avail", "n_pieces", "all_pieces", "opt_cells", "opt_piece",
    "covered", "inner", "first", "last", "fillable", "region_limit", "isolated_dead",
    "slack", "optional", "slack_cells"])
OneWord.__doc__ = """The one-word kernel's view of an exact cover (:func:`one_word_layout`).

The *cell word* holds bit ``slow * inner + fast`` for each board cell (a state's covered
cells); the *piece word* one bit for each other item, in the cover's item order: the pieces
and the slack items (a state's items covered so far). Options are numbered as in the cover.

* ``opt_cells[o]``, ``opt_piece[o]``: option ``o``'s cells and its one piece-word bit (a
  left-out option has no cells);
* ``masks[start[x * n_pieces + p]:start[x * n_pieces + p + 1]]``: the cell masks of the
  options anchored at cell bit ``x`` (their lowest cell) that cover piece-word bit ``p``,
  and ``opts[...]`` over the same run their option ids; ``avail[x]``: the piece-word bits
  that have options anchored at ``x`` (a left-out option is in no run: it is never branched
  on, only forced);
* ``n_pieces``: the bits of the piece word; ``all_pieces``: all of them;
  ``slack``: those that are slack items (their options are one cell each);
  ``optional``: the pieces that have a left-out option (a state whose cells are all
  covered is a solution when ``used | optional == all_pieces``: each piece not placed is
  then left out, one way, as the general kernels branch on it last);
* ``covered``: the bits of the cell word that are no board cell (covered from the start);
  ``slack_cells[p]`` for a slack bit ``p``: the cells its slack options cover;
* ``inner``: the length of a line of the grid in the cell word; ``first`` and ``last``:
  the bits at the start and the end of each line (for the neighbours of a cell);
* ``fillable[k]``: whether some pieces add up to ``k`` cells (a slack item is a piece of one
  cell), ``region_limit``: regions smaller than this are checked (0: none);
  ``isolated_dead``: a single empty cell is a dead end (no piece of one cell).
"""

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def one_word_layout(cover: ExactCover) -> OneWord | None:
    """The one-word kernel's view of an exact cover (read from the cover itself: no
    compiled layout needed), or None when it does not suit. It suits a square grid of at
    most 64 cells in its bounding box whose other items (pieces and slack items, at most 64)
    are covered exactly once, each option one of (by the items' :class:`ItemKind`, checked
    against the placement's :class:`OptionKind` when the cover has placements):

    * a piece put on the board: some cells and one piece item (the same number of cells for
      each option of a piece);
    * a slack option: one cell and one slack item;
    * a left-out option: one piece item and no cell (at most one a piece).
    """
    if cover.grid != "square":
        return None
    cell_of = {i: it.cell for i, it in enumerate(cover.items) if it.cell is not None}
    cells = list(cell_of.values())
    others = [i for i, it in enumerate(cover.items) if it.kind is not ItemKind.CELL]
    if (not cells or not 0 < len(others) <= 64 or any(len(c) != 2 for c in cells)
            or len(cells) + len(others) != len(cover.items)
            or any((it.low, it.high) != (1, 1) for it in cover.items)):
        return None
    extent = [max(c[k] for c in cells) - min(c[k] for c in cells) for k in (0, 1)]
    slow, fast = sorted((0, 1), key=lambda k: (-extent[k], k))
    inner = extent[fast] + 1
    if (extent[slow] + 1) * inner > 64:
        return None
    low = [min(c[k] for c in cells) for k in (0, 1)]
    bit_of = {}  # cell item -> bit of the cell word
    piece_of = {i: p for p, i in enumerate(others)}  # other item -> bit of the piece word
    for i, cell in cell_of.items():
        bit_of[i] = (cell[slow] - low[slow]) * inner + cell[fast] - low[fast]
    board = sum(1 << b for b in bit_of.values())
    typed = len(cover.placements) == len(cover.options)
    cell_masks, piece_masks = [], []
    groups: dict[tuple[int, int], list[int]] = {}
    area: dict[int, int] = {}  # each piece's cells (a slack item's: one), for region sizes
    optional = 0
    slack_cells = [0] * 64
    for j, option in enumerate(cover.options):
        bits = [bit_of[i] for i in option if i in bit_of]
        owners = [i for i in option if i in piece_of]
        if len(owners) != 1 or len(bits) + 1 != len(option):
            return None
        kind = cover.items[owners[0]].kind
        p = piece_of[owners[0]]
        expected = (OptionKind.SLACK if kind is ItemKind.SLACK
                    else OptionKind.PIECE if bits else OptionKind.LEFT_OUT)
        if ((typed and cover.placements[j].kind is not expected)
                or (expected is OptionKind.SLACK and len(bits) != 1)):
            return None
        if expected is OptionKind.LEFT_OUT:
            if optional >> p & 1:
                return None  # two ways to leave one piece out
            optional |= 1 << p
        elif area.setdefault(p, len(bits)) != len(bits):
            return None
        mask = sum(1 << b for b in bits)
        cell_masks.append(mask)
        piece_masks.append(1 << p)
        if expected is OptionKind.SLACK:
            slack_cells[p] |= mask
        if bits:
            groups.setdefault((min(bits), p), []).append(j)
    opt_cells = np.array(cell_masks, dtype=np.uint64)
    opt_piece = np.array(piece_masks, dtype=np.uint64)
    n_pieces = len(others)
    starts: list[int] = []
    flat: list[int] = []
    avail_bits = [0] * 64
    for g in range(64 * n_pieces):
        starts.append(len(flat))
        run = groups.get(divmod(g, n_pieces), [])
        flat += run
        if run:
            avail_bits[g // n_pieces] |= 1 << (g % n_pieces)
    start = np.array([*starts, len(flat)], dtype=np.uint64)
    avail = np.array(avail_bits, dtype=np.uint64)
    fillable, limit = region_sizes(list(area.values()), len(cells))
    line = [b for b in range(64) if b % inner == 0]
    first = np.uint64(sum(1 << b for b in line))
    last = np.uint64(sum(1 << (b + inner - 1) for b in line if b + inner - 1 < 64))
    full = (1 << 64) - 1
    slack = sum(1 << piece_of[i] for i in others if cover.items[i].kind is ItemKind.SLACK)
    return OneWord(start, opt_cells[flat].copy(), np.array(flat, dtype=np.int64), avail,
                   np.uint64(n_pieces), np.uint64((1 << n_pieces) - 1 if n_pieces < 64 else full),
                   opt_cells, opt_piece, np.uint64(full ^ board), np.uint64(inner), first, last,
                   fillable, limit, bool(limit > 1 and not fillable[1]), np.uint64(slack),
                   np.uint64(optional), np.array(slack_cells, dtype=np.uint64))


# --- bits ---------------------------------------------------------------------------------


@intrinsic
def _ctpop(typingctx, x):
    """The number of set bits of a uint64 (LLVM's ctpop)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


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
def _slot(cells, used, keys):
    """The slot of a state: rows hold the two words and the value (0: empty)."""
    x = used * _MIX1
    x = cells ^ (x ^ (x >> np.uint64(31)))
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    x ^= x >> np.uint64(31)
    mask = np.uint64(keys.shape[0] - 1)
    s = x & mask
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
def count_one_word(prefixes, L, table, use_memo, out):
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
