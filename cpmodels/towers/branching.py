"""Branch and bound over the cut: a priced bound that stalls above the best board, closed by
splitting the boards by what they hold at the cut.

A priced bound (``bounds.lagrangian_bound``) relaxes the agreement of its two bands on rows
``cut - 1`` and ``cut``. A *branch* fixes, in some columns, the codes of both cells there
(``certificate.Fixing``): both bands are solved with those cells built (on the real row and
on the copy), so the branch's bound holds every board with those cells, and no other. The
root is the priced bound. A branch whose bound is at most the *goal* (the score to prove
no board beats: the best board's) is closed; any other is split on the next column of
``columns``, into one child per pair of codes of its two cells, so the children's boards
are exactly the parent's. When every branch is closed, no board beats the goal. With all
columns fixed the prices cancel and a branch's bound is the best board in it: the search
is exact, and stops there with that branch open when it beats the goal.

A branch whose parent's prices do not close it is priced again (``steps`` of the bundle,
from its parent's prices, restricted to it; the root keeps the prices it is given, a
pricing's): any prices give a bound, so each branch keeps the best it found, and the
certificate lists each branch's prices.

Branches are units of work through the run layer (``running``): here, in threads, worker
processes or on a Dask cluster. Each finished branch is a line of the state file as it
comes, so a run stopped (Ctrl-C, a lost machine) goes on from every finished branch.
:meth:`BranchSearch.write_certificate` writes the closed branches and their prices as one
certificate that ``compact.check_branched_bound`` checks (``cpmodels verify``), working
out each branch's bound again with the same :func:`compact.branch_value`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cpmodels.errors import InputError
from cpmodels.files import load_json, read_bounded
from cpmodels.running import Finished, Here, Place, Plan, ResumableFile, run
from cpmodels.towers.certificate import Fixing, header_problem
from cpmodels.towers.compact import (
    Prefixes,
    branch_value,
    check_branched_bound,
    value_bound,
    write_compact,
)
from cpmodels.towers.problem import TowersProblem

STATE_FORMAT = "cpmodels-towers-branches"
STATE_VERSION = 1
MAX_STATE_BYTES = 1_000_000_000  # a state of a million branches, their prices in it
BRANCH_BOX = 2.0  # points: the bundle's first box in a branch (its parent's prices are good)


def middle_out(cols: int) -> tuple[int, ...]:
    """The columns from the middle outwards: the order branches split on by default."""
    order = sorted(range(cols), key=lambda j: (abs(2 * j - (cols - 1)), j))
    return tuple(order)


@dataclass(frozen=True)
class BranchJob:
    """One branch as a unit of work: the board, the cut and scale, the parent's prices
    (``[cols, codes, codes + 1, codes]``, ``1 / scale`` of a point), the branch's cells,
    the goal, and the pricing steps it may take when its parent's prices do not close it."""

    problem: TowersProblem
    cut: int
    scale: int
    prices: np.ndarray
    fixing: Fixing
    goal: int
    steps: int


@dataclass
class BranchResult:
    """A branch bounded: both bands' optima at its prices (scaled; None: no legal band
    board, no board is in the branch), its own prices (None: its parent's) and its
    bound."""

    fixing: Fixing
    top: int | None
    bottom: int | None
    prices: np.ndarray | None
    bound: int | None
    closed: bool
    seconds: float
    cpu: float = 0.0  # seconds of CPU of the thread that bounded it


def bound_branch(job: BranchJob, prefixes: Prefixes | None = None) -> BranchResult:
    """Bound one branch (see the module docstring): both bands solved at its parent's
    prices (from the layers ``prefixes`` keeps of its siblings, when given), then, when
    they leave it open, at prices of its own."""
    from cpmodels.towers.bounds import lagrangian_bound

    began, cpu = time.perf_counter(), time.thread_time()
    problem = job.problem
    top, bottom = branch_value(problem, job.cut, job.scale, job.prices, job.fixing,
                               prefixes)
    bound = value_bound(problem, job.scale, top, bottom)
    own = None
    if bound is not None and bound > job.goal and job.steps > 1 and job.fixing:
        priced = lagrangian_bound(problem, job.cut, steps=job.steps, target=job.goal,
                                  method="bundle", start=job.prices, scale=job.scale,
                                  polyak_share=0.0, box=BRANCH_BOX, stop_at=job.goal,
                                  fixing=job.fixing)
        assert top is not None and bottom is not None
        if priced.prices is not None and priced.steps \
                and min(priced.steps) * job.scale < top + bottom:
            own = priced.prices
            top, bottom = branch_value(problem, job.cut, job.scale, own, job.fixing)
            bound = value_bound(problem, job.scale, top, bottom)
    closed = bound is None or bound <= job.goal
    return BranchResult(job.fixing, top, bottom, own, bound, closed,
                        time.perf_counter() - began, time.thread_time() - cpu)


