"""The play page on a slow server: every API answer comes 150-400 ms late while the puzzle is
changed in quick succession (face up ticked and unticked, dates changed, a date box
cleared). No request is built from a state that is not settled, and the answer shown is
the one for the puzzle last chosen, in the server's words."""

from __future__ import annotations

import json
import re

import pytest

DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
NO_SOLUTION = {"solutions": "Jan 27 Mon has no solution with the pieces face up",
               "play": "Jan 27 Mon with the pieces face up has no solution"}
MESSAGE_BOX = {"solutions": "#error", "play": "#feedback"}



SERVED, SERVER_SEED = ("calendar_week",), 7  # conftest's slow_server
SERVER_LATE = (0.15, 0.4)  # later than the other page tests' answers


def _settled(url: str, body: str | None) -> list[str]:
    """What is wrong with an API request the page made: a URL or body holding what no
    settled state gives (NaN, undefined, null, an index that is not a whole number)."""
    wrong = [f"{url}: {word}" for word in ("NaN", "undefined", "null") if word in url]
    if not body:
        return wrong
    for word in ("NaN", "undefined", "Infinity"):
        if word in body:
            wrong.append(f"{url} {body}: {word}")
    data = json.loads(body)
    if isinstance(data, dict) and "spec" in data:
        if "index" in data and not (type(data["index"]) is int and data["index"] >= 0):
            wrong.append(f"{url} {body}: index")
        if "date" in data and not (isinstance(data["date"], str) and DATE.match(data["date"])):
            wrong.append(f"{url} {body}: date")
        if "labels" in data and not (isinstance(data["labels"], list) and data["labels"]):
            wrong.append(f"{url} {body}: labels")
        if type(data.get("face_up")) is not bool:
            wrong.append(f"{url} {body}: face_up")
        wrong += [f"{url} {body}: {key} is null" for key, value in data.items()
                  if value is None]
    return wrong


@pytest.mark.parametrize("view", ["solutions", "play"])
def test_quick_changes_on_a_slow_server_send_only_settled_requests(browser, slow_server,
                                                                   view):
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    sent: list[tuple[str, str | None]] = []
    open_requests: set = set()

    def started(request) -> None:
        if "/api/" in request.url:
            sent.append((request.url, request.post_data))
            open_requests.add(request)

    def ended(request) -> None:
        open_requests.discard(request)

    page.on("request", started)
    page.on("requestfinished", ended)
    page.on("requestfailed", ended)
    try:
        page.goto(f"{slow_server}/?view={view}")
        page.wait_for_function("document.querySelectorAll('#spec option').length > 0",
                               timeout=30_000)
        if view == "solutions":  # a solution is shown once asked for
            page.click("#reveal")

        def date(value: str) -> None:
            page.fill("#date", value)
            page.dispatch_event("#date", "change")

        page.check("#face-up")
        date("2025-01-27")
        date("2025-03-14")
        page.uncheck("#face-up")
        date("")  # a date box cleared, as while a date is typed
        page.check("#face-up")
        date("2026-12-25")
        page.uncheck("#face-up")
        page.check("#face-up")
        date("2025-01-27")
        box = MESSAGE_BOX[view]
        page.wait_for_function(
            "([box, text]) => document.querySelector(box).textContent.includes(text)",
            arg=[box, NO_SOLUTION[view]], timeout=30_000)
        for _ in range(100):  # every answer delayed is in, and handled
            if not open_requests:
                break
            page.wait_for_timeout(100)
        page.wait_for_timeout(300)
        assert not open_requests
        assert NO_SOLUTION[view] in page.locator(box).inner_text()
        assert page.locator("#error").inner_text() in ("", NO_SOLUTION["solutions"])
        assert page.locator("#face-up").is_checked()
        assert page.input_value("#date") == "2025-01-27"
        wrong = [w for url, body in sent for w in _settled(url, body)]
        assert wrong == []
        assert len(sent) >= 5  # the page asked while the puzzle was being changed
    finally:
        page.close()


def test_a_linked_dates_labels_are_shown_before_the_server_answers(browser, slow_server):
    """The server's answers held back: a deep link's date is in the label menus and open on
    the play board at once, the verdict says it is counting, and "Use these labels" in the
    solutions view keeps the date's labels (not the listing's today)."""
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    held: list = []
    try:
        page.route("**/api/puzzle/**", lambda route: route.fulfill(status=404, body="{}"))
        page.route("**/api/check", lambda route: held.append(route))
        page.goto(f"{slow_server}/?spec=calendar_week&date=2024-02-29")
        page.wait_for_selector("#play-board text.open", timeout=30_000)
        page.wait_for_function("document.querySelector('#feedback').textContent !== ''",
                               timeout=30_000)
        menus = "els => els.map(e => e.value)"
        opened = page.eval_on_selector_all("#play-board text.open",
                                           "els => els.map(e => e.textContent)")
        assert sorted(opened) == ["29", "Feb", "Thu"]
        assert page.eval_on_selector_all("#labels-box select", menus) == ["Feb", "29", "Thu"]
        assert page.inner_text("#feedback") == "Feb 29 Thu: counting the solutions ..."
        assert page.inner_text("#answers-by") == "Answers come from the cpmodels server."
        page.goto(f"{slow_server}/?spec=calendar_week&date=2024-02-29&view=solutions")
        page.wait_for_selector("#labels-box select", timeout=30_000)
        assert page.eval_on_selector_all("#labels-box select", menus) == ["Feb", "29", "Thu"]
        page.click("#use-labels")
        assert "labels=Feb,29,Thu" in page.url
    finally:
        page.close()
