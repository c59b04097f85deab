"""The CNF backend (python-sat): solve, enumerate every solution, prove there is none.

The exact cover becomes a formula with one variable per option (option ``j`` is variable
``j + 1``) and one cardinality constraint per item, so a model decodes straight to placements:
a board cell or a single piece is covered exactly once, a piece with copies exactly ``count``
times, a secondary item at most once. Two encodings from ``pysat.card`` are used, each where
it measured best (``docs/cnf.md``):

* ``EncType.native``: cardinality constraints kept whole, for Minicard. No auxiliary
  variables, and propagation straight on the constraints; used to solve and to enumerate.
* ``EncType.seqcounter`` (Sinz's sequential counter): plain clauses, 3n of them and n
  auxiliary variables for n options where the pairwise encoding needs n(n-1)/2. Used for
  proofs, which need pure CNF: Glucose writes a DRUP proof of it.

Enumeration does not add blocking clauses (they slowed the solver to one solution every half
second). It splits the search into disjoint parts all the way down: the solver's unit
propagation under the current assumptions tells which options are still possible, the item
with the fewest possible options is split into one part per option, and a part where every
item is covered is a solution. No part is searched twice and nothing accumulates.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.solvers import Solver

import cpmodels._native as _native
from cpmodels.backends.result import CoverResult, count_by_enumeration
from cpmodels.cover import ExactCover
from cpmodels.errors import OutOfTime
from cpmodels.interrupt import seconds_left, stop_after

NAME = "sat"
STREAMS = True  # each solution is handed over as the split search reaches it
SOLVER = "minicard"  # native cardinality constraints
PROOF_SOLVER = "glucose4"  # writes DRUP proofs
PROOF_ENCODING = EncType.seqcounter


@dataclass
class CnfModel:
    """Clauses (and native at-most constraints) over option variables ``1 .. n_options``,
    auxiliary variables after them."""

    n_vars: int
    n_options: int
    clauses: list[list[int]] = field(default_factory=list)
    atmosts: list[tuple[list[int], int]] = field(default_factory=list)
    auxiliary: list[tuple[int, int, int]] = field(default_factory=list)  # item, first, last

    def decode(self, model: Sequence[int]) -> list[int]:
        """Option ids chosen in a model (a list of literals, as solvers return them)."""
        return [lit - 1 for lit in model[:self.n_options] if lit > 0]

    def dimacs(self) -> str:
        """The clauses in DIMACS text (pure CNF models only)."""
        head = f"p cnf {self.n_vars} {len(self.clauses)}\n"
        return head + "".join(" ".join(map(str, c)) + " 0\n" for c in self.clauses)

    def solver(self, name: str, **kwargs: object) -> Solver:
        """A solver loaded with the model."""
        sat = Solver(name=name, bootstrap_with=self.clauses, **kwargs)
        for lits, bound in self.atmosts:
            sat.add_atmost(lits, bound)
        return sat


def build_cnf(cover: ExactCover, encoding: int = EncType.native) -> CnfModel:
    """Compile ``cover``: one variable per option, one cardinality constraint per item."""
    model = CnfModel(len(cover.options), len(cover.options))
    for index, (item, options) in enumerate(zip(cover.items, cover.item_options())):
        first_aux = model.n_vars + 1
        lits = [j + 1 for j in options]
        if item.low > len(lits):
            model.n_vars += 1  # the item cannot be covered often enough: x and not x
            model.clauses += [[model.n_vars], [-model.n_vars]]
            model.auxiliary.append((index, model.n_vars, model.n_vars))
            continue
        bounds = []
        if item.low > 0:
            bounds.append(("atleast", item.low))
        if item.high < len(lits):
            bounds.append(("atmost", item.high))
        for kind, bound in bounds:
            if encoding == EncType.native:
                if kind == "atleast":
                    model.atmosts.append(([-x for x in lits], len(lits) - bound))
                else:
                    model.atmosts.append((lits, bound))
                continue
            if kind == "atleast" and bound == 1:
                model.clauses.append(lits)
                continue
            make = CardEnc.atleast if kind == "atleast" else CardEnc.atmost
            part = make(lits, bound=bound, top_id=model.n_vars, encoding=encoding)
            model.clauses += part.clauses
            model.n_vars = max(model.n_vars, part.nv)
        if model.n_vars >= first_aux:
            model.auxiliary.append((index, first_aux, model.n_vars))
    if encoding == EncType.native:
        # Minicard needs each at-least-one as a clause too, to propagate from it at once.
        model.clauses += [[j + 1 for j in options] for item, options
                          in zip(cover.items, cover.item_options()) if item.low == 1]
    return model


class _Incidence:
    """Which items each option covers and which options cover each item, as flat arrays
    (CSR), for the split step (:meth:`step`)."""

    def __init__(self, cover: ExactCover) -> None:
        self.n_options = len(cover.options)
        self.opt_start, self.opt_items = _csr(cover.options)
        self.item_start, self.item_opts = _csr(cover.item_options())
        self.low = np.array([it.low for it in cover.items], dtype=np.int64)
        self.exact_one = np.array([it.low == it.high == 1 for it in cover.items])
        self._native = _native.CnfIncidence(self.opt_start, self.opt_items, self.item_start,
                                            self.item_opts, self.low)

    def step(self, lits: np.ndarray, out: np.ndarray) -> tuple[int, int, int]:
        """Where the split search goes from a propagated part, given its literals:
        ``(DEAD, ..)`` when some item can no longer be covered enough; ``(ITEM, i, k)`` to
        split on item ``i`` (the one short of cover with the fewest possible options), whose
        ``k`` possible options are written to ``out``; ``(OPTION, j, 0)`` to split on option
        ``j`` in or out (every item covered enough, ``j`` still open); ``(SOLVED, ..)`` when
        nothing is left open. The step runs in the compiled core."""
        found: tuple[int, int, int] = self._native.step(
            np.ascontiguousarray(lits, dtype=np.int64), out)
        return found


def _csr(rows: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    start = np.zeros(len(rows) + 1, dtype=np.int64)
    start[1:] = np.cumsum([len(r) for r in rows])
    flat = np.array([x for r in rows for x in r], dtype=np.int64)
    return start, flat


DEAD, ITEM, OPTION, SOLVED = 0, 1, 2, 3  # what the split step found


def _propagate(sat: Solver, assumptions: list[int]) -> tuple[bool, list[int] | None]:
    """``sat.propagate``, with the solver's own Ctrl-C error turned into KeyboardInterrupt."""
    try:
        return sat.propagate(assumptions=assumptions)
    except Exception as exc:  # pysolvers.error: "Caught keyboard interrupt"
        if "keyboard interrupt" in str(exc).lower():
            raise KeyboardInterrupt from None
        raise