class _Brancher:
    """The run layer's worker: each branch of a unit bounded in turn, siblings (bounded one
    after the other) at their parent's prices from one kept layer (``compact.Prefixes``)."""

    def __init__(self) -> None:
        self.prefixes = Prefixes()

    def run(self, unit: tuple[BranchJob, ...]) -> list[BranchResult]:
        return [bound_branch(job, self.prefixes) for job in unit]

    def stop(self) -> None:
        return None  # a branch stops only when done: the finished ones are kept


@dataclass
class Level:
    """The branches of one depth (columns fixed) finished so far: how many, how many
    closed, the highest bound among them (None: all empty), their seconds and seconds of
    CPU."""

    depth: int
    branches: int = 0
    closed: int = 0
    highest: int | None = None
    seconds: float = 0.0
    cpu: float = 0.0


@dataclass
class BranchOutcome:
    """Where a search stands: the bound the branches prove (the root's bound, or the
    highest bound over the deepest fully bounded split, whichever is lower), whether every
    branch is closed (the goal is proved), the branches finished and still to bound, and
    each depth's figures."""

    bound: int | None
    closed: bool
    finished: int
    waiting: int
    levels: list[Level] = field(default_factory=list)
    seconds: float = 0.0


class BranchSearch:
    """A branch and bound over the cut of ``problem`` from ``prices`` (the root's), to
    prove no board beats ``goal``, its finished branches kept in the state file ``state``
    (one JSON line each after a header line). An existing state is gone on from: it must be of
    the same board, cut, scale, prices, goal, steps and columns."""

    def __init__(self, problem: TowersProblem, state: Path, *, cut: int, scale: int,
                 prices: np.ndarray, goal: int, steps: int = 1,
                 columns: Iterable[int] | None = None) -> None:
        n = problem.codes
        self.problem, self.state, self.cut, self.scale = problem, Path(state), cut, scale
        self.prices: np.ndarray = np.asarray(prices, dtype=np.int64).reshape(
            problem.cols, n, n + 1, n)
        self.goal, self.steps = goal, steps
        self.columns = tuple(middle_out(problem.cols) if columns is None else columns)
        if sorted(self.columns) != list(range(problem.cols)):
            raise InputError(f"the columns to split on must be each of 0 to "
                             f"{problem.cols - 1} once")
        self.done: dict[Fixing, BranchResult] = {}
        self._load()

    @classmethod
    def stored(cls, problem: TowersProblem, state: Path) -> BranchSearch:
        """The search whose state is kept at ``state``, its settings read from its header
        (checked as any state is)."""
        from cpmodels.towers.certificate import whole, whole_array

        try:
            first = read_bounded(state, MAX_STATE_BYTES, "branch state").split(b"\n", 1)[0]
            header = load_json(first, "the branch state's header")
            n = problem.codes
            return cls(problem, state, cut=whole(header["cut"], "cut", 1, problem.rows - 1),
                       scale=whole(header["scale"], "scale", 1, 10**6),
                       prices=whole_array(header["prices"], "prices",
                                          (problem.cols, n, n + 1, n)),
                       goal=whole(header["goal"], "goal", -(1 << 50), 1 << 50),
                       steps=whole(header["steps"], "steps", 1, 1 << 30),
                       columns=[whole(j, "a column", 0, problem.cols - 1)
                                for j in header["columns"]])
        except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError,
                ValueError) as exc:
            raise InputError(f"{state} is not a branch state: {exc}") from None

    def header(self) -> dict[str, Any]:
        return {"format": STATE_FORMAT, "version": STATE_VERSION, "puzzle": self.problem.name,
                **header_problem(self.problem), "cut": self.cut, "scale": self.scale,
                "goal": self.goal, "steps": self.steps, "columns": list(self.columns),
                "prices": self.prices.tolist()}

    def _load(self) -> None:
        if not self.state.is_file():
            return
        lines = read_bounded(self.state, MAX_STATE_BYTES, "branch state").decode(
            "utf-8", errors="replace").split("\n")
        try:
            header = load_json(lines[0], "the branch state's header")
        except json.JSONDecodeError:
            header = None
        if header != self.header():
            what = "not a branch state" if not isinstance(header, dict) \
                or header.get("format") != STATE_FORMAT else \
                "a branch state of another board, cut, scale, prices, goal, steps or columns"
            raise InputError(f"{self.state} is {what}; give another state file, or the same "
                             "settings to go on with it")
        for line in lines[1:]:
            try:
                found = _result_of(load_json(line, "a branch"), self.problem.cols)
            except (ValueError, TypeError, KeyError):
                continue  # a line cut short by a stopped run: that branch is bounded again
            self.done[found.fixing] = found

    def waiting(self) -> list[Fixing]:
        """The branches to bound next: the root, then every child of a finished open
        branch not finished itself (a branch with every column fixed is not split)."""
        if () not in self.done:
            return [()]
        out: list[Fixing] = []
        codes = range(self.problem.codes)
        for fixing, found in self.done.items():
            depth = len(fixing)
            if found.closed or depth == len(self.columns):
                continue
            j = self.columns[depth]
            out.extend(child for a in codes for k in codes
                       if (child := (*fixing, (j, a, k))) not in self.done)
        return sorted(out, key=lambda f: (len(f), f))

    def run(self, place: Place | None = None, *, max_branches: int | None = None,
            on_branch: Callable[[BranchResult], None] | None = None) -> BranchOutcome:
        """Bound branches depth by depth, at ``place`` (here by default), until every
        branch is closed, a branch with all columns fixed stays open, or ``max_branches``
        were bounded in this run. Every finished branch is kept as it comes (Ctrl-C too)."""
        began = time.perf_counter()
        bounded = 0
        rewrite = [json.dumps(self.header(), separators=(",", ":"))] + [
            _line(found) for found in self.done.values()]
        with ResumableFile(self.state, rewrite=rewrite, lines_of=self._lines) as sink:
            while True:
                todo = self.waiting()
                if max_branches is not None:
                    todo = todo[:max(0, max_branches - bounded)]
                if not todo:
                    break
                jobs = [self._job(f) for f in todo]
                heard = sink if on_branch is None else _Heard(sink, on_branch)
                run(Plan(jobs, _Brancher), place or Here(), heard)
                bounded += len(jobs)
        outcome = self.outcome()
        outcome.seconds = time.perf_counter() - began
        return outcome

    def _job(self, fixing: Fixing) -> BranchJob:
        prices = self.prices_of(fixing[:-1]) if fixing else self.prices
        return BranchJob(self.problem, self.cut, self.scale, prices, fixing, self.goal,
                         self.steps)

    def prices_of(self, fixing: Fixing) -> np.ndarray:
        """The prices a finished branch was bounded at: its own, else its nearest
        ancestor's own, else the root's."""
        for depth in range(len(fixing), -1, -1):
            found = self.done.get(fixing[:depth])
            if found is not None and found.prices is not None:
                return np.asarray(found.prices).reshape(self.prices.shape)
        return self.prices

    def _lines(self, done: Finished) -> list[str]:
        found: BranchResult = done.result
        self.done[found.fixing] = found
        return [_line(found)]

    def outcome(self) -> BranchOutcome:
        """The figures of the branches finished so far (see :class:`BranchOutcome`)."""
        levels: dict[int, Level] = {}
        for fixing, found in self.done.items():
            level = levels.setdefault(len(fixing), Level(len(fixing)))
            level.branches += 1
            level.closed += found.closed
            level.seconds += found.seconds
            level.cpu += found.cpu
            if found.bound is not None:
                level.highest = found.bound if level.highest is None \
                    else max(level.highest, found.bound)
        bound = self._proved(()) if () in self.done else None
        closed = () in self.done and (bound is None or bound <= self.goal)
        return BranchOutcome(bound, closed, len(self.done), len(self.waiting()),
                             [levels[d] for d in sorted(levels)])

    def _proved(self, fixing: Fixing) -> int | None:
        """What the finished branches prove of the boards in ``fixing`` (finished itself):
        its own bound, or the highest of its children's when all are finished and that is
        lower (None: no board in it)."""
        found = self.done[fixing]
        if found.closed or len(fixing) == len(self.columns):
            return found.bound
        j = self.columns[len(fixing)]
        codes = range(self.problem.codes)
        children = [(*fixing, (j, a, k)) for a in codes for k in codes]
        if not all(child in self.done for child in children):
            return found.bound
        below = [b for child in children if (b := self._proved(child)) is not None]
        if not below:
            return None
        return max(below) if found.bound is None else min(found.bound, max(below))

    def write_certificate(self, path: Path, board: list[str] | None = None) -> None:
        """Write the closed branches, each with its prices, as one certificate at ``path``
        (``compact.write_compact``), checked by ``compact.check_branched_bound``;
        ``board`` (scoring the goal) makes it a proof of the optimum. Only when every
        branch is closed."""
        if not self.outcome().closed:
            raise InputError("the branches are not all closed: no certificate yet")
        leaves = [f for f, found in self.done.items() if found.closed
                  and all(f[:d] in self.done and not self.done[f[:d]].closed
                          for d in range(len(f)))]
        write_compact(path, self.problem, cut=self.cut, scale=self.scale,
                      prices=self.prices, bound=self.goal, board=board,
                      branches=[(f, None if (p := self.prices_of(f)) is self.prices else p)
                                for f in sorted(leaves)])

    def check(self, path: Path) -> Any:
        """``compact.check_branched_bound`` of the certificate at ``path``."""
        return check_branched_bound(path, self.problem)


