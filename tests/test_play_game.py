"""The play page as a game, in headless Chromium on a server whose every API answer comes
60-180 ms late: the goal said first, a landing preview under a dragged piece and a reason
for a drop that misses, a whole game by keyboard alone to the solved board (its time, moves
and share text), the solutions view that waits to be asked, and a phone's screen."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from conftest import screenshot, settled

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
WAIT = 30_000


SERVER_SEED = 11  # conftest's slow_server: the two calendars, answers PAGE_LATE


@pytest.fixture(scope="module")
def layouts(slow_server) -> dict:
    return {name: httpx.get(f"{slow_server}/api/layout/{name}", timeout=30).json()
            for name in ("calendar_week", "calendar_day")}


def _page(browser, viewport, **options):
    """A page of its own context that records console errors (checked on closing); an
    answer 4xx that the page says in words is no error of the page's."""
    context = browser.new_context(viewport=viewport, **options)
    page = context.new_page()
    page.console_errors = []
    refused = "Failed to load resource: the server responded with a status of 4"
    page.on("console", lambda m: page.console_errors.append(m.text)
            if m.type == "error" and not m.text.startswith(refused) else None)
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    return page


def _close(page) -> None:
    errors = page.console_errors
    page.context.close()
    assert errors == []


def _verdict(page, pieces: int) -> None:
    page.wait_for_selector(f'#feedback[data-pieces="{pieces}"][aria-busy="false"]',
                           timeout=WAIT)


def _within(page, selector: str, viewport: dict) -> dict:
    settled(page)
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= viewport["width"] + 0.5, (selector, box)
    assert box["y"] + box["height"] <= viewport["height"] + 0.5, (selector, box)
    return box


def _solution(server: str, spec: str, labels: list[str]) -> list[dict]:
    return httpx.post(f"{server}/api/solution", json={"spec": spec, "labels": labels},
                      timeout=30).json()["placements"]


def _shape(layout: dict, piece: str) -> list[dict]:
    return next(p for p in layout["pieces"] if p["name"] == piece)["orientations"]


def _cells(shape: dict, place: list) -> set[tuple[int, int]]:
    return {(a + place[0], b + place[1]) for a, b in shape["cells"]}


def _find(layout: dict, piece: str, cells) -> tuple[int, list]:
    want = {tuple(c) for c in cells}
    for o, shape in enumerate(_shape(layout, piece)):
        for place in shape["places"]:
            if _cells(shape, place) == want:
                return o, place
    raise AssertionError(f"{piece} {cells} is no place")


def _on_board(page, x: float, y: float) -> tuple[float, float]:
    """A point of the board's drawing (pixels of the layout) on the screen."""
    settled(page)
    return tuple(page.evaluate("""([x, y]) => {
        const m = document.querySelector('#play-board').getScreenCTM();
        return [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]; }""", [x, y]))


def _press_tile(page, piece: str) -> None:
    """Press the mouse on a tray piece's letter and start dragging it."""
    settled(page)
    box = page.locator(f'#tray .tile[data-piece="{piece}"] text').bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 15, y + 15, steps=3)


def _hover_place(page, layout: dict, piece: str, o: int, place: list) -> None:
    """Move the piece being dragged (grabbed at its letter) over one of its places."""
    mx, my = _shape(layout, piece)[o]["mark"]
    page.mouse.move(*_on_board(page, mx + place[2], my + place[3]), steps=6)


def _landing(page) -> tuple[str, set] | None:
    found = page.evaluate("""() => { const g = document.querySelector('#play-board .landing');
        return g && [g.dataset.state, g.dataset.cells]; }""")
    if found is None:
        return None
    return found[0], {tuple(c) for c in json.loads(found[1])}


