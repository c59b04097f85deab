"""Checking DRUP proofs of unsatisfiability: an independent checker built on unit propagation.

A DRUP proof is a list of lemmas (clauses) and deletions. Each lemma must follow from the
clauses so far by *reverse unit propagation* (RUP): assuming every literal of the lemma false
and propagating units must end in a conflict. The proof holds when the empty clause follows.
This checker shares no code with any solver: it reads the formula and the proof as text-level
clauses and propagates with two watched literals per clause (in the compiled core). Lemmas that
need the RAT rule are rejected (the proofs checked here are DRUP). Deleting clauses can only
make the check stricter, so deletions are applied, except of clauses satisfied at the top
level (a later lemma may need the units they imply), as drat-trim does.

The checker's time and memory grow with the proof's length, never with its numbers: a
literal past the formula's variables is refused where it is read, and a lemma that is a
clause already derived (or given) is not checked again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

import cpmodels._native as _native

MAX_PROOF_BYTES = 200_000_000  # a proof file longer than this is refused unread
MAX_LITERAL_DIGITS = 19  # a literal's text longer than this is past any formula's variables


@dataclass
class ProofCheck:
    """The verdict: ``ok``, how many lemmas were checked, and where a bad proof fails."""

    ok: bool
    lemmas: int
    message: str


def _past(number: int, literal: str, n_vars: int) -> ValueError:
    """The error of a literal past the formula's ``n_vars`` variables."""
    shown = literal if len(literal) <= 24 else f"{literal[:20]}... ({len(literal):,} digits)"
    return ValueError(f"proof line {number}: literal {shown} is past the formula's "
                      f"{n_vars:,} variables")


Step = tuple[bool, tuple[int, ...]]  # (is a deletion, the clause's literals)


def parse_proof(lines: Iterable[str], n_vars: int | None = None) -> list[Step]:
    """DRUP text lines to ``(is_deletion, literals)`` steps (a trailing 0 ends each line);
    given ``n_vars``, a literal past the formula's variables is a ValueError. A line seen
    before is not read again (its step is shared)."""
    steps: list[Step] = []
    seen: dict[str, Step] = {}
    for number, line in enumerate(lines, 1):
        step = seen.get(line)
        if step is None:
            text = line.strip()
            if not text or text.startswith("c"):
                continue
            step = seen[line] = _parse_step(number, text, n_vars)
        steps.append(step)
    return steps


def _parse_step(number: int, text: str, n_vars: int | None) -> Step:
    """One proof line (not blank, no comment) as its step, or ValueError saying why."""
    deletion = text.startswith("d ")
    fields = text[2:].split() if deletion else text.split()
    if not all(x.removeprefix("-").isdigit() for x in fields) or not text.isascii():
        raise ValueError(f"proof line {number} is not a clause: {text[:60]!r}")
    for x in fields:
        if len(x.removeprefix("-")) > MAX_LITERAL_DIGITS:
            raise _past(number, x, n_vars or 0)
    lits = [int(x) for x in fields]
    if n_vars is not None and lits and max(map(abs, lits)) > n_vars:
        raise _past(number, str(next(x for x in lits if abs(x) > n_vars)), n_vars)
    if not lits or lits[-1] != 0 or 0 in lits[:-1]:
        raise ValueError(f"proof line {number} does not end with a single 0")
    return deletion, tuple(lits[:-1])


def proof_lines(data: bytes, n_vars: int | None = None) -> list[str]:
    """A proof file's steps as DRUP text lines, from text or from binary DRAT (what CaDiCaL
    and kissat write by default: ``a`` or ``d``, then each literal as a variable-length number
    ``2 * var + sign``, then 0). Given ``n_vars``, a binary literal past the formula's
    variables is a ValueError as soon as its bytes say so."""
    head = data[:65536]
    if not any((b < 32 and b not in b"\n\r\t") or b >= 127 for b in head):
        return data.decode().splitlines()
    lines: list[str] = []
    seen: dict[bytes, str] = {}
    k, n = 0, len(data)
    while k < n:
        kind = data[k]
        if kind not in (0x61, 0x64):
            raise ValueError(f"byte {k} of the binary proof is not a step ('a' or 'd')")
        end = data.find(b"\0", k + 1)  # the step's 0: no literal's bytes hold a 0 byte
        if end < 0:
            raise ValueError("the binary proof ends inside a step")
        step = data[k:end]
        line = seen.get(step)
        if line is None:
            line = seen[step] = _binary_step(step, len(lines) + 1, n_vars)
        lines.append(line)
        k = end + 1
    return lines


