"""count, enumerate and sweep: how many solutions, each of them, every combination."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cpmodels.cli.output import (
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_UNSOLVABLE,
    PICTURES,
    emit,
    picture_bytes,
    stop_status,
    stopped_message,
    write_file,
)
from cpmodels.cli.parser import (
    add_backend_arg,
    add_cluster_arg,
    add_face_up_arg,
    add_instance_args,
    add_quiet_arg,
    job_count,
    positive_int,
    positive_seconds,
)
from cpmodels.cli.runtime import advance, bars_on, cluster_from, packing_instance_of
from cpmodels.errors import InputError

if TYPE_CHECKING:
    from cpmodels.cli.parser import Subparsers
    from cpmodels.questions import Question


def cmd_count(args: argparse.Namespace) -> int:
    from cpmodels.counting import count_instance
    from cpmodels.progress import progress_bar
    from cpmodels.render import count_payload, count_text

    instance = packing_instance_of(args)
    with cluster_from(args) as cluster, progress_bar(total=None, desc="count", unit="unit",
                                                 enabled=bars_on(args)) as bar:
        result = count_instance(instance, distinct=args.distinct, time_limit=args.time_limit,
                                backend=args.backend, cluster=cluster,
                                progress=lambda done, in_all: advance(bar, done, in_all))
        on = cluster.describe() if cluster is not None else {}
    payload = {**count_payload(instance, result), **on}
    emit(payload, count_text(instance, result), args.format)
    if result.count is None:
        return EXIT_UNKNOWN
    return EXIT_OK if result.count else EXIT_UNSOLVABLE


def cmd_enumerate(args: argparse.Namespace) -> int:
    import time

    from cpmodels.backends import iter_cover_solutions
    from cpmodels.backends.result import CoverResult
    from cpmodels.progress import progress_bar
    from cpmodels.questions import solutions_question
    from cpmodels.render import packing_payload
    from cpmodels.running import ResumableFile

    picture = args.format in PICTURES
    if picture:
        if args.limit is None:
            raise InputError(f"--format {args.format} writes one picture per solution; "
                             "give --limit N")
        if args.resume:
            raise InputError("--resume goes with --format jsonl")
        from cpmodels.render.pictures import packing_picture
    instance = packing_instance_of(args)
    start = time.perf_counter()
    question = solutions_question(instance.cover, _puzzle_words(instance), args.backend)
    resuming = args.resume and not picture and _resumable(args.out, question)
    written = 0
    where = (f"{args.out.with_suffix('')}-N.{args.format}" if picture else str(args.out))
    bar = progress_bar(total=args.limit, desc="enumerate", unit="sol",
                       enabled=bars_on(args))
    try:
        with cluster_from(args) as cluster, bar, contextlib.ExitStack() as opened:
            if cluster is not None:
                from cpmodels.backends.engine import cluster_solutions

                stream = cluster_solutions(instance.cover, cluster)
            else:
                stream = iter_cover_solutions(args.backend, instance.cover)
            stream = iter(stream)
            if resuming:
                # Solutions come in the same order every run (on a cluster too): each kept
                # line must be the one this run writes in its place.
                written, stream = _kept_solutions(args.out, instance, args.backend, stream)
                bar.update(written)
            handle = None if picture else opened.enter_context(
                ResumableFile(args.out, append=True) if resuming else
                ResumableFile(args.out, rewrite=[question.line()]))
            limit = None if args.limit is None else max(0, args.limit - written)
            for chosen in itertools.islice(stream, limit):
                result = CoverResult("solved", args.backend, time.perf_counter() - start,
                                     sorted(chosen))
                written += 1
                if picture:
                    path = args.out.with_name(f"{args.out.stem}-{written}.{args.format}")
                    write_file(path, picture_bytes(packing_picture(instance, result),
                                                     args.format))
                else:
                    assert handle is not None  # opened above when no picture is asked for
                    handle.write([json.dumps(packing_payload(instance, result))])
                bar.update()
    except OSError as exc:
        raise InputError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    except KeyboardInterrupt as stop:
        again = ("" if picture else
                 "; run the same command with --resume to write the rest")
        print(f"{stopped_message(stop)}: {written} complete solutions kept in {where}{again}",
              file=sys.stderr)
        return stop_status(stop)
    print(f"{written} solutions written to {where} in {time.perf_counter() - start:.2f} s "
          f"({args.backend})")
    return EXIT_OK if written else EXIT_UNSOLVABLE


def _puzzle_words(instance: Any) -> str:
    """The puzzle an instance is, in words: its spec, target and labels, and face up when
    asked or when no piece may be turned over."""
    target = f" / {instance.target}" if instance.target != instance.name else ""
    labels = f", labels {' '.join(instance.labels)}" if instance.labels else ""
    face_up = ", face up" if instance.face_up or not instance.spec.can_flip else ""
    return f"spec {instance.name}{target}{labels}{face_up}"


def _resumable(path: Path, question: Question) -> bool:
    """Whether ``path`` holds solutions of ``question`` to continue (False: nothing to keep,
    the file starts anew); a file of another question is an :class:`InputError`."""
    from cpmodels.files import check_output
    from cpmodels.questions import check_question

    if os.path.lexists(path):
        check_output(path)  # it is written to: refused as an output first
    return check_question(path, [question], "give another --out, or leave out --resume") \
        is not None


def _kept_solutions(path: Path, instance: Any, backend: str,
                    stream: Iterator[Any]) -> tuple[int, Iterator[Any]]:
    """How many solutions an earlier ``enumerate --out path`` wrote, each checked against
    ``stream`` (this run's solutions, in order): a kept line must be, apart from its
    ``seconds``, the line this run writes in its place, else the file is refused
    (:class:`InputError`, nothing changed), as resuming would lose or repeat a solution.
    Then a last line a killed run cut short is dropped. Also the rest of ``stream``."""
    from cpmodels.backends.result import CoverResult
    from cpmodels.files import keep_complete_lines, load_json
    from cpmodels.questions import lines_after_question
    from cpmodels.render import packing_payload

    again = "give another --out, or leave out --resume"
    kept = 0
    with contextlib.closing(lines_after_question(path, "file of solutions",
                                                 strict=False)) as lines:
        for number, line in enumerate(lines, 2):
            try:
                record = load_json(line, f"line {number}")
            except json.JSONDecodeError:
                record = None
            if not isinstance(record, dict) or record.get("status") != "solved":
                raise InputError(f"{path}: line {number} is not a solution of this puzzle "
                                 f"that enumerate wrote; {again}")
            chosen = next(stream, None)
            seconds = record.get("seconds")
            if chosen is None or isinstance(seconds, bool) \
                    or not isinstance(seconds, (int, float)) or seconds < 0 \
                    or line != json.dumps(packing_payload(instance, CoverResult(
                        "solved", backend, seconds, sorted(chosen)))) + "\n":
                raise InputError(f"{path}: line {number} is not a solution of this puzzle "
                                 "as enumerate writes it there (its pieces, cells, fields or "
                                 f"place differ from this run's); {again}")
            kept += 1
    keep_complete_lines(path)
    return kept, stream


def cmd_sweep(args: argparse.Namespace) -> int:
    import time

    from cpmodels.files import check_output
    from cpmodels.progress import progress_bar
    from cpmodels.spec.kinds import CalendarKind
    from cpmodels.spec.validated import read_spec
    from cpmodels.sweep import run_sweep

    spec = read_spec(args.spec)  # (a bundled spec known valid: its record, no pydantic)
    if not isinstance(spec, CalendarKind):
        raise InputError(f"sweep needs a calendar spec; {args.spec} is a {spec.kind} spec")
    if args.plot is not None and args.plot.suffix.lower() not in (".png", ".svg"):
        raise InputError(f"--plot {args.plot}: give a .png or .svg file name")
    if len(spec.groups) < 2 and args.plot is not None:
        raise InputError(f"--plot needs at least two label groups; {spec.name} has one")
    for target in (args.out, args.plot):
        if target is not None:
            check_output(target)  # before the sweep
    start = time.perf_counter()
    try:
        with cluster_from(args) as cluster, progress_bar(total=None, desc="sweep", unit="combo",
                                                     enabled=bars_on(args)) as bar:
            summary = run_sweep(spec, args.out, jobs=args.jobs, resume=args.resume,
                                face_up=args.face_up, prove=args.prove, cluster=cluster,
                                difficulty=args.difficulty,
                                progress=lambda done, in_all: advance(bar, done, in_all))
            on = ({**cluster.describe(), "units": summary.units} if cluster is not None
                  else {})
    except OSError as exc:
        raise InputError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    except KeyboardInterrupt as stop:
        print(f"{stopped_message(stop)}: the finished rows are kept in {args.out}; run the same "
              "command with --resume to count the rest", file=sys.stderr)
        return stop_status(stop)
    seconds = time.perf_counter() - start
    payload = {**summary.as_dict(), "spec": spec.name, "seconds": round(seconds, 3), **on}
    lines = summary.lines(spec.name, seconds, str(args.out))
    if args.prove and summary.unsolvable:
        lines.append(f"proofs: {summary.proofs} of {len(summary.unsolvable)} checked, in "
                     f"{args.out}.proofs/")
    if args.plot is not None:
        from cpmodels.api import SweepResult
        from cpmodels.render.raster import figure_bytes
        from cpmodels.spec import CalendarSpec, load_spec

        model = load_spec(args.spec)  # (the spec's model, which the figure reads)
        assert isinstance(model, CalendarSpec)  # (a calendar, as read above)
        figure = SweepResult(model, summary).figure()
        write_file(args.plot, figure_bytes(figure, args.plot.suffix.lower().lstrip(".")))
        lines.append(f"heatmap in {args.plot}")
        payload["plot"] = str(args.plot)
    emit(payload, "\n".join(lines), args.format)
    return EXIT_OK


def add_count(sub: Subparsers) -> None:
    count = sub.add_parser("count", help="count every solution of one puzzle")
    add_instance_args(count)
    count.add_argument("--distinct", action="store_true",
                       help="count solutions up to the board's symmetries")
    count.add_argument("--time-limit", type=positive_seconds, metavar="S")
    count.add_argument("--format", choices=("text", "json"), default="text")
    add_backend_arg(count, "engine")
    add_cluster_arg(count)
    add_quiet_arg(count)
    count.set_defaults(handler=cmd_count)


def add_enumerate(sub: Subparsers) -> None:
    enum = sub.add_parser("enumerate", help="write every solution, one JSON object a line")
    add_instance_args(enum)
    enum.add_argument("--out", required=True, type=Path, metavar="FILE",
                      help="FILE.jsonl (a first line names the puzzle, then one solution a "
                      "line); for pictures FILE.svg becomes FILE-1.svg, FILE-2.svg...")
    enum.add_argument("--limit", type=positive_int, metavar="N", help="stop after N solutions")
    enum.add_argument("--resume", action="store_true",
                      help="keep the solutions FILE.jsonl already has and write the rest "
                      "(its first line names the puzzle and backend: another's is refused)")
    enum.add_argument("--time-limit", type=positive_seconds, metavar="S",
                      help="stop after S seconds, keeping every solution written")
    enum.add_argument("--format", choices=("jsonl", "svg", "png"), default="jsonl",
                      help="jsonl (default), or one svg/png picture per solution (with --limit)")
    add_backend_arg(enum, "engine")
    add_cluster_arg(enum)
    add_quiet_arg(enum)
    enum.set_defaults(handler=cmd_enumerate)


def add_sweep(sub: Subparsers) -> None:
    sweep = sub.add_parser("sweep", help="count every label combination of a calendar spec")
    sweep.add_argument("spec")
    sweep.add_argument("--out", required=True, type=Path, metavar="FILE.csv",
                       help="the rows, after a first line '# cpmodels sweep rows, question "
                       "HASH: ...' (pandas: read_csv(FILE, comment='#'))")
    sweep.add_argument("--jobs", type=job_count, metavar="N",
                       help="worker processes (default and most: every core; used only when "
                       "the months left would take more than a few seconds here)")
    sweep.add_argument("--resume", action="store_true",
                       help="keep the rows FILE.csv already has and count the rest (its first "
                       "line names the question it answers: another's is refused)")
    sweep.add_argument("--time-limit", type=positive_seconds, metavar="S",
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
    sweep.set_defaults(handler=cmd_sweep)
