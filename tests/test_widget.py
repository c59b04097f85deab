"""The notebook widget in Chromium through anywidget's front-end contract: its module rendered
by a test page (widget_harness.html) whose model holds the state the Python widget sends;
what the page saves is given back to the Python widget as a comm would. A person drags a
piece onto the board and reads the count, hovers the sweep's heatmap and clicks a date,
chooses a design's set; Python sets the date and the pieces and the page shows them."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from conftest import ROOT, screenshot, settled

from cpmodels import api
from cpmodels.web.play import board_layout

pytest.importorskip("anywidget")

HARNESS = ROOT / "tests" / "widget_harness.html"
WAIT_MS = 60_000  # an event awaited on a busy machine (the engine answers in milliseconds)
DATE = "2026-12-01"


@contextmanager
def serving(widget: Any) -> Iterator[str]:
    """The harness, the widget's module, its state and engine.wasm on 127.0.0.1 and a free
    port, in a thread; stopped on the way out."""
    state = {k: v for k, v in widget.get_state().items() if k != "_wasm"}
    files = {"/": (HARNESS.read_bytes(), "text/html"),
             "/widget.js": (widget._esm.encode(), "text/javascript"),
             "/state.json": (json.dumps(state, default=str).encode(), "application/json"),
             "/engine.wasm": (bytes(widget._wasm), "application/wasm")}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # (the name the standard library calls)
            body, kind = files.get(self.path.split("?")[0], (b"", ""))
            self.send_response(200 if kind else 404)
            self.send_header("Content-Type", kind or "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)  # a port the system picks
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@contextmanager
def opened(browser, widget: Any) -> Iterator[Any]:
    with serving(widget) as url:
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        try:
            page.goto(url)
            page.wait_for_function("window.rendered === true", timeout=WAIT_MS)
            page.wait_for_selector(".cpm-tray svg[data-piece]", timeout=WAIT_MS)
            yield page
            assert errors == []
        finally:
            page.evaluate("window.cleanup && window.cleanup()")
            page.close()


def sync_back(page, widget: Any) -> None:
    """What the page saved, given to the Python widget as the comm gives it."""
    for change in page.evaluate("window.saved.splice(0)"):
        widget.set_state(change)


def wait_status(page, words: str) -> str:
    page.wait_for_function("(w) => document.querySelector('.cpm-status').textContent"
                           ".includes(w)", arg=words, timeout=WAIT_MS)
    return page.text_content(".cpm-status")


def keys_to(layout_piece: dict, target: int) -> str:
    """The keys (r: rotate, f: flip) that turn a piece from its first orientation to
    ``target``, by the layout's own turns."""
    paths = {0: ""}
    queue = [0]
    while queue:
        o = queue.pop(0)
        for key, how in (("r", "rotate"), ("f", "flip")):
            nxt = layout_piece["orientations"][o][how]
            if nxt not in paths:
                paths[nxt] = paths[o] + key
                queue.append(nxt)
    return paths[target]


def drag_onto(page, layout: dict, placement: dict) -> None:
    """A piece dragged from the tray, turned on the way (R, F) and dropped where
    ``placement`` lies, as a person does it with the mouse."""
    info = next(p for p in layout["pieces"] if p["name"] == placement["piece"])
    want = {tuple(c) for c in placement["cells"]}
    o, k = next((o, k) for o, shape in enumerate(info["orientations"])
                for k, (dr, dc, _, _) in enumerate(shape["places"])
                if {(a + dr, b + dc) for a, b in shape["cells"]} == want)
    shape = info["orientations"][o]
    x, y = (shape["places"][k][2] + shape["mark"][0], shape["places"][k][3] + shape["mark"][1])
    settled(page)
    tile = page.locator(f".cpm-tray svg[data-piece='{placement['piece']}']").bounding_box()
    board = page.locator(".cpm-board").bounding_box()
    page.mouse.move(tile["x"] + tile["width"] / 2, tile["y"] + tile["height"] / 2)
    page.mouse.down()
    page.mouse.move(board["x"] + 10, board["y"] + 10, steps=3)
    for key in keys_to(info, o):
        page.keyboard.press(key)
    origin = layout["origin"]
    page.mouse.move(board["x"] + x - origin[0] + 4, board["y"] + y - origin[1] + 4, steps=3)
    page.mouse.up()


