"""What a command prints and writes: text or JSON, pictures, exit codes, stop messages."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cpmodels.errors import CpmodelsError, InputError
from cpmodels.interrupt import TimeLimitReached

EXIT_OK, EXIT_UNSOLVABLE, EXIT_BAD_INPUT, EXIT_UNKNOWN, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
STATUS_EXIT = {"solved": EXIT_OK, "unsolvable": EXIT_UNSOLVABLE, "unknown": EXIT_UNKNOWN}


class StandardOutputError(CpmodelsError):
    """Standard output cannot be written (a full disk, a closed descriptor, an I/O error)."""

    def __init__(self, exc: OSError) -> None:
        super().__init__(f"cannot write to standard output: {exc.strerror or exc}")


class _GuardedOutput(io.BufferedWriter):
    """Standard output's bytes, whose write errors are :class:`StandardOutputError` (a
    one-line error) rather than an ``OSError`` any ``except OSError`` could take for a
    file's; a reader that went away stays a :class:`BrokenPipeError`. After the first
    failure the descriptor is pointed at the null device, so the error is raised once and
    nothing later (the interpreter's last flush) fails again."""

    def write(self, data: Any) -> int:
        try:
            return super().write(data)
        except OSError as exc:
            raise self._failed(exc) from None

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as exc:
            raise self._failed(exc) from None

    def _failed(self, exc: OSError) -> Exception:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self.fileno())
        os.close(devnull)
        return exc if isinstance(exc, BrokenPipeError) else StandardOutputError(exc)


def guard_stdout() -> None:
    """Put standard output behind :class:`_GuardedOutput` (as it is: its encoding, errors
    and line buffering), for the program's entry point; a closed one is an error."""
    stream = sys.stdout
    if stream is None:  # started with its descriptor closed
        raise StandardOutputError(OSError(9, "it is closed"))
    try:
        fd = stream.fileno()
        stream.flush()
    except (AttributeError, OSError, ValueError):
        return  # closed, or not a file: left as it is
    sys.stdout = io.TextIOWrapper(_GuardedOutput(io.FileIO(fd, "w", closefd=False)),
                                  encoding=stream.encoding, errors=stream.errors,
                                  line_buffering=bool(stream.line_buffering))


def finish_stdout() -> int | None:
    """Flush standard output at the program's end: ``None`` when that went well, else
    :data:`EXIT_BAD_INPUT` (with one line on stderr, but none for a reader that went away)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return EXIT_BAD_INPUT
    except StandardOutputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (AttributeError, OSError, ValueError):
        return None  # not ours (closed, or replaced): nothing to add
    return None


def colour_ok(stream: Any) -> bool:
    return (hasattr(stream, "isatty") and stream.isatty() and "NO_COLOR" not in os.environ
            and os.environ.get("TERM") != "dumb")


def emit(payload: dict[str, Any], text: str, fmt: str) -> None:
    if fmt == "json":
        print(json.dumps(payload))
    else:
        print(text)


PICTURES = ("svg", "png")


def picture_bytes(scene: Any, fmt: str) -> bytes:
    if fmt == "svg":
        from cpmodels.render.svg import scene_svg

        return scene_svg(scene).encode()
    from cpmodels.render.raster import scene_png

    return scene_png(scene)


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole (:func:`cpmodels.files.write_atomic`); a refused or
    failed write is bad input naming the file."""
    from cpmodels.files import write_atomic

    write_atomic(path, data)


def write_picture(scene: Any, fmt: str, out: Path | None, text: str) -> None:
    """Write the picture to ``out`` (and say so), or an SVG to stdout when there is no file."""
    if out is None:
        if fmt == "png":
            raise InputError("--format png needs --out FILE.png")
        sys.stdout.write(picture_bytes(scene, fmt).decode())
        return
    write_file(out, picture_bytes(scene, fmt))
    print(f"{text}\npicture written to {out}")


def picture_module() -> Any:
    """The picture module, imported only when a picture is asked for (it loads matplotlib)."""
    from cpmodels.render import pictures

    return pictures


def answer(args: argparse.Namespace, payload: dict[str, Any], text: str,
            picture: Callable[[], Any]) -> None:
    """Print the answer as ``--format`` asks: text, JSON, or a picture drawn by ``picture``."""
    if args.format in PICTURES:
        write_picture(picture(), args.format, args.out, text)
    else:
        emit(payload, text, args.format)



def stopped_message(stop: BaseException) -> str:
    return str(stop) if isinstance(stop, TimeLimitReached) else "interrupted"


def stop_status(stop: BaseException) -> int:
    return EXIT_UNKNOWN if isinstance(stop, TimeLimitReached) else EXIT_INTERRUPTED
