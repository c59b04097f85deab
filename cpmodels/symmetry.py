"""Symmetries of a packing problem, and counting solutions up to them.

A symmetry of the board drawing (see :func:`cpmodels.geometry.board_symmetries`) is a
symmetry of the problem when it also maps each piece's allowed orientations onto themselves
(a reflection is no symmetry when pieces must stay face up). Counting up to symmetry keeps,
for one piece used once whose placements no symmetry fixes, one placement per orbit: every
class of equivalent solutions then has exactly one member left.
"""

from __future__ import annotations

from collections.abc import Sequence

from cpmodels.cover import ExactCover
from cpmodels.geometry import Cell, Placement, board_symmetries

Symmetry = dict[Cell, Cell]


def problem_symmetries(cover: ExactCover, board: frozenset[Cell],
                       labels: dict[Cell, str] | None = None) -> list[Symmetry]:
    """Board symmetries (identity first) that map the cover's placement set onto itself."""
    found = []
    placement_set = set(cover.placements)
    for sym in board_symmetries(board, labels):
        if all(_image(p, sym) in placement_set for p in cover.placements):
            found.append(sym)
    return found


def _image(p: Placement, sym: Symmetry) -> Placement:
    return Placement(p.piece, tuple(sorted(sym.get(rc, rc) for rc in p.cells)))


def reduce_by_symmetry(cover: ExactCover, symmetries: Sequence[Symmetry]) -> ExactCover | None:
    """The cover with one piece held to one placement per orbit of the symmetries, where some
    piece (used once) has no placement that a symmetry fixes; else ``None``.

    The count of the reduced cover is the number of solutions up to symmetry. ``None`` means
    no piece qualifies (every piece is symmetric or has copies); count by canonical forms.
    """
    if len(symmetries) == 1:
        return cover
    by_piece: dict[str, list[int]] = {}
    for j, p in enumerate(cover.placements):
        by_piece.setdefault(p.piece, []).append(j)
    # Only a piece in every solution, once, pins every class: one that may be left out
    # would leave the classes without it unreduced.
    once = {it.name for it in cover.items if it.low == it.high == 1}
    best: tuple[int, str, set[int]] | None = None
    for piece, option_ids in by_piece.items():
        if piece not in once:
            continue
        keep: set[int] = set()
        seen: set[Placement] = set()
        ok = True
        index = {cover.placements[j]: j for j in option_ids}
        for j in option_ids:
            p = cover.placements[j]
            if p in seen:
                continue
            orbit = [_image(p, sym) for sym in symmetries]
            if len(set(orbit)) != len(symmetries):
                ok = False  # some symmetry fixes this placement
                break
            seen.update(orbit)
            keep.add(index[min(orbit)])
        if ok and (best is None or len(option_ids) > best[0]):
            best = (len(option_ids), piece, keep)
    if best is None:
        return None
    _, piece, keep = best
    reduced = ExactCover(items=list(cover.items))
    for j, (option, placement) in enumerate(zip(cover.options, cover.placements)):
        if placement.piece != piece or j in keep:
            reduced.options.append(option)
            reduced.placements.append(placement)
    return reduced


def canonical(placements: Sequence[Placement], symmetries: Sequence[Symmetry]) -> tuple:
    """A key equal for two solutions exactly when a symmetry maps one onto the other."""
    return min(tuple(sorted(_image(p, sym) for p in placements)) for sym in symmetries)