def test_a_piece_dragged_onto_the_board_is_counted_and_synced_to_python(browser):
    solved = api.solve("calendar_day", date=DATE, backend="engine")
    widget = solved.widget()
    spec = solved.instance.spec
    total = api.count("calendar_day", date=DATE).count
    every = [s.to_dict()["placements"] for s in api.solutions("calendar_day", date=DATE)]
    layout = board_layout(spec)
    with opened(browser, widget) as page:
        assert wait_status(page, "still possible") == (
            f"{total:,} solutions still possible from here.")
        assert page.text_content(".cpm-goal").startswith(
            "Cover every cell but Dec 1 with the 8 pieces: drag one from the tray")
        # the first solution's first piece, turned and dropped where it lies in it
        first = every[0][0]
        want = {tuple(c) for c in first["cells"]}
        drag_onto(page, layout, first)
        expected = sum(any(p["piece"] == first["piece"] and {tuple(c) for c in p["cells"]} == want
                           for p in solution) for solution in every)
        text = wait_status(page, f"{expected:,} solution")
        assert page.locator(f".cpm-board path[data-piece='{first['piece']}']").count() == 1
        assert page.locator(f".cpm-tray svg[data-piece='{first['piece']}']").count() == 0
        spent = page.evaluate("document.querySelector('.cpm-widget').dataset.countMs")
        print(f"count after a move: {float(spent):.1f} ms ({text})")  # measured, not asserted
        sync_back(page, widget)
        assert [p["piece"] for p in widget.placements] == [first["piece"]]
        assert {tuple(c) for c in widget.placements[0]["cells"]} == want
        assert widget.count == expected and widget.status == "open"

        # the rest of that solution dragged on, piece by piece: each move's count is the
        # solutions that keep the pieces laid, and the time it took is measured
        spent_ms = []
        for n in range(2, len(every[0]) + 1):
            laid = [(p["piece"], frozenset(map(tuple, p["cells"]))) for p in every[0][:n]]
            drag_onto(page, layout, every[0][n - 1])
            left = sum(all(any(p["piece"] == name and frozenset(map(tuple, p["cells"])) == cells
                               for p in solution) for name, cells in laid)
                       for solution in every)
            wait_status(page, "solved" if n == len(every[0]) else f"{left:,} solution")
            spent_ms.append(float(page.evaluate(
                "document.querySelector('.cpm-widget').dataset.countMs")))
        spent_ms.sort()
        print(f"count after each of {len(spent_ms)} moves: median "
              f"{spent_ms[len(spent_ms) // 2]:.1f} ms, most {spent_ms[-1]:.1f} ms")
        sync_back(page, widget)
        assert widget.status == "solved" and len(widget.placements) == len(every[0])
        page.click(".cpm-clear")
        wait_status(page, f"{total:,} solutions")

        # Python sets another date: the page opens its cells and counts it
        widget.date = "2026-10-06"
        assert widget.labels == ["Oct", "6"]
        page.evaluate("(c) => window.fromPython(c)", {"labels": widget.labels,
                                                      "placements": []})
        october = api.count("calendar_day", labels=["Oct", "6"]).count
        wait_status(page, f"{october:,} solution")
        opened_cells = page.locator(".cpm-board .cell.open").count()
        assert opened_cells == 2
        # ... and a whole solution: the page says it is solved
        whole = api.solve("calendar_day", labels=["Oct", "6"], backend="engine")
        page.evaluate("(c) => window.fromPython(c)",
                      {"placements": whole.to_dict()["placements"]})
        wait_status(page, "solved")
        sync_back(page, widget)
        assert widget.status == "solved" and widget.count == 1

        # a piece where no solution has it: a dead end, said so, and synced
        oct6 = [s.to_dict()["placements"] for s in api.solutions("calendar_day",
                                                                  labels=["Oct", "6"])]
        held = {(p["piece"], frozenset(map(tuple, p["cells"]))) for sol in oct6 for p in sol}
        open_cells = {tuple(c["cell"]) for c in layout["cells"] if c.get("label") in ("Oct", "6")}
        piece = layout["pieces"][0]
        shape = piece["orientations"][0]
        stray = next(cells for dr, dc, _, _ in shape["places"]
                     if not (cells := frozenset((a + dr, b + dc) for a, b in shape["cells"]))
                     & open_cells and (piece["name"], cells) not in held)
        page.evaluate("(c) => window.fromPython(c)", {"placements": [
            {"piece": piece["name"], "cells": [list(c) for c in sorted(stray)]}]})
        wait_status(page, "Dead end")
        sync_back(page, widget)
        assert widget.status == "dead_end" and widget.count == 0

        # a hint places one piece of a solution on an empty board
        page.evaluate("(c) => window.fromPython(c)", {"placements": []})
        wait_status(page, f"{october:,} solution")
        page.click(".cpm-hint")
        page.wait_for_function("document.querySelectorAll('.cpm-board path.cpm-piece')"
                               ".length === 1", timeout=WAIT_MS)
        wait_status(page, "still possible")

        # by keyboard: a piece chosen in the tray, turned with R, laid with Enter; taken back
        page.click(".cpm-clear")
        wait_status(page, f"{october:,} solution")
        page.focus(".cpm-tray svg[data-piece]")
        page.keyboard.press("r")
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelectorAll('.cpm-board path.cpm-piece')"
                               ".length === 1", timeout=WAIT_MS)
        page.wait_for_function("!/Counting/.test(document.querySelector('.cpm-status')"
                               ".textContent)", timeout=WAIT_MS)
        sync_back(page, widget)
        assert len(widget.placements) == 1 and widget.status in ("open", "dead_end")
        page.click(".cpm-take-back")
        wait_status(page, f"{october:,} solution")
        sync_back(page, widget)
        assert widget.placements == [] and widget.count == october


