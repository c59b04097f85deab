"""An exact cover as the flat arrays the compiled core lays out (``cpcore_cover_input`` in
the core's ``entry.h``; ``engine.js`` takes the same from the browser).

* ``low``, ``high``: each item's bounds; ``item_cell``: its board cell, an index into the
  cells (in the order items first name them), or -1;
* ``cell_nbs[cell_nb_start[c]:cell_nb_start[c + 1]]``: cell ``c``'s neighbours in the
  grid's order, each a cell or -1 for one no item names;
* ``opt_items[opt_start[o]:opt_start[o + 1]]``: option ``o``'s items, its tag last.
"""

from __future__ import annotations

import numpy as np

from cpmodels.cover import ExactCover
from cpmodels.grids import grid


def cover_arrays(cover: ExactCover) -> dict[str, np.ndarray]:
    """The cover's items, cells and options as flat int64 arrays (see the module)."""
    items = cover.items
    cell_index: dict = {}
    item_cell = np.fromiter(
        (-1 if it.cell is None else cell_index.setdefault(it.cell, len(cell_index))
         for it in items), dtype=np.int64, count=len(items))
    neighbours = grid(cover.grid).neighbours if cell_index else None
    rows = [[cell_index.get(nb, -1) for nb in neighbours(cell)]
            for cell in cell_index] if neighbours else []
    lengths = np.fromiter((len(option) for option in cover.options), dtype=np.int64,
                          count=len(cover.options))
    return {
        "low": np.fromiter((it.low for it in items), dtype=np.int64, count=len(items)),
        "high": np.fromiter((it.high for it in items), dtype=np.int64, count=len(items)),
        "item_cell": item_cell,
        "cell_nb_start": _starts(np.fromiter((len(r) for r in rows), dtype=np.int64,
                                             count=len(rows))),
        "cell_nbs": np.fromiter((nb for r in rows for nb in r), dtype=np.int64),
        "opt_start": _starts(lengths),
        "opt_items": np.fromiter((i for option in cover.options for i in option),
                                 dtype=np.int64, count=int(lengths.sum())),
    }


def _starts(lengths: np.ndarray) -> np.ndarray:
    starts = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    return starts
