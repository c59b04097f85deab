"""The play page as a daily game, in headless Chromium on a server whose every API answer
comes 60-180 ms late, and on the static site with its engine's answers held back: at every
listed window size, either way up, the board, the tray and the tools are in view together
and a piece is dragged from the tray to the board without scrolling (by touch on the
phones); Redo beside Undo, the running clock and the colours."""

from __future__ import annotations

import datetime as dt
import json
import re
import time

import httpx
import pytest
from conftest import screenshot, settled
from test_play_game import WAIT, _close, _on_board, _page, _shape, _verdict
from test_site import _hosting

PUZZLE = "spec=calendar_week&date=2026-12-25"
ENGINE_LATE_MS = 120  # the static site's answers held back, as PAGE_LATE holds the server's
LABELS = ["Dec", "25", "Fri"]

# (width, height, touch): phones either way up, tablets either way up, a laptop, a screen
SIZES = [(390, 844, True), (844, 390, True), (768, 1024, False), (1024, 768, False),
         (1280, 800, False), (1920, 1080, False)]


SERVER_SEED = 17  # conftest's slow_server: the two calendars, answers PAGE_LATE


@pytest.fixture(scope="module")
def week(slow_server) -> dict:
    """The weekday calendar's layout."""
    return httpx.get(f"{slow_server}/api/layout/calendar_week", timeout=30).json()


def _box(page, selector: str) -> dict:
    settled(page)
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
    """A finger pressed at start, moved to end, held still there and lifted (Chromium's own
    touch events, timed 16 ms apart and held 300 ms: a drag, not a fling, so that the next
    tap is not taken for one that stops a fling)."""
    cdp = page.context.new_cdp_session(page)
    now = time.time()

    def send(kind: str, at: float, x: float | None = None, y: float | None = None) -> None:
        points = [] if x is None else [{"x": x, "y": y, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points,
                                              "timestamp": now + at})

    send("touchStart", 0, *start)
    for i in range(1, steps + 1):
        send("touchMove", 0.016 * i, start[0] + (end[0] - start[0]) * i / steps,
             start[1] + (end[1] - start[1]) * i / steps)
    send("touchMove", 0.016 * steps + 0.3, *end)
    send("touchEnd", 0.016 * steps + 0.31)
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
    _in_view_and_dragged(browser, f"{slow_server}/?{PUZZLE}", week, tmp_path, "play",
                         width, height, touch)


@pytest.fixture(scope="module")
def static_week(site):
    """The static site (``cpmodels site``) served by a plain file server, and its weekday
    calendar's layout (the server's answer, as the site writes it)."""
    out, _ = site
    with _hosting(out) as url:
        yield url, json.loads((out / "api/layout/calendar_week").read_text())


@pytest.mark.parametrize("width,height,touch", SIZES,
                         ids=[f"{w}x{h}" for w, h, _ in SIZES])
def test_the_static_sites_board_tray_and_tools_in_view_and_a_drag_needs_no_scrolling(
        browser, static_week, tmp_path, width, height, touch):
    """The same on the static site, its answers from the engine in the page, held back
    (engine_delay) as a slow device's would be."""
    url, layout = static_week
    _in_view_and_dragged(browser, f"{url}?{PUZZLE}&engine_delay={ENGINE_LATE_MS}", layout,
                         tmp_path, "site-play", width, height, touch)


def _in_view_and_dragged(browser, url: str, layout: dict, tmp_path, name: str, width: int,
                         height: int, touch: bool) -> None:
    """The play page at ``url`` (the weekday calendar on PUZZLE's date) in a window of
    width x height (touch: a phone's): the board, the tray with every piece, the tools and
    the verdict in view and apart, the board's cells large enough, a screenshot
    (NAME-WxH.png); then the first piece dragged from the tray to a free place on the
    board without scrolling."""
    viewport = {"width": width, "height": height}
    page = _page(browser, viewport, has_touch=touch, is_mobile=touch)
    try:
        page.goto(url)
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
        screenshot(page, tmp_path, f"{name}-{width}x{height}.png",
                   f"CPMODELS_SCREENSHOT_{name.upper().replace('-', '_')}_{width}X{height}")
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


TODAY = """(() => { const d = new Date();
    return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 10);
  })()"""
LAPTOP = {"width": 1280, "height": 800}


def _placed(page) -> int:
    return page.locator("#play-board .placed").count()


