"""The package from Python and Jupyter: results that print, draw and convert themselves.

```python
>>> from cpmodels import api
>>> api.solve("calendar_week", date="2026-11-21")   # draws itself in Jupyter
<PackingSolution calendar_week Nov 21 Sat: solved>
>>> api.count("calendar_day", labels=["Oct", "6"]).count
7
>>> api.sweep("calendar_day").to_dataframe().shape
(372, 4)

```

Solutions and towers boards display as SVG, sweep results as a heatmap (PNG); each has
``svg()``/``png()`` (or ``figure()``) and ``to_dict()`` with the CLI's JSON contract.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cpmodels.backends import iter_cover_solutions, solve_cover
from cpmodels.backends.result import CoverResult
from cpmodels.counting import CountResult
from cpmodels.errors import InputError, OutOfTime
from cpmodels.export.decode import MAX_ANSWER_BYTES
from cpmodels.files import read_bounded
from cpmodels.instance import PackingInstance, packing_instance
from cpmodels.query import Query
from cpmodels.questions import check_question, sweep_question
from cpmodels.render import (
    count_payload,
    count_text,
    packing_payload,
    packing_text,
    towers_payload,
    towers_text,
)
from cpmodels.render.pictures import packing_picture, placements_picture, towers_picture
from cpmodels.render.scene import Scene
from cpmodels.spec import CalendarSpec, Spec, TowersSpec, load_spec
from cpmodels.spec.bundled import bundled_specs
from cpmodels.sweep import Row, SweepSummary, file_columns, read_rows, run_sweep
from cpmodels.towers.problem import TowersProblem, towers_problem
from cpmodels.towers.result import TowersResult
from cpmodels.workers import worker_count

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from cpmodels.design import Design, Verdict
    from cpmodels.widgets import DesignWidget, PuzzleWidget, SweepWidget

SpecLike = Spec | str | Path


__all__ = [
    "CountResult",
    "CoverResult",
    "DesignResult",
    "PackingSolution",
    "PuzzleCount",
    "Query",
    "SpecLike",
    "SweepResult",
    "TowersResult",
    "TowersSolution",
    "bundled",
    "count",
    "decode",
    "design",
    "export",
    "instance",
    "load",
    "query",
    "solutions",
    "solve",
    "sweep",
    "towers",
]


def bundled() -> dict[str, Path]:
    """The bundled specs and designs by name (any function here takes a name for a path)."""
    return bundled_specs()


def load(spec: SpecLike) -> Spec:
    """A spec from a path or a bundled spec's name (validated), or an already loaded spec."""
    return load_spec(spec) if isinstance(spec, str | Path) else spec


class _Picture:
    """Mixin: a result drawn as a :class:`Scene` shows itself as SVG in Jupyter."""

    def scene(self) -> Scene:
        raise NotImplementedError

    def svg(self) -> str:
        """The picture as an SVG document."""
        from cpmodels.render.svg import scene_svg

        return scene_svg(self.scene())

    def png(self) -> bytes:
        """The picture as PNG bytes."""
        from cpmodels.render.raster import scene_png

        return scene_png(self.scene())

    def _repr_svg_(self) -> str:
        return self.svg()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, str]:
        """The picture, and the terminal's drawing for front ends that show text only."""
        return {"image/svg+xml": self.svg(), "text/plain": str(self)}


@dataclass(repr=False)
class PackingSolution(_Picture):
    """One answer to a packing or calendar instance."""

    instance: PackingInstance
    result: CoverResult

    @property
    def status(self) -> str:
        return self.result.status

    def to_dict(self) -> dict[str, Any]:
        """The CLI's JSON contract (``solve --format json``)."""
        return packing_payload(self.instance, self.result)

    def scene(self) -> Scene:
        """The board drawn: one coloured outline per piece, the labels left open."""
        return packing_picture(self.instance, self.result)

    def __str__(self) -> str:
        return packing_text(self.instance, self.result)

    def __repr__(self) -> str:
        labels = " ".join(self.instance.labels) or self.instance.target
        return f"<PackingSolution {self.instance.name} {labels}: {self.status}>"

    def widget(self, solved: bool = False) -> PuzzleWidget:
        """This calendar puzzle to play in a notebook (needs ``cpmodels[notebooks]``): the
        board empty, or with this solution's pieces on it (``solved``); its picture stays
        for front ends that show no widgets."""
        from cpmodels.extras import require

        require("notebooks", "widget()")
        from cpmodels.widgets import PuzzleWidget

        spec = self.instance.spec
        if not isinstance(spec, CalendarSpec) or not self.instance.labels:
            raise InputError(f"the widget plays calendar puzzles on their labels; "
                             f"{self.instance.name} is not one (its picture shows it)")
        placements = self.to_dict()["placements"] if solved else []
        return PuzzleWidget(spec, self.instance.labels, face_up=self.instance.query.face_up,
                            placements=placements, picture=self._repr_mimebundle_)


