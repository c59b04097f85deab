"""Count every label combination of a calendar spec (2604 for month/day/weekday).

The whole calendar compiles to one exact cover: every board cell is an item, and each label
group gets a slack item that one *slack option* per label covers together with that label's
cell (the hole). The engine counts that cover once per label of one group (the one whose
cells the search passes first, :func:`scan_fixed_groups`; or of the leading groups, see
:func:`fixed_group_count`): a *task*, whose holes are forced. It tallies the
counts by the holes of the other groups, so one search counts every combination of a task,
and a worker's table of sub-board counts is shared by the tasks it runs (the engine's
``scheduling.py``).
"""

from __future__ import annotations

import contextlib
import csv
import itertools
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cpmodels.backends.engine import Difficulty, EngineSession, Tally, workers_for
from cpmodels.cover import ExactCover, assemble_cover
from cpmodels.errors import InputError
from cpmodels.files import make_directory, write_atomic
from cpmodels.geometry import OptionKind
from cpmodels.grids import Cell
from cpmodels.questions import Question, check_question, lines_after_question, sweep_question
from cpmodels.running import (
    Finished,
    Memory,
    Plan,
    ResumableFile,
    Run,
    Threads,
    csv_line,
    place_for,
    run,
)

if TYPE_CHECKING:
    from cpmodels.backends.engine import Cluster
    from cpmodels.spec.kinds import CalendarKind



@dataclass
class Row:
    """One combination's count."""

    labels: tuple[str, ...]
    real_date: bool
    count: int
    proof: str = ""  # with --prove: the checked proof of an unsolvable combination
    difficulty: int | None = None  # with --difficulty: see docs/difficulty.md (None: none)


@dataclass
class SweepSummary:
    """What every combination's count comes to (the sweep's and the editor's summary):
    ``fewest`` is the solvable combination with the fewest solutions and ``most`` the one
    with the most (the first in sweep order on a tie); the unsolvable ones are listed apart
    in ``unsolvable``, not taken as the fewest. Rows are added in sweep order."""

    combinations: int = 0
    total: int = 0
    real_total: int = 0
    fewest: Row | None = None
    most: Row | None = None
    unsolvable: list[tuple[str, ...]] = field(default_factory=list)
    most_difficult: Row | None = None  # with --difficulty: the highest difficulty
    least_difficult: Row | None = None
    proofs: int = 0  # unsolvable rows with a checked proof
    units: int = 0  # units of work sent to a cluster (0: none)
    nodes: int = 0  # the engine's search nodes the tallies took (here and in workers)
    rows: dict[tuple[str, ...], Row] = field(default_factory=dict)  # in sweep order

    def add(self, row: Row) -> None:
        self.rows[row.labels] = row
        self.combinations += 1
        self.proofs += bool(row.proof)
        self.total += row.count
        if row.real_date:
            self.real_total += row.count
        if row.count == 0:
            self.unsolvable.append(row.labels)
        elif self.fewest is None or row.count < self.fewest.count:
            self.fewest = row
        if self.most is None or row.count > self.most.count:
            self.most = row
        if row.difficulty is not None:
            if self.most_difficult is None or \
                    row.difficulty > (self.most_difficult.difficulty or 0):
                self.most_difficult = row
            if self.least_difficult is None or \
                    row.difficulty < (self.least_difficult.difficulty or 0):
                self.least_difficult = row

    def lines(self, name: str, seconds: float, where: str) -> list[str]:
        """The summary said in lines (the command line's text): ``where`` the rows are."""
        out = [f"{name}: {self.combinations} combinations, {self.total:,} solutions "
               f"({self.real_total:,} over real dates) in {seconds:.2f} s; rows in {where}"]
        if self.fewest and self.most:
            out.append(f"fewest: {' '.join(self.fewest.labels)} with {self.fewest.count:,}")
            out.append(f"most: {' '.join(self.most.labels)} with {self.most.count:,}")
        for word, row in (("most difficult", self.most_difficult),
                          ("least difficult", self.least_difficult)):
            if row is not None:
                out.append(f"{word}: {' '.join(row.labels)} (difficulty {row.difficulty:,}, "
                           f"{row.count:,} solutions)")
        out.append(f"unsolvable: {len(self.unsolvable)}" + (
            " (" + ", ".join(" ".join(u) for u in self.unsolvable[:20])
            + (", ..." if len(self.unsolvable) > 20 else "") + ")"
            if self.unsolvable else ""))
        return out

    def as_dict(self) -> dict[str, Any]:
        def one(row: Row | None) -> dict[str, Any] | None:
            if row is None:
                return None
            out: dict[str, Any] = {"labels": list(row.labels), "count": row.count}
            if row.difficulty is not None:
                out["difficulty"] = row.difficulty
            return out

        out = {
            "combinations": self.combinations, "total": self.total,
            "real_total": self.real_total, "fewest": one(self.fewest), "most": one(self.most),
            "unsolvable": [list(labels) for labels in self.unsolvable],
            "proofs": self.proofs,
        }
        if self.most_difficult is not None:
            out["most_difficult"] = one(self.most_difficult)
            out["least_difficult"] = one(self.least_difficult)
        return out


