"""The widget in JupyterLab itself, as a person uses it (skipped where JupyterLab is not
installed: it is no dependency of the package nor of its tests). JupyterLab runs headless
on 127.0.0.1 with a token; Chromium opens a notebook that calls ``widget()`` on a solve
result, a sweep and a design, runs every cell, drags a piece and asks for hints, hovers and
clicks the heatmap, chooses a design's set, reads the state back in Python and sets a date
from Python. ``CPMODELS_JUPYTERLAB_SHOTS=FOLDER`` keeps a screenshot of each step there."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT

from cpmodels import api

pytest.importorskip("jupyterlab")
pytest.importorskip("anywidget")

WAIT_MS = 120_000  # an event awaited on a busy machine
DESIGN = ROOT / "specs" / "designs" / "apad_rectangle_pentominoes.yaml"
CELLS = [
    "from cpmodels import api\n\nboard = api.solve('calendar_day', date='2026-10-06', "
    "backend='engine').widget()\nboard",
    "days = api.sweep('calendar_day', jobs=1)\nexplorer = days.widget()\nexplorer",
    f"result = api.design({str(DESIGN)!r}, best=2, jobs=1)\nsets = result.widget()\nsets",
    "print('board:', [p['piece'] for p in board.placements], board.count, board.status)\n"
    "print('explorer:', explorer.labels, explorer.count, explorer.status)\n"
    "print('sets:', sets.chosen, sets.labels, sets.count, sets.status)",
]


def _shared_jupyter() -> str:
    """Where the widget front ends' lab extensions are: under the prefix of the environment
    that installed anywidget (which may not be this interpreter's own)."""
    import anywidget

    shared = Path(anywidget.__file__).resolve().parents[4] / "share" / "jupyter"
    return os.pathsep.join(p for p in (os.environ.get("JUPYTER_PATH", ""), str(shared)) if p)


@pytest.fixture
def lab(tmp_path) -> Iterator[str]:
    """JupyterLab serving ``tmp_path`` (holding widgets.ipynb) on 127.0.0.1: the notebook's
    URL with its token; stopped on the way out."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    nbformat.write(new_notebook(cells=[new_code_cell(c) for c in CELLS], metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}),
        tmp_path / "widgets.ipynb")
    token = secrets.token_hex(16)
    with socket.socket() as probe:  # a free port to start from (the server moves on from
        probe.bind(("127.0.0.1", 0))  # one taken meanwhile, and writes the one it got)
        port = probe.getsockname()[1]
    ports = tmp_path / "runtime"
    env = {**os.environ, "JUPYTER_PATH": _shared_jupyter(), "JUPYTER_RUNTIME_DIR": str(ports),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "config")}
    with open(tmp_path / "lab.log", "w") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
             "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
             f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={tmp_path}",
             f"--LabApp.workspaces_dir={tmp_path / 'ws'}"],
            cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
    try:
        yield _listening(server, ports, token, tmp_path / "lab.log")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(30)


def _listening(server: subprocess.Popen, ports: Path, token: str, log: Path) -> str:
    """The notebook's URL once the server answers (it writes the URL it listens on)."""
    for _ in range(600):
        found = sorted(ports.glob("jpserver-*.json")) if ports.exists() else []
        info = json.loads(found[0].read_text() or "{}") if found else {}
        if info.get("url"):
            base = info["url"].rstrip("/")
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5)
                return f"{base}/lab/tree/widgets.ipynb?token={token}"
            except OSError:
                pass
        if server.poll() is not None:
            break
        time.sleep(0.5)
    pytest.fail("JupyterLab did not start: " + log.read_text()[-2000:])


def _shot(page, name: str, part=None) -> None:
    folder = os.environ.get("CPMODELS_JUPYTERLAB_SHOTS")
    if folder:
        (part or page).screenshot(path=str(Path(folder) / name))


def _status(page, k: int, words: str) -> str:
    """Widget ``k``'s verdict once it holds ``words``."""
    page.wait_for_function(
        "([k, w]) => { const s = document.querySelectorAll('.cpm-widget')[k]"
        "?.querySelector('.cpm-status'); return Boolean(s && s.textContent.includes(w)); }",
        arg=[k, words], timeout=WAIT_MS)
    return page.locator(".cpm-widget").nth(k).locator(".cpm-status").text_content()


def _counted(page, k: int) -> str:
    page.wait_for_function(
        "(k) => !/Counting/.test(document.querySelectorAll('.cpm-widget')[k]"
        ".querySelector('.cpm-status').textContent)", arg=k, timeout=WAIT_MS)
    return page.locator(".cpm-widget").nth(k).locator(".cpm-status").text_content()


def _pieces_on(page, k: int, n: int) -> None:
    page.wait_for_function(
        "([k, n]) => document.querySelectorAll('.cpm-widget')[k]"
        ".querySelectorAll('.cpm-board path.cpm-piece').length === n", arg=[k, n],
        timeout=WAIT_MS)


