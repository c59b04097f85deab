"""Tallies: counts split by the options that cover a few chosen items (a sweep's holes).

See the package's introduction for the layout of a state's count vector.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from dataclasses import dataclass

import cpmodels._native as _native
from cpmodels.backends.engine.layouts.buffers import of, zeros
from cpmodels.backends.engine.layouts.cover import CompiledCover, refuse_layout
from cpmodels.backends.engine.layouts.described import layout_buffers, struct_of, structs
from cpmodels.cover import ExactCover

NOT_EXACT_ONE = 8  # the core's refusal of a tally item (CPCORE_LAYOUT_NOT_EXACT_ONE)

#: What the search kernels read of a tally layout, bundled as one argument.
Tallies = namedtuple("Tallies", [
    "n_tally", "bit", "last_anchor", "opt_tally", "opt_index", "length", "stride",
    "map_start", "map_flat"])


@dataclass
class TallyLayout:
    """How counts split by the option chosen for each *tally item*.

    A tally item is an exact-one item whose covering option is recorded: counting then returns
    one count per combination of those options (for a sweep, one per label combination).
    A state in which the tally items of ``mask`` are still uncovered keeps a vector of
    ``length[mask]`` counts, tally item 0 varying slowest.
    """

    items: list[int]  # the tally items (cover item indices), in layout order
    options: list[list[int]]  # per tally item, the option ids that cover it, in index order
    bit: memoryview  # [T] the item's bit
    last_anchor: memoryview  # [T] the last branching position any of its options is tried at
    opt_tally: memoryview  # [options] tally item covered by the option, or -1
    opt_index: memoryview  # [options] the option's index among that item's options
    length: memoryview  # [2**T] vector length of a state whose uncovered tally items are mask
    stride: memoryview  # [2**T, T] stride of each uncovered tally item in that layout
    map_start: memoryview  # [2**T * T + 1] child-to-parent index maps, by (mask, item)
    map_flat: memoryview

    @property
    def kernel(self) -> Tallies:
        """The arrays the search kernels read, as one argument."""
        return Tallies(len(self.items), self.bit, self.last_anchor, self.opt_tally,
                       self.opt_index, self.length, self.stride, self.map_start, self.map_flat)


def tally_layout(cc: CompiledCover, items: Sequence[int]) -> TallyLayout:
    """The layout of counts split by the options covering ``items`` (exact-one items), made
    by the compiled core (``cpcore/cover_layout.hpp``) in arrays of the sizes it measures
    (buffers of the standard library, ``layouts/buffers.py``: a sweep loads no numpy)."""
    chosen = of([int(i) for i in items])
    compiled = {"bit_of_item": cc.bit_of_item, "anchor_start": cc.anchor_start,
                "anchor_opts": cc.anchor_opts}
    described = structs()
    sizes = struct_of("cpcore_tally_sizes", _native.tally_layout_sizes(cc.arrays, compiled, chosen),
                      described)
    if sizes["error"] == NOT_EXACT_ONE:
        name = cc.cover.items[int(chosen[sizes["bad_item"]])].name
        raise ValueError(f"tally item {name} is not an exact-one item")
    refuse_layout(sizes["error"])
    out = layout_buffers("cpcore_tally_layout", {**sizes, "n_options": len(cc.cover.options),
                                                "n_tally": len(chosen)}, described)
    filled = _native.tally_layout_fill(cc.arrays, compiled, chosen, out)
    refuse_layout(struct_of("cpcore_tally_sizes", filled, described)["error"])
    at = out["covering_start"].tolist()
    covering = out["covering"].tolist()
    return TallyLayout(chosen.tolist(), [covering[at[t]:at[t + 1]] for t in range(len(chosen))],
                       out["bit"], out["last_anchor"], out["opt_tally"], out["opt_index"],
                       out["length"], out["stride"], out["map_start"], out["map_flat"])


#: What the one-word tally kernel reads of a tally layout (see :func:`one_word_tallies`):
#: ``bit[t]``, the piece-word bit of tally item ``t``; the rest as in :class:`Tallies`.
OneTallies = namedtuple("OneTallies", [
    "n_tally", "bit", "opt_tally", "opt_index", "length", "stride", "map_start", "map_flat"])


def one_word_tallies(cover: ExactCover, items: Sequence[int], tallies: Tallies | None,
                     optional: int = 0) -> OneTallies | None:
    """The one-word tally kernel's view of the tally layout ``tallies`` of ``items`` (no
    items: plain counts, ``tallies`` unused), or None when the core says the kernel cannot
    tally them: a tally item is a cell (the kernel reads the tally items in the piece word)
    or a piece of ``optional`` (the one-word layout's pieces that may be left out). The core
    gives the items' bits (``cpcore/one_word_layout.hpp``)."""
    if not items or tallies is None:  # buffers (layouts/buffers.py): a count loads no numpy
        none = of([-1] * len(cover.options))
        return OneTallies(0, zeros(1, "Q"), none, none, of([1]), zeros((1, 1)), zeros(2),
                          zeros(1))
    kinds = of([int(it.kind) for it in cover.items])
    bits = zeros(len(items), "Q")
    status = _native.one_word_tally_bits(kinds, of([int(i) for i in items]), int(optional),
                                         bits)
    if status < 0:
        refuse_layout(-status)
    if not status:
        return None
    return OneTallies(len(items), bits, tallies.opt_tally, tallies.opt_index, tallies.length,
                      tallies.stride, tallies.map_start, tallies.map_flat)