def sweep_cover(spec: CalendarKind, *, face_up: bool = False,
                left_out: Sequence[int] = ()) -> tuple[ExactCover, list[int]]:
    """The calendar as one exact cover with a slack item per group; returns it and those items.

    Slack option ids follow the placements; ``slack_option(label)`` finds them by label.
    The pieces ``left_out`` names (indices) may be left out, each by an option of its own
    after the slack options. The engine core assembles it
    (:func:`~cpmodels.cover.assemble_cover`).
    """
    made = assemble_cover(spec.cells, spec.piece_kinds(face_up=face_up),
                          _group_cells(spec), spec.geometry, left_out)
    return made.cover, made.slack_items


def _group_cells(spec: CalendarKind) -> dict[str, list[Cell]]:
    """Each label group's labels' cells, in order."""
    return {group: [spec.label_cells[label] for label in labels]
            for group, labels in spec.groups.items()}


MAX_TALLY = 512  # combinations one search may tally (the length of a state's count vector)
SWEEP_MEMO_SLOTS = 1 << 24
SWEEP_ARENA = 1 << 28  # counts kept for memoised states (committed only as it is used)


def fixed_group_count(spec: CalendarKind) -> int:
    """How many leading groups a task fixes: at least one, and enough that the other groups'
    combinations number at most :data:`MAX_TALLY`."""
    sizes = [len(labels) for labels in spec.groups.values()]
    k = 1
    while k < len(sizes) and math.prod(sizes[k:]) > MAX_TALLY:
        k += 1
    return k


def scan_fixed_groups(spec: CalendarKind) -> tuple[str, ...]:
    """The groups a sweep's tasks fix: the one group whose cells the search passes first
    (the earliest last cell in :func:`~cpmodels.cover.scan_order`; the earlier group on a
    tie) among those that leave at most :data:`MAX_TALLY` combinations to tally, else the
    leading groups of :func:`fixed_group_count`.

    Below the fixed group's cells every task meets the same sub-boards, so the tasks share
    the table of sub-board counts from there on: the months on ``calendar_week`` (its top
    rows), the weekdays on ``calendar_week_11`` (its first columns; its months come last).
    """
    groups = list(spec.groups)
    fixed = assemble_cover(spec.cells, [], _group_cells(spec), spec.geometry).fixed
    return tuple(groups[k] for k in fixed)


def slack_options(cover: ExactCover, spec: CalendarKind) -> dict[tuple[str, str], int]:
    """The slack option id of each (group, label)."""
    by_cell = {(p.piece, p.cells[0]): j for j, p in enumerate(cover.placements)
               if p.kind is OptionKind.SLACK}
    return {(g, label): by_cell[(g, spec.label_cells[label])]
            for g, labels in spec.groups.items() for label in labels}


