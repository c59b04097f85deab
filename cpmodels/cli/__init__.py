"""Command-line interface: parse arguments, call the library, print, set the exit status.

One module per group of commands, each thin, each adding its own subcommands (``add_*``)
and running them (``cmd_*``): ``solving.py`` (solve, verify, prove), ``counting.py`` (count,
enumerate, sweep), ``design.py``, ``exporting.py`` (export, decode, export-suite),
``making.py`` (make), ``catalogue.py`` (serve, validate, specs, schema), ``publishing.py``
(site). They share ``parser.py`` (the option types and groups, the top level),
``runtime.py`` (the cluster, progress bars, the instance the arguments name) and
``output.py`` (text, JSON, pictures, exit codes). Exit status: 0 solved (or done), 1 proved
unsolvable, 2 bad input, 3 stopped by the time limit without an answer, 130 interrupted.
The command modules are imported when the parser is built, inside :func:`run`'s guard, so
Ctrl-C at any moment of start-up is one line and status 130 too; when the arguments begin
with a command's name, that command's module and parser alone. As they load they import
the standard library and these modules alone; each command imports what it uses when it
runs (specs, solvers, the engine), so ``--help`` and the light commands start at once.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cpmodels.cli.output import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_UNKNOWN,
    StandardOutputError,
    finish_stdout,
    guard_stdout,
)
from cpmodels.cli.parser import assemble
from cpmodels.errors import CpmodelsError
from cpmodels.interrupt import TimeLimitReached, interrupt_or_leave, leave_now, time_limit

if TYPE_CHECKING:
    from cpmodels.cli.parser import AddCommand

__all__ = ["COMMANDS", "build_parser", "commands", "execute", "main", "run"]


#: Each command and the module of this package that adds and runs it (``add_NAME``, with
#: ``-`` read as ``_``), in the order ``--help`` lists them.
COMMANDS = (
    ("solve", "solving"), ("count", "counting"), ("enumerate", "counting"),
    ("prove", "solving"), ("sweep", "counting"), ("serve", "catalogue"),
    ("site", "publishing"), ("design", "design"), ("validate", "catalogue"),
    ("verify", "solving"), ("branch", "solving"), ("export", "exporting"),
    ("decode", "exporting"), ("export-suite", "exporting"), ("make", "making"),
    ("schema", "catalogue"), ("specs", "catalogue"),
)


def commands(names: Sequence[str] | None = None) -> tuple[AddCommand, ...]:
    """The parsers of the commands ``names`` (default: every command), in the order
    ``--help`` lists them; only their modules are loaded."""
    return tuple(getattr(importlib.import_module(f"cpmodels.cli.{module}"),
                         "add_" + name.replace("-", "_"))
                 for name, module in COMMANDS if names is None or name in names)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The program's argument parser: every command, its options and their types. For
    ``argv`` (the arguments it will read) that begin with a command's name, the parser of
    that command alone, which reads and answers them as the whole parser does."""
    named = [argv[0]] if argv and argv[0] in {name for name, _ in COMMANDS} else None
    return assemble(commands(named))


SELF_TIMED = ("solve", "count", "prove")  # commands that stop at --time-limit on their own
SELF_TIMED_GRACE = 5.0


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every user error is one line on stderr, never a traceback."""
    try:
        argv = sys.argv[1:] if argv is None else argv
        args = build_parser(argv).parse_args(argv)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return execute(args)


def execute(args: argparse.Namespace) -> int:
    """Run the command ``args`` name (as :func:`main` does once they are parsed)."""
    limit = getattr(args, "time_limit", None)
    if limit is not None and args.command in SELF_TIMED:
        limit += SELF_TIMED_GRACE  # a backstop: these stop on time and answer by themselves
        if getattr(args, "proof", None) is not None and args.command == "solve":
            limit = None  # the certificate is checked after the search's time limit
    try:
        with time_limit(limit):
            return int(args.handler(args))
    except CpmodelsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except SystemError as exc:  # a solver's callback that Ctrl-C or the time limit cut into
        cause: BaseException | None = exc
        while cause is not None and not isinstance(cause, KeyboardInterrupt):
            cause = cause.__cause__ or cause.__context__
        if cause is None:
            raise
        print(f"stopped by the time limit ({args.time_limit:g} s) without an answer"
              if isinstance(cause, TimeLimitReached) else "interrupted", file=sys.stderr)
        return EXIT_UNKNOWN if isinstance(cause, TimeLimitReached) else EXIT_INTERRUPTED
    except TimeLimitReached:
        print(f"stopped by the time limit ({args.time_limit:g} s) without an answer",
              file=sys.stderr)
        return EXIT_UNKNOWN
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`| head`): no more to say
        return EXIT_BAD_INPUT
    except (MemoryError, RuntimeError) as exc:  # a memory limit (``ulimit -v``) reached
        if isinstance(exc, RuntimeError) and "can't start new thread" not in str(exc):
            raise
        print("error: not enough memory for this run (the process may map too little)",
              file=sys.stderr)
        return EXIT_BAD_INPUT


def run() -> None:
    """The program's entry point: read the arguments, run the command (:func:`execute`)
    and exit with its status.

    After Ctrl-C or a time limit everything written is flushed and closed, so the process
    leaves at once rather than wait for a search thread that is still unwinding. Ctrl-C
    at any moment (while the modules load, the arguments are read, or an error is told)
    is status 130 and one line.
    """
    # Ctrl-C is Python's, or already the entry point's, unless the caller ignores it.
    ctrl_c = signal.getsignal(signal.SIGINT) not in (signal.SIG_IGN, signal.SIG_DFL, None)
    if ctrl_c:  # while the modules load and the arguments are read: nothing to keep
        signal.signal(signal.SIGINT, leave_now)
    try:
        try:
            guard_stdout()
        except StandardOutputError as exc:
            print(f"error: {exc}", file=sys.stderr)
            raise SystemExit(EXIT_BAD_INPUT) from None
        args = build_parser(sys.argv[1:]).parse_args()
        if ctrl_c:
            signal.signal(signal.SIGINT, interrupt_or_leave)
        code = execute(args)
        code = finish_stdout() or code
    except KeyboardInterrupt:
        leave_now()
    except SystemExit:  # --help, --version, a bad argument: said already
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # done: Ctrl-C as it leaves changes nothing
    if code in (EXIT_INTERRUPTED, EXIT_UNKNOWN):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)
