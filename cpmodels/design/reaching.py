"""How a design decides a set with the engine's reach search (``EngineSession.reach``):
the dates that rejected a set while the order was learnt one by one, then one search for
each choice of holes of the groups the search's scan meets first, the last group's hole
left open (``docs/design.md`` has the strategies measured)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

PROBES = 8  # the commonest first failures past the front, tried before the groups

if TYPE_CHECKING:
    from cpmodels.backends.engine import EngineSession

Holes = Sequence[tuple[int, ...]]  # per required combination, the options of its holes
Groups = list[tuple[tuple[int, ...], list[int]]]  # holes held -> the combinations with them


@dataclass
class LearntOrder:
    """The order in which a design tries its required combinations (indices), as learnt
    from the sets decided first."""

    order: list[int]  # every required combination, most rejecting first
    front: set[int] = field(default_factory=set)  # those that rejected a set while the
    # order was learnt
    late: Counter[int] = field(default_factory=Counter)  # first failures past the front,
    # in this process: the reach search tries the commonest first
    plan: tuple[tuple[tuple[int, ...], frozenset[int]], list[int], Groups] | None = None
    # the order and the options left open -> how the reach search asks

    def move_to_front(self, index: int) -> None:
        """The next set tries combination ``index`` first."""
        self.order.remove(index)
        self.order.insert(0, index)
        self.front.add(index)


def first_failure(learnt: LearntOrder, session: EngineSession, holes: Holes,
                  out: Sequence[int], areas: Sequence[int]) -> int | None:
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
    failed = front_failure(learnt, session, holes, out, areas)
    if failed is not None:
        return failed
    _, groups = _plan(learnt, session, holes)
    position = {i: k for k, i in enumerate(learnt.order)}
    seen = Counter(dict.copy(learnt.late))  # (one step: the counter may grow in a thread)
    probes = sorted((i for i, _ in seen.most_common(PROBES) if i not in learnt.front),
                    key=position.__getitem__)
    answers = session.reach(out, [(holes[i], [holes[i]]) for i in probes],
                            areas=areas, first_failure=True)
    first = next((i for i, [ok] in zip(probes, answers) if ok is False), None)
    if first is not None:
        groups = _before(groups, first, position, {})
    while groups:
        tasks = [(held, [holes[i] for i in members]) for held, members in groups]
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
        learnt.late[first] += 1
    return first


def _before(groups: Groups, first: int, position: dict[int, int],
            answered: dict[int, bool | None]) -> Groups:
    """The groups cut to their dates not answered that come before ``first``."""
    return [(held, kept) for held, members in groups
            if (kept := [i for i in members if answered.get(i) is None
                         and position[i] < position[first]])]


def front_failure(learnt: LearntOrder, session: EngineSession, holes: Holes,
                  out: Sequence[int], areas: Sequence[int]) -> int | None:
    """The first of the combinations that rejected a set while the order was learnt (the
    head of the learnt order) with no solution, one first-solution search each, or None:
    where :func:`first_failure` starts, and where most failing sets fail."""
    front, _ = _plan(learnt, session, holes)
    singles = [(holes[i], [holes[i]]) for i in front]
    answers = session.reach(out, singles, areas=areas, first_failure=True)
    return next((i for i, [ok] in zip(front, answers) if ok is False), None)


def _plan(learnt: LearntOrder, session: EngineSession, holes: Holes
          ) -> tuple[list[int], Groups]:
    """How :func:`first_failure` asks: the combinations searched one by one (those
    that rejected a set while the order was learnt), and the rest grouped by their holes
    but the one the search leaves open (``EngineSession.reach_left_open``), in the learnt
    order."""
    left_open = session.reach_left_open
    key = (tuple(learnt.order), left_open)
    if learnt.plan is None or learnt.plan[0] != key:
        front = [i for i in learnt.order if i in learnt.front]
        groups: dict[tuple[int, ...], list[int]] = {}
        for i in learnt.order:
            if i not in learnt.front:
                held = tuple(o for o in holes[i] if o not in left_open)
                groups.setdefault(held, []).append(i)
        learnt.plan = (key, front, list(groups.items()))
    return learnt.plan[1], learnt.plan[2]