def test_the_goal_comes_first_and_a_phone_plays_by_touch(browser, slow_server, layouts,
                                                          tmp_path):
    page = _page(browser, LAPTOP)
    try:
        page.goto(f"{slow_server}/?spec=calendar_week")
        page.wait_for_selector("#tray .tile", timeout=WAIT)
        goal = _within(page, "#goal", LAPTOP)
        assert page.inner_text("#goal") == "Cover every cell but today's month, day and weekday."
        # the first line read: above the verdict, the board and the pieces
        for below in ("#feedback", "#play-board", "#tray"):
            assert goal["y"] + goal["height"] <= page.locator(below).bounding_box()["y"]
        assert page.inner_text("#rotate") == "Rotate (R)"
        assert page.locator(".keys-help").is_visible()
        assert not page.locator(".touch-help").is_visible()
        help_text = page.inner_text(".keys-help")
        for words in ("Tab", "arrow keys", "Enter", "R rotates", "F flips", "Delete", "Escape"):
            assert words in help_text
    finally:
        _close(page)

    page = _page(browser, PHONE, has_touch=True)
    try:
        page.goto(f"{slow_server}/?spec=calendar_week&date=2026-12-25")
        page.wait_for_selector("#tray .tile", timeout=WAIT)
        _verdict(page, 0)
        _within(page, "#goal", PHONE)
        assert page.inner_text("#goal") == ("Cover every cell but the month, day and weekday "
                                            "of 2026-12-25.")
        for selector in ("#play-board", "#tray", "#feedback"):
            _within(page, selector, PHONE)
        # touch: the help says tap-to-place, the buttons carry no keys
        assert page.locator(".touch-help").is_visible()
        assert "Tap a piece, then tap the board" in page.inner_text(".touch-help")
        assert not page.locator(".keys-help").is_visible()
        assert [page.inner_text(f"#{b}") for b in ("rotate", "flip", "undo")] == \
            ["Rotate", "Flip", "Undo"]
        # the tray's letters are at least 14 px on the screen
        sizes = page.eval_on_selector_all("#tray .tile text", """ts => ts.map((t) =>
            parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)""")
        assert sizes and min(sizes) >= 14, sizes
        # a tap leaves no frame on the piece or the board
        tray_top = page.locator("#tray").bounding_box()["y"]
        page.locator('#tray .tile[data-piece="T5"]').tap()
        assert page.evaluate("document.activeElement.dataset.piece") == "T5"
        frame = "getComputedStyle(document.activeElement).outlineStyle"
        assert page.evaluate(frame) == "none"
        day = next(c["centre"] for c in layouts["calendar_week"]["cells"] if c["label"] == "25")
        page.touchscreen.tap(*_on_board(page, *day))  # a tap where the piece cannot go
        page.wait_for_function("document.querySelector('#feedback').className === 'note'")
        said = page.inner_text("#feedback")
        assert said == "T5 does not fit there: it would cover 25, a cell the puzzle leaves " \
                       "uncovered", said
        assert page.evaluate(frame) == "none"
        # two lines of verdict: the tray stays where it was
        assert page.locator("#feedback").bounding_box()["height"] > 30
        assert page.locator("#tray").bounding_box()["y"] == tray_top
        # a board solved before opens solved: the time, the moves and what to do next in view
        labels = ["Dec", "25", "Fri"]
        solution = _solution(slow_server, "calendar_week", labels)
        key = "cpmodels-play:calendar_week:2026-12-25:any"
        page.evaluate("""([key, placed]) => {
            localStorage.setItem(key, JSON.stringify(placed));
            localStorage.setItem(key + ':clock', JSON.stringify(
              {start: Date.now() - 125000, end: Date.now(), moves: 12, hints: 1}));
          }""", [key, solution])
        page.reload()
        page.wait_for_selector("#solved:not([hidden])", timeout=WAIT)
        assert page.inner_text("#solved-line") == "Solved in 2:05 with 12 moves and 1 hint!"
        for selector in ("#solved-line", "#copy-share", "#yesterday", "#another-date"):
            _within(page, selector, PHONE)
        # opened solved, not solved just now: no celebration
        assert not page.evaluate("document.querySelector('#play-board').classList"
                                 ".contains('celebrate')")
        screenshot(page, tmp_path, "play-phone-solved.png", "CPMODELS_SCREENSHOT_PLAY_PHONE_SOLVED")
        page.locator("#another-date").tap()  # another date of the same year, to play afresh
        page.wait_for_function("!location.search.includes('2026-12-25')", timeout=WAIT)
        assert re.search(r"date=2026-\d\d-\d\d", page.url)
        _verdict(page, 0)
        assert page.locator("#solved").is_hidden()
        # the buttons pressed are gone: the focus is on the new puzzle's pieces
        page.wait_for_function("document.activeElement.closest('#tray') !== null", timeout=WAIT)
        # a piece chosen, hints to the solved board: each lays a piece
        n = 0
        while page.locator("#play-hint").is_enabled():
            if not page.locator('#tray .tile[aria-pressed="true"]').count():
                page.locator("#tray .tile:not([hidden])").first.tap()
            chosen = page.get_attribute('#tray .tile[aria-pressed="true"]', "data-piece")
            if n == 1:  # a tap on a cell a piece lies on says why nothing happens
                placed = page.locator("#play-board .placed").first
                page.locator("#play-board .placed text").first.tap()
                page.wait_for_function(
                    "document.querySelector('#feedback').className === 'note'", timeout=WAIT)
                assert page.inner_text("#feedback") == (
                    f"{chosen} does not fit there: it would overlap "
                    f"{placed.get_attribute('data-piece')}")
            n += 1
            page.locator("#play-hint").tap()
            _verdict(page, n)
        # solved with a piece chosen: the choice and its ghost are gone, the turns and the
        # hint off, and no empty tray left in view
        assert n == 10 and "solved!" in page.inner_text("#feedback")
        assert page.locator("#play-board .ghost").count() == 0
        assert page.locator('#tray .tile[aria-pressed="true"]').count() == 0
        assert all(page.locator(f"#{b}").is_disabled() for b in ("rotate", "flip", "play-hint"))
        assert page.locator("#tray").is_hidden()
        _within(page, "#solved-line", PHONE)
    finally:
        _close(page)