class _Heard:
    """A sink that tells ``on_branch`` of each branch after ``sink`` kept it."""

    def __init__(self, sink: ResumableFile, on_branch: Callable[[BranchResult], None]) -> None:
        self.sink, self.on_branch = sink, on_branch

    def take(self, done: Finished) -> None:
        self.sink.take(done)
        self.on_branch(done.result)


def _line(found: BranchResult) -> str:
    return json.dumps({"fixing": [list(c) for c in found.fixing], "top": found.top,
                       "bottom": found.bottom, "bound": found.bound, "closed": found.closed,
                       "seconds": round(found.seconds, 3), "cpu": round(found.cpu, 3),
                       "prices": None if found.prices is None
                       else np.asarray(found.prices).ravel().tolist()},
                      separators=(",", ":"))


def _result_of(raw: Any, cols: int) -> BranchResult:
    fixing = tuple(tuple(int(x) for x in cell) for cell in raw["fixing"])
    if len(fixing) > cols or any(len(cell) != 3 for cell in fixing):
        raise ValueError("not a branch")
    prices = raw["prices"]
    return BranchResult(fixing,  # type: ignore[arg-type]
                        raw["top"], raw["bottom"],
                        None if prices is None else np.array(prices, dtype=np.int64),
                        raw["bound"], bool(raw["closed"]), float(raw["seconds"]),
                        float(raw.get("cpu", 0.0)))


