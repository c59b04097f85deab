"""The table of sub-board counts: an exact hash table, with an arena for tally vectors.

See the package's introduction. The table belongs to one search at a time; :meth:`Memo.stop`
may be called from any thread.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

DEFAULT_MEMO_SLOTS = 1 << 22
MAX_MEMO_KEY_BYTES = 2 << 30  # a memo's keys (committed only as they are touched)
STOP = 5  # index of the stop flag in Memo.stats
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)

#: What the search kernels read and write of a table, bundled as one argument.
Table = namedtuple("Table", ["keys", "values", "arena", "stats"])


class SearchStopped(RuntimeError):
    """A search was stopped (by :meth:`Memo.stop`) before it finished: it has no count."""


class Memo:
    """An exact hash table of sub-board counts, reusable across calls on one compiled cover.

    Each stored state points into ``arena``, where the nonzero run of its count vector lives
    (one number when nothing is tallied). Storing stops, without harm, when the table is
    three quarters full or the arena is full.
    """

    def __init__(self, n_words: int, slots: int = DEFAULT_MEMO_SLOTS,
                 arena: int | None = None) -> None:
        fit = MAX_MEMO_KEY_BYTES // ((n_words + 1) * 8)  # wide boards get fewer slots
        size = 1 << max(4, (min(slots, fit) - 1).bit_length())
        if size > fit:
            size >>= 1
        # Zero-filled arrays are committed page by page as they are touched.
        self.keys = np.zeros((size, n_words + 1), dtype=np.uint64)
        self.values = np.zeros(size, dtype=np.int64)  # 1 + count or arena offset; 0: empty
        self.arena = np.zeros(4 * size if arena is None else arena, dtype=np.int64)
        # used slots, hits, misses, nodes, arena used, and a stop flag (STOP) that another
        # thread may set: the search then returns at its next node, storing nothing partial.
        self.stats = np.zeros(6, dtype=np.int64)
        self.owner: tuple | None = None  # the cover and tally layout the counts belong to

    def stop(self) -> None:
        """Ask the search using this memo to stop (safe from any thread, at any time).

        What the table holds stays true: only finished sub-boards are ever stored.
        """
        self.stats[STOP] = 1

    @property
    def stopped(self) -> bool:
        return bool(self.stats[STOP])

    def clear_stop(self) -> None:
        """Let this memo be searched again after a stop."""
        self.stats[STOP] = 0

    @property
    def kernel(self) -> Table:
        """The arrays the search kernels read and write, as one argument."""
        return Table(self.keys, self.values, self.arena, self.stats)


@njit(cache=True, inline="always")
def slot_of(filled, code, keys, values):
    n_words = filled.shape[0]
    h = code * _GOLDEN
    for w in range(n_words):
        x = filled[w] ^ h
        x = (x ^ (x >> np.uint64(30))) * _MIX1
        x = (x ^ (x >> np.uint64(27))) * _MIX2
        h = x ^ (x >> np.uint64(31))
    mask = np.uint64(values.shape[0] - 1)
    s = np.int64(h & mask)
    while values[s] > 0:
        same = keys[s, n_words] == code
        if same:
            for w in range(n_words):
                if keys[s, w] != filled[w]:
                    same = False
                    break
        if same:
            return s
        s = (s + 1) & np.int64(mask)
    return s



@njit(cache=True, inline="always")
def lookup(filled, code, keys, values, stats):
    slot = slot_of(filled, code, keys, values)
    if values[slot] > 0:
        stats[1] += 1
        return values[slot] - 1
    stats[2] += 1
    return -1


@njit(cache=True, inline="always")
def store(filled, code, vec, lo, hi, scalar, keys, values, arena, stats):
    """Keep a state's counts. A plain count goes in the table itself (as count + 1); a count
    vector goes in ``arena`` as its first nonzero index, the run length and the run."""
    top = stats[4]
    n = hi - lo
    if stats[0] * 4 < values.shape[0] * 3 and (scalar or top + n + 2 <= arena.shape[0]):
        n_words = filled.shape[0]
        slot = slot_of(filled, code, keys, values)
        for w in range(n_words):
            keys[slot, w] = filled[w]
        keys[slot, n_words] = code
        stats[0] += 1
        if scalar:
            values[slot] = vec[0] + 1
            return
        arena[top] = lo
        arena[top + 1] = n
        for x in range(n):
            arena[top + 2 + x] = vec[lo + x]
        values[slot] = top + 1
        stats[4] = top + n + 2

