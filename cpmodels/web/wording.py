"""Every error the server answers, said for a person: :func:`plain` makes the ``"message"``
the pages show from the exception, beside the precise ``"error"`` that programs and the
command line read (which names the field path and the ``--option``).

A board's validation problem is worded by what its field is to a person ("Piece 2 is not
connected: its cells must touch side to side.", "The board has no pieces yet: add at least
one piece."), a request's by what the field holds and how to give it, a make option's
without its command-line spelling; any other message is made a sentence with no
``--option`` in it. Each answer is one or more whole sentences, never a field path, a
validator's phrase or an exception's name.
"""

from __future__ import annotations

import re

from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from cpmodels.errors import CpmodelsError, OptionError, SpecError

MAX_PROBLEMS = 4  # a board's problems said in one message; the rest counted
PLANE_GRIDS = "The grid must be 'square', 'triangle' or 'hex'."  # the grids the editor draws

# What a request's field holds, to a person, and how to give it (the field is the innermost
# name of the error's place: ``cells`` for ``placements.0.cells.1``).
REQUEST_FIELDS: dict[str, tuple[str, str]] = {
    "spec": ("The puzzle", "choose one of the puzzles listed"),
    "date": ("The date", "give a real date written YYYY-MM-DD, such as 2026-12-25"),
    "labels": ("The labels", "choose one label of each group"),
    "face_up": ("Pieces face up", "it is either on or off"),
    "index": ("The solution's number", "solutions are numbered 1, 2, 3 and on"),
    "revealed": ("The pieces shown", "each is a piece's name and the cells it covers, at "
                                     "most 64 pieces"),
    "placements": ("The pieces on the board", "each is a piece's name and the cells it "
                                              "covers, at most 64 pieces"),
    "piece": ("A piece's name", "it is the name of one of the puzzle's pieces"),
    "cells": ("A piece's cells", "each is a row and a column, in whole numbers"),
    "cell": ("The cell size", "give the side of a cell in millimetres, such as 20"),
    "kerf": ("The kerf", "give the laser's kerf in millimetres, such as 0.15"),
    "clearance": ("The clearance", "give the play between pieces in millimetres, such as "
                                   "0.2"),
    "thickness": ("The thickness", "give the material's thickness in millimetres, such "
                                   "as 4"),
    "sheet": ("The sheet size", "give its width and height in millimetres as WIDTHxHEIGHT, "
                                "such as 600x400"),
}
# What a value of a validator's kind of error should be (by the kind's first word).
KIND_WORDS: dict[str, str] = {
    "int": "a whole number", "float": "a number", "decimal": "a number",
    "bool": "true or false", "string": "text", "str": "text", "list": "a list",
    "tuple": "a list", "set": "a list", "dict": "named fields", "model": "named fields",
    "date": "a date written YYYY-MM-DD",
}
# A board's fields to a person, by their place in the spec (``pieces.3`` is "Piece 4").
BOARD_FIELDS: dict[str, str] = {
    "pieces": "The pieces", "groups": "The label groups", "board": "The board",
    "name": "The board's name", "grid": "The grid", "flip": "Turning pieces over",
    "rotate": "Turning pieces", "kind": "The kind of puzzle",
    "description": "The description", "always": "The pieces marked always",
    "fixed": "The pieces marked always", "choose": "The number of pieces to choose",
    "require": "What every set must solve",
}
PIECE_FIELDS = {"shape": "shape", "cells": "cells", "name": "name", "count": "count"}
# What an empty field of a board means, said as the next thing to do.
EMPTY: dict[str, str] = {
    "pieces": "The board has no pieces yet: add at least one piece.",
    "groups": "The board has no label groups yet: add a group and label cells with it.",
    "board": "The board has no cells yet: put cells on the board.",
}
# Command-line phrases in a message that comes from ``cpmodels make``, as a page says them
# (then any ``--option`` left is said as its bare name, :data:`OPTION`).
CLI_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"at --cell (\S+?)\)"), r"with \1 mm cells)"),
    (re.compile(r"give a smaller --cell or a larger --sheet"),
     "give a smaller cell size or a larger sheet"),
    (re.compile(r"give --font a TTF or OTF file that has them"),
     "use other labels, or make the files on the command line with a font that has them"),
)
OPTION = re.compile(r"(?<![\w-])--([a-z][a-z-]*)")
GOT = re.compile(r"\s*\(got .*\)$", re.S)  # the value a validator quotes back
FIELD_PREFIX = re.compile(r"^(?:[A-Za-z_]+(?:\[\d+\])*(?:\.[A-Za-z_]+(?:\[\d+\])*)*: )+")


def plain(exc: BaseException) -> str:
    """What went wrong, in one or more sentences for a person."""
    if isinstance(exc, RequestValidationError):
        return _request(exc)
    if isinstance(exc, SpecError):
        sentences = list(dict.fromkeys(problem_sentence(p) for p in exc.problems))
        more = len(sentences) - MAX_PROBLEMS
        said = " ".join(sentences[:MAX_PROBLEMS])
        return said + (f" And {more} more problem{'s' * (more > 1)} after these."
                       if more > 0 else "")
    if isinstance(exc, OptionError):
        return sentence(f"{exc.rule}, not {exc.value}")
    if isinstance(exc, StarletteHTTPException):
        return plain_text(str(exc.detail))
    if isinstance(exc, CpmodelsError):
        return plain_text(str(exc))
    return "Something went wrong on the server (it has been logged); try again in a moment."


