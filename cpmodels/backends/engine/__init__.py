"""The counting engine: an exact-cover search, compiled in C++, that counts in bulk.

The searches are the compiled core's (``cpmodels/_core``: freestanding headers in
``include/cpcore/``, one skeleton per search family, over entry points in ``src/``; the
nanobind bindings in ``python/``; the module ``cpmodels._native``). This package lays the
cover out for them and asks them, in five parts:

* ``session.py``: the :class:`EngineSession`, the one door: every question is asked there;
  it keeps the turn, the stop and the time limits, and decodes the answers;
* ``searches.py``: :class:`~.searches.Searches`, which says what a cover's layouts offer,
  asks the core which search answers a question (``kernels/choice.py``), and makes that
  search's call (the layout, the table and the kernel);
* ``layouts/``: the compiled cover and its views, the arrays each search reads;
* ``kernels/``: thin wrappers that hand those arrays to the core, one module per search
  family, and the memo table they share;
* ``placement/``: where the work runs (this process, worker processes, a Dask cluster).

The data layout comes first, as the search reads it; then what the search does with it.

Items and options (``layouts/cover.py``)
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

Tallies (``layouts/tally.py``)
    A count can be split by which option covers each of up to 16 *tally items* (a sweep's
    holes). A state whose uncovered tally items are the bits of ``mask`` keeps a vector of
    ``length[mask]`` counts, one per combination of the options still open to them; when
    an option covers a tally item, its child's vector is scattered into the parent's
    through the index map ``map_flat[map_start[mask * T + t]:]``.

The table of sub-board counts (``kernels/memo.py``)
    An open-addressing hash table keyed by the whole state (``filled`` words plus the
    counter code; no hash-only matches). A plain count is stored in the table itself;
    a tally vector's nonzero run goes into an arena. ``stats`` counts slots used, hits,
    misses, nodes and arena used, holds the stop flag that ends a search from any thread,
    and counts how often a full table was emptied to make room (a long search keeps its
    recent sub-boards rather than stop storing). A table is filled only with finished
    sub-boards, so it stays true after a stop.

The search (``kernels/general.py``, over the core's ``cpcore/packing_search.hpp``, which
holds the table's lookup and store and the region flood fill too)
    Knuth's Algorithm X with a fixed branching order and an explicit stack: at each state
    branch on the first uncovered exact-one item (the classic "first empty cell") and try
    the options anchored there. The arrays come bundled as three named tuples
    (:class:`~.layouts.cover.Layout`, :class:`~.layouts.tally.Tallies`,
    :class:`~.kernels.memo.Table`). ``tally_prefixes_kernel`` counts (memoised, tallied);
    ``search_kernel`` enumerates and can pause after any number of solutions and resume,
    so solutions stream.

The word kernel (``kernels/words.py``)
    The same counting and existence searches for covers of at most 128 bits, the state held
    in two 64-bit scalars: the open item by a de Bruijn multiply, one test per option,
    regions grown by neighbour masks, the table's value in its key row. The core's choice
    takes it by itself; every other cover (and every solution stream) takes ``general.py``,
    whose branching step (``split_kernel``) cuts a task into the parts the search would try.

The one-word kernel (``kernels/one_word.py``)
    Counts on a square board whose bounding box has at most 64 cells, every piece used
    once (slack items count as pieces of one cell; a piece may have a left-out option): the
    cells one word in grid positions (scan order), the pieces used another, the
    options of each anchor and piece in a run walked by trailing zeros, one load and one
    test an option, regions grown by bit-parallel dilation. Tallies too (a sweep's, a
    design's counts): the slack items are bits of the piece word, a region may keep one
    cell of each slack item still open, and each depth's count vector is cleared only over
    the range its node added to. The core's choice takes it by itself.

The reach kernel (``kernels/reach.py``, its layout ``layouts/reach.py``)
    Which label combinations of a calendar's sweep cover have a solution, on the one-word
    layout scanned from the corner that meets last the group with the most labels: a
    search with some holes forced and the others open records the combination of each
    solution it reaches, stops once it has every one it wants, cuts a branch whose
    reachable combinations are all found, and keeps the states it searched to the end (for
    the call) and those with no completion at all (for every later call). A state with at
    most one hole open is settled: what it reaches is kept for good by its cells and
    pieces used alone, for every later search and set. A search with every hole forced is
    a first-solution search. The design's existence questions.

Solids (``kernels/links.py``, ``kernels/bit_cover.py``)
    A cover on the cube grid whose items are covered once or at most once is counted with
    the item with the fewest options left first (Knuth's Algorithm X), cut at that item
    into tasks like any other search (the session's :meth:`~EngineSession.split`) and run
    where every count runs: on bits when it has at most 128 items (each depth's live
    options a list of two-word masks, the fewest read from bit-sliced counters), else by
    dancing links. Both walk the same tree.

The session (``session.py``), the one door
    An :class:`EngineSession` is a cover compiled once with its tables: counts, tallies,
    existence, first solutions, streamed solutions, and the search cut into tasks. Every
    feature (counts, sweeps, design, difficulty's hardest dates, the web page's position
    checks) asks its questions through one; nothing outside this package imports its
    modules. The session asks its :class:`~.searches.Searches` which kernel call answers
    (the choice is the compiled core's, ``kernels/choice.py``, the one the browser asks
    too), then runs it in its turn, within its time limit and stop flag: every search,
    the solution stream's steps included.

Placement (``placement/``)
    Where work is split across processes (``scheduling.py``): units of tasks run by worker
    processes (``processes.py``) or a Dask cluster (``cluster.py``), behind one
    :func:`run_units`;
    the backend contract's :func:`count` and a sweep's :func:`tally_tasks` are built on it.

This module is the engine's side of the backend contract (``backends/TEMPLATE.py``):
:func:`solve`, :func:`iter_solutions` and :func:`count`.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from cpmodels.backends.engine.placement import CLUSTER_ENV
from cpmodels.backends.engine.placement.processes import WorkerFailed, workers_for
from cpmodels.backends.engine.placement.scheduling import (
    add_tallies,
    cluster_solutions,
    count,
    count_each,
    in_order,
    parallel_here,
    run_units,
    split_tasks,
    tally_tasks,
    tasks_stay_here,
    units_wanted,
)
from cpmodels.backends.engine.ranking import BestRanking
from cpmodels.backends.engine.session import (
    DEFAULT_MEMO_SLOTS,
    Backtracker,
    Difficulty,
    EngineSession,
    ReachDates,
    Regions,
    Tally,
    Task,
    Unit,
)
from cpmodels.backends.result import CoverResult
from cpmodels.cover import ExactCover
from cpmodels.errors import OutOfTime

if TYPE_CHECKING:
    from cpmodels.backends.engine.placement.cluster import Cluster, connect, using

NAME = "engine"
STREAMS = True  # iter_solutions hands over each solution as the search finds it

__all__ = [
    "CLUSTER_ENV", "DEFAULT_MEMO_SLOTS", "NAME", "STREAMS", "Backtracker", "BestRanking",
    "Cluster",
    "Difficulty", "EngineSession", "ReachDates", "Regions", "Tally",
    "Task", "Unit", "WorkerFailed", "add_tallies", "cluster_solutions", "connect",
    "count", "count_each",
    "in_order", "iter_solutions", "parallel_here", "run_units", "solve",
    "split_tasks", "tally_tasks", "tasks_stay_here", "units_wanted", "using", "workers_for",
]

#: The Dask side (``placement/cluster.py``), loaded when one of its names is first used:
#: a run on this machine alone never loads it.
_ON_A_CLUSTER = frozenset({"Cluster", "connect", "using"})


def __getattr__(name: str) -> Any:
    """``Cluster``, ``connect`` and ``using``, from ``placement/cluster.py`` (loaded now)."""
    if name not in _ON_A_CLUSTER:
        raise AttributeError(f"module 'cpmodels.backends.engine' has no attribute {name!r}")
    return getattr(importlib.import_module("cpmodels.backends.engine.placement.cluster"),
                   name)


def iter_solutions(cover: ExactCover, *, time_limit: float | None = None,
                   forced: Sequence[int] = (), batch: int = 1024) -> Iterator[list[int]]:
    """Stream every solution (option ids, forced ones included), in a fixed order; raises
    :class:`~cpmodels.errors.OutOfTime` when ``time_limit`` seconds pass before the last."""
    return EngineSession(cover).solutions(forced, time_limit=time_limit, batch=batch)


def solve(cover: ExactCover, *, time_limit: float | None = None,
          forced: Sequence[int] = ()) -> CoverResult:
    """The first solution, a proof by exhaustion that there is none, or "unknown" when
    ``time_limit`` seconds pass first."""
    start = time.perf_counter()
    try:
        first = EngineSession(cover).first_solution(forced, time_limit=time_limit)
    except OutOfTime:
        return CoverResult("unknown", NAME, time.perf_counter() - start)
    seconds = time.perf_counter() - start
    if first is None:
        return CoverResult("unsolvable", NAME, seconds)
    return CoverResult("solved", NAME, seconds, sorted(first))
