"""What a packing backend returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Status = Literal["solved", "unsolvable", "unknown"]


@dataclass
class CoverResult:
    """Outcome of one search: the status, the chosen option indices when solved, the time."""

    status: Status
    backend: str
    seconds: float
    chosen: list[int] = field(default_factory=list)
