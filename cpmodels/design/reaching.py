"""How a design decides a set with the engine's reach search (``EngineSession.reach``):
the dates that rejected a set while the order was learnt one by one, then one search for
each choice of holes of the groups the search's scan meets first, the last group's hole
left open (``docs/design.md`` has the strategies measured)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

PROBES = 8  # the commonest first failures past the front, tried before the groups

if TYPE_CHECKING:
    from cpmodels.design.search import Design, _Compiled


def first_failure(design: Design, compiled: _Compiled, out: Sequence[int],
                  areas: Sequence[int]) -> int | None:
    """The first required combination in the learnt order that has no solution with
    the options of ``out`` forced, or None, by the engine's reach search
    (``EngineSession.reach``): the combinations that rejected a set while the order was
    learnt, one first-solution search each; then the commonest first failures past them so
    far (:data:`PROBES`, in the learnt order, one search each); then the rest grouped by
    their holes in every group but the one the search leaves open (on the weekday
    calendar: by day and weekday, the month open), one search a group, which ends once it
    has found them all. Once a date fails, only the dates before it in the learnt order
    are searched further (a group searched to the end names all of its dates without a
    solution), until none earlier is left: the first failure in that order."""
    session = compiled.session
    failed = front_failure(design, compiled, out, areas)
    if failed is not None:
        return failed
    _, groups = _plan(design, compiled)
    position = {i: k for k, i in enumerate(design._order)}
    seen = Counter(dict.copy(design._late))  # (one step: the counter may grow in a thread)
    probes = sorted((i for i, _ in seen.most_common(PROBES) if i not in design._front),
                    key=position.__getitem__)
    answers = session.reach(out, [(compiled.holes[i], [compiled.holes[i]]) for i in probes],
                            areas=areas, first_failure=True)
    first = next((i for i, [ok] in zip(probes, answers) if ok is False), None)
    if first is not None:
        groups = _before(groups, first, position, {})
    while groups:
        tasks = [(held, [compiled.holes[i] for i in members]) for held, members in groups]
        found = session.reach(out, tasks, areas=areas, first_failure=True)
        answered = {i: ok for (_, members), oks in zip(groups, found)
                    for i, ok in zip(members, oks)}
        failing = [i for i, ok in answered.items() if ok is False]
        if failing:
            first = min(failing, key=position.__getitem__)
        if first is None:
            return None
        groups = _before(groups, first, position, answered)
    if first is not None:
        design._late[first] += 1
    return first


def _before(groups: list[tuple[tuple[int, ...], list[int]]], first: int,
            position: dict[int, int], answered: dict[int, bool | None]
            ) -> list[tuple[tuple[int, ...], list[int]]]:
    """The groups cut to their dates not answered that come before ``first``."""
    return [(held, kept) for held, members in groups
            if (kept := [i for i in members if answered.get(i) is None
                         and position[i] < position[first]])]


def front_failure(design: Design, compiled: _Compiled, out: Sequence[int],
                  areas: Sequence[int]) -> int | None:
    """The first of the combinations that rejected a set while the order was learnt (the
    head of the learnt order) with no solution, one first-solution search each, or None:
    where :func:`first_failure` starts, and where most failing sets fail."""
    front, _ = _plan(design, compiled)
    singles = [(compiled.holes[i], [compiled.holes[i]]) for i in front]
    answers = compiled.session.reach(out, singles, areas=areas, first_failure=True)
    return next((i for i, [ok] in zip(front, answers) if ok is False), None)


def _plan(design: Design, compiled: _Compiled
          ) -> tuple[list[int], list[tuple[tuple[int, ...], list[int]]]]:
    """How :func:`first_failure` asks: the combinations searched one by one (those
    that rejected a set while the order was learnt), and the rest grouped by their holes
    but the one the search leaves open (``EngineSession.reach_left_open``), in the learnt
    order."""
    left_open = compiled.session.reach_left_open
    key = (tuple(design._order), left_open)
    if design._plan is None or design._plan[0] != key:
        front = [i for i in design._order if i in design._front]
        groups: dict[tuple[int, ...], list[int]] = {}
        for i in design._order:
            if i not in design._front:
                held = tuple(o for o in compiled.holes[i] if o not in left_open)
                groups.setdefault(held, []).append(i)
        design._plan = (key, front, list(groups.items()))
    return design._plan[1], design._plan[2]
