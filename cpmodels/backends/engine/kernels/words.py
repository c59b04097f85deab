"""The word-sized searches: covers whose bits fit in one or two 64-bit words.

Every calendar board, the pentomino boxes and the small solids have at most 128 items that
are covered exactly once or at most once, so their whole state is two machine words (plus
the counter code, for pieces with several copies). This kernel walks the same tree as the
general one in ``general.py`` (first uncovered exact-one item, options anchored there,
exact memoisation, region pruning, tallies) with that state held in two scalars:

* the next item to branch on is the lowest zero bit of the state (every bit below the
  current item is covered), found by one count of trailing zeros;
* an option fits when ``(a & opt_a[o]) | (b & opt_b[o])`` is zero, one test per option;
* a region next to a placed option grows by whole neighbour masks (each cell's neighbours
  as two words, ``nb_a``/``nb_b``), counted with a population count;
* the table's rows are the two words, the counter code and the value side by side (one
  cache line a probe; the table is made with one more column for it, see
  :func:`table_words`).

The search is the compiled core's two-word state (``cpcore/packing_search.hpp``, the same
skeleton as ``general.py``'s); this module lays the cover out for it.
"""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING

import cpmodels._native as _native
from cpmodels.backends.engine.kernels.general import _rows

if TYPE_CHECKING:
    import numpy as np

#: What the word kernel reads of a compiled cover (see :func:`word_layout`).
WordLayout = namedtuple("WordLayout", [
    "opt_a", "opt_b", "opt_counter", "tag_a", "tag_b", "anchor_start", "anchor_opts",
    "group_end", "counter_low", "counter_high", "radix", "n_branch", "memo_ok", "nb_a", "nb_b",
    "opt_nb_start", "opt_nb", "fillable", "region_limit", "n_words", "k_a", "k_b", "k_tag_a",
    "k_tag_b", "k_counter", "branch_a", "branch_b", "memo_below"])

MAX_WORD_BITS = 128  # the bits the word kernel holds
MEMO_BELOW = 1000  # states with fewer uncovered exact-one items than this are kept


def word_layout(cc: object) -> WordLayout | None:
    """The word kernel's view of a compiled cover, or None when its bits do not fit."""
    import numpy as np

    n_words = cc.n_words  # type: ignore[attr-defined]
    if n_words > 2:
        return None
    cc = cc.numpy()  # type: ignore[attr-defined]
    mask = cc.opt_mask  # type: ignore[attr-defined]
    opt_a = np.ascontiguousarray(mask[:, 0])
    opt_b = (np.ascontiguousarray(mask[:, 1]) if n_words == 2
             else np.zeros(len(opt_a), dtype=np.uint64))
    tag_word, tag_bit = cc.opt_tag_word, cc.opt_tag_bit  # type: ignore[attr-defined]
    tag_a = np.where(tag_word == 0, tag_bit, np.uint64(0)).astype(np.uint64)
    tag_b = np.where(tag_word == 1, tag_bit, np.uint64(0)).astype(np.uint64)
    cell_nb = cc.cell_nb  # type: ignore[attr-defined]
    n_branch = cc.n_branch  # type: ignore[attr-defined]
    nb_a = np.zeros(max(n_branch, 1), dtype=np.uint64)
    nb_b = np.zeros(max(n_branch, 1), dtype=np.uint64)
    for x in range(min(n_branch, cell_nb.shape[0])):
        for y in cell_nb[x]:
            if y < 0:
                continue
            if y < 64:
                nb_a[x] |= np.uint64(1) << np.uint64(y)
            else:
                nb_b[x] |= np.uint64(1) << np.uint64(y - 64)
    flat = cc.anchor_opts  # type: ignore[attr-defined]
    branch = [min(n_branch, 64), max(0, n_branch - 64)]
    full = [np.uint64((1 << n) - 1) if n < 64 else ~np.uint64(0) for n in branch]
    return WordLayout(
        opt_a, opt_b, cc.opt_counter, tag_a, tag_b,  # type: ignore[attr-defined]
        cc.anchor_start, flat, cc.group_end,  # type: ignore[attr-defined]
        cc.counter_low, cc.counter_high, cc.radix, n_branch,  # type: ignore[attr-defined]
        cc.memo_ok, nb_a, nb_b, cc.opt_nb_start, cc.opt_nb,  # type: ignore[attr-defined]
        cc.fillable, cc.region_limit, n_words,  # type: ignore[attr-defined]
        opt_a[flat].copy(), opt_b[flat].copy(), tag_a[flat].copy(), tag_b[flat].copy(),
        cc.opt_counter[flat].copy(), full[0], full[1], MEMO_BELOW)  # type: ignore[attr-defined]


def table_words(n_words: int) -> int:
    """The width a table for the word kernel is made with (``Memo(n_words=...)``): one more
    column than the state's words, so each key row also holds its value."""
    return n_words + 1


# --- the compiled core's searches (cpcore/packing_search.hpp, the two-word state) -------


def tally_prefixes_words(prefixes: np.ndarray, W: WordLayout, tal: tuple, table: tuple,
                         out: np.ndarray, out_mask: np.ndarray, stop: np.ndarray) -> None:
    """:func:`~.kernels.tally_prefixes_kernel` on the two-word state: row ``p`` of
    ``prefixes`` (option ids forced first; -1 pads) tallied into ``out[p]``, its uncovered
    tally items in ``out_mask[p]`` (``table`` made :func:`table_words` wide)."""
    _native.tally_prefixes_two_words(_rows(prefixes), W, tal, table, out, out_mask, stop)


def exists_words(prefixes: np.ndarray, W: WordLayout, table: tuple, use_table: bool,
                 out: np.ndarray, first_failure: bool, stop: np.ndarray) -> None:
    """:func:`~.kernels.exists_kernel` on the two-word state: ``out[p]`` is 1 when some
    solution contains the options of row ``p`` (-1 pads), else 0; with ``first_failure``,
    the rows after the first 0 are not searched, nor those after a stop."""
    _native.exists_two_words(_rows(prefixes), W, table, bool(use_table), out,
                             bool(first_failure), stop)
