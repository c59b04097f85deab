"""What the editor asks of a drawn board beyond its counts: which sets of its pieces work
(the design question, set by set), and the files to make it (a zip of ``cpmodels make``).

A design request is JSON: ``{"board": {...a board's fields...}, "always": [names],
"choose": K, "require": "real-dates" | "all-combinations"}``: every set of the pieces
marked ``always`` and ``K`` of the others, as a design file with ``fixed`` and one
``choose`` draw of the board's other pieces says it.
"""

from __future__ import annotations

import io
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cpmodels.design import Design, TooManySets, ranked
from cpmodels.errors import InputError, SpecError
from cpmodels.running import Plan, Run, Threads, in_own_process
from cpmodels.spec.design import DesignSpec
from cpmodels.spec.loading import validate_data
from cpmodels.spec.models import CalendarSpec
from cpmodels.web.board import SOURCE, board_spec
from cpmodels.web.limits import check_deadline

if TYPE_CHECKING:
    from cpmodels.make import MakeOptions

MAX_SETS = 5_000  # candidate sets the editor decides (a design file on the CLI: millions)
# Imported once by the process makes are forked from, so a make starts at once.
MAKE_MODULES = ["cpmodels.web.designing", "cpmodels.make", "cpmodels.make.laser",
                "cpmodels.make.printing", "cpmodels.make.sheets", "cpmodels.make.preview",
                "cpmodels.make.shapes", "matplotlib.font_manager"]


class BoardDesign:
    """The sets of a drawn board's pieces that solve every required date, decided one by
    one on ``threads`` threads; :meth:`stop` ends it from any thread."""

    def __init__(self, data: Any, *, threads: int = 2) -> None:
        if not isinstance(data, dict):
            raise SpecError(SOURCE, "a design request is a JSON object: board, always, "
                                    "choose, require")
        spec = _board_of_candidates(data.get("board"))
        if spec.grid != "square":
            raise InputError(f"the design question draws polyominoes: it needs a square "
                             f"board, not a {spec.grid} one")
        always = data.get("always", [])
        names = [p.name for p in spec.pieces]
        if not isinstance(always, list) or not all(a in names for a in always):
            raise SpecError(SOURCE, "give the names of pieces on the board", field="always")
        others = [p for p in spec.pieces if p.name not in always]
        if not others:
            raise InputError("every piece is marked always: leave some to choose from")
        for p in others:  # (as counts.js's designInput says it where there is no server)
            if p.count != 1:
                copies = p.count if isinstance(p.count, int) else f"{p.count[0]} to {p.count[1]}"
                raise InputError(f"{p.name} is a candidate with {copies} copies: a set takes "
                                 "each candidate once; mark it always to use its copies, or "
                                 "keep one")
        fields = {
            "kind": "design", "name": spec.name, "board": "(drawn)",
            "fixed": [_piece(p) for p in spec.pieces if p.name in always],
            "choose": [{"pool": [_piece(p) for p in others], "count": data.get("choose")}],
            "require": data.get("require", "real-dates")}
        design = validate_data(fields, SOURCE, design=True)
        assert isinstance(design, DesignSpec)
        board = spec.model_copy(update={"pieces": []})
        self.to_cover = len(spec.cells) - len(spec.groups)
        self._design, self._board, self.threads = design, board, max(1, threads)
        # One design (its own compiled cover and sessions) per thread: the first here, to
        # count the sets; the others when the deciding starts.
        try:
            self.design = Design(design, board, max_sets=MAX_SETS)
        except TooManySets as many:
            raise InputError(f"that is {many.sets:,} sets to try; the editor tries at most "
                             f"{MAX_SETS:,} (run cpmodels design on the saved board for "
                             "more)") from None
        self._stopped = threading.Event()
        self.run: Run | None = None

    def stop(self) -> None:
        """End the deciding as soon as the searches in progress look (from any thread)."""
        self._stopped.set()
        if self.run is not None:
            self.run.stop()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def rows(self) -> Iterator[dict[str, Any]]:
        """``{"candidates": N}``, then each set's verdict as it is decided (the sets shared
        out between the threads, in no fixed order), then the working sets ranked; nothing
        more once stopped. The designs (compiled covers, tables) are let go at the end."""
        start = time.perf_counter()
        sets = list(self.design.candidates())
        yield {"candidates": len(sets), "skipped_as_equal": self.design.skipped()}
        # Each thread's design learns the same order from the same first sets as
        # ``cpmodels design`` and the static site (the core's rule), so a set's verdict and
        # first failure are theirs, whichever thread decides it.
        work = Plan(sets, lambda: Design(self._design, self._board),
                    prepare=lambda design: design.learn_order())
        self.run = Run(work, Threads(self.threads))
        if self.stopped:
            return
        verdicts = []
        for done in self.run.results():
            verdicts.append(done.result)
            yield done.result.as_dict()
        if self.stopped:
            return
        working = [{k: v for k, v in w.as_dict().items() if k != "first_failure"}
                   for w in ranked(verdicts)]
        out = {"done": True, "candidates": len(verdicts), "working": working,
               "seconds": round(time.perf_counter() - start, 3)}
        if not sets:  # say why rather than an empty answer
            out["message"] = (f"no set of the pieces asked for covers the "
                              f"{self.to_cover} cells the board leaves to cover: none has "
                              "that area")
        yield out