def test_a_dragged_piece_shows_where_it_lands_and_a_missed_drop_says_why(browser, slow_server,
                                                                         layouts):
    layout = layouts["calendar_day"]
    page = _page(browser, LAPTOP)
    try:
        page.goto(f"{slow_server}/?spec=calendar_day&labels=Oct,6")
        _verdict(page, 0)
        assert page.inner_text("#goal") == "Cover every cell but the month and day chosen: Oct 6."
        assert page.title() == "8-piece month/day calendar, Oct 6: calendar puzzle"
        first, second = _solution(slow_server, "calendar_day", ["Oct", "6"])[:2]
        assert page.get_attribute(f'#tray .tile[data-piece="{first["piece"]}"]',
                                  "data-orientation") == "0"
        open_cells = {tuple(c["cell"]) for c in layout["cells"] if c["label"] in ("Oct", "6")}
        # the first piece as it lies in the tray, over a place it fits: the preview shows it
        o = 0
        shape = _shape(layout, first["piece"])[0]
        place = next(p for p in shape["places"] if not _cells(shape, p) & open_cells)
        _press_tile(page, first["piece"])
        assert _landing(page) is None
        _hover_place(page, layout, first["piece"], o, place)
        page.wait_for_selector("#play-board .landing", timeout=WAIT)
        target = _cells(_shape(layout, first["piece"])[o], place)
        assert _landing(page) == ("fits", target)
        page.mouse.up()
        _verdict(page, 1)
        assert page.locator("#play-board .placed").count() == 1
        assert page.locator("#play-board .landing").count() == 0
        # the second piece: over the first (overlaps), over Oct (covers), off the board
        shape = _shape(layout, second["piece"])[0]

        def place_where(test) -> list:
            return next(p for p in shape["places"] if test(_cells(shape, p)))

        over = place_where(lambda cells: cells & target and not cells & open_cells)
        on_oct = place_where(lambda cells: cells & open_cells and not cells & target)
        for where, state, said in (
                (over, "overlaps", f"it would overlap {first['piece']}"),
                (on_oct, "covers", "it would cover ")):
            _press_tile(page, second["piece"])
            _hover_place(page, layout, second["piece"], 0, where)
            page.wait_for_selector(f'#play-board .landing[data-state="{state}"]', timeout=WAIT)
            assert _landing(page) == (state, _cells(shape, where))
            page.mouse.up()
            assert page.inner_text("#feedback").startswith(
                f"{second['piece']} went back to the tray: {said}")
            assert page.locator("#play-board .placed").count() == 1
        _press_tile(page, second["piece"])
        board = page.locator("#play-board").bounding_box()
        page.mouse.move(board["x"] + board["width"] + 5, board["y"] + board["height"] - 5,
                        steps=4)
        page.wait_for_selector('#drag[data-state="off"]')
        assert _landing(page) is None
        page.mouse.up()
        assert page.inner_text("#feedback") == \
            f"{second['piece']} went back to the tray: it was dropped off the board"
        assert page.locator("#play-board .placed").count() == 1
        # a position (kept in the browser) where a piece fits nowhere, however it is turned
        kept, stuck = _no_room(layout, _solution(slow_server, "calendar_day", ["Oct", "6"]))
        page.evaluate("""([key, kept]) => { localStorage.setItem(key, JSON.stringify(kept)); }""",
                      ["cpmodels-play:calendar_day:Oct,6:any", kept])
        page.reload()
        _verdict(page, len(kept))
        page.focus(f'#tray .tile[data-piece="{stuck}"]')
        page.keyboard.press("Enter")
        assert page.inner_text("#feedback") == (f"{stuck} fits nowhere on the board now, however "
                                                "it is turned: take a piece off or choose another")
        assert page.locator("#play-board .ghost").count() == 0
    finally:
        _close(page)


