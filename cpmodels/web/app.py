"""The daily-puzzle web page, the board editor and their JSON API (FastAPI), assembled.

``GET /`` (or ``/index.html``) is the page, ``GET /edit`` (or ``/edit.html``) the editor
(their scripts under ``/static/``, the engine's under ``/static/engine/``); the API answers
with the CLI's JSON contract plus the board as SVG:

* ``GET /api/specs``: the calendars, their label groups and today's labels;
* ``POST /api/solution``: solution ``index`` of a date or label combination;
* ``POST /api/count``: how many solutions it has;
* ``POST /api/hint``: one more piece of a full solution that keeps the pieces shown;
* ``GET /api/layout/{spec}``: the board and pieces as play mode draws them;
* ``GET /api/puzzle/{spec}``: the calendar's parts, from which the engine in the browser
  makes its layout and plans (``web/plans.py``), and ``GET /api/plan/{spec}.json``
  (``{spec}.face-up.json``): the plan it makes; both 404 when the app was made without the
  browser engine, so the pages ask the API;
* ``POST /api/check``: a player's position judged: ``solved``, ``open`` (with the number of
  solutions still possible), ``dead_end`` (with the pieces to take back) or ``invalid``;
* ``GET /api/grids``: how the cells of each grid the editor draws are drawn;
* ``POST /api/board/check``: a drawn board (a calendar spec's fields as JSON): its
  validation errors, or its arithmetic (cells to cover against the pieces' area), at once
  and without search;
* ``POST /api/board/counts``: every label combination's count of a drawn board, streamed as
  newline-delimited JSON (``application/x-ndjson``): one ``{"labels": [...], "count": N}``
  line per combination as each is decided, then ``{"done": true, "combinations": K,
  "unsolvable": [...], "seconds": S, ...}``. A closed connection stops the work;
* ``POST /api/board/design``, ``/yaml``, ``/open``, ``/play``, ``/make`` and
  ``GET /api/board/pools/{grid}``, ``/start/{spec}``: the rest of the editor's questions.

The handlers are in ``web/routes/`` (``pages.py``, ``play.py``, ``board.py``); what a server
holds between requests is on ``app.state.server`` (``web/state.py``), so two apps share
nothing. Every error answers ``{"error": ..., "message": ...}`` (the precise line for
programs, and the same for a person: ``web/wording.py``) with the status its kind has in
the one table, ``web/errors.py``'s ``ERROR_STATUS``, the same on every endpoint; a body
over 64 KB answers 413. Heavy work runs in a bounded pool (``web/limits.py``), never on the event
loop: a request that finds the pool full gets 503, one that runs out of time 504. Nothing
is written to disk.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI

from cpmodels.web.errors import HANDLED, known_options, refused
from cpmodels.web.limits import BodyLimit, SearchPool
from cpmodels.web.puzzles import Puzzles
from cpmodels.web.routes import board, pages, play
from cpmodels.web.state import ServerState

MAX_BODY_BYTES = 64 * 1024  # a request body: far more than any real request needs
TEXT_BODIES = frozenset({"/api/board/open"})  # the API's bodies that are not JSON (YAML)
SWITCH_INTERVAL = 0.0005  # seconds a thread holds the interpreter's lock before others' turn


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Shorter turns of the interpreter's lock while the app runs; let the pool go at the
    end."""
    # Threads compiling boards hold the interpreter's lock in turns of this length: short
    # turns let the event loop answer cheap requests meanwhile (the engine's kernels run
    # without the lock, so searches lose nothing).
    switch = sys.getswitchinterval()
    sys.setswitchinterval(min(switch, SWITCH_INTERVAL))
    yield
    sys.setswitchinterval(switch)
    app.state.server.pool.shutdown()


def create_app(spec_paths: Sequence[str | Path], *, workers: int | None = None,
               queue: int | None = None, time_limit: float = 20.0,
               browser_engine: bool = True) -> FastAPI:
    """The app for these calendar specs (each loaded and checked once, here).

    Searches run on ``workers`` threads (default: one per core) with ``queue`` more waiting
    (default 64), each within ``time_limit`` seconds. With ``browser_engine`` the pages
    play with the engine in the browser (the plans are served); without, the plan route
    answers 404 and the pages ask the API.
    """
    app = FastAPI(title="cpmodels", docs_url=None, redoc_url=None, openapi_url=None,
                  lifespan=lifespan, dependencies=[Depends(known_options)])
    app.state.server = ServerState(Puzzles(spec_paths),
                                   SearchPool(workers, queue, time_limit),
                                   browser_engine=browser_engine)
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES, text_paths=TEXT_BODIES)
    for kind in HANDLED:
        app.add_exception_handler(kind, refused)
    for routes in (pages, play, board):
        app.include_router(routes.router)
    return app
