"""Progress bars on stderr for long runs (tqdm), shown only on a terminal."""

from __future__ import annotations

import sys
from typing import Any


class QuietBar:
    """What a bar that shows nothing answers (tqdm is not even loaded for it)."""

    def __init__(self, total: int | None) -> None:
        self.total, self.n = total, 0

    def __enter__(self) -> QuietBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int = 1) -> None:
        self.n += n

    def refresh(self) -> None:
        return None

    def close(self) -> None:
        return None


def progress_bar(*, total: int | None, desc: str, unit: str, enabled: bool,
                 delay: float = 0.5) -> Any:
    """A tqdm bar on stderr that waits a moment before it shows and clears itself when done.

    It shows after ``delay`` seconds. ``enabled`` is the caller's decision (not ``--quiet``
    and stderr is a terminal); a disabled bar accepts the same calls and prints nothing.
    """
    if not enabled:
        return QuietBar(total)
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, delay=delay,
                dynamic_ncols=True)
