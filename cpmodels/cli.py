"""Command-line interface: parse arguments, call the library, print, set the exit status.

Exit status: 0 solved (or done), 1 proved unsolvable, 2 bad input, 3 stopped by the time
limit without an answer, 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cpmodels import __version__
from cpmodels.errors import CpmodelsError, InputError
from cpmodels.interrupt import TimeLimitReached, time_limit
from cpmodels.spec import CalendarSpec, Spec, TowersSpec, json_schema, load_spec
from cpmodels.spec.bundled import bundled_specs, spec_path
from cpmodels.spec.design import DesignSpec
from cpmodels.spec.loading import is_design, load_design

EXIT_OK, EXIT_UNSOLVABLE, EXIT_BAD_INPUT, EXIT_UNKNOWN, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
MAX_SECONDS = 10_000_000  # the longest time limit taken (longer ones overflow timers)
MAX_CONNECTIONS = 256  # open connections the server takes before answering 503
STATUS_EXIT = {"solved": EXIT_OK, "unsolvable": EXIT_UNSOLVABLE, "unknown": EXIT_UNKNOWN}


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


def _add_instance_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="path of a YAML spec (see specs/)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--date", help="calendar specs: a real date, YYYY-MM-DD (default: today)")
    which.add_argument("--labels", nargs="+", metavar="LABEL",
                       help="calendar specs: one label per group, e.g. --labels Feb 31 Mon")
    p.add_argument("--target", help="packing specs with several target boards: which one")
    _add_face_up_arg(p)


def _add_face_up_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--face-up", "--no-flip", dest="face_up", action="store_true",
                   help="keep every piece face up as drawn (rotations only)")


def _add_backend_arg(p: argparse.ArgumentParser, default: str) -> None:
    from cpmodels.backends import BACKENDS

    p.add_argument("--backend", choices=BACKENDS, default=default,
                   help=f"engine (compiled search), cpsat (OR-Tools) or sat (python-sat); "
                   f"default {default}")


def _add_cluster_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="run the units of work on a Dask cluster: local, local:N (N workers "
                   "on this machine) or tcp://HOST:PORT (default: $CPMODELS_CLUSTER, else "
                   "this machine only; needs the cluster extra)")


@contextlib.contextmanager
def _cluster(args: argparse.Namespace) -> Any:
    """The cluster ``--cluster`` (or ``$CPMODELS_CLUSTER``) names, connected; else None."""
    from cpmodels.backends.engine.cluster import ENV, connect

    address = args.cluster or os.environ.get(ENV)
    if not address:
        yield None
        return
    if getattr(args, "backend", "engine") != "engine":
        raise InputError(f"--cluster runs the engine's units of work, not {args.backend}'s; "
                         "leave out --backend or --cluster")
    with connect(address) as cluster:
        where = f"; dashboard {cluster.dashboard}" if cluster.dashboard else ""
        n = cluster.workers
        print(f"cluster {cluster.address}: {n} worker{'' if n == 1 else 's'}{where}",
              file=sys.stderr)
        yield cluster


def _add_quiet_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (there is none anyway when stderr is not a terminal)")


def _advance(bar: Any, done: int, in_all: int) -> None:
    """Show ``done`` of ``in_all`` on a progress bar."""
    bar.total = in_all or None  # 0: not known (solutions counted as they are listed)
    bar.n = done
    bar.refresh()


def _bars(args: argparse.Namespace) -> bool:
    """Whether to show progress bars: not --quiet, and stderr is a terminal."""
    return not args.quiet and sys.stderr.isatty()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cpmodels", description="Solve puzzle specs with constraint models.")
    parser.add_argument("--version", action="version", version=f"cpmodels {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    solve = sub.add_parser("solve", help="solve one puzzle and show the answer")
    _add_instance_args(solve)
    solve.add_argument("--size", type=_size, metavar="RxC", help="towers specs: grid size")
    solve.add_argument("--time-limit", type=_positive_seconds, metavar="S",
                       help="stop after S seconds (towers: return the best board so far)")
    solve.add_argument("--format", choices=("text", "json", "svg", "png"), default="text",
                       help="text (default), json, or a picture: svg or png (with --out)")
    solve.add_argument("--out", type=Path, metavar="FILE",
                       help="write the svg/png picture to FILE (svg goes to stdout without it)")
    solve.add_argument("--proof", type=Path, metavar="FILE",
                       help="towers specs: write a certificate of the optimum to FILE and "
                       "check it (boards up to 8 wide; see docs/towers.md)")
    _add_backend_arg(solve, "cpsat")

    count = sub.add_parser("count", help="count every solution of one puzzle")
    _add_instance_args(count)
    count.add_argument("--distinct", action="store_true",
                       help="count solutions up to the board's symmetries")
    count.add_argument("--time-limit", type=_positive_seconds, metavar="S")
    count.add_argument("--format", choices=("text", "json"), default="text")
    _add_backend_arg(count, "engine")
    _add_cluster_arg(count)
    _add_quiet_arg(count)

    enum = sub.add_parser("enumerate", help="write every solution, one JSON object a line")
    _add_instance_args(enum)
    enum.add_argument("--out", required=True, type=Path, metavar="FILE",
                      help="FILE.jsonl; for pictures FILE.svg becomes FILE-1.svg, FILE-2.svg...")
    enum.add_argument("--limit", type=_positive_int, metavar="N", help="stop after N solutions")
    enum.add_argument("--resume", action="store_true",
                      help="keep the solutions FILE.jsonl already has and write the rest")
    enum.add_argument("--time-limit", type=_positive_seconds, metavar="S",
                      help="stop after S seconds, keeping every solution written")
    enum.add_argument("--format", choices=("jsonl", "svg", "png"), default="jsonl",
                      help="jsonl (default), or one svg/png picture per solution (with --limit)")
    _add_backend_arg(enum, "engine")
    _add_cluster_arg(enum)
    _add_quiet_arg(enum)

    prove = sub.add_parser("prove", help="solve, or prove there is no solution with a checked "
                           "DRUP proof")
    _add_instance_args(prove)
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
    _add_face_up_arg(sweep)
    sweep.add_argument("--prove", action="store_true",
                       help="attach a checked proof to every unsolvable row (FILE.proofs/)")
    sweep.add_argument("--difficulty", action="store_true",
                       help="add a difficulty column: the mean nodes a plain backtracker "
                       "visits before its first solution, over 16 piece orders (see "
                       "docs/difficulty.md)")
    sweep.add_argument("--plot", type=Path, metavar="FILE.png",
                       help="draw a calendar heatmap of the counts (png, or svg by extension)")
    sweep.add_argument("--format", choices=("text", "json"), default="text")
    _add_cluster_arg(sweep)
    _add_quiet_arg(sweep)

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
    design.add_argument("--difficulty", action="store_true",
                        help="measure each working set's difficulty on every required date "
                        "(see docs/difficulty.md) and rank the sets by it too")
    design.add_argument("--format", choices=("text", "json"), default="text")
    _add_cluster_arg(design)
    _add_quiet_arg(design)

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
    _add_quiet_arg(verify)

    sub.add_parser("schema", help="print the JSON Schema of spec files (for editors)")

    listing = sub.add_parser("specs", help="list the bundled specs: any command takes their "
                             "names instead of paths (cpmodels solve calendar_week)")
    listing.add_argument("--format", choices=("text", "json"), default="text")
    return parser


def _colour_ok(stream: Any) -> bool:
    return (hasattr(stream, "isatty") and stream.isatty() and "NO_COLOR" not in os.environ
            and os.environ.get("TERM") != "dumb")


def _emit(payload: dict[str, Any], text: str, fmt: str) -> None:
    if fmt == "json":
        print(json.dumps(payload))
    else:
        print(text)


PICTURES = ("svg", "png")


def _picture_bytes(scene: Any, fmt: str) -> bytes:
    if fmt == "svg":
        from cpmodels.render.svg import scene_svg

        return scene_svg(scene).encode()
    from cpmodels.render.raster import scene_png

    return scene_png(scene)


def _write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically; a failure is bad input naming the file."""
    from cpmodels.files import write_atomic

    try:
        write_atomic(path, data)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