def test_the_heatmap_answers_a_hover_and_a_click_shows_a_solution(browser, tmp_path):
    days = api.sweep("calendar_day", jobs=1)
    widget = days.widget()
    with opened(browser, widget) as page:
        row = days.rows[("Oct", "6")]
        page.hover(".cpm-heat rect[data-labels='Oct 6']")
        page.wait_for_function("document.querySelector('.cpm-readout').textContent"
                               ".startsWith('Oct 6:')", timeout=WAIT_MS)
        assert page.text_content(".cpm-readout") == f"Oct 6: {row.count:,} solutions"
        assert page.locator(".cpm-heat rect").count() == len(days.rows)
        page.click(".cpm-heat rect[data-labels='Feb 30']")  # no real date: still a puzzle
        page.click(".cpm-heat rect[data-labels='Oct 6']")
        wait_status(page, "Oct 6: solved")
        page.hover(".cpm-heat rect[data-labels='Oct 6']")
        page.set_viewport_size({"width": 960, "height": 420})
        # docs/images/widget-sweep.png: CPMODELS_WIDGET_PICTURE=docs/images/widget-sweep.png
        screenshot(page, tmp_path, "widget-sweep.png", "CPMODELS_WIDGET_PICTURE")
        sync_back(page, widget)
        assert widget.labels == ["Oct", "6"] and widget.status == "solved"
        assert len(widget.placements) == len(days.spec.pieces)


def test_choosing_a_design_set_shows_its_board(browser):
    result = api.design(ROOT / "specs" / "designs" / "apad_rectangle_pentominoes.yaml",
                        best=2, jobs=1)
    widget = result.widget()
    with opened(browser, widget) as page:
        assert page.locator(".cpm-sets tbody tr").count() == len(result.working)
        hardest = page.eval_on_selector_all(".cpm-sets tbody tr td:nth-child(3)",
                                            "s => s.map(x => x.textContent)")
        assert hardest[:2] == [" ".join(v.argmin) for v in result.working[:2]]
        assert set(hardest[2:]) == {""}  # only the best two were counted
        first = sorted(page.eval_on_selector_all(".cpm-tray svg", "s => s.map(x => x.dataset"
                                                 ".piece)"))
        assert first == sorted(result.working[0].pieces)
        page.click(".cpm-sets tbody tr:nth-child(2)")
        sync_back(page, widget)  # the comm brings chosen; Python sends the set's puzzle
        assert widget.chosen == 1
        page.evaluate("(c) => window.fromPython(c)",
                      {k: widget.get_state()[k] for k in ("_parts", "_listing", "labels",
                                                          "placements")})
        deadline = time.time() + WAIT_MS / 1000
        wanted = sorted(result.working[1].pieces)
        while time.time() < deadline and sorted(page.eval_on_selector_all(
                ".cpm-tray svg", "s => s.map(x => x.dataset.piece)")) != wanted:
            time.sleep(0.1)
        assert sorted(page.eval_on_selector_all(
            ".cpm-tray svg", "s => s.map(x => x.dataset.piece)")) == wanted
        wait_status(page, "still possible")
        assert page.locator(".cpm-sets tr.chosen").text_content().startswith("2")