def _no_room(layout: dict, solution: list[dict]) -> tuple[list[dict], str]:
    """A solution with two pieces taken off and the first laid again elsewhere in the hole,
    so that the second fits nowhere in what is left: the position and that piece."""
    for a in solution:
        for b in solution:
            if a is b:
                continue
            rest = [p for p in solution if p is not a and p is not b]
            hole = {tuple(c) for c in a["cells"]} | {tuple(c) for c in b["cells"]}
            for shape in _shape(layout, a["piece"]):
                for place in shape["places"]:
                    cells = _cells(shape, place)
                    if not cells <= hole or cells == {tuple(c) for c in a["cells"]}:
                        continue
                    left = hole - cells
                    if not any(_cells(other, q) <= left for other in _shape(layout, b["piece"])
                               for q in other["places"]):
                        moved = {"piece": a["piece"], "cells": sorted(cells)}
                        return [*rest, moved], b["piece"]
    raise AssertionError("no position leaves a piece without room")


def _keyboard_place(page, layout: dict, piece: str, cells) -> None:
    """With the focus in the tray: choose the piece by the arrow keys and Enter, turn it with
    R and F, move it with the arrow keys, lay it with Enter."""
    for _ in range(20):
        if page.evaluate("document.activeElement.dataset.piece") == piece:
            break
        page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.piece") == piece
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "play-board"
    o, place = _find(layout, piece, cells)
    shapes = _shape(layout, piece)
    tile = page.locator(f'#tray .tile[data-piece="{piece}"]')
    for _ in range(2 * len(shapes) + 2):
        now = int(tile.get_attribute("data-orientation"))
        if now == o:
            break
        page.keyboard.press("f" if shapes[now]["face_up"] != shapes[o]["face_up"] else "r")
    assert int(tile.get_attribute("data-orientation")) == o
    want = _cells(shapes[o], place)
    for _ in range(40):
        ghost = {tuple(c) for c in json.loads(page.get_attribute("#play-board .ghost",
                                                                 "data-cells"))}
        if ghost == want:
            break
        _, at = _find(layout, piece, ghost)
        page.keyboard.press("ArrowRight" if place[2] > at[2] else "ArrowLeft"
                            if place[2] < at[2] else "ArrowDown" if place[3] > at[3]
                            else "ArrowUp")
    assert ghost == want
    page.keyboard.press("Enter")