def _write_picture(scene: Any, fmt: str, out: Path | None, text: str) -> None:
    """Write the picture to ``out`` (and say so), or an SVG to stdout when there is no file."""
    if out is None:
        if fmt == "png":
            raise InputError("--format png needs --out FILE.png")
        sys.stdout.write(_picture_bytes(scene, fmt).decode())
        return
    _write_file(out, _picture_bytes(scene, fmt))
    print(f"{text}\npicture written to {out}")


def _pictures() -> Any:
    """The picture module, imported only when a picture is asked for (it loads matplotlib)."""
    from cpmodels.render import pictures

    return pictures


def _answer(args: argparse.Namespace, payload: dict[str, Any], text: str,
            picture: Callable[[], Any]) -> None:
    """Print the answer as ``--format`` asks: text, JSON, or a picture drawn by ``picture``."""
    if args.format in PICTURES:
        _write_picture(picture(), args.format, args.out, text)
    else:
        _emit(payload, text, args.format)


def cmd_solve(args: argparse.Namespace) -> int:
    spec = load_spec(args.spec)
    if args.out is not None and args.format not in PICTURES:
        raise InputError("--out goes with --format svg or png")
    colour = _colour_ok(sys.stdout)
    if isinstance(spec, TowersSpec):
        for flag in ("date", "labels", "target"):
            if getattr(args, flag) is not None:
                raise InputError(f"--{flag} does not apply to a towers spec")
        from cpmodels.backends import towers_solver
        from cpmodels.render import towers_payload, towers_text
        from cpmodels.towers_problem import towers_problem

        rows, cols = args.size or (None, None)
        problem = towers_problem(spec, rows, cols)
        if args.proof is None:
            towers = towers_solver.solve(problem, time_limit=args.time_limit)
            _answer(args, towers_payload(problem, towers), towers_text(problem, towers, colour),
                    lambda: _pictures().towers_picture(problem, towers))
            return STATUS_EXIT[towers.status]
        return _solve_towers_with_proof(args, problem, colour)

    if args.size is not None:
        raise InputError("--size applies to towers specs only")
    if args.proof is not None:
        raise InputError("solve --proof is for towers specs; a packing puzzle's proof of "
                         "no solution comes from prove --proof")
    from cpmodels.backends import solve_cover
    from cpmodels.render import packing_payload, packing_text

    instance = _packing_instance(args, spec)
    result = solve_cover(args.backend, instance.cover, time_limit=args.time_limit)
    _answer(args, packing_payload(instance, result), packing_text(instance, result, colour),
            lambda: _pictures().packing_picture(instance, result))
    return STATUS_EXIT[result.status]


