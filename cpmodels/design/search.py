"""Puzzle design: which piece sets solve every required date of a calendar board.

A design file (``spec/design.py``) names a calendar board, fixed pieces and draws from
pools. Every candidate set whose area fills the board is decided in two steps:

1. *Existence*, date by date, with the engine's first-solution search
   (``EngineSession.exists``), in an order set by the dates that rejected the first candidates
   (:meth:`Design.learn_order`), so a set that fails usually fails at its first date.
2. *Counts*, only for the sets that pass: one tallied search per month, as a sweep does,
   giving the fewest and most solutions over the required dates and their total.

Every set runs on one compiled cover of the board with every piece of the design in it
(see :class:`_Compiled`), so nothing is compiled per set.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from math import comb
from typing import TYPE_CHECKING, Any

import numpy as np

from cpmodels.backends.engine import EngineSession, Regions, workers_for
from cpmodels.design.reaching import LearntOrder
from cpmodels.design.verdicts import Side, Verdict
from cpmodels.errors import InputError, OutOfTime, TooManySets
from cpmodels.geometry import (
    OptionKind,
    normalize,
    orientations,
    render_shape,
)
from cpmodels.pools import canonical_shape
from cpmodels.running import Here, Memory, Plan, place_for, run
from cpmodels.spec import CalendarSpec, Piece
from cpmodels.spec.design import DesignSpec
from cpmodels.sweep import TallyPlan

if TYPE_CHECKING:
    from cpmodels.backends.engine import Cluster, ReachDates

MAX_CANDIDATES = 10_000_000  # sets a design may ask for before it is refused
DEAD_STATES = 1 << 22  # slots of the table of dead states the existence searches share


@dataclass
class _Compiled:
    """Every piece a design may use, in one exact cover of the board: each optional piece
    has an extra option, *left out*, that covers its piece item and no cell. A set is the
    task that forces its missing pieces left out, so one engine session (its compiled
    cover, its table of sub-board counts and its table of dead states) serves every
    candidate."""

    plan: TallyPlan  # its cover holds the left-out options too
    session: EngineSession
    left_out: dict[int, int]  # piece index (face up: side index) -> its left-out option
    holes: list[tuple[int, ...]] = field(default_factory=list)  # required combo -> options
    dates: ReachDates | None = None  # the holes as the core's design decision reads them
    # (made when first asked: only a cover the reach search suits has them)
    sides: list[list[int]] = field(default_factory=list)  # face up: piece -> as drawn, mirrored
    pieces: list[Piece] = field(default_factory=list)  # the cover's pieces (face up: sides)


@dataclass
class Design:
    """A design file with its board: the candidate sets and how each is decided.

    ``pieces`` lists every piece a set may hold, the fixed ones first; a candidate is a
    tuple of indices into it.
    """

    spec: DesignSpec
    board: CalendarSpec
    with_counts: bool = True  # count the working sets' solutions (else existence only)
    with_difficulty: bool = False  # measure the working sets' difficulty on every date
    max_sets: int = MAX_CANDIDATES  # sets the draws may allow (the editor takes fewer)
    required: list[tuple[str, ...]] = field(init=False)
    pieces: list[Piece] = field(init=False)
    _draws: list[list[int]] = field(init=False)  # per draw, its pieces' indices
    _learnt: LearntOrder = field(init=False)  # the order required combinations are tried
    _learning: bool = field(init=False, default=False)
    _passed: set[tuple[int, ...]] = field(init=False, default_factory=set)  # while learning
    _compiled: dict[bool, _Compiled] = field(init=False, default_factory=dict)
    _task_order: list[tuple[str, ...]] = field(init=False, default_factory=list)
    _candidates: tuple[list[tuple[int, ...]], int] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        combos = self.board.label_combinations()
        if self.spec.require == "real-dates":
            if not self.board.has_dates:
                raise InputError(f"{self.board.name} has no dates; use require: "
                                 "all-combinations")
            combos = [c for c in combos if self.board.real_date(c) is not None]
        self.required = combos
        self._learnt = LearntOrder.of(len(combos))
        self.pieces = list(self.spec.fixed)
        self._draws = []
        by_shape: dict[tuple, int] = {}
        for draw in self.spec.choose:
            indices = []
            for piece in draw.pieces:
                key = (piece.name, canonical_shape(piece.cells))
                if key not in by_shape:
                    by_shape[key] = len(self.pieces)
                    self.pieces.append(piece)
                indices.append(by_shape[key])
            self._draws.append(indices)
        self.check_size()

    def check_size(self) -> None:
        """That the draws allow at most :attr:`max_sets` sets, counted from their sizes
        (nothing is enumerated), else :class:`TooManySets`: every path to the sets is
        bounded here."""
        if (sets := self.count_candidates()) > self.max_sets:
            raise TooManySets(sets, self.max_sets)

    @property
    def area(self) -> int:
        """The cells a set must cover."""
        return len(self.board.cells) - len(self.board.groups)

    @property
    def draws(self) -> list[list[int]]:
        """Each draw's pieces, as indices into :attr:`pieces`."""
        return self._draws

    def names(self, chosen: Sequence[int]) -> list[str]:
        return [self.pieces[i].name for i in chosen]

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (for a cluster's workers) without the compiled covers: a worker compiles
        its own, and keeps the learnt order of combinations."""
        return {**self.__dict__, "_compiled": {}}

    def _can_flip(self, piece: Piece) -> bool:
        return self.board.flip if piece.flip is None else piece.flip

    def _can_rotate(self, piece: Piece) -> bool:
        return self.board.rotate if piece.rotate is None else piece.rotate

    def candidates(self) -> Iterator[tuple[int, ...]]:
        """Every set of distinct pieces the design allows whose area fills the board: the
        fixed pieces, then each draw's pieces (sorted by name within the draw). A set that
        is an earlier one up to the board's symmetries and mirror images (the same shapes,
        drawn under other names, or each turned over on a board with a mirror symmetry) is
        skipped: it solves the same dates. :meth:`skipped` counts them. The core makes
        them (``cpcore_design_sets``), once a design."""
        return iter(self._sets()[0])

    def skipped(self) -> int:
        """How many sets :meth:`candidates` skips as equal to an earlier one."""
        return self._sets()[1]

    def _sets(self) -> tuple[list[tuple[int, ...]], int]:
        """The candidate sets and how many were skipped, from the core."""
        if self._candidates is None:
            import cpmodels._native as native

            counts: dict[tuple[int, ...], int] = {}  # a piece's copies -> their id
            pieces = [(sorted(p.cells), self._can_flip(p), self._can_rotate(p),
                       counts.setdefault((p.count,) if isinstance(p.count, int)
                                         else (-1, *p.count), len(counts)),
                       p.area, p.high, p.name.encode()) for p in self.pieces]
            draws = [(indices, draw.counts.start, draw.counts.stop - 1)
                     for draw, indices in zip(self.spec.choose, self._draws)]
            board = sorted(self.board.cells)
            at = {cell: k for k, cell in enumerate(board)}
            cells = self.board.label_cells
            holes = np.array([[at[cells[label]] for label in combo] for combo in self.required],
                             dtype=np.int64).reshape(len(self.required), -1)
            sets, skipped = native.design_sets(pieces, len(self.spec.fixed), draws, self.area,
                                               board, holes)
            self._candidates = (sets, skipped)
        return self._candidates

    def stop(self) -> None:
        """End the search in progress from any thread (it raises
        :class:`~cpmodels.errors.OutOfTime`), and every later one on the covers compiled."""
        for compiled in list(self._compiled.values()):
            compiled.session.stop()

    def check_area(self) -> None:
        """That some set the draws allow covers the board's free cells exactly, else an
        :class:`InputError` with the arithmetic: what the board leaves, what the fixed
        pieces cover and which areas the draws can add."""
        reachable = {sum(p.area * p.high for p in self.spec.fixed)}
        for draw, indices in zip(self.spec.choose, self._draws):
            by_count: dict[int, set[int]] = {0: {0}}  # pieces drawn -> their areas
            for i in indices:
                for k in sorted(by_count, reverse=True):
                    if k < draw.counts[-1]:
                        by_count.setdefault(k + 1, set()).update(
                            a + self.pieces[i].area for a in by_count[k])
            adds = set().union(*(by_count.get(k, set()) for k in draw.counts))
            reachable = {a + b for a in reachable for b in adds}
        if self.area in reachable:
            return
        fixed = sum(p.area * p.high for p in self.spec.fixed)
        shown = sorted(reachable)
        areas = (", ".join(map(str, shown)) if len(shown) <= 8 else
                 f"{shown[0]} to {shown[-1]} (never {self.area})") if shown else "none"
        raise InputError(
            f"no set the design allows covers the board: {self.board.name} has "
            f"{len(self.board.cells)} cells less {len(self.board.groups)} left open for the "
            f"labels, {self.area} for the pieces; the fixed pieces cover {fixed} and with the "
            f"draws the sets cover {areas}")

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
        piece has two, as drawn and mirrored: ``sides``), each side a piece of its own."""
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
                        pieces.append(Piece(name=piece.name, shape=render_shape(mirror),
                                            count=piece.count))
            spec = self.board.model_copy(update={"pieces": pieces})
            optional = range(len(pieces)) if face_up else range(len(self.spec.fixed),
                                                                len(pieces))
            # The core adds each optional piece's left-out option after the slack options,
            # in piece order.
            plan = TallyPlan.of(spec, face_up=face_up, left_out=optional)
            first = len(plan.cover.options) - len(optional)
            left_out = {k: first + n for n, k in enumerate(optional)}
            assert all(plan.cover.placements[o].kind is OptionKind.LEFT_OUT
                       for o in left_out.values())
            holes = [plan.holes(combo) for combo in self.required]
            session = plan.session(dead_slots=DEAD_STATES)
            self._compiled[face_up] = _Compiled(plan, session, left_out, holes=holes,
                                                sides=sides, pieces=pieces)
        return self._compiled[face_up]

    def _left_out(self, compiled: _Compiled, chosen: Sequence[int]) -> tuple[int, ...]:
        held = set(chosen)
        return tuple(o for k, o in compiled.left_out.items() if k not in held)

    def _areas(self, chosen: Sequence[int]) -> list[int]:
        """The areas of the set's pieces, a piece in copies once a copy."""
        return [self.pieces[i].area for i in chosen for _ in range(self.pieces[i].high)]

    def _regions(self, chosen: Sequence[int]) -> Regions:
        """Region sizes the set's pieces can fill (the engine adds the holes still open)."""
        areas = self._areas(chosen)
        return EngineSession.regions_for(areas, self.area)

    def _first_failures(self, compiled: _Compiled, held: Sequence[Sequence[int]],
                        sets: Sequence[Sequence[int]]) -> list[tuple[str, ...] | None]:
        """For each set (``sets[k]``, whose pieces or sides ``held[k]`` the cover holds),
        the first required combination, in the order combinations are tried, that no
        solution covers, or None. While the order is being learnt, a failing combination
        moves to its front, for the sets after it too. On a cover the reach search suits,
        the core decides the sets in one call (``EngineSession.design``); on another, each
        set's combinations are one existence search, stopping at the first failure."""
        session = compiled.session
        outs = [self._left_out(compiled, h) for h in held]
        if session.reaches:
            if compiled.dates is None:
                compiled.dates = session.reach_dates(compiled.holes)
            learnt = self._learnt
            found = session.design(compiled.dates, learnt.order, learnt.front, learnt.late,
                                   outs, [self._areas(c) for c in sets],
                                   learning=self._learning)
            return [None if index is None else self.required[index] for index in found]
        failures: list[tuple[str, ...] | None] = []
        for out, chosen in zip(outs, sets):
            order = [int(i) for i in self._learnt.order]
            answers = session.exists([[*out, *compiled.holes[i]] for i in order],
                                     first_failure=True, regions=self._regions(chosen))
            failed = next((k for k, ok in enumerate(answers) if ok is False), None)
            if failed is not None and self._learning:
                self._learnt.move_to_front(order[failed])
            failures.append(None if failed is None else self.required[order[failed]])
        return failures

    def learning_sets(self) -> int:
        """How many candidates :meth:`learn_order` learns from: a few dozen, more for a
        large design."""
        import cpmodels._native as native

        return int(native.design_learning_sets(min(self.count_candidates(), 1 << 63)))

    def learn_order(self, sets: int | None = None) -> None:
        """Settle the order in which combinations are tried: the ones that reject the first
        ``sets`` candidates (by default :meth:`learning_sets`) go first, then the order is
        frozen. Every set's first failure is then the first in that order, whatever sets
        were decided before it, in whichever process (so ``--jobs`` and ``--resume`` give
        the same verdicts)."""
        sets = self.learning_sets() if sets is None else sets
        self._learnt = LearntOrder.of(len(self.required))
        first = list(itertools.islice(self.candidates(), sets))
        self._learning = True
        try:
            for face_up in (False, True) if self.spec.face_up else (False,):
                compiled = self._cover(face_up)
                held = ([tuple(compiled.sides[i][0] for i in chosen) for chosen in first]
                        if face_up else first)
                failures = self._first_failures(compiled, held, first)
                if not face_up:
                    # Passing every combination does not hang on their order: kept, so
                    # the set is not searched again. (A failure is found again: which
                    # combination fails first depends on the final order.)
                    self._passed = {tuple(c) for c, f in zip(first, failures) if f is None}
        finally:
            self._learning = False

    def _face_up_sides(self, chosen: Sequence[int]) -> tuple[list[Side] | None,
                                                             tuple[str, ...] | None]:
        """Sides of the set's pieces that solve every required combination face up, or
        None and the combination that rejected the pieces as drawn."""
        compiled = self._cover(True)
        options = [compiled.sides[i] for i in chosen]
        as_drawn_failure = None
        for pick in itertools.product(*options):
            [failure] = self._first_failures(compiled, [pick], [chosen])
            if failure is None:
                return [Side(self.pieces[i].name, mirrored=side != compiled.sides[i][0])
                        for i, side in zip(chosen, pick)], None
            as_drawn_failure = as_drawn_failure or failure
        return None, as_drawn_failure

    def run(self, unit: Sequence[tuple[int, ...]]) -> list[Verdict]:
        """Decide a run of candidate sets (a unit of work for a worker process): which
        solve every required combination, in one call of the core, then what the working
        ones do."""
        searched = [tuple(chosen) for chosen in unit if tuple(chosen) not in self._passed]
        failures = dict(zip(searched, self._first_failures(self._cover(False), searched,
                                                           searched)))
        return [self._verdict(chosen, failures.get(tuple(chosen))) for chosen in unit]

    def decide(self, chosen: Sequence[int]) -> Verdict:
        """Whether the set solves every required date (and face up, with some choice of
        sides, when asked), and its counts (pieces turned over freely) when it does."""
        return self.run([tuple(chosen)])[0]

    def _verdict(self, chosen: Sequence[int], failure: tuple[str, ...] | None) -> Verdict:
        """The verdict of a set whose first failure (pieces turned over freely) is
        ``failure``: face up, its sides decided; when it works, its counts and
        difficulties as asked."""
        names = self.names(chosen)
        if failure is not None:
            return Verdict(names, False, failure)
        sides = None
        if self.spec.face_up:
            sides, failure = self._face_up_sides(chosen)
            if sides is None:
                return Verdict(names, False, failure)
        verdict = Verdict(names, True, face_up_sides=sides)
        if self.with_counts:
            counts = self.counts(chosen)
            assert counts is not None  # no floor: every task is counted
            self.add_counts(verdict, counts)
        if self.with_difficulty:
            scores = self.difficulties(chosen)
            hardest = max(self.required, key=lambda c: scores[c])
            verdict.difficulty, verdict.difficulty_argmax = scores[hardest], hardest
            verdict.difficulty_mean = round(sum(scores.values()) / len(scores))
        return verdict

    def difficulties(self, chosen: Sequence[int]) -> dict[tuple[str, ...], int]:
        """Every required combination's difficulty (``docs/difficulty.md``) for a set
        that solves them all, on the shared cover (the same figures as a sweep of the set's
        spec with ``--difficulty``)."""
        compiled = self._cover(False)
        out = self._left_out(compiled, chosen)
        scores = {}
        for combo, holes in zip(self.required, compiled.holes):
            found = compiled.session.difficulty([*out, *holes])
            if found is None:
                raise RuntimeError(f"{' '.join(combo)} has no solution, yet the set "
                                   "passed; please report this")
            scores[combo] = found.score
        return scores

    def add_counts(self, verdict: Verdict, counts: dict[tuple[str, ...], int]) -> None:
        """A working set's verdict with its counts: the fewest solutions of a required
        combination (the first such in the required order), the most, the total (the
        core's ``cpcore_design_summary``, as the page's)."""
        import cpmodels._native as native

        low, verdict.min, verdict.max, verdict.total = native.design_summary(
            np.array([counts.get(c, 0) for c in self.required], dtype=np.int64))
        verdict.argmin = self.required[low]

    def count_date(self, chosen: Sequence[int], combo: tuple[str, ...]) -> int:
        """The solutions of one label combination for a set (every hole forced)."""
        compiled = self._cover(False)
        forced = self._left_out(compiled, chosen) + compiled.plan.holes(combo)
        return sum(compiled.session.tally(forced, regions=self._regions(chosen)).values())

    def counts(self, chosen: Sequence[int], *, floor: int | None = None,
               probes: Sequence[tuple[str, ...]] = (),
               ) -> dict[tuple[str, ...], int] | None:
        """Every label combination's count for a set: one tallied search per task of the
        leading group(s), on the shared cover, its table kept from set to set. With
        ``floor``, the counting stops (None) as soon as a required combination counted has
        fewer solutions: the tasks go hardest first (in the order of the first set counted
        in full), so a set that cannot reach the floor usually stops at its first task.
        Before them, each of the ``probes`` (required combinations: the hardest dates of
        other sets) is counted alone, every hole forced, and one below the floor stops it
        too."""
        compiled = self._cover(False)
        plan = compiled.plan
        out = self._left_out(compiled, chosen)
        if floor is not None and any(self.count_date(chosen, c) < floor for c in probes):
            return None
        regions = self._regions(chosen)  # the engine adds the holes still open
        required = set(self.required)
        counts: dict[tuple[str, ...], int] = {}
        fewest: dict[tuple[str, ...], int] = {}  # task -> its fewest of a required combination
        tasks = self._task_order or plan.tasks()
        # With no floor every task is counted: one call of the kernel for them all.
        tallies = (compiled.session.tally_many([out + plan.holes(t) for t in tasks],
                                               regions=regions) if floor is None else None)
        for k, task in enumerate(tasks):
            tally = (tallies[k] if tallies is not None else
                     compiled.session.tally(out + plan.holes(task), regions=regions))
            rows = plan.rows(task, tally)
            counts.update(rows)
            low = min((counts.get(labels, 0) for labels, _ in rows if labels in required),
                      default=None)
            if low is not None:
                fewest[task] = low
            if floor is not None and low is not None and low < floor:
                return None
        if not self._task_order:
            # Fixed once, from the first set counted in full: lowest counts first.
            self._task_order = sorted(plan.tasks(),
                                      key=lambda t: fewest.get(t, 1 << 62))
        return counts


