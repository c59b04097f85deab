"""The daily-puzzle web page and its JSON API (FastAPI).

``GET /`` is the page (its scripts under ``/static/``); the API answers with the CLI's JSON
contract plus the board as SVG:

* ``GET /api/specs``: the calendars, their label groups and today's labels;
* ``POST /api/solution``: solution ``index`` of a date or label combination;
* ``POST /api/count``: how many solutions it has;
* ``POST /api/hint``: one more piece of a full solution that keeps the pieces shown;
* ``GET /api/layout/{spec}``: the board and pieces as play mode draws them;
* ``POST /api/check``: a player's position judged: ``solved``, ``open`` (with the number of
  solutions still possible), ``dead_end`` (with the pieces to take back) or ``invalid``;
* ``POST /api/board/check``: a drawn board (a calendar spec's fields as JSON): its
  validation errors, or its arithmetic (cells to cover against the pieces' area), at once
  and without search;
* ``POST /api/board/counts``: every label combination's count of a drawn board, streamed as
  newline-delimited JSON (``application/x-ndjson``): one ``{"labels": [...], "count": N}``
  line per combination as each is decided, then ``{"done": true, "combinations": K,
  "unsolvable": [...], "seconds": S, ...}``. A closed connection stops the work.

Every error answers ``{"error": message}`` with the status :data:`ERROR_STATUS` gives its
kind, the same on every endpoint: 422 for bad input of any sort (a bad spec or board, a
body that is not JSON or is nested too deeply, a wrong type, an unknown query option, a
position no one could lay on the board, which also says ``{"status": "invalid",
"completions": 0, "message": ...}``), 413 for a body over 64 KB, 404 only for an unknown
spec, solution index or grid, 409 for a hint where no solution keeps the pieces shown.
Heavy work (searches, compiling and laying out a drawn board, making its files) runs in a
bounded pool (``web/limits.py``), never on the event loop, so a slow request does not hold
up the page: a request that finds the pool full gets 503, one that runs out of time 504.
An internal error is logged and answers 500 with a short JSON message. Nothing is written
to disk.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

import anyio
from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from cpmodels.backends import engine
from cpmodels.backends.result import CoverResult
from cpmodels.counting import CountResult
from cpmodels.errors import CpmodelsError, InputError, NotFound, OutOfTime, SpecError
from cpmodels.geometry import Placement
from cpmodels.render import count_payload, packing_payload
from cpmodels.render.pictures import packing_picture, placements_picture
from cpmodels.render.svg import scene_svg
from cpmodels.spec.models import CalendarSpec
from cpmodels.web import board
from cpmodels.web.designing import BoardDesign, make_zip_within
from cpmodels.web.limits import (
    BodyLimit,
    Busy,
    SearchPool,
    check_deadline,
    json_error,
    parse_json,
    release_memory,
)
from cpmodels.web.play import InvalidPosition, check_position, next_hint
from cpmodels.web.puzzles import Puzzles, Solutions

Label = Annotated[str, Field(min_length=1, max_length=40)]
log = logging.getLogger("cpmodels.web")


class NoSolution(CpmodelsError):
    """A hint was asked for where no solution keeps the pieces shown (409)."""


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PuzzleRequest(_Request):
    """Which puzzle: a spec, and a date (default today) or one label per group."""

    spec: str = Field(min_length=1, max_length=40)
    date: dt.date | None = None
    labels: list[Label] | None = Field(None, min_length=1, max_length=10)
    face_up: bool = False


class SolutionRequest(PuzzleRequest):
    index: int = Field(0, ge=0, description="0 is the first solution")


class PlacementModel(_Request):
    piece: str = Field(min_length=1, max_length=40)
    cells: list[tuple[int, int]] = Field(min_length=1, max_length=64)


class HintRequest(PuzzleRequest):
    revealed: list[PlacementModel] = Field(default_factory=list, max_length=64)


class CheckRequest(PuzzleRequest):
    placements: list[PlacementModel] = Field(default_factory=list, max_length=64)


def _placements(given: Sequence[PlacementModel]) -> list[Placement]:
    return [Placement(p.piece, tuple(p.cells)) for p in given]


# The one table from an error's kind to its status, for every endpoint (the most specific
# kind that ``type(exc).__mro__`` finds here wins; anything else is an internal error, 500).
ERROR_STATUS: dict[type[BaseException], int] = {
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
    parts = []
    for error in exc.errors():
        if error["type"] == "json_invalid":
            return "the request body is not valid JSON"
        where = ".".join(str(x) for x in error["loc"] if x != "body")
        parts.append(f"{where or 'request'}: {error['msg']}")
    return "; ".join(parts)


SCRIPTS = ("page.js", "play.js", "edit.js")  # the pages' scripts, served from the package
MAX_BODY_BYTES = 64 * 1024  # a request body: far more than any real request needs
BOARDS_AT_ONCE = 2  # drawn boards counted at once (each on every core, with its tables)
BOARDS_WAITING = 8  # more streams waiting for a turn (each holds its compiled cover)
MAKES_AT_ONCE = 1  # boards made at once (a make holds a pool worker for seconds)
MAX_SHEET_TEXT = 40  # characters of a make's ``sheet`` option
SWITCH_INTERVAL = 0.0005  # seconds a thread holds the interpreter's lock before others' turn
BOARD_TIME_LIMIT = 120.0  # seconds a board's counts may take (the weekday board: about 10)


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


class WorkStream(StreamingResponse):
    """NDJSON lines streamed while the client listens: a closed connection cancels the
    stream at once, and ``stop`` is called however the stream ends (whatever the ASGI
    version: a server that does not report a disconnect until a send fails would leave
    a stream that is still waiting for its first line running)."""

    def __init__(self, lines: AsyncIterator[bytes], stop: Callable[[], None]) -> None:
        super().__init__(lines, media_type="application/x-ndjson")
        self.stop = stop

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            async with anyio.create_task_group() as group:

                async def stream() -> None:
                    await self.stream_response(send)
                    group.cancel_scope.cancel()

                group.start_soon(stream)
                await self.listen_for_disconnect(receive)
                group.cancel_scope.cancel()
        except Exception as exc:  # (in a group, from the task group)
            if not _client_gone(exc):
                raise
        finally:
            self.stop()


def _client_gone(exc: BaseException) -> bool:
    """Whether ``exc`` (or every error of a group) says the client went away mid-send."""
    inner = getattr(exc, "exceptions", None)
    return all(map(_client_gone, inner)) if inner else isinstance(exc, OSError)


def attachment(filename: str) -> str:
    """A ``content-disposition`` header for a download named ``filename`` (any characters:
    an ASCII stand-in for old clients, the name itself as RFC 6266's ``filename*``)."""
    plain = "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else "_"
                    for c in filename)
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(filename, safe='')}"


