"""The 0-1 linear programme of a subject, written as OPB, MPS or LP.

Packing: one constraint per item, ``low <= sum of the options covering it <= high``, and no
objective (a feasibility programme). Towers: one tower a cell (at most one with empty cells),
and for each colour a cell may hold and each colour it needs, "the cell holds it" at most
"some neighbour holds the need"; the objective is the score, maximised.

MPS and LP are written by OR-Tools' model builder; OPB (the pseudo-Boolean competition
format, which only minimises) is written here, the score negated.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from cpmodels.export.subject import Subject

Terms = list[tuple[int, int]]  # (coefficient, variable from 1)


@dataclass
class Row:
    """``low <= sum of terms <= high`` (None: no bound on that side)."""

    name: str
    terms: Terms
    low: int | None
    high: int | None


@dataclass
class LinearModel:
    """Variables ``x1 .. xn`` (all 0-1), rows, and a score to maximise (empty: none)."""

    subject: Subject
    rows: list[Row] = field(default_factory=list)
    objective: Terms = field(default_factory=list)

    @property
    def n_vars(self) -> int:
        return self.subject.n_all


def linear_model(subject: Subject) -> LinearModel:
    """The 0-1 programme of a packing puzzle or a towers board."""
    model = LinearModel(subject)
    if not subject.is_towers:
        cover = subject.cover
        for item, options in zip(cover.items, cover.item_options()):
            prefix = "cell" if item.cell is not None else "piece"
            model.rows.append(Row(f"{prefix}_{_safe(item.name)}", [(1, j + 1) for j in options],
                                  item.low, item.high))
        return model
    p = subject.towers
    ks = range(len(p.colours))
    built = dict(p.fixed)
    for r in range(p.rows):
        for c in range(p.cols):
            cell = [(1, subject.var(r, c, k)) for k in ks]
            model.rows.append(Row(f"one_r{r}c{c}", cell, 0 if p.allow_empty else 1, 1))
            if (r, c) in built:
                k = built[r, c]
                model.rows.append(Row(f"built_r{r}c{c}", cell if k < 0 else
                                      [(1, subject.var(r, c, k))], *((0, 0) if k < 0 else (1, 1))))
            if p.when_built:
                continue
            around = p.neighbours(r, c)
            for k, colour in enumerate(p.colours):
                for need in colour.needs:
                    terms = [(1, subject.var(nr, nc, need)) for nr, nc in around]
                    model.rows.append(Row(f"need_r{r}c{c}_{colour.letter}_{p.colours[need].letter}",
                                          [*terms, (-1, subject.var(r, c, k))], 0, None))
    if p.when_built:
        _build_order_rows(model)
    model.objective = [(colour.points, subject.var(r, c, k)) for r in range(p.rows)
                       for c in range(p.cols) for k, colour in enumerate(p.colours)
                       if colour.points]
    return model


def _build_order_rows(model: LinearModel) -> None:
    """The build-order rule (``towers/build.py``, as ``towers.model.add_build_order``):
    after the board's variables, each cell's time in bits, one variable a pair of
    neighbours (the first in reading order is built first), then for each cell, neighbour
    and need j < K - 1, "the neighbour lends the cell j"."""
    subject, p = model.subject, model.subject.towers
    top, bits = len(p.colours), subject.time_bits
    size = 1 << bits
    cells = [(r, c) for r in range(p.rows) for c in range(p.cols)]
    fresh = iter(range(subject.n_vars + 1, subject.n_all + 1))
    time = {v: [(1 << b, next(fresh)) for b in range(bits)] for v in cells}
    first: dict[tuple[tuple[int, int], tuple[int, int]], int] = {}
    for v in cells:
        for u in p.neighbours(*v):
            if u > v:
                first[v, u] = next(fresh)
    for (v, u), o in first.items():  # o: v before u, so time(v) + 1 <= time(u)
        model.rows.append(Row(f"first_{v[0]}_{v[1]}_{u[0]}_{u[1]}", [
            *time[v], *((-a, x) for a, x in time[u]), (size, o)], None, size - 1))
        model.rows.append(Row(f"second_{v[0]}_{v[1]}_{u[0]}_{u[1]}", [
            *time[u], *((-a, x) for a, x in time[v]), (-size, o)], None, -1))

    def before(u: tuple[int, int], v: tuple[int, int]) -> tuple[int, Terms]:
        """``u`` is built before ``v`` as constant + terms."""
        return (0, [(1, first[u, v])]) if (u, v) in first else (1, [(-1, first[v, u])])

    for v in cells:
        around = p.neighbours(*v)
        for k in range(len(around) + 1, top):
            model.rows.append(Row(f"degree_{v[0]}_{v[1]}_{k}", [(1, subject.var(*v, k))], 0, 0))
        lend = {(u, j): next(fresh) for u in around for j in range(top - 1)}
        for u in around:
            model.rows.append(Row(f"lend_once_{v[0]}_{v[1]}_{u[0]}_{u[1]}",
                                  [(1, lend[u, j]) for j in range(top - 1)], None, 1))
            const, earlier = before(u, v)
            for j in range(top - 1):
                name = f"lend_{v[0]}_{v[1]}_{u[0]}_{u[1]}_{j}"
                x = subject.var(*u, j)
                if len(p.neighbours(*u)) >= j:  # lend <= x + (1 - before)
                    model.rows.append(Row(name, [(1, lend[u, j]), (-1, x), *earlier],
                                          None, 1 - const))
                else:  # lend <= x and lend <= before
                    model.rows.append(Row(name, [(1, lend[u, j]), (-1, x)], None, 0))
                    model.rows.append(Row(name + "_first", [(1, lend[u, j]),
                                          *((-a, y) for a, y in earlier)], None, const))
        for j in range(top - 1):
            model.rows.append(Row(f"needs_{v[0]}_{v[1]}_{j}", [
                *((1, subject.var(*v, k)) for k in range(j + 1, top)),
                *((-1, lend[u, j]) for u in around)], None, 0))
    assert next(fresh, None) is None


def _safe(name: str) -> str:
    """A name as MPS and LP take it: letters, digits and underscores."""
    return "".join(ch if ch.isalnum() else "_" for ch in name)


def header_lines(subject: Subject, extra: Sequence[str] = ()) -> list[str]:
    """The comment lines every format starts with: what the file is and every variable's
    meaning (without the comment mark)."""
    lines = [f"cpmodels: {subject.describe()}", *extra]
    lines += [f"x{v} = {subject.meaning(v)}" for v in range(1, subject.n_vars + 1)]
    if subject.n_all > subject.n_vars:
        lines.append(f"x{subject.n_vars + 1} .. x{subject.n_all}: the order of building (rules: "
                     "when-built): each cell's time in bits, which of two neighbours is built "
                     "first, which need a neighbour lends")
    return lines


def opb_text(model: LinearModel) -> str:
    """The programme in OPB: ``>=`` and ``=`` rows over ``x1 .. xn``; a score to maximise is
    written as its negation to minimise."""
    rows: list[str] = []
    for row in model.rows:
        terms = " ".join(f"{a:+d} x{v}" for a, v in row.terms)
        if not row.terms:
            if (row.low or 0) > 0 or (row.high is not None and row.high < 0):
                rows.append("0 x1 >= 1 ;")  # an item nothing can cover: unsatisfiable
            continue
        if row.low is not None and row.low == row.high:
            rows.append(f"{terms} = {row.low} ;")
            continue
        if row.low is not None and row.low > sum(a for a, _ in row.terms if a < 0):
            rows.append(f"{terms} >= {row.low} ;")
        if row.high is not None and row.high < sum(a for a, _ in row.terms if a > 0):
            negated = " ".join(f"{-a:+d} x{v}" for a, v in row.terms)
            rows.append(f"{negated} >= {-row.high} ;")
    extra = []
    if model.objective:
        extra.append("the objective is the score negated: min = -score")
    head = [f"* #variable= {model.n_vars} #constraint= {len(rows)}"]
    head += [f"* {line}" for line in header_lines(model.subject, extra)]
    if model.objective:
        head.append("min: " + " ".join(f"{-a:+d} x{v}" for a, v in model.objective) + " ;")
    return "\n".join(head + rows) + "\n"


def mathprog_text(model: LinearModel, fmt: str) -> str:
    """The programme in free MPS (``fmt == "mps"``) or LP, by OR-Tools' model builder, after
    comment lines naming every variable."""
    from ortools.linear_solver.python import model_builder as mb

    builder = mb.Model()
    builder.name = _safe(model.subject.describe())
    xs = [builder.new_bool_var(f"x{v}") for v in range(1, model.n_vars + 1)]
    for row in model.rows:
        expr = mb.LinearExpr.weighted_sum([xs[v - 1] for _, v in row.terms],
                                          [a for a, _ in row.terms])
        low = -math.inf if row.low is None else row.low
        high = math.inf if row.high is None else row.high
        builder.add_linear_constraint(expr, low, high, name=row.name)
    if model.objective:
        builder.maximize(mb.LinearExpr.weighted_sum([xs[v - 1] for _, v in model.objective],
                                                    [a for a, _ in model.objective]))
    text = builder.export_to_mps_string() if fmt == "mps" else builder.export_to_lp_string()
    mark = "*" if fmt == "mps" else "\\"
    return "".join(f"{mark} {line}\n" for line in header_lines(model.subject)) + text