def test_redo_the_clock_and_the_colours(browser, slow_server):
    page = _page(browser, LAPTOP)
    try:
        page.goto(f"{slow_server}/?spec=calendar_day&labels=Oct,6")
        _verdict(page, 0)
        assert page.inner_text("#clock") == "0:00"
        assert page.locator("#redo").is_disabled()
        for n in (1, 2):
            page.click("#play-hint")
            _verdict(page, n)
        # Undo and Redo by their buttons and by their keys
        page.click("#undo")
        _verdict(page, 1)
        assert page.locator("#redo").is_enabled()
        page.click("#redo")
        _verdict(page, 2)
        for keys, pieces in (("Control+z", 1), ("Control+Shift+Z", 2), ("Control+z", 1),
                             ("Control+y", 2)):
            page.keyboard.press(keys)
            _verdict(page, pieces)
        page.keyboard.press("Control+z")
        _verdict(page, 1)
        page.click("#play-hint")  # a new move forgets what was undone
        _verdict(page, 2)
        assert page.locator("#redo").is_disabled()
        # the clock runs from the first move; hidden, it stays hidden after a reload
        page.wait_for_function("document.querySelector('#clock').textContent !== '0:00'",
                               timeout=WAIT)
        page.wait_for_function("t => document.querySelector('#clock').textContent !== t",
                               arg=page.inner_text("#clock"), timeout=WAIT)
        page.click("#clock")
        assert page.inner_text("#clock") == "Time"
        assert page.get_attribute("#clock", "aria-pressed") == "false"
        # the colours follow the system; a choice is kept
        background = "getComputedStyle(document.body).backgroundColor"
        page.emulate_media(color_scheme="dark")
        assert page.evaluate(background) == "rgb(23, 24, 26)"
        page.select_option("#theme", "light")
        assert page.evaluate(background) == "rgb(244, 241, 236)"
        page.reload()
        _verdict(page, 2)
        assert page.evaluate(background) == "rgb(244, 241, 236)"
        assert page.input_value("#theme") == "light"
        assert page.inner_text("#clock") == "Time"
        page.select_option("#theme", "system")
        assert page.evaluate(background) == "rgb(23, 24, 26)"
        page.click("#clock")
        assert re.fullmatch(r"\d+:\d\d", page.inner_text("#clock"))
    finally:
        _close(page)


def _day_before(date: str, days: int = 1) -> str:
    return (dt.date.fromisoformat(date) - dt.timedelta(days=days)).isoformat()


def _stats(page) -> dict:
    return page.eval_on_selector_all("#stats-numbers dd",
                                     "ds => Object.fromEntries(ds.map(d => [d.dataset.stat, "
                                     "d.textContent]))")


def test_the_daily_record_its_streak_and_calendar_survive_a_reload(browser, slow_server):
    page = _page(browser, LAPTOP)
    try:
        page.goto(f"{slow_server}/?spec=calendar_day&labels=Oct,6")
        _verdict(page, 0)
        today = page.evaluate(TODAY)
        # the two days before, solved each on its day (as the page keeps them)
        kept = {_day_before(today, n): {"played": 1, "solved": 2, "ms": 60_000 * n, "moves": 9,
                                        "hints": 0, "onTheDay": True} for n in (1, 2)}
        kept[_day_before(today, 5)] = {"played": 1}  # played, never solved
        page.evaluate("r => localStorage.setItem('cpmodels-daily:calendar_day:any', "
                      "JSON.stringify({days: r}))", kept)
        page.goto(f"{slow_server}/?spec=calendar_day")  # today's puzzle, solved by hints
        _verdict(page, 0)
        n = 0
        while page.locator("#play-hint").is_enabled():
            n += 1
            page.click("#play-hint")
            _verdict(page, n)
        page.wait_for_selector("#solved:not([hidden])", timeout=WAIT)
        page.click("#solved-stats")
        page.wait_for_selector("#stats-panel[open]")
        numbers = _stats(page)
        assert numbers["played"] == "4" and numbers["solved"] == "3 (75%)", numbers
        assert numbers["current-streak"] == "3" and numbers["longest-streak"] == "3", numbers
        assert numbers["best-time"] != "none yet" and numbers["last-time"] != "none yet"
        # the calendar: today's date solved, a link to its puzzle
        link = page.get_attribute('#stats-calendar a.solved.today', "href")
        assert link.endswith(f"?spec=calendar_day&date={today}"), link
        page.click("#stats-close")
        assert page.locator("#stats-panel[open]").count() == 0
        # kept in the browser: after a reload the Stats button shows the same
        page.reload()
        page.wait_for_selector("#solved:not([hidden])", timeout=WAIT)
        page.click("#stats-button")
        page.wait_for_selector("#stats-panel[open]")
        assert _stats(page) == numbers
        # the month before: the days solved there are links too (when they fall in it)
        if _day_before(today, 2)[:7] != today[:7]:
            page.click("#stats-prev")
        assert page.locator(f'#stats-calendar a[href$="date={_day_before(today, 2)}"]').count() == 1
    finally:
        _close(page)


