"""design: which piece sets solve every date of a board."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cpmodels.cli.output import EXIT_OK, emit, stop_status, stopped_message
from cpmodels.cli.parser import (
    add_cluster_arg,
    add_quiet_arg,
    job_count,
    positive_int,
    positive_seconds,
)
from cpmodels.cli.runtime import bars_on, cluster_from
from cpmodels.errors import InputError, SpecError

if TYPE_CHECKING:
    from cpmodels.cli.parser import Subparsers


def cmd_design(args: argparse.Namespace) -> int:
    import time

    from cpmodels.design import (
        Design,
        Verdict,
        best_sets,
        load_board,
        ranked,
        run_design,
        summary,
    )
    from cpmodels.design.kept import design_question, kept_verdicts
    from cpmodels.design.verdicts import ranking_tables, tables_text
    from cpmodels.files import check_output, keep_complete_lines
    from cpmodels.progress import progress_bar
    from cpmodels.questions import check_question
    from cpmodels.running import ResumableFile
    from cpmodels.spec.loading import load_design

    spec = load_design(args.design)
    board = load_board(spec, args.design)
    try:
        design = Design(spec, board, with_counts=not args.no_counts,
                        with_difficulty=args.difficulty)
        design.check_area()
    except InputError as exc:  # what its pieces cannot do on its board: said of its file
        raise SpecError(str(args.design), str(exc)) from None
    if args.resume and args.out is None:
        raise InputError("--resume goes with --out FILE.jsonl")
    if args.best is not None:
        clash = [flag for flag, on in (("--no-counts", args.no_counts), ("--difficulty",
                 args.difficulty), ("--out", args.out is not None), ("--resume", args.resume))
                 if on]
        if clash:
            raise InputError(f"--best counts the best sets only; it does not go with "
                             f"{', '.join(clash)}")
        sets = sum(1 for _ in design.candidates())
        if args.best > sets:
            raise InputError(f"--best {args.best}: {spec.name} has {sets} candidate sets")
    question = design_question(design)
    if args.out is not None:
        check_output(args.out)  # before it is read or any set decided
    # The whole file is checked before a line a killed run cut short goes.
    kept = args.resume and check_question(args.out, [question], "give another --out")
    done, dropped = kept_verdicts(args.out, question, design) if kept else ({}, 0)
    if kept and not dropped:
        keep_complete_lines(args.out)
    start = time.perf_counter()
    # Lines that are not this design's verdicts, or a set's twice, go (decided again).
    handle = None if args.out is None else ResumableFile(args.out, append=True) \
        if kept and not dropped else ResumableFile(args.out, rewrite=[
            question.line(), *(json.dumps(verdict.as_dict()) for verdict in done.values())])
    bar = progress_bar(total=None, desc="design", unit="set", enabled=bars_on(args))

    def decided(verdict: Verdict) -> None:
        if handle is not None:
            handle.write([json.dumps(verdict.as_dict())])
        bar.update()

    try:
        with bar, cluster_from(args) as cluster:
            if args.best is not None:
                verdicts = best_sets(design, args.best, on_verdict=decided, jobs=args.jobs,
                                     cluster=cluster)
            else:
                verdicts = run_design(design, done=done, on_verdict=decided, jobs=args.jobs,
                                      cluster=cluster)
            on = cluster.describe() if cluster is not None else {}
    except KeyboardInterrupt as stop:
        where = f"; the sets decided are kept in {args.out} (then --resume)" if handle else ""
        print(f"{stopped_message(stop)}{where}", file=sys.stderr)
        return stop_status(stop)
    finally:
        if handle is not None:
            handle.close()
    seconds = time.perf_counter() - start
    working = ranked(verdicts)
    skipped = design.skipped()
    same = f" ({skipped} more skipped as equal to an earlier set)" if skipped else ""
    lines = [f"{spec.name}: {len(verdicts)} candidate sets{same}, {len(working)} solve every "
             f"required combination ({len(design.required)}) in {seconds:.2f} s",
             *tables_text(ranking_tables(verdicts))]
    emit({**summary(verdicts, seconds, skipped), **on}, "\n".join(lines), args.format)
    return EXIT_OK


def add_design(sub: Subparsers) -> None:
    design = sub.add_parser("design", help="try piece sets on a calendar board: which solve "
                            "every date, and how hard each set is")
    design.add_argument("design", metavar="DESIGN", help="a design file (see specs/designs/)")
    design.add_argument("--out", type=Path, metavar="FILE.jsonl",
                        help="one JSON line per candidate set as it is decided, after a "
                        "first line naming the question")
    design.add_argument("--resume", action="store_true",
                        help="keep the sets FILE.jsonl already has and decide the rest (a "
                        "file of another question, or options, is refused)")
    design.add_argument("--time-limit", type=positive_seconds, metavar="S",
                        help="stop after S seconds, keeping the sets decided (then --resume)")
    design.add_argument("--jobs", type=job_count, metavar="N",
                        help="worker processes (default and most: every core)")
    design.add_argument("--no-counts", action="store_true",
                        help="only decide which sets work; do not count their solutions")
    design.add_argument("--best", type=positive_int, metavar="K",
                        help="count only the K best working sets (the most solutions on "
                        "their hardest date): the first K of the full ranking")
    design.add_argument("--difficulty", action="store_true",
                        help="measure each working set's difficulty on every required date "
                        "(see docs/difficulty.md) and rank the sets by it too")
    design.add_argument("--format", choices=("text", "json"), default="text")
    add_cluster_arg(design)
    add_quiet_arg(design)
    design.set_defaults(handler=cmd_design)
