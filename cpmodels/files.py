"""The package's one way to write an output file and to read an input file.

Writing: a target must be absent or a regular, writable file; anything else (a directory,
a device, a FIFO, a socket, a symbolic link, a read-only file) is refused with one line
naming the path and why, and nothing on disk changes. Whole files are written to a temporary
file beside the target and renamed into place (:func:`write_atomic`, :func:`atomic_output`),
so a killed run never leaves half a file; streams that a later ``--resume`` continues are
opened in place (:func:`open_stream`). Reading: :func:`read_bounded` takes regular files only
(a FIFO would block), up to a size limit checked before the file is read.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import math
import os
import re
import secrets
import shutil
import stat
import tempfile
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, BinaryIO

from cpmodels.errors import InputError
from cpmodels.interrupt import ctrl_c_held

if TYPE_CHECKING:
    import zipfile

    import numpy as np

MAX_RESUME_BYTES = 4_000_000_000  # a resumable output (JSON lines, CSV) longer is refused
MAX_LINE_BYTES = 1_000_000  # one line of a resumable output
MAX_JSON_BYTES = 10_000_000  # a JSON document inside an archive (a header, a claim)
MAX_ARRAY_BYTES = 1 << 29  # an array inside an archive (a certificate's layer: 67 million keys)


class FileRefused(InputError):
    """A path that cannot be read or written as asked; ``reason`` says why, without the path."""

    def __init__(self, path: Path | str, reason: str, verb: str = "write") -> None:
        self.path, self.reason = Path(path), reason
        super().__init__(f"cannot {verb} {path}: {reason}")


def _kind(mode: int) -> str:
    """What a file is, in words."""
    for test, name in ((stat.S_ISREG, "a file"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "of an unknown kind"  # pragma: no cover - every kind is named above


def check_output(path: Path | str) -> None:
    """That ``path`` may be written: absent (in an existing directory), or a regular file that
    is not a symbolic link and is writable. Otherwise :class:`FileRefused`."""
    path = Path(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        parent = path.parent
        if not parent.is_dir():
            raise FileRefused(path, f"{parent} is not a directory" if os.path.lexists(parent)
                              else f"there is no directory {parent}") from None
        return
    except OSError as exc:
        raise FileRefused(path, exc.strerror or str(exc)) from None
    if stat.S_ISLNK(info.st_mode):
        raise FileRefused(path, "it is a symbolic link; name the file itself (links are not "
                          "followed)")
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused(path, f"it is {_kind(info.st_mode)}, not a regular file")
    if not info.st_mode & 0o222 or not os.access(path, os.W_OK, follow_symlinks=False):
        raise FileRefused(path, f"it is read-only (mode {stat.S_IMODE(info.st_mode):o}); make "
                          "it writable or give another name")


def temp_beside(path: Path | str) -> Path:
    """A new, empty file of a name of its own beside ``path`` (created here, never an
    existing file or link), for a writer that then moves it into place with
    :func:`move_into_place`; the umask applies."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o666))
    except OSError as exc:
        raise FileRefused(path, exc.strerror or str(exc)) from None
    return tmp


@contextmanager
def _beside(path: Path) -> Iterator[Path]:
    """A new file beside ``path`` (:func:`temp_beside`), removed if the block raises. It is
    made with Ctrl-C held, so a Ctrl-C as it is made comes once it is in hand here and
    removes it too: it is never left behind."""
    tmp: Path | None = None
    try:
        with ctrl_c_held():
            tmp = temp_beside(path)
        yield tmp
    except BaseException:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise


@contextmanager
def zip_in_place(path: Path) -> Iterator[zipfile.ZipFile]:
    """A zip archive (members stored) written beside ``path`` and moved into place when the
    block ends; removed if the block fails (an ``OSError`` then says it cannot write)."""
    import zipfile

    try:
        with _beside(path) as tmp:
            with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as archive:
                yield archive
            move_into_place(tmp, path)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


def move_into_place(tmp: Path | str, path: Path | str) -> None:
    """Rename the finished ``tmp`` to ``path``, after checking ``path`` once more (it may have
    changed while ``tmp`` was written); an existing file's permissions are kept."""
    check_output(path)
    with contextlib.suppress(FileNotFoundError):
        os.chmod(tmp, stat.S_IMODE(os.lstat(path).st_mode))
    try:
        os.replace(tmp, path)
    except OSError as exc:
        raise FileRefused(path, exc.strerror or str(exc)) from None