@dataclass(repr=False, kw_only=True)
class PuzzleCount(CountResult, _Picture):
    """A :class:`CountResult` that knows its puzzle: drawn as the board with the labels
    left open, titled with the count; printed as the ``count`` command's line."""

    instance: PackingInstance

    def to_dict(self) -> dict[str, Any]:
        """The CLI's JSON contract (``count --format json``)."""
        return count_payload(self.instance, self)

    def scene(self) -> Scene:
        """The puzzle counted: its board, the labels left open, the count as its title."""
        return placements_picture(self.instance, [], f"{self._puzzle()}: {self._what()}")

    def _puzzle(self) -> str:
        inst = self.instance
        shown = " ".join(inst.labels) or (inst.target if inst.target != inst.name else "")
        return f"{inst.name} {shown}".rstrip()

    def _what(self) -> str:
        if self.count is None:
            return "unknown (stopped at the time limit)"
        return f"{self.count:,} {'distinct ' if self.distinct else ''}solutions"

    def __str__(self) -> str:
        return count_text(self.instance, self)

    def __repr__(self) -> str:
        return f"<PuzzleCount {self._puzzle()}: {self._what()}>"


@dataclass(repr=False)
class TowersSolution(_Picture):
    """A towers board with its score, and whether it is proved optimal."""

    problem: TowersProblem
    result: TowersResult

    @property
    def status(self) -> str:
        return self.result.status

    @property
    def score(self) -> int | None:
        return self.result.score

    def to_dict(self) -> dict[str, Any]:
        """The answer as the command line's JSON has it."""
        return towers_payload(self.problem, self.result)

    def scene(self) -> Scene:
        """The board drawn: coloured cells and the score."""
        return towers_picture(self.problem, self.result)

    def __str__(self) -> str:
        return towers_text(self.problem, self.result)

    def __repr__(self) -> str:
        p, r = self.problem, self.result
        return (f"<TowersSolution {p.name} {p.rows}x{p.cols}: score {r.score}"
                + (" (optimal)" if r.optimal else ", no bound" if r.bound is None
                   else f", bound {r.bound}") + ">")


def query(spec: SpecLike | Query, *, date: dt.date | str | None = None,
          labels: Sequence[str] | None = None, target: str | None = None,
          face_up: bool = False) -> Query:
    """Which puzzle: a calendar on a date (default today) or labels, or a packing target;
    ``face_up`` keeps every piece as drawn. A :class:`Query` is returned as it is."""
    if isinstance(spec, Query):
        if date is not None or labels is not None or target is not None or face_up:
            raise InputError("a Query says which puzzle already; give no date, labels, "
                             "target or face_up with it")
        return spec
    spec = load(spec)
    if isinstance(spec, TowersSpec):
        raise InputError(f"{spec.name} is a towers spec; use api.towers()")
    return Query.of(spec, date=date, labels=labels, target=target, face_up=face_up)


def instance(spec: SpecLike | Query, **which: Any) -> PackingInstance:
    """A packing instance; ``which``: ``date``, ``labels``, ``target``, ``face_up`` (see
    :func:`query`)."""
    return packing_instance(query(spec, **which))


def solve(spec: SpecLike | Query, *, backend: str = "cpsat", time_limit: float | None = None,
          **which: Any) -> PackingSolution:
    """Solve one packing instance (``which`` as for :func:`query`)."""
    inst = instance(spec, **which)
    return PackingSolution(inst, solve_cover(backend, inst.cover, time_limit=time_limit))


