"""make: a puzzle's cut files and 3-D prints."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from cpmodels.cli.output import EXIT_OK, emit
from cpmodels.cli.parser import add_quiet_arg, job_count, positive_int, sheet
from cpmodels.cli.runtime import bars_on
from cpmodels.errors import InputError
from cpmodels.extras import require

if TYPE_CHECKING:
    from cpmodels.cli.parser import Subparsers
    from cpmodels.spec import Spec


def design_set(args: argparse.Namespace) -> Spec:
    """The working set ``--set N`` of the design file ``args.spec``: from ``--verdicts``,
    or decided now with a progress bar."""
    from cpmodels.design import working_set
    from cpmodels.files import check_new_directory
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
    from cpmodels.spec import load_spec
    from cpmodels.spec.loading import is_design

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


def add_make(sub: Subparsers) -> None:
    make = sub.add_parser("make", help="cut files (SVG, DXF) and 3-D prints (STL) of a "
                          "puzzle's pieces, frame and tray, with a manifest")
    make.add_argument("spec", help="a calendar or packing spec (path or bundled name), or a "
                      "design file with --set N")
    make.add_argument("--set", type=positive_int, metavar="N",
                      help="design files: make the N-th working set of the ranking")
    make.add_argument("--verdicts", type=Path, metavar="FILE.jsonl",
                      help="design files: the verdicts 'design --out' wrote, counted (not "
                           "--no-counts), of this design (else every set is decided first)")
    make.add_argument("--jobs", type=job_count, metavar="N",
                      help="design files: worker processes deciding the sets (at most the cores)")
    make.add_argument("--out", required=True, type=Path, metavar="DIR",
                      help="a new (or empty) directory")
    make.add_argument("--target", help="packing specs: the board to make (default: the first)")
    make.add_argument("--cell", type=float, default=20.0, metavar="MM",
                      help="a cell's side in millimetres (default 20)")
    make.add_argument("--kerf", type=float, default=0.15, metavar="MM",
                      help="the width the laser burns away (default 0.15)")
    make.add_argument("--clearance", type=float, default=0.2, metavar="MM",
                      help="the play a piece needs to slide in (default 0.2)")
    make.add_argument("--sheet", type=sheet, default=(600.0, 400.0), metavar="WxH",
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
    make.set_defaults(handler=cmd_make)
