"""The compiled layout of an exact cover: bitsets, counters, anchors and board regions;
and the one-word kernel's layout (:func:`one_word_layout`), read from the cover itself.

See the package's introduction for what each array means.
"""

from __future__ import annotations

from array import array
from collections import namedtuple
from dataclasses import dataclass, fields, replace
from itertools import chain
from typing import Any

import cpmodels._native as _native
from cpmodels.backends.engine.layouts.buffers import of
from cpmodels.backends.engine.layouts.described import layout_buffers, struct_of, structs
from cpmodels.backends.engine.layouts.flat import cover_arrays
from cpmodels.cover import ExactCover
from cpmodels.errors import TooLargeError

MAX_MASK_BYTES = 4 << 30  # option bitsets: options x words x 8 bytes

#: What the search kernels read of a compiled cover, bundled as one argument (the fields
#: of :class:`CompiledCover` of the same names).
Layout = namedtuple("Layout", [
    "opt_mask", "opt_counter", "opt_tag_word", "opt_tag_bit", "anchor_start", "anchor_opts",
    "group_end", "counter_low", "counter_high", "radix", "n_branch", "memo_ok", "cell_nb",
    "opt_nb_start", "opt_nb", "fillable", "region_limit"])


@dataclass
class CompiledCover:
    """An exact cover laid out as arrays for the compiled search (buffers of the standard
    library, ``layouts/buffers.py``; :meth:`numpy` views them as numpy's arrays)."""

    cover: ExactCover
    n_words: int
    n_branch: int  # exact-one items: bits 0 .. n_branch - 1, in branching order
    bit_of_item: memoryview  # item -> bit, or -1 for counter items
    counter_of_item: memoryview  # item -> counter, or -1
    opt_mask: memoryview  # [options, words] uint64
    opt_counter: memoryview  # [options] int64, -1 when the option touches no counter
    opt_tag_word: memoryview  # [options] word of the option's tag bit (-1: tag is a counter)
    opt_tag_bit: memoryview  # [options] uint64 mask of that bit
    anchor_start: memoryview  # [n_branch + 1] into anchor_opts
    anchor_opts: memoryview  # option ids grouped by anchor, then by tag
    group_end: memoryview  # [len(anchor_opts)] end of the run of options with the same tag
    counter_low: memoryview
    counter_high: memoryview
    radix: memoryview  # counter state code = sum(counter * radix)
    memo_ok: bool
    cell_nb: memoryview  # [n_branch, degree] neighbouring board-cell bits, -1 padded
    opt_nb_start: memoryview  # [options + 1] into opt_nb
    opt_nb: memoryview  # board-cell bits next to each option (outside it)
    fillable: memoryview  # fillable[k]: k cells can be filled by some of the pieces
    region_limit: int  # regions of fewer cells than this are checked (0: no pruning)
    arrays: dict[str, memoryview]  # the cover as the core reads it (layouts/flat.py)


    def numpy(self) -> CompiledCover:
        """The same layout, its arrays viewed as numpy's (no copy), for the code that
        computes on them."""
        import numpy as np

        views: dict[str, Any] = {f.name: np.asarray(getattr(self, f.name))
                                 for f in fields(self)
                                 if isinstance(getattr(self, f.name), memoryview)}
        return replace(self, **views)

    @property
    def kernel(self) -> Layout:
        """The arrays the search kernels read, as one argument."""
        return Layout(self.opt_mask, self.opt_counter, self.opt_tag_word, self.opt_tag_bit,
                      self.anchor_start, self.anchor_opts, self.group_end, self.counter_low,
                      self.counter_high, self.radix, self.n_branch, self.memo_ok,
                      self.cell_nb, self.opt_nb_start, self.opt_nb, self.fillable,
                      self.region_limit)


