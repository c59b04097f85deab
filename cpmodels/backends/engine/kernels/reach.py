"""The reach search: which label combinations of a calendar have a solution, in one search.

A calendar compiled as a sweep compiles it (``sweep.py``: one slack item per label group,
one slack option per label, the hole) has a solution for every combination of holes it
can leave open. Where the per-date search forces each combination's holes and looks for a
first solution, one date after another, this search forces some holes (a task's) and
leaves the other groups' open, walking the board once for all their combinations, on the
one-word layout (``one_word.py``: cells in one word, pieces and slack items in another;
pieces left out are forced options), and:

* records the combination of each solution it reaches (the holes placed) and stops as soon
  as every wanted combination is found;
* prunes a branch whose reachable combinations are all found already: a group whose hole is
  placed reaches that label, an open group each of its labels still uncovered;
* keeps the states it searched to the end (cells, units used, holes): everything reachable
  from such a state was found then, so meeting it again ends the branch. The states of
  different forced prefixes (a design's sets: pieces left out) never mix;
* *settles* a state with at most one group's hole still open: what it reaches is then the
  labels of that group whose hole some completion leaves (or, none open, whether it has a
  completion), whatever holes were placed on the way, so it is kept for good by (cells,
  units used) alone in a second table, and holds for every later search: of another
  task, month or set (a piece left out is a unit used). A search asks only for the labels
  still wanted, and an entry grows as later searches ask for more (:func:`_settle`);
* prunes regions as the one-word kernel does, a region counting the holes it may take: an
  isolated cell that no open group's hole may fill, two isolated cells of one group, or a
  region next to the option just placed whose size no pieces plus the holes of the open
  groups touching it add up to.

The layout and the wanted combinations are ``layouts/reach.py``'s. The search is the compiled
core's (``cpmodels/_core/src/reach.cpp``, on the one-word helpers of
``cpcore/one_word.hpp``); :func:`reach_kernel` hands it the arrays and runs it with the GIL
released.

The table of states searched to the end holds, for a state, what it reaches *of the
combinations wanted then*: its entry holds only for the call that made it. Each call marks
its entries with a number of its own, and an entry with another mark is an empty slot, so no
call has to empty the table. A state whose subtree held no solution at all, and none of
whose branches was cut for having nothing left to find, has no completion: it is marked
dead (mark 1), which holds for every later call. A settled state's entry holds the labels
found reachable and the labels decided.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cpmodels._native as _native
from cpmodels.backends.engine.kernels.memo import Table
from cpmodels.backends.engine.layouts.reach import ReachDates, ReachLayout, ReachRegions

if TYPE_CHECKING:
    import numpy as np


def reach_kernel(forced: np.ndarray, tasks: np.ndarray, wanted_start: np.ndarray,
                 L: ReachLayout, R: ReachRegions, table: Table, settled: Table,
                 mark: int, index: np.ndarray, bit: np.ndarray, found: np.ndarray,
                 first_failure: bool, stop: np.ndarray) -> None:
    """One reach search per task: row ``t`` of ``tasks`` (options forced besides ``forced``;
    -1 pads) wants the combinations ``wanted_start[t]`` to ``wanted_start[t + 1]`` of
    ``index``/``bit`` (see :func:`~.reach.reach_dates`). ``found[n]``: 1 when some
    solution holds wanted combination ``n``, 0 when none does, -1 when not searched: with
    ``first_failure``, the tasks after the first with a combination not found, or after a
    stop (``stop[0]`` set). Task ``t`` marks its table entries ``mark + t`` (the core's
    search, run with the GIL released)."""
    import numpy as np

    def ints(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a, dtype=np.int64)
    _native.reach(ints(forced), ints(tasks), ints(wanted_start), L, R, table, settled,
                  int(mark), ints(index), np.ascontiguousarray(bit, dtype=np.uint64), found,
                  bool(first_failure), stop)


def design_kernel(L: ReachLayout, fills: np.ndarray, limits: np.ndarray, table: Table,
                  settled: Table, calls: np.ndarray, dates: ReachDates, order: np.ndarray,
                  front: np.ndarray, late: np.ndarray, forced: np.ndarray,
                  shape: np.ndarray, learning: bool, failure: np.ndarray,
                  decided: np.ndarray, stop: np.ndarray) -> None:
    """A design's sets decided date by date (the core's ``cpcore_design``, with the GIL
    released): ``failure[s]`` is the first date in ``order`` that set ``s`` (row ``s`` of
    ``forced``: its options left out; ``shape[s]``: its row of ``fills`` and ``limits``)
    cannot be solved on, ``len(order)`` when it solves them all. The dates of ``front``
    are searched alone, then the (at most eight) dates past it that ``late`` counts most
    often as a first failure (each call counts them), the others by groups; with
    ``learning``, a set's failure moves its
    date to the front of ``order`` and into ``front``. ``calls`` marks the reach search's
    table entries as :func:`reach_kernel`'s ``mark`` does; ``decided[0]`` counts the sets
    decided as they are."""
    _native.design(L, fills, limits, table, settled, calls, dates.holes, dates.held,
                   dates.group, dates.index, dates.bit, order, front, late, forced, shape,
                   bool(learning), failure, decided, stop)