@dataclass
class TallyPlan:
    """How every label combination of a calendar is counted: the calendar as one cover with
    a slack item per label group (:func:`sweep_cover`); some groups (``fixed``: by default
    the leading ones, :func:`fixed_group_count`) are fixed task by task (a *task* is one
    label of each, forced as its slack options), and each task's search tallies its
    solutions by the slack options of the other groups, which decode back to labels. The
    sweep, the editor's counts and a design's counts all run this plan.
    """

    spec: CalendarKind
    cover: ExactCover
    slack_items: list[int]
    option_of: dict[tuple[str, str], int]  # (group, label) -> its slack option
    fixed: tuple[str, ...]  # the fixed groups, in the spec's order
    face_up: bool = False

    @classmethod
    def of(cls, spec: CalendarKind, *, face_up: bool = False,
           fixed: Sequence[str] | None = None, left_out: Sequence[int] = ()) -> TallyPlan:
        """The plan of ``spec``; ``fixed`` names the groups its tasks fix (None: the
        leading groups of :func:`fixed_group_count`); the pieces ``left_out`` names may be
        left out (:func:`sweep_cover`)."""
        cover, slack_items = sweep_cover(spec, face_up=face_up, left_out=left_out)
        groups = list(spec.groups)
        chosen = groups[:fixed_group_count(spec)] if fixed is None else list(fixed)
        if not chosen or any(g not in groups for g in chosen):
            raise ValueError(f"fixed groups {chosen} are not groups of {spec.name}")
        return cls(spec, cover, slack_items, slack_options(cover, spec),
                   tuple(g for g in groups if g in chosen), face_up)

    @property
    def groups(self) -> list[str]:
        return list(self.spec.groups)

    @property
    def n_fixed(self) -> int:
        return len(self.fixed)

    @property
    def fixed_groups(self) -> list[str]:
        return list(self.fixed)

    @property
    def free_groups(self) -> list[str]:
        return [g for g in self.groups if g not in self.fixed]

    @property
    def in_sweep_order(self) -> bool:
        """Whether the tasks' rows, task after task, come in sweep order (the fixed groups
        lead)."""
        return self.groups[:self.n_fixed] == self.fixed_groups

    @property
    def tally_items(self) -> list[int]:
        """The slack items a task's search tallies by (the free groups', in spec order)."""
        return [item for g, item in zip(self.groups, self.slack_items) if g not in self.fixed]

    def tasks(self) -> list[tuple[str, ...]]:
        """Every task: one label of each fixed group, in sweep order."""
        return list(itertools.product(*(self.spec.groups[g] for g in self.fixed_groups)))

    def free_combinations(self) -> list[tuple[str, ...]]:
        """One label of each free group: the rows of a task, in sweep order."""
        return list(itertools.product(*(self.spec.groups[g] for g in self.free_groups)))

    def holes(self, labels: tuple[str, ...]) -> tuple[int, ...]:
        """The slack options that leave ``labels`` open (labels of the leading groups: a
        whole combination, or a task's labels when the fixed groups lead)."""
        return tuple(self.option_of[(g, label)] for g, label in zip(self.groups, labels))

    def task_holes(self, task: tuple[str, ...]) -> tuple[int, ...]:
        """The slack options a task forces: its labels of the fixed groups (then, for a
        preview, its labels of the first free groups)."""
        groups = self.fixed_groups + self.free_groups
        return tuple(self.option_of[(g, label)] for g, label in zip(groups, task))

    def labels(self, task: tuple[str, ...], rest: tuple[str, ...]) -> tuple[str, ...]:
        """The combination of a task's labels and ``rest`` (labels of the free groups), in
        the spec's group order."""
        chosen = dict(zip(self.fixed_groups, task)) | dict(zip(self.free_groups, rest))
        return tuple(chosen[g] for g in self.groups)

    def rows(self, task: tuple[str, ...], tally: Tally,
             ) -> list[tuple[tuple[str, ...], int]]:
        """A task's tally as (labels, count) for each of its combinations, in sweep order.
        A task may fix labels of free groups too (a preview, :meth:`preview_tasks`): its
        rows are then those combinations alone."""
        extra = task[self.n_fixed:]  # a preview's labels of the first free groups
        free = self.free_groups
        choices = [[label] for label in extra] + [
            self.spec.groups[g] for g in free[len(extra):]]
        out = []
        for rest in itertools.product(*choices):
            key = tuple(self.option_of[(g, label)] for g, label in zip(free, rest))
            out.append((self.labels(task[:self.n_fixed], rest), tally.get(key, 0)))
        return out

    def preview_tasks(self) -> list[tuple[str, ...]]:
        """What a stream runs first, for its first row at once: the first task with the
        first label of every free group fixed as well, one combination (the smallest
        search, on a small table; its forced options are :meth:`task_holes`), whose row
        comes again with that task; none when every group is fixed (a task is one
        combination then)."""
        if not self.free_groups:
            return []
        return [self.tasks()[0] + tuple(self.spec.groups[g][0] for g in self.free_groups)]

    def session(self, **options: Any) -> EngineSession:
        """An engine session of the plan's cover that tallies by the free groups."""
        return EngineSession(self.cover, tally_items=self.tally_items, **options)

    def work(self, tasks: Sequence[tuple[str, ...]], worker: Callable[[], EngineSession],
             preview_worker: Callable[[], EngineSession] | None = None) -> Plan:
        """The run layer's plan of ``tasks``: each task's options forced and its
        combinations tallied by a session ``worker()`` makes; with ``preview_worker``,
        :meth:`preview_tasks` first, on a session of their own (a stream's first rows)."""
        previews = [] if preview_worker is None else self.preview_tasks()
        return Plan([self.task_holes(task) for task in tasks], worker, tallied=True,
                    preview=[self.task_holes(task) for task in previews],
                    preview_worker=preview_worker)