def test_the_share_text_and_picture_give_no_placement_away(browser, slow_server, tmp_path):
    """Two solutions of a date, solved in the same time with the same moves: the same share
    text and the same picture, byte for byte."""
    page = _page(browser, LAPTOP)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    labels = ["Oct", "6"]
    solutions = [httpx.post(f"{slow_server}/api/solution",
                            json={"spec": "calendar_day", "labels": labels, "index": i},
                            timeout=30).json()["placements"] for i in (0, 1)]
    assert solutions[0] != solutions[1]
    key = "cpmodels-play:calendar_day:2024-10-06:any"
    shared = []
    try:
        page.goto(f"{slow_server}/?spec=calendar_day&date=2024-10-06")
        _verdict(page, 0)
        for k, solution in enumerate(solutions):
            page.evaluate("""([key, placed]) => {
                localStorage.setItem(key, JSON.stringify(placed));
                localStorage.setItem(key + ':clock', JSON.stringify(
                  {start: 1700000000000, end: 1700000125000, moves: 11, hints: 2}));
              }""", [key, solution])
            page.reload()
            page.wait_for_selector("#solved:not([hidden])", timeout=WAIT)
            text = page.inner_text("#share-text")
            with page.expect_download() as download:
                page.click("#download-share")
            png = tmp_path / f"share-{k}.png"
            download.value.save_as(png)
            shared.append((text, png.read_bytes()))
        (text, png), (other_text, other_png) = shared
        assert text == other_text and png == other_png
        assert png.startswith(b"\x89PNG") and len(png) > 5_000
        assert "2024-10-06 (Oct 6) in 2:05 with 11 moves and 2 hints" in text, text
        assert text.splitlines()[-1] == "\u25a0" * 6 + "\u25a1" * 2, text
        pieces = {p["piece"] for p in solutions[0]}
        assert not [w for w in re.findall(r"[\w-]+", text.split("Try it")[0]) if w in pieces]
        page.click("#copy-share")
        page.wait_for_function("document.querySelector('#copy-share').textContent === 'Copied'")
        assert page.evaluate("navigator.clipboard.readText()") == text
    finally:
        _close(page)


def test_a_tap_lays_the_piece_by_the_cell_under_the_finger(browser, slow_server, week):
    """Tapped between 30 and 31, the I4 lies on 29 30 31 Sun, the cells its middle is on:
    shown while the finger is down, laid when it lifts; once dragged by a cell, a tap lays it
    by that cell."""
    layout = week
    phone = {"width": 390, "height": 844}
    page = _page(browser, phone, has_touch=True, is_mobile=True)
    try:
        page.goto(f"{slow_server}/?{PUZZLE}")
        _verdict(page, 0)
        page.locator('#tray .tile[data-piece="I4"]').tap()
        shapes = _shape(layout, "I4")
        o = int(page.get_attribute('#tray .tile[data-piece="I4"]', "data-orientation"))
        if len({a for a, _ in shapes[o]["cells"]}) != 1:  # upright: turned to lie along a row
            page.locator("#rotate").tap()
        cells = {c["label"]: c for c in layout["cells"]}
        (x30, y30), (x31, _) = cells["30"]["centre"], cells["31"]["centre"]
        finger = _on_board(page, (x30 + x31) / 2 + 2, y30)  # just on 31's side of the line
        cdp = page.context.new_cdp_session(page)
        cdp.send("Input.dispatchTouchEvent", {
            "type": "touchStart", "touchPoints": [{"x": finger[0], "y": finger[1], "id": 1}]})
        want = {tuple(cells[label]["cell"]) for label in ("29", "30", "31", "Sun")}
        page.wait_for_function("""w => { const g = document.querySelector('#play-board .ghost');
            return g && JSON.stringify(JSON.parse(g.dataset.cells).map(String).sort()) === w; }""",
                               arg=_sorted_json(want), timeout=WAIT)
        assert page.locator("#play-board .placed").count() == 0  # not laid yet
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        cdp.detach()
        _verdict(page, 1)
        laid = page.evaluate("""() => [...document.querySelectorAll('#play-board .placed')]
            .map((g) => g.dataset.piece)""")
        assert laid == ["I4"]
        key = "cpmodels-play:calendar_week:2026-12-25:any"
        kept = page.evaluate(f"JSON.parse(localStorage.getItem('{key}'))")
        assert {tuple(c) for c in kept[0]["cells"]} == want
        # dragged back to the tray by its end on 29, it is laid by that end next: tapped on
        # 3, it lies on 3 4 5 6
        start = _on_board(page, *cells["29"]["centre"])
        tray = _box(page, "#tray")
        _touch_drag(page, start, (tray["x"] + tray["width"] - 20, tray["y"] + tray["height"] - 10))
        _verdict(page, 0)
        page.locator('#tray .tile[data-piece="I4"]').tap()
        page.touchscreen.tap(*_on_board(page, *cells["3"]["centre"]))
        _verdict(page, 1)
        kept = page.evaluate(f"JSON.parse(localStorage.getItem('{key}'))")
        assert {tuple(c) for c in kept[0]["cells"]} == \
            {tuple(cells[label]["cell"]) for label in ("3", "4", "5", "6")}
    finally:
        _close(page)


def _sorted_json(cells: set) -> str:
    return json.dumps(sorted(f"{a},{b}" for a, b in cells), separators=(",", ":"))