@contextmanager
def atomic_output(path: Path | str) -> Iterator[BinaryIO]:
    """A binary file to fill, renamed to ``path`` when the block ends without an error and
    removed when it raises; ``path`` is checked first (:func:`check_output`), so a refused
    target costs no work."""
    path = Path(path)
    check_output(path)
    try:
        with _beside(path) as tmp:
            with open(tmp, "wb") as out:
                yield out
            move_into_place(tmp, path)
    except OSError as exc:
        raise FileRefused(path, exc.strerror or str(exc)) from None


def write_atomic(path: Path | str, data: bytes | str) -> None:
    """Write ``data`` to ``path`` whole, through a temporary file beside it renamed into
    place; a refused or failed write is a :class:`FileRefused` and ``path`` is as it was."""
    with atomic_output(path) as out:
        out.write(data.encode() if isinstance(data, str) else data)


def open_stream(path: Path | str, append: bool = False) -> IO[str]:
    """A text file to write line by line at ``path`` (appended to when ``append``, else
    emptied first), for outputs a killed run keeps and ``--resume`` continues. The target is
    checked as :func:`check_output` does, and opened without following a link or blocking
    on a FIFO."""
    path = Path(path)
    check_output(path)

    def opened(name: str, flags: int) -> int:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                     | (os.O_APPEND if append else 0), 0o666)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):  # it changed since the check
                raise FileRefused(path, f"it is {_kind(info.st_mode)}, not a regular file")
            _block(fd)
            if not append:
                os.ftruncate(fd, 0)
        except BaseException:
            os.close(fd)
            raise
        return fd

    try:
        return open(path, "a" if append else "w", encoding="utf-8", newline="", opener=opened)
    except FileRefused:
        raise
    except OSError as exc:
        raise FileRefused(path, exc.strerror or str(exc)) from None


def make_directory(path: Path | str) -> Path:
    """``path`` as a directory to write in: made when absent; an existing one must be a
    real directory (not a link to one elsewhere)."""
    path = Path(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        check_output(path)  # its parent is a directory
        try:
            path.mkdir()
        except OSError as exc:
            raise FileRefused(path, exc.strerror or str(exc)) from None
        return path
    if not stat.S_ISDIR(info.st_mode):
        raise FileRefused(path, f"it is {_kind(info.st_mode)}, not a directory")
    return path


@contextmanager
def open_input(path: Path | str, limit: int, what: str = "file") -> Iterator[BinaryIO]:
    """``path`` opened to read: a regular file (a link to one is followed) of at most
    ``limit`` bytes, else :class:`FileRefused` saying why. A FIFO or a device is refused,
    never waited on."""
    path = Path(path)

    def opened(name: str, flags: int) -> int:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise FileRefused(path, f"not a file: it is {_kind(info.st_mode)}", "read")
            if info.st_size > limit:
                raise FileRefused(path, f"it is {info.st_size:,} bytes; a {what} is at most "
                                  f"{limit:,} bytes", "read")
            _block(fd)
        except BaseException:
            os.close(fd)
            raise
        return fd

    try:
        handle = open(path, "rb", opener=opened)  # noqa: SIM115 (kept open for the caller)
    except FileRefused:
        raise
    except FileNotFoundError:
        raise FileRefused(path, "no such file", "read") from None
    except OSError as exc:
        raise FileRefused(path, exc.strerror or str(exc), "read") from None
    with handle:
        yield handle


def _block(fd: int) -> None:
    """``fd``, opened without blocking (so that a FIFO is never waited on), made blocking
    again for its reads and writes."""
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)


def check_input(path: Path | str, limit: int, what: str = "file") -> None:
    """That ``path`` is a regular file of at most ``limit`` bytes to read, or
    :class:`FileRefused` saying why (checked without reading it)."""
    with open_input(path, limit, what):
        pass