def sweep_plan(spec: CalendarKind, *, face_up: bool = False) -> TallyPlan:
    """How a sweep counts ``spec``, from the command line or the editor's stream: its tasks
    fix the group :func:`scan_fixed_groups` picks, so they share their sub-boards."""
    return TallyPlan.of(spec, face_up=face_up, fixed=scan_fixed_groups(spec))


MAX_ROW_CHARS = 100_000  # a sweep's row longer is damaged (and counted again)


def read_rows(path: Path, spec: CalendarKind, question: Question, columns: list[str],
              again: str = "give another --out") -> dict[tuple[str, ...], Row]:
    """Finished rows of an earlier run of ``spec`` that asked ``question``, in sweep order
    (its file is refused when it asked another, or names none:
    :func:`~cpmodels.questions.check_question`). A row that does not read (a field that is
    no count, too many fields, a line too long or not UTF-8, a combination given twice
    over, or not one of ``spec`` with its real dates) is left out, to be counted again.
    ``again`` ends a refusal: what to do instead."""
    rows: dict[tuple[str, ...], Row] = {}
    if check_question(path, [question], again) is None:
        return rows
    twice: set[tuple[str, ...]] = set()
    with contextlib.closing(lines_after_question(path, "sweep file", strict=False)) as lines:
        first = next(lines, None)
        if first is None:  # a run killed before its column line
            return rows
        header = _fields(first)
        if header is None or header != columns:
            shown = "(none)" if not header else ",".join(header)[:200]
            raise InputError(f"{path} has columns {shown}, not {','.join(columns)}; "
                             f"{again}")
        n = columns.index("real_date")
        at = {name: k for k, name in enumerate(columns)}
        for line in lines:  # a line cut by a killed run is not among them
            record = _fields(line)
            if record is None or len(record) != len(columns) \
                    or record[n] not in ("true", "false"):
                continue
            count = _natural(record[n + 1])
            hard = record[at["difficulty"]] if "difficulty" in at else ""
            if count is None or (hard and _natural(hard) is None):
                continue
            row = Row(tuple(record[:n]), record[n] == "true", count,
                      record[at["proof"]] if "proof" in at else "",
                      _natural(hard) if hard else None)
            if rows.setdefault(row.labels, row) != row:
                twice.add(row.labels)
    return {combo: rows[combo] for combo in spec.label_combinations()
            if combo in rows and combo not in twice
            and rows[combo].real_date == (spec.real_date(combo) is not None)}


def _fields(line: str) -> list[str] | None:
    """The fields of one CSV line, or None when it is too long or does not read (read line
    by line: a stray quote cannot swallow the rows after it)."""
    if len(line) > MAX_ROW_CHARS:
        return None
    try:
        return next(csv.reader([line.rstrip("\r\n")]), [])
    except csv.Error:
        return None