def compile_cover(cover: ExactCover) -> CompiledCover:
    """Lay out ``cover`` for the engine (branching follows the order of the exact-one items).

    Options that touch no exact-one item can never be chosen by Algorithm X and are dropped
    (as in Knuth's formulation, every option needs a primary item). The compiled core makes
    the layout (``cpcore/cover_layout.hpp``) in arrays of the sizes it measures first,
    buffers of the standard library (``layouts/buffers.py``: a count or a solution stream
    loads no numpy; :meth:`CompiledCover.numpy` views them as numpy's arrays).
    """
    arrays = cover_arrays(cover)
    described = structs()
    sizes = struct_of("cpcore_cover_sizes", _native.cover_layout_sizes(arrays), described)
    n_opts, n_words = len(cover.options), sizes["n_words"]
    if n_opts * n_words * 8 > MAX_MASK_BYTES:
        raise TooLargeError(
            f"the problem is too large for the counting engine: {n_opts:,} options x "
            f"{sizes['n_bits']:,} items need {n_opts * n_words * 8 / 2**30:.1f} GB of bitsets; "
            f"the limit is {MAX_MASK_BYTES / 2**30:.0f} GB. Try --backend cpsat or sat")
    refuse_layout(sizes["error"])
    n_branch = sizes["n_branch"]
    out = layout_buffers("cpcore_cover_layout",
                         {**sizes, "n_items": len(cover.items), "n_options": n_opts}, described)
    filled = struct_of("cpcore_cover_sizes", _native.cover_layout_fill(arrays, out), described)
    refuse_layout(filled["error"])
    return CompiledCover(
        cover, n_words, n_branch, out["bit_of_item"], out["counter_of_item"],
        out["opt_mask"], out["opt_counter"], out["opt_tag_word"], out["opt_tag_bit"],
        out["anchor_start"], out["anchor_opts"], out["group_end"], out["counter_low"],
        out["counter_high"], out["radix"], bool(filled["memo_ok"]), out["cell_nb"],
        out["opt_nb_start"], out["opt_nb"], out["fillable"], int(filled["region_limit"]),
        arrays)


def refuse_layout(error: int) -> None:
    """Raise the core's refusal ``error`` (``CPCORE_LAYOUT_*``; 0: none) as a ValueError
    in the core's words."""
    if error:
        raise ValueError(_native.layout_error(error))


# --- the one-word kernel's layout (``one_word.py``), read from the cover itself ---------

#: What the one-word kernel reads (see :func:`one_word_layout`).
OneWord = namedtuple("OneWord", [
    "start", "masks", "opts", "avail", "n_pieces", "all_pieces", "opt_cells", "opt_piece",
    "covered", "inner", "first", "last", "fillable", "region_limit", "isolated_dead",
    "slack", "optional", "slack_cells", "areas"])
OneWord.__doc__ = """The one-word kernel's view of an exact cover (:func:`one_word_layout`).

The *cell word* holds bit ``slow * inner + fast`` for each board cell (a state's covered
cells); the *piece word* one bit for each other item, in the cover's item order: the pieces
and the slack items (a state's items covered so far). Options are numbered as in the cover.

* ``opt_cells[o]``, ``opt_piece[o]``: option ``o``'s cells and its one piece-word bit (a
  left-out option has no cells);
* ``masks[start[x * n_pieces + p]:start[x * n_pieces + p + 1]]``: the cell masks of the
  options anchored at cell bit ``x`` (their lowest cell) that cover piece-word bit ``p``,
  and ``opts[...]`` over the same run their option ids; ``avail[x]``: the piece-word bits
  that have options anchored at ``x`` (a left-out option is in no run: it is never branched
  on, only forced);
* ``n_pieces``: the bits of the piece word; ``all_pieces``: all of them;
  ``slack``: those that are slack items (their options are one cell each);
  ``optional``: the pieces that have a left-out option (a state whose cells are all
  covered is a solution when ``used | optional == all_pieces``: each piece not placed is
  then left out, one way, as the general kernels branch on it last);
* ``covered``: the bits of the cell word that are no board cell (covered from the start);
  ``slack_cells[p]`` for a slack bit ``p``: the cells its slack options cover;
* ``inner``: the length of a line of the grid in the cell word; ``first`` and ``last``:
  the bits at the start and the end of each line (for the neighbours of a cell);
* ``fillable[k]``: whether some pieces add up to ``k`` cells (a slack item is a piece of one
  cell), ``region_limit``: regions smaller than this are checked (0: none);
  ``isolated_dead``: a single empty cell is a dead end (no piece of one cell);
  ``areas[p]``: the cells of each option of piece-word bit ``p`` (a slack item's: 1; a
  piece that has only its left-out option: 0).
"""

