"""Puzzle design: which piece sets solve every required date of a calendar board.

A design file (``spec/design.py``) names a calendar board, fixed pieces and draws from
pools. Every candidate set whose area fills the board is decided in two steps:

1. *Existence*, date by date, with the engine's first-solution search over one compiled
   cover per set (``engine.exists``), the dates that rejected earlier sets tried first, so
   a set that fails usually fails at its first date.
2. *Counts*, only for the sets that pass: one tallied search per month, as a sweep does,
   giving the fewest and most solutions over the required dates and their total.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cpmodels.backends.engine import compile_cover
from cpmodels.backends.engine.drivers import exists
from cpmodels.backends.engine.work import Counter, CountJob
from cpmodels.errors import InputError, SpecError
from cpmodels.pools import canonical, pool
from cpmodels.spec import CalendarSpec, Piece, load_spec
from cpmodels.spec.design import DesignSpec
from cpmodels.sweep import fixed_group_count, slack_options, sweep_cover

MAX_CANDIDATES = 10_000_000  # sets a design may ask for before it is refused


@dataclass
class Verdict:
    """What a candidate set does on the required dates."""

    pieces: list[str]
    works: bool
    first_failure: tuple[str, ...] | None = None
    min: int | None = None
    argmin: tuple[str, ...] | None = None
    max: int | None = None
    total: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"pieces": self.pieces, "works": self.works,
                "first_failure": list(self.first_failure) if self.first_failure else None,
                "min": self.min, "argmin": list(self.argmin) if self.argmin else None,
                "max": self.max, "total": self.total}


def load_board(design: DesignSpec, source: str | Path) -> CalendarSpec:
    """The calendar spec a design file names (relative to the design file)."""
    path = Path(source).parent / design.board
    if not path.is_file():
        raise SpecError(str(source), f"no calendar spec at {path} (the path is relative to "
                                     "the design file)", field="board")
    spec = load_spec(path)
    if not isinstance(spec, CalendarSpec):
        raise SpecError(str(source), f"{design.board} is a {spec.kind} spec; a design "
                                     "needs a calendar board", field="board")
    return spec


@dataclass
class Design:
    """A design file with its board: the candidate sets and how each is decided."""

    spec: DesignSpec
    board: CalendarSpec
    required: list[tuple[str, ...]] = field(init=False)
    _order: list[int] = field(init=False)  # required combinations, most rejecting first

    def __post_init__(self) -> None:
        combos = self.board.label_combinations()
        if self.spec.require == "real-dates":
            if not self.board.has_dates:
                raise InputError(f"{self.board.name} has no dates; use require: "
                                 "all-combinations")
            combos = [c for c in combos if self.board.real_date(c) is not None]
        self.required = combos
        self._order = list(range(len(combos)))

    @property
    def area(self) -> int:
        """The cells a set must cover."""
        return len(self.board.cells) - len(self.board.groups)

    def candidates(self) -> Iterator[list[Piece]]:
        """Every set of distinct pieces the design allows whose area fills the board: the
        fixed pieces, then each draw's pieces (in pool order)."""
        fixed_area = sum(p.area * p.count for p in self.spec.fixed)
        choices = []
        for draw in self.spec.choose:
            pieces = ([Piece(name=n, shape=_drawing(s)) for n, s in pool(draw.pool)]
                      if isinstance(draw.pool, str) else list(draw.pool))
            choices.append([tuple(sorted(combo, key=lambda p: p.name)) for k in draw.counts
                            for combo in itertools.combinations(pieces, k)])
        for picked in itertools.product(*choices):
            pieces = [*self.spec.fixed, *(p for combo in picked for p in combo)]
            if fixed_area + sum(p.area for combo in picked for p in combo) != self.area:
                continue
            shapes = [canonical(p.cells) for p in pieces]
            if len(set(shapes)) == len(shapes):
                yield pieces

    def count_candidates(self) -> int:
        total = 1
        for draw in self.spec.choose:
            size = len(pool(draw.pool)) if isinstance(draw.pool, str) else len(draw.pool)
            total *= sum(_binomial(size, k) for k in draw.counts)
        return total

    def set_spec(self, pieces: Sequence[Piece]) -> CalendarSpec:
        return self.board.model_copy(update={"pieces": list(pieces)})

    def decide(self, pieces: Sequence[Piece]) -> Verdict:
        """Whether the set solves every required date (face up too, when asked), and its
        counts when it does."""
        names = [p.name for p in pieces]
        spec = self.set_spec(pieces)
        for face_up in (False, True) if self.spec.face_up else (False,):
            cover, _ = sweep_cover(spec, face_up=face_up)
            option = slack_options(cover, spec)
            groups = list(spec.groups)
            prefixes = [[option[(g, label)] for g, label in zip(groups, self.required[i])]
                        for i in self._order]
            answers = exists(compile_cover(cover), prefixes, first_failure=True)
            failed = next((k for k, ok in enumerate(answers) if ok is False), None)
            if failed is not None:
                index = self._order.pop(failed)
                self._order.insert(0, index)  # the next set tries this date first
                return Verdict(names, False, self.required[index])
        counts = self.counts(spec)
        low = min(self.required, key=lambda c: (counts.get(c, 0), self.required.index(c)))
        high = max(self.required, key=lambda c: counts.get(c, 0))
        return Verdict(names, True, None, counts.get(low, 0), low, counts.get(high, 0),
                       sum(counts.get(c, 0) for c in self.required))

    def counts(self, spec: CalendarSpec) -> dict[tuple[str, ...], int]:
        """Every label combination's count for a set (one tallied search per task)."""
        cover, slack = sweep_cover(spec)
        option = slack_options(cover, spec)
        groups = list(spec.groups)
        n_fixed = fixed_group_count(spec)
        counter = Counter(CountJob(cover, tuple(slack[n_fixed:])))
        by_option = {o: label for (g, label), o in option.items()}
        counts: dict[tuple[str, ...], int] = {}
        for fixed in itertools.product(*(spec.groups[g] for g in groups[:n_fixed])):
            task = tuple(option[(g, label)] for g, label in zip(groups, fixed))
            for key, n in counter.tally(task).items():
                counts[fixed + tuple(by_option[o] for o in key)] = n
        return counts


def _drawing(shape: frozenset[tuple[int, int]]) -> list[str]:
    rows = max(r for r, _ in shape) + 1
    cols = max(c for _, c in shape) + 1
    return ["".join("#" if (r, c) in shape else "." for c in range(cols)) for r in range(rows)]


def _binomial(n: int, k: int) -> int:
    from math import comb

    return comb(n, k) if 0 <= k <= n else 0


def run_design(design: Design, *, done: dict[tuple[str, ...], Verdict] | None = None,
               on_verdict: Callable[[Verdict], None] | None = None,
               deadline: float | None = None) -> list[Verdict]:
    """Decide every candidate in order (those in ``done`` are taken as decided); each new
    verdict goes to ``on_verdict`` as it is made. Stops (returning what it has) at
    ``deadline``, a ``time.perf_counter`` value."""
    if design.count_candidates() > MAX_CANDIDATES:
        raise InputError(f"the design asks for {design.count_candidates():,} sets before the "
                         f"area check; the limit is {MAX_CANDIDATES:,}")
    verdicts = []
    for pieces in design.candidates():
        key = tuple(p.name for p in pieces)
        if done and key in done:
            verdicts.append(done[key])
            continue
        if deadline is not None and time.perf_counter() > deadline:
            break
        verdict = design.decide(pieces)
        verdicts.append(verdict)
        if on_verdict is not None:
            on_verdict(verdict)
    return verdicts