def solutions(spec: SpecLike | Query, *, backend: str = "engine",
              **which: Any) -> Iterator[PackingSolution]:
    """Every solution of one packing instance, streamed (``which`` as for :func:`query`)."""
    inst = instance(spec, **which)
    start = time.perf_counter()
    for chosen in iter_cover_solutions(backend, inst.cover):
        yield PackingSolution(inst, CoverResult("solved", backend, time.perf_counter() - start,
                                                sorted(chosen)))


def count(spec: SpecLike | Query, *, distinct: bool = False, backend: str = "engine",
          time_limit: float | None = None, cluster: Any = None, **which: Any) -> PuzzleCount:
    """Count every solution of one packing instance (``distinct``: up to symmetry;
    ``which`` as for :func:`query`). ``cluster``: a Dask cluster to count on (an address
    such as ``"local:2"`` or ``"tcp://HOST:8786"``, or a ``distributed.Client``)."""
    from cpmodels.backends.engine import using
    from cpmodels.counting import count_instance

    inst = instance(spec, **which)
    with using(cluster) as on:
        found = count_instance(inst, distinct=distinct, time_limit=time_limit,
                               backend=backend, cluster=on)
    return PuzzleCount(**vars(found), instance=inst)


def towers(spec: SpecLike = "towers", size: tuple[int, int] | None = None, *,
           time_limit: float | None = None) -> TowersSolution:
    """The best towers board (proved optimal where the time allows)."""
    from cpmodels import towers as towers_package

    spec = load(spec)
    if not isinstance(spec, TowersSpec):
        raise InputError(f"{spec.name} is not a towers spec")
    rows, cols = size or (None, None)
    problem = towers_problem(spec, rows, cols)
    return TowersSolution(problem, towers_package.solve(problem, time_limit=time_limit))


@dataclass(repr=False)
class SweepResult:
    """Every label combination's count; shows itself as a calendar heatmap."""

    spec: CalendarSpec
    summary: SweepSummary = field(default_factory=SweepSummary)

    @property
    def rows(self) -> dict[tuple[str, ...], Row]:
        """Every combination's row, in sweep order."""
        return self.summary.rows

    @classmethod
    def read_csv(cls, spec: SpecLike, path: str | Path, *,
                 face_up: bool = False) -> SweepResult:
        """The rows a sweep of ``spec`` (``face_up`` as it was run) wrote to ``path``
        (complete rows only); a file of another question is refused."""
        spec = load(spec)
        if not isinstance(spec, CalendarSpec):
            raise InputError(f"{spec.name} is not a calendar spec")
        path = Path(path)
        if not path.exists():
            raise InputError(f"{path} does not exist")
        columns = file_columns(path, spec)
        question = sweep_question(spec, face_up=face_up, prove="proof" in columns,
                                  difficulty="difficulty" in columns)
        again = "give the path of a sweep of this spec, with face_up as it was run"
        if check_question(path, [question], again) is None:
            raise InputError(f"{path} holds no sweep rows yet (it is empty, or a run stopped "
                             f"as it began); {again}")
        summary = SweepSummary()
        for row in read_rows(path, spec, question, columns, again).values():
            summary.add(row)
        return cls(spec, summary)

    def easiest(self, n: int = 5, real_only: bool = True) -> list[Row]:
        """The ``n`` combinations with the most solutions."""
        return sorted(self._rows(real_only), key=lambda row: -row.count)[:n]

    def hardest(self, n: int = 5, real_only: bool = True) -> list[Row]:
        """The ``n`` combinations with the fewest solutions."""
        return sorted(self._rows(real_only), key=lambda row: row.count)[:n]

    def _rows(self, real_only: bool) -> list[Row]:
        return [row for row in self.rows.values() if row.real_date or not real_only]

    def hardest_to_find(self, n: int = 5, real_only: bool = True) -> list[Row]:
        """The ``n`` combinations with the highest difficulty (a sweep with difficulty)."""
        rows = [row for row in self._rows(real_only) if row.difficulty is not None]
        return sorted(rows, key=lambda row: -(row.difficulty or 0))[:n]

    def to_dataframe(self) -> pd.DataFrame:
        """One row per combination (needs pandas): one column per group, real_date, count
        (and difficulty, when the sweep has it)."""
        try:
            import pandas as pd
        except ImportError:
            raise InputError("to_dataframe needs pandas: pip install pandas") from None
        groups = list(self.spec.groups)
        scored = any(row.difficulty is not None for row in self.rows.values())
        extra = ["difficulty"] if scored else []
        return pd.DataFrame(
            [{**dict(zip(groups, row.labels)), "real_date": row.real_date, "count": row.count,
              **({"difficulty": row.difficulty} if scored else {})}
             for row in self.rows.values()],
            columns=[*groups, "real_date", "count", *extra])

    def figure(self) -> Figure:
        """The heatmap: months down, days across, a panel per weekday."""
        from cpmodels.render.heatmap import sweep_heatmap

        rows = {labels: (row.real_date, row.count) for labels, row in self.rows.items()}
        return sweep_heatmap(self.spec.groups, rows, f"{self.spec.name}: solutions per "
                             "combination")

    def png(self) -> bytes:
        """The heatmap as PNG bytes."""
        from cpmodels.render.raster import figure_bytes

        return figure_bytes(self.figure())

    def _repr_png_(self) -> bytes | None:
        return self.png() if len(self.spec.groups) >= 2 else None

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """The heatmap (where there is one: two label groups or more), and the summary
        line for front ends that show text only."""
        shown = self._repr_png_()
        return {"text/plain": repr(self), **({} if shown is None else {"image/png": shown})}

    def widget(self, face_up: bool = False) -> SweepWidget:
        """The heatmap in a notebook (needs ``cpmodels[notebooks]``): hovering a
        combination gives its count, a click shows a solution of it on the board, to play
        (``face_up`` as the sweep was run)."""
        from cpmodels.extras import require

        require("notebooks", "widget()")
        from cpmodels.widgets import SweepWidget

        rows = [(labels, row.count, row.real_date) for labels, row in self.rows.items()]
        return SweepWidget(self.spec, rows, face_up=face_up, picture=self._repr_mimebundle_)

    def __repr__(self) -> str:
        return f"<SweepResult {self}>"

    def __str__(self) -> str:
        s = self.summary
        return (f"{self.spec.name}: {s.combinations} combinations, {s.total:,} solutions, "
                f"{len(s.unsolvable)} unsolvable")


