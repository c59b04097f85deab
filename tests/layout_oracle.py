"""The layouts as the Python made them before the compiled core did: the oracle the core's
layouts (``cpcore/cover_layout.hpp``) are checked against, array for array."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cpmodels.backends.engine.layouts.cover import MAX_MASK_BYTES, CompiledCover, OneWord
from cpmodels.backends.engine.layouts.tally import OneTallies, Tallies, TallyLayout
from cpmodels.cover import ExactCover, ItemKind
from cpmodels.errors import TooLargeError
from cpmodels.geometry import OptionKind
from cpmodels.grids import grid


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
    bit_list, counter_list = bit_of_item.tolist(), counter_of_item.tolist()
    masks = []  # each option's bits as one integer
    for j, option in enumerate(cover.options):
        bits = [bit_list[i] for i in option if bit_list[i] >= 0]
        masks.append(sum(1 << b for b in bits))
        option_counters = [counter_list[i] for i in option if counter_list[i] >= 0]
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
    for w in range(n_words):
        opt_mask[:, w] = np.array([(m >> (64 * w)) & 0xFFFFFFFFFFFFFFFF for m in masks],
                                  dtype=np.uint64)

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

    cell_nb, opt_nb_start, opt_nb, fillable, region_limit = region_data(
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
        cell_nb, opt_nb_start, opt_nb, fillable, region_limit, {},
    )


def _connected(inside: int, cell_nb: np.ndarray) -> bool:
    """Whether the cells of ``inside`` (bits) are joined through the cells' neighbours."""
    start = (inside & -inside).bit_length() - 1
    reached, frontier = 1 << start, [start]
    while frontier:
        for nb in cell_nb[frontier.pop()].tolist():
            if nb >= 0 and inside >> nb & 1 and not reached >> nb & 1:
                reached |= 1 << nb
                frontier.append(nb)
    return reached == inside


def _joined_in_word(mask: int, inner: int) -> bool:
    """Whether the cells of ``mask`` (bits of a one-word board of lines ``inner`` long) are
    joined through their sides."""
    start = (mask & -mask).bit_length() - 1
    reached, frontier = 1 << start, [start]
    while frontier:
        b = frontier.pop()
        sides = [b - inner, b + inner] + [b - 1] * (b % inner > 0) + [b + 1] * (
            b % inner < inner - 1)
        for nb in sides:
            if 0 <= nb < 64 and mask >> nb & 1 and not reached >> nb & 1:
                reached |= 1 << nb
                frontier.append(nb)
    return reached == mask


def region_data(cover: ExactCover, bit_of_item: np.ndarray, n_branch: int) -> tuple:
    """Adjacency of the board cells and the region sizes the pieces can fill.

    An empty region (cells joined by edges) must be filled by some of the pieces, so a region
    whose size is no sum of piece areas is a dead end. Only exact-one cell items count as
    board cells; without a consistent piece area per tag item, with two such items on one
    cell, a cell named by another item, or an option whose cells are not joined through
    their neighbours, the check is switched off.
    """
    neighbours = grid(cover.grid).neighbours
    cell_bit = {it.cell: int(bit_of_item[i]) for i, it in enumerate(cover.items)
                if it.cell is not None and 0 <= bit_of_item[i] < n_branch}
    degree = max((len(neighbours(cell)) for cell in cell_bit), default=4)
    cell_nb = np.full((max(n_branch, 1), degree), -1, dtype=np.int64)
    for cell, b in cell_bit.items():
        for k, nb in enumerate(neighbours(cell)):
            cell_nb[b, k] = cell_bit.get(nb, -1)
    area: dict[int, int] = {}
    board_items = [it.cell for i, it in enumerate(cover.items)
                   if it.cell is not None and 0 <= bit_of_item[i] < n_branch]
    consistent = (bool(cell_bit) and len(set(board_items)) == len(board_items)
                  and len(board_items) == sum(it.cell is not None for it in cover.items))
    # Each board cell item's neighbours as one integer of bits, and each cell item's bit.
    around_item = {i: sum(1 << int(b) for b in cell_nb[cell_bit[it.cell]] if b >= 0)
                   for i, it in enumerate(cover.items) if it.cell in cell_bit}
    bit_item = {i: 1 << cell_bit[it.cell] for i, it in enumerate(cover.items)
                if it.cell in cell_bit}
    is_cell = [it.cell is not None for it in cover.items]
    opt_nb_start = np.zeros(len(cover.options) + 1, dtype=np.int64)
    flat: list[int] = []
    for j, option in enumerate(cover.options):
        inside = around = 0
        n_cells = 0
        for i in option:
            if i in bit_item:
                inside |= bit_item[i]
                around |= around_item[i]
                n_cells += 1
            elif is_cell[i]:
                consistent = False  # a cell that is no board cell
        if inside and not _connected(inside, cell_nb):
            consistent = False  # region pruning holds for options connected as pieces are
        if n_cells and area.setdefault(option[-1], n_cells) != n_cells:
            consistent = False  # (an option with no cell, a piece left out, fills nothing)
        around &= ~inside
        while around:
            low = around & -around
            flat.append(low.bit_length() - 1)
            around ^= low
        opt_nb_start[j + 1] = len(flat)
    consistent = consistent and bool(area)
    areas = [size for tag, size in area.items() for _ in range(cover.items[tag].high)]
    fillable, limit = region_sizes(areas if consistent else [], len(cell_bit))
    return cell_nb, opt_nb_start, np.array(flat, dtype=np.int64), fillable, limit


