"""The symmetries of a problem as Python found them before the engine core found them
(``cpcore_option_symmetries``): the oracle that ``cpmodels/symmetry.py``'s symmetries, option
permutations and held piece are checked against (tests/test_symmetry_core.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cpmodels.cover import ExactCover
from cpmodels.geometry import OptionKind, Placement, board_symmetries
from cpmodels.grids import Cell, grid
from cpmodels.symmetry import HeldOrbit, HeldPiece, Symmetry


def problem_symmetries(cover: ExactCover, board: frozenset[Cell],
                       labels: dict[Cell, str] | None = None) -> list[Symmetry]:
    """Board symmetries (identity first) that map the cover's placements onto themselves,
    each with the piece permutation that goes with it."""
    footprints = _Footprints(cover.placements)
    by_piece: dict[str, list[int]] = {}
    for j, p in enumerate(cover.placements):
        by_piece.setdefault(p.piece, []).append(j)
    bounds = {it.name: (it.low, it.high) for it in cover.items if it.cell is None}
    # Each piece's cell sets, as their numbers in order (a piece's placements cover
    # different cells, and so do their images).
    by_footprint: dict[tuple[int, ...], list[str]] = {}
    for piece, js in by_piece.items():
        by_footprint.setdefault(tuple(sorted(footprints.number[j] for j in js)),
                                []).append(piece)
    found = []
    for cell_map in board_symmetries(board, labels, grid(cover.grid)):
        image = footprints.images(cell_map)
        images = {}
        for piece, js in by_piece.items():
            numbers = sorted(image[j] for j in js)
            images[piece] = [] if numbers[0] < 0 else by_footprint.get(tuple(numbers), [])
        pieces = _piece_map(images, bounds)
        if pieces is not None:
            found.append(Symmetry(cell_map, {a: b for a, b in pieces.items() if a != b}))
    return found


def _piece_map(images: dict[str, list[str]],
               bounds: dict[str, tuple[int, int]]) -> dict[str, str] | None:
    """The piece each piece's placements go to (itself when it can), given the pieces whose
    placements are the images of each piece's, or None when some piece has no such piece."""
    mapped = {piece: piece for piece, candidates in images.items() if piece in candidates}
    taken = set(mapped)
    for piece, candidates in images.items():
        if piece in mapped:
            continue
        target = next((q for q in candidates if q not in taken
                       and bounds.get(q) == bounds.get(piece)), None)
        if target is None:
            return None
        mapped[piece] = target
        taken.add(target)
    return mapped


class _Footprints:
    """The placements' cell sets numbered, and found again for the images of all of them
    under a map of cells.

    ``number[j]`` is the number of placement ``j``'s cell set (placements covering the same
    cells share one). The cells are numbered in sorted order, and a cell set is looked up by
    the set of its cells' numbers, so a match is exact.
    """

    def __init__(self, placements: Sequence[Placement]) -> None:
        self.cells = sorted({rc for p in placements for rc in p.cells})
        self.cell_number = {rc: k for k, rc in enumerate(self.cells)}
        numbers: dict[tuple[Cell, ...], int] = {}
        self.sets: list[tuple[int, ...]] = []  # each cell set's cell numbers
        self.number: list[int] = []
        for p in placements:
            n = numbers.get(p.cells)
            if n is None:
                n = numbers[p.cells] = len(self.sets)
                self.sets.append(tuple(map(self.cell_number.__getitem__, p.cells)))
            self.number.append(n)
        self.by_cells = {frozenset(cells): n for n, cells in enumerate(self.sets)}

    def images(self, cell_map: Mapping[Cell, Cell]) -> list[int]:
        """For each placement, the number of the cell set its image under ``cell_map``
        covers (cells the map leaves out stay where they are), or -1 when no placement
        covers those cells."""
        # A cell no placement covers is ``outside``, which no cell set has.
        outside = len(self.cells)
        to = [self.cell_number.get(cell_map.get(rc, rc), outside) for rc in self.cells]
        find, at = self.by_cells.get, to.__getitem__
        image = [find(frozenset(map(at, cells)), -1) for cells in self.sets]
        return [image[n] for n in self.number]


