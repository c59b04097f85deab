"""The compiled layout of an exact cover: bitsets, counters, anchors and board regions.

See the package's introduction for what each array means.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from cpmodels.backends.engine.regions import region_data
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
    """An exact cover laid out as arrays for the compiled search."""

    cover: ExactCover
    n_words: int
    n_branch: int  # exact-one items: bits 0 .. n_branch - 1, in branching order
    bit_of_item: np.ndarray  # item -> bit, or -1 for counter items
    counter_of_item: np.ndarray  # item -> counter, or -1
    opt_mask: np.ndarray  # [options, words] uint64
    opt_counter: np.ndarray  # [options] int64, -1 when the option touches no counter
    opt_tag_word: np.ndarray  # [options] word of the option's tag bit (-1: tag is a counter)
    opt_tag_bit: np.ndarray  # [options] uint64 mask of that bit
    anchor_start: np.ndarray  # [n_branch + 1] into anchor_opts
    anchor_opts: np.ndarray  # option ids grouped by anchor, then by tag
    group_end: np.ndarray  # [len(anchor_opts)] end of the run of options with the same tag
    counter_low: np.ndarray
    counter_high: np.ndarray
    radix: np.ndarray  # counter state code = sum(counter * radix)
    memo_ok: bool
    cell_nb: np.ndarray  # [n_branch, degree] neighbouring board-cell bits, -1 padded
    opt_nb_start: np.ndarray  # [options + 1] into opt_nb
    opt_nb: np.ndarray  # board-cell bits next to each option (outside it)
    fillable: np.ndarray  # fillable[k]: k cells can be filled by some of the pieces
    region_limit: int  # regions of fewer cells than this are checked (0: no pruning)


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
    (as in Knuth's formulation, every option needs a primary item).
    """
    items = cover.items
    exact = [i for i, it in enumerate(items) if it.low == it.high == 1]
    order = exact
    secondary = [i for i, it in enumerate(items) if it.low == 0 and it.high == 1]
    counters = [i for i, it in enumerate(items)
                if not (it.low == it.high == 1) and not (it.low == 0 and it.high == 1)]
    n_branch = len(order)
    n_bits = n_branch + len(secondary)
    n_words = max(1, (n_bits + 63) // 64)
    bit_of_item = np.full(len(items), -1, dtype=np.int64)
    for bit, i in enumerate(order + secondary):
        bit_of_item[i] = bit
    counter_of_item = np.full(len(items), -1, dtype=np.int64)
    for c, i in enumerate(counters):
        counter_of_item[i] = c

    n_opts = len(cover.options)
    if n_opts * n_words * 8 > MAX_MASK_BYTES:
        raise TooLargeError(
            f"the problem is too large for the counting engine: {n_opts:,} options x "
            f"{n_bits:,} items need {n_opts * n_words * 8 / 2**30:.1f} GB of bitsets; the "
            f"limit is {MAX_MASK_BYTES / 2**30:.0f} GB. Try --backend cpsat or sat")
    opt_mask = np.zeros((n_opts, n_words), dtype=np.uint64)
    opt_counter = np.full(n_opts, -1, dtype=np.int64)
    opt_tag_word = np.full(n_opts, -1, dtype=np.int64)
    opt_tag_bit = np.zeros(n_opts, dtype=np.uint64)
    anchors: list[list[tuple[int, int]]] = [[] for _ in range(n_branch)]
    bit_list, counter_list = bit_of_item.tolist(), counter_of_item.tolist()
    masks = []  # each option's bits as one integer
    for j, option in enumerate(cover.options):
        bits = [bit_list[i] for i in option if bit_list[i] >= 0]
        masks.append(sum(1 << b for b in bits))
        option_counters = [counter_list[i] for i in option if counter_list[i] >= 0]
        if len(option_counters) > 1:
            raise ValueError("an option may cover at most one multiplicity item")
        if option_counters:
            opt_counter[j] = option_counters[0]
        branch_bits = [b for b in bits if b < n_branch]
        if not branch_bits:
            continue
        # The tag is the option's last item: the piece, in a packing cover.
        tag = option[-1]
        if bit_of_item[tag] >= 0:
            b = int(bit_of_item[tag])
            opt_tag_word[j] = b >> 6
            opt_tag_bit[j] = np.uint64(1) << np.uint64(b & 63)
        anchors[min(branch_bits)].append((tag, j))
    for w in range(n_words):
        opt_mask[:, w] = np.array([(m >> (64 * w)) & 0xFFFFFFFFFFFFFFFF for m in masks],
                                  dtype=np.uint64)

    anchor_start = np.zeros(n_branch + 1, dtype=np.int64)
    flat: list[int] = []
    group_end: list[int] = []
    for a, entries in enumerate(anchors):
        anchor_start[a] = len(flat)
        entries.sort()
        start = len(flat)
        flat += [j for _, j in entries]
        tags = [t for t, _ in entries]
        ends = [0] * len(entries)
        run_end = len(entries)
        for k in range(len(entries) - 1, -1, -1):
            if k == len(entries) - 1 or tags[k] != tags[k + 1]:
                run_end = k + 1
            ends[k] = start + run_end
        group_end += ends
    anchor_start[n_branch] = len(flat)

    cell_nb, opt_nb_start, opt_nb, fillable, region_limit = region_data(
        cover, bit_of_item, n_branch)
    low = np.array([items[i].low for i in counters], dtype=np.int64)
    high = np.array([items[i].high for i in counters], dtype=np.int64)
    radix = np.ones(len(counters), dtype=np.uint64)
    states = 1
    for c in range(len(counters)):
        radix[c] = np.uint64(states)
        states *= int(high[c]) + 1
    return CompiledCover(
        cover, n_words, n_branch, bit_of_item, counter_of_item, opt_mask, opt_counter,
        opt_tag_word, opt_tag_bit, anchor_start, np.array(flat, dtype=np.int64),
        np.array(group_end, dtype=np.int64), low, high, radix, states < 2**63,
        cell_nb, opt_nb_start, opt_nb, fillable, region_limit,
    )