PARALLEL_LIMIT = 2_000_000  # candidate sets beyond which a design runs in one process


def run_design(design: Design, *, done: dict[tuple[str, ...], Verdict] | None = None,
               on_verdict: Callable[[Verdict], None] | None = None,
               time_limit: float | None = None, jobs: int | None = 1,
               cluster: Cluster | None = None, first: int | None = None) -> list[Verdict]:
    """Decide every candidate (those in ``done`` are taken as decided); each new verdict
    goes to ``on_verdict`` as it is made (in candidate order within a unit of work; the
    verdicts returned are in candidate order). After ``time_limit`` seconds it raises
    :class:`~cpmodels.errors.OutOfTime` whose ``partial`` holds the verdicts decided, in
    candidate order. The sets not done are a plan whose worker is ``design`` (its order of
    combinations learnt first), run where ``jobs`` and ``cluster`` say
    (``running.place_for``: worker processes share the sets in contiguous runs, each
    starting from this process's sessions, warm where processes fork; a cluster's workers
    take them as units); a design of more than :data:`PARALLEL_LIMIT` sets runs here. With
    ``first``, only the first ``first`` candidates are decided (after the order learnt as for
    the whole design, so their verdicts are the whole design's)."""
    design.check_size()
    design.check_area()
    done = done or {}
    jobs = workers_for(jobs)  # refused before anything is worked out
    start = time.perf_counter()
    design.learn_order()  # compiles the shared covers: forked workers start from them
    many = design.count_candidates() > PARALLEL_LIMIT
    pending = (c for c in itertools.islice(design.candidates(), first)
               if tuple(design.names(c)) not in done)
    place = Here() if many else place_for(jobs, cluster)
    decided = Memory(on_verdict)
    try:
        # Here the sets are taken one by one as they are made; elsewhere they are cut up.
        run(Plan(pending if many else list(pending), lambda: design), place, decided,
            time_limit=None if time_limit is None else
            max(0.0, time_limit - (time.perf_counter() - start)))
    except OutOfTime as stop:
        raise OutOfTime(f"decided {len(decided.found)} sets before the time limit",
                        partial=_in_candidate_order(design, done, decided)) from stop
    return _in_candidate_order(design, done, decided)


def _in_candidate_order(design: Design, done: dict[tuple[str, ...], Verdict],
                        decided: Memory) -> list[Verdict]:
    """The verdicts kept and those decided, in candidate order."""
    found = {**done, **{tuple(v.pieces): v for v in decided.found.values()}}
    keys = (tuple(design.names(c)) for c in design.candidates())
    return [found[key] for key in keys if key in found]
