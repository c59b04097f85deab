"""Symmetries of a packing problem, and counting solutions up to them.

A symmetry of the board drawing (see :func:`cpmodels.geometry.board_symmetries`) is a
symmetry of the problem when it maps the placements of each piece onto the placements of
one piece: the same piece as a rule, or another piece of the same count whose shapes are
the mirror images (a reflection of the Soma cube swaps its two screw pieces). Two
solutions are the same when a symmetry maps one onto the other as sets of placed shapes.
A reflection is no symmetry when pieces must stay face up and no piece is their mirror.

Counting up to symmetry places first one piece used once that every symmetry maps onto
itself (:func:`held_piece`), one placement per orbit: the classes with a representative no
symmetry fixes are its solutions, and those with a representative some symmetries fix are
counted by Burnside's lemma over those symmetries. Without such a piece, Burnside's lemma
counts the classes of the whole problem: the mean over the symmetries of the solutions each
one leaves as they are (:func:`fixed_cover` turns those into an exact cover of their own).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from cpmodels.cover import ExactCover
from cpmodels.geometry import OptionKind, Placement, board_symmetries
from cpmodels.grids import Cell, grid

#: ``perm[g][j]``: the option that symmetry ``g`` maps option ``j`` to.
Permutations = Sequence[Sequence[int]]


@dataclass(frozen=True)
class Symmetry:
    """A map of board cells, and the pieces it turns into others (mirror-image pairs)."""

    cells: dict[Cell, Cell] = field(default_factory=dict)
    pieces: dict[str, str] = field(default_factory=dict)

    def image(self, p: Placement) -> Placement:
        """Where this symmetry puts a placement."""
        return Placement(self.pieces.get(p.piece, p.piece),
                         tuple(sorted(self.cells.get(rc, rc) for rc in p.cells)))


IDENTITY = Symmetry()


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


@dataclass(frozen=True)
class HeldOrbit:
    """One orbit of the held piece's placements: its representative (an option id), how
    many placements the orbit has, and the symmetries that fix the representative (indices
    into the symmetries, the identity left out)."""

    option: int
    size: int
    fixers: tuple[int, ...] = ()


@dataclass(frozen=True)
class HeldPiece:
    """A piece used once in every solution that every symmetry maps onto itself, its
    placements split into orbits (see :func:`held_piece`)."""

    piece: str
    orbits: tuple[HeldOrbit, ...]

    @property
    def tasks(self) -> list[tuple[int, ...]]:
        """One task (forced options) per orbit: its representative placed first."""
        return [(orbit.option,) for orbit in self.orbits]


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


def canonical_solution(placements: Sequence[Placement], symmetries: Sequence[Symmetry]) -> tuple:
    """A key equal for two solutions exactly when a symmetry maps one onto the other."""
    return min(tuple(sorted(sym.image(p) for p in placements)) for sym in symmetries)


def fixed_cover(cover: ExactCover, permutation: Sequence[int]) -> ExactCover | None:
    """The exact cover whose solutions are the solutions of ``cover`` that a symmetry (as
    ``permutation`` of the options) leaves as they are; None when that cannot be written as
    an exact cover (an orbit that uses a piece of several copies more than once).

    Such a solution is a union of whole orbits of options under the symmetry, so the options
    are the orbits whose members are disjoint, each covering the items of all its members.
    """
    fixed = ExactCover(items=list(cover.items), grid=cover.grid)
    seen = [False] * len(cover.options)
    for j in range(len(cover.options)):
        if seen[j]:
            continue
        orbit = [j]
        k = int(permutation[j])
        while k != j:
            orbit.append(k)
            k = int(permutation[k])
        for o in orbit:
            seen[o] = True
        items = [i for o in orbit for i in cover.options[o]]
        if len(set(items)) == len(items):
            fixed.options.append(tuple(items))
            fixed.placements.append(cover.placements[j])
            continue
        cells = [i for i in items if cover.items[i].cell is not None]
        pieces = [i for i in items if cover.items[i].cell is None]
        if len(set(cells)) == len(cells) and any(
                cover.items[i].high > 1 for i in pieces if pieces.count(i) > 1):
            return None  # a piece of several copies used twice by one orbit
    return fixed


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


def count_classes(solutions: Iterable[Sequence[int]], permutations: Permutations,
                  batch: int = 1 << 15) -> int:
    """How many classes of equivalent solutions there are among ``solutions`` (each a set of
    option indices; every member of a class must be among them).

    A solution is counted when its sorted options are, lexicographically, no greater than
    those of any of its images: one member of each class is. Solutions are taken in
    batches, compared with their images as arrays.
    """
    import numpy as np

    perms = np.asarray(permutations, dtype=np.int64).reshape(len(permutations), -1)
    n_options = perms.shape[1]
    # A solution with fewer options (a piece left out) is padded past every option index.
    extended = np.concatenate([perms, np.full((len(perms), 1), n_options,
                                                     dtype=np.int64)], axis=1)
    total = 0
    solutions = iter(solutions)
    while True:
        chunk = [list(s) for s in itertools.islice(solutions, batch)]
        if not chunk:
            return total
        width = max(len(s) for s in chunk)
        rows = np.full((len(chunk), width), n_options, dtype=np.int64)
        for i, s in enumerate(chunk):
            rows[i, :len(s)] = s
        rows.sort(axis=1)
        least = np.ones(len(rows), dtype=bool)
        for perm in extended[1:]:
            image = np.sort(perm[rows], axis=1)
            differ = image != rows
            first = differ.argmax(axis=1)
            pick = np.arange(len(rows))
            smaller = differ.any(axis=1) & (image[pick, first] < rows[pick, first])
            least &= ~smaller
        total += int(least.sum())
