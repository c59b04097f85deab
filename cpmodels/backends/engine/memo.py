"""The table of sub-board counts: an exact hash table, with an arena for tally vectors.

See the package's introduction. The table belongs to one search at a time; :meth:`Memo.stop`
may be called from any thread.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

DEFAULT_MEMO_SLOTS = 1 << 22
MAX_MEMO_KEY_BYTES = 2 << 30  # a memo's keys (committed only as they are touched)
# What each entry of ``Memo.stats`` holds (the kernels read and write them by these names).
USED = 0  # slots in use
HITS = 1  # lookups that found their state
MISSES = 2  # lookups that did not
NODES = 3  # states searched
ARENA_USED = 4  # arena slots in use
STOP = 5  # the stop flag another thread may set
FLUSHES = 6  # times the full table was emptied to make room
STATS = 7

#: What the search kernels read and write of a table, bundled as one argument.
Table = namedtuple("Table", ["keys", "values", "arena", "stats"])


class Memo:
    """An exact hash table of sub-board counts, reusable across calls on one compiled cover.

    Each stored state points into ``arena``, where the nonzero run of its count vector lives
    (one number when nothing is tallied). When the table is three quarters full or the
    arena has no room, the table is emptied and fills again (see :func:`store`).
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
        # Indexed by USED .. FLUSHES above; a search that sees STOP set returns at its next
        # node, storing nothing partial.
        self.stats = np.zeros(STATS, dtype=np.int64)
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