def listing(spec: CalendarSpec, today: dt.date) -> dict[str, Any]:
    """A puzzle as the page lists it: its name, groups, and today's labels."""
    todays = spec.date_labels(today) if spec.has_dates else spec.label_combinations()[0]
    return {"name": spec.name, "description": spec.description, "groups": spec.groups,
            "flip": spec.can_flip, "today": list(todays), "dates": spec.has_dates}


def create_app(spec_paths: Sequence[str | Path], *, workers: int | None = None,
               queue: int | None = None, time_limit: float = 20.0) -> FastAPI:
    """The app for these calendar specs (each loaded and checked once, here).

    Searches run on ``workers`` threads (default: one per core) with ``queue`` more waiting
    (default 64), each within ``time_limit`` seconds.
    """
    puzzles = Puzzles(spec_paths)
    pool = SearchPool(workers, queue, time_limit)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Load the compiled engine before the first request, not during it.
        await asyncio.get_running_loop().run_in_executor(None, engine.warm_up)
        # Threads compiling boards hold the interpreter's lock in turns of this length:
        # short turns let the event loop answer cheap requests meanwhile (the engine's
        # kernels run without the lock, so searches lose nothing).
        switch = sys.getswitchinterval()
        sys.setswitchinterval(min(switch, SWITCH_INTERVAL))
        yield
        sys.setswitchinterval(switch)
        pool.shutdown()

    app = FastAPI(title="cpmodels", docs_url=None, redoc_url=None, openapi_url=None,
                  lifespan=lifespan, dependencies=[Depends(known_options)])
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)
    # Boards counted at once; the others wait their turn (each counts on every core).
    board_turns = threading.BoundedSemaphore(BOARDS_AT_ONCE)
    # Streams open (counting or waiting); one more is turned away (503) before compiling.
    board_streams = threading.BoundedSemaphore(BOARDS_AT_ONCE + BOARDS_WAITING)
    makes = threading.BoundedSemaphore(MAKES_AT_ONCE)

    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    async def refused(request: Request, exc: Exception) -> JSONResponse:
        """Every error's answer: its status from :data:`ERROR_STATUS` and one line."""
        status = status_of(exc)
        if status == 500:
            log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
            return error(500, f"internal error ({type(exc).__name__}); it has been logged")
        if isinstance(exc, RequestValidationError):
            return error(status, _message(exc))
        if isinstance(exc, StarletteHTTPException):
            return error(status, json_error(exc.__cause__) if exc.status_code == 400
                         else str(exc.detail))
        if isinstance(exc, InvalidPosition):
            return JSONResponse({"status": "invalid", "completions": 0, "message": str(exc),
                                 "error": str(exc)}, status_code=status)
        return error(status, str(exc))

    for kind in (*ERROR_STATUS, StarletteHTTPException, Exception):
        app.add_exception_handler(kind, refused)

    def solutions_of(req: PuzzleRequest) -> Solutions:
        return puzzles.solutions(puzzles.query(req.spec, req.date, req.labels, req.face_up))

    @app.get("/", response_class=HTMLResponse)
    def page() -> str:
        return resources.files("cpmodels.web").joinpath("static/index.html").read_text()

    @app.get("/static/{name}")
    def script(name: str) -> Response:
        if name not in SCRIPTS:
            raise NotFound(f"no file {name!r}")
        text = resources.files("cpmodels.web").joinpath(f"static/{name}").read_text()
        return Response(text, media_type="text/javascript")

    # Cheap: answered on the event loop, with no thread to wait for while the pool works.
    @app.get("/api/specs")
    async def specs() -> dict[str, Any]:
        today = dt.date.today()
        return {"today": today.isoformat(),
                "specs": [listing(spec, today) for spec in puzzles.specs.values()]}

    def solution_answer(req: SolutionRequest, *, deadline: float) -> dict[str, Any]:
        found = solutions_of(req)
        instance = found.instance
        chosen = found.solution(req.index, deadline)
        if chosen is None and req.index > 0:
            raise NotFound(f"there is no solution {req.index + 1}: "
                           f"{' '.join(instance.labels)} has {found.count:,}")
        result = (CoverResult("solved", "engine", 0.0, chosen) if chosen is not None
                  else CoverResult("unsolvable", "engine", 0.0))
        payload = packing_payload(instance, result)
        payload.update(index=req.index, found=found.found, exhausted=found.exhausted,
                       count=found.count, face_up=instance.face_up,
                       svg=scene_svg(packing_picture(instance, result)))
        if chosen is None:
            payload["message"] = (f"{' '.join(instance.labels)} has no solution"
                                  + (" with the pieces face up" if instance.face_up else ""))
        return payload

    def count_answer(req: PuzzleRequest, *, deadline: float) -> dict[str, Any]:
        found = solutions_of(req)
        start = time.perf_counter()
        total = found.total(deadline)
        return count_payload(found.instance, CountResult(total, False, 1, "engine",
                                                         time.perf_counter() - start))

    def hint_answer(req: HintRequest, *, deadline: float) -> dict[str, Any]:
        instance = solutions_of(req).instance
        revealed = _placements(req.revealed)
        more, consistent = next_hint(instance, revealed, deadline=deadline)
        labels = " ".join(instance.labels)
        if not consistent:
            raise NoSolution(f"{labels} has no solution" if not revealed else
                             "no solution has the pieces shown; take some back")
        shown = [*(Placement(p.piece, tuple(sorted(p.cells))) for p in revealed),
                 *([more] if more else [])]
        low = sum(p.low for p in instance.spec.pieces)
        high = sum(p.high for p in instance.spec.pieces)
        pieces = f"{high}" if low == high else f"{low} to {high}"
        title = f"{instance.name}: {labels} (hint: {len(shown)} of {pieces} pieces)"
        return {
            "spec": instance.name, "labels": list(instance.labels),
            "revealed": [{"piece": p.piece, "cells": [list(rc) for rc in p.cells]}
                         for p in shown],
            "complete": more is None,
            "svg": scene_svg(placements_picture(instance, shown, title)),
        }

    def check_answer(req: CheckRequest, *, deadline: float) -> dict[str, Any]:
        found = solutions_of(req)
        verdict = check_position(found.instance, _placements(req.placements),
                                 deadline=deadline, session=found.positions,
                                 total=found.total)
        return {"spec": req.spec, "labels": list(found.instance.labels),
                "face_up": found.instance.face_up, "status": verdict.status,
                "completions": verdict.completions, "message": verdict.message,
                "take_back": list(verdict.take_back)}

    def on_pool(fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn``, called on the search pool within its limits (its deadline unused)."""

        async def pooled(*args: Any) -> Any:
            return await pool.run(lambda *a, deadline: fn(*a), *args)

        return pooled

    @app.get("/api/layout/{name}")
    async def layout(name: str) -> Any:
        return await on_pool(puzzles.layout)(name)

    def searched(path: str, request: type[PuzzleRequest],
                 answer: Callable[..., dict[str, Any]]) -> None:
        """POST ``path``: ``answer(request)`` run on the search pool, within its limits."""

        async def endpoint(req: PuzzleRequest) -> dict[str, Any]:
            return await pool.run(answer, req)

        endpoint.__annotations__ = {"req": request, "return": dict[str, Any]}
        endpoint.__name__ = answer.__name__.removesuffix("_answer")
        app.post(path)(endpoint)

    def board_post(path: str, answer: Callable[[Any], Any]) -> None:
        """POST ``path``: a JSON body (read within bounds) to ``answer(data)``, run on the
        search pool within its limits."""

        async def endpoint(request: Request) -> Any:
            return await on_pool(answer)(parse_json(await request.body()))

        endpoint.__name__ = "board_" + path.rsplit("/", 1)[-1]
        app.post(path)(endpoint)

    @app.get("/edit", response_class=HTMLResponse)
    def editor() -> str:
        return resources.files("cpmodels.web").joinpath("static/edit.html").read_text()

    @app.get("/api/board/pools/{grid}")
    async def board_pools(grid: str) -> Any:
        return await on_pool(board.pools)(grid)

    @app.get("/api/board/start/{name}")
    async def board_start(name: str) -> Any:
        """A served calendar's spec fields, for the editor to start from."""
        path = puzzles.paths.get(name)
        if path is None:
            raise NotFound(f"no calendar {name[:60]!r} is served; served: "
                           f"{', '.join(puzzles.paths)}")
        return await on_pool(board.read_fields)(path)

    def as_yaml(data: Any) -> Response:
        return Response(board.to_yaml(data), media_type="application/yaml")

    def to_play(data: Any) -> dict[str, Any]:
        return listing(puzzles.drawn(board.board_spec(data)), dt.date.today())

    board_post("/api/board/yaml", as_yaml)
    board_post("/api/board/check", board.check)
    board_post("/api/board/play", to_play)

    @app.post("/api/board/open")
    async def board_open(request: Request) -> Any:
        text = (await request.body()).decode("utf-8", "replace")
        return await on_pool(board.from_yaml)(text)

    def streamed(work: board.Stoppable, what: str) -> StreamingResponse:
        """``work``'s rows as NDJSON, produced on a thread of their own once a turn is free,
        within the board time limit; a closed connection stops the work, and the memory
        the work took is given back when it ends."""
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

        def send(row: dict[str, Any] | None) -> None:
            loop.call_soon_threadsafe(lines.put_nowait, row)

        def produce() -> None:
            timer = threading.Timer(BOARD_TIME_LIMIT, work.stop)
            ran = False
            try:
                while not board_turns.acquire(timeout=0.1):
                    if work.stopped:
                        return
                try:
                    ran = True
                    timer.start()
                    for row in work.rows():
                        send(row)
                    if work.stopped and not timer.is_alive():
                        send({"done": False, "error": f"the {what} took more than "
                              f"{BOARD_TIME_LIMIT:g} s and were stopped"})
                finally:
                    board_turns.release()
            except Exception as exc:  # the stream ends with the reason, and it is logged
                log.error("board %s failed", what, exc_info=exc)
                send({"done": False, "error": f"internal error ({type(exc).__name__})"})
            finally:
                timer.cancel()
                send(None)
                board_streams.release()
                if ran:
                    release_memory()

        threading.Thread(target=produce, daemon=True, name=f"cpmodels-{what}").start()

        async def body() -> AsyncIterator[bytes]:
            try:
                while (row := await lines.get()) is not None:
                    yield (json.dumps(row) + "\n").encode()
            finally:
                work.stop()  # the client went away, or the stream is done

        return WorkStream(body(), work.stop)

    def counts_of(data: Any) -> board.BoardCounts:
        return board.BoardCounts(board.board_spec(data), threads=pool.workers)

    def design_of(data: Any) -> BoardDesign:
        return BoardDesign(data, threads=pool.workers)

    async def stream_of(request: Request, make: Callable[[Any], board.Stoppable],
                        what: str) -> StreamingResponse:
        """The stream of the work ``make`` makes of the request's JSON (compiled on the
        pool), when fewer than the streams allowed are open; else :class:`Busy`."""
        data = parse_json(await request.body())
        if not board_streams.acquire(blocking=False):
            raise Busy(f"{BOARDS_AT_ONCE + BOARDS_WAITING} boards are being counted or "
                       "waiting; try again in a moment")
        try:
            work = await on_pool(make)(data)
        except BaseException:
            board_streams.release()
            raise
        return streamed(work, what)  # which lets the stream go when it ends

    @app.post("/api/board/counts")
    async def board_counts(request: Request) -> Any:
        return await stream_of(request, counts_of, "counts")

    @app.post("/api/board/design")
    async def board_design(request: Request) -> Any:
        return await stream_of(request, design_of, "design")

    def make_answer(data: Any, sizes: dict[str, Any], *, deadline: float) -> Response:
        if not makes.acquire(blocking=False):
            raise Busy(f"{MAKES_AT_ONCE} board{'s are' if MAKES_AT_ONCE > 1 else ' is'} "
                       "being made; try again in a moment")
        try:
            spec = board.board_spec(data)
            check_deadline(deadline)
            made = make_zip_within(spec, sizes, deadline)
        finally:
            makes.release()
        return Response(made, media_type="application/zip",
                        headers={"content-disposition": attachment(f"{spec.name}.zip")})

    @app.post("/api/board/make")
    async def board_make(request: Request, cell: float = 20.0, kerf: float = 0.15,
                         clearance: float = 0.2, thickness: float = 4.0,
                         sheet: Annotated[str, Query(max_length=MAX_SHEET_TEXT)] = "600x400"
                         ) -> Any:
        sizes = {"cell": cell, "kerf": kerf, "clearance": clearance,
                 "thickness": thickness, "sheet": sheet}
        return await pool.run(make_answer, parse_json(await request.body()), sizes)

    searched("/api/check", CheckRequest, check_answer)
    searched("/api/solution", SolutionRequest, solution_answer)
    searched("/api/count", PuzzleRequest, count_answer)
    searched("/api/hint", HintRequest, hint_answer)

    return app
