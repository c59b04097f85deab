"""The table of sub-board counts: an exact hash table, with an arena for tally vectors.

See the package's introduction. The table belongs to one search at a time; :meth:`Memo.stop`
may be called from any thread.
"""

from __future__ import annotations

import os
from collections import namedtuple
from pathlib import Path
from typing import Any

from cpmodels.backends.engine.layouts.buffers import zeros
from cpmodels.errors import TooLargeError

DEFAULT_MEMO_SLOTS = 1 << 22
# Where a table that does not fit stops shrinking (the process may map less than it asks).
MIN_MEMO_SLOTS = 1 << 10
MIN_ARENA = 1 << 12
MAX_MEMO_KEY_BYTES = 2 << 30  # a memo's keys (committed only as they are touched)
# What each entry of ``Memo.stats`` holds (the kernels read and write them by these names).
USED = 0  # slots in use
HITS = 1  # lookups that found their state
MISSES = 2  # lookups that did not
NODES = 3  # states searched
ARENA_USED = 4  # arena slots in use
STOP = 5  # the stop flag another thread may set (handed to each search as its ``stop``)
FLUSHES = 6  # times the full table was emptied to make room
STATS = 7

#: What the search kernels read and write of a table, bundled as one argument
#: (``first_live``: the slots a large one-word table probes first, 0 for the core's).
Table = namedtuple("Table", ["keys", "values", "arena", "stats", "first_live"])


def _room_to_map() -> int | None:
    """The bytes this process may still map under its address-space and data limits
    (``ulimit -v``, ``prlimit --as``; None: no limit)."""
    try:
        import resource

        caps = [cap for cap in (resource.getrlimit(kind)[0]
                                for kind in (resource.RLIMIT_AS, resource.RLIMIT_DATA))
                if cap != resource.RLIM_INFINITY]
        if not caps:
            return None
        mapped = int(Path("/proc/self/statm").read_text().split()[0]) * os.sysconf(
            "SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):
        return None
    return max(0, min(caps) - mapped)


def _zeros(*arrays: tuple[Any, str]) -> list[memoryview]:
    """Zero-filled buffers of these shapes and formats (``layouts/buffers.py``), all or
    none (MemoryError)."""
    return [zeros(shape, fmt) for shape, fmt in arrays]


class Memo:
    """An exact hash table of sub-board counts, reusable across calls on one compiled cover.

    Each stored state points into ``arena``, where the nonzero run of its count vector lives
    (one number when nothing is tallied). When the table is three quarters full or the
    arena has no room, the table is emptied and fills again (``cpcore/table.hpp``). Where the
    process may not map a table of the size asked (an address-space limit: the table takes
    at most half of what is left, the rest is for the run), it is made smaller, the arena
    first, halving until it fits: every count is a shortcut, so a smaller table is slower,
    never wrong.
    """

    def __init__(self, n_words: int, slots: int = DEFAULT_MEMO_SLOTS,
                 arena: int | None = None, first_live: int = 0) -> None:
        fit = MAX_MEMO_KEY_BYTES // ((n_words + 1) * 8)  # wide boards get fewer slots
        size = 1 << max(4, (min(slots, fit) - 1).bit_length())
        if size > fit:
            size >>= 1
        room = 4 * size if arena is None else arena
        budget = _room_to_map()
        while True:  # a table that fits what the process may map: a smaller one else
            try:
                if budget is not None and (size * (n_words + 2) + room) * 8 > budget // 2:
                    raise MemoryError  # half of what is left to map, at most
                # Zero-filled arrays are committed page by page as they are touched. The
                # values: 1 + count or an arena offset; 0 marks an empty slot.
                self.keys, self.values, self.arena = _zeros(
                    ((size, n_words + 1), "Q"), (size, "q"), (room, "q"))
                break
            except MemoryError:
                if size <= MIN_MEMO_SLOTS and room <= MIN_ARENA:
                    raise TooLargeError("not enough memory for the engine's smallest table "
                                        "of sub-board counts") from None
                if room > MIN_ARENA and (room > 4 * size or size <= MIN_MEMO_SLOTS):
                    room //= 2  # the arena goes first, then the slots with it
                if size > MIN_MEMO_SLOTS and room <= 4 * size:
                    size //= 2
        # Indexed by USED .. FLUSHES above. STOP is this table's stop flag: the searches
        # are handed it (:attr:`stop_flag`) and return at their next look at it, storing
        # nothing partial.
        self.stats = zeros(STATS)
        # The slots a one-word table of over a million probes first (cpcore/table.hpp):
        # 0, the core's 16,384, doubled as the states fill them.
        self.first_live = first_live
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
    def stop_flag(self) -> memoryview:
        """The stop flag as a search is handed it: a view of ``stats[STOP]``, read in place."""
        return self.stats[STOP:STOP + 1]

    @property
    def kernel(self) -> Table:
        """The arrays the search kernels read and write, as one argument."""
        return Table(self.keys, self.values, self.arena, self.stats, self.first_live)
