"""The argument parser: every command, its options and their types."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from pathlib import Path
from typing import Any

from cpmodels import __version__
from cpmodels.cli.output import EXIT_BAD_INPUT
from cpmodels.errors import InputError
from cpmodels.spec import Spec, TowersSpec, load_spec

MAX_SECONDS = 10_000_000  # the longest time limit taken (longer ones overflow timers)


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad arguments on one line with exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"{text!r} must be more than 0 seconds and at most "
                                         f"{MAX_SECONDS:,} (about four months)")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def _non_negative_int(text: str) -> int:
    if not text.isdigit() or int(text) > 1_000_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 0 to 1,000,000")
    return int(text)


def _port(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1 to 65535)")
    return int(text)


def _size(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size like 6x6 (rows x columns)")
    rows, cols = int(match[1]), int(match[2])
    if not (1 <= rows <= 200 and 1 <= cols <= 200):
        raise argparse.ArgumentTypeError(f"{text!r}: rows and columns must be 1 to 200")
    return rows, cols


def _sheet(text: str) -> tuple[float, float]:
    """``--sheet WxH`` in millimetres (``cpmodels.make.sheet_size`` reads it)."""
    from cpmodels.make import sheet_size

    try:
        return sheet_size(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_instance_args(p: argparse.ArgumentParser) -> None:
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


@contextlib.contextmanager
def cluster_from(args: argparse.Namespace) -> Any:
    """The cluster ``--cluster`` (or ``$CPMODELS_CLUSTER``) names, connected; else None."""
    from cpmodels.backends.engine import CLUSTER_ENV as ENV
    from cpmodels.backends.engine import connect

    address = args.cluster or os.environ.get(ENV)
    if not address:
        yield None
        return
    from cpmodels.backends import Capability, require

    require(getattr(args, "backend", "engine"), Capability.CLUSTER, "--cluster")
    with connect(address) as cluster:
        where = f"; dashboard {cluster.dashboard}" if cluster.dashboard else ""
        n = cluster.workers
        print(f"cluster {cluster.address}: {n} worker{'' if n == 1 else 's'}{where}",
              file=sys.stderr)
        yield cluster


def add_quiet_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (there is none anyway when stderr is not a terminal)")


def advance(bar: Any, done: int, in_all: int) -> None:
    """Show ``done`` of ``in_all`` on a progress bar."""
    bar.total = in_all or None  # 0: not known (solutions counted as they are listed)
    bar.n = done
    bar.refresh()


def bars_on(args: argparse.Namespace) -> bool:
    """Whether to show progress bars: not --quiet, and stderr is a terminal."""
    return not args.quiet and sys.stderr.isatty()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cpmodels", description="Solve puzzle specs with constraint models.")
    parser.add_argument("--version", action="version", version=f"cpmodels {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    solve = sub.add_parser("solve", help="solve one puzzle and show the answer")
    add_instance_args(solve)
    solve.add_argument("--size", type=_size, metavar="RxC", help="towers specs: grid size")
    solve.add_argument("--time-limit", type=_positive_seconds, metavar="S",
                       help="stop after S seconds (towers: return the best board so far)")
    solve.add_argument("--format", choices=("text", "json", "svg", "png"), default="text",
                       help="text (default), json, or a picture: svg or png (with --out)")
    solve.add_argument("--out", type=Path, metavar="FILE",
                       help="write the svg/png picture to FILE (svg goes to stdout without it)")
    solve.add_argument("--proof", type=Path, metavar="FILE",
                       help="towers specs: write a certificate of the optimum to FILE and "
                       "check it (boards up to 8 wide; wider boards get a certified bound "
                       "from two priced bands of rows; see docs/towers.md)")
    add_backend_arg(solve, "cpsat")

    count = sub.add_parser("count", help="count every solution of one puzzle")
    add_instance_args(count)
    count.add_argument("--distinct", action="store_true",
                       help="count solutions up to the board's symmetries")
    count.add_argument("--time-limit", type=_positive_seconds, metavar="S")
    count.add_argument("--format", choices=("text", "json"), default="text")
    add_backend_arg(count, "engine")
    add_cluster_arg(count)
    add_quiet_arg(count)

    enum = sub.add_parser("enumerate", help="write every solution, one JSON object a line")
    add_instance_args(enum)
    enum.add_argument("--out", required=True, type=Path, metavar="FILE",
                      help="FILE.jsonl; for pictures FILE.svg becomes FILE-1.svg, FILE-2.svg...")
    enum.add_argument("--limit", type=_positive_int, metavar="N", help="stop after N solutions")
    enum.add_argument("--resume", action="store_true",
                      help="keep the solutions FILE.jsonl already has and write the rest")
    enum.add_argument("--time-limit", type=_positive_seconds, metavar="S",
                      help="stop after S seconds, keeping every solution written")
    enum.add_argument("--format", choices=("jsonl", "svg", "png"), default="jsonl",
                      help="jsonl (default), or one svg/png picture per solution (with --limit)")
    add_backend_arg(enum, "engine")
    add_cluster_arg(enum)
    add_quiet_arg(enum)

    prove = sub.add_parser("prove", help="solve, or prove there is no solution with a checked "
                           "DRUP proof")
    add_instance_args(prove)
    prove.add_argument("--proof", type=Path, metavar="FILE",
                       help="write the proof to FILE and the formula to FILE.cnf")
    prove.add_argument("--time-limit", type=_positive_seconds, metavar="S")
    prove.add_argument("--format", choices=("text", "json"), default="text")

    sweep = sub.add_parser("sweep", help="count every label combination of a calendar spec")
    sweep.add_argument("spec")
    sweep.add_argument("--out", required=True, type=Path, metavar="FILE.csv")
    sweep.add_argument("--jobs", type=_positive_int, metavar="N",
                       help="worker processes (default: every core; they are used once the "
                       "first month has taken over a second)")
    sweep.add_argument("--resume", action="store_true",
                       help="keep the rows FILE.csv already has and count the rest")
    sweep.add_argument("--time-limit", type=_positive_seconds, metavar="S",
                       help="stop after S seconds, keeping the finished rows (then --resume)")
    add_face_up_arg(sweep)
    sweep.add_argument("--prove", action="store_true",
                       help="attach a checked proof to every unsolvable row (FILE.proofs/)")
    sweep.add_argument("--difficulty", action="store_true",
                       help="add a difficulty column: the mean nodes a plain backtracker "
                       "visits before its first solution, over 16 piece orders (see "
                       "docs/difficulty.md)")
    sweep.add_argument("--plot", type=Path, metavar="FILE.png",
                       help="draw a calendar heatmap of the counts (png, or svg by extension)")
    sweep.add_argument("--format", choices=("text", "json"), default="text")
    add_cluster_arg(sweep)
    add_quiet_arg(sweep)

    serve = sub.add_parser("serve", help="serve the daily-puzzle web page")
    serve.add_argument("specs", nargs="*", metavar="SPEC",
                       help="calendar specs to offer, by path or name (default: the bundled "
                       "calendars)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=_port, default=8000)
    serve.add_argument("--workers", type=_positive_int, metavar="N",
                       help="searches run at once (default: one per core)")
    serve.add_argument("--queue", type=_non_negative_int, default=None, metavar="N",
                       help="searches that may wait for a worker; more get 503 (default 64)")
    serve.add_argument("--request-timeout", type=_positive_seconds, default=20.0, metavar="S",
                       help="seconds a request may take before it answers 504 (default 20)")

    design = sub.add_parser("design", help="try piece sets on a calendar board: which solve "
                            "every date, and how hard each set is")
    design.add_argument("design", metavar="DESIGN", help="a design file (see specs/designs/)")
    design.add_argument("--out", type=Path, metavar="FILE.jsonl",
                        help="one JSON line per candidate set as it is decided")
    design.add_argument("--resume", action="store_true",
                        help="keep the sets FILE.jsonl already has and decide the rest")
    design.add_argument("--time-limit", type=_positive_seconds, metavar="S",
                        help="stop after S seconds, keeping the sets decided (then --resume)")
    design.add_argument("--jobs", type=_positive_int, metavar="N",
                        help="worker processes (default: every core)")
    design.add_argument("--no-counts", action="store_true",
                        help="only decide which sets work; do not count their solutions")
    design.add_argument("--best", type=_positive_int, metavar="K",
                        help="count only the K best working sets (the most solutions on "
                        "their hardest date): the first K of the full ranking")
    design.add_argument("--difficulty", action="store_true",
                        help="measure each working set's difficulty on every required date "
                        "(see docs/difficulty.md) and rank the sets by it too")
    design.add_argument("--format", choices=("text", "json"), default="text")
    add_cluster_arg(design)
    add_quiet_arg(design)

    validate = sub.add_parser("validate", help="check spec (and design) files and report "
                              "every problem")
    validate.add_argument("specs", nargs="+", metavar="SPEC")

    verify = sub.add_parser("verify", help="check a towers certificate written by solve "
                            "--proof, without the solver")
    verify.add_argument("spec", help="the towers spec the certificate is for")
    verify.add_argument("--proof", type=Path, metavar="FILE", required=True,
                        help="the certificate")
    verify.add_argument("--size", type=_size, metavar="RxC",
                        help="the board size (default: the size the certificate is for)")
    verify.add_argument("--format", choices=("text", "json"), default="text")
    add_quiet_arg(verify)

    from cpmodels.formats import FORMAT_NAMES

    export = sub.add_parser("export", help="write one puzzle's model for another solver: "
                            "DIMACS, XCC, OPB, MPS, LP, CP-SAT or MiniZinc")
    add_instance_args(export)
    export.add_argument("--size", type=_size, metavar="RxC", help="towers specs: grid size")
    export.add_argument("--format", choices=FORMAT_NAMES,
                        help="the model's format (default: told by --out's extension)")
    export.add_argument("--out", required=True, type=Path, metavar="FILE",
                        help="the file to write (mzn: FILE.mzn and FILE.dzn; '-' with "
                        "--format: standard output)")

    decode = sub.add_parser("decode", help="read another solver's answer to an exported "
                            "model back, check it against the spec and draw it")
    add_instance_args(decode)
    decode.add_argument("--size", type=_size, metavar="RxC", help="towers specs: grid size")
    decode.add_argument("--format", required=True, choices=FORMAT_NAMES,
                        help="the format of the model the solver was given")
    decode.add_argument("--model", required=True, type=Path, metavar="FILE",
                        help="the solver's output ('-': standard input)")
    decode.add_argument("--proof", type=Path, metavar="FILE",
                        help="dimacs: the solver's DRUP/DRAT proof (text or binary) of an "
                        "UNSATISFIABLE answer, checked by the package's own checker")
    decode.add_argument("--output", choices=("text", "json"), default="text",
                        help="how to print the checked answer (default text)")

    suite = sub.add_parser("export-suite", help="write a benchmark set: bundled puzzles in "
                           "every format, with a manifest of their verified answers")
    suite.add_argument("dir", type=Path, metavar="DIR", help="a new (or empty) directory")
    add_quiet_arg(suite)

    make = sub.add_parser("make", help="cut files (SVG, DXF) and 3-D prints (STL) of a "
                          "puzzle's pieces, frame and tray, with a manifest")
    make.add_argument("spec", help="a calendar or packing spec (path or bundled name), or a "
                      "design file with --set N")
    make.add_argument("--set", type=_positive_int, metavar="N",
                      help="design files: make the N-th working set of the ranking")
    make.add_argument("--verdicts", type=Path, metavar="FILE.jsonl",
                      help="design files: the verdicts 'design --out' wrote (else every set "
                           "is decided first)")
    make.add_argument("--jobs", type=_positive_int, metavar="N",
                      help="design files: worker processes deciding the sets")
    make.add_argument("--out", required=True, type=Path, metavar="DIR",
                      help="a new (or empty) directory")
    make.add_argument("--target", help="packing specs: the board to make (default: the first)")
    make.add_argument("--cell", type=float, default=20.0, metavar="MM",
                      help="a cell's side in millimetres (default 20)")
    make.add_argument("--kerf", type=float, default=0.15, metavar="MM",
                      help="the width the laser burns away (default 0.15)")
    make.add_argument("--clearance", type=float, default=0.2, metavar="MM",
                      help="the play a piece needs to slide in (default 0.2)")
    make.add_argument("--sheet", type=_sheet, default=(600.0, 400.0), metavar="WxH",
                      help="the sheets to cut from, or for a cube grid the print plate, in "
                           "millimetres (default 600x400)")
    make.add_argument("--thickness", type=float, default=4.0, metavar="MM",
                      help="printed pieces' thickness and the tray's depth (default 4)")
    make.add_argument("--border", type=float, metavar="MM",
                      help="the frame around the board (default half a cell)")
    make.add_argument("--font", metavar="FILE",
                      help="a TTF or OTF font for the engraved labels (default: DejaVu Sans "
                           "Bold, or a font here that has every character)")
    make.add_argument("--format", choices=("text", "json"), default="text",
                      help="json: print the manifest")
    add_quiet_arg(make)

    sub.add_parser("schema", help="print the JSON Schema of spec files (for editors)")

    listing = sub.add_parser("specs", help="list the bundled specs: any command takes their "
                             "names instead of paths (cpmodels solve calendar_week)")
    listing.add_argument("--format", choices=("text", "json"), default="text")
    return parser


def packing_instance_of(args: argparse.Namespace, spec: Spec | None = None):
    """The instance the arguments ask for (``--date``/``--labels``/``--target``/``--face-up``)."""
    from cpmodels.instance import packing_instance
    from cpmodels.query import Query

    spec = spec if spec is not None else load_spec(args.spec)
    if isinstance(spec, TowersSpec):
        raise InputError(f"{args.command} applies to packing and calendar specs, "
                         "not to towers")
    return packing_instance(Query.of(spec, target=args.target, labels=args.labels,
                                     date=args.date, face_up=args.face_up))