def _board_of_candidates(board: Any) -> CalendarSpec:
    """The board with its pieces as candidates: validated as if each piece might be left
    out (the pieces in all need not have the board's area; a set of them must)."""
    pieces = board.get("pieces") if isinstance(board, dict) else None
    if not isinstance(pieces, list) or not all(isinstance(p, dict) for p in pieces):
        return board_spec(board)  # its own error
    optional = [{**p, "count": [0, p.get("count", 1)]} if isinstance(p.get("count", 1), int)
                else p for p in pieces]
    spec = board_spec({**board, "pieces": optional})
    return spec.model_copy(update={"pieces": [
        piece.model_copy(update={"count": given.get("count", 1)})
        for piece, given in zip(spec.pieces, pieces)]})


def _piece(piece: Any) -> dict[str, Any]:
    """A piece as a spec's fields (its count kept: a design piece has one)."""
    return piece.model_dump(by_alias=True, exclude_none=True)


def make_options(sizes: dict[str, Any]) -> MakeOptions:
    """The make options of a board (``sizes``: the page's sizes, the sheet as ``WxH``
    text), checked: an :class:`~cpmodels.errors.OptionError` names a size out of range."""
    from cpmodels.make import MakeOptions, sheet_size

    if isinstance(sizes.get("sheet"), str):
        sizes = {**sizes, "sheet": sheet_size(sizes["sheet"])}
    try:
        options = MakeOptions(**sizes)
    except TypeError as exc:
        raise InputError(f"make options: {exc}") from None
    options.check()
    return options


def make_zip(spec: CalendarSpec, options: MakeOptions) -> bytes:
    """``cpmodels make`` of a board with these :class:`~cpmodels.make.MakeOptions`, its
    files in one zip."""
    from cpmodels.make import make

    # The zip's folder: the board's name made safe as a path ('..' is a valid name).
    folder = "".join(c if c.isalnum() or c in "-_." else "_" for c in spec.name).strip(".")
    with tempfile.TemporaryDirectory(prefix="cpmodels-make-") as tmp:
        out = Path(tmp) / "made"
        make(spec, out, options)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(out.rglob("*")):
                if path.is_file():
                    archive.write(path, f"{folder or 'board'}/{path.relative_to(out)}")
        return buffer.getvalue()


def make_zip_within(spec: CalendarSpec, options: MakeOptions,
                    deadline: float | None) -> bytes:
    """:func:`make_zip` in a process of its own, ended if ``deadline`` (a
    ``time.perf_counter`` value) passes first (:class:`OutOfTime`): a make cannot be
    stopped midway, and all the memory it took goes back when its process ends. Its
    errors come back as they are said (an input error as :class:`InputError`)."""
    return in_own_process(make_zip, (spec, options), deadline=deadline, preload=MAKE_MODULES,
                          too_long="making the files took longer than the server allows; "
                                   "try a smaller board or run cpmodels make")


def made_board(data: Any, sizes: dict[str, Any], deadline: float | None) -> tuple[str, bytes]:
    """A drawn board's (JSON fields) name and its ``cpmodels make`` zip, made within
    ``deadline`` (:func:`make_zip_within`), its sizes checked first."""
    spec = board_spec(data)
    options = make_options(sizes)
    check_deadline(deadline)
    return spec.name, make_zip_within(spec, options, deadline)
