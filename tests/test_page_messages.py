"""What the pages say when something is wrong, on a slow server (every API answer 60-180
ms late), on a laptop and a phone: a link whose board cannot be read or played, a date
before year 1, a piece that falls apart, a make size out of range. Each is said where it
is seen, in words for a person: what is wrong and what the page shows instead."""

from __future__ import annotations

import base64
import json

import pytest
from conftest import settled
from test_messages import NOT_FOR_PEOPLE, QUOTED

VIEWPORTS = [{"width": 1280, "height": 800}, {"width": 390, "height": 844}]
SMALL = {"name": "small", "board": ["A B C", "D E F"],
         "groups": {"top": ["A", "B", "C"], "bottom": ["D", "E", "F"]},
         "pieces": [{"name": "L", "shape": "##/#."}, {"name": "I", "shape": "#"}]}
# Every box a page says something in.
BOXES = ["#error", "#feedback", "#notice", "#link-notice", "#errors", "#shared",
         "#designsummary", "#summary", "#arith"]


SERVED, SERVER_SEED = ("calendar_week",), 11  # conftest's slow_server, answers PAGE_LATE


def _link(board: object) -> str:
    text = json.dumps(board).encode()
    return base64.urlsafe_b64encode(text).decode().rstrip("=")


def _said(page) -> list[str]:
    """What the page's message boxes say, each checked to be for a person."""
    texts = [t for t in page.eval_on_selector_all(
        ", ".join(BOXES), "els => els.map((e) => e.textContent.trim())") if t]
    for text in texts:
        unquoted = QUOTED.sub("'...'", text)
        assert [what for pattern, what in NOT_FOR_PEOPLE if pattern.search(unquoted)] == [], text
    return texts


def _in_view(page, selector: str, viewport: dict) -> None:
    settled(page)
    box = page.locator(selector).bounding_box()
    assert box is not None and box["height"] > 0, f"{selector} is not shown"
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 1, selector
    assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"] + 1, selector


def _says(page, selector: str, words: str) -> str:
    page.wait_for_function("([s, w]) => document.querySelector(s).textContent.includes(w)",
                           arg=[selector, words], timeout=30_000)
    return page.inner_text(selector)


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["laptop", "phone"])
def test_the_play_page_says_what_is_wrong_with_a_link(browser, slow_server, viewport):
    page = browser.new_page(viewport=viewport)
    sent: list[str] = []
    page.on("request", lambda r: sent.append(f"{r.url} {r.post_data}") if "/api/" in r.url
            else None)
    try:
        page.goto(f"{slow_server}/?spec=calendar_week&date=0000-01-01")
        said = _says(page, "#error", "is not a real date")
        assert said == ('"0000-01-01" is not a real date (years start at 1). Showing today\'s '
                        "puzzle instead.")
        _in_view(page, "#error", viewport)
        page.wait_for_selector("#tray .tile", timeout=30_000)
        assert not any("0000-01-01" in s for s in sent)  # nothing asked of the server
        _said(page)

        page.goto(f"{slow_server}/?link=1#board=garbage")
        said = _says(page, "#error", "could not be read")
        shown = page.eval_on_selector("#spec", "s => s.selectedOptions[0].textContent")
        assert said == ("This link's board could not be read (the link may have been cut "
                        f"short or changed). Here is {shown} instead.")
        _in_view(page, "#error", viewport)
        _said(page)

        # every way a link's board can be unreadable is said the same way
        hostile = ["#board=", "#board=%%%", f"#board={_link([1, 2])}", f"#board={_link(None)}",
                   f"#board={_link('text')}", "#board=_w", "#board=" + "A" * 200_000]
        said_of = page.evaluate("""hashes => import("/static/words.js").then((m) =>
            hashes.map((h) => { try { return m.linkedBoard(h); } catch (e) { return e.message; }
            }))""", hostile)
        assert set(said_of[:-1]) == {"This link's board could not be read (the link may have "
                                     "been cut short or changed)."}
        assert said_of[-1] == ("This link's board is too long to read: it has 200,000 "
                               "characters, and a board's link has at most 100,000.")
        assert page.evaluate("""import("/static/words.js").then((m) =>
            [m.linkedBoard(""), m.linkedBoard("#other")])""") == [None, None]

        unfinished = {**SMALL, "pieces": []}
        page.goto(f"{slow_server}/?link=2#board={_link(unfinished)}")
        said = _says(page, "#error", "cannot be played")
        assert said == ("This link's board cannot be played. The board has no pieces yet: "
                        f"add at least one piece. Here is {shown} instead.")
        _in_view(page, "#error", viewport)
        _said(page)

        # every query option at once, long and odd: one line naming what is wrong
        page.goto(f"{slow_server}/?spec={'x' * 300}&date=99999-01-01&solution=abc"
                  "&face_up=maybe&view=nonsense&labels=")
        said = _says(page, "#error", "There is no puzzle named")
        assert said == f'There is no puzzle named "{"x" * 40}\u2026". Showing {shown} instead.'
        _said(page)
    finally:
        page.close()


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["laptop", "phone"])
def test_the_editor_says_what_is_wrong_where_it_is_seen(browser, slow_server, viewport):
    page = browser.new_page(viewport=viewport)
    try:
        page.goto(f"{slow_server}/edit#board=garbage")
        said = _says(page, "#link-notice", "could not be read")
        assert said == ("This link's board could not be read (the link may have been cut "
                        "short or changed). Here is an empty board instead.")
        _in_view(page, "#link-notice", viewport)
        page.wait_for_selector("#guide-box:not([hidden])", timeout=30_000)
        assert page.locator("#board .cellgroup").count() == 49  # the empty 7 x 7 grid
        assert page.inner_text("#link-notice") == said  # the check that followed left it
        _said(page)

        page.goto(f"{slow_server}/edit?link=1#board={_link(SMALL)}")
        page.wait_for_selector("#summary[data-done]", timeout=30_000)
        assert page.locator("#link-notice").is_hidden()
        # a make size out of range: refused where it is, the button saying why nothing
        # was made, both in view (the server's own sentence is in test_messages.py)
        page.fill("#cellmm", "0")
        page.click("#make")
        assert _says(page, "#cellmm-problem", "number") == "type a number from 5 to 100"
        assert page.get_attribute("#cellmm", "aria-invalid") == "true"
        assert page.inner_text("#shared") == "the files need the sizes marked above"
        _in_view(page, "#cellmm-problem", viewport)
        _in_view(page, "#shared", viewport)
        _said(page)
        # a piece drawn apart: said as what it is to a person, where it was drawn
        for r, c in ((0, 0), (1, 1)):
            page.click(f'#pad .padcell[data-row="{r}"][data-col="{c}"]')
        page.fill("#padname", "X1")
        page.click("#padadd")
        assert _says(page, "#pad-problem", "more than one part").startswith(
            "The drawn cells are in more than one part")
        _said(page)
    finally:
        page.close()
