"""The daily puzzle's API: the calendars (``GET /api/specs``), a solution, a count, a hint,
a player's position judged, the board as play mode draws it, and what the engine in the
browser plays it with (the puzzle's parts, from which the page makes the plan, and the plan).

Every answer but the list of calendars is worked out on the server's search pool, within
its deadline.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt

from cpmodels.errors import NotFound
from cpmodels.geometry import Placement
from cpmodels.web import plans
from cpmodels.web.play import hint_answer
from cpmodels.web.puzzles import (
    Puzzles,
    Solutions,
    check_answer,
    count_answer,
    listing,
    solution_answer,
)
from cpmodels.web.state import Server


def _date_text(value: Any) -> Any:
    """A date is given as text (``YYYY-MM-DD``), never as a number read as seconds."""
    if not isinstance(value, str):
        raise ValueError("a date is text such as 2026-12-25")
    return value


# Numbers and yes-or-no fields are strict: true is not the index 1, nor 1 face up.
Label = Annotated[str, Field(min_length=1, max_length=40)]
DateText = Annotated[dt.date, BeforeValidator(_date_text)]
router = APIRouter()


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PuzzleRequest(_Request):
    """Which puzzle: a spec, and a date (default today) or one label per group."""

    spec: str = Field(min_length=1, max_length=40)
    date: DateText | None = None
    labels: list[Label] | None = Field(None, min_length=1, max_length=10)
    face_up: StrictBool = False


class SolutionRequest(PuzzleRequest):
    index: StrictInt = Field(0, ge=0, description="0 is the first solution")


class PlacementModel(_Request):
    piece: str = Field(min_length=1, max_length=40)
    cells: list[tuple[StrictInt, StrictInt]] = Field(min_length=1, max_length=64)


class HintRequest(PuzzleRequest):
    revealed: list[PlacementModel] = Field(default_factory=list, max_length=64)


class CheckRequest(PuzzleRequest):
    placements: list[PlacementModel] = Field(default_factory=list, max_length=64)


def _placements(given: Sequence[PlacementModel]) -> list[Placement]:
    return [Placement(p.piece, tuple(p.cells)) for p in given]


def _found(puzzles: Puzzles, req: PuzzleRequest) -> Solutions:
    return puzzles.find(req.spec, req.date, req.labels, req.face_up)


# Cheap: answered on the event loop, with no thread to wait for while the pool works.
@router.get("/api/specs")
async def specs(server: Server) -> dict[str, Any]:
    """The calendars served, their label groups and today's labels."""
    today = dt.date.today()
    return {"today": today.isoformat(),
            "specs": [listing(spec, today) for spec in server.puzzles.specs.values()]}


@router.get("/api/layout/{name}")
async def layout(name: str, server: Server) -> Any:
    """The board and the pieces of a puzzle as play mode draws them."""
    return await server.pool.call(server.puzzles.layout, name)


@router.get("/api/puzzle/{name}")
async def puzzle_parts(name: str, server: Server) -> Any:
    """What the core in the page makes a calendar's layout and plans from; 404 when this
    server's pages ask the API instead (as for the plans)."""
    if not server.browser_engine or not plans.engine_built():
        raise NotFound("this server answers the pages' questions itself: it serves no "
                       "puzzles for the engine in the browser")
    return await server.pool.call(server.puzzles.parts, name)


@router.get("/api/plan/{file}")
async def plan(file: str, server: Server) -> Any:
    """What the engine in the browser needs to play a calendar (``NAME.json``, or
    ``NAME.face-up.json`` with the pieces face up); 404 when this server's pages ask the
    API instead (``--no-browser-engine``, or an install without engine.wasm)."""
    if not server.browser_engine or not plans.engine_built():
        raise NotFound("this server answers the pages' questions itself: it serves no plans "
                       "for the engine in the browser")
    name, face_up = plans.plan_of_file(file, server.puzzles.known)
    return await server.pool.call(server.puzzles.plan, name, face_up)


@router.post("/api/solution")
async def solution(req: SolutionRequest, server: Server) -> dict[str, Any]:
    """Solution ``index`` of a date or label combination."""
    def answer(*, deadline: float) -> dict[str, Any]:
        return solution_answer(_found(server.puzzles, req), req.index, deadline)

    return await server.pool.run(answer)


@router.post("/api/count")
async def count(req: PuzzleRequest, server: Server) -> dict[str, Any]:
    """How many solutions a puzzle has."""
    def answer(*, deadline: float) -> dict[str, Any]:
        return count_answer(_found(server.puzzles, req), deadline)

    return await server.pool.run(answer)


@router.post("/api/hint")
async def hint(req: HintRequest, server: Server) -> dict[str, Any]:
    """One more piece of a full solution that keeps the pieces shown."""
    def answer(*, deadline: float) -> dict[str, Any]:
        instance = _found(server.puzzles, req).instance
        return hint_answer(instance, _placements(req.revealed), deadline=deadline)

    return await server.pool.run(answer)


@router.post("/api/check")
async def check(req: CheckRequest, server: Server) -> dict[str, Any]:
    """A player's position judged: solved, open, a dead end, or invalid."""
    def answer(*, deadline: float) -> dict[str, Any]:
        return check_answer(_found(server.puzzles, req), _placements(req.placements),
                            deadline)

    return await server.pool.run(answer)
