"""How the server answers an error: one table from an error's kind to its status
(:data:`ERROR_STATUS`), the same on every endpoint, the one handler that answers every
error with ``{"error": precise, "message": plain}`` (:func:`refused`: the precise line for
programs, naming fields and options as the command line does, and the same said for a
person by :func:`cpmodels.web.wording.plain`), and the check that refuses a query option
an endpoint does not take (:func:`known_options`).

422 is bad input of any sort (a bad spec or board, a body that is not UTF-8 JSON or is
nested too deeply, a wrong type, an unknown query option, a position no one could lay on
the board, which also says ``{"status": "invalid", "completions": 0, "message": ...}``);
413 a body over the limit and 415 a body posted to the API as another type than JSON
(:class:`~cpmodels.web.limits.BodyLimit`); 404 only an unknown spec, solution index or
grid; 409 a hint where no solution keeps the pieces shown; 503 a full
pool or too many streams (and too many requests at once,
:class:`~cpmodels.web.connections.Admission`, in the same JSON); 504 out of time. An
internal error is logged and answers 500 with a short message. A validation error is one
sentence per field, naming it and how to give it (:data:`FIELD_FORMS`).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from cpmodels.errors import CpmodelsError, InputError, NotFound, OutOfTime, SpecError
from cpmodels.web.limits import Busy, json_error
from cpmodels.web.play import InvalidPosition, NoSolution
from cpmodels.web.wording import plain, plain_text

log = logging.getLogger("cpmodels.web")

# The one table from an error's kind to its status, for every endpoint (the most specific
# kind that ``type(exc).__mro__`` finds here wins; anything else is an internal error, 500).
ERROR_STATUS: dict[type[Exception], int] = {
    NotFound: 404,
    NoSolution: 409,
    Busy: 503,
    OutOfTime: 504,
    InvalidPosition: 422,
    SpecError: 422,
    InputError: 422,
    CpmodelsError: 422,
    RequestValidationError: 422,
    ClientDisconnect: 499,  # the client went away mid-request: no one reads the answer
}
# What the handler is installed for: every kind of the table, the framework's own HTTP
# errors, and anything else (500).
HANDLED: tuple[type[Exception], ...] = (*ERROR_STATUS, StarletteHTTPException, Exception)


def status_of(exc: BaseException) -> int:
    """The status an error answers (:data:`ERROR_STATUS`; an HTTP error its own, where
    the framework's 400, a body it could not read, is bad input like any other: 422)."""
    if isinstance(exc, StarletteHTTPException):
        return 422 if exc.status_code == 400 else exc.status_code
    for kind in type(exc).__mro__:
        if kind in ERROR_STATUS:
            return ERROR_STATUS[kind]
    return 500


# What each field a request takes should be: the one sentence a validation error of it
# says, whatever the validator found (the field is the innermost name of the error's place:
# ``cells`` for ``placements.0.cells.1``).
FIELD_FORMS: dict[str, str] = {
    "spec": "give a calendar's name, such as calendar_week",
    "date": "give a date as YYYY-MM-DD, such as 2026-12-25",
    "labels": "give one label per group (at most 10), each a word of at most 40 "
              "characters such as Jan",
    "face_up": "give true or false",
    "index": "give a whole number from 0 (0 is the first solution)",
    "revealed": 'give a list of at most 64 pieces laid, each {"piece": NAME, "cells": '
                "[[ROW, COLUMN], ...]}",
    "placements": 'give a list of at most 64 pieces laid, each {"piece": NAME, "cells": '
                  "[[ROW, COLUMN], ...]}",
    "piece": "give a piece's name",
    "cells": "give the cells the piece covers as [[ROW, COLUMN], ...], whole numbers",
    "cell": "give the side of a cell in millimetres, a number",
    "kerf": "give the laser's kerf in millimetres, a number",
    "clearance": "give the clearance between pieces in millimetres, a number",
    "thickness": "give the material's thickness in millimetres, a number",
    "sheet": "give the sheet's size in millimetres as WIDTHxHEIGHT, such as 600x400",
}
# For a field the table does not name: what its expected type is, in words.
TYPE_FORMS: dict[str, str] = {
    "int": "give a whole number", "float": "give a number", "bool": "give true or false",
    "string": "give text", "list": "give a list", "tuple": "give a list",
    "dict": "give an object", "model": "give an object", "date": "give a date as YYYY-MM-DD",
}
REQUEST_FORM = ('the request body should be a JSON object of the request\'s fields, such as '
                '{"spec": "calendar_week"}')


def _message(exc: RequestValidationError) -> str:
    """A request's validation errors as plain sentences, one per field, each naming the
    field and how to give it ("date: give a date as YYYY-MM-DD"), never the validator's
    paths and phrases."""
    parts: list[str] = []
    for error in exc.errors():
        if error["type"] == "json_invalid":
            return "the request body is not valid JSON"
        sentence = _sentence(error["loc"], error["type"])
        if sentence not in parts:
            parts.append(sentence)
    return "; ".join(parts)


def _sentence(loc: tuple[Any, ...], kind: str) -> str:
    """One validation error, at ``loc`` (the validator's place) of kind ``kind``, as a
    sentence."""
    if loc and loc[0] in ("body", "query", "path", "header"):
        loc = loc[1:]
    names = [str(x) for x in loc if isinstance(x, str)]
    if not names:
        return REQUEST_FORM
    where = names[-1]
    items = [x for x in loc if isinstance(x, int)]
    if len(names) > 1 and items:
        where = f"{names[-1]} of {names[0]} item {items[0] + 1}"
    elif len(names) > 1:
        where = f"{names[-1]} of {names[0]}"
    if kind == "missing":
        return f"{where} is required"
    if kind == "extra_forbidden":
        return f"{where} is not a field this request takes"
    form = FIELD_FORMS.get(names[-1]) or next(
        (said for prefix, said in TYPE_FORMS.items() if kind.startswith(prefix)),
        "give it as the request's description says")
    return f"{where}: {form}"


def _error(status: int, message: str, said: str) -> JSONResponse:
    return _answer({"error": message, "message": said}, status)


def _answer(content: dict[str, Any], status: int) -> JSONResponse:
    """``content`` as JSON whatever its texts hold: a lone surrogate (which no UTF-8 can
    hold) written as its escape, so that an error's answer never fails in turn."""
    return JSONResponse({key: _encodable(value) for key, value in content.items()},
                        status_code=status)


def _encodable(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    return value.encode("utf-8", "backslashreplace").decode("utf-8")


async def refused(request: Request, exc: Exception) -> JSONResponse:
    """Every error's answer: its status from :data:`ERROR_STATUS`, one precise line and
    the same in plain words."""
    status = status_of(exc)
    if status == 500:
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return _error(500, f"internal error ({type(exc).__name__}); it has been logged",
                      plain(exc))
    if isinstance(exc, RequestValidationError):
        return _error(status, _message(exc), plain(exc))
    if isinstance(exc, StarletteHTTPException):
        said = json_error(exc.__cause__) if exc.status_code == 400 else str(exc.detail)
        return _error(status, said, plain_text(said))
    if isinstance(exc, InvalidPosition):
        # Said as play mode's other verdicts are, naming the placement: already plain.
        return _answer({"status": "invalid", "completions": 0, "message": str(exc),
                        "error": str(exc)}, status)
    return _error(status, str(exc), plain(exc))


async def known_options(request: Request) -> None:
    """An API request's query options are those its endpoint takes: any other is refused
    (422), not ignored. (The pages read their own options in the browser.)"""
    route = request.scope.get("route")
    if not request.url.path.startswith("/api/") or not isinstance(route, APIRoute):
        return
    known = {param.alias for param in route.dependant.query_params}
    unknown = sorted(set(request.query_params) - known)
    if unknown:
        takes = f"it takes {', '.join(sorted(known))}" if known else "it takes none"
        raise InputError(f"unknown query option {', '.join(map(repr, unknown))[:200]} for "
                         f"{request.url.path[:100]}; {takes}")
