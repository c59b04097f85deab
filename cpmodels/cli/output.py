"""What a command prints and writes: text or JSON, pictures, exit codes, stop messages."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cpmodels.errors import InputError
from cpmodels.interrupt import TimeLimitReached

EXIT_OK, EXIT_UNSOLVABLE, EXIT_BAD_INPUT, EXIT_UNKNOWN, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
MAX_CONNECTIONS = 256  # open connections the server takes before answering 503
STATUS_EXIT = {"solved": EXIT_OK, "unsolvable": EXIT_UNSOLVABLE, "unknown": EXIT_UNKNOWN}


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
    """Write ``data`` to ``path`` atomically; a failure is bad input naming the file."""
    from cpmodels.files import write_atomic

    try:
        write_atomic(path, data)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


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
