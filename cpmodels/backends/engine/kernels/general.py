"""The packing searches: counting and tallying, existence, and the solution stream.

The searches are the compiled core's (``cpcore/packing_search.hpp``, one skeleton over the
state: the N-word state here, the two-word state in ``words.py``; their memo table is
``cpcore/table.hpp``). Each walks the tree of the package's introduction: the first
uncovered exact-one item, the options anchored there (a used-up piece's options skipped
as a run), region pruning and the table of sub-board counts. These functions hand the
core the arrays of three named tuples: ``lay`` (a :class:`~.cover.Layout`), ``tal`` (a
:class:`~.tally.Tallies`) and ``table`` (a :class:`~.memo.Table`, whose statistics the
searches write by ``memo.py``'s names); the core releases the GIL while it searches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cpmodels._native as _native

if TYPE_CHECKING:
    import numpy as np


def tally_prefixes_kernel(prefixes: np.ndarray, lay: tuple, tal: tuple, table: tuple,
                          out: np.ndarray, out_mask: np.ndarray, stop: np.ndarray) -> None:
    """Tally the completions of each row of ``prefixes`` (option ids forced first; -1
    pads): row ``p``'s counts go to ``out[p]``, its uncovered tally items to
    ``out_mask[p]``. ``lay`` is a :class:`~.cover.Layout`, ``tal`` a
    :class:`~.tally.Tallies`, ``table`` a :class:`~.memo.Table` (its statistics updated).
    The rows from the one where ``stop[0]`` is seen set are left as they were."""
    _native.tally_prefixes_n_words(_rows(prefixes), lay, tal, table, out, out_mask, stop)


def exists_kernel(prefixes: np.ndarray, lay: tuple, table: tuple, use_table: bool,
                  out: np.ndarray, first_failure: bool, stop: np.ndarray) -> None:
    """For each row of ``prefixes`` (option ids forced first; -1 pads), whether some
    solution contains them: ``out[p]`` is 1 or 0. With ``use_table``, the states found
    dead are kept in ``table`` and carry over to later rows and calls. With
    ``first_failure``, rows after the first 0 are left as they were (not searched); so
    are the rows after ``stop[0]`` is set."""
    _native.exists_n_words(_rows(prefixes), lay, table, bool(use_table), out,
                           bool(first_failure), stop)


def search_kernel(state: np.ndarray, filled: np.ndarray, counters: np.ndarray,
                  chosen: np.ndarray, stack_pos: np.ndarray, stack_k: np.ndarray, lay: tuple,
                  out: np.ndarray, max_out: int, stop: np.ndarray) -> None:
    """Resumable depth-first search; writes up to ``max_out`` solutions (option ids, -1
    after the last) to ``out``. ``state[0]`` is the depth (-1 before the start, -2 when
    finished), ``state[1]`` the solutions this call wrote; the arrays keep the search
    between calls. It returns at its next node once ``stop[0]`` is set, and can be resumed
    after."""
    _native.search_n_words(state, filled, counters, chosen, stack_pos, stack_k, lay, out,
                           int(max_out), stop)


def force_kernel(lay: tuple, task: np.ndarray, filled: np.ndarray,
                 counters: np.ndarray) -> bool:
    """Place the options of ``task`` on an empty state: ``filled`` (the words) and
    ``counters`` are written; whether the options fit together (the search's own forced
    step, ``cpcore/packing_search.hpp``)."""
    return bool(_native.force_n_words(lay, _ints(task), filled, counters))


def split_kernel(lay: tuple, task: np.ndarray) -> list[int]:
    """The options that can cover the first item ``task`` leaves open, in the search's
    order: its next branching step (none when nothing is left open or nothing fits)."""
    return [int(o) for o in _native.split_n_words(lay, _ints(task))]


def _ints(task: np.ndarray | memoryview) -> np.ndarray | memoryview:
    """Option ids as the core reads them: a buffer as it is (``layouts/buffers.py``'s,
    int64), anything else made a C-contiguous int64 array."""
    if isinstance(task, memoryview):
        return task
    import numpy as np

    return np.ascontiguousarray(task, dtype=np.int64)


def _rows(prefixes: np.ndarray) -> np.ndarray:
    """Prefixes as the core reads them: a C-contiguous 2-d array of int64."""
    import numpy as np

    return np.ascontiguousarray(prefixes, dtype=np.int64).reshape(len(prefixes), -1)
