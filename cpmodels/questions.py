"""What a resumable or re-read file answers: its *question*, named on its first line.

A sweep's CSV and a design's verdicts are continued by ``--resume`` and read back (``make
--verdicts``, ``SweepResult.read_csv``); a row is only worth keeping when it answers the
question asked now. Each such file opens with a question line: a hash of the question as
compiled (the board's cells, labels and groups, the pieces with their orientations, face
up, and the options that change what a row holds) and the question in words. A CSV starts

    # cpmodels sweep rows, question 1a2b3c4d5e6f7a8b: spec calendar_week, face up

(then its column line; ``pandas.read_csv(path, comment="#")`` reads it), and JSON lines
start with one record ``{"cpmodels": "design verdicts", "question": "...", "about": "..."}``.
Every writer and reader takes the question from here; a file whose question is another, or
that has none (an older version's, or written by hand), is refused before anything in it is
used or changed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cpmodels.errors import InputError
from cpmodels.files import MAX_LINE_BYTES, load_json, open_input, read_lines

if TYPE_CHECKING:
    from cpmodels.cover import ExactCover, PieceKind
    from cpmodels.spec.calendar import CalendarSpec
    from cpmodels.spec.kinds import CalendarKind

SWEEP_ROWS = "sweep rows"
DESIGN_VERDICTS = "design verdicts"
SOLUTIONS = "enumerate solutions"
KINDS = (SWEEP_ROWS, DESIGN_VERDICTS, SOLUTIONS)
DIFFERS = {SWEEP_ROWS: "board or pieces",
           DESIGN_VERDICTS: "board, pieces, draws or required combinations",
           SOLUTIONS: "board, pieces or their placements"}  # what the words do not name
CSV_MARK = "# cpmodels "  # a CSV's question line starts so
HASH_DIGITS = 16


@dataclass(frozen=True)
class Question:
    """A file's question: its ``kind`` (:data:`KINDS`), the hash of the question as compiled
    (``id``) and the question in words (``about``), which the hash alone decides."""

    kind: str
    id: str
    about: str

    def csv_line(self) -> str:
        """The question line of a CSV file (without its newline)."""
        return f"{CSV_MARK}{self.kind}, question {self.id}: {self.about}"

    def json_line(self) -> str:
        """The first record of a JSON-lines file (without its newline)."""
        return json.dumps({"cpmodels": self.kind, "question": self.id, "about": self.about})

    def line(self) -> str:
        """The question line this kind of file starts with."""
        return self.csv_line() if self.kind == SWEEP_ROWS else self.json_line()


def question_of(kind: str, about: str, parts: Any) -> Question:
    """The question of ``kind`` whose compiled form is ``parts`` (JSON-able)."""
    text = json.dumps([kind, parts], sort_keys=True, separators=(",", ":"))
    return Question(kind, hashlib.sha256(text.encode()).hexdigest()[:HASH_DIGITS], about)


def _cells(cells: Any) -> list[list[int]]:
    return sorted(list(cell) for cell in cells)


def piece_parts(kinds: Sequence[PieceKind]) -> list[Any]:
    """Pieces as a cover compiles them: name, copies, every orientation's cells."""
    return [[kind.name, kind.count, kind.low, sorted(_cells(o) for o in kind.orientations)]
            for kind in kinds]


def board_parts(spec: CalendarKind) -> dict[str, Any]:
    """A calendar board as compiled: its grid and cells, its label groups in order, each
    label's cell, and which combinations are real dates."""
    return {"grid": spec.grid, "cells": _cells(spec.cells),
            "groups": [[group, list(labels)] for group, labels in spec.groups.items()],
            "label_cells": sorted([label, list(cell)]
                                  for label, cell in spec.label_cells.items()),
            "real_dates": [list(combo) for combo in spec.label_combinations()
                           if spec.real_date(combo) is not None]}


def options_text(name: str, **options: bool) -> str:
    """A question in words: the spec's name, then the options that are on."""
    return ", ".join([name, *(word.replace("_", " ") for word, on in options.items() if on)])


def sweep_question(spec: CalendarKind, *, face_up: bool = False, prove: bool = False,
                   difficulty: bool = False) -> Question:
    """What a sweep of ``spec`` with these options counts (face up when asked, or when no
    piece of ``spec`` may be turned over: the same question)."""
    face_up = face_up or not spec.can_flip
    return question_of(SWEEP_ROWS, options_text(f"spec {spec.name}", face_up=face_up,
                                                with_proofs=prove, difficulty=difficulty),
                       {"board": board_parts(spec),
                        "pieces": piece_parts(spec.piece_kinds(face_up=face_up)),
                        "face_up": face_up, "prove": prove, "difficulty": difficulty})


