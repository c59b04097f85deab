"""The editor as a workshop, on a slow server (every API answer 60-180 ms late): the board
and its answers in view together on a laptop, the answer brought into view on a phone; bad
input refused in place; what an edit drops brought back by undo, the chosen set's highlight
following it."""

from __future__ import annotations

import base64
import json

import pytest
from conftest import settled

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

# A small drawn board (13 cells to cover) as its share link carries it.
BOARD = {"kind": "calendar", "name": "workshop", "grid": "square",
         "board": ["J . F . M", ". . . . .", "1 . 2 . 3"],
         "groups": {"letter": ["J", "F", "M"], "number": ["1", "2", "3"]}, "pieces": []}
CANDIDATES = (("dominoes", "D2"), ("trominoes", "I3", "V3"),
              ("tetrominoes", "I4", "L4", "T4", "O4", "S4"))



SERVED, SERVER_SEED = ("calendar_day",), 3  # conftest's slow_server, answers PAGE_LATE


def _open(browser, server: str, viewport: dict):
    page = browser.new_page(viewport=viewport)
    link = base64.urlsafe_b64encode(json.dumps(BOARD).encode()).decode().rstrip("=")
    page.goto(f"{server}/edit#board={link}")
    page.wait_for_selector("#board .cellgroup[data-token='J']", timeout=30_000)
    page.wait_for_selector("#poolpieces .add-piece", timeout=30_000)
    return page


def _in_view(page, selector: str) -> bool:
    """Whether the element's box is inside the viewport (to a pixel: boxes are fractional)."""
    settled(page)
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return (box is not None and box["y"] >= -1 and box["y"] + box["height"] <= size["height"] + 1
            and box["x"] >= -1 and box["x"] + box["width"] <= size["width"] + 1)


def _add(page, pool: str, *names: str, to: str = "board") -> None:
    page.select_option("#addto", to)
    page.select_option("#pool", pool)
    for name in names:
        page.click(f'#poolpieces .add-piece[data-piece="{name}"]')


def _pressed(page) -> list[str]:
    return page.eval_on_selector_all("#sets button", "bs => bs.map(b => b.ariaPressed)")


def _tokens(page) -> list[str]:
    return page.eval_on_selector_all("#board .cellgroup", "gs => gs.map(g => g.dataset.token)")


def _spec(page) -> dict:
    return page.evaluate('import("/static/edit.js").then((m) => m.spec())')


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_board_and_its_answers_are_in_view_together(browser, slow_server, viewport):
    page = _open(browser, slow_server, viewport)
    laptop = viewport is LAPTOP
    try:
        for pool, *names in CANDIDATES:
            _add(page, pool, *names, to="candidates")
        page.locator('#candidates .piece[data-piece="D2"] input.always').check()
        page.fill("#choose", "3")
        page.click("#design")
        page.wait_for_selector("#designsummary[data-done]", timeout=60_000)
        assert " sets work" in page.inner_text("#designsummary")
        assert page.locator("#sets li").count() >= 2
        # "Try them": its answer in view; on a laptop with the board beside it
        assert _in_view(page, "#designsummary") and _in_view(page, "#sets")
        if laptop:
            assert _in_view(page, "#board svg")
        # choosing a set: the board's count of it in view, with the board on a laptop
        first = page.locator("#sets li >> nth=0 >> button")
        first.click()
        page.wait_for_selector("#summary[data-done]", timeout=60_000)
        assert "every combination is solvable" in page.inner_text("#summary")
        assert _in_view(page, "#summary")
        if laptop:
            assert _in_view(page, "#board svg") and _in_view(page, "#legend")
            assert _in_view(page, "#sets li >> nth=0 >> button")
        chosen = sorted(p["name"] for p in _spec(page)["pieces"])
        assert chosen == sorted(page.get_attribute("#sets li >> nth=0", "data-pieces").split())
        # the chosen set's highlight follows undo and redo
        assert _pressed(page)[0] == "true" and _pressed(page).count("true") == 1
        page.keyboard.press("Control+z")
        assert _spec(page)["pieces"] == [] and "true" not in _pressed(page)
        page.keyboard.press("Control+y")
        assert _pressed(page)[0] == "true" and _pressed(page).count("true") == 1
        # a board taller than the window: a cell tapped with "show counts" at the window's top
        # has its counts, under the board, brought into view
        page.fill("#rows", "20")
        page.dispatch_event("#rows", "change")
        page.wait_for_selector("#summary[data-done]", timeout=60_000)
        page.check("input[name=tool][value=counts]")
        cell = page.locator("#board .cellgroup[data-token='J']")
        cell.evaluate("g => g.scrollIntoView({block: 'start'})")
        assert laptop or not _in_view(page, "#cellinfo")  # the laptop's board fits its window
        cell.click()
        assert page.inner_text("#cellinfo").startswith("J (letter): fewest ")
        assert _in_view(page, "#cellinfo")
        # a playable board is played in a new tab, under its own name
        if laptop:
            with page.context.expect_page() as played:
                page.click("#play")
            assert "#board=" in played.value.url
            played.value.close()
            assert page.inner_text("#shared") == ""
    finally:
        page.close()