def _solve_towers_with_proof(args: argparse.Namespace, problem: Any, colour: bool) -> int:
    """Solve, write the programme's certificate of the answer, and check it."""
    from cpmodels.backends import towers_dp, towers_solver
    from cpmodels.render import towers_payload, towers_text
    from cpmodels.towers_certificate import CertificateWriter, check_certificate

    if min(problem.rows, problem.cols) > towers_solver.DP_PROOF_WIDTH:
        raise InputError(f"certificates come from the exact programme, which proves boards "
                         f"up to {towers_solver.DP_PROOF_WIDTH} wide; "
                         f"{problem.rows}x{problem.cols} is wider (drop --proof for its "
                         "best board and bound)")
    writer = CertificateWriter(args.proof, problem, towers_dp.key_layout(problem))
    try:
        result = towers_solver.solve(problem, time_limit=args.time_limit,
                                     layer_sink=writer.layer)
        proved = result.status == "unsolvable" or result.optimal
        if proved and writer.complete:
            writer.finish(result.score, result.grid or None)
        else:
            writer.discard()
    except OSError as exc:
        writer.discard()
        raise InputError(f"cannot write {args.proof}: {exc.strerror or exc}") from None
    except BaseException:
        writer.discard()
        raise
    payload = towers_payload(problem, result)
    text = towers_text(problem, result, colour)

    def picture() -> Any:
        return _pictures().towers_picture(problem, result)

    if not (proved and writer.complete):
        why = ("the optimum was not proved" if not proved
               else "the programme did not finish within the time limit")
        payload.update(proof=None, proof_checked=False)
        _answer(args, payload, f"{text}\nno certificate written: {why}", picture)
        return EXIT_UNKNOWN
    check = check_certificate(args.proof, problem)
    payload.update(proof=str(args.proof), proof_checked=check.ok, proof_states=check.states)
    note = (f"certificate in {args.proof}, checked: {check.states:,} states in "
            f"{check.layers} layers" if check.ok
            else f"certificate in {args.proof} was rejected: {check.message}")
    _answer(args, payload, f"{text}\n{note}", picture)
    return STATUS_EXIT[result.status] if check.ok else EXIT_UNKNOWN