def test_the_widget_keeps_the_picture_for_front_ends_without_widgets():
    """Each widget's display carries its result's picture, for an export or a page made of
    the notebook (where no widget runs): the board, the heatmap, the ranked sets."""
    view = "application/vnd.jupyter.widget-view+json"
    solved = api.solve("calendar_day", labels=["Oct", "6"], backend="engine")
    data, _ = solved.widget()._repr_mimebundle_()
    assert {view, "image/svg+xml", "text/plain"} <= set(data)
    assert data["image/svg+xml"] == solved.svg()
    assert data["text/plain"] == "<PuzzleWidget calendar_day Oct 6: 0 pieces placed>"
    days = api.sweep("calendar_day", jobs=1)
    data, _ = days.widget()._repr_mimebundle_()
    assert {view, "image/png", "text/plain"} <= set(data)
    assert data["image/png"][:4] == b"\x89PNG"
    assert data["text/plain"] == "<SweepWidget calendar_day Oct 6: 0 pieces placed>"
    designed = api.design(ROOT / "specs" / "designs" / "apad_rectangle_pentominoes.yaml",
                          best=1, jobs=1)
    data, _ = designed.widget()._repr_mimebundle_()
    assert {view, "text/html", "text/plain"} <= set(data)
    assert data["text/html"] == designed._repr_html_() and "<svg" in data["text/html"]
    assert data["text/plain"] == "<DesignWidget calendar_day Apr 6: 0 pieces placed>"


def test_the_widget_refuses_in_words():
    from traitlets import TraitError

    from cpmodels.errors import InputError

    with pytest.raises(InputError, match="the widget plays calendar puzzles"):
        api.solve("soma", backend="engine").widget()
    board = api.solve("calendar_day", labels=["Oct", "6"], backend="engine").widget()
    with pytest.raises(TraitError, match="give one label of each group, in order"):
        board.labels = ["6", "Oct"]
    with pytest.raises(InputError, match="write it YYYY-MM-DD"):
        board.date = "6 October"
    assert board.labels == ["Oct", "6"] and board.date == ""
    board.date = "2026-12-25"
    assert board.labels == ["Dec", "25"] and board.date == "2026-12-25"
    board.labels = ["Dec", "24"]  # no longer that date
    assert board.date == ""


def test_another_date_starts_an_empty_board():
    """The pieces laid stay while the puzzle does; a date or labels set from Python (or a
    heatmap's click) start the new puzzle with an empty board."""
    solved = api.solve("calendar_day", labels=["Oct", "6"], backend="engine")
    board = solved.widget(solved=True)
    assert board.labels == ["Oct", "6"] and len(board.placements) == len(solved.to_dict()[
        "placements"])
    board.face_up = False
    assert len(board.placements) == 8
    board.date = "2026-12-25"
    assert board.labels == ["Dec", "25"] and board.placements == []
    board.placements = solved.to_dict()["placements"][:1]
    board.labels = ["Dec", "25"]  # the same labels: the board stays
    assert len(board.placements) == 1


def test_the_core_loads_no_notebook_package():
    import subprocess
    import sys

    code = ("import sys; from cpmodels import api; api.solve('calendar_day', date='2026-10-06',"
            " backend='engine'); print(sorted(m for m in ('anywidget', 'ipywidgets', 'pandas')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True).stdout
    assert out.strip() == "[]"