def test_the_widgets_in_jupyterlab(browser, lab):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(lab)
        page.wait_for_selector("#jp-main-statusbar :text('Idle')", timeout=WAIT_MS)
        from playwright.sync_api import Error as PlaywrightError

        toast = page.locator(".jp-toast-button:text-is('No')")  # JupyterLab's news, asked
        with contextlib.suppress(PlaywrightError):  # not asked: nothing in the way
            toast.first.click(timeout=5000)
        page.click(".lm-MenuBar-item:has(.lm-MenuBar-itemLabel:text-is('Run'))")
        page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
        for k in range(3):
            page.wait_for_function(
                "(k) => document.querySelectorAll('.cpm-widget')[k]?.querySelectorAll("
                "'.cpm-tray svg[data-piece]').length > 0", arg=k, timeout=WAIT_MS * 3)
        widgets = page.locator(".cpm-widget")
        board, explorer, sets = widgets.nth(0), widgets.nth(1), widgets.nth(2)
        oct6 = api.count("calendar_day", labels=["Oct", "6"]).count
        assert _status(page, 0, "still possible") == f"{oct6} solutions still possible from here."
        assert board.locator(".cpm-goal").text_content().startswith(
            "Cover every cell but Oct 6 with the 8 pieces")
        _shot(page, "1_board_opened.png")

        # a piece dragged from the tray onto the board's corner, then counted
        tile = board.locator(".cpm-tray svg[data-piece]").first.bounding_box()
        corner = board.locator(".cpm-board").bounding_box()
        page.mouse.move(tile["x"] + tile["width"] / 2, tile["y"] + tile["height"] / 2)
        page.mouse.down()
        page.mouse.move(corner["x"] + 30, corner["y"] + 30, steps=8)
        page.mouse.move(corner["x"] + 45, corner["y"] + 45, steps=4)
        page.mouse.up()
        _pieces_on(page, 0, 1)
        assert _counted(page, 0).startswith(("Dead end", "1 solution", "2 solutions",
                                             "3 solutions", "4 solutions", "5 solutions",
                                             "6 solutions", "7 solutions"))
        _shot(page, "2_board_after_a_drag.png", board)
        # the board cleared, two hints: each lays a piece of a solution, counted
        board.locator(".cpm-clear").click()
        _status(page, 0, f"{oct6} solutions still possible")
        for n in (1, 2):
            board.locator(".cpm-hint").click()
            _pieces_on(page, 0, n)
            assert "still possible" in _counted(page, 0)
        _shot(page, "3_board_after_two_hints.png", board)

        # the heatmap: a hover gives the count, a click shows a solution
        cell = explorer.locator(".cpm-heat rect[data-labels='Oct 6']")
        cell.hover()
        page.wait_for_function("document.querySelectorAll('.cpm-widget')[1]"
                               ".querySelector('.cpm-readout').textContent.startsWith('Oct 6')",
                               timeout=WAIT_MS)
        assert explorer.locator(".cpm-readout").text_content() == f"Oct 6: {oct6} solutions"
        cell.click()
        _status(page, 1, "Oct 6: solved")
        _shot(page, "4_sweep_hovered_and_clicked.png", explorer)

        # the design: the second set chosen opens its board
        result = api.design(DESIGN, best=2, jobs=1)
        sets.locator(".cpm-sets tbody tr").nth(1).click()
        wanted = " ".join(sorted(result.working[1].pieces))
        page.wait_for_function(
            "(want) => [...document.querySelectorAll('.cpm-widget')[2].querySelectorAll("
            "'.cpm-tray svg')].map((x) => x.dataset.piece).sort().join(' ') === want",
            arg=wanted, timeout=WAIT_MS)
        second = api.count(result.design.set_spec(next(
            c for c in result.design.candidates()
            if result.design.names(c) == result.working[1].pieces)),
            labels=list(result.working[1].argmin)).count
        _status(page, 2, f"{second} solutions still possible")
        _shot(page, "5_design_second_set.png", sets)

        # what the player did, read in Python
        cell = page.locator(".jp-Notebook .jp-CodeCell", has_text="print('board:'")
        cell.scroll_into_view_if_needed()
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Control+Enter")
        page.wait_for_function("() => [...document.querySelectorAll('.jp-OutputArea-output')]"
                               ".some((o) => /sets: 1/.test(o.textContent))", timeout=WAIT_MS)
        shown = cell.locator(".jp-OutputArea-output").text_content()
        assert "explorer: ['Oct', '6'] 1 solved" in shown
        assert f"sets: 1 {list(result.working[1].argmin)} {second} open" in shown
        assert "board: [" in shown and "] 2 open" in shown  # two pieces hinted
        _shot(page, "6_python_reads_the_state.png")

        # what Python sets, shown: a date, a heatmap's combination
        page.keyboard.press("Escape")
        page.keyboard.press("b")
        page.keyboard.press("Enter")
        page.keyboard.type("board.date = '2026-12-25'; explorer.labels = ['Feb', '29']")
        page.keyboard.press("Shift+Enter")
        for k, labels in ((0, ["Dec", "25"]), (1, ["Feb", "29"])):
            page.wait_for_function(
                "([k, t]) => document.querySelectorAll('.cpm-widget')[k]"
                ".querySelector('.cpm-title').textContent.endsWith(t)",
                arg=[k, " ".join(labels)], timeout=WAIT_MS)
            left = api.count("calendar_day", labels=labels).count
            _status(page, k, f"{left} solutions still possible")
        _shot(page, "7_python_set_the_dates.png")
        assert errors == []
    finally:
        page.close()
