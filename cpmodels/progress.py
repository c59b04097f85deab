"""Progress bars on stderr for long runs (tqdm), shown only on a terminal."""

from __future__ import annotations

import sys
from typing import Any

from tqdm import tqdm


def progress_bar(*, total: int | None, desc: str, unit: str, enabled: bool,
                 delay: float = 0.5) -> Any:
    """A tqdm bar on stderr that waits a moment before it shows and clears itself when done.

    It shows after ``delay`` seconds. ``enabled`` is the caller's decision (not ``--quiet``
    and stderr is a terminal); a disabled bar accepts the same calls and prints nothing.
    """
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=not enabled,
                leave=False, delay=delay, dynamic_ncols=True)
