"""Region pruning: an empty region that no pieces can fill ends a branch of the search.

An empty region (cells joined by edges, or faces in space) must be filled by some of the
pieces, so a region whose size is no sum of piece areas is a dead end. The compiled core
works out, when a cover is laid out (``cpcore/cover_layout.hpp``), the board's adjacency in
its grid and which region sizes the pieces can fill; the packing searches
(``cpcore/packing_search.hpp``) flood-fill the regions next to an option just placed.
"""

from __future__ import annotations

import cpmodels._native as _native
from cpmodels.backends.engine.layouts.buffers import of, zeros


def region_sizes(areas: list[int], total: int) -> tuple[memoryview, int]:
    """Which region sizes (0 to ``total``) pieces of these ``areas`` can fill (each piece
    once), and the size below which regions are checked (0: none; also when ``areas`` is
    empty, for a cover without a consistent area per piece). Only regions smaller than two
    of the largest pieces are checked (flood fills cost time). A bool buffer
    (``layouts/buffers.py``)."""
    fillable = zeros(total + 1, "?")
    limit = _native.region_sizes(of([int(a) for a in areas]), total, fillable)
    return fillable, int(limit)