def cmd_verify(args: argparse.Namespace) -> int:
    from cpmodels.progress import progress_bar
    from cpmodels.towers_certificate import check_certificate, read_header
    from cpmodels.towers_problem import towers_problem

    spec = load_spec(args.spec)
    if not isinstance(spec, TowersSpec):
        raise InputError(f"verify checks towers certificates; {args.spec} is not a towers "
                         "spec (a packing puzzle's DRUP proof is checked by prove itself)")
    if not args.proof.is_file():
        raise InputError(f"{args.proof}: no such file")
    try:
        header = read_header(args.proof)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"cannot read {args.proof}: {exc.strerror or exc}") from None
    if args.size is not None:
        rows, cols = args.size
    elif isinstance(header.get("rows"), int) and isinstance(header.get("cols"), int) \
            and header["rows"] > 0 and header["cols"] > 0:
        rows, cols = header["rows"], header["cols"]
    else:
        raise InputError(f"{args.proof}: the header gives no board size")
    problem = towers_problem(spec, rows, cols)
    with progress_bar(total=rows * cols, desc="checking", unit="layer",
                      enabled=_bars(args)) as bar:
        check = check_certificate(args.proof, problem,
                                  on_layer=lambda t, total: bar.update(1))
    payload = {"spec": problem.name, "size": [rows, cols], "proof": str(args.proof),
               "ok": check.ok, "optimum": check.optimum, "states": check.states,
               "message": check.message}
    if check.ok:
        what = (f"optimum {check.optimum:,} proved" if check.optimum is not None
                else "no legal board, proved")
        text = (f"{problem.name} {rows}x{cols}: {what} (certificate checked: {check.states:,} "
                f"states in {check.layers} layers)")
    else:
        text = f"{problem.name} {rows}x{cols}: certificate rejected: {check.message}"
    _emit(payload, text, args.format)
    return EXIT_OK if check.ok else EXIT_UNKNOWN


def _packing_instance(args: argparse.Namespace, spec: Spec | None = None):
    """The instance the arguments ask for (``--date``/``--labels``/``--target``/``--face-up``)."""
    from cpmodels.instance import packing_instance
    from cpmodels.query import Query

    spec = spec if spec is not None else load_spec(args.spec)
    if isinstance(spec, TowersSpec):
        raise InputError(f"{args.command} applies to packing and calendar specs, "
                         "not to towers")
    return packing_instance(Query.of(spec, target=args.target, labels=args.labels,
                                     date=args.date, face_up=args.face_up))


def cmd_count(args: argparse.Namespace) -> int:
    from cpmodels.counting import count_instance
    from cpmodels.progress import progress_bar
    from cpmodels.render import count_payload

    instance = _packing_instance(args)
    with _cluster(args) as cluster, progress_bar(total=None, desc="count", unit="unit",
                                                 enabled=_bars(args)) as bar:
        result = count_instance(instance, distinct=args.distinct, time_limit=args.time_limit,
                                backend=args.backend, cluster=cluster,
                                progress=lambda done, in_all: _advance(bar, done, in_all))
        on = cluster.describe() if cluster is not None else {}
    payload = {**count_payload(instance, result), **on}
    what = (f"{result.count:,} distinct solutions (up to {result.symmetries} symmetries)"
            if args.distinct else f"{result.count:,} solutions") if result.count is not None \
        else "unknown: stopped at the time limit"
    name = instance.name + (f" / {instance.target}" if instance.target != instance.name else "")
    labels = f" {' '.join(instance.labels)}" if instance.labels else ""
    _emit(payload, f"{name}{labels}: {what} in {result.seconds:.2f} s ({result.backend})",
          args.format)
    if result.count is None:
        return EXIT_UNKNOWN
    return EXIT_OK if result.count else EXIT_UNSOLVABLE


