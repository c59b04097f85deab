"""Models out: every puzzle in the field's standard formats, and outside solvers' answers back.

============  =========================================  ==============================
format        file                                       read by
============  =========================================  ==============================
``dimacs``    CNF with variable comments, ``c p show``   CaDiCaL, kissat, any SAT solver
``xcc``       exact cover, Knuth's DLX text              DLX1/DLX2 (DLX3 with copies)
``opb``       pseudo-Boolean                             RoundingSat, Sat4j, PB solvers
``mps``       0-1 programme, free MPS                    HiGHS, SCIP, CBC, Gurobi
``lp``        0-1 programme, LP text                     HiGHS, SCIP, CPLEX, Gurobi
``cpsat``     CP-SAT model, ``.pb`` or ``.pbtxt``        OR-Tools
``mzn``       MiniZinc model and ``.dzn`` data           MiniZinc (Gecode, Chuffed...)
============  =========================================  ==============================

Every format numbers the same variables (:mod:`cpmodels.export.subject`), so
:func:`decode` reads any solver's answer back into a placement list or a towers board and
checks it against the spec's rules. :func:`write_model` writes whole files or nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cpmodels.backends.result import CoverResult
from cpmodels.drup import ProofCheck
from cpmodels.errors import InputError
from cpmodels.export import decode as readers
from cpmodels.export.clauses import dimacs_text, dimacs_variables, xcc_text
from cpmodels.export.linear import linear_model, mathprog_text, opb_text
from cpmodels.export.minizinc import minizinc_texts
from cpmodels.export.subject import Subject, cover_faults
from cpmodels.files import check_output, write_atomic
from cpmodels.formats import FORMATS
from cpmodels.instance import packing_instance
from cpmodels.interrupt import ctrl_c_held
from cpmodels.query import Query
from cpmodels.spec import Spec, TowersSpec
from cpmodels.towers import TowersResult, towers_problem

__all__ = ["FORMATS", "Decoded", "Subject", "Unsolvable", "check_refutation", "decode",
           "format_for", "known_format",
           "model_files", "subject_of", "write_model"]

Unsolvable = readers.Unsolvable

def subject_of(spec: Spec, *, date: dt.date | str | None = None,
               labels: Sequence[str] | None = None, target: str | None = None,
               face_up: bool = False, size: tuple[int, int] | None = None) -> Subject:
    """The puzzle of a spec to export: a calendar's date or labels, a packing spec's target,
    or a towers board at ``size`` (rows, columns)."""
    if isinstance(spec, TowersSpec):
        for flag, value in (("date", date), ("labels", labels), ("target", target)):
            if value is not None:
                raise InputError(f"--{flag} does not apply to a towers spec")
        if face_up:
            raise InputError("--face-up does not apply to a towers spec")
        rows, cols = size or (None, None)
        return Subject(problem=towers_problem(spec, rows, cols))
    if size is not None:
        raise InputError("--size applies to towers specs only")
    query = Query.of(spec, date=date, labels=labels, target=target, face_up=face_up)
    return Subject(instance=packing_instance(query))


def known_format(name: str) -> str:
    """``name`` if it is a format, else an :class:`InputError` listing the formats."""
    if name not in FORMATS:
        raise InputError(f"unknown format {name!r}; formats: {', '.join(FORMATS)}")
    return name


def format_for(path: Path, given: str | None) -> str:
    """The format asked for, or the one the file's extension names."""
    if given is not None:
        return known_format(given)
    for name, (extensions, *_) in FORMATS.items():
        if path.suffix.lower() in extensions:
            return name
    raise InputError(f"cannot tell the format from {path.name!r}; give --format "
                     f"({', '.join(FORMATS)})")


def _check_fits(subject: Subject, fmt: str) -> None:
    _, packing, towers, _ = FORMATS[fmt]
    if subject.is_towers and not towers:
        raise InputError(f"{fmt} has no objective; a towers board is an optimisation "
                         "problem (use opb, mps, lp, cpsat or mzn)")
    if not subject.is_towers and not packing:  # pragma: no cover - every format fits packing
        raise InputError(f"{fmt} does not fit a packing puzzle")


def _targets(fmt: str, path: Path) -> list[Path]:
    """The files a model in ``fmt`` is written to: ``path``, and the ``.dzn`` beside a
    MiniZinc model."""
    return [path, path.with_suffix(".dzn")] if fmt == "mzn" else [path]


def model_files(subject: Subject, fmt: str, path: Path) -> dict[Path, bytes]:
    """The files of one model: ``path`` (and its ``.dzn`` beside it for MiniZinc)."""
    _check_fits(subject, fmt)
    if fmt == "dimacs":
        return {path: dimacs_text(subject).encode()}
    if fmt == "xcc":
        return {path: xcc_text(subject).encode()}
    if fmt == "opb":
        return {path: opb_text(linear_model(subject)).encode()}
    if fmt in ("mps", "lp"):
        return {path: mathprog_text(linear_model(subject), fmt).encode()}
    if fmt == "mzn":
        model, data = minizinc_texts(subject)
        return dict(zip(_targets(fmt, path), (model.encode(), data.encode())))
    return {path: _cpsat_bytes(subject, text=path.name.endswith("txt"))}