def plain_text(text: str) -> str:
    """A message as a page says it: its leading field path dropped, command-line options
    in words, one sentence (or more) with a capital and a full stop."""
    text = FIELD_PREFIX.sub("", " ".join(str(text).split()))
    for pattern, said in CLI_PHRASES:
        text = pattern.sub(said, text)
    return sentence(OPTION.sub(lambda m: m[1].replace("-", " "), text))


def sentence(text: str) -> str:
    """``text`` with a capital first letter and a full stop."""
    text = text.strip().rstrip(";,: ")
    if not text:
        return "Something went wrong; try again."
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


def problem_sentence(problem: SpecError) -> str:
    """One problem of a board (or of a design question about it) as a sentence."""
    path = problem.path if problem.path is not None else _parsed(problem.field)
    kind, context = problem.kind, problem.context
    reason = GOT.sub("", problem.reason).strip()
    where = place(path)
    if kind in ("too_short", "missing") and len(path) == 1 and path[0] in EMPTY:
        return EMPTY[str(path[0])]
    if kind == "missing":
        return sentence(f"{where} is missing")
    if kind == "extra_forbidden":
        return sentence(f"{place(path[:-1])} has {str(path[-1])[:40]!r}, which a board does "
                        "not take")
    if kind in ("too_short", "string_too_short"):
        least = context.get("min_length", 1)
        return sentence(f"{where} is empty" if least == 1 else
                        f"{where} needs at least {least}")
    if kind == "too_long":
        return sentence(f"{where} has too many: at most {context.get('max_length')}")
    if kind == "string_too_long":
        return sentence(f"{where} is too long: at most {context.get('max_length')} "
                        "characters")
    if kind == "string_pattern_mismatch":
        return sentence(f"{where} must be one word, with no spaces, '/' or '#'")
    bound = {"greater_than_equal": ("at least", "ge"), "greater_than": ("more than", "gt"),
             "less_than_equal": ("at most", "le"), "less_than": ("less than", "lt")}
    if kind in bound:
        words, key = bound[kind]
        return sentence(f"{where} must be {words} {context.get(key)}")
    if kind in ("literal_error", "enum") and tuple(path) == ("grid",):
        return PLANE_GRIDS  # (a board is drawn in the plane: the cube grid is no board's)
    if kind in ("literal_error", "enum"):
        return sentence(f"{where} must be {context.get('expected', 'one of those offered')}")
    if kind is not None and kind not in ("value_error", "assertion_error"):
        first = kind.split("_")[0]
        return sentence(f"{where} must be {KIND_WORDS[first]}" if first in KIND_WORDS
                        else f"{where} is not valid")
    if reason.startswith("the piece is not connected"):
        return sentence(f"{place(path[:2])} is not connected: its cells must touch side to "
                        "side")
    reason = FIELD_PREFIX.sub("", reason)
    return sentence(f"{where}: {reason}" if len(path) > 1 else reason)


def place(path: tuple[str | int, ...]) -> str:
    """A field of a board by what it is to a person: ``("pieces", 1, "shape")`` is "Piece
    2's shape", ``("board", 0)`` "Row 1 of the board"."""
    if not path:
        return "The board"
    head, rest = str(path[0]), path[1:]
    if head in ("pieces", "fixed", "pool") and rest and isinstance(rest[0], int):
        piece = f"Piece {rest[0] + 1}"
        names = [str(k) for k in rest[1:] if isinstance(k, str)]
        return f"{piece}'s {PIECE_FIELDS.get(names[0], names[0].replace('_', ' '))}" \
            if names else piece
    if head == "choose":
        return "The candidates" if "pool" in rest else BOARD_FIELDS["choose"]
    if head == "board" and rest and isinstance(rest[0], int):
        return f"Row {rest[0] + 1} of the board"
    if head == "groups" and rest:
        group = f'the group "{str(rest[0])[:40]}"'
        if len(rest) > 1 and isinstance(rest[1], int):
            return f"Label {rest[1] + 1} of {group}"
        return group[0].upper() + group[1:]
    return BOARD_FIELDS.get(head, f"The board's {head.replace('_', ' ')[:40]}")


def _parsed(field: str | None) -> tuple[str | int, ...]:
    """A field path as a spec error writes it (``pieces[0].shape``), as names and indexes."""
    if not field:
        return ()
    return tuple(int(part) if part.isdigit() else part
                 for part in re.findall(r"[^.\[\]]+", field))


def _request(exc: RequestValidationError) -> str:
    """A request's validation errors as sentences, one per field."""
    said: list[str] = []
    for error in exc.errors():
        if error["type"] == "json_invalid":
            return "The request could not be read: it is not valid JSON."
        loc = tuple(error["loc"])
        if loc and loc[0] in ("body", "query", "path", "header"):
            loc = loc[1:]
        names = [str(x) for x in loc if isinstance(x, str)]
        said.append(_request_field(names, error["type"]))
    return " ".join(dict.fromkeys(said))


def _request_field(names: list[str], kind: str) -> str:
    """One request field's error as a sentence."""
    if not names:
        return "The request could not be read: it should be an object of the request's fields."
    name = names[-1]
    thing, rule = REQUEST_FIELDS.get(name, (None, None))
    if kind == "extra_forbidden":
        return sentence(f"The request has a field it does not take ({name[:40]!r})")
    if thing is None:
        first = kind.split("_")[0]
        thing = f"The request's {name.replace('_', ' ')[:40]!r}"
        rule = f"give {KIND_WORDS[first]}" if first in KIND_WORDS else \
            "give it as the request's description says"
    if kind == "missing":
        return sentence(f"{thing} is missing: {rule}")
    return sentence(f"{thing} could not be read: {rule}")