def one_word_input(cover: ExactCover) -> tuple[dict, memoryview, memoryview,
                                                memoryview] | None:
    """What the core's one-word layout reads of ``cover`` (its arrays, the cells'
    coordinates, the items' and the options' kinds, as buffers: ``layouts/buffers.py``), or
    None off the square grid."""
    if cover.grid != "square" or any(it.cell is not None and len(it.cell) != 2
                                     for it in cover.items):
        return None
    cells: dict = {}
    for it in cover.items:
        if it.cell is not None:
            cells.setdefault(it.cell, len(cells))
    cell_xy = of(array("q", chain.from_iterable(cells)), shape=(len(cells), 2))
    item_kind = of(array("q", [it.kind for it in cover.items]))
    typed = len(cover.placements) == len(cover.options)
    option_kind = of(array("q", [p.kind for p in cover.placements]) if typed else ())
    return cover_arrays(cover), cell_xy, item_kind, option_kind


def one_word_layout(cover: ExactCover, flips: int = 0) -> OneWord | None:
    """The one-word kernel's view of an exact cover (read from the cover itself: no
    compiled layout needed), or None when it does not suit. Its cells are numbered line by
    line along the board's shorter side (the order a "first empty cell" search fills them),
    from the corner ``flips`` names: bit 0 reverses the lines, bit 1 each line. It suits a
    square grid of at
    most 64 cells in its bounding box whose other items (pieces and slack items, at most 64)
    are covered exactly once, each option one of (by the items' :class:`ItemKind`, checked
    against the placement's :class:`OptionKind` when the cover has placements):

    * a piece put on the board: some cells and one piece item (the same number of cells for
      each option of a piece);
    * a slack option: one cell and one slack item;
    * a left-out option: one piece item and no cell (at most one a piece).

    The compiled core makes the layout (``cpcore/one_word_layout.hpp``) in arrays of the
    sizes it measures first; it answers whether the kernel suits. Its arrays are buffers of
    the standard library (``layouts/buffers.py``: a count loads no numpy), its words
    whole numbers.
    """
    given = one_word_input(cover)
    if given is None:
        return None
    arrays, cell_xy, item_kind, option_kind = given
    described = structs()
    sizes = struct_of("cpcore_one_word_sizes", _native.one_word_layout_sizes(
        arrays, cell_xy, item_kind, option_kind, flips), described)
    refuse_layout(sizes["error"])
    if not sizes["suits"]:
        return None
    out = layout_buffers("cpcore_one_word_layout",
                         {**sizes, "n_options": len(cover.options)}, described)
    got = struct_of("cpcore_one_word_sizes", _native.one_word_layout_fill(
        arrays, cell_xy, item_kind, option_kind, flips, out), described)
    refuse_layout(got["error"])
    return OneWord(out["start"], out["masks"], out["opts"], out["avail"], sizes["n_pieces"],
                   got["all_pieces"], out["opt_cells"], out["opt_piece"], got["covered"],
                   got["inner"], got["first"], got["last"], out["fillable"],
                   int(got["region_limit"]), bool(got["isolated_dead"]), got["slack"],
                   got["optional"], out["slack_cells"], out["areas"])