def sweep(spec: SpecLike, out: str | Path | None = None, *, jobs: int | None = None,
          face_up: bool = False, resume: bool = False, cluster: Any = None,
          difficulty: bool = False) -> SweepResult:
    """Count every label combination of a calendar (rows also go to ``out`` if given);
    ``cluster`` as for :func:`count`; ``difficulty`` adds each solvable combination's
    difficulty score (``docs/difficulty.md``)."""
    from cpmodels.backends.engine import using

    jobs = worker_count(jobs)
    spec = load(spec)
    if not isinstance(spec, CalendarSpec):
        raise InputError(f"sweep needs a calendar spec; {spec.name} is a {spec.kind} spec")
    with using(cluster) as on:
        summary = run_sweep(spec, None if out is None else Path(out), jobs=jobs,
                            face_up=face_up, resume=resume, cluster=on,
                            difficulty=difficulty,
                            again="give another out path, or resume=False")
    return SweepResult(spec, summary)


@dataclass(repr=False)
class DesignResult:
    """Every candidate set's verdict; shows itself as the ranked table of the sets that
    work, with the best set's hardest date solved and drawn."""

    design: Design
    verdicts: list[Verdict]
    seconds: float = 0.0

    @property
    def working(self) -> list[Verdict]:
        """The sets that solve every required date, best first."""
        from cpmodels.design import ranked

        return ranked(self.verdicts)

    def to_dict(self) -> dict[str, Any]:
        """The CLI's JSON (``design --format json``)."""
        from cpmodels.design import summary

        return summary(self.verdicts, self.seconds)

    @property
    def by_difficulty(self) -> list[Verdict]:
        """The working sets with difficulties, gentlest hardest date first."""
        from cpmodels.design import ranked_by_difficulty

        return ranked_by_difficulty(self.verdicts)

    def to_dataframe(self) -> pd.DataFrame:
        """One row per candidate set (needs pandas)."""
        try:
            import pandas as pd
        except ImportError:
            raise InputError("to_dataframe needs pandas: pip install pandas") from None
        columns = ["pieces", "works", "first_failure", "min", "argmin", "max", "total",
                   *(["face_up_sides"] if self.design.spec.face_up else []),
                   *(["difficulty", "difficulty_argmax", "difficulty_mean"]
                     if self.design.with_difficulty else [])]
        return pd.DataFrame([{**v.as_dict(), "pieces": " ".join(v.pieces)}
                             for v in self.verdicts], columns=columns)

    def hardest(self, rank: int = 0) -> PackingSolution:
        """A working set's hardest date, solved (``rank`` 0: the best set): the date with
        the fewest solutions, or the highest difficulty when the sets were not counted."""
        verdict = self.working[rank]
        chosen = next(c for c in self.design.candidates()
                      if self.design.names(c) == verdict.pieces)
        spec = self.design.set_spec(chosen)
        labels = verdict.argmin or verdict.difficulty_argmax or self.design.required[0]
        return solve(spec, labels=list(labels), backend="engine")

    def widget(self) -> DesignWidget:
        """The working sets in a notebook (needs ``cpmodels[notebooks]``): choosing one
        shows its board on its hardest date, to play."""
        from cpmodels.extras import require

        require("notebooks", "widget()")
        from cpmodels.widgets import DesignWidget

        working = self.working
        by_names = {tuple(self.design.names(c)): c for c in self.design.candidates()}
        sets = [{**v.as_dict(), "labels": list(v.argmin or v.difficulty_argmax
                                                or self.design.required[0])}
                for v in working]
        return DesignWidget(sets, lambda k: self.design.set_spec(
            by_names[tuple(working[k].pieces)]), picture=self._repr_mimebundle_)

    def _tables(self) -> list[tuple[str, list[str], list[list[str]]]]:
        """The ranked tables: a title, the column heads, the rows."""
        from cpmodels.design.verdicts import ranking_tables

        return ranking_tables(self.verdicts)

    def _headline(self) -> str:
        return (f"{self.design.spec.name}: {len(self.verdicts)} candidate sets, "
                f"{len(self.working)} solve every required combination")

    def __str__(self) -> str:
        from cpmodels.design.verdicts import tables_text

        return "\n".join([self._headline(), *tables_text(self._tables())])

    def __repr__(self) -> str:
        return (f"<DesignResult {self.design.spec.name}: {len(self.working)} of "
                f"{len(self.verdicts)} sets work>")

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, str]:
        """The ranked tables with the best set's hardest date drawn, and the tables as
        text for front ends that show text only."""
        return {"text/html": self._repr_html_(), "text/plain": str(self)}

    def _repr_html_(self) -> str:
        from html import escape

        parts = [f"<p>{escape(self._headline())}</p>"]
        for title, heads, rows in self._tables():
            head = "".join(f"<th>{escape(h)}</th>" for h in heads)
            body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                           for row in rows)
            parts.append(f"<p>{escape(title.capitalize())}:</p>"
                         f"<table><tr>{head}</tr>{body}</table>")
        if self.working:
            parts.append(self.hardest().svg())
        return "".join(parts)