def region_sizes(areas: list[int], total: int) -> tuple[np.ndarray, int]:
    """Which region sizes (0 to ``total``) pieces of these ``areas`` can fill (each piece
    once), and the size below which regions are checked (0: none; also when ``areas`` is
    empty, for a cover without a consistent area per piece)."""
    fillable = np.zeros(total + 1, dtype=np.bool_)
    fillable[0] = True
    if not areas:
        return fillable, 0
    for size in areas:
        fillable[size:] |= fillable[:-size].copy() if size <= total else False
    gaps = [k for k in range(1, total + 1) if not fillable[k]]
    # Flood fills cost time: look only at regions smaller than two of the largest pieces.
    cap = 2 * max(areas) + 2
    gaps = [k for k in gaps if k < cap]
    return fillable, (max(gaps) + 1 if gaps else 0)


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


def one_word_layout(cover: ExactCover, flips: int = 0) -> OneWord | None:
    """The one-word kernel's view of ``cover`` as the Python made it (layouts/cover.py)."""
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
        at_slow, at_fast = cell[slow] - low[slow], cell[fast] - low[fast]
        if flips & 1:
            at_slow = extent[slow] - at_slow
        if flips & 2:
            at_fast = extent[fast] - at_fast
        bit_of[i] = at_slow * inner + at_fast
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
    # The region check holds only where each option's cells are joined through their sides.
    joined = all(_joined_in_word(int(mask), inner) for mask in cell_masks if mask)
    fillable, limit = region_sizes(list(area.values()) if joined else [], len(cells))
    line = [b for b in range(64) if b % inner == 0]
    first = np.uint64(sum(1 << b for b in line))
    last = np.uint64(sum(1 << (b + inner - 1) for b in line if b + inner - 1 < 64))
    full = (1 << 64) - 1
    slack = sum(1 << piece_of[i] for i in others if cover.items[i].kind is ItemKind.SLACK)
    return OneWord(start, opt_cells[flat].copy(), np.array(flat, dtype=np.int64), avail,
                   np.uint64(n_pieces), np.uint64((1 << n_pieces) - 1 if n_pieces < 64 else full),
                   opt_cells, opt_piece, np.uint64(full ^ board), np.uint64(inner), first, last,
                   fillable, limit, bool(limit > 1 and not fillable[1]), np.uint64(slack),
                   np.uint64(optional), np.array(slack_cells, dtype=np.uint64),
                   np.array([area.get(p, 0) for p in range(n_pieces)], dtype=np.int64))


def one_word_tallies(cover: ExactCover, items: Sequence[int],
                     tallies: Tallies | None) -> OneTallies | None:
    """The one-word tally kernel's tallies as the Python made them (layouts/tally.py)."""
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


def forced_state(cc: CompiledCover, options: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The N-word state with ``options`` placed (clashing or not): the items they fill, a
    bit each, and each counter's count of them."""
    cc = cc.numpy()  # the core's layout is buffers (layouts/buffers.py)
    filled = np.zeros(cc.n_words, dtype=np.uint64)
    counters = np.zeros(len(cc.counter_low), dtype=np.int64)
    for o in options:
        filled |= cc.opt_mask[o]
        if cc.opt_counter[o] >= 0:
            counters[cc.opt_counter[o]] += 1
    return filled, counters
