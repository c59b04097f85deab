"""How the server answers an error: one table from an error's kind to its status
(:data:`ERROR_STATUS`), the same on every endpoint, the one handler that answers every
error with ``{"error": message}`` (:func:`refused`), and the check that refuses a query
option an endpoint does not take (:func:`known_options`).

422 is bad input of any sort (a bad spec or board, a body that is not UTF-8 JSON or is
nested too deeply, a wrong type, an unknown query option, a position no one could lay on
the board, which also says ``{"status": "invalid", "completions": 0, "message": ...}``);
413 a body over the limit and 415 a body posted to the API as another type than JSON
(:class:`~cpmodels.web.limits.BodyLimit`); 404 only an unknown spec, solution index or
grid; 409 a hint where no solution keeps the pieces shown; 503 a full
pool or too many streams; 504 out of time. An internal error is logged and answers 500
with a short message.
"""

from __future__ import annotations

import logging

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from cpmodels.errors import CpmodelsError, InputError, NotFound, OutOfTime, SpecError
from cpmodels.web.limits import Busy, json_error
from cpmodels.web.play import InvalidPosition, NoSolution

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


def _message(exc: RequestValidationError) -> str:
    """A request's validation errors as plain sentences, each naming the field it is
    about ("index should be a valid integer"), not the validator's paths and phrases."""
    parts = []
    for error in exc.errors():
        if error["type"] == "json_invalid":
            return "the request body is not valid JSON"
        where = ".".join(str(x) for x in error["loc"] if x != "body") or "the request"
        parts.append(_sentence(where, error["type"], error["msg"]))
    return "; ".join(parts)


def _sentence(where: str, kind: str, said: str) -> str:
    """One validation error of the field ``where`` as a sentence."""
    if kind == "missing":
        return f"{where} is required"
    if kind == "extra_forbidden":
        return f"{where} is not a field this request takes"
    if said.startswith("Input should "):
        return f"{where} should {said[len('Input should '):]}"
    return f"{where}: {said[:1].lower()}{said[1:]}"


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def refused(request: Request, exc: Exception) -> JSONResponse:
    """Every error's answer: its status from :data:`ERROR_STATUS` and one line."""
    status = status_of(exc)
    if status == 500:
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return _error(500, f"internal error ({type(exc).__name__}); it has been logged")
    if isinstance(exc, RequestValidationError):
        return _error(status, _message(exc))
    if isinstance(exc, StarletteHTTPException):
        return _error(status, json_error(exc.__cause__) if exc.status_code == 400
                      else str(exc.detail))
    if isinstance(exc, InvalidPosition):
        return JSONResponse({"status": "invalid", "completions": 0, "message": str(exc),
                             "error": str(exc)}, status_code=status)
    return _error(status, str(exc))


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
