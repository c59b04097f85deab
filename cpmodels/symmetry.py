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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

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


class ProblemSymmetry:
    """A problem's symmetries (identity first), what each does to the options
    (``permutations[g][j]``: the option symmetry ``g`` maps option ``j`` to, -1 when the
    image is no option; read from the core's answer when first asked for), and the piece to
    place first (:func:`held_piece`)."""

    def __init__(self, symmetries: list[Symmetry], held: HeldPiece | None,
                 rows: Sequence[Sequence[int]]) -> None:
        self.symmetries, self.held, self._rows = symmetries, held, rows

    @classmethod
    def identity(cls, n_options: int) -> ProblemSymmetry:
        """The identity alone (a count that needs no symmetry)."""
        return cls([IDENTITY], None, [range(n_options)])

    @cached_property
    def permutations(self) -> list[list[int]]:
        return [list(row) for row in self._rows]


def problem_symmetry(cover: ExactCover, board: frozenset[Cell],
                     labels: dict[Cell, str] | None = None) -> ProblemSymmetry:
    """The board symmetries (:func:`~cpmodels.geometry.board_symmetries`) that are
    symmetries of the problem, with what they do to the options and the held piece, found
    by the engine core (``cpcore_option_symmetries``)."""
    return _core_symmetry(cover, board_symmetries(board, labels, grid(cover.grid)))


def problem_symmetries(cover: ExactCover, board: frozenset[Cell],
                       labels: dict[Cell, str] | None = None) -> list[Symmetry]:
    """Board symmetries (identity first) that map the cover's placements onto themselves,
    each with the piece permutation that goes with it: a board symmetry is one when it maps
    the placements of each piece onto the placements of one piece, the piece itself when it
    can, else the first other piece of its copies not yet taken."""
    return problem_symmetry(cover, board, labels).symmetries


def held_piece(cover: ExactCover, symmetries: Sequence[Symmetry]) -> HeldPiece | None:
    """The piece to place first, one placement per orbit of the symmetries (of the
    problem's, :func:`problem_symmetries`): of the pieces used exactly once that every
    symmetry maps onto itself, the one with the fewest orbits (the most constrained piece:
    fewest first branches, and the smallest tree below them), then the fewest orbits a
    symmetry fixes, then the most cells; or None when no piece qualifies (each has copies,
    may be left out, or has a mirror twin) or the board has no symmetry.

    Every solution holds exactly one placement of that piece, so the solutions split by its
    orbit: the raw count is the sum over orbits of the orbit's size times the count with its
    representative forced, and the classes of equivalent solutions with a representative
    ``r`` are the orbits of ``r``'s stabiliser on the solutions that hold ``r`` (one each when
    no symmetry fixes ``r``). A representative is the least placement of its orbit.
    """
    if len(symmetries) <= 1:
        return None
    return _given(cover, symmetries).held


def option_permutations(cover: ExactCover, symmetries: Sequence[Symmetry]) -> list[list[int]]:
    """``perm[g][j]``: the option that symmetry ``g`` (of the problem's) maps option ``j`` to."""
    return checked_permutations(cover, _given(cover, symmetries))


def checked_permutations(cover: ExactCover, found: ProblemSymmetry) -> list[list[int]]:
    """What each of the problem's symmetries does to the options (``found.permutations``);
    a KeyError naming an option whose image is no option (a slack option's, as a rule)."""
    for row in found.permutations:
        if -1 in row:
            raise KeyError(f"the image of {cover.placements[row.index(-1)]} is no option")
    return found.permutations


def _given(cover: ExactCover, symmetries: Sequence[Symmetry]) -> ProblemSymmetry:
    """The core's answer for these symmetries' cell maps (each must be the problem's)."""
    found = _core_symmetry(cover, [sym.cells for sym in symmetries])
    if found.symmetries != list(symmetries):
        raise ValueError("the symmetries are not the problem's")
    return found


_PLACED = OptionKind.PIECE


def _core_symmetry(cover: ExactCover, maps: Sequence[dict[Cell, Cell]]) -> ProblemSymmetry:
    """The core's answer (``cpcore_option_symmetries``) for the cover and these maps of its
    cells: the maps kept, with what they do, and the held piece."""
    from array import array

    import cpmodels._native as native

    items = cover.items
    cells = sorted({it.cell for it in items if it.cell is not None}.union(
        *(m.keys() | m.values() for m in maps)))
    rank = {rc: k for k, rc in enumerate(cells)}
    placements = cover.placements
    pieces = [p.piece for p in placements]
    # each piece's number, in the order of its first option
    names = {name: k for k, name in enumerate(dict.fromkeys(pieces))}
    opt_piece = array("q", [names[piece] for piece in pieces])
    placed = bytes([p.kind is _PLACED for p in placements])
    bounds: dict[tuple[int, int] | None, int] = {}
    by_name = {it.name: (it.low, it.high) for it in items if it.cell is None}
    once = {it.name for it in items if it.low == it.high == 1}
    piece_bounds = array("q", [bounds.setdefault(by_name.get(name), len(bounds))
                               for name in names])
    piece_once = bytes([name in once for name in names])
    at = rank.__getitem__
    flat = array("q", [at(m.get(rc, rc)) for m in maps for rc in cells])
    options = cover.options
    words = memoryview(native.option_symmetries(
        len(cells), len(maps),
        array("q", [-1 if it.cell is None else at(it.cell) for it in items]), options,
        opt_piece, placed, piece_bounds, piece_once, flat)).cast("q")
    n_kept, held, n_orbits = words[0], words[1], words[2]
    piece_names = list(names)
    n_pieces, n_options = len(piece_names), len(options)
    symmetries, rows, at_word = [], [], 3
    for _ in range(n_kept):
        g = words[at_word]
        to = words[at_word + 1:at_word + 1 + n_pieces]
        symmetries.append(Symmetry(maps[g], {
            piece_names[a]: piece_names[b] for a, b in enumerate(to) if a != b}))
        at_word += 1 + n_pieces
        rows.append(words[at_word:at_word + n_options])
        at_word += n_options
    orbits = []
    for _ in range(n_orbits):
        option, size, n_fixers = words[at_word:at_word + 3]
        orbits.append(HeldOrbit(option, size,
                                tuple(words[at_word + 3:at_word + 3 + n_fixers].tolist())))
        at_word += 3 + n_fixers
    return ProblemSymmetry(symmetries,
                           None if held < 0 else HeldPiece(piece_names[held], tuple(orbits)),
                           rows)


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
    options, placements, items_of = cover.options, cover.placements, cover.items
    perm = list(map(int, permutation))
    seen = bytearray(len(options))
    add_option, add_placement = fixed.options.append, fixed.placements.append
    for j in range(len(options)):
        if seen[j]:
            continue
        k = perm[j]
        if k == j:  # (most options of a reflection: alone, or with one other)
            orbit: Sequence[int] = (j,)
            items = tuple(options[j])
        elif perm[k] == j:
            orbit = (j, k)
            items = (*options[j], *options[k])
        else:
            orbit = [j]
            while k != j:
                orbit.append(k)
                k = perm[k]
            items = tuple(i for o in orbit for i in options[o])
        for o in orbit:
            seen[o] = 1
        if len(set(items)) == len(items):
            add_option(items)
            add_placement(placements[j])
            continue
        cells = [i for i in items if items_of[i].cell is not None]
        pieces = [i for i in items if items_of[i].cell is None]
        if len(set(cells)) == len(cells) and any(
                items_of[i].high > 1 for i in pieces if pieces.count(i) > 1):
            return None  # a piece of several copies used twice by one orbit
    return fixed


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
