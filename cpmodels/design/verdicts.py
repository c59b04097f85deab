"""A design's verdicts: what each candidate set does, ranked, reported and read back."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cpmodels import questions
from cpmodels.errors import InputError
from cpmodels.files import load_json
from cpmodels.questions import Question

MIRRORED_MARK = "~"  # after a piece's name in a verdict's JSON: its mirrored side is up


@dataclass(frozen=True)
class Side:
    """Which side of a piece is up when pieces stay face up: as drawn, or ``mirrored``
    (turned over)."""

    piece: str
    mirrored: bool = False

    def text(self) -> str:
        """The side as a verdict's JSON writes it: the name, ``NAME~`` when mirrored."""
        return self.piece + MIRRORED_MARK if self.mirrored else self.piece

    @classmethod
    def of_text(cls, text: str, piece: str) -> Side:
        """``piece``'s side that :meth:`text` wrote as ``text`` (``ValueError`` when it is
        neither side: a name may itself end in the mark, so the piece tells)."""
        for side in (cls(piece), cls(piece, mirrored=True)):
            if side.text() == text:
                return side
        raise ValueError(f"{text!r} is no side of {piece!r}")


@dataclass
class Verdict:
    """What a candidate set does on the required dates."""

    pieces: list[str]
    works: bool
    first_failure: tuple[str, ...] | None = None
    min: int | None = None
    argmin: tuple[str, ...] | None = None
    max: int | None = None
    total: int | None = None
    face_up_sides: list[Side] | None = None  # face up: the sides that work, one a piece
    difficulty: int | None = None  # the highest difficulty of a required date
    difficulty_argmax: tuple[str, ...] | None = None  # ... on this combination
    difficulty_mean: int | None = None  # the mean difficulty over the required dates

    def as_dict(self) -> dict[str, Any]:
        out = {"pieces": self.pieces, "works": self.works,
               "first_failure": list(self.first_failure) if self.first_failure else None,
               "min": self.min, "argmin": list(self.argmin) if self.argmin else None,
               "max": self.max, "total": self.total}
        if self.face_up_sides is not None:
            out["face_up_sides"] = [side.text() for side in self.face_up_sides]
        if self.difficulty is not None:
            out["difficulty"] = self.difficulty
            out["difficulty_argmax"] = list(self.difficulty_argmax or ())
            out["difficulty_mean"] = self.difficulty_mean
        return out

    @classmethod
    def from_dict(cls, record: dict[str, Any]) -> Verdict:
        """A verdict from its JSON line (``as_dict``); ``ValueError`` when it is none."""
        try:
            pieces = record["pieces"]
            if not isinstance(pieces, list) or not all(isinstance(p, str) for p in pieces) \
                    or not isinstance(record["works"], bool):
                raise ValueError("not a verdict")
            for key in ("min", "max", "total", "difficulty", "difficulty_mean"):
                value = record.get(key)
                if value is not None and not (type(value) is int and 0 <= value < 2**63):
                    raise ValueError(f"{key} is not a count")
            return cls(**{**record, "first_failure": _labels(record["first_failure"]),
                          "argmin": _labels(record["argmin"]),
                          "difficulty_argmax": _labels(record.get("difficulty_argmax")),
                          "face_up_sides": _sides(record.get("face_up_sides"), pieces)})
        except (KeyError, TypeError) as exc:
            raise ValueError("not a verdict") from exc


def _labels(value: Any) -> tuple[str, ...] | None:
    return tuple(value) if value is not None else None