def iter_solutions(cover: ExactCover, *, time_limit: float | None = None,
                   forced: Sequence[int] = (), solver: str = SOLVER) -> Iterator[list[int]]:
    """Stream every solution (option ids, forced ones included), each exactly once; raises
    :class:`~cpmodels.errors.OutOfTime` when ``time_limit`` seconds pass before the last one."""
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    model = build_cnf(cover)
    n = len(cover.options)
    inc = _Incidence(cover)
    out = np.zeros(max(1, n), dtype=np.int64)
    with model.solver(solver) as sat:
        stack = [[j + 1 for j in forced]]
        while stack:
            if deadline is not None and time.perf_counter() > deadline:
                raise OutOfTime(f"stopped at the time limit ({time_limit:g} s)")
            assumptions = stack.pop()
            ok, implied = _propagate(sat, assumptions)
            if not ok:
                continue
            # Literals fixed at the top level may be left out of ``implied``: the assumptions
            # are added (repeats do no harm below) so a branch always makes progress.
            lits = np.array((implied or []) + assumptions, dtype=np.int64)
            found, at, k = inc.step(lits, out)
            if found == DEAD:
                continue
            if found == SOLVED:
                yield sorted({int(x) - 1 for x in lits if 0 < x <= n})
                continue
            if found == ITEM and inc.exact_one[at]:
                # One part per option: exactly one of them covers item ``at``.
                stack += [[*assumptions, int(j) + 1] for j in out[:k][::-1]]
                continue
            j = int(out[0]) if found == ITEM else at  # an option in or out
            stack += [[*assumptions, -(j + 1)], [*assumptions, j + 1]]


def count(cover: ExactCover, *, time_limit: float | None = None, forced: Sequence[int] = (),
          progress: Callable[[int, int], None] | None = None) -> int:
    """How many solutions, counted as they are enumerated (``OutOfTime`` at the time limit)."""
    return count_by_enumeration(iter_solutions, cover, time_limit=time_limit, forced=forced,
                                progress=progress)


def _solve_within(sat: Solver, time_limit: float | None,
                  assumptions: Sequence[int] = ()) -> bool | None:
    """``sat.solve(assumptions)``; None when ``time_limit`` seconds pass first.

    The limited call releases the interpreter while it searches, so Ctrl-C and the
    program's own time limits are not held up by it either.
    """
    with stop_after(time_limit, sat.interrupt):
        return sat.solve_limited(assumptions=list(assumptions), expect_interrupt=True)


def solve(cover: ExactCover, *, time_limit: float | None = None, forced: Sequence[int] = (),
          solver: str = SOLVER) -> CoverResult:
    """One solution, "unsolvable" when the solver refutes the formula, or "unknown" when
    ``time_limit`` seconds pass first (the formula's making and loading counted in)."""
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    model = build_cnf(cover)
    with model.solver(solver) as sat:
        answer = _solve_within(sat, seconds_left(deadline), [j + 1 for j in forced])
        chosen = sorted(model.decode(sat.get_model())) if answer else None
    seconds = time.perf_counter() - start
    if answer is None:
        return CoverResult("unknown", NAME, seconds)
    if chosen is None:
        return CoverResult("unsolvable", NAME, seconds)
    return CoverResult("solved", NAME, seconds, chosen)


@dataclass
class Refutation:
    """A solver's answer with its evidence: a solution, or the formula and a DRUP proof."""

    chosen: list[int] | None
    model: CnfModel
    proof: list[str]  # DRUP lines ("1 -2 0", "d 3 4 0"), empty when solved
    seconds: float
    timed_out: bool = False  # the time limit passed with neither a solution nor a proof


def refute(cover: ExactCover, *, solver: str = PROOF_SOLVER,
           time_limit: float | None = None) -> Refutation:
    """Solve with proof logging: a solution, or the proof that there is none; timed out
    when ``time_limit`` seconds pass first (the formula's making and loading counted in)."""
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    model = build_cnf(cover, PROOF_ENCODING)
    with model.solver(solver, with_proof=True) as sat:
        answer = _solve_within(sat, seconds_left(deadline))
        if answer is None:
            return Refutation(None, model, [], time.perf_counter() - start, timed_out=True)
        if answer:
            return Refutation(sorted(model.decode(sat.get_model())), model, [],
                              time.perf_counter() - start)
        proof = list(sat.get_proof() or [])
    return Refutation(None, model, proof, time.perf_counter() - start)