def cmd_enumerate(args: argparse.Namespace) -> int:
    import time

    from cpmodels.backends import iter_cover_solutions
    from cpmodels.backends.result import CoverResult
    from cpmodels.progress import progress_bar
    from cpmodels.render import packing_payload

    picture = args.format in PICTURES
    if picture:
        if args.limit is None:
            raise InputError(f"--format {args.format} writes one picture per solution; "
                             "give --limit N")
        if args.resume:
            raise InputError("--resume goes with --format jsonl")
        from cpmodels.render.pictures import packing_picture
    instance = _packing_instance(args)
    start = time.perf_counter()
    kept = _keep_complete_lines(args.out) if args.resume else 0
    written = kept
    where = (f"{args.out.with_suffix('')}-N.{args.format}" if picture else str(args.out))
    bar = progress_bar(total=args.limit, desc="enumerate", unit="sol",
                       enabled=_bars(args))
    bar.update(kept)
    try:
        with _cluster(args) as cluster, bar, (contextlib.nullcontext() if picture else
                                              args.out.open("a" if args.resume else "w")
                                              ) as handle:
            if cluster is not None:
                from cpmodels.backends.engine.cluster import solutions_on

                stream = solutions_on(cluster, instance.cover)
            else:
                stream = iter_cover_solutions(args.backend, instance.cover)
            # Solutions come in the same order every run (on a cluster too): skip those the
            # earlier run wrote.
            solutions = itertools.islice(stream, kept, args.limit)
            for chosen in solutions:
                result = CoverResult("solved", args.backend, time.perf_counter() - start,
                                     sorted(chosen))
                written += 1
                if picture:
                    path = args.out.with_name(f"{args.out.stem}-{written}.{args.format}")
                    _write_file(path, _picture_bytes(packing_picture(instance, result),
                                                     args.format))
                else:
                    assert handle is not None  # opened above when no picture is asked for
                    handle.write(json.dumps(packing_payload(instance, result)) + "\n")
                    handle.flush()
                bar.update()
    except OSError as exc:
        raise InputError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    except KeyboardInterrupt as stop:
        again = ("" if picture else
                 "; run the same command with --resume to write the rest")
        print(f"{_stopped(stop)}: {written} complete solutions kept in {where}{again}",
              file=sys.stderr)
        return _stop_status(stop)
    print(f"{written} solutions written to {where} in {time.perf_counter() - start:.2f} s "
          f"({args.backend})")
    return EXIT_OK if written else EXIT_UNSOLVABLE


def _keep_complete_lines(path: Path) -> int:
    """Drop a line cut short by a killed run (atomically); the number of complete lines."""
    if not path.exists():
        return 0
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    if complete != data:
        _write_file(path, complete)
    return complete.count(b"\n")


def _stopped(stop: BaseException) -> str:
    return str(stop) if isinstance(stop, TimeLimitReached) else "interrupted"


def _stop_status(stop: BaseException) -> int:
    return EXIT_UNKNOWN if isinstance(stop, TimeLimitReached) else EXIT_INTERRUPTED


def cmd_prove(args: argparse.Namespace) -> int:
    from cpmodels.proving import prove_cover
    from cpmodels.render import packing_payload, packing_text

    instance = _packing_instance(args)
    try:
        outcome = prove_cover(instance.cover, args.proof, time_limit=args.time_limit)
    except OSError as exc:
        raise InputError(f"cannot write {args.proof}: {exc.strerror or exc}") from None
    result, check = outcome.result, outcome.check
    payload = packing_payload(instance, result)
    if check is None:
        _emit(payload, packing_text(instance, result, _colour_ok(sys.stdout)), args.format)
        return STATUS_EXIT[result.status]
    payload.update(proof_checked=check.ok, lemmas=check.lemmas,
                   proof=str(args.proof) if args.proof else None)
    if check.ok:
        where = f"; proof in {args.proof}, formula in {args.proof}.cnf" if args.proof else ""
        text = f"unsolvable (proof checked: {check.lemmas} lemmas){where}"
    else:
        text = f"no solution found, but the proof was rejected: {check.message}"
    _emit(payload, text, args.format)
    return EXIT_UNSOLVABLE if check.ok else EXIT_UNKNOWN


