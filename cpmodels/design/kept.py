"""A design's file of verdicts read back: the question it answers, the verdicts a run
keeps of it (``design --resume``), and a working set taken from its ranking
(``make --set N --verdicts FILE``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from cpmodels import questions
from cpmodels.design.search import Design, run_design
from cpmodels.design.verdicts import Verdict, ranked, verdict_lines
from cpmodels.errors import InputError
from cpmodels.questions import Question
from cpmodels.spec.loading import load_board, load_design
from cpmodels.spec.models import CalendarSpec


def design_question(design: Design, *, counts: bool | None = None,
                    difficulty: bool | None = None) -> Question:
    """The question ``design`` asks (its own options, or ``counts`` and ``difficulty``)."""
    board = design.set_spec(range(len(design.pieces)))
    return questions.design_question(
        board, design.spec.name, fixed=len(design.spec.fixed),
        draws=[(indices, [draw.counts.start, draw.counts.stop - 1])  # 7 is [7, 7]
               for indices, draw in zip(design.draws, design.spec.choose)],
        required=design.required, face_up=design.spec.face_up,
        counts=design.with_counts if counts is None else counts,
        difficulty=design.with_difficulty if difficulty is None else difficulty)


def fits(verdict: Verdict, design: Design) -> bool:
    """Whether ``verdict`` is one ``design`` can make (its pieces given as their names):
    a failure names a required combination and holds nothing more; a working set holds its
    counts when counted, its sides when face up, its difficulty when measured, and nothing
    the question does not ask for."""
    required = set(design.required)
    if not verdict.works:
        return (verdict.first_failure in required and verdict.face_up_sides is None
                and all(value is None for value in (
                    verdict.min, verdict.argmin, verdict.max, verdict.total,
                    verdict.difficulty, verdict.difficulty_argmax, verdict.difficulty_mean)))
    counts = (verdict.min, verdict.argmin, verdict.max, verdict.total)
    if design.with_counts:
        if not (verdict.argmin in required and None not in counts
                and 1 <= verdict.min <= verdict.max <= verdict.total):  # type: ignore[operator]
            return False
    elif any(value is not None for value in counts):
        return False
    measured = (verdict.difficulty, verdict.difficulty_argmax, verdict.difficulty_mean)
    if design.with_difficulty != (verdict.difficulty_argmax in required
                                  and None not in measured):
        return False
    return (verdict.first_failure is None
            and (verdict.face_up_sides is not None) == design.spec.face_up
            and (design.with_difficulty or all(value is None for value in measured)))


def kept_verdicts(path: Path, question: Question,
                  design: Design) -> tuple[dict[tuple[str, ...], Verdict], int]:
    """What ``design --resume`` keeps of ``path``: the verdicts (by their pieces, in
    candidate order) of candidate sets of ``design`` (named as :meth:`Design.names` names
    them) that fit its question (:func:`fits`) and appear once; and how many lines are
    left out, to be decided again. A file of another question, or with a line that is no
    verdict, is refused (:class:`InputError`)."""
    found = verdict_lines(path, question)
    times: dict[tuple[str, ...], int] = {}
    for verdict in found:
        times[tuple(verdict.pieces)] = times.get(tuple(verdict.pieces), 0) + 1
    usable = {tuple(v.pieces): v for v in found
              if times[tuple(v.pieces)] == 1 and fits(v, design)}
    kept = {}
    if usable:
        for chosen in design.candidates():
            names = tuple(design.names(chosen))
            if names in usable:
                kept[names] = usable[names]
    return kept, len(found) - len(kept)


def verdicts_to_rank(path: Path, design: Design) -> list[Verdict]:
    """The verdicts a ``design --out`` run of ``design`` wrote to ``path``, to rank: refused
    when they answer another design's question, when they were not counted, or when a line
    is not a verdict the design makes (:func:`kept_verdicts`: ``design --resume`` decides
    such lines again)."""
    again = "give the verdicts of this design, as design --out wrote them"
    variants = [design_question(design, counts=counts, difficulty=difficulty)
                for counts in (True, False) for difficulty in (False, True)]
    found = questions.check_question(path, variants, again)
    if found is None:
        raise InputError(f"{path} holds no verdicts yet; {again}")
    if found in variants[2:]:
        raise InputError(f"the verdicts in {path} were written with --no-counts and cannot "
                         "rank the sets: run design without --no-counts")
    asked = replace(design, with_counts=True, with_difficulty=found == variants[1])
    kept, left_out = kept_verdicts(path, found, asked)
    if left_out:
        raise InputError(f"{left_out:,} line(s) of {path} are not verdicts this design makes "
                         f"(damaged, repeated or of other sets): run design --resume --out "
                         f"{path} to decide them again")
    return list(kept.values())


def working_set(path: str | Path, n: int, *, verdicts: Path | None = None,
                jobs: int | None = None,
                on_verdict: Callable[[Verdict], None] | None = None) -> CalendarSpec:
    """The calendar spec of the ``n``-th working set (from 1) of a design file's ranking,
    its name ``DESIGN_setN``: from the verdicts a ``design --out`` run wrote to
    ``verdicts``, or else from deciding every set now (``jobs``, ``on_verdict`` as for
    :func:`run_design`)."""
    spec = load_design(path)
    design = Design(spec, load_board(spec, path))
    if n < 1:
        raise InputError(f"--set {n}: sets are numbered from 1, as the design ranks them")
    if verdicts is not None:
        if not os.path.lexists(verdicts):
            raise InputError(f"no verdicts at {verdicts} (cpmodels design --out writes them)")
        found = verdicts_to_rank(verdicts, design)
    else:
        found = run_design(design, on_verdict=on_verdict, jobs=jobs)
    working = ranked(found)
    if n > len(working):
        raise InputError(f"--set {n}: {spec.name} has {len(working)} working set"
                         f"{'s' if len(working) != 1 else ''}")
    index: dict[str, int] = {}
    for i, piece in enumerate(design.pieces):
        index.setdefault(piece.name, i)
    names = working[n - 1].pieces
    if any(name not in index for name in names):
        raise InputError(f"the verdicts in {verdicts} are not of {spec.name}: they name "
                         "pieces it does not have")
    chosen = design.set_spec([index[name] for name in names])
    return chosen.model_copy(update={"name": f"{spec.name}_set{n}", "description":
                                     f"set {n} of {spec.name}: {' '.join(names)}"})
