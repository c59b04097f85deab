"""What a towers search returns (no solver needed to read or draw one)."""

from __future__ import annotations

from dataclasses import dataclass, field

from cpmodels.backends.result import Status

NAME = "cpsat"  # the backend towers answers name: CP-SAT, with the programme's proof


@dataclass
class TowersResult:
    """Best board found, its score, whether it is proved optimal, and the proven bound."""

    status: Status
    seconds: float
    grid: list[str] = field(default_factory=list)
    score: int | None = None
    optimal: bool = False
    bound: int | None = None
    backend: str = NAME
    order: list[tuple[int, int, str]] | None = None  # when-built: builds that reach the grid

    @property
    def gap(self) -> float | None:
        if self.score is None or self.bound is None or self.bound == 0:
            return None
        return (self.bound - self.score) / abs(self.bound)
