"""Writing output so that a killed run never leaves a half-written file."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it into place."""
    tmp = path.with_name(path.name + ".tmp")
    if isinstance(data, str):
        tmp.write_text(data)
    else:
        tmp.write_bytes(data)
    os.replace(tmp, path)


def keep_complete_lines(path: Path) -> int:
    """Drop a last line cut short by a killed run (atomically), so a run can append where
    the earlier one stopped; the number of complete lines (0 when there is no file)."""
    if not path.exists():
        return 0
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    if complete != data:
        write_atomic(path, complete)
    return complete.count(b"\n")