def design(path: str | Path, *, time_limit: float | None = None, jobs: int | None = None,
           counts: bool = True, difficulty: bool = False, cluster: Any = None,
           best: int | None = None) -> DesignResult:
    """Decide every candidate set of a design file (``time_limit``: stop after that many
    seconds with the sets decided so far; ``jobs``: worker processes, default every core;
    ``counts``: count the working sets' solutions; ``difficulty``: measure their dates'
    difficulty and rank them by it too; ``cluster`` as for :func:`count`; ``best``: count
    only the ``best`` best working sets, the first of the full ranking, without
    ``time_limit``, ``difficulty`` or ``counts=False``)."""
    from cpmodels.backends.engine import using
    from cpmodels.design import Design as _Design
    from cpmodels.design import best_sets, load_board, run_design
    from cpmodels.spec.loading import load_design

    jobs = worker_count(jobs)
    spec = load_design(path)
    found = _Design(spec, load_board(spec, path), with_counts=counts,
                    with_difficulty=difficulty)
    start = time.perf_counter()
    if best is not None:
        if time_limit is not None or difficulty or not counts:
            raise InputError("best counts the best sets only: it goes without time_limit, "
                             "difficulty and counts=False")
        sets = sum(1 for _ in found.candidates())
        if not 1 <= best <= sets:
            raise InputError(f"best={best}: {spec.name} has {sets} candidate sets; ask for "
                             "1 to that many")
        with using(cluster) as on:
            verdicts = best_sets(found, best, jobs=jobs, cluster=on)
        return DesignResult(found, verdicts, time.perf_counter() - start)
    with using(cluster) as on:
        try:
            verdicts = run_design(found, time_limit=time_limit, jobs=jobs, cluster=on)
        except OutOfTime as stop:
            verdicts = list(stop.partial) if isinstance(stop.partial, list) else []
    return DesignResult(found, verdicts, time.perf_counter() - start)


