"""The counting engine: a compiled exact-cover search (numba) that counts in bulk.

The data layout comes first, as the search reads it; then what the search does with it.

Items and options (``layout.py``)
    An :class:`~cpmodels.cover.ExactCover` has items (board cells, pieces, slack items)
    and options (placements: the items each covers). The engine sorts items three ways:

    * *exact-one* items (a board cell, a piece used once) are bits ``0 .. n_branch - 1``,
      in the cover's order, which is the order the search branches in;
    * *secondary* items (covered at most once) are the bits after them;
    * items covered a range of times (a piece with several copies) are *counters*, whose
      values pack into one number, the *counter code* (mixed radix).

    A state of the search is the bitset ``filled`` (``n_words`` 64-bit words) plus the
    counters. Each option is ``opt_mask[o]`` (its bits), ``opt_counter[o]`` (the counter
    it adds one to, or -1) and its *tag*: its last item, the piece, as a word and a bit.
    Options are grouped by their *anchor*, their first exact-one item:
    ``anchor_opts[anchor_start[a]:anchor_start[a + 1]]`` are the options anchored at item
    ``a``, sorted by tag, and ``group_end[k]`` is where the run of options with the tag of
    option ``anchor_opts[k]`` ends, so a piece already used is skipped as a block.

    Region pruning needs the board's shape: ``cell_nb`` (the grid neighbours of each cell
    bit), ``opt_nb`` (the cells bordering each option) and ``fillable[k]`` (whether some of
    the pieces add up to ``k`` cells). An empty region of fewer than ``region_limit`` cells
    that no pieces can fill is a dead end.

Tallies (``tally.py``)
    A count can be split by which option covers each of up to 16 *tally items* (a sweep's
    holes). A state whose uncovered tally items are the bits of ``mask`` keeps a vector of
    ``length[mask]`` counts, one per combination of the options still open to them; when
    an option covers a tally item, its child's vector is scattered into the parent's
    through the index map ``map_flat[map_start[mask * T + t]:]``.

The table of sub-board counts (``memo.py``)
    An open-addressing hash table keyed by the whole state (``filled`` words plus the
    counter code; no hash-only matches). A plain count is stored in the table itself;
    a tally vector's nonzero run goes into an arena. ``stats`` counts slots used, hits,
    misses, nodes and arena used, holds the stop flag that ends a search from any thread,
    and counts how often a full table was emptied to make room (a long search keeps its
    recent sub-boards rather than stop storing). A table is filled only with finished
    sub-boards, so it stays true after a stop.

The search (``kernels.py``, which holds everything numba compiles, the table's lookup and
store and the region flood fill included)
    Knuth's Algorithm X with a fixed branching order and an explicit stack: at each state
    branch on the first uncovered exact-one item (the classic "first empty cell") and try
    the options anchored there. Every kernel takes the same steps (``_next_open``,
    ``_next_fit``, ``_place``, ``_unplace``, ``_counters_full``); the arrays come
    bundled as three named tuples (:class:`~.layout.Layout`, :class:`~.tally.Tallies`,
    :class:`~.memo.Table`). ``_tally`` counts (memoised, tallied); ``search_kernel`` enumerates
    and can pause after any number of solutions and resume, so solutions stream.

Drivers (``drivers.py``) and work (``work.py``)
    ``drivers.py`` calls the kernels from Python: counts of forced prefixes, streaming of
    solutions, the backend contract (:func:`solve`, :func:`iter_solutions`, :func:`count`).
    ``work.py`` is where work is split across processes: a :class:`~.work.CountJob` and its
    units, a :class:`~.work.Counter` that runs them, and :func:`~.work.run_units`.
"""

from cpmodels.backends.engine.drivers import (
    NAME,
    STREAMS,
    count_prefixes,
    exists,
    iter_solutions,
    solve,
    tally_prefixes,
    top_branches,
    warm_up,
)
from cpmodels.backends.engine.layout import CompiledCover, compile_cover
from cpmodels.backends.engine.memo import DEFAULT_MEMO_SLOTS, Memo, SearchStopped
from cpmodels.backends.engine.tally import TallyLayout, tally_layout
from cpmodels.backends.engine.work import count

__all__ = [
    "DEFAULT_MEMO_SLOTS", "NAME", "STREAMS", "CompiledCover", "Memo", "SearchStopped",
    "TallyLayout", "compile_cover", "count", "count_prefixes", "exists", "iter_solutions", "solve",
    "tally_layout", "tally_prefixes", "top_branches", "warm_up",
]