MAX_PRICES_BYTES = 64_000_000  # a prices file: a pricing state, or prices kept with a board


@dataclass(frozen=True)
class StartingPrices:
    """Where a branch and bound starts: the cut, the scale and the root's prices, and the
    board kept with them (None: none)."""

    cut: int
    scale: int
    prices: np.ndarray
    board: list[str] | None


def load_prices(path: Path, problem: TowersProblem) -> StartingPrices:
    """The prices saved at ``path`` for ``problem``: a pricing's state (``solve --proof``
    past 8 wide, or ``--price-save``: its best prices), or a file of prices kept with the
    best board (``cut``, ``scale``, ``prices``, ``board``, as beside the benchmarks); every
    number checked, else an :class:`InputError` of one line."""
    from cpmodels.towers.certificate import whole, whole_array
    from cpmodels.towers.pricing import STATE_FORMAT as PRICING_FORMAT
    from cpmodels.towers.pricing import load_state

    data = read_bounded(path, MAX_PRICES_BYTES, "prices file")
    try:
        raw = load_json(data, "the prices file")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise InputError(f"{path} is not a prices file (not JSON)") from None
    n = problem.codes
    shape = (problem.cols, n, n + 1, n)
    if isinstance(raw, dict) and raw.get("format") == PRICING_FORMAT:
        state = load_state(path, problem)
        prices = state.best if state.best is not None else state.prices
        return StartingPrices(state.cut, state.scale, prices.reshape(shape), None)
    if not isinstance(raw, dict):
        raise InputError(f"{path} is not a prices file (not a JSON object)")
    if (raw.get("rows"), raw.get("cols")) != (problem.rows, problem.cols):
        raise InputError(f"{path} holds prices for another board than "
                         f"{problem.rows}x{problem.cols}")
    try:
        cut = whole(raw.get("cut"), "cut", 1, problem.rows - 1)
        scale = whole(raw.get("scale"), "scale", 1, 10**6)
        prices = whole_array(raw.get("prices"), "prices", shape)
    except ValueError as exc:
        raise InputError(f"{path}: {exc}") from None
    board = raw.get("board")
    if board is not None and (not isinstance(board, list)
                              or not all(isinstance(row, str) for row in board)):
        raise InputError(f"{path}: board must be a list of rows of letters")
    if board is not None and problem.violations(board):
        raise InputError(f"{path}: its board breaks a rule: {problem.violations(board)[0]}")
    return StartingPrices(cut, scale, prices, board)
