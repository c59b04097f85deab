"""The one-word kernel: counts on boards of at most 64 cells, every piece used once.

A square-grid board whose bounding box has at most 64 cells is one 64-bit word: bit
``slow * inner + fast`` for a cell, its axes in scan order (``cover.scan_order``: the longer
side varies slowest), so the lowest open bit is the first empty cell of the general
kernels, and their trees are the same. Bits that are no board cell start covered. The
pieces used are a second word, one bit a piece. Then:

* the options of each anchor (the lowest bit of an option) and piece are cell masks in a
  run, ``masks[start[x * n_pieces + p]:start[x * n_pieces + p + 1]]``, and ``avail[x]``
  says which pieces have options anchored at ``x``: a node of a count tests every option
  anchored at ``x`` at once, by vectors, against its cells and the pieces used, and takes the
  fitting ones by their bits, and so does a node of a tally (the native module; in
  WebAssembly it walks the unused pieces of ``avail[x] & ~used`` by trailing zeros and tests
  each of their options with one load and one AND: the core's rule, ``cpcore/choice.hpp``);
  the indices are unsigned;
* the frame of a node is held in scalars; only a step down writes it to the stack, and the
  node count is written to the table's statistics once, at the end;
* regions grow by bit-parallel dilation: a cell's neighbours are the word shifted by one
  (masked at the ends of a line) and by a line's length. An empty cell with no empty
  neighbour is found for the whole board in a dozen operations; the regions next to the
  option just placed are then grown until they reach ``region_limit`` cells;
* the table of sub-board counts is keyed by the two words, the value beside them; a count
  keeps only the states with at least four of the largest pieces' cells still empty (below
  that a sub-board's tree costs less than its table rows: the core's rule,
  ``cpcore/choice.hpp``).

Tallies (:func:`tally_one_word`): the slack items are bits of the piece word too, and the
counts are split by the options that cover the tally items (``tally.py``'s layout, read as
:class:`~.tally.OneTallies`). The layout it reads, :class:`~.cover.OneWord`, is made by
:func:`~.cover.one_word_layout` (both importable from here as well).

The search is the compiled core's (``cpmodels/_core/src/one_word.cpp``: one walk for the
count and the tally, what a node adds up its policy; the one-word helpers in
``cpcore/one_word.hpp``, shared with the reach search); these functions hand it the layout's
arrays and run it with the GIL released, so several threads count at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cpmodels._native as _native
from cpmodels.backends.engine.kernels.memo import Table
from cpmodels.backends.engine.layouts.cover import OneWord as OneWord  # the layout it reads
from cpmodels.backends.engine.layouts.cover import one_word_layout as one_word_layout
from cpmodels.backends.engine.layouts.tally import OneTallies

if TYPE_CHECKING:
    import numpy as np


def count_one_word(prefixes: np.ndarray | memoryview, L: OneWord, table: Table,
                   use_memo: bool, out: np.ndarray | memoryview,
                   stop: np.ndarray | memoryview) -> None:
    """``out[p]``: the completions of row ``p`` of ``prefixes`` (option ids forced first;
    -1 pads), 0 when they overlap; rows a stop (``stop[0]`` set) left uncounted are -1 (the
    core's search, run with the GIL released)."""
    _native.count_one_word(_rows(prefixes), L, table, bool(use_memo), out, stop)


def split_one_word(task: np.ndarray | memoryview, L: OneWord) -> list[int] | None:
    """The options of the count's next branching step below ``task`` (option ids forced):
    those anchored at the first empty cell it leaves whose cells and piece are free, in
    ascending order (the general layout's step, without the cover's compilation); None
    when the task fills the board (the general layout's step: a piece left out)."""
    found: list[int] | None = _native.split_one_word(_rows(task), L)
    return found


def tally_one_word(prefixes: np.ndarray, L: OneWord, T: OneTallies, table: Table,
                   use_memo: bool, out: np.ndarray, out_mask: np.ndarray,
                   stop: np.ndarray) -> None:
    """The one-word tallies: row ``p`` of ``prefixes`` (option ids forced first; -1 pads)
    tallied into ``out[p]`` (zeros when they overlap), its uncovered tally items in
    ``out_mask[p]``; a stop (``stop[0]`` set) leaves the rows from the one it met
    uncounted (the core's search, run with the GIL released)."""
    _native.tally_one_word(_rows(prefixes), L, T, table, bool(use_memo), out, out_mask,
                           stop)


def _rows(prefixes: np.ndarray | memoryview) -> np.ndarray | memoryview:
    """The rows of forced options as the core reads them: a buffer as it is (``task_array``'s,
    int64 in C order), anything else made a C-ordered int64 array."""
    if isinstance(prefixes, memoryview):
        return prefixes
    import numpy as np

    return np.ascontiguousarray(prefixes, dtype=np.int64)
