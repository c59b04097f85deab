"""An outside solver's answer, read back: the variables it set true, from the output of a SAT,
pseudo-Boolean, MIP, MiniZinc, DLX or CP-SAT run on an exported model.

Each reader returns the true variables (numbered from 1 as in :mod:`cpmodels.export.subject`)
or raises :class:`Unsolvable` when the solver reports that there is no solution; anything it
cannot read is an :class:`~cpmodels.errors.InputError` saying what is wrong.
"""

from __future__ import annotations

import math
import re

from cpmodels.errors import InputError
from cpmodels.export.clauses import xcc_names
from cpmodels.export.subject import Subject

MAX_ANSWER_BYTES = 200_000_000  # a solver's output longer than this is refused unread


class Unsolvable(Exception):
    """The solver's output says the model has no solution."""


_UNSAT = re.compile(r"^s\s+UNSATISFIABLE\b|=====UNSATISFIABLE=====|^\s*infeasible\b",
                    re.MULTILINE | re.IGNORECASE)


MAX_INDEX_DIGITS = 19  # a variable's number longer than this is past any model's


def _check_range(subject: Subject, v: int, n_all: int) -> None:
    if not 1 <= v <= n_all:
        raise InputError(f"variable {v} is not in the model (it has {n_all:,} variables)")


def _number(text: str, n_all: int, what: str = "variable") -> int:
    """A variable's number (or a literal, signed) read from ``text``: its digits are
    bounded before they are read, and the variable must be one of the model's ``n_all``."""
    digits = text.lstrip("+-")
    if not digits.isdigit() or not digits.isascii():
        raise ValueError(text)
    if len(digits) > MAX_INDEX_DIGITS:
        shown = text if len(text) <= 24 else f"{text[:20]}..."
        raise InputError(f"{what} {shown} ({len(digits):,} digits) is not in the "
                         f"model (it has {n_all:,} variables)")
    value = int(text)
    if value and abs(value) > n_all:
        raise InputError(f"{what} {value} is not in the model (it has {n_all:,} variables)")
    return value


def dimacs_answer(subject: Subject, text: str, n_all: int) -> list[int]:
    """``v`` lines (SAT competition output) or bare literal lines; every placement variable
    must be given (``n_all``: the formula's variables, auxiliary ones included)."""
    if _UNSAT.search(text):
        raise Unsolvable("the solver says UNSATISFIABLE")
    lits: list[int] = []
    has_v = any(line.startswith("v ") or line == "v" for line in text.splitlines())
    for number, line in enumerate(text.splitlines(), 1):
        body = line.strip()
        if not body or body[0] in "cs" or body in ("SAT", "SATISFIABLE"):
            continue
        if has_v:
            if not body.startswith("v"):
                continue
            body = body[1:]
        try:
            lits += [_number(tok, n_all, "literal") for tok in body.split()]
        except ValueError:
            raise InputError(f"line {number} of the solver's output is not a list of "
                             f"literals: {line[:60]!r}") from None
    return _true_of(subject, lits, n_all, "literal")


def _true_of(subject: Subject, lits: list[int], n_all: int, what: str) -> list[int]:
    given: dict[int, bool] = {}
    for lit in lits:
        if lit == 0:
            continue
        _check_range(subject, abs(lit), n_all)
        if given.get(abs(lit)) == (lit < 0):
            raise InputError(f"variable {abs(lit)} is given both true and false")
        given[abs(lit)] = lit > 0
    if not given:
        raise InputError(f"the solver's output holds no {what}s: no assignment to decode")
    missing = [v for v in range(1, subject.n_vars + 1) if v not in given]
    if missing:
        raise InputError(f"a partial assignment: {len(missing):,} of the {subject.n_vars:,} "
                         f"decision variables are not given (the first is x{missing[0]})")
    return sorted(v for v, value in given.items() if value and v <= subject.n_vars)


_OPB_LIT = re.compile(r"^(-|~)?x(\d+)$")


def opb_answer(subject: Subject, text: str) -> list[int]:
    """Pseudo-Boolean competition output: ``v x1 -x2 ...`` lines."""
    if _UNSAT.search(text):
        raise Unsolvable("the solver says UNSATISFIABLE")
    lits = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith("v"):
            continue
        for tok in line[1:].split():
            match = _OPB_LIT.match(tok)
            if match is None:
                raise InputError(f"line {number} of the solver's output: {tok!r} is not a "
                                 "literal such as x3 or -x3")
            v = _number(match[2], subject.n_all)
            lits.append(-v if match[1] else v)
    return _true_of(subject, lits, subject.n_all, "v line literal")


_NAME_VALUE = re.compile(r"(?<![\w.])x(\d+)\s+([-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"
                         r"|(?i:inf(?:inity)?|nan)))(?![\w.])")


