"""Checking DRUP proofs of unsatisfiability: an independent checker built on unit propagation.

A DRUP proof is a list of lemmas (clauses) and deletions. Each lemma must follow from the
clauses so far by *reverse unit propagation* (RUP): assuming every literal of the lemma false
and propagating units must end in a conflict. The proof holds when the empty clause follows.
This checker shares no code with any solver: it reads the formula and the proof as text-level
clauses and propagates with two watched literals per clause (compiled with numba). Lemmas that
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
from numba import njit

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


@njit(cache=True)
def _numba_lit_index(lit):
    return 2 * (abs(lit) - 1) + (1 if lit < 0 else 0)


@njit(cache=True)
def _numba_truth(lit, value):
    v = value[abs(lit) - 1]
    return v if lit > 0 else -v


@njit(cache=True)
def _numba_assign(lit, value, trail, top):
    value[abs(lit) - 1] = 1 if lit > 0 else -1
    trail[top] = lit
    return top + 1


@njit(cache=True)
def _numba_watch(c, k, lits, start, head, nxt):
    """Put watch ``k`` of clause ``c`` (on its literal at position ``k``) on that literal."""
    e = 2 * c + k
    t = _numba_lit_index(lits[start[c] + k])
    nxt[e] = head[t]
    head[t] = e


@njit(cache=True)
def _numba_rup(target, lits, start, length, active, head, nxt, units, n_units, value, trail,
         snapshot):
    """True when assuming clause ``target`` false (-1: the empty clause) and propagating the
    active clauses yields a conflict. Two watched literals per clause (positions 0 and 1 of
    its literals); the assignment is undone before returning, and a non-empty ``snapshot``
    receives it first."""
    top = 0
    conflict = False
    if target >= 0:
        for q in range(start[target], start[target] + length[target]):
            now = _numba_truth(-lits[q], value)
            if now == -1:
                conflict = True  # the lemma is a tautology
            elif now == 0:
                top = _numba_assign(-lits[q], value, trail, top)
    for u in range(n_units):
        c = units[u]
        if conflict:
            break
        if active[c]:
            now = _numba_truth(lits[start[c]], value)
            if now == -1:
                conflict = True
            elif now == 0:
                top = _numba_assign(lits[start[c]], value, trail, top)
    done = 0
    while done < top and not conflict:
        false_lit = -trail[done]
        done += 1
        t = _numba_lit_index(false_lit)
        e = head[t]
        prev = -1
        while e >= 0:
            after = nxt[e]
            c = e // 2
            k = e % 2
            moved = False
            if active[c] and not conflict:
                s0 = start[c]
                other = lits[s0 + 1 - k]
                if _numba_truth(other, value) != 1:
                    for r in range(s0 + 2, s0 + length[c]):
                        if _numba_truth(lits[r], value) != -1:
                            # Watch this literal instead: swap it into position k.
                            lits[r], lits[s0 + k] = lits[s0 + k], lits[r]
                            if prev < 0:
                                head[t] = after
                            else:
                                nxt[prev] = after
                            _numba_watch(c, k, lits, start, head, nxt)
                            moved = True
                            break
                    if not moved:
                        now = _numba_truth(other, value)
                        if now == -1:
                            conflict = True
                        elif now == 0:
                            top = _numba_assign(other, value, trail, top)
            if not moved:
                prev = e
            e = after
    if snapshot.shape[0] > 0:
        snapshot[:] = value
    for k in range(top):
        value[abs(trail[k]) - 1] = 0
    return conflict


@njit(cache=True)
def _numba_check(n_vars, n_formula, lits, start, length, step_kind, step_clause, units,
           n_units_formula):
    """Replay the proof; returns the index of the first step that fails, or -1."""
    n_clauses = start.shape[0]
    active = np.zeros(n_clauses, dtype=np.bool_)
    head = np.full(2 * n_vars, -1, dtype=np.int64)
    nxt = np.full(2 * n_clauses, -1, dtype=np.int64)
    for c in range(n_formula):
        active[c] = True
        if length[c] >= 2:
            _numba_watch(c, 0, lits, start, head, nxt)
            _numba_watch(c, 1, lits, start, head, nxt)
    value = np.zeros(n_vars, dtype=np.int8)
    trail = np.zeros(n_vars + 1, dtype=np.int64)
    n_units = n_units_formula
    top = np.zeros(n_vars, dtype=np.int8)  # the top-level assignment (units propagated)
    no_snapshot = np.zeros(0, dtype=np.int8)
    stale = True
    for s in range(step_kind.shape[0]):
        c = step_clause[s]
        if step_kind[s] == 2:
            # A clause derived (or given) before: it follows from the formula, so it is
            # active again unchecked (its watches stayed). The top-level assignment is not
            # redone: an older one keeps fewer deleted clauses, which only makes the check
            # stricter.
            active[c] = True
            continue
        if step_kind[s] == 1:
            if c < 0:
                continue
            # A clause satisfied at the top level may be the reason for a top-level unit that
            # later lemmas need (solvers delete such clauses), so it stays, as in drat-trim.
            # Deleting any other clause only makes the check stricter.
            if stale:
                _numba_rup(-1, lits, start, length, active, head, nxt, units, n_units, value, trail,
                     top)
                stale = False
            keep = length[c] <= 1
            for q in range(start[c], start[c] + length[c]):
                if _numba_truth(lits[q], top) == 1:
                    keep = True
            if not keep:
                active[c] = False  # its watches stay and are skipped
            continue
        if not _numba_rup(c, lits, start, length, active, head, nxt, units, n_units, value, trail,
                    no_snapshot):
            return s
        active[c] = True
        stale = True
        if length[c] == 0:
            return -1
        if length[c] == 1:
            units[n_units] = c
            n_units += 1
        else:
            _numba_watch(c, 0, lits, start, head, nxt)
            _numba_watch(c, 1, lits, start, head, nxt)
    # The proof must end in the empty clause, or make it follow by propagation.
    if not _numba_rup(-1, lits, start, length, active, head, nxt, units, n_units, value, trail,
                no_snapshot):
        return step_kind.shape[0]
    return -1


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