def cmd_sweep(args: argparse.Namespace) -> int:
    import time

    from cpmodels.progress import progress_bar
    from cpmodels.sweep import run_sweep

    spec = load_spec(args.spec)
    if not isinstance(spec, CalendarSpec):
        raise InputError(f"sweep needs a calendar spec; {args.spec} is a {spec.kind} spec")
    if args.plot is not None and args.plot.suffix.lower() not in (".png", ".svg"):
        raise InputError(f"--plot {args.plot}: give a .png or .svg file name")
    if len(spec.groups) < 2 and args.plot is not None:
        raise InputError(f"--plot needs at least two label groups; {spec.name} has one")
    start = time.perf_counter()
    try:
        with _cluster(args) as cluster, progress_bar(total=None, desc="sweep", unit="combo",
                                                     enabled=_bars(args)) as bar:
            summary = run_sweep(spec, args.out, jobs=args.jobs, resume=args.resume,
                                face_up=args.face_up, prove=args.prove, cluster=cluster,
                                difficulty=args.difficulty,
                                progress=lambda done, in_all: _advance(bar, done, in_all))
            on = ({**cluster.describe(), "units": summary.units} if cluster is not None
                  else {})
    except OSError as exc:
        raise InputError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    except KeyboardInterrupt as stop:
        print(f"{_stopped(stop)}: the finished rows are kept in {args.out}; run the same "
              "command with --resume to count the rest", file=sys.stderr)
        return _stop_status(stop)
    seconds = time.perf_counter() - start
    payload = {**summary.as_dict(), "spec": spec.name, "seconds": round(seconds, 3), **on}
    lines = [
        f"{spec.name}: {summary.combinations} combinations, {summary.total:,} solutions "
        f"({summary.real_total:,} over real dates) in {seconds:.2f} s; rows in {args.out}",
    ]
    if summary.fewest and summary.most:
        lines.append(f"fewest: {' '.join(summary.fewest.labels)} with {summary.fewest.count:,}")
        lines.append(f"most: {' '.join(summary.most.labels)} with {summary.most.count:,}")
    for word, row in (("most difficult", summary.most_difficult),
                      ("least difficult", summary.least_difficult)):
        if row is not None:
            lines.append(f"{word}: {' '.join(row.labels)} (difficulty {row.difficulty:,}, "
                         f"{row.count:,} solutions)")
    lines.append(f"unsolvable: {len(summary.unsolvable)}" + (
        " (" + ", ".join(" ".join(u) for u in summary.unsolvable[:20])
        + (", ..." if len(summary.unsolvable) > 20 else "") + ")"
        if summary.unsolvable else ""))
    if args.prove and summary.unsolvable:
        lines.append(f"proofs: {summary.proofs} of {len(summary.unsolvable)} checked, in "
                     f"{args.out}.proofs/")
    if args.plot is not None:
        from cpmodels.api import SweepResult
        from cpmodels.render.raster import figure_bytes

        figure = SweepResult(spec, summary).figure()
        _write_file(args.plot, figure_bytes(figure, args.plot.suffix.lower().lstrip(".")))
        lines.append(f"heatmap in {args.plot}")
        payload["plot"] = str(args.plot)
    _emit(payload, "\n".join(lines), args.format)
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from cpmodels.web.app import create_app

    paths = [spec_path(p) for p in args.specs]
    if not paths:
        # The bundled calendars, the weekday calendar (the main puzzle) first: the page
        # opens on the first spec.
        paths = sorted((p for p in bundled_specs().values()
                        if not is_design(p) and isinstance(load_spec(p), CalendarSpec)),
                       key=lambda p: (p.stem != "calendar_week", p.name))
        if not paths:
            raise InputError("no bundled calendar specs were found; name the specs to serve")
    app = create_app(paths, workers=args.workers, queue=args.queue,
                     time_limit=args.request_timeout)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: listening on {args.host}, not only on this machine", file=sys.stderr)
    print(f"serving {len(paths)} calendar spec(s) on http://{args.host}:{args.port}/ "
          "(Ctrl-C stops)", flush=True)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning",
                    limit_concurrency=MAX_CONNECTIONS)
    except OSError as exc:
        raise InputError(f"cannot listen on {args.host}:{args.port}: "
                         f"{exc.strerror or exc}") from None
    return EXIT_OK