def _turned_through_every_way(page, layout: dict, piece: str, taken: set) -> None:
    """The chosen piece turned by R and F through each of its ways and back: after every
    turn a ghost shows exactly when that way fits somewhere (on a free place), and the page
    says so in words when it does not; a way that fits shows its ghost again after a way
    that fits nowhere."""
    shapes = _shape(layout, piece)
    tile = page.locator(f'#tray .tile[data-piece="{piece}"]')
    start = tile.get_attribute("data-orientation")
    free = {o: [q for q in shape["places"] if not _cells(shape, q) & taken]
            for o, shape in enumerate(shapes)}
    assert any(free.values()) and not all(free.values())  # some ways fit, some do not
    for key in ["r"] * 4 + ["f"] + ["r"] * 4 + ["f"]:
        page.keyboard.press(key)
        o = int(tile.get_attribute("data-orientation"))
        ghosts = page.locator("#play-board .ghost")
        said = page.inner_text("#feedback")
        if free[o]:
            assert ghosts.count() == 1, (key, o, said)
            cells = {tuple(c) for c in json.loads(ghosts.get_attribute("data-cells"))}
            assert any(cells == _cells(shapes[o], q) for q in free[o]), (o, cells)
            assert "fits nowhere" not in said, said
        else:
            assert ghosts.count() == 0, (key, o)
            assert said == (f"{piece} fits nowhere turned this way: press R or F to turn it "
                            "on, or Enter to turn it to the next way it fits"), said
    assert tile.get_attribute("data-orientation") == start