def read_bounded(path: Path | str, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``, refused (:class:`FileRefused`) past ``limit``
    bytes before it is read, and when it grows past ``limit`` while it is read."""
    with open_input(path, limit, what) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise FileRefused(path, exc.strerror or str(exc), "read") from None
    if len(data) > limit:
        raise FileRefused(path, f"it is over {limit:,} bytes; a {what} is at most "
                          f"{limit:,} bytes", "read")
    return data


def read_lines(path: Path | str, what: str = "resumable output", *, strict: bool = True,
               ) -> Generator[str, None, None]:
    """The complete lines of a resumable output, one at a time (bounded in number of bytes
    and in line length; the last line is dropped if a killed run cut it short). A line
    that is not UTF-8 refuses the file, or when not ``strict`` is read with U+FFFD for
    what does not decode (a damaged line for the reader to pass over)."""
    with open_input(path, MAX_RESUME_BYTES, what) as handle:
        while True:
            line = handle.readline(MAX_LINE_BYTES + 1)
            if not line.endswith(b"\n"):
                if len(line) > MAX_LINE_BYTES:
                    raise FileRefused(path, f"a line is over {MAX_LINE_BYTES:,} bytes: "
                                      f"not a {what}", "read")
                return
            try:
                yield line.decode("utf-8", "strict" if strict else "replace")
            except UnicodeDecodeError:
                raise FileRefused(path, f"it is not UTF-8 text: not a {what}", "read") from None


def keep_complete_lines(path: Path) -> int:
    """Drop a last line cut short by a killed run, so a run can append where the earlier one
    stopped; the number of complete lines (0 when there is no file). The file is read in
    pieces, never whole."""
    if not os.path.lexists(path):
        return 0
    check_output(path)
    lines, end = 0, 0
    with open_input(path, MAX_RESUME_BYTES, "resumable output") as handle:
        offset = 0
        while chunk := handle.read(1 << 20):
            lines += chunk.count(b"\n")
            last = chunk.rfind(b"\n")
            if last >= 0:
                end = offset + last + 1
            offset += len(chunk)
    if end != offset:
        try:
            os.truncate(path, end)
        except OSError as exc:
            raise FileRefused(path, exc.strerror or str(exc)) from None
    return lines


def check_new_directory(directory: Path) -> Path:
    """That ``directory`` can be made (it is absent or an empty directory, not a link; its
    parent a directory), or :class:`InputError`; its parent."""
    try:
        info = os.lstat(directory)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise FileRefused(directory, exc.strerror or str(exc)) from None
    if info is not None and not stat.S_ISDIR(info.st_mode):
        raise FileRefused(directory, f"it is {_kind(info.st_mode)}, not an empty directory")
    if info is not None and any(directory.iterdir()):
        raise FileRefused(directory, "it is not an empty directory")
    parent = directory.absolute().parent
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
    scratch: Path | None = None
    try:
        try:
            with ctrl_c_held():  # made and kept at once, as _beside makes a file
                scratch = Path(tempfile.mkdtemp(dir=parent, prefix=f".{directory.name}."))
        except OSError as exc:
            raise InputError(f"cannot write {directory}: {exc.strerror or exc}") from None
        yield scratch
        scratch.chmod(0o755)  # mkdtemp's directory is private
        if os.path.lexists(directory):
            directory.rmdir()  # empty, checked above
        scratch.rename(directory)
    except BaseException:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        raise


MAX_JSON_INT = 2**63 - 1  # an integer in a JSON document the package reads: 64 bits at most
MAX_NUMBER_CHARS = 64  # a number's text longer than this is refused before it is read


def _json_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS or abs(value := int(text)) > MAX_JSON_INT:
        shown = text if len(text) <= 24 else f"{text[:20]}..."
        raise ValueError(f"the integer {shown} is too large (at most {MAX_JSON_INT:,})")
    return value


def _json_float(text: str) -> float:
    shown = text if len(text) <= 24 else f"{text[:20]}..."
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"the number {shown} has {len(text):,} characters; too long to read")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{shown} is not a finite number")
    return value


def _json_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a finite number")


LONE_HALF = re.compile("[\ud800-\udfff]")  # (a str holds a pair's halves only alone)
LONE_SURROGATE = ("the text holds half of a UTF-16 surrogate pair alone (an escape such as "
                  "\\ud800 without its other half), which is no character; write the "
                  "character itself")


def lone_surrogate(data: Any) -> str | None:
    """What is wrong with ``data`` (JSON or YAML data) when a string of it, or a key,
    holds a lone UTF-16 surrogate (JSON's ``"\\ud800"``: half of a pair, no character,
    which no UTF-8 text can hold): one sentence naming it; else ``None``. Without
    recursion."""
    todo = [data]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, str) and LONE_HALF.search(item):
            return LONE_SURROGATE
    return None


def bounded_json(data: bytes | str) -> Any:
    """``json.loads`` whose numbers are bounded as they are read: ``NaN``, ``Infinity``,
    ``1e400`` and integers past 64 bits are a ValueError (not a JSONDecodeError) saying
    which number."""
    return json.loads(data, parse_int=_json_int, parse_float=_json_float,
                      parse_constant=_json_constant)


def load_json(data: bytes | str, what: str) -> Any:
    """A JSON document whose numbers are finite and its integers 64-bit at most; one too
    deeply nested, with ``NaN``, ``Infinity``, ``1e400`` or a larger integer is a
    :class:`json.JSONDecodeError` like any other that does not read."""
    try:
        return bounded_json(data)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise json.JSONDecodeError(f"{what} is nested too deeply", "", 0) from None
    except ValueError as exc:  # a number refused above
        raise json.JSONDecodeError(f"{what} holds a number out of range: {exc}", "", 0) \
            from None


def json_member(archive: zipfile.ZipFile, name: str, limit: int = MAX_JSON_BYTES) -> Any:
    """The JSON document ``name`` of a zip archive (a ``KeyError`` when it has none), read
    only up to ``limit`` bytes, whatever the archive says of its size."""
    info = archive.getinfo(name)
    if info.file_size > limit:
        raise json.JSONDecodeError(f"{name} is over {limit:,} bytes", "", 0)
    with archive.open(info) as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise json.JSONDecodeError(f"{name} is over {limit:,} bytes", "", 0)
    return load_json(data, name)


def npy_member(archive: zipfile.ZipFile, name: str,
               limit: int = MAX_ARRAY_BYTES) -> np.ndarray:
    """The array stored as ``name`` in a zip archive (numpy's ``.npy`` format, no pickled
    objects), made only when it is at most ``limit`` bytes and the member holds the data its
    header promises: a header that claims more is a ValueError, never a huge allocation."""
    import numpy as np

    info = archive.getinfo(name)
    readers = {(1, 0): np.lib.format.read_array_header_1_0,
               (2, 0): np.lib.format.read_array_header_2_0}
    with archive.open(info) as stream:
        version = np.lib.format.read_magic(stream)
        if version not in readers:
            raise ValueError(f"{name} is in a .npy format version {version} not read here")
        shape, _, dtype = readers[version](stream, max_header_size=10_000)
        needed = math.prod(shape) * dtype.itemsize
        if needed > info.file_size - stream.tell():
            raise ValueError(f"{name} holds less data than its shape {shape} needs")
        if needed > limit:
            raise ValueError(f"{name} holds an array of {needed:,} bytes; at most {limit:,} "
                             "are read")
    with archive.open(info) as stream:
        return np.lib.format.read_array(stream, allow_pickle=False)


class _Window(io.RawIOBase):
    """Bytes ``start`` to ``start + size`` of an open binary file, as a file of their own."""

    def __init__(self, file: BinaryIO, start: int, size: int) -> None:
        super().__init__()
        self.file, self.start, self.size, self.at = file, start, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.at

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.at, io.SEEK_END: self.size}[whence]
        self.at = max(0, base + offset)
        return self.at

    def readinto(self, buffer: Any) -> int:
        wanted = min(len(buffer), self.size - self.at)
        if wanted <= 0:
            return 0
        self.file.seek(self.start + self.at)
        data = self.file.read(wanted)
        buffer[:len(data)] = data
        self.at += len(data)
        return len(data)


@contextmanager
def stored_member(path: Path | str, archive: zipfile.ZipFile,
                  name: str) -> Iterator[BinaryIO]:
    """The member ``name`` of the zip archive at ``path`` (open as ``archive``), stored
    without compression, read in place as a file of its own: never inflated or copied
    whole, whatever its size. A compressed member (or one whose local header does not
    read) is a ValueError; a missing one a ``KeyError``."""
    import struct
    import zipfile

    info = archive.getinfo(name)
    if info.compress_type != zipfile.ZIP_STORED:
        raise ValueError(f"{name} is compressed; it is read only as stored")
    local = struct.Struct("<4s2B4HL2L2H")  # a zip member's local header (PKWARE's APPNOTE)
    with open_input(path, 1 << 62, "archive") as handle:
        handle.seek(info.header_offset)
        header = handle.read(local.size)
        if len(header) != local.size or header[:4] != b"PK\x03\x04":
            raise ValueError(f"{name} has no local header")
        name_length, extra_length = local.unpack(header)[-2:]  # its last two fields
        start = info.header_offset + local.size + name_length + extra_length
        with io.BufferedReader(_Window(handle, start, info.compress_size)) as member:
            yield member
