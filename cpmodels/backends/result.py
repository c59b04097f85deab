"""What a packing backend returns, and the count of a backend that can only enumerate."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from cpmodels.errors import OutOfTime

if TYPE_CHECKING:
    from cpmodels.cover import ExactCover

Status = Literal["solved", "unsolvable", "unknown"]


@dataclass
class CoverResult:
    """Outcome of one search: the status, the chosen option indices when solved, the time."""

    status: Status
    backend: str
    seconds: float
    chosen: list[int] = field(default_factory=list)


def count_by_enumeration(iter_solutions: Callable[..., Iterator[list[int]]],
                         cover: ExactCover, *, time_limit: float | None = None,
                         forced: Sequence[int] = (),
                         progress: Callable[[int, int], None] | None = None) -> int:
    """Count the solutions ``iter_solutions`` streams (:class:`~cpmodels.errors.OutOfTime`,
    its ``partial`` the solutions counted, when the time limit passes first).

    ``progress(found, 0)`` hears of every thousandth solution (the total is not known).
    """
    total = 0
    try:
        for _ in iter_solutions(cover, time_limit=time_limit, forced=forced):
            total += 1
            if progress is not None and total % 1000 == 0:
                progress(total, 0)
    except OutOfTime as stop:
        raise OutOfTime(str(stop), partial=total) from None
    return total
