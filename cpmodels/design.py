"""Puzzle design: which piece sets solve every required date of a calendar board.

A design file (``spec/design.py``) names a calendar board, fixed pieces and draws from
pools. Every candidate set whose area fills the board is decided in two steps:

1. *Existence*, date by date, with the engine's first-solution search
   (``engine.exists``), in an order set by the dates that rejected the first candidates
   (:meth:`Design.learn_order`), so a set that fails usually fails at its first date.
2. *Counts*, only for the sets that pass: one tallied search per month, as a sweep does,
   giving the fewest and most solutions over the required dates and their total.

Every set runs on one compiled cover of the board with every piece of the design in it
(see :class:`_Compiled`), so nothing is compiled per set.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from math import comb
from pathlib import Path
from typing import Any

from cpmodels.backends.engine import compile_cover
from cpmodels.backends.engine.drivers import exists
from cpmodels.backends.engine.regions import region_sizes
from cpmodels.backends.engine.work import Counter, CountJob, can_fork_here, in_order, run_units
from cpmodels.cover import ExactCover
from cpmodels.errors import InputError, SpecError
from cpmodels.geometry import Placement, normalize, orientations, render_shape
from cpmodels.pools import canonical, pool
from cpmodels.spec import CalendarSpec, Piece, load_spec
from cpmodels.spec.design import DesignSpec
from cpmodels.sweep import fixed_group_count, slack_options, sweep_cover

MAX_CANDIDATES = 10_000_000  # sets a design may ask for before it is refused
LEARN_FROM = 64  # candidates whose rejecting combinations set the order combinations are tried


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
    face_up_sides: list[str] | None = None  # face up: the sides that work (NAME~: mirrored)

    def as_dict(self) -> dict[str, Any]:
        out = {"pieces": self.pieces, "works": self.works,
               "first_failure": list(self.first_failure) if self.first_failure else None,
               "min": self.min, "argmin": list(self.argmin) if self.argmin else None,
               "max": self.max, "total": self.total}
        if self.face_up_sides is not None:
            out["face_up_sides"] = self.face_up_sides
        return out


def ranked(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """The sets that solve every required date, best first: the most solutions on their
    hardest date, then the most in all."""
    return sorted((v for v in verdicts if v.works),
                  key=lambda v: (-(v.min or 0), -(v.total or 0), v.pieces))


def summary(verdicts: Sequence[Verdict], seconds: float) -> dict[str, Any]:
    """``design --format json``: the candidates, the working sets ranked, the time."""
    return {"candidates": len(verdicts), "seconds": round(seconds, 3),
            "working": [{k: v for k, v in w.as_dict().items()
                         if k not in ("works", "first_failure")} for w in ranked(verdicts)]}


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
class _Compiled:
    """Every piece a design may use, in one exact cover of the board: each optional piece
    has an extra option, *left out*, that covers its piece item and no cell. A set is the
    task that forces its missing pieces left out, so one compiled cover (and one table of
    sub-board counts) serves every candidate."""

    cover: ExactCover
    compiled: Any
    left_out: dict[int, int]  # piece index (face up: side index) -> its left-out option
    slack: dict[tuple[str, str], int]  # (group, label) -> the slack option of that hole
    tally_items: tuple[int, ...]
    counter: Counter | None = None
    holes: list[tuple[int, ...]] = field(default_factory=list)  # required combo -> options
    sides: list[list[int]] = field(default_factory=list)  # face up: piece -> its sides
    pieces: list[Piece] = field(default_factory=list)  # the cover's pieces (face up: sides)


@dataclass
class Design:
    """A design file with its board: the candidate sets and how each is decided.

    ``pieces`` lists every piece a set may hold, the fixed ones first; a candidate is a
    tuple of indices into it.
    """

    spec: DesignSpec
    board: CalendarSpec
    required: list[tuple[str, ...]] = field(init=False)
    pieces: list[Piece] = field(init=False)
    _draws: list[list[int]] = field(init=False)  # per draw, its pieces' indices
    _order: list[int] = field(init=False)  # required combinations, most rejecting first
    _learning: bool = field(init=False, default=False)
    _compiled: dict[bool, _Compiled] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        combos = self.board.label_combinations()
        if self.spec.require == "real-dates":
            if not self.board.has_dates:
                raise InputError(f"{self.board.name} has no dates; use require: "
                                 "all-combinations")
            combos = [c for c in combos if self.board.real_date(c) is not None]
        self.required = combos
        self._order = list(range(len(combos)))
        self.pieces = list(self.spec.fixed)
        self._draws = []
        by_shape: dict[tuple, int] = {}
        for draw in self.spec.choose:
            drawn = ([Piece(name=n, shape=render_shape(s)) for n, s in pool(draw.pool)]
                     if isinstance(draw.pool, str) else list(draw.pool))
            indices = []
            for piece in drawn:
                key = (piece.name, canonical(piece.cells))
                if key not in by_shape:
                    by_shape[key] = len(self.pieces)
                    self.pieces.append(piece)
                indices.append(by_shape[key])
            self._draws.append(indices)

    @property
    def area(self) -> int:
        """The cells a set must cover."""
        return len(self.board.cells) - len(self.board.groups)

    def names(self, chosen: Sequence[int]) -> list[str]:
        return [self.pieces[i].name for i in chosen]

    def candidates(self) -> Iterator[tuple[int, ...]]:
        """Every set of distinct pieces the design allows whose area fills the board: the
        fixed pieces, then each draw's pieces (sorted by name within the draw)."""
        fixed = tuple(range(len(self.spec.fixed)))
        fixed_area = sum(p.area * p.count for p in self.spec.fixed)
        shape = [canonical(p.cells) for p in self.pieces]
        choices = []
        for draw, indices in zip(self.spec.choose, self._draws):
            choices.append([tuple(sorted(combo, key=lambda i: self.pieces[i].name))
                            for k in draw.counts
                            for combo in itertools.combinations(indices, k)])
        for picked in itertools.product(*choices):
            chosen = fixed + tuple(i for combo in picked for i in combo)
            if fixed_area + sum(self.pieces[i].area for combo in picked for i in combo) \
                    != self.area:
                continue
            shapes = [shape[i] for i in chosen]
            if len(set(shapes)) == len(shapes):
                yield chosen

    def run(self, unit: Sequence[tuple[int, ...]]) -> list[Verdict]:
        """Decide a run of candidate sets (a unit of work for a worker process)."""
        return [self.decide(chosen) for chosen in unit]

    def count_candidates(self) -> int:
        """How many sets the draws allow before the area check."""
        total = 1
        for draw, indices in zip(self.spec.choose, self._draws):
            total *= sum(comb(len(indices), k) for k in draw.counts)
        return total

    def set_spec(self, chosen: Sequence[int]) -> CalendarSpec:
        """The board's calendar spec with the set's pieces."""
        return self.board.model_copy(update={"pieces": [self.pieces[i] for i in chosen]})

    def _cover(self, face_up: bool) -> _Compiled:
        """The shared cover: every piece once; face up, every side of every piece (a chiral
        piece has two, as drawn and mirrored, ``NAME~``), each side a piece of its own."""
        if face_up not in self._compiled:
            pieces = list(self.pieces)
            sides: list[list[int]] = []
            if face_up:
                pieces = []
                for piece in self.pieces:
                    sides.append([len(pieces)])
                    pieces.append(piece)
                    if len(orientations(piece.cells)) != len(orientations(piece.cells,
                                                                          flip=False)):
                        mirror = normalize((r, -c) for r, c in piece.cells)
                        sides[-1].append(len(pieces))
                        pieces.append(Piece(name=piece.name + "~", shape=render_shape(mirror),
                                            count=piece.count))
            spec = self.board.model_copy(update={"pieces": pieces})
            cover, slack_items = sweep_cover(spec, face_up=face_up)
            slack = slack_options(cover, spec)
            # The piece items follow the cells, one per piece in order (names may repeat).
            items = [i for i, it in enumerate(cover.items) if it.cell is None][:len(pieces)]
            optional = range(len(pieces)) if face_up else range(len(self.spec.fixed),
                                                                len(pieces))
            left_out = {}
            for k in optional:
                left_out[k] = len(cover.options)
                cover.options.append((items[k],))
                cover.placements.append(Placement(pieces[k].name, ()))
            n_fixed = fixed_group_count(spec)
            groups = list(spec.groups)
            holes = [tuple(slack[(g, label)] for g, label in zip(groups, combo))
                     for combo in self.required]
            self._compiled[face_up] = _Compiled(cover, compile_cover(cover), left_out, slack,
                                                tuple(slack_items[n_fixed:]), None, holes,
                                                sides, pieces)
        return self._compiled[face_up]

    def _left_out(self, compiled: _Compiled, chosen: Sequence[int]) -> tuple[int, ...]:
        held = set(chosen)
        return tuple(o for k, o in compiled.left_out.items() if k not in held)

    def _regions(self, chosen: Sequence[int], holes: int = 0) -> tuple[Any, int]:
        """Region sizes the set's pieces (and ``holes`` open holes of one cell) can fill."""
        areas = [self.pieces[i].area for i in chosen for _ in range(self.pieces[i].count)]
        return region_sizes(areas + [1] * holes, self.area + holes)

    def _first_failure(self, compiled: _Compiled, out: Sequence[int],
                       regions: tuple[Any, int]) -> tuple[str, ...] | None:
        """The first required combination, in the order combinations are tried, that no
        solution covers with the options of ``out`` forced (pieces left out), or None.
        While the order is being learnt, a failing combination moves to its front.
        ``regions``: the set's (every hole is forced, so its pieces fill what is left)."""
        prefixes = [[*out, *compiled.holes[i]] for i in self._order]
        answers = exists(compiled.compiled, prefixes, first_failure=True, regions=regions)
        failed = next((k for k, ok in enumerate(answers) if ok is False), None)
        if failed is None:
            return None
        index = self._order[failed]
        if self._learning:
            self._order.remove(index)
            self._order.insert(0, index)  # the next set tries this combination first
        return self.required[index]

    def learn_order(self, sets: int = LEARN_FROM) -> None:
        """Settle the order in which combinations are tried: the ones that reject the first
        ``sets`` candidates go first, then the order is frozen. Every set's first failure is
        then the first in that order, whatever sets were decided before it, in whichever
        process (so ``--jobs`` and ``--resume`` give the same verdicts)."""
        self._order = list(range(len(self.required)))
        self._learning = True
        for face_up in (False, True) if self.spec.face_up else (False,):
            compiled = self._cover(face_up)
            for chosen in itertools.islice(self.candidates(), sets):
                held = tuple(compiled.sides[i][0] for i in chosen) if face_up else chosen
                self._first_failure(compiled, self._left_out(compiled, held),
                                    self._regions(chosen))
        self._learning = False

    def _face_up_sides(self, chosen: Sequence[int]) -> tuple[list[str] | None,
                                                             tuple[str, ...] | None]:
        """Sides of the set's pieces that solve every required combination face up, or
        None and the combination that rejected the pieces as drawn."""
        compiled = self._cover(True)
        options = [compiled.sides[i] for i in chosen]
        regions = self._regions(chosen)
        as_drawn_failure = None
        for pick in itertools.product(*options):
            failure = self._first_failure(compiled, self._left_out(compiled, pick), regions)
            if failure is None:
                return [self.pieces[i].name + ("~" if side != compiled.sides[i][0] else "")
                        for i, side in zip(chosen, pick)], None
            as_drawn_failure = as_drawn_failure or failure
        return None, as_drawn_failure

    def decide(self, chosen: Sequence[int]) -> Verdict:
        """Whether the set solves every required date (and face up, with some choice of
        sides, when asked), and its counts (pieces turned over freely) when it does."""
        names = self.names(chosen)
        compiled = self._cover(False)
        failure = self._first_failure(compiled, self._left_out(compiled, chosen),
                                      self._regions(chosen))
        if failure is not None:
            return Verdict(names, False, failure)
        sides = None
        if self.spec.face_up:
            sides, failure = self._face_up_sides(chosen)
            if sides is None:
                return Verdict(names, False, failure)
        counts = self.counts(chosen)
        low = min(self.required, key=lambda c: counts.get(c, 0))
        high = max(self.required, key=lambda c: counts.get(c, 0))
        return Verdict(names, True, None, counts.get(low, 0), low, counts.get(high, 0),
                       sum(counts.get(c, 0) for c in self.required), sides)

    def counts(self, chosen: Sequence[int]) -> dict[tuple[str, ...], int]:
        """Every label combination's count for a set: one tallied search per task of the
        leading group(s), on the shared cover, its table kept from set to set."""
        compiled = self._cover(False)
        if compiled.counter is None:
            compiled.counter = Counter(CountJob(compiled.cover, compiled.tally_items))
        groups = list(self.board.groups)
        n_fixed = len(groups) - len(compiled.tally_items)
        by_option = {o: label for (_, label), o in compiled.slack.items()}
        out = self._left_out(compiled, chosen)
        # The set's pieces and the holes still open (one cell each) fill the regions left.
        regions = self._regions(chosen, holes=len(compiled.tally_items))
        counts: dict[tuple[str, ...], int] = {}
        for fixed in itertools.product(*(self.board.groups[g] for g in groups[:n_fixed])):
            task = out + tuple(compiled.slack[(g, label)] for g, label in zip(groups, fixed))
            for key, n in compiled.counter.tally(task, regions).items():
                counts[fixed + tuple(by_option[o] for o in key)] = n
        return counts


