"""The order in which a design tries its required dates, learnt from the sets decided
first and shared by every set after them. The sets themselves are decided by the core
(``EngineSession.design``: the dates at the front of the order one by one, then the rest
grouped by their holes in every group but the one the reach search leaves open, on the
weekday calendar by day and weekday, the month open; ``docs/design.md`` has the strategies
measured)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class LearntOrder:
    """The order in which a design tries its required combinations (indices), as learnt
    from the sets decided first: ``order`` (int64) every combination once, most rejecting
    first; ``front`` (uint8) 1 for those that rejected a set while the order was learnt;
    ``late`` (int64) how often each was a first failure past the front in this process
    (the commonest are tried before the rest). The core's design decision reads and
    changes them in place (the order and the front only while learning)."""

    order: np.ndarray
    front: np.ndarray
    late: np.ndarray

    @classmethod
    def of(cls, n: int) -> LearntOrder:
        """The order of ``n`` combinations before anything is learnt: as given."""
        return cls(np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.uint8),
                   np.zeros(n, dtype=np.int64))

    def move_to_front(self, index: int) -> None:
        """The next set tries combination ``index`` first (as the core does while
        learning)."""
        rest = self.order[self.order != index]
        self.order[0] = index
        self.order[1:] = rest
        self.front[index] = 1
