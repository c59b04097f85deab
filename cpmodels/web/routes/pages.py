"""The pages (``GET /`` or ``/index.html``, ``GET /edit`` or ``/edit.html``), their scripts
(``GET /static/{name}``) and the engine in the browser (``GET /static/engine/{name}``),
served from the package, each from a fixed list."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from cpmodels.errors import NotFound
from cpmodels.web.state import Server

# The pages' scripts, ES modules served from the package: the play page's (``page.js``
# over ``puzzle.js``, ``play.js`` (its daily record and share in ``daily.js``) and
# ``answers.js``: the engine in the browser or the
# API; ``drawn.js``: a linked board drawn in the editor, made a puzzle in the browser),
# the editor's (``edit.js``, its counts from the engine in ``counts.js``, and its YAML files
# where no server is in ``yamlfile.js`` over the vendored YAML library ``yaml.js``), and
# those both
# import (``words.js``: what they say when something goes wrong).
SCRIPTS = ("page.js", "puzzle.js", "play.js", "answers.js", "edit.js", "dom.js",
           "base64url.js", "cells.js", "words.js", "counts.js", "drawn.js", "daily.js",
           "yamlfile.js", "yaml.js")
# The engine in the browser: its loader, the core built for WebAssembly (by the install,
# when clang is found), the worker script that runs it off the page's thread, and the
# glyph table the editor's cut file is engraved in (make/glyphs.py's; fetched only then) and
# the design question's code (design.js, imported by a worker when one is asked).
ENGINE_FILES = {"engine.js": "text/javascript", "engine.wasm": "application/wasm",
                "worker.js": "text/javascript", "glyphs.bin": "application/octet-stream",
                "design.js": "text/javascript"}
router = APIRouter()


def _static(name: str) -> str:
    return resources.files("cpmodels.web").joinpath(f"static/{name}").read_text()


@router.get("/", response_class=HTMLResponse)
@router.get("/index.html", response_class=HTMLResponse)
def page() -> str:
    """The daily puzzle: play mode and the solutions view."""
    return _static("index.html")


def make_defaults() -> dict[str, Any]:
    """The sizes the editor makes files with, as make takes them by default
    (:class:`cpmodels.make.MakeOptions`): the cell's side, the kerf, the clearance, the sheet
    (width, height), the gap between parts and the sheet's margin, in millimetres."""
    from cpmodels.make import MakeOptions

    o = MakeOptions()
    return {"cell": o.cell, "kerf": o.kerf, "clearance": o.clearance, "sheet": list(o.sheet),
            "gap": o.gap, "margin": o.margin}


def editor_page() -> str:
    """The editor's page with make's sizes written in (its fields' first values, and the
    JSON edit.js reads the others from), so that they are MakeOptions' and nobody's copy."""
    sizes = make_defaults()
    width, height = sizes["sheet"]
    return (_static("edit.html").replace("__MAKE_SIZES__", json.dumps(sizes))
            .replace("__MAKE_CELL__", f"{sizes['cell']:g}")
            .replace("__MAKE_KERF__", f"{sizes['kerf']:g}")
            .replace("__MAKE_SHEET__", f"{width:g}x{height:g}"))


@router.get("/edit", response_class=HTMLResponse)
@router.get("/edit.html", response_class=HTMLResponse)
def editor() -> str:
    """The board editor."""
    return editor_page()


@router.get("/static/{name}")
def script(name: str) -> Response:
    """One of the pages' scripts."""
    if name not in SCRIPTS:
        raise NotFound(f"no file {name!r}")
    return Response(_static(name), media_type="text/javascript")


@router.get("/static/engine/{name}")
def engine_file(name: str, server: Server) -> Response:
    """A file of the engine in the browser (404 for ``engine.wasm`` where the install did not
    build it, or on a server run with ``--no-browser-engine``: the pages then ask the API)."""
    media_type = ENGINE_FILES.get(name)
    found = resources.files("cpmodels.web").joinpath(f"static/engine/{name}")
    if media_type is None or not found.is_file():
        raise NotFound(f"no file {name!r}" if media_type is None else
                       f"{name} is not installed here")
    if name == "engine.wasm" and not server.browser_engine:
        raise NotFound("this server answers the pages' questions itself: the engine in the "
                       "browser is off")
    return Response(found.read_bytes(), media_type=media_type)
