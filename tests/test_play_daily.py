"""The play page as a daily game, in headless Chromium on a server whose every API answer
comes 60-180 ms late: at every listed window size, either way up, the board, the tray and
the tools are in view together and a piece is dragged from the tray to the board without
scrolling (by touch on the phones); Redo beside Undo, the running clock and the colours."""

from __future__ import annotations

import httpx
import pytest
from conftest import PAGE_LATE, SPECS, Delayed, running_server, screenshot
from test_play_game import _close, _on_board, _page, _shape, _verdict

from cpmodels.web.app import create_app

PUZZLE = "spec=calendar_week&date=2026-12-25"
LABELS = ["Dec", "25", "Fri"]

# (width, height, touch): phones either way up, tablets either way up, a laptop, a screen
SIZES = [(390, 844, True), (844, 390, True), (768, 1024, False), (1024, 768, False),
         (1280, 800, False), (1920, 1080, False)]


@pytest.fixture(scope="module")
def slow_server():
    app = create_app([SPECS / "calendar_week.yaml", SPECS / "calendar_day.yaml"])
    with running_server(Delayed(app, seed=17, late=PAGE_LATE)) as url:
        yield url


@pytest.fixture(scope="module")
def week(slow_server) -> dict:
    """The weekday calendar's layout."""
    return httpx.get(f"{slow_server}/api/layout/calendar_week", timeout=30).json()


def _box(page, selector: str) -> dict:
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    return box


def _inside(box: dict, viewport: dict, what: str) -> None:
    assert box["x"] >= 0 and box["y"] >= 0, (what, box)
    assert box["x"] + box["width"] <= viewport["width"] + 0.5, (what, box)
    assert box["y"] + box["height"] <= viewport["height"] + 0.5, (what, box)


def _apart(a: dict, b: dict) -> bool:
    return (a["x"] + a["width"] <= b["x"] + 0.5 or b["x"] + b["width"] <= a["x"] + 0.5 or
            a["y"] + a["height"] <= b["y"] + 0.5 or b["y"] + b["height"] <= a["y"] + 0.5)


def _touch_drag(page, start: tuple[float, float], end: tuple[float, float], steps=8) -> None:
    """A finger pressed at start, moved to end and lifted (Chromium's own touch events)."""
    cdp = page.context.new_cdp_session(page)
    point = lambda x, y: [{"x": x, "y": y, "id": 1}]  # noqa: E731
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point(*start)})
    for i in range(1, steps + 1):
        x = start[0] + (end[0] - start[0]) * i / steps
        y = start[1] + (end[1] - start[1]) * i / steps
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": point(x, y)})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def _mouse_drag(page, start: tuple[float, float], end: tuple[float, float]) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=8)
    page.mouse.up()


@pytest.mark.parametrize("width,height,touch", SIZES,
                         ids=[f"{w}x{h}" for w, h, _ in SIZES])
def test_board_tray_and_tools_in_view_and_a_drag_needs_no_scrolling(browser, slow_server, week,
                                                                    tmp_path, width, height,
                                                                    touch):
    layout = week
    viewport = {"width": width, "height": height}
    page = _page(browser, viewport, has_touch=touch, is_mobile=touch)
    try:
        page.goto(f"{slow_server}/?{PUZZLE}")
        _verdict(page, 0)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        boxes = {s: _box(page, s) for s in ("#play-board", "#tray", "#tool-row", "#feedback")}
        for selector, box in boxes.items():
            _inside(box, viewport, selector)
        for k in range(page.locator("#tray .tile").count()):  # every piece of the tray
            _inside(_box(page, f"#tray .tile >> nth={k}"), viewport, f"tile {k}")
        for tool in ("#rotate", "#undo", "#redo", "#clear", "#play-hint", "#clock"):
            _inside(_box(page, tool), viewport, tool)
        names = list(boxes)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                assert _apart(boxes[a], boxes[b]), (a, boxes[a], b, boxes[b])
        # the board is not a postage stamp: its cells at least 28 px across
        cell = page.evaluate("document.querySelector('#play-board').getScreenCTM().a") * 40
        assert cell >= 28, cell
        screenshot(page, tmp_path, f"play-{width}x{height}.png", "CPMODELS_SCREENSHOT_SIZES")
        # the first piece, as the tray shows it, dragged by its letter to a place it fits
        piece = page.get_attribute("#tray .tile", "data-piece")
        shape = _shape(layout, piece)[0]
        place = _free_place(layout, shape)
        letter = _box(page, f'#tray .tile[data-piece="{piece}"] text')
        start = (letter["x"] + letter["width"] / 2, letter["y"] + letter["height"] / 2)
        end = _on_board(page, shape["mark"][0] + place[2], shape["mark"][1] + place[3])
        _inside({"x": end[0], "y": end[1], "width": 0, "height": 0}, viewport, "the drop")
        (_touch_drag if touch else _mouse_drag)(page, start, end)
        _verdict(page, 1)
        placed = page.get_attribute("#play-board .placed", "data-piece")
        assert placed == piece
        assert page.evaluate("window.scrollY") == 0
    finally:
        _close(page)


def _free_place(layout: dict, shape: dict) -> list:
    """The place of an orientation that covers no open cell, nearest the board's middle."""
    open_cells = {tuple(c["cell"]) for c in layout["cells"] if c["label"] in LABELS}
    middle = [o + s / 2 for o, s in zip(layout["origin"], layout["size"])]
    free = [p for p in shape["places"]
            if not {(a + p[0], b + p[1]) for a, b in shape["cells"]} & open_cells]
    return min(free, key=lambda p: (p[2] + shape["mark"][0] - middle[0]) ** 2 +
               (p[3] + shape["mark"][1] - middle[1]) ** 2)
