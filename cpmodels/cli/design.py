"""design: which piece sets solve every date of a board."""

from __future__ import annotations

import argparse
import json
import sys

from cpmodels.cli.output import EXIT_OK, emit, stop_status, stopped_message
from cpmodels.cli.parser import bars_on, cluster_from
from cpmodels.errors import InputError
from cpmodels.files import keep_complete_lines, open_stream
from cpmodels.spec.loading import load_design


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
    from cpmodels.design.verdicts import ranking_tables, read_verdicts, tables_text
    from cpmodels.progress import progress_bar

    spec = load_design(args.design)
    design = Design(spec, load_board(spec, args.design), with_counts=not args.no_counts,
                    with_difficulty=args.difficulty)
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
    if args.resume:
        keep_complete_lines(args.out)  # a line a killed run cut short goes
    done = read_verdicts(args.out) if args.resume else {}
    start = time.perf_counter()
    handle = open_stream(args.out, append=args.resume) if args.out is not None else None
    bar = progress_bar(total=None, desc="design", unit="set", enabled=bars_on(args))

    def decided(verdict: Verdict) -> None:
        if handle is not None:
            handle.write(json.dumps(verdict.as_dict()) + "\n")
            handle.flush()
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