def _cpsat_bytes(subject: Subject, text: bool) -> bytes:
    from google.protobuf import text_format
    from ortools.sat import cp_model_pb2

    if subject.is_towers:
        from cpmodels.towers.model import build_towers_model

        model = build_towers_model(subject.towers)[0].proto
    else:
        from cpmodels.backends.cpsat import cover_model

        model = cover_model(subject.cover)
    proto = cp_model_pb2.CpModelProto()
    text_format.Parse(str(model), proto)
    return text_format.MessageToString(proto).encode() if text else proto.SerializeToString()


def write_model(subject: Subject, fmt: str, path: Path) -> list[Path]:
    """Write the model's files whole (each through a temporary file renamed into place), or
    none of them: an unwritable place is an :class:`InputError`."""
    targets = _targets(fmt, Path(path))
    if len(set(targets)) < len(targets):
        raise InputError(f"{path} names the model and its data alike; give a .mzn name")
    for target in targets:
        check_output(target)  # every file, before any work
    files = model_files(subject, fmt, Path(path))
    written: list[Path] = []
    try:
        for target, data in files.items():
            with ctrl_c_held():  # written and counted at once: a Ctrl-C removes it too
                write_atomic(target, data)
                written.append(target)
    except BaseException as exc:
        for done in written:  # all the files or none
            done.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
    return written


@dataclass
class Decoded:
    """An outside solver's answer, read and checked: the true variables, and what breaks the
    spec's rules (empty: a solution). Packing: ``chosen`` option indices; towers: ``grid``."""

    subject: Subject
    true_vars: list[int]
    faults: list[str] = field(default_factory=list)
    chosen: list[int] = field(default_factory=list)
    grid: list[str] = field(default_factory=list)
    score: int | None = None

    @property
    def ok(self) -> bool:
        return not self.faults

    def result(self, fmt: str) -> CoverResult | TowersResult:
        """The checked answer as the solvers' own results are (drawn and printed alike)."""
        backend = f"decoded from {fmt}"
        if self.subject.is_towers:
            return TowersResult("solved", 0.0, self.grid, self.score, backend=backend)
        return CoverResult("solved", backend, 0.0, self.chosen)


def decode(subject: Subject, fmt: str, answer: bytes) -> Decoded:
    """Read a solver's ``answer`` to the model in format ``fmt`` and check it against the
    rules; :class:`Unsolvable` when the solver reports no solution."""
    _check_fits(subject, fmt)
    if len(answer) > readers.MAX_ANSWER_BYTES:
        raise InputError(f"the solver's output is over {readers.MAX_ANSWER_BYTES:,} bytes")
    if fmt == "cpsat":
        true_vars = readers.cpsat_answer(subject, answer)
    else:
        try:
            text = answer.decode()
        except UnicodeDecodeError:
            raise InputError("the solver's output is not text") from None
        if fmt == "dimacs":
            true_vars = readers.dimacs_answer(subject, text, dimacs_variables(subject))
        elif fmt == "opb":
            true_vars = readers.opb_answer(subject, text)
        elif fmt in ("mps", "lp"):
            true_vars = readers.mip_answer(subject, text)
        elif fmt == "mzn":
            true_vars = readers.minizinc_answer(subject, text)
        else:
            true_vars = readers.xcc_answer(subject, text)
    return check(subject, true_vars)


def check_refutation(subject: Subject, proof: bytes) -> ProofCheck:
    """Check a SAT solver's DRUP or DRAT proof (text or binary) that the DIMACS model of
    ``subject`` has no solution, with the package's own checker."""
    from cpmodels.backends.cnf import PROOF_ENCODING, build_cnf
    from cpmodels.drup import MAX_PROOF_BYTES, check_drup, proof_lines

    _check_fits(subject, "dimacs")
    if len(proof) > MAX_PROOF_BYTES:
        raise InputError(f"the proof is over {MAX_PROOF_BYTES:,} bytes")
    clauses = build_cnf(subject.cover, PROOF_ENCODING).clauses
    n_vars = max((abs(x) for clause in clauses for x in clause), default=1)
    try:
        lines = proof_lines(proof, n_vars)
    except UnicodeDecodeError:
        raise InputError("the proof is neither DRAT text nor binary DRAT: it is not "
                         "UTF-8 text") from None
    except ValueError as exc:
        raise InputError(f"the proof is not a DRAT proof of this model: {exc}") from None
    return check_drup(clauses, lines)


def check(subject: Subject, true_vars: Sequence[int]) -> Decoded:
    """What the true variables mean, and every rule they break."""
    found = Decoded(subject, sorted(true_vars))
    if not subject.is_towers:
        found.chosen = [v - 1 for v in found.true_vars]
        found.faults = cover_faults(subject.cover, found.chosen)
        return found
    try:
        found.grid = subject.grid_of(found.true_vars)
    except ValueError as exc:
        found.faults = [str(exc)]
        return found
    found.faults = subject.towers.violations(found.grid)
    found.score = subject.towers.score(found.grid)
    return found
