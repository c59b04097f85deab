"""An exact cover as the flat arrays the compiled core lays out (``cpcore_cover_input`` in
the core's ``entry.h``; ``engine.js`` takes the same from the browser).

* ``low``, ``high``: each item's bounds; ``item_cell``: its board cell, an index into the
  cells (in the order items first name them), or -1;
* ``cell_nbs[cell_nb_start[c]:cell_nb_start[c + 1]]``: cell ``c``'s neighbours in the
  grid's order, each a cell or -1 for one no item names;
* ``opt_items[opt_start[o]:opt_start[o + 1]]``: option ``o``'s items, its tag last.
"""

from __future__ import annotations

from array import array
from itertools import accumulate, chain

import cpmodels._native as _native
from cpmodels.backends.engine.layouts.buffers import of
from cpmodels.cover import ExactCover
from cpmodels.grids import grid


def cover_arrays(cover: ExactCover) -> dict[str, memoryview]:
    """The cover's items, cells and options as flat int64 buffers (see the module; made
    without numpy, ``layouts/buffers.py``: arrays of the standard library, read in place)."""
    items = cover.items
    cell_index: dict = {}
    item_cell = [-1 if it.cell is None else cell_index.setdefault(it.cell, len(cell_index))
                 for it in items]
    neighbours = grid(cover.grid).neighbours if cell_index else None
    rows = [[cell_index.get(nb, -1) for nb in neighbours(cell)]
            for cell in cell_index] if neighbours else []
    opt_start, opt_items = _native.flat_runs(cover.options)
    return {
        "low": of(array("q", [it.low for it in items])),
        "high": of(array("q", [it.high for it in items])),
        "item_cell": of(array("q", item_cell)),
        "cell_nb_start": of(array("q", accumulate(map(len, rows), initial=0))),
        "cell_nbs": of(array("q", chain.from_iterable(rows))),
        "opt_start": of(array("q", opt_start)),
        "opt_items": of(array("q", opt_items)),
    }
