"""The play page's board in a notebook: an anywidget that runs the page's own JavaScript and
``engine.wasm`` in the notebook's browser, with no server.

The front end (``web/static/notebook/widget.js``) loads the page's modules as they are: the
engine's worker (``engine/worker.js`` with ``engine/engine.js``) answers every question, and
the play page's answers (``answers.js``: its pool of workers and the engine's judgement of a
position, its hints and its solutions) ask it. Python sends what the page would fetch (the
puzzle's parts, :func:`~cpmodels.web.plans.puzzle_parts`), the engine and the modules' text.

State both ways: ``placements`` (the pieces on the board, as ``{piece, cells}``), ``labels``
and ``date`` (the combination played), ``face_up``; from the front end ``count`` (the
solutions still possible from the position), ``status`` and ``message`` (the verdict in the
page's words). A sweep's widget adds ``rows`` (each combination's count: its heatmap) and a
design's ``sets`` (the working sets) and ``chosen`` (the set shown).

``pip install 'cpmodels[notebooks]'`` brings anywidget; results make their widget with
``.widget()`` (:meth:`cpmodels.api.PackingSolution.widget`, ...).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from importlib.abc import Traversable
from typing import Any

import anywidget
import traitlets

from cpmodels.errors import InputError
from cpmodels.spec import CalendarSpec
from cpmodels.web.plans import engine_built, puzzle_parts
from cpmodels.web.puzzles import listing


def _static(name: str) -> Traversable:
    """A file of the pages (``cpmodels/web/static/NAME``)."""
    return resources.files("cpmodels.web").joinpath(f"static/{name}")

# The page's modules the widget runs, by their path under static/ (their imports of each
# other are resolved in the notebook's browser).
MODULES = ("engine/engine.js", "engine/worker.js", "answers.js", "puzzle.js", "dom.js",
           "words.js", "base64url.js")


def _modules() -> dict[str, str]:
    return {name: _static(name).read_text(encoding="utf-8") for name in MODULES}


def _wasm() -> bytes:
    if not engine_built():
        raise InputError("the widget needs the engine built for the browser (engine.wasm), "
                         "which this install lacks: reinstall cpmodels with clang and lld")
    return _static("engine/engine.wasm").read_bytes()


class PuzzleWidget(anywidget.AnyWidget):
    """A calendar puzzle to play: drag a piece onto the board (R rotates, F flips the piece
    held or chosen; a placed piece dragged off goes back to the tray), Hint places one more
    piece of a solution; the count of the solutions left shows after each move."""

    _esm = _static("notebook/widget.js").read_text(encoding="utf-8")
    _modules = traitlets.Dict().tag(sync=True)
    _wasm = traitlets.Bytes().tag(sync=True)
    _parts = traitlets.Unicode().tag(sync=True)
    _listing = traitlets.Dict().tag(sync=True)
    mode = traitlets.Unicode("play").tag(sync=True)
    labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    date = traitlets.Unicode("").tag(sync=True)
    face_up = traitlets.Bool(False).tag(sync=True)
    placements = traitlets.List(traitlets.Dict()).tag(sync=True)
    count = traitlets.Int(None, allow_none=True).tag(sync=True)
    status = traitlets.Unicode("").tag(sync=True)
    message = traitlets.Unicode("").tag(sync=True)

    def __init__(self, spec: CalendarSpec, labels: Sequence[str] = (), *,
                 date: dt.date | str | None = None, face_up: bool = False,
                 placements: Sequence[dict[str, Any]] = (),
                 picture: Callable[[], Mapping[str, Any]] | None = None,
                 **more: Any) -> None:
        if not isinstance(spec, CalendarSpec):
            raise InputError(f"the widget plays calendar puzzles; {spec.name} is a "
                             f"{spec.kind} spec (its picture shows it)")
        self._spec = spec
        self._picture = picture
        super().__init__(_modules=_modules(), _wasm=_wasm(), **self._puzzle(spec),
                         face_up=bool(face_up and spec.can_flip), **more)
        if date is not None:
            self.date = str(date)
        elif labels:
            self.labels = list(labels)
        else:
            self.date = dt.date.today().isoformat()
        self.placements = [_placement(p) for p in placements]  # on the puzzle chosen

    @staticmethod
    def _puzzle(spec: CalendarSpec) -> dict[str, Any]:
        import json

        # the puzzle as the page lists it (answers.js reads its name, groups and flip)
        return {"_parts": json.dumps(puzzle_parts(spec)),
                "_listing": listing(spec, dt.date.today())}

    @traitlets.validate("date")
    def _known_date(self, proposal: dict[str, Any]) -> str:
        text = str(proposal["value"])
        if text:
            try:
                dt.date.fromisoformat(text)
            except ValueError:
                raise InputError(f"date {text!r}: write it YYYY-MM-DD") from None
        return text

    @traitlets.observe("date")
    def _date_chosen(self, change: dict[str, Any]) -> None:
        if change["new"]:
            self.labels = list(self._spec.date_labels(dt.date.fromisoformat(change["new"])))

    @traitlets.observe("labels")
    def _labels_chosen(self, change: dict[str, Any]) -> None:
        """Labels that are not the date's: the date is forgotten (""). Another puzzle
        starts with an empty board (pieces laid for one date are no position of another)."""
        if self.date and list(self._spec.date_labels(
                dt.date.fromisoformat(self.date))) != list(change["new"]):
            self.date = ""
        if list(change["old"] or []) != list(change["new"]) and self.placements:
            self.placements = []

    @traitlets.validate("labels")
    def _known_labels(self, proposal: dict[str, Any]) -> list[str]:
        labels = list(proposal["value"])
        groups = list(self._spec.groups.values())
        if len(labels) != len(groups) or any(label not in names
                                             for label, names in zip(labels, groups)):
            raise traitlets.TraitError(
                f"labels {' '.join(labels)}: give one label of each group, in order "
                f"({', '.join(self._spec.groups)})")
        return labels

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget where the front end shows widgets; elsewhere (an export, a page made
        of the notebook) its result's picture (``picture``: the result's mime data, its
        text aside) and the widget's line of text."""
        bundle = super()._repr_mimebundle_(**kwargs)
        given, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        data: dict[str, Any] = dict(given or {})
        if self._picture is not None:
            data.update({k: v for k, v in self._picture().items() if k != "text/plain"})
        data["text/plain"] = repr(self)
        return data, metadata

    def __repr__(self) -> str:
        shown = " ".join(self.labels)
        count = "" if self.count is None else f", {self.count:,} solutions from here"
        return (f"<{type(self).__name__} {self._spec.name} {shown}: {len(self.placements)} "
                f"pieces placed{count}>")


