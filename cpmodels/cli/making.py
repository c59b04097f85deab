"""make: a puzzle's cut files and 3-D prints."""

from __future__ import annotations

import argparse

from cpmodels.cli.output import EXIT_OK, emit
from cpmodels.errors import InputError
from cpmodels.spec import load_spec


def sheet_size(text: str) -> tuple[float, float]:
    """``WxH`` in millimetres, as ``--sheet`` takes it."""
    from cpmodels.make import sheet_size as parse

    try:
        return parse(text)
    except InputError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WxH in millimetres "
                                         "(e.g. 600x400)") from None


def cmd_make(args: argparse.Namespace) -> int:
    from cpmodels.make import MakeOptions, make

    spec = load_spec(args.spec)
    options = MakeOptions(cell=args.cell, kerf=args.kerf, clearance=args.clearance,
                          sheet=args.sheet, thickness=args.thickness, border=args.border)
    report = make(spec, args.out, options, target=args.target)
    sheets = len([f for f in report.sheets if f.endswith(".svg")])
    said = (f"{spec.name}: {sheets} sheet{'s' if sheets != 1 else ''} to cut (SVG and DXF), "
            f"{len(report.solids)} solids to print (STL), in {args.out} with "
            f"{args.out / 'manifest.json'}")
    emit(report.manifest, said, args.format)
    return EXIT_OK
