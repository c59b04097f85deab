"""export, decode and export-suite: models out to other solvers, and their answers back."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cpmodels.cli.output import EXIT_OK, EXIT_UNKNOWN, EXIT_UNSOLVABLE, emit
from cpmodels.cli.parser import add_instance_args, add_quiet_arg, grid_size
from cpmodels.errors import InputError

if TYPE_CHECKING:
    from cpmodels.cli.parser import Subparsers

FAULTS_SHOWN = 3  # broken rules named on the one line of a refused answer


def _subject(args: argparse.Namespace) -> Any:
    from cpmodels.export import subject_of
    from cpmodels.spec import load_spec

    return subject_of(load_spec(args.spec), date=args.date, labels=args.labels,
                      target=args.target, face_up=args.face_up, size=args.size)


def cmd_export(args: argparse.Namespace) -> int:
    from cpmodels.export import FORMATS, format_for, model_files, write_model

    fmt = format_for(args.out, args.format)
    subject = _subject(args)
    if str(args.out) == "-":
        files = model_files(subject, fmt, args.out)
        if len(files) > 1:
            raise InputError(f"{fmt} writes two files; give --out FILE.mzn, not -")
        sys.stdout.buffer.write(next(iter(files.values())))
        return EXIT_OK
    written = write_model(subject, fmt, args.out)
    names = " and ".join(str(p) for p in written)
    print(f"{subject.describe()}: {subject.n_vars:,} variables, {fmt} for "
          f"{FORMATS[fmt][3]}, written to {names}")
    return EXIT_OK


def cmd_decode(args: argparse.Namespace) -> int:
    from cpmodels.export import Unsolvable, decode, known_format
    from cpmodels.export.decode import MAX_ANSWER_BYTES
    from cpmodels.files import read_bounded
    from cpmodels.render import packing_payload, packing_text, towers_payload, towers_text
    from cpmodels.towers import TowersResult

    fmt = known_format(args.format)
    subject = _subject(args)
    if str(args.model) == "-":
        try:
            answer = sys.stdin.buffer.read(MAX_ANSWER_BYTES + 1)
        except OSError as exc:
            raise InputError(f"cannot read standard input: {exc.strerror or exc}") from None
    else:
        answer = read_bounded(args.model, MAX_ANSWER_BYTES, "solver's answer")
    try:
        found = decode(subject, fmt, answer)
    except Unsolvable as exc:
        return _unsolvable(args, subject, fmt, str(exc))
    if args.proof is not None:
        raise InputError("--proof goes with a solver's answer of UNSATISFIABLE; this answer "
                         "is an assignment")
    if not found.ok:
        shown = FAULTS_SHOWN
        more = (f" (and {len(found.faults) - shown} more)" if len(found.faults) > shown
                else "")
        raise InputError(f"the solver's answer is not a solution of {subject.describe()}: "
                         + "; ".join(found.faults[:shown]) + more)
    result = found.result(fmt)
    if isinstance(result, TowersResult):
        payload = towers_payload(subject.towers, result)
        text = towers_text(subject.towers, result)
    else:
        payload = packing_payload(subject.instance, result)
        text = packing_text(subject.instance, result)
    payload["checked"] = True
    emit(payload, f"{text}\nchecked: the {fmt} answer is a solution of "
         f"{subject.describe()}", args.output)
    return EXIT_OK


def _unsolvable(args: argparse.Namespace, subject: Any, fmt: str, said: str) -> int:
    """The solver says there is no solution: with ``--proof``, check its proof."""
    from cpmodels.drup import MAX_PROOF_BYTES
    from cpmodels.export import check_refutation
    from cpmodels.files import read_bounded

    payload = {"spec": subject.describe(), "status": "unsolvable", "proof_checked": False}
    if args.proof is None:
        emit(payload, f"{subject.describe()}: {said} (no proof given to check)", args.output)
        return EXIT_UNSOLVABLE
    if fmt != "dimacs":
        raise InputError("--proof checks DRUP/DRAT proofs of a dimacs model")
    proof = read_bounded(args.proof, MAX_PROOF_BYTES, "proof")
    check = check_refutation(subject, proof)
    payload.update(proof_checked=check.ok, lemmas=check.lemmas)
    if not check.ok:
        emit(payload, f"{subject.describe()}: {said}, but the proof was rejected: "
             f"{check.message}", args.output)
        return EXIT_UNKNOWN
    emit(payload, f"{subject.describe()}: unsolvable, {check.message}", args.output)
    return EXIT_UNSOLVABLE


def cmd_export_suite(args: argparse.Namespace) -> int:
    from cpmodels.export.suite import write_suite

    manifest = write_suite(args.dir, on_instance=None if args.quiet else
                           lambda name: print(f"written {name}", file=sys.stderr))
    files = sum(len(paths) for item in manifest["instances"] for paths in item["files"].values())
    print(f"{len(manifest['instances'])} instances, {files} files, with their verified "
          f"answers in {args.dir / 'manifest.json'}")
    return EXIT_OK


def add_export(sub: Subparsers) -> None:
    from cpmodels.formats import FORMAT_NAMES

    export = sub.add_parser("export", help="write one puzzle's model for another solver: "
                            "DIMACS, XCC, OPB, MPS, LP, CP-SAT or MiniZinc")
    add_instance_args(export)
    export.add_argument("--size", type=grid_size, metavar="RxC", help="towers specs: grid size")
    export.add_argument("--format", choices=FORMAT_NAMES,
                        help="the model's format (default: told by --out's extension)")
    export.add_argument("--out", required=True, type=Path, metavar="FILE",
                        help="the file to write (mzn: FILE.mzn and FILE.dzn; '-' with "
                        "--format: standard output)")
    export.set_defaults(handler=cmd_export)


def add_decode(sub: Subparsers) -> None:
    from cpmodels.formats import FORMAT_NAMES

    decode = sub.add_parser("decode", help="read another solver's answer to an exported "
                            "model back, check it against the spec and draw it")
    add_instance_args(decode)
    decode.add_argument("--size", type=grid_size, metavar="RxC", help="towers specs: grid size")
    decode.add_argument("--format", required=True, choices=FORMAT_NAMES,
                        help="the format of the model the solver was given")
    decode.add_argument("--model", required=True, type=Path, metavar="FILE",
                        help="the solver's output ('-': standard input)")
    decode.add_argument("--proof", type=Path, metavar="FILE",
                        help="dimacs: the solver's DRUP/DRAT proof (text or binary) of an "
                        "UNSATISFIABLE answer, checked by the package's own checker")
    decode.add_argument("--output", choices=("text", "json"), default="text",
                        help="how to print the checked answer (default text)")
    decode.set_defaults(handler=cmd_decode)


def add_export_suite(sub: Subparsers) -> None:
    suite = sub.add_parser("export-suite", help="write a benchmark set: bundled puzzles in "
                           "every format, with a manifest of their verified answers")
    suite.add_argument("dir", type=Path, metavar="DIR", help="a new (or empty) directory")
    add_quiet_arg(suite)
    suite.set_defaults(handler=cmd_export_suite)