def cmd_design(args: argparse.Namespace) -> int:
    import time

    from cpmodels.design import (
        Design,
        Verdict,
        load_board,
        ranked,
        ranked_by_difficulty,
        run_design,
        summary,
    )
    from cpmodels.progress import progress_bar

    spec = load_design(args.design)
    design = Design(spec, load_board(spec, args.design), with_counts=not args.no_counts,
                    with_difficulty=args.difficulty)
    if args.resume and args.out is None:
        raise InputError("--resume goes with --out FILE.jsonl")
    done: dict[tuple[str, ...], Verdict] = {}
    if args.resume and args.out.exists():
        _keep_complete_lines(args.out)
        for line in args.out.read_text().splitlines():
            try:
                verdict = Verdict.from_dict(json.loads(line))
            except ValueError:
                raise InputError(f"{args.out} holds a line that is no design verdict; give "
                                 "another --out") from None
            done[tuple(verdict.pieces)] = verdict
    start = time.perf_counter()
    handle = args.out.open("a" if args.resume else "w") if args.out is not None else None
    bar = progress_bar(total=None, desc="design", unit="set", enabled=_bars(args))

    def decided(verdict: Verdict) -> None:
        if handle is not None:
            handle.write(json.dumps(verdict.as_dict()) + "\n")
            handle.flush()
        bar.update()

    try:
        with bar, _cluster(args) as cluster:
            verdicts = run_design(design, done=done, on_verdict=decided, jobs=args.jobs,
                                  cluster=cluster)
            on = cluster.describe() if cluster is not None else {}
    except KeyboardInterrupt as stop:
        where = f"; the sets decided are kept in {args.out} (then --resume)" if handle else ""
        print(f"{_stopped(stop)}{where}", file=sys.stderr)
        return _stop_status(stop)
    finally:
        if handle is not None:
            handle.close()
    seconds = time.perf_counter() - start
    working = ranked(verdicts)
    skipped = design.skipped()
    payload = {**summary(verdicts, seconds, skipped), **on}
    same = f" ({skipped} more skipped as equal to an earlier set)" if skipped else ""
    lines = [f"{spec.name}: {len(verdicts)} candidate sets{same}, {len(working)} solve every "
             f"required combination ({len(design.required)}) in {seconds:.2f} s"]
    counted = [w for w in working if w.min is not None]
    if counted:
        lines.append("ranked by the fewest solutions of a required combination, most first:")
        lines.append(f"{'pieces':40s} {'fewest':>7s} {'on':12s} {'most':>7s} {'total':>10s}")
        lines += [f"{' '.join(w.pieces):40s} {w.min:7,d} {' '.join(w.argmin or ()):12s} "
                  f"{w.max or 0:7,d} {w.total or 0:10,d}" for w in counted]
    by_difficulty = ranked_by_difficulty(verdicts)
    if working and not counted and not by_difficulty:
        lines += [" ".join(w.pieces) for w in working]
    if by_difficulty:
        lines.append("ranked by the difficulty of the hardest combination, gentlest first:")
        lines.append(f"{'pieces':40s} {'hardest':>8s} {'on':12s} {'mean':>7s}")
        lines += [f"{' '.join(w.pieces):40s} {w.difficulty:8,d} "
                  f"{' '.join(w.difficulty_argmax or ()):12s} {w.difficulty_mean or 0:7,d}"
                  for w in by_difficulty]
    _emit(payload, "\n".join(lines), args.format)
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    from cpmodels.design import load_board

    worst = EXIT_OK
    for path in args.specs:
        try:
            spec: Spec | DesignSpec
            if is_design(path):
                spec = load_design(path)
                load_board(spec, path)
            else:
                spec = load_spec(path)
        except CpmodelsError as exc:
            print(f"error: {exc}", file=sys.stderr)
            worst = EXIT_BAD_INPUT
            continue
        print(f"{path}: ok ({spec.kind} '{spec.name}')")
    return worst