def _parsed(line: str) -> Question | None:
    """The question a first line names, or None when it is no question line."""
    line = line.rstrip("\r\n")
    if line.startswith(CSV_MARK):
        head, _, about = line[len(CSV_MARK):].partition(": ")
        kind, _, rest = head.partition(", question ")
        return Question(kind, rest, about) if kind in KINDS and rest else None
    try:
        record = load_json(line, "the first line")
    except json.JSONDecodeError:
        return None
    if not (isinstance(record, dict) and record.get("cpmodels") in KINDS
            and isinstance(record.get("question"), str)
            and isinstance(record.get("about", ""), str)):
        return None
    return Question(record["cpmodels"], record["question"], record.get("about", ""))


def _cut_start(path: Path, wanted: Sequence[Question]) -> bool:
    """Whether ``path`` holds no complete line and what it holds is the start of a question
    line wanted (a run killed as it began): nothing in it to keep."""
    size = max(len(q.line().encode()) for q in wanted) + 1
    with open_input(path, MAX_LINE_BYTES, "resumable output") as handle:
        data = handle.read(size)
    return not data or any(q.line().encode().startswith(data) for q in wanted)


def check_question(path: Path, wanted: Sequence[Question], again: str,
                   ) -> Question | None:
    """The question of the file ``path`` (the first line of ``wanted`` it matches), or None
    when there is nothing to keep (no file, an empty one, or one cut in its question line).
    Any other file is an :class:`InputError` of one line, ``again`` saying what to do: one
    of another question (both named), of another kind, or with no question line. Nothing
    is read past the first line, nothing is changed."""
    if not os.path.lexists(path):
        return None
    kind = wanted[0].kind
    lines = read_lines(path, f"file of {kind}")
    try:
        first = next(lines, None)
    finally:
        lines.close()
    if first is None:
        if _cut_start(path, wanted):
            return None
        raise InputError(f"{path} is no file of {kind}: it has no question line; {again}")
    found = _parsed(first)
    if found is None:
        raise InputError(f"{path} has no question line (a file of {kind} starts with one; "
                         f"an older version's or another program's file has none); {again}")
    if found.kind != kind:
        raise InputError(f"{path} holds {found.kind}, not {kind}; {again}")
    for question in wanted:
        if question.id == found.id:
            return question
    differs = (f", its {DIFFERS[kind]} differ" if found.about == wanted[0].about
               else "")  # the words name the options: what else differs is not in them
    raise InputError(f"{path} answers another question ({found.about or found.id}) than "
                     f"this run ({wanted[0].about}){differs}; {again}")


def lines_after_question(path: Path, what: str, *, strict: bool = True) -> Any:
    """The complete lines of ``path`` after its question line (checked first with
    :func:`check_question`); ``strict`` as for :func:`~cpmodels.files.read_lines`."""
    lines = read_lines(path, what, strict=strict)
    next(lines, None)
    return lines


def design_question(board: CalendarSpec, name: str, *, fixed: int,
                    draws: Sequence[tuple[Sequence[int], Any]],
                    required: Sequence[Sequence[str]], face_up: bool, counts: bool,
                    difficulty: bool) -> Question:
    """What a design asks of its candidate sets: ``board`` holds every piece a set may
    have (the ``fixed`` first, then each draw's pieces by index with how many it takes),
    ``required`` the combinations each set must solve; whether face up too, and whether
    each working set's solutions are counted and its difficulty measured."""
    return question_of(DESIGN_VERDICTS, options_text(
        f"design {name}", face_up=face_up, no_counts=not counts, difficulty=difficulty),
        {"board": board_parts(board), "pieces": piece_parts(board.piece_kinds()),
         "fixed": fixed, "draws": [[list(indices), count] for indices, count in draws],
         "required": [list(combo) for combo in required], "face_up": face_up,
         "counts": counts, "difficulty": difficulty})


def solutions_question(cover: ExactCover, about: str, backend: str) -> Question:
    """What ``enumerate`` writes: the solutions of ``cover`` in the order ``backend`` finds
    them (the order a resumed run skips the written ones in)."""
    return question_of(SOLUTIONS, f"{about}, backend {backend}", {
        "grid": cover.grid,
        "items": [[item.name, item.low, item.high, int(item.kind)] for item in cover.items],
        "options": [[list(option), placement.piece, _cells(placement.cells),
                     int(placement.kind)]
                    for option, placement in zip(cover.options, cover.placements)],
        "backend": backend})