def test_a_whole_game_by_keyboard_to_the_solved_board(browser, slow_server, layouts, tmp_path):
    layout = layouts["calendar_day"]
    page = _page(browser, LAPTOP)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    # a browser that shares (as a phone's does): what the page hands it is kept to be read
    page.add_init_script("navigator.share = async (data) => { navigator.shared = data; };")
    try:
        page.goto(f"{slow_server}/?spec=calendar_day&date=2024-10-06")
        _verdict(page, 0)
        # one Tab stop per area: the tools, the board, the pieces
        stops = page.evaluate("""() => ['#tool-row', '#play-board', '#tray'].map((area) =>
            [...document.querySelectorAll(`${area}, ${area} [tabindex], ${area} button`)]
              .filter((el) => el.tabIndex >= 0 && !el.disabled && !el.hidden).length)""")
        assert stops == [1, 1, 1]
        for _ in range(30):
            page.keyboard.press("Tab")
            if page.evaluate("!!document.activeElement.closest('#tool-row')"):
                break
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "play-board"
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.dataset.piece") == "O6"
        # a solution whose last piece fits nowhere in the way the tray shows it
        solution = _solution(slow_server, "calendar_day", ["Oct", "6"])
        last = next(p for p in solution if _find(layout, p["piece"], p["cells"])[0] != 0
                    and not any(_cells(_shape(layout, p["piece"])[0], q)
                                == {tuple(c) for c in p["cells"]}
                                for q in _shape(layout, p["piece"])[0]["places"]))
        order = [p for p in solution if p is not last] + [last]
        for n, p in enumerate(order[:-1], 1):
            _keyboard_place(page, layout, p["piece"], p["cells"])
            _verdict(page, n)
            assert page.evaluate("document.activeElement.closest('#tray') !== null")
        # the last piece chosen: it fits nowhere as the tray shows it, so it is turned
        assert page.get_attribute(f'#tray .tile[data-piece="{last["piece"]}"]',
                                  "data-orientation") == "0"
        for _ in range(20):
            if page.evaluate("document.activeElement.dataset.piece") == last["piece"]:
                break
            page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        assert page.inner_text("#feedback") == (
            f"{last['piece']} does not fit anywhere turned that way, so it was turned to the "
            "next way that fits (R and F turn it further)")
        ghost = json.loads(page.get_attribute("#play-board .ghost", "data-cells"))
        assert {tuple(c) for c in ghost} == {tuple(c) for c in last["cells"]}
        _turned_through_every_way(page, layout, last["piece"], taken={
            *(tuple(c) for p in order[:-1] for c in p["cells"]),
            *(tuple(c["cell"]) for c in layout["cells"] if c["label"] in ("Oct", "6"))})
        ghost = json.loads(page.get_attribute("#play-board .ghost", "data-cells"))
        assert {tuple(c) for c in ghost} == {tuple(c) for c in last["cells"]}
        page.keyboard.press("Enter")
        _verdict(page, len(solution))
        # solved: the board celebrates, the time, the moves, a share text with no placement
        assert page.inner_text("#feedback") == "Oct 6: solved! Every piece fits."
        assert page.evaluate("document.querySelector('#play-board').classList"
                             ".contains('celebrate')")
        pop = "getComputedStyle(document.querySelector('#play-board .placed')).animationName"
        assert page.evaluate(pop) == "pop"
        line = page.inner_text("#solved-line")
        assert re.fullmatch(r"Solved in \d+:\d\d with 8 moves!", line), line
        for selector in ("#solved-line", "#share-text", "#copy-share", "#yesterday",
                         "#another-date", "#play-board"):
            _within(page, selector, LAPTOP)
        share = page.inner_text("#share-text")
        took = line.removeprefix("Solved ").removesuffix("!")
        assert share.startswith(f"I solved the 8-piece month/day calendar puzzle for 2024-10-06 "
                                f"(Oct 6) {took}. Try it: {slow_server}/?spec=calendar_day"
                                "&date=2024-10-06"), share
        placed = [p["piece"] for p in solution]
        assert not [w for w in re.findall(r"[\w-]+", share.split("Try it")[0])
                    if w in placed and len(w) > 1]
        assert not re.search(r"\[|cells|\d+,\s*\d+", share)
        screenshot(page, tmp_path, "play-laptop-solved.png",
                   "CPMODELS_SCREENSHOT_PLAY_LAPTOP_SOLVED")
        page.click("#share")
        assert page.evaluate("navigator.shared.text") == share
        page.click("#copy-share")
        page.wait_for_function("document.querySelector('#copy-share').textContent === 'Copied'")
        assert page.evaluate("navigator.clipboard.readText()") == share
        page.emulate_media(reduced_motion="reduce")
        assert page.evaluate(pop) == "none"
        # the focus on a piece laid: its ring drawn inside the board, none cut off
        page.focus("#play-board")
        page.keyboard.press("ArrowRight")
        ring = page.evaluate("""() => {
            const g = document.activeElement, path = g.querySelector('path');
            const box = g.getBBox(), half = parseFloat(getComputedStyle(path).strokeWidth) / 2;
            const view = g.ownerSVGElement.viewBox.baseVal;
            return [g.classList.contains('placed'), getComputedStyle(path).stroke,
                    getComputedStyle(g).outlineStyle,
                    box.x - half >= view.x && box.y - half >= view.y &&
                    box.x + box.width + half <= view.x + view.width &&
                    box.y + box.height + half <= view.y + view.height]; }""")
        assert ring == [True, "rgb(42, 111, 219)", "none", True]
        # what to play next: yesterday's puzzle
        page.click("#yesterday")
        page.wait_for_url("**date=2024-10-05**")
        _verdict(page, 0)
        assert page.locator("#solved").is_hidden()
        assert page.inner_text("#goal") == ("Cover every cell but the month and day of "
                                            "2024-10-05.")
    finally:
        _close(page)