class SweepWidget(PuzzleWidget):
    """A sweep's heatmap: hovering a combination gives its count, a click shows a solution
    of it on the board (to play on from there)."""

    rows = traitlets.List(traitlets.List()).tag(sync=True)  # each [labels, count, real date]

    def __init__(self, spec: CalendarSpec, rows: Sequence[tuple[Sequence[str], int, bool]],
                 **more: Any) -> None:
        table: list[list[Any]] = [[list(labels), int(count), bool(real)]
                                  for labels, count, real in rows]
        hardest = min((r for r in table if r[2] and r[1] > 0), key=lambda r: int(r[1]),
                      default=table[0] if table else None)
        more.setdefault("labels", hardest[0] if hardest else ())
        super().__init__(spec, mode="sweep", rows=table, **more)


class DesignWidget(PuzzleWidget):
    """A design's working sets: choosing one shows its board with its hardest date, to
    play."""

    # each working set: its verdict's fields and labels, its hardest date
    sets = traitlets.List(traitlets.Dict()).tag(sync=True)
    chosen = traitlets.Int(0).tag(sync=True)

    def __init__(self, sets: Sequence[dict[str, Any]],
                 spec_of: Callable[[int], CalendarSpec], **more: Any) -> None:
        if not sets:
            raise InputError("no set of this design works: there is nothing to play")
        self._spec_of = spec_of
        first = spec_of(0)
        super().__init__(first, labels=sets[0]["labels"], mode="design",
                         sets=list(sets), **more)

    @traitlets.observe("chosen")
    def _set_chosen(self, change: dict[str, Any]) -> None:
        k = change["new"]
        if not 0 <= k < len(self.sets):
            raise InputError(f"chosen={k}: there are {len(self.sets)} working sets (0 to "
                             f"{len(self.sets) - 1})")
        spec = self._spec_of(k)
        with self.hold_sync():
            self._spec = spec
            self.placements = []
            self.count = None
            self.set_trait("date", "")
            for name, value in self._puzzle(spec).items():
                self.set_trait(name, value)
            self.labels = list(self.sets[k]["labels"])


def _placement(given: dict[str, Any]) -> dict[str, Any]:
    return {"piece": str(given["piece"]), "cells": [list(cell) for cell in given["cells"]]}