def _sides(value: Any, pieces: list[str]) -> list[Side] | None:
    """The sides a verdict line names, one for each of its pieces, in order."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != len(pieces):
        raise ValueError("not a side for each piece")
    return [Side.of_text(text, piece) for text, piece in zip(value, pieces)]


def ranked(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """The sets that solve every required date, best first: the most solutions on their
    hardest date, then the most in all."""
    return sorted((v for v in verdicts if v.works),
                  key=lambda v: (-(v.min or 0), -(v.total or 0), v.pieces))


def ranked_by_difficulty(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """The working sets with difficulties, gentlest first: the lowest difficulty on their
    hardest date, then the lowest mean."""
    return sorted((v for v in verdicts if v.works and v.difficulty is not None),
                  key=lambda v: (v.difficulty, v.difficulty_mean, v.pieces))


def summary(verdicts: Sequence[Verdict], seconds: float, skipped: int = 0) -> dict[str, Any]:
    """``design --format json``: the candidates, the working sets ranked (and ranked by
    difficulty, when measured), the time."""
    def brief(w: Verdict) -> dict[str, Any]:
        return {k: v for k, v in w.as_dict().items() if k not in ("works", "first_failure")}

    out: dict[str, Any] = {"candidates": len(verdicts), "seconds": round(seconds, 3),
                           "working": [brief(w) for w in ranked(verdicts)]}
    if skipped:
        out["skipped_as_equal"] = skipped
    by_difficulty = ranked_by_difficulty(verdicts)
    if by_difficulty:
        out["by_difficulty"] = [brief(w) for w in by_difficulty]
    return out


def verdict_lines(path: Path, question: Question) -> list[Verdict]:
    """Every verdict an earlier run that asked ``question`` wrote to ``path`` (JSON lines
    after the question's), in file order. The whole file is read, and refused when it asked
    another question or holds a line that is no verdict, before anything is changed (a last
    line a killed run cut is not read)."""
    if questions.check_question(path, [question], "give another --out") is None:
        return []
    found = []
    lines = questions.lines_after_question(path, "file of design verdicts")
    with contextlib.closing(lines):
        for number, line in enumerate(lines, 2):
            try:
                found.append(Verdict.from_dict(load_json(line, f"line {number}")))
            except (ValueError, TypeError, KeyError, AttributeError):
                raise InputError(f"{path}: line {number} is no design verdict; give another "
                                 "--out") from None
    return found


Table = tuple[str, list[str], list[list[str]]]  # a title, the column heads, the rows


def ranking_tables(verdicts: Sequence[Verdict]) -> list[Table]:
    """The ranked tables of the sets that work: by the fewest solutions of a required
    combination (when counted), and by the difficulty of the hardest (when measured); a
    plain list of the sets when neither was asked for."""
    working = ranked(verdicts)
    by_difficulty = ranked_by_difficulty(verdicts)
    tables: list[Table] = []
    counted = [w for w in working if w.min is not None]
    if counted:
        tables.append(("ranked by the fewest solutions of a required combination, most first",
                       ["pieces", "fewest", "on", "most", "total"],
                       [[" ".join(w.pieces), f"{w.min:,}", " ".join(w.argmin or ()),
                         f"{w.max or 0:,}", f"{w.total or 0:,}"] for w in counted]))
    elif working and not by_difficulty:
        tables.append(("sets that work", ["pieces"], [[" ".join(w.pieces)] for w in working]))
    if by_difficulty:
        tables.append(("ranked by the difficulty of the hardest combination, gentlest first",
                       ["pieces", "hardest", "on", "mean"],
                       [[" ".join(w.pieces), f"{w.difficulty:,}",
                         " ".join(w.difficulty_argmax or ()), f"{w.difficulty_mean or 0:,}"]
                        for w in by_difficulty]))
    return tables


def tables_text(tables: Sequence[Table]) -> list[str]:
    """The tables as aligned text lines (pieces left, figures right)."""
    lines = []
    for title, heads, rows in tables:
        lines.append(f"{title}:")
        widths = [max(len(x) for x in column) for column in zip(heads, *rows)]
        lines += ["  ".join(x.ljust(w) if k == 0 else x.rjust(w)
                            for k, (x, w) in enumerate(zip(row, widths))).rstrip()
                  for row in [heads, *rows]]
    return lines


