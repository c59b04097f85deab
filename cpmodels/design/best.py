"""``design --best K``: the K best working sets of a design, without counting every set in
full."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from cpmodels.backends.engine import BestRanking
from cpmodels.design.search import Design, run_design
from cpmodels.design.verdicts import Verdict
from cpmodels.errors import InputError

if TYPE_CHECKING:
    from cpmodels.backends.engine import Cluster


def best_sets(design: Design, best: int, *, jobs: int | None = 1,
              cluster: Cluster | None = None,
              on_verdict: Callable[[Verdict], None] | None = None) -> list[Verdict]:
    """Every candidate's verdict, only the ``best`` working sets counted: those with the
    most solutions on their hardest required date (then the most in all, then by name, as
    :func:`~cpmodels.design.verdicts.ranked` ranks them), the same sets as a full count
    ranks first. Existence is decided for every set (``jobs``, ``cluster``, ``on_verdict``
    as for :func:`run_design`); then the working sets are counted, the one whose counts
    on the best sets' hardest dates (counted alone) have the highest least first, and a set
    stops being counted as soon as a date has fewer solutions than the ``best``-th best
    minimum of the sets counted in full so far; once every set left has such a date,
    none is counted further (the core steps through that: ``cpcore_design_best_step``). The
    verdicts are in candidate order; the working sets outside the best carry no counts."""
    if best < 1:
        raise InputError(f"--best {best}: ask for at least one set")
    with_counts, with_difficulty = design.with_counts, design.with_difficulty
    design.with_counts = design.with_difficulty = False
    try:
        verdicts = run_design(design, jobs=jobs, cluster=cluster, on_verdict=on_verdict)
    finally:
        design.with_counts, design.with_difficulty = with_counts, with_difficulty
    by_names = {tuple(design.names(c)): c for c in design.candidates()}
    working = [v for v in verdicts if v.works]
    sets = [by_names[tuple(v.pieces)] for v in working]
    dates = {combo: d for d, combo in enumerate(design.required)}
    state = BestRanking([v.pieces for v in working], len(design.required), best)
    counted_sets: dict[int, Verdict] = {}
    while True:
        step, k, floor, n_out = state.step()
        if step == state.PROBE:
            for d in state.dates[:n_out]:
                state.known(k, int(d), design.count_date(sets[k], design.required[d]))
        elif step == state.COUNT:
            counts = design.counts(sets[k], floor=None if floor < 0 else floor)
            if counts is not None:
                counted = Verdict(list(working[k].pieces), True,
                                  face_up_sides=working[k].face_up_sides)
                design.add_counts(counted, counts)
                assert counted.argmin is not None and counted.min is not None
                state.counted(k, counted.min, counted.total or 0, dates[counted.argmin])
                counted_sets[k] = counted
        else:
            break
    chosen = {tuple(counted_sets[k].pieces): counted_sets[k] for k in state.leaders()}
    return [chosen.get(tuple(v.pieces), v) for v in verdicts]
