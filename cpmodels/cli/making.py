"""make: a puzzle's cut files and 3-D prints."""

from __future__ import annotations

import argparse

from cpmodels.cli.output import EXIT_OK, emit
from cpmodels.cli.parser import bars_on
from cpmodels.errors import InputError
from cpmodels.extras import require
from cpmodels.files import check_new_directory
from cpmodels.spec import Spec, load_spec
from cpmodels.spec.loading import is_design


def design_set(args: argparse.Namespace) -> Spec:
    """The working set ``--set N`` of the design file ``args.spec``: from ``--verdicts``,
    or decided now with a progress bar."""
    from cpmodels.design import working_set
    from cpmodels.progress import progress_bar

    if args.set is None:
        raise InputError(f"{args.spec} is a design file: choose one of its working sets "
                         "with --set N (1 is the best of its ranking)")
    check_new_directory(args.out)  # before the sets are decided
    if args.verdicts is not None:
        return working_set(args.spec, args.set, verdicts=args.verdicts)
    with progress_bar(total=None, desc="design", unit="set", enabled=bars_on(args)) as bar:
        return working_set(args.spec, args.set, jobs=args.jobs,
                           on_verdict=lambda _: bar.update())


def cmd_make(args: argparse.Namespace) -> int:
    require("make", "cpmodels make")
    from cpmodels.make import MakeOptions, make

    options = MakeOptions(cell=args.cell, kerf=args.kerf, clearance=args.clearance,
                          sheet=args.sheet, thickness=args.thickness, border=args.border,
                          font=args.font)
    options.check()  # before any design is run
    if is_design(args.spec):
        spec = design_set(args)
    elif args.set is not None or args.verdicts is not None:
        raise InputError("--set and --verdicts go with a design file; "
                         f"{args.spec} is a spec")
    else:
        spec = load_spec(args.spec)
    report = make(spec, args.out, options, target=args.target)
    sheets = len([f for f in report.sheets if f.endswith(".svg")])
    said = (f"{spec.name}: {sheets} sheet{'s' if sheets != 1 else ''} to cut (SVG and DXF), "
            f"{len([f for f in report.solids if f.endswith('.stl')])} solids to print (STL, "
            f"and all in puzzle.3mf), in {args.out} with "
            f"{args.out / 'manifest.json'}")
    emit(report.manifest, said, args.format)
    return EXIT_OK