def mip_answer(subject: Subject, text: str) -> list[int]:
    """A MIP solver's solution: lines naming a variable and its value (HiGHS, Gurobi and
    SCIP solution files, CBC's listing). Variables not listed are 0."""
    if _UNSAT.search(text):
        raise Unsolvable("the solver says the programme is infeasible")
    values: dict[int, float] = {}
    for match in _NAME_VALUE.finditer(text):
        v, value = _number(match[1], subject.n_all), float(match[2])
        _check_range(subject, v, subject.n_all)
        if not math.isfinite(value) or abs(value - round(value)) > 1e-6 \
                or round(value) not in (0, 1):
            raise InputError(f"x{v} = {match[2]} is not 0 or 1")
        values.setdefault(v, value)
    if not values:
        raise InputError("no line of the solver's output gives a variable's value "
                         "(expected lines such as 'x12 1')")
    return sorted(v for v, value in values.items() if round(value) == 1 and v <= subject.n_vars)


def minizinc_answer(subject: Subject, text: str) -> list[int]:
    """MiniZinc's output of the exported model: the last ``options = [...]`` (packing) or
    ``board = [...]`` (towers) it printed."""
    if "=====UNSATISFIABLE=====" in text:
        raise Unsolvable("MiniZinc says =====UNSATISFIABLE=====")
    if subject.is_towers:
        boards = re.findall(r"board\s*=\s*\[([^\]]*)\]", text)
        if not boards:
            raise InputError("MiniZinc's output holds no 'board = [...]' line")
        grid = re.findall(r'"([^"]*)"', boards[-1])
        return towers_vars(subject, grid)
    found = re.findall(r"options\s*=\s*\[([^\]]*)\]", text)
    if not found:
        raise InputError("MiniZinc's output holds no 'options = [...]' line")
    try:
        chosen = [_number(tok, subject.n_vars, "option")
                  for tok in found[-1].replace(",", " ").split()]
    except ValueError:
        raise InputError(f"options = [{found[-1][:60]}] is not a list of numbers") from None
    for v in chosen:
        _check_range(subject, v, subject.n_vars)
    return sorted(chosen)


def towers_vars(subject: Subject, grid: list[str]) -> list[int]:
    """The true variables of a towers board drawn one letter per cell."""
    p = subject.towers
    if len(grid) != p.rows or any(len(row) != p.cols for row in grid):
        raise InputError(f"the board is not {p.rows}x{p.cols}")
    letters = {col.letter: k for k, col in enumerate(p.colours)}
    true = []
    for r, row in enumerate(grid):
        for c, letter in enumerate(row):
            if letter in letters:
                true.append(subject.var(r, c, letters[letter]))
            elif not (p.allow_empty and letter == p.empty_letter):
                raise InputError(f"row {r} column {c} holds {letter!r}, not a colour")
    return true


def xcc_answer(subject: Subject, text: str) -> list[int]:
    """The options of one solution, one a line, as DLX prints them (items in any order)."""
    names = xcc_names(subject)
    by_items = {frozenset(names[i] for i in option): j + 1
                for j, option in enumerate(subject.cover.options)}
    known = set(names)
    chosen = []
    for number, line in enumerate(text.splitlines(), 1):
        tokens = [tok for tok in line.split() if not tok.startswith("(")]
        if not tokens or line.lstrip().startswith("|") or not set(tokens) <= known:
            continue
        option = by_items.get(frozenset(tokens))
        if option is None:
            raise InputError(f"line {number} names items that no option covers together: "
                             f"{line.strip()[:60]!r}")
        chosen.append(option)
    if not chosen:
        raise InputError("no line of the solver's output is an option of the model")
    return sorted(chosen)


def cpsat_answer(subject: Subject, data: bytes) -> list[int]:
    """A CP-SAT ``CpSolverResponse``, in text or binary protobuf."""
    from google.protobuf import text_format
    from google.protobuf.message import DecodeError
    from ortools.sat import cp_model_pb2

    response = cp_model_pb2.CpSolverResponse()
    try:
        text_format.Parse(data.decode(), response)
    except (UnicodeDecodeError, text_format.ParseError):
        try:
            response.ParseFromString(data)
        except DecodeError:
            raise InputError("the answer is not a CP-SAT response (neither text nor "
                             "binary protobuf)") from None
    status = cp_model_pb2.CpSolverStatus.Name(response.status)
    if status == "INFEASIBLE":
        raise Unsolvable("CP-SAT says INFEASIBLE")
    if not response.solution:
        raise InputError(f"the CP-SAT response holds no solution (status {status})")
    if len(response.solution) != subject.n_vars and not (
            subject.is_towers and subject.towers.when_built
            and len(response.solution) > subject.n_vars):
        raise InputError(f"the CP-SAT response has {len(response.solution):,} values; the "
                         f"model has {subject.n_vars:,} variables")
    # Under the build-order rule the model's own variables (times, lent needs) follow the
    # board's; the rule is checked on the board.
    return [v + 1 for v, value in enumerate(response.solution[:subject.n_vars]) if value]
