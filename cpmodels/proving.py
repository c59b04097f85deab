"""Proving a packing instance unsolvable: a DRUP proof from the SAT solver, checked here."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from cpmodels.backends import cnf
from cpmodels.backends.result import CoverResult, Status
from cpmodels.cover import ExactCover
from cpmodels.drup import ProofCheck, check_drup
from cpmodels.files import FileRefused, check_output, read_bounded, write_atomic

MAX_PROOF_BYTES = 1 << 31  # a proof (or its formula) read back to check it again


@dataclass
class ProofOutcome:
    """A solution (``result.status == "solved"``) or a refutation and its checked proof."""

    result: CoverResult
    check: ProofCheck | None = None
    proof_path: Path | None = None


def prove_cover(cover: ExactCover, proof_path: Path | None = None, *,
                time_limit: float | None = None) -> ProofOutcome:
    """Solve ``cover`` with proof logging; when it has no solution, check the DRUP proof with
    the independent checker and, given ``proof_path``, write the proof there and the formula
    (DIMACS) beside it as ``<proof_path>.cnf``, so any DRAT checker can check it again.
    When ``time_limit`` seconds pass first, the status is "unknown" and nothing is checked."""
    if proof_path is not None:
        for target in (proof_path, _formula_path(proof_path)):
            check_output(target)  # before the search
    start = time.perf_counter()
    refutation = cnf.refute(cover, time_limit=time_limit)
    if refutation.timed_out:
        return ProofOutcome(CoverResult("unknown", cnf.NAME, time.perf_counter() - start))
    if refutation.chosen is not None:
        return ProofOutcome(CoverResult("solved", cnf.NAME, time.perf_counter() - start,
                                        refutation.chosen))
    check = check_drup(refutation.model.clauses, refutation.proof)
    if proof_path is not None:
        write_atomic(proof_path, "".join(line + "\n" for line in refutation.proof))
        write_atomic(_formula_path(proof_path), refutation.model.dimacs())
    status: Status = "unsolvable" if check.ok else "unknown"
    return ProofOutcome(CoverResult(status, cnf.NAME, time.perf_counter() - start), check,
                        proof_path)


def proof_holds(cover: ExactCover, proof_path: Path) -> bool:
    """Whether ``proof_path`` (as :func:`prove_cover` wrote it) holds a proof that ``cover``
    has no solution: the formula beside it is the one ``cover`` makes, and the proof checks
    against it. A file missing, unreadable, too long or not UTF-8 is no proof."""
    try:
        formula = read_bounded(_formula_path(proof_path), MAX_PROOF_BYTES, "formula")
        proof = read_bounded(proof_path, MAX_PROOF_BYTES, "proof").decode()
    except (FileRefused, UnicodeDecodeError):
        return False
    model = cnf.build_cnf(cover, cnf.PROOF_ENCODING)
    if formula != model.dimacs().encode():
        return False
    return check_drup(model.clauses, proof.splitlines()).ok


def _formula_path(proof_path: Path) -> Path:
    """Where the formula of a proof goes: ``<proof_path>.cnf``."""
    return proof_path.with_name(proof_path.name + ".cnf")