BAD_WHOLE = ["", "0", "-5", "abc", "21", "2.5", "1e1", "3 4"]


def test_bad_input_is_refused_in_place_and_what_an_edit_drops_comes_back(browser,
                                                                          slow_server):
    page = _open(browser, slow_server, LAPTOP)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    try:
        _add(page, "tetrominoes", "L4")
        tokens, groups = _tokens(page), _spec(page)["groups"]
        # rows and columns: each bad value refused in place, the board and labels untouched
        for field, bad in [("rows", v) for v in BAD_WHOLE] + [("cols", "0"), ("cols", "x")]:
            page.fill(f"#{field}", bad)
            page.dispatch_event(f"#{field}", "change")
            assert page.get_attribute(f"#{field}", "aria-invalid") == "true", (field, bad)
            assert page.input_value(f"#{field}") == bad
            assert page.inner_text(f"#{field}-problem") == "type a whole number from 1 to 20"
            assert _tokens(page) == tokens and _spec(page)["groups"] == groups
            page.fill(f"#{field}", "3" if field == "rows" else "5")  # taken as it is typed
            assert page.get_attribute(f"#{field}", "aria-invalid") is None
            assert not page.is_visible(f"#{field}-problem")
        # how many to choose: refused before anything is asked
        _add(page, "trominoes", "I3", "V3", to="candidates")
        for bad in ["", "0", "-1", "abc", "1.5", "3"]:
            page.fill("#choose", bad)
            page.click("#design")
            assert page.get_attribute("#choose", "aria-invalid") == "true", bad
            assert page.inner_text("#choose-problem") == "type a whole number from 1 to 2"
            assert page.inner_text("#designsummary").startswith("choose a number from 1 to 2")
        # the make's sizes: refused in place, nothing made
        fields = [("cellmm", v, "type a number from 5 to 100")
                  for v in ("", "0", "-5", "abc", "101")]
        fields += [("kerf", v, "type a number from 0 to 1") for v in ("2", "-0.1", ".")]
        fields += [("sheet", v, "such as 600x400") for v in ("600", "0x400", "600x99999", "axb")]
        # a sheet no larger than its margins: refused here, not by the make's margin
        fields += [("sheet", v, "The sheet must be larger than 10 x 10 mm for cells of 12.5 mm: "
                                "the files keep 5 mm clear along each of its edges.")
                   for v in ("10x10", "1x1", "600x10")]
        for field, bad, said in fields:
            page.fill(f"#{field}", bad)
            page.click("#make")
            assert page.get_attribute(f"#{field}", "aria-invalid") == "true", (field, bad)
            assert said in page.inner_text(f"#{field}-problem")
            page.fill(f"#{field}", {"cellmm": "12.5", "kerf": "0.1", "sheet": "300x200"}[field])
            assert page.get_attribute(f"#{field}", "aria-invalid") is None
        # a piece's count: refused in place, kept as it was
        count = page.locator("#count-board-L4")
        count.fill("many")
        count.dispatch_event("change")
        assert count.get_attribute("aria-invalid") == "true"
        assert "a range such as 0-2" in page.inner_text("#count-board-L4-problem")
        assert [p.get("count", 1) for p in _spec(page)["pieces"]] == [1]
        # a drawn piece in two parts is refused with a sentence; one in one part is taken
        page.select_option("#addto", "board")
        for r, c in ((0, 0), (0, 2)):
            page.locator(f'#pad .padcell[data-row="{r}"][data-col="{c}"]').click()
        page.fill("#padname", "X")
        page.click("#padadd")
        assert "more than one part" in page.inner_text("#pad-problem")
        assert page.get_attribute("#pad", "aria-invalid") == "true"
        assert [p["name"] for p in _spec(page)["pieces"]] == ["L4"]
        page.locator('#pad .padcell[data-row="0"][data-col="1"]').click()
        page.click("#padadd")
        assert [p["name"] for p in _spec(page)["pieces"]] == ["L4", "X"]
        assert not page.is_visible("#pad-problem")
        assert not any("/api/board/make" in url or "/api/board/design" in url for url in asked)
        # a file that is no YAML text is refused beside Open, before it is sent
        for name, data in (("picture.yaml", b"\x89PNG\r\n\x1a\n\x00\x00"),
                           ("utf16.yaml", "name: x\n".encode("utf-16")),
                           ("latin1.yaml", b"name: caf\xe9\n")):
            page.set_input_files("#open", files=[{"name": name, "mimeType": "application/yaml",
                                                  "buffer": data}])
            page.wait_for_function("() => document.querySelector('#shared').textContent"
                                   " === 'This file is not a YAML text file.'")
            page.set_input_files("#open", files=[])
        assert not any("/api/board/open" in url for url in asked)
        # Play it refuses a board that cannot be played, in place: a bad name marks the field
        pages = len(page.context.pages)
        page.fill("#name", "My Fancy board!")
        page.click("#play")
        page.wait_for_selector("#name[aria-invalid='true']")
        assert page.inner_text("#name-problem") == (
            "A name is one word, such as my-calendar: letters, digits and signs, but no "
            "spaces, '/' or '#'.")
        page.wait_for_function("() => document.querySelector('#shared').textContent"
                               ".startsWith('This board cannot be played yet')")
        page.fill("#name", "workshop")
        page.click("#play")
        page.wait_for_function("() => document.querySelector('#shared').textContent"
                               ".includes('The pieces cover 7 cells')")
        assert page.get_attribute("#name", "aria-invalid") is None
        assert len(page.context.pages) == pages
        # no set of 1 of the candidates has the area: the page's sentence, not the server's
        page.fill("#choose", "1")
        page.click("#design")
        page.wait_for_function("() => document.querySelector('#designsummary').textContent"
                               ".startsWith('no set of 1 of the candidates')")
        # the grid switch drops the pieces, says so, and Ctrl+Z brings them back
        page.select_option("#grid", "hex")
        assert "Undo (Ctrl+Z) brings them back" in page.inner_text("#notice")
        assert _spec(page)["pieces"] == [] and page.locator("#candidates .piece").count() == 0
        page.keyboard.press("Control+z")
        assert page.input_value("#grid") == "square" and not page.is_visible("#notice")
        assert [p["name"] for p in _spec(page)["pieces"]] == ["L4", "X"]
        assert page.locator("#candidates .piece").count() == 2
        # on the hex grid a piece is connected through its own neighbours
        page.select_option("#grid", "hex")
        page.wait_for_selector("#poolpieces .add-piece[data-piece^='H']", timeout=30_000)
        for r, c in ((0, 0), (0, 1)):
            page.locator(f'#pad .padcell[data-row="{r}"][data-col="{c}"]').click()
        page.fill("#padname", "H")
        page.click("#padadd")
        assert [p["name"] for p in _spec(page)["pieces"]] == ["H"]
    finally:
        page.close()