def _binary_step(step: bytes, number: int, n_vars: int | None) -> str:
    """One binary DRAT step (its kind byte and its literals, without the closing 0) as a
    DRUP text line."""
    if step[-1] >= 0x80:
        raise ValueError(f"step {number} of the binary proof: a literal runs into its "
                         "closing 0 byte")
    lits: list[str] = []
    value, shift = 0, 0
    for byte in step[1:]:
        value |= (byte & 0x7F) << shift
        shift += 7
        if shift > 63 or (n_vars is not None and value >> 1 > n_vars):
            raise ValueError(f"step {number} of the binary proof: a literal is past the "
                             f"formula's {n_vars or 0:,} variables")
        if byte < 0x80:
            lits.append(str(-(value >> 1) if value & 1 else value >> 1))
            value, shift = 0, 0
    return ("d " if step[0] == 0x64 else "") + " ".join([*lits, "0"])


def _check(n_vars: int, n_formula: int, lits: np.ndarray, start: np.ndarray,
           length: np.ndarray, step_kind: np.ndarray, step_clause: np.ndarray,
           units: np.ndarray, n_units_formula: int) -> int:
    """Replay the proof; returns the index of the first step that fails, or -1
    (``len(step_kind)``: the proof does not reach the empty clause). ``lits`` and ``units``
    are worked on in place."""
    n_clauses = start.shape[0]
    failed: int = _native.drup_check(
        n_vars, n_formula, lits, start, length, step_kind, step_clause, units,
        n_units_formula, np.empty(n_clauses, dtype=np.uint8),
        np.empty(2 * n_vars, dtype=np.int64), np.empty(2 * n_clauses, dtype=np.int64),
        np.empty(n_vars, dtype=np.int8), np.empty(n_vars + 1, dtype=np.int64),
        np.empty(n_vars, dtype=np.int8))
    return failed


def check_drup(clauses: Sequence[Sequence[int]], proof: Iterable[str]) -> ProofCheck:
    """Check a DRUP proof that ``clauses`` are unsatisfiable. Each distinct clause is stored
    once, with its number of copies: a lemma already derived is active again without a
    second check, and deleting one of two copies leaves the clause."""
    all_clauses: list[tuple[int, ...]] = []
    index: dict[tuple[int, ...], int] = {}
    copies: list[int] = []
    for clause in clauses:
        key = tuple(sorted(set(clause)))
        c = index.setdefault(key, len(all_clauses))
        if c == len(all_clauses):
            all_clauses.append(key)
            copies.append(0)
        copies[c] += 1
    n_formula = len(all_clauses)
    n_vars = max([abs(x) for c in all_clauses for x in c] + [1])
    try:
        steps = parse_proof(proof, n_vars)
    except ValueError as exc:
        return ProofCheck(False, 0, str(exc))
    kinds, targets = [], []
    keys: dict[tuple[int, ...], tuple[int, ...]] = {}
    for deletion, lemma in steps:
        known = keys.get(lemma)
        key = known if known is not None else keys.setdefault(lemma, tuple(sorted(set(lemma))))
        c = index.get(key, -1)
        if deletion:
            if c >= 0 and copies[c] > 0:
                copies[c] -= 1
            kinds.append(1)
            targets.append(c if c >= 0 and copies[c] == 0 else -1)
            continue
        if c < 0:  # a new clause: checked
            c = index[key] = len(all_clauses)
            all_clauses.append(key)
            copies.append(0)
            kinds.append(0)
        else:
            kinds.append(2)
        copies[c] += 1
        targets.append(c)
    length = np.array([len(c) for c in all_clauses], dtype=np.int64)
    start = np.zeros(len(all_clauses), dtype=np.int64)
    if len(all_clauses) > 1:
        start[1:] = np.cumsum(length)[:-1]
    lits = np.array([x for c in all_clauses for x in c] or [0], dtype=np.int64)
    units = np.zeros(len(all_clauses) + 1, dtype=np.int64)
    formula_units = [c for c in range(n_formula) if length[c] == 1]
    units[:len(formula_units)] = formula_units
    if any(length[c] == 0 for c in range(n_formula)):
        return ProofCheck(True, 0, "the formula contains the empty clause")
    failed = _check(n_vars, n_formula, lits, start, length,
                    np.array(kinds, dtype=np.int64), np.array(targets, dtype=np.int64),
                    units, len(formula_units))
    lemmas = sum(1 for k in kinds if k != 1)
    if failed == -1:
        return ProofCheck(True, lemmas, f"proof checked: {lemmas} lemmas")
    if failed == len(kinds):
        return ProofCheck(False, lemmas, "the proof does not reach the empty clause")
    shown = " ".join(map(str, steps[failed][1])) or "(empty clause)"
    return ProofCheck(False, lemmas, f"step {failed + 1}: lemma {shown[:60]} does not follow "
                      "by unit propagation")
