"""The symmetries as numpy found them before they were found without it: the oracle the
symmetries and option permutations of ``cpmodels/symmetry.py`` are checked against."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from cpmodels.cover import ExactCover
from cpmodels.geometry import OptionKind, Placement, board_symmetries
from cpmodels.grids import Cell, grid
from cpmodels.symmetry import Symmetry, _piece_map


def problem_symmetries(cover: ExactCover, board: frozenset[Cell],
                       labels: dict[Cell, str] | None = None) -> list[Symmetry]:
    """Board symmetries (identity first) that map the cover's placements onto themselves,
    each with the piece permutation that goes with it."""
    footprints = _Footprints(cover.placements)
    rows: dict[str, list[int]] = {}
    for j, p in enumerate(cover.placements):
        rows.setdefault(p.piece, []).append(j)
    by_piece = {piece: np.array(js, dtype=np.int64) for piece, js in rows.items()}
    bounds = {it.name: (it.low, it.high) for it in cover.items if it.cell is None}
    # Each piece's cell sets, as the bytes of their numbers in order (a piece's placements
    # cover different cells, and so do their images).
    by_footprint: dict[bytes, list[str]] = {}
    for piece, js in by_piece.items():
        by_footprint.setdefault(np.sort(footprints.number[js]).tobytes(), []).append(piece)
    found = []
    for cell_map in board_symmetries(board, labels, grid(cover.grid)):
        image = footprints.images(cell_map)
        images = {piece: [] if image[js].min() < 0
                  else by_footprint.get(np.sort(image[js]).tobytes(), [])
                  for piece, js in by_piece.items()}
        pieces = _piece_map(images, bounds)
        if pieces is not None:
            found.append(Symmetry(cell_map, {a: b for a, b in pieces.items() if a != b}))
    return found


def _spread(values: np.ndarray) -> np.ndarray:
    """Well-spread 64-bit keys of distinct numbers (splitmix64, one to one)."""
    z = values.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return (z ^ (z >> np.uint64(31))).view(np.int64)


class _Footprints:
    """The placements' cell sets numbered, and found again for the images of all of them
    under a map of cells at once.

    ``number[j]`` is the number of placement ``j``'s cell set (placements covering the same
    cells share one). The cells are numbered in sorted order, so each placement's run of
    ``flat`` is ascending. An image is looked up by a well-spread 64-bit key per cell (a
    cell set's key is the XOR of its cells' keys; the keys are drawn again until the cell
    sets' keys are all different) and then checked cell by cell, so a match is exact.
    """

    def __init__(self, placements: Sequence[Placement]) -> None:
        self.cells = sorted({rc for p in placements for rc in p.cells})
        self.cell_number = {rc: k for k, rc in enumerate(self.cells)}
        n = len(placements)
        cell_sets = [p.cells for p in placements]
        self.lengths = np.fromiter(map(len, cell_sets), np.int64, n)
        self.starts = np.cumsum(self.lengths) - self.lengths
        self.row = np.repeat(np.arange(n, dtype=np.int64), self.lengths)
        self.flat = np.fromiter(map(self.cell_number.__getitem__,
                                    itertools.chain.from_iterable(cell_sets)),
                                np.int64, int(self.lengths.sum()))
        numbers: dict[tuple[Cell, ...], int] = {}
        self.number = np.fromiter((numbers.setdefault(cells, len(numbers))
                                   for cells in cell_sets), np.int64, n)
        self.first = np.zeros(len(numbers), dtype=np.int64)  # a placement of each cell set
        self.first[self.number] = np.arange(n)
        for seed in itertools.count():  # new keys in the unlikely case two sets share one
            # one key more: for a cell no placement covers
            width = len(self.cells) + 1
            self.cell_keys = _spread(np.arange(width) + seed * width)
            set_keys = self._set_keys(self.flat)[self.first]
            self.by_key = np.argsort(set_keys)
            self.sorted_keys = set_keys[self.by_key]
            if not np.any(self.sorted_keys[1:] == self.sorted_keys[:-1]):
                break

    def _set_keys(self, flat: np.ndarray) -> np.ndarray:
        """The key of each placement's cells, ``flat`` standing for its cell numbers."""
        keys = np.zeros(len(self.lengths), dtype=np.int64)
        np.bitwise_xor.at(keys, self.row, self.cell_keys[flat])
        return keys

    def images(self, cell_map: Mapping[Cell, Cell]) -> np.ndarray:
        """For each placement, the number of the cell set its image under ``cell_map``
        covers (cells the map leaves out stay where they are), or -1 when no placement
        covers those cells."""
        if not len(self.first):
            return np.full(len(self.lengths), -1, dtype=np.int64)
        outside = len(self.cells)
        to = np.fromiter((self.cell_number.get(cell_map.get(rc, rc), outside)
                          for rc in self.cells), np.int64, len(self.cells))
        image = to[self.flat]
        keys = self._set_keys(image)
        at = np.minimum(np.searchsorted(self.sorted_keys, keys), len(self.sorted_keys) - 1)
        found = self.by_key[at]
        other = self.first[found]
        maybe = (self.sorted_keys[at] == keys) & (self.lengths[other] == self.lengths)
        # Cell by cell: the image's cells sorted against the other placement's.
        width = len(self.cells) + 1
        image = np.sort(self.row * width + image) - self.row * width
        checked = maybe[self.row]
        at_other = np.where(checked, np.arange(len(self.flat)) + np.repeat(
            self.starts[other] - self.starts, self.lengths), 0)
        wrong = checked & (self.flat[at_other] != image)
        maybe[self.row[wrong]] = False
        return np.where(maybe, found, -1)


def option_permutations(cover: ExactCover, symmetries: Sequence[Symmetry]) -> np.ndarray:
    """``perm[g, j]``: the option that symmetry ``g`` maps option ``j`` to."""
    footprints = _Footprints(cover.placements)
    names = sorted({p.piece for p in cover.placements}
                   | {q for sym in symmetries for q in sym.pieces.values()})
    name_number = {name: k for k, name in enumerate(names)}
    piece = np.array([name_number[p.piece] for p in cover.placements], dtype=np.int64)
    # The option of each (cell set, piece): an image is a piece's placement (its kind).
    option_of = np.full(len(footprints.first) * len(names), -1, dtype=np.int64)
    for j, p in enumerate(cover.placements):
        if p.kind is OptionKind.PIECE:
            option_of[footprints.number[j] * len(names) + piece[j]] = j
    perm = np.zeros((len(symmetries), len(cover.placements)), dtype=np.int64)
    for g, sym in enumerate(symmetries):
        to = np.array([name_number[sym.pieces.get(name, name)] for name in names],
                      dtype=np.int64)
        image = footprints.images(sym.cells)
        perm[g] = np.where(image >= 0, option_of[np.maximum(image, 0) * len(names)
                                                 + to[piece]], -1)
        if np.any(perm[g] < 0):
            j = int(np.flatnonzero(perm[g] < 0)[0])
            raise KeyError(f"the image of {cover.placements[j]} is no option")
    return perm
