"""The pages (``GET /``, ``GET /edit``) and their scripts (``GET /static/{name}``), served
from the package."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from cpmodels.errors import NotFound

# The pages' scripts, ES modules served from the package: the play page's (``page.js``
# over ``puzzle.js`` and ``play.js``), the editor's (``edit.js``), and those both import
# (``words.js``: what they say when something goes wrong).
SCRIPTS = ("page.js", "puzzle.js", "play.js", "edit.js", "dom.js", "base64url.js",
           "cells.js", "words.js")
router = APIRouter()


def _static(name: str) -> str:
    return resources.files("cpmodels.web").joinpath(f"static/{name}").read_text()


@router.get("/", response_class=HTMLResponse)
def page() -> str:
    """The daily puzzle: play mode and the solutions view."""
    return _static("index.html")


@router.get("/edit", response_class=HTMLResponse)
def editor() -> str:
    """The board editor."""
    return _static("edit.html")


@router.get("/static/{name}")
def script(name: str) -> Response:
    """One of the pages' scripts."""
    if name not in SCRIPTS:
        raise NotFound(f"no file {name!r}")
    return Response(_static(name), media_type="text/javascript")
