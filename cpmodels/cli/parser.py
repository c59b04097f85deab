"""The argument parser's shared parts: the option types (counts, seconds, ports and sizes
bounded where they are parsed; make's lengths are weighed against each other by
``MakeOptions.check``), the option groups several commands take, and the top level that
each command module's ``add_*`` function hangs its subcommand on."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from cpmodels import __version__
from cpmodels.cli.output import EXIT_BAD_INPUT
from cpmodels.errors import InputError
from cpmodels.workers import cores, jobs_refused, worker_count

MAX_SECONDS = 10_000_000  # the longest time limit taken (longer ones overflow timers)
MAX_COUNT = 10**12  # the largest count or rank an option takes

if TYPE_CHECKING:
    from typing import TypeAlias

    #: What a command module's ``add_*`` function is given: the top level's subparsers.
    Subparsers: TypeAlias = "argparse._SubParsersAction[_Parser]"
    AddCommand: TypeAlias = Callable[[Subparsers], None]


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad arguments on one line with exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse makes a formatter for every argument added (to check its metavar), and
        # one finds the terminal's width through shutil, which loads the compression
        # modules: the same width, found without it.
        formatter: Callable[..., argparse.HelpFormatter] = self.formatter_class
        return formatter(prog=self.prog, width=_columns() - 2)


def _columns() -> int:
    """The terminal's width as :func:`shutil.get_terminal_size` finds it (``$COLUMNS``, else
    the terminal of standard output, else 80), without loading shutil."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def positive_seconds(text: str) -> float:
    """A time limit: more than 0 seconds and at most :data:`MAX_SECONDS`."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"{text!r} must be more than 0 seconds and at most "
                                         f"{MAX_SECONDS:,} (about four months)")
    return value


def _shown(text: str) -> str:
    """An argument as a message quotes it: cut short past 24 characters."""
    return repr(text) if len(text) <= 24 else f"{text[:20]!r}..."


def positive_int(text: str) -> int:
    """A whole number from 1 to :data:`MAX_COUNT` (a count of solutions, a rank)."""
    try:
        value = int(text) if len(text) <= 30 else 0
    except ValueError:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a whole number") from None
    if not 1 <= value <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{_shown(text)} must be from 1 to {MAX_COUNT:,}")
    return value


def job_count(text: str) -> int:
    """``--jobs``: a whole number of worker processes from 1 to ``MAX_JOBS``; more than
    the cores here is the cores (said on stderr), never a process each. The check is the
    API's (:func:`cpmodels.workers.worker_count`)."""
    import sys

    if len(text) > 30 or not text.strip().isascii() or not text.strip().isdigit():
        raise argparse.ArgumentTypeError(jobs_refused(_shown(text)))
    asked = int(text)
    try:
        value = worker_count(asked)
    except InputError:
        raise argparse.ArgumentTypeError(jobs_refused(_shown(text))) from None
    assert value is not None  # a number was given
    if value < asked:
        here = cores()
        print(f"note: --jobs {asked}: this machine has {here} core{'s' * (here > 1)}; "
              f"running {value} worker process{'es' * (value > 1)}", file=sys.stderr)
    return value


def non_negative_int(text: str) -> int:
    """A whole number from 0 to 1,000,000."""
    if not text.isdigit() or int(text) > 1_000_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 0 to 1,000,000")
    return int(text)


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """The option type of a whole number from ``low`` to ``high``."""
    def parse(text: str) -> int:
        if not text.isdigit() or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a whole number from {low:,} to {high:,}")
        return int(text)
    return parse


def port(text: str) -> int:
    """A TCP port number, 1 to 65535, or 0: a free one the system picks."""
    if not re.fullmatch(r"0|[1-9][0-9]{0,4}", text) or int(text) > 65535:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a port number (1 to 65535, or 0 for a free one)")
    return int(text)


def grid_size(text: str) -> tuple[int, int]:
    """``RxC``: a towers grid's rows and columns, each 1 to 200."""
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size like 6x6 (rows x columns)")
    rows, cols = int(match[1]), int(match[2])
    if not (1 <= rows <= 200 and 1 <= cols <= 200):
        raise argparse.ArgumentTypeError(f"{text!r}: rows and columns must be 1 to 200")
    return rows, cols


def sheet(text: str) -> tuple[float, float]:
    """``--sheet WxH`` in millimetres (``cpmodels.make.sheet_size`` reads it)."""
    from cpmodels.make import sheet_size

    try:
        return sheet_size(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_instance_args(p: argparse.ArgumentParser) -> None:
    """The spec and which of its puzzles: a date or labels, a target, face up."""
    p.add_argument("spec", help="path of a YAML spec (see specs/)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--date", help="calendar specs: a real date, YYYY-MM-DD (default: today)")
    which.add_argument("--labels", nargs="+", metavar="LABEL",
                       help="calendar specs: one label per group, e.g. --labels Feb 31 Mon")
    p.add_argument("--target", help="packing specs with several target boards: which one")
    add_face_up_arg(p)


def add_face_up_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--face-up", "--no-flip", dest="face_up", action="store_true",
                   help="keep every piece face up as drawn (rotations only)")


def add_backend_arg(p: argparse.ArgumentParser, default: str) -> None:
    from cpmodels.backends import BACKENDS

    p.add_argument("--backend", choices=BACKENDS, default=default,
                   help=f"engine (compiled search), cpsat (OR-Tools) or sat (python-sat); "
                   f"default {default}")


def add_cluster_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="run the units of work on a Dask cluster: local, local:N (N workers "
                   "on this machine) or tcp://HOST:PORT (default: $CPMODELS_CLUSTER, else "
                   "this machine only; needs the cluster extra)")


def add_quiet_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (there is none anyway when stderr is not a terminal)")


def assemble(commands: Iterable[AddCommand]) -> argparse.ArgumentParser:
    """The program's parser: ``--version``, and each command added in turn (``--help``
    lists them in that order)."""
    parser = _Parser(prog="cpmodels", description="Solve puzzle specs with constraint models.")
    parser.add_argument("--version", action="version", version=f"cpmodels {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for add in commands:
        add(sub)
    return parser