def cmd_specs(args: argparse.Namespace) -> int:
    listed = []
    for name, path in bundled_specs().items():
        spec = load_design(path) if is_design(path) else load_spec(path)
        listed.append({"name": name, "kind": spec.kind,
                       "description": spec.description.strip().splitlines()[0]
                       if spec.description.strip() else ""})
    if args.format == "json":
        print(json.dumps(listed, indent=2))
        return EXIT_OK
    if not listed:
        print("no bundled specs were found")
        return EXIT_OK
    width = max(len(s["name"]) for s in listed)
    for s in listed:
        print(f"{s['name']:<{width}}  {s['kind']:<8}  {s['description']}".rstrip())
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    print(json.dumps(json_schema(), indent=2))
    return EXIT_OK


COMMANDS = {
    "solve": cmd_solve, "count": cmd_count, "enumerate": cmd_enumerate, "prove": cmd_prove,
    "sweep": cmd_sweep, "serve": cmd_serve, "design": cmd_design,
    "validate": cmd_validate, "schema": cmd_schema, "verify": cmd_verify, "specs": cmd_specs,
}


SELF_TIMED = ("solve", "count", "prove")  # commands that stop at --time-limit on their own
SELF_TIMED_GRACE = 5.0


#: The engine's kernels each command loads before its work (see engine.warm_up).
ENGINE_COMMANDS = {"count": ("count",), "enumerate": ("search",), "sweep": ("count",),
                   "design": ("count", "exists")}
COMPILE_NOTICE_AFTER = 1.0  # seconds loading the kernels may take before it is announced


def _load_kernels(kernels: Sequence[str], quiet: bool) -> None:
    """Load the engine's compiled search kernels before the work starts. After a fresh
    install they are compiled first (about 10 s, once: numba caches them); that wait is
    announced on stderr, and its length reported, so a first run does not look stuck."""
    import threading
    import time

    from cpmodels.backends.engine import warm_up

    loaded = threading.Event()

    def announce() -> None:
        if not loaded.wait(COMPILE_NOTICE_AFTER):
            print("compiling the search kernels (the first run after an install; they are "
                  "cached for later runs)...", file=sys.stderr, flush=True)

    if not quiet:
        threading.Thread(target=announce, daemon=True).start()
    start = time.perf_counter()
    warm_up(kernels)
    loaded.set()
    seconds = time.perf_counter() - start
    if seconds > COMPILE_NOTICE_AFTER and not quiet:
        print(f"search kernels compiled in {seconds:.1f} s", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every user error is one line on stderr, never a traceback."""
    args = build_parser().parse_args(argv)
    limit = getattr(args, "time_limit", None)
    if limit is not None and args.command in SELF_TIMED:
        limit += SELF_TIMED_GRACE  # a backstop: these stop on time and answer by themselves
        if getattr(args, "proof", None) is not None and args.command == "solve":
            limit = None  # the certificate is checked after the search's time limit
    try:
        with time_limit(limit):
            if args.command in ENGINE_COMMANDS and getattr(args, "backend", "engine") == "engine":
                _load_kernels(ENGINE_COMMANDS[args.command],
                              quiet=getattr(args, "quiet", False))
            return COMMANDS[args.command](args)
    except CpmodelsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except TimeLimitReached:
        print(f"stopped by the time limit ({args.time_limit:g} s) without an answer",
              file=sys.stderr)
        return EXIT_UNKNOWN
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK


def run() -> None:
    """The program's entry point: run :func:`main` and exit with its status.

    After Ctrl-C or a time limit everything written is flushed and closed, so the process
    leaves at once rather than wait for a search thread that is still unwinding.
    """
    code = main()
    if code in (EXIT_INTERRUPTED, EXIT_UNKNOWN):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)
