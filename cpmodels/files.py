"""Writing output so that a killed run never leaves a half-written file."""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cpmodels.errors import InputError


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


def check_new_directory(directory: Path) -> Path:
    """That ``directory`` can be made (it is absent or empty, its parent a directory), or
    :class:`InputError`; its parent."""
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise InputError(f"{directory} exists and is not an empty directory")
    parent = directory.resolve().parent
    if not parent.is_dir():
        raise InputError(f"cannot write {directory}: {parent} is not a directory")
    return parent


@contextmanager
def directory_in_place(directory: Path) -> Iterator[Path]:
    """A scratch directory beside ``directory`` to fill; renamed to ``directory`` when the
    block ends without an error, removed when it raises. ``directory`` must not exist or be
    empty, so it is whole or absent afterwards."""
    directory = Path(directory)
    parent = check_new_directory(directory)
    try:
        scratch = Path(tempfile.mkdtemp(dir=parent, prefix=f".{directory.name}."))
    except OSError as exc:
        raise InputError(f"cannot write {directory}: {exc.strerror or exc}") from None
    try:
        yield scratch
        scratch.chmod(0o755)  # mkdtemp's directory is private
        if directory.exists():
            directory.rmdir()  # empty, checked above
        scratch.rename(directory)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