def _natural(text: str) -> int | None:
    """A count written by a sweep (ASCII digits, at most 19 of them), or None."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 19 else None


def file_columns(path: Path, spec: CalendarKind) -> list[str]:
    """The columns of a sweep file of ``spec`` as its column line has them (which options;
    the file's question is checked when its rows are read)."""
    with contextlib.closing(lines_after_question(path, "sweep file")) as lines:
        header = _fields(next(lines, "")) or []
    return sweep_columns(spec, prove="proof" in header, difficulty="difficulty" in header)


def _record(row: Row, prove: bool, difficulty: bool) -> list[str]:
    hard = "" if row.difficulty is None else str(row.difficulty)
    return [*row.labels, "true" if row.real_date else "false", str(row.count),
            *([hard] if difficulty else []), *([row.proof] if prove else [])]


def _prove_row(spec: CalendarKind, labels: tuple[str, ...], face_up: bool,
               folder: Path) -> str:
    """Prove a combination unsolvable; the proof's file name, or "" when it was rejected."""
    from cpmodels.instance import packing_instance
    from cpmodels.proving import prove_cover
    from cpmodels.query import Query

    make_directory(folder)
    path = folder / ("-".join(labels) + ".drup")
    cover = packing_instance(Query.of(spec, labels=labels, face_up=face_up)).cover
    outcome = prove_cover(cover, path)
    if outcome.check is None or not outcome.check.ok:
        return ""
    return f"{folder.name}/{path.name}"


def _proof_kept(spec: CalendarKind, row: Row, face_up: bool, folder: Path) -> bool:
    """Whether a kept row's proof column stands: empty (no proof claimed), or for a
    combination with no solution the proof :func:`_prove_row` names, there and checked
    again."""
    if not row.proof or row.count:
        return not row.proof
    from cpmodels.instance import packing_instance
    from cpmodels.proving import proof_holds
    from cpmodels.query import Query

    name = "-".join(row.labels) + ".drup"
    if row.proof != f"{folder.name}/{name}":
        return False
    cover = packing_instance(Query.of(spec, labels=row.labels, face_up=face_up)).cover
    return proof_holds(cover, folder / name)


def sweep_columns(spec: CalendarKind, *, prove: bool = False,
                  difficulty: bool = False) -> list[str]:
    """The CSV header: one column per group, ``real_date``, ``count`` (then ``difficulty``
    and ``proof`` when asked)."""
    return [*spec.groups, "real_date", "count", *(["difficulty"] if difficulty else []),
            *(["proof"] if prove else [])]


class _Scoring:
    """A worker of difficulty scores (``docs/difficulty.md``) on a sweep's engine session,
    whose backtracker is read-only: several threads may share it."""

    def __init__(self, session: EngineSession) -> None:
        self.session = session

    def run(self, unit: Sequence[tuple[int, ...]]) -> list[Difficulty | None]:
        return [self.session.difficulty(list(holes)) for holes in unit]

    def stop(self) -> None:
        """A score is not stopped midway (the sweep's session stops on its own)."""


class _SweepRows:
    """A sweep's sink: each task's tally as its rows (those not kept from an earlier run),
    in sweep order; with ``difficulty``, the solvable rows' scores worked out in
    ``threads`` threads while the next task is counted; with ``prove``, each unsolvable
    row's checked proof; every row written to ``file`` (if any), kept in ``by_labels`` and
    told to ``progress``."""

    def __init__(self, plan: TallyPlan, tasks: list[tuple[str, ...]], *,
                 done: dict[tuple[str, ...], Row], file: ResumableFile | None,
                 session: EngineSession, threads: int, prove: bool, difficulty: bool,
                 proof_dir: Path, progress: Callable[[int, int], None] | None) -> None:
        self.plan, self.tasks, self.done, self.file = plan, tasks, done, file
        self.session, self.threads = session, threads
        self.prove, self.difficulty, self.proof_dir = prove, difficulty, proof_dir
        self.progress = progress
        self.in_all = len(plan.spec.label_combinations())
        self.by_labels = dict(done)
        self.waiting: tuple[list[Row], Run | None] | None = None  # rows whose scores run

    def take(self, done: Finished) -> None:
        assert done.index is not None
        spec = self.plan.spec
        rows = [Row(labels, spec.real_date(labels) is not None, count)
                for labels, count in self.plan.rows(self.tasks[done.index], done.result)
                if labels not in self.done]
        if not self.difficulty:
            self._write(rows, None)
            return
        # This task's scores run while the next task is counted.
        solvable = [self.plan.holes(row.labels) for row in rows if row.count]
        scores = Run(Plan(solvable, lambda: _Scoring(self.session)),
                     Threads(self.threads)).start() if solvable else None
        self.finish()
        self.waiting = rows, scores

    def finish(self) -> None:
        """Write the rows whose scores are still being worked out."""
        if self.waiting is not None:
            rows, scores = self.waiting
            self.waiting = None
            self._write(rows, scores)

    def close(self) -> None:
        """Stop the scores still running (the sweep ended early)."""
        if self.waiting is not None and self.waiting[1] is not None:
            self.waiting[1].close()
        self.waiting = None

    def _write(self, rows: list[Row], scores: Run | None) -> None:
        if scores is not None:
            found = Memory()
            for result in scores.results():
                found.take(result)
            scored = iter(found.in_order())
            for row in rows:
                if row.count:
                    score = next(scored)
                    row.difficulty = None if score is None else score.score
        for row in rows:
            if self.prove and row.count == 0:
                row.proof = _prove_row(self.plan.spec, row.labels, self.plan.face_up,
                                       self.proof_dir)
            self.by_labels[row.labels] = row
        if self.file is not None:
            self.file.write(csv_line(_record(row, self.prove, self.difficulty))
                            for row in rows)
        if self.progress is not None:
            for k in range(len(rows)):
                self.progress(len(self.by_labels) - len(rows) + k + 1, self.in_all)


def run_sweep(spec: CalendarKind, out: Path | None, *, jobs: int | None = None,
              resume: bool = False, face_up: bool = False,
              memo_slots: int = SWEEP_MEMO_SLOTS, prove: bool = False,
              progress: Callable[[int, int], None] | None = None,
              cluster: Cluster | None = None, difficulty: bool = False,
              again: str = "give another --out") -> SweepSummary:
    """Count every combination, appending one CSV row per combination to ``out`` (None:
    the rows are kept in the summary alone) in a fixed order.

    Rows are flushed task by task, so an interrupted run keeps complete rows only. The tasks
    fix the group :func:`scan_fixed_groups` picks; when that is not the first group, a
    task's rows are not the next rows of the sweep, and the file is rewritten in sweep
    order at the end. ``resume`` skips the rows an earlier run finished. With ``prove``,
    each unsolvable row names a DRUP proof (checked here) written to ``<out>.proofs/``.
    ``again`` ends the refusal of a file to resume: what to do instead.
    With ``difficulty``, each solvable row gets its difficulty score
    (``docs/difficulty.md``), worked out in ``jobs`` threads of this process (a task's
    scores while the next task is counted).
    ``progress(done, in all)`` hears of the kept rows first, then of each new row. The
    tasks run where ``jobs`` and ``cluster`` say (``running.place_for``). The summary
    holds every row.
    """
    if out is None and prove:
        raise InputError("the proofs are written beside the output file: give one")
    columns = sweep_columns(spec, prove=prove, difficulty=difficulty)
    proof_dir = Path(".") if out is None else out.with_name(out.name + ".proofs")
    if prove and os.path.lexists(proof_dir):
        make_directory(proof_dir)  # a real directory, checked before the counting
    combos = spec.label_combinations()
    question = sweep_question(spec, face_up=face_up, prove=prove, difficulty=difficulty)
    done = read_rows(out, spec, question, columns, again) if resume and out is not None \
        else {}
    if prove:  # a kept row's proof is checked again: one missing or broken is redone
        done = {combo: row for combo, row in done.items()
                if _proof_kept(spec, row, face_up, proof_dir)}
    plan = sweep_plan(spec, face_up=face_up)
    free_combos = plan.free_combinations()
    tasks = [fixed for fixed in plan.tasks()
             if any(plan.labels(fixed, rest) not in done for rest in free_combos)]
    jobs = max(1, min(workers_for(jobs), len(tasks)))
    if progress is not None:
        progress(len(done), len(combos))
    session = plan.session(table_slots=memo_slots, arena=SWEEP_ARENA)
    work = plan.work(tasks, lambda: session)
    with contextlib.ExitStack() as stack:
        file = None
        if out is not None:
            # The question and the kept rows rewritten (in sweep order) whole, dropping
            # any line a killed run cut or that did not read.
            kept = [csv_line(_record(done[combo], prove, difficulty))
                    for combo in combos if combo in done]
            file = stack.enter_context(ResumableFile(
                out, rewrite=[question.line(), csv_line(columns), *kept]))
        rows = _SweepRows(plan, tasks, done=done, file=file, session=session, threads=jobs,
                          prove=prove, difficulty=difficulty, proof_dir=proof_dir,
                          progress=progress)
        stack.callback(rows.close)
        ran = run(work, place_for(jobs, cluster), rows)
        rows.finish()
    if out is not None and (not plan.in_sweep_order or list(done) != combos[:len(done)]):
        # The rows came task by task, or after kept rows they come before (rows counted
        # again): the finished file has them in sweep order.
        write_atomic(out, "".join(
            line + "\n" for line in [question.line(), csv_line(columns), *(
                csv_line(_record(rows.by_labels[combo], prove, difficulty))
                for combo in combos if combo in rows.by_labels)]))
    summary = SweepSummary(units=ran.units, nodes=ran.nodes)
    for combo in combos:
        if combo in rows.by_labels:
            summary.add(rows.by_labels[combo])
    return summary
