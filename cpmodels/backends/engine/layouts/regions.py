"""Region pruning: an empty region that no pieces can fill ends a branch of the search.

An empty region (cells joined by edges, or faces in space) must be filled by some of the
pieces, so a region whose size is no sum of piece areas is a dead end. :func:`region_data`
works out, when a cover is compiled, the board's adjacency in its grid and which region
sizes the pieces can fill; the packing searches (the compiled core's
``cpcore/packing_search.hpp``) flood-fill the regions next to an option just placed.
"""

from __future__ import annotations

import numpy as np

from cpmodels.cover import ExactCover
from cpmodels.grids import grid


def region_data(cover: ExactCover, bit_of_item: np.ndarray, n_branch: int) -> tuple:
    """Adjacency of the board cells and the region sizes the pieces can fill.

    An empty region (cells joined by edges) must be filled by some of the pieces, so a region
    whose size is no sum of piece areas is a dead end. Only exact-one cell items count as
    board cells; without a consistent piece area per tag item the check is switched off.
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
    consistent = bool(cell_bit)
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
