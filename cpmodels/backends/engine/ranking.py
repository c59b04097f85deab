"""``design --best K``'s ranking as the core steps it (``cpcore_design_best_*``): which
working set to count next, and on what, so that the K best come without counting every set
in full. The counting itself is the caller's (``EngineSession`` tallies)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import cpmodels._native as native
from cpmodels.backends.engine.layouts.described import constants

if TYPE_CHECKING:
    import numpy as np


class BestRanking:
    """The ranking's state over ``n`` working sets (each named by its pieces' names, which
    break ties), ``n_dates`` required dates and the ``best`` sets wanted."""

    def __init__(self, names: Sequence[Sequence[str]], n_dates: int, best: int) -> None:
        import numpy as np

        n = len(names)
        kinds = constants("CPCORE_BEST_")
        self.PROBE, self.COUNT = kinds["probe"], kinds["count"]
        self.rank = np.empty(n, dtype=np.int64)
        self.rank[sorted(range(n), key=lambda k: list(names[k]))] = np.arange(n)
        self.open = np.ones(n, dtype=np.uint8)
        self.known_on = np.zeros((n, n_dates), dtype=np.uint8)
        self.bound = np.full(n, -1, dtype=np.int64)  # none counted alone yet
        self.board = np.full((best, 4), -1, dtype=np.int64)
        self.dates = np.zeros(best, dtype=np.int64)

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return self.rank, self.open, self.known_on, self.bound, self.board, self.dates

    def step(self) -> tuple[int, int, int, int]:
        """(the step: :attr:`PROBE`, :attr:`COUNT` or done; the set; the floor, -1 for none;
        how many of :attr:`dates` to count it on alone)."""
        return native.design_best_step(*self._arrays())

    def known(self, k: int, date: int, count: int) -> None:
        """Set ``k`` counted alone on ``date``."""
        native.design_best_known(*self._arrays(), k, date, count)

    def counted(self, k: int, fewest: int, total: int, date: int) -> None:
        """Set ``k`` counted in full: its fewest solutions, on ``date``, and its total."""
        native.design_best_counted(*self._arrays(), k, fewest, total, date)

    def leaders(self) -> list[int]:
        """The best sets so far, ranked."""
        return [int(k) for k in self.board[:, 0] if k >= 0]