def export(spec: SpecLike, out: str | Path, *, format: str | None = None,
           size: tuple[int, int] | None = None, **which: Any) -> list[Path]:
    """Write one puzzle's model for another solver (``format``: dimacs, xcc, opb, mps, lp,
    cpsat or mzn; by default told by ``out``'s extension); ``which`` picks the puzzle as
    :func:`query` does (``date``, ``labels``, ``target``, ``face_up``), ``size`` a towers
    board. The files written (MiniZinc: the model and its ``.dzn``)."""
    from cpmodels import export as models

    subject = models.subject_of(load(spec), size=size, **which)
    return models.write_model(subject, models.format_for(Path(out), format), Path(out))


def make(spec: SpecLike, out: str | Path, *, target: str | None = None,
         rank: int | None = None, verdicts: str | Path | None = None, **sizes: Any) -> Any:
    """Write a puzzle's cut files (SVG, DXF), 3-D prints (STL), previews and manifest into
    the new directory ``out``; ``sizes`` are :class:`cpmodels.make.MakeOptions`' fields in
    millimetres (``cell``, ``kerf``, ``clearance``, ``sheet``, ``thickness``, ``border``).
    ``spec`` may be a design file with ``rank`` (1: its best working set), read from the
    ``verdicts`` of a ``design --out`` run or decided now. Returns the
    :class:`cpmodels.make.MakeReport`."""
    from cpmodels.extras import require
    from cpmodels.make import MakeOptions
    from cpmodels.make import make as make_files
    from cpmodels.spec.loading import is_design

    require("make", "cpmodels.api.make")
    options = MakeOptions(**sizes)
    options.check()
    if isinstance(spec, (str, Path)) and is_design(spec):
        from cpmodels.design import working_set

        if rank is None:
            raise InputError(f"{spec} is a design file: give rank=N (1: its best set)")
        chosen = working_set(spec, rank, verdicts=Path(verdicts) if verdicts else None)
        return make_files(chosen, Path(out), options, target=target)
    return make_files(load(spec), Path(out), options, target=target)


def decode(spec: SpecLike, answer: str | bytes | Path, *, format: str,
           size: tuple[int, int] | None = None, **which: Any,
           ) -> PackingSolution | TowersSolution:
    """Another solver's ``answer`` (its output as text or bytes, or the file holding it) to
    the model :func:`export` wrote in ``format``, checked against the spec's rules: a
    solution, "unsolvable" when the solver says there is none, or an
    :class:`~cpmodels.errors.InputError` naming what the answer breaks."""
    from cpmodels import export as models

    subject = models.subject_of(load(spec), size=size, **which)
    data = read_bounded(answer, MAX_ANSWER_BYTES, "solver's answer") if isinstance(
        answer, Path) else (
        answer.encode() if isinstance(answer, str) else answer)
    try:
        found = models.decode(subject, models.known_format(format), data)
    except models.Unsolvable:
        if subject.is_towers:
            return TowersSolution(subject.towers, TowersResult("unsolvable", 0.0))
        assert subject.instance is not None
        return PackingSolution(subject.instance, CoverResult("unsolvable", format, 0.0))
    if not found.ok:
        raise InputError(f"the answer is not a solution of {subject.describe()}: "
                         + "; ".join(found.faults))
    result = found.result(format)
    if isinstance(result, TowersResult):
        return TowersSolution(subject.towers, result)
    assert subject.instance is not None
    return PackingSolution(subject.instance, result)