def test_the_solutions_view_waits_to_be_asked(browser, slow_server, layouts):
    page = _page(browser, LAPTOP)
    try:
        page.goto(f"{slow_server}/?spec=calendar_week&labels=Nov,24,Tue&view=solutions")
        page.wait_for_selector("#reveal-box:not([hidden])", timeout=WAIT)
        assert page.inner_text("#reveal") == "Show me solution 1"
        assert page.locator("#board svg").count() == 0
        assert page.locator("#prev").is_disabled() and page.locator("#next").is_disabled()
        # a hint: one piece, drawn on the board's cells, the puzzle named by its title
        page.click("#hint")
        page.wait_for_selector("#board svg.position", timeout=WAIT)
        assert page.locator("#board svg .cell").count() == len(layouts["calendar_week"]["cells"])
        assert page.locator("#board svg .shown").count() == 1
        assert page.locator("#board svg .cell.open").count() == 3
        drawn_title = page.text_content("#board svg > title")
        assert drawn_title == "10-piece weekday calendar, Nov 24 Tue: hint, 1 piece shown"
        assert page.locator("#reveal-box").is_hidden()  # hints asked for: a solution is next
        page.click("#show")
        page.wait_for_selector("#board svg path.piece", timeout=WAIT)
        assert page.locator("#board svg path.piece").count() == 10
        assert "calendar_week" not in page.text_content("#board svg > title")
        # a link past the last solution says so, and shows the first, the selectors agreeing
        # a link with no date: today's puzzle, the solution number kept
        page.goto(f"{slow_server}/?spec=calendar_week&view=solutions&solution=5")
        page.wait_for_selector("#reveal-box:not([hidden])", timeout=WAIT)
        assert page.inner_text("#reveal") == "Show me solution 5"
        assert "solution=5" in page.url and "date=" in page.url
        # a board link that cannot be read or played leaves the address
        for board, day, said in (("garbage", 6, "This link's board could not be read"),
                                 ("e30", 7, "This link's board cannot be played.")):
            page.goto(f"{slow_server}/?spec=calendar_day&labels=Oct,{day}#board={board}")
            page.wait_for_function("document.querySelector('#error').textContent.length > 0",
                                   timeout=WAIT)
            assert page.inner_text("#error").startswith(said), page.inner_text("#error")
            assert "#" not in page.url and f"labels=Oct,{day}" in page.url
        count = httpx.post(f"{slow_server}/api/count",
                           json={"spec": "calendar_day", "labels": ["Oct", "6"]},
                           timeout=30).json()["count"]
        assert count < 999999
        for asked, said in (("999999", f"there is no solution 999999: Oct 6 has {count:,}"),
                            ("abc", 'there is no solution "abc": solutions are numbered '
                                    "from 1")):
            page.goto(f"{slow_server}/?spec=calendar_day&labels=Oct,6&view=solutions"
                      f"&solution={asked}")
            page.wait_for_selector("#reveal-box:not([hidden])", timeout=WAIT)
            page.click("#reveal")
            page.wait_for_selector("#board svg path.piece", timeout=WAIT)
            page.wait_for_function("document.querySelector('#error').textContent.length > 0",
                                   timeout=WAIT)
            assert page.inner_text("#error") == f"{said}; showing solution 1"
            assert page.inner_text("#status").startswith("Oct 6: solution 1")
            assert "solution=" not in page.url
            assert page.input_value("#spec") == "calendar_day"
            assert [page.input_value(f"#group-{g}") for g in ("month", "day")] == ["Oct", "6"]
            assert page.locator("#prev").is_disabled() and page.locator("#next").is_enabled()
    finally:
        _close(page)
