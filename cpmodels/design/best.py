"""``design --best K``: the K best working sets of a design, without counting every set in
full."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from cpmodels.design.search import Design, run_design
from cpmodels.design.verdicts import Verdict, ranked
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
    none is counted further. The verdicts are in candidate order; the working sets outside
    the best carry no counts."""
    if best < 1:
        raise InputError(f"--best {best}: ask for at least one set")
    with_counts, with_difficulty = design.with_counts, design.with_difficulty
    design.with_counts = design.with_difficulty = False
    try:
        verdicts = run_design(design, jobs=jobs, cluster=cluster, on_verdict=on_verdict)
    finally:
        design.with_counts, design.with_difficulty = with_counts, with_difficulty
    by_names = {tuple(design.names(c)): c for c in design.candidates()}
    working = [by_names[tuple(v.pieces)] for v in verdicts if v.works]
    leaders: list[Verdict] = []  # the best so far, ranked
    # What is known of each set not yet counted in full: its counts on the leaders'
    # hardest dates, whose least bounds its own fewest from above. The set with the
    # highest bound is counted next, so the leaders come early and the floor rises fast.
    probed: dict[int, dict[tuple[str, ...], int]] = {k: {} for k in range(len(working))}
    while probed:
        floor = leaders[best - 1].min if len(leaders) >= best else None
        bound = {k: min(known.values(), default=1 << 62) for k, known in probed.items()}
        k = max(probed, key=lambda j: (bound[j], -j))
        if floor is not None and bound[k] < floor:
            break  # every set left has a date with fewer solutions than the best have
        pieces, known = working[k], probed[k]
        unknown = [v.argmin for v in leaders if v.argmin is not None and v.argmin not in known]
        if unknown:
            known.update((date, design.count_date(pieces, date))
                         for date in dict.fromkeys(unknown))
            continue  # its bound may have fallen below another set's
        del probed[k]
        counts = design.counts(pieces, floor=floor)
        if counts is None:
            continue
        verdict = next(v for v in verdicts if v.pieces == design.names(pieces))
        counted = Verdict(list(verdict.pieces), True, face_up_sides=verdict.face_up_sides)
        design.add_counts(counted, counts)
        leaders = ranked([*leaders, counted])[:best]
    chosen = {tuple(v.pieces): v for v in leaders}
    return [chosen.get(tuple(v.pieces), v) for v in verdicts]

