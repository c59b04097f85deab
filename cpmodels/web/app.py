"""The daily-puzzle web page and its JSON API (FastAPI).

``GET /`` is the page; the API answers with the CLI's JSON contract plus the board as SVG:

* ``GET /api/specs``: the calendars, their label groups and today's labels;
* ``POST /api/solution``: solution ``index`` of a date or label combination;
* ``POST /api/count``: how many solutions it has;
* ``POST /api/hint``: one more piece of a full solution that keeps the pieces shown.

Requests are validated by pydantic models; a bad one gets a 4xx with ``{"error": message}``.
Handlers are plain functions, which FastAPI runs in its thread pool, so a long count does
not hold up the page. Nothing is written to disk.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from cpmodels.backends.result import CoverResult
from cpmodels.counting import CountResult
from cpmodels.errors import CpmodelsError
from cpmodels.geometry import Placement
from cpmodels.render import count_payload, packing_payload
from cpmodels.render.pictures import packing_picture, placements_picture
from cpmodels.render.svg import scene_svg
from cpmodels.web.puzzles import Puzzles, next_hint

Label = str


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


def _message(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors():
        if error["type"] == "json_invalid":
            return "the request body is not valid JSON"
        where = ".".join(str(x) for x in error["loc"] if x != "body")
        parts.append(f"{where or 'request'}: {error['msg']}")
    return "; ".join(parts)


def create_app(spec_paths: Sequence[str | Path]) -> FastAPI:
    """The app for these calendar specs (each loaded and checked once, here)."""
    puzzles = Puzzles(spec_paths)
    app = FastAPI(title="cpmodels", docs_url=None, redoc_url=None)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _message(exc)}, status_code=422)

    @app.exception_handler(CpmodelsError)
    async def bad_input(request: Request, exc: CpmodelsError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=400)

    @app.exception_handler(LookupError)
    async def not_found(request: Request, exc: LookupError) -> JSONResponse:
        return JSONResponse({"error": str(exc.args[0] if exc.args else exc)}, status_code=404)

    def solutions_of(req: PuzzleRequest):
        labels = puzzles.labels(req.spec, req.date, req.labels)
        return puzzles.solutions(req.spec, labels, req.face_up)

    @app.get("/", response_class=HTMLResponse)
    def page() -> str:
        return resources.files("cpmodels.web").joinpath("static/index.html").read_text()

    @app.get("/api/specs")
    def specs() -> dict[str, Any]:
        today = dt.date.today()
        listed = []
        for name, spec in puzzles.specs.items():
            try:
                todays = list(puzzles.labels(name, today, None))
            except CpmodelsError:
                todays = [labels[0] for labels in spec.groups.values()]
            listed.append({"name": name, "description": spec.description,
                           "groups": spec.groups, "flip": spec.flip, "today": todays,
                           "dates": "month" in spec.groups and "day" in spec.groups})
        return {"today": today.isoformat(), "specs": listed}

    @app.post("/api/solution")
    def solution(req: SolutionRequest) -> dict[str, Any]:
        found = solutions_of(req)
        instance = found.instance
        chosen = found.solution(req.index)
        if chosen is None and req.index > 0:
            raise LookupError(f"there is no solution {req.index + 1}: "
                              f"{' '.join(instance.labels)} has {found.count:,}")
        result = (CoverResult("solved", "engine", 0.0, chosen) if chosen is not None
                  else CoverResult("unsolvable", "engine", 0.0))
        payload = packing_payload(instance, result)
        payload.update(index=req.index, found=len(found.found), exhausted=found.exhausted,
                       count=found.count, face_up=instance.face_up,
                       svg=scene_svg(packing_picture(instance, result)))
        if chosen is None:
            payload["message"] = (f"{' '.join(instance.labels)} has no solution"
                                  + (" with the pieces face up" if instance.face_up else ""))
        return payload

    @app.post("/api/count")
    def count(req: PuzzleRequest) -> dict[str, Any]:
        found = solutions_of(req)
        start = time.perf_counter()
        total = found.total()
        return count_payload(found.instance, CountResult(total, False, 1, "engine",
                                                         time.perf_counter() - start))

    @app.post("/api/hint")
    def hint(req: HintRequest) -> dict[str, Any]:
        instance = solutions_of(req).instance
        revealed = [Placement(p.piece, tuple(sorted(p.cells))) for p in req.revealed]
        more, consistent = next_hint(instance, revealed)
        labels = " ".join(instance.labels)
        if not consistent:
            raise LookupError(f"{labels} has no solution" if not revealed else
                              "no solution has the pieces shown; start the hints again")
        shown = [*revealed, *([more] if more else [])]
        pieces = sum(p.count for p in instance.spec.pieces)
        title = f"{instance.name}: {labels} (hint: {len(shown)} of {pieces} pieces)"
        return {
            "spec": instance.name, "labels": list(instance.labels),
            "revealed": [{"piece": p.piece, "cells": [list(rc) for rc in p.cells]}
                         for p in shown],
            "complete": more is None,
            "svg": scene_svg(placements_picture(instance, shown, title)),
        }

    return app
