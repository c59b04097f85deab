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

Requests are validated by pydantic models; a bad one gets a 4xx with ``{"error": message}``:
404 only for an unknown spec or solution index, 409 for a hint where no solution keeps the
pieces shown, 413 for a body over 64 KB. A position no one could lay on the board (an
overlap, a cell off the board or on a label left open, a piece used too often, a shape that
is not the piece) gets 400 with ``{"status": "invalid", "completions": 0, "message": ...}``
as well as the ``error``. Searches (counts, solutions, hints, checks) run in a
bounded pool (``web/limits.py``), so a slow one does not hold up the page: a request that
finds the pool full gets 503, one that runs out of time 504. An internal error is logged
and answers 500 with a short JSON message. Nothing is written to disk.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

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
from cpmodels.web.designing import BoardDesign, make_zip
from cpmodels.web.limits import BodyLimit, Busy, SearchPool
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
BOARD_TIME_LIMIT = 120.0  # seconds a board's counts may take (the weekday board: about 10)


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
        yield
        pool.shutdown()

    app = FastAPI(title="cpmodels", docs_url=None, redoc_url=None, openapi_url=None,
                  lifespan=lifespan)
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES, unprocessable=("/api/board/",))
    # Boards counted at once; the others wait their turn (each counts on every core).
    board_turns = threading.BoundedSemaphore(BOARDS_AT_ONCE)

    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error(422, _message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error(exc.status_code, str(exc.detail))

    @app.exception_handler(InvalidPosition)
    async def invalid_position(request: Request, exc: InvalidPosition) -> JSONResponse:
        return JSONResponse({"status": "invalid", "completions": 0, "message": str(exc),
                             "error": str(exc)}, status_code=400)

    @app.exception_handler(CpmodelsError)
    async def refused(request: Request, exc: CpmodelsError) -> JSONResponse:
        status = (404 if isinstance(exc, NotFound) else 409 if isinstance(exc, NoSolution)
                  else 503 if isinstance(exc, Busy) else 504 if isinstance(exc, OutOfTime)
                  else 400)
        return error(status, str(exc))

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return error(500, f"internal error ({type(exc).__name__}); it has been logged")

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

    @app.get("/api/specs")
    def specs() -> dict[str, Any]:
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

    @app.get("/api/layout/{name}")
    def layout(name: str) -> dict[str, Any]:
        return puzzles.layout(name)

    def searched(path: str, request: type[PuzzleRequest],
                 answer: Callable[..., dict[str, Any]]) -> None:
        """POST ``path``: ``answer(request)`` run on the search pool, within its limits."""

        async def endpoint(req: PuzzleRequest) -> dict[str, Any]:
            return await pool.run(answer, req)

        endpoint.__annotations__ = {"req": request, "return": dict[str, Any]}
        endpoint.__name__ = answer.__name__.removesuffix("_answer")
        app.post(path)(endpoint)

    async def board_data(request: Request) -> Any:
        try:
            return json.loads(await request.body())
        except ValueError:
            raise InputError("the request body is not valid JSON") from None

    @app.get("/edit", response_class=HTMLResponse)
    def editor() -> str:
        return resources.files("cpmodels.web").joinpath("static/edit.html").read_text()

    @app.get("/api/board/pools/{grid}")
    def board_pools(grid: str) -> Any:
        try:
            return board.pools(grid)
        except InputError as exc:
            return error(404, str(exc))

    @app.get("/api/board/start/{name}")
    def board_start(name: str) -> Any:
        """A served calendar's spec fields, for the editor to start from."""
        import yaml

        path = puzzles.paths.get(name)
        if path is None:
            raise NotFound(f"no calendar {name!r} is served; served: {', '.join(puzzles.paths)}")
        return yaml.safe_load(path.read_text(encoding="utf-8"))

    @app.post("/api/board/yaml")
    async def board_yaml(request: Request) -> Any:
        try:
            text = board.to_yaml(await board_data(request))
        except (SpecError, InputError) as exc:
            return error(422, str(exc))
        return Response(text, media_type="application/yaml")

    @app.post("/api/board/open")
    async def board_open(request: Request) -> Any:
        try:
            return board.from_yaml((await request.body()).decode("utf-8", "replace"))
        except (SpecError, InputError) as exc:
            return error(422, str(exc))

    @app.post("/api/board/check")
    async def board_check(request: Request) -> Any:
        try:
            return board.check(await board_data(request))
        except InputError as exc:
            return error(422, str(exc))

    def streamed(work: board.Stoppable, what: str) -> StreamingResponse:
        """``work``'s rows as NDJSON, produced on a thread of their own once a turn is free,
        within the board time limit; a closed connection stops the work."""
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

        def send(row: dict[str, Any] | None) -> None:
            loop.call_soon_threadsafe(lines.put_nowait, row)

        def produce() -> None:
            timer = threading.Timer(BOARD_TIME_LIMIT, work.stop)
            try:
                while not board_turns.acquire(timeout=0.1):
                    if work.stopped:
                        return
                try:
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

        threading.Thread(target=produce, daemon=True, name=f"cpmodels-{what}").start()

        async def body() -> AsyncIterator[bytes]:
            try:
                while (row := await lines.get()) is not None:
                    yield (json.dumps(row) + "\n").encode()
            finally:
                work.stop()  # the client went away, or the stream is done

        return StreamingResponse(body(), media_type="application/x-ndjson")

    @app.post("/api/board/counts")
    async def board_counts(request: Request) -> Any:
        try:
            counts = board.BoardCounts(board.board_spec(await board_data(request)),
                                       threads=pool.workers)
        except (SpecError, InputError) as exc:
            return error(422, str(exc))
        return streamed(counts, "counts")

    @app.post("/api/board/design")
    async def board_design(request: Request) -> Any:
        try:
            design = BoardDesign(await board_data(request), threads=pool.workers)
        except (SpecError, InputError) as exc:
            return error(422, str(exc))
        return streamed(design, "design")

    @app.post("/api/board/play")
    async def board_play(request: Request) -> Any:
        try:
            spec = puzzles.drawn(board.board_spec(await board_data(request)))
        except (SpecError, InputError) as exc:
            return error(422, str(exc))
        return listing(spec, dt.date.today())

    @app.post("/api/board/make")
    async def board_make(request: Request, cell: float = 20.0, kerf: float = 0.15,
                         clearance: float = 0.2, thickness: float = 4.0,
                         sheet: str = "600x400") -> Any:
        try:
            spec = board.board_spec(await board_data(request))
            sizes = {"cell": cell, "kerf": kerf, "clearance": clearance,
                     "thickness": thickness, "sheet": sheet}
            data = await asyncio.to_thread(make_zip, spec, sizes)
        except (SpecError, InputError) as exc:
            return error(422, str(exc))
        return Response(data, media_type="application/zip", headers={
            "content-disposition": f'attachment; filename="{spec.name}.zip"'})

    searched("/api/check", CheckRequest, check_answer)
    searched("/api/solution", SolutionRequest, solution_answer)
    searched("/api/count", PuzzleRequest, count_answer)
    searched("/api/hint", HintRequest, hint_answer)

    return app