def held_piece(cover: ExactCover, symmetries: Sequence[Symmetry]) -> HeldPiece | None:
    """The piece to place first, one placement per orbit of the symmetries: of the pieces
    used exactly once that every symmetry maps onto itself, the one with the fewest orbits
    (the most constrained piece: fewest first branches, and the smallest tree below them),
    or None when no piece qualifies (each has copies, may be left out, or has a mirror
    twin) or the board has no symmetry.

    Every solution holds exactly one placement of that piece, so the solutions split by its
    orbit: the raw count is the sum over orbits of the orbit's size times the count with its
    representative forced, and the classes of equivalent solutions with a representative
    ``r`` are the orbits of ``r``'s stabiliser on the solutions that hold ``r`` (one each when
    no symmetry fixes ``r``). A representative is the least placement of its orbit.
    """
    if len(symmetries) == 1:
        return None
    by_piece: dict[str, list[int]] = {}
    for j, p in enumerate(cover.placements):
        by_piece.setdefault(p.piece, []).append(j)
    # Only a piece in every solution, once, splits every solution: one that may be left
    # out would leave the solutions without it uncounted.
    once = {it.name for it in cover.items if it.low == it.high == 1}
    moved = {piece for sym in symmetries for piece in sym.pieces}
    best: tuple[tuple[int, int, int], HeldPiece] | None = None
    # A piece has at least placements / symmetries orbits: the pieces with the fewest
    # placements come first, and the rest need not be split once that bound passes the best.
    for piece, option_ids in sorted(by_piece.items(), key=lambda kv: len(kv[1])):
        if piece not in once or piece in moved:
            continue
        if best is not None and -(-len(option_ids) // len(symmetries)) > best[0][0]:
            break
        orbits = _orbits(cover, symmetries, option_ids)
        fixed = sum(1 for orbit in orbits if orbit.fixers)
        key = (len(orbits), fixed, -len(cover.placements[option_ids[0]].cells))
        if best is None or key < best[0]:
            best = (key, HeldPiece(piece, tuple(orbits)))
    return None if best is None else best[1]


def _orbits(cover: ExactCover, symmetries: Sequence[Symmetry],
            option_ids: list[int]) -> list[HeldOrbit]:
    """The orbits of these placements (of one piece every symmetry keeps), in option order."""
    index = {cover.placements[j]: j for j in option_ids}
    seen: set[Placement] = set()
    orbits = []
    for j in option_ids:
        p = cover.placements[j]
        if p in seen:
            continue
        images = [sym.image(p) for sym in symmetries]
        members = set(images)
        seen.update(members)
        rep = min(members)
        rep_images = [sym.image(rep) for sym in symmetries]
        fixers = tuple(g for g, q in enumerate(rep_images) if g > 0 and q == rep)
        orbits.append(HeldOrbit(index[rep], len(members), fixers))
    return orbits


def option_permutations(cover: ExactCover, symmetries: Sequence[Symmetry]) -> list[list[int]]:
    """``perm[g][j]``: the option that symmetry ``g`` maps option ``j`` to."""
    footprints = _Footprints(cover.placements)
    names = sorted({p.piece for p in cover.placements}
                   | {q for sym in symmetries for q in sym.pieces.values()})
    name_number = {name: k for k, name in enumerate(names)}
    piece = [name_number[p.piece] for p in cover.placements]
    # The option of each (cell set, piece): an image is a piece's placement (its kind).
    option_of = {(footprints.number[j], piece[j]): j for j, p in enumerate(cover.placements)
                 if p.kind is OptionKind.PIECE}
    perm = []
    for sym in symmetries:
        to = [name_number[sym.pieces.get(name, name)] for name in names]
        image = footprints.images(sym.cells)
        row = [option_of.get((n, to[q]), -1) if n >= 0 else -1 for n, q in zip(image, piece)]
        if -1 in row:
            raise KeyError(f"the image of {cover.placements[row.index(-1)]} is no option")
        perm.append(row)
    return perm
