"""Writing output so that a killed run never leaves a half-written file."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write ``data`` to a temporary file beside ``path`` (its own name, so two writers do not
    meet; the umask applies), then rename it into place; on any failure the temporary file
    is removed and ``path`` is as it was."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    handle = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


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