PARALLEL_LIMIT = 2_000_000  # candidate sets beyond which a design runs in one process
UNITS_PER_JOB = 8  # units per worker process: enough for the loads to even out
MAX_UNIT = 64  # sets in one unit: verdicts come back (and are written) at least this often


def run_design(design: Design, *, done: dict[tuple[str, ...], Verdict] | None = None,
               on_verdict: Callable[[Verdict], None] | None = None,
               deadline: float | None = None, jobs: int | None = 1) -> list[Verdict]:
    """Decide every candidate (those in ``done`` are taken as decided); each new verdict
    goes to ``on_verdict`` as it is made, in candidate order. Stops (returning what it has)
    at ``deadline``, a ``time.perf_counter`` value. ``jobs`` worker processes (None: every
    core) share the sets in contiguous runs, each starting from this process's compiled
    cover (where processes fork; else one process decides them all)."""
    if design.count_candidates() > MAX_CANDIDATES:
        raise InputError(f"the design asks for {design.count_candidates():,} sets before the "
                         f"area check; the limit is {MAX_CANDIDATES:,}")
    done = done or {}
    jobs = jobs or os.cpu_count() or 1
    design.learn_order()
    if jobs > 1 and can_fork_here() and design.count_candidates() <= PARALLEL_LIMIT:
        return _run_parallel(design, done, on_verdict, deadline, jobs)
    verdicts = []
    for chosen in design.candidates():
        key = tuple(design.names(chosen))
        if key in done:
            verdicts.append(done[key])
            continue
        if deadline is not None and time.perf_counter() > deadline:
            break
        verdict = design.decide(chosen)
        verdicts.append(verdict)
        if on_verdict is not None:
            on_verdict(verdict)
    return verdicts


def _run_parallel(design: Design, done: dict[tuple[str, ...], Verdict],
                  on_verdict: Callable[[Verdict], None] | None, deadline: float | None,
                  jobs: int) -> list[Verdict]:
    candidates = list(design.candidates())
    keys = [tuple(design.names(c)) for c in candidates]
    pending = [c for c, key in zip(candidates, keys) if key not in done]
    size = max(1, min(MAX_UNIT, -(-len(pending) // (jobs * UNITS_PER_JOB))))
    units = [tuple(pending[k:k + size]) for k in range(0, len(pending), size)]
    design._cover(False)  # compiled once here; the workers start from it
    if design.spec.face_up:
        design._cover(True)
    decided = dict(done)
    results = run_units(None, units, jobs=jobs, warm=design, deadline=deadline)
    try:
        for found in in_order(results):
            for verdict in found:
                decided[tuple(verdict.pieces)] = verdict
                if on_verdict is not None:
                    on_verdict(verdict)
    except TimeoutError:
        pass
    finally:
        results.close()
    return [decided[key] for key in keys if key in decided]
