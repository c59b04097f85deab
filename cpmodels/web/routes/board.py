"""The editor's API: a drawn board (a calendar spec's fields as JSON) checked, saved as
YAML, opened from YAML, played, counted and asked the design question (both streamed,
:mod:`cpmodels.web.streams`), and made (a zip of ``cpmodels make``); the pieces it offers
and how the cells of each grid are drawn.

A body is read within bounds (:func:`~cpmodels.web.limits.parse_json`), and everything
past that runs on the server's search pool.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from cpmodels.palette import pools
from cpmodels.web import board, designing
from cpmodels.web.limits import Busy, body_text, parse_json
from cpmodels.web.play import DRAWN_GRIDS, grid_drawing
from cpmodels.web.puzzles import listing
from cpmodels.web.state import MAKES_AT_ONCE, Server

MAX_SHEET_TEXT = 40  # characters of a make's ``sheet`` option
router = APIRouter()


def attachment(filename: str) -> str:
    """A ``content-disposition`` header for a download named ``filename`` (any characters:
    an ASCII stand-in for old clients, the name itself as RFC 6266's ``filename*``)."""
    plain = "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else "_"
                    for c in filename)
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(filename, safe='')}"


async def _json(request: Request) -> Any:
    return parse_json(await request.body())


# Cheap: answered on the event loop.
@router.get("/api/grids")
async def grids() -> dict[str, Any]:
    """How the cells of each grid the editor draws are drawn (in pixels)."""
    return {grid: grid_drawing(grid) for grid in DRAWN_GRIDS}


@router.get("/api/board/pools/{grid}")
async def board_pools(grid: str, server: Server) -> Any:
    """The pieces the editor offers on ``grid``."""
    return await server.pool.call(pools, grid)


@router.get("/api/board/start/{name}")
async def board_start(name: str, server: Server) -> Any:
    """A served calendar's spec fields, for the editor to start from."""
    return await server.pool.call(board.read_fields, server.puzzles.spec_file(name))


@router.post("/api/board/check")
async def board_check(request: Request, server: Server) -> Any:
    """The board's validation errors, or its arithmetic; never searches."""
    return await server.pool.call(board.check, await _json(request))


@router.post("/api/board/yaml")
async def board_yaml(request: Request, server: Server) -> Response:
    """A valid board as the YAML that the command line reads."""
    text = await server.pool.call(board.to_yaml, await _json(request))
    return Response(text, media_type="application/yaml")


@router.post("/api/board/open")
async def board_open(request: Request, server: Server) -> Any:
    """A calendar spec's YAML (the body) as the editor's fields."""
    text = body_text(await request.body(), "YAML")
    return await server.pool.call(board.from_yaml, text)


@router.post("/api/board/play")
async def board_play(request: Request, server: Server) -> Any:
    """A board to play: listed as the page lists a calendar, under its drawn name."""
    def played(data: Any) -> dict[str, Any]:
        return listing(server.puzzles.drawn(board.board_spec(data)), dt.date.today())

    return await server.pool.call(played, await _json(request))


@router.post("/api/board/counts")
async def board_counts(request: Request, server: Server) -> Response:
    """Every label combination's count, streamed as each is decided."""
    def counts(data: Any) -> board.BoardCounts:
        return board.BoardCounts(board.board_spec(data), threads=server.pool.workers)

    return await server.streams.stream(server.pool, counts, await _json(request), "counts")


@router.post("/api/board/design")
async def board_design(request: Request, server: Server) -> Response:
    """Which sets of the candidate pieces work, streamed set by set."""
    def design(data: Any) -> designing.BoardDesign:
        return designing.BoardDesign(data, threads=server.pool.workers)

    return await server.streams.stream(server.pool, design, await _json(request), "design")


@router.post("/api/board/make")
async def board_make(request: Request, server: Server, cell: float = 20.0,
                     kerf: float = 0.15, clearance: float = 0.2, thickness: float = 4.0,
                     sheet: Annotated[str, Query(max_length=MAX_SHEET_TEXT)] = "600x400"
                     ) -> Response:
    """The files to make the board, in one zip; one make at a time."""
    sizes = {"cell": cell, "kerf": kerf, "clearance": clearance, "thickness": thickness,
             "sheet": sheet}
    data = await _json(request)
    # The make's turn is taken and given back here, on the event loop: a make that
    # answers 504 has let it go before it answers, whatever its thread still does.
    if not server.makes.acquire(blocking=False):
        raise Busy(f"{MAKES_AT_ONCE} board{'s are' if MAKES_AT_ONCE > 1 else ' is'} "
                   "being made; try again in a moment")
    try:
        name, zipped = await server.pool.run(
            lambda *, deadline: designing.made_board(data, sizes, deadline))
    finally:
        server.makes.release()
    return Response(zipped, media_type="application/zip",
                    headers={"content-disposition": attachment(f"{name}.zip")})
