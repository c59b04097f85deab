"""The daily-puzzle page: its JSON API, and end-to-end runs in headless Chromium."""

from __future__ import annotations

import datetime as dt
import threading

import httpx
import pytest
from checker import check_packing
from conftest import SPECS, running_server, screenshot
from fastapi.testclient import TestClient

from cpmodels.query import Query
from cpmodels.spec import load_spec
from cpmodels.web import puzzles as puzzles_module
from cpmodels.web.app import create_app

CALENDARS = [SPECS / "calendar_week.yaml", SPECS / "calendar_day.yaml"]
WEEK = SPECS / "calendar_week.yaml"


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(CALENDARS))


def _today_labels() -> list[str]:
    return list(Query.of(load_spec(WEEK)).labels)


def test_specs_list_the_calendars_and_today(client):
    data = client.get("/api/specs").json()
    assert [s["name"] for s in data["specs"]] == ["calendar_week", "calendar_day"]
    assert data["today"] == dt.date.today().isoformat()
    week = data["specs"][0]
    assert week["today"] == _today_labels() and week["flip"] and week["dates"]
    assert list(week["groups"]) == ["month", "day", "weekday"]


def test_solutions_step_in_a_fixed_order_and_are_legal(client):
    seen = []
    for index in range(4):
        data = client.post("/api/solution", json={"spec": "calendar_week",
                                                  "labels": ["Jun", "7", "Tue"],
                                                  "index": index}).json()
        assert data["status"] == "solved" and data["index"] == index
        assert data["svg"].startswith("<svg") and data["backend"] == "engine"
        check_packing(WEEK, data)
        seen.append(data["placements"])
    assert len({str(s) for s in seen}) == 4
    again = client.post("/api/solution", json={"spec": "calendar_week", "index": 2,
                                                "labels": ["Jun", "7", "Tue"]}).json()
    assert again["placements"] == seen[2]


def test_today_is_the_default(client):
    data = client.post("/api/solution", json={"spec": "calendar_week"}).json()
    assert data["labels"] == _today_labels() and data["status"] == "solved"


def test_count_and_the_last_solution(client):
    data = client.post("/api/count", json={"spec": "calendar_day",
                                           "date": "2024-10-06"}).json()
    assert data["count"] == 7 and data["labels"] == ["Oct", "6"]
    last = client.post("/api/solution", json={"spec": "calendar_day", "date": "2024-10-06",
                                              "index": 6}).json()
    assert last["status"] == "solved"
    beyond = client.post("/api/solution", json={"spec": "calendar_day", "date": "2024-10-06",
                                                "index": 7})
    assert beyond.status_code == 404 and "Oct 6 has 7" in beyond.json()["error"]


def test_hints_grow_into_a_full_solution(client):
    body = {"spec": "calendar_week", "labels": ["Apr", "6", "Mon"], "revealed": []}
    for shown in range(1, 11):
        data = client.post("/api/hint", json=body).json()
        assert len(data["revealed"]) == shown and data["svg"].count('class="piece"') == shown
        assert data["revealed"][: shown - 1] == body["revealed"]  # earlier pieces stay
        body["revealed"] = data["revealed"]
    assert data["complete"] is False  # the tenth piece completes the board
    final = client.post("/api/hint", json=body).json()
    assert final["complete"] is True and len(final["revealed"]) == 10
    board = client.post("/api/solution", json={"spec": "calendar_week",
                                                "labels": ["Apr", "6", "Mon"]}).json()
    check_packing(WEEK, {**board, "placements": final["revealed"]})


def test_face_up_date_without_solution(client):
    body = {"spec": "calendar_week", "date": "2025-01-27", "face_up": True}
    data = client.post("/api/solution", json=body).json()
    assert data["status"] == "unsolvable" and data["labels"] == ["Jan", "27", "Mon"]
    assert "has no solution with the pieces face up" in data["message"]
    hint = client.post("/api/hint", json=body)
    assert hint.status_code == 409 and "Jan 27 Mon has no solution" in hint.json()["error"]
    flipped = client.post("/api/solution", json={**body, "face_up": False}).json()
    assert flipped["status"] == "solved"


PIECE_FLIPS = """\
kind: calendar
name: piece_flips
flip: false
board:
  - "A B . ."
  - ". . . ."
  - ". . . ."
groups:
  g: [A, B]
pieces:
  - {name: L, shape: "###/#..", flip: true}
  - {name: O, shape: "##/##"}
  - {name: V, shape: "##/#."}
"""


def test_face_up_applies_where_only_a_piece_may_flip(tmp_path):
    """The spec says flip: false but one piece overrides it: face up still counts fewer."""
    path = tmp_path / "piece_flips.yaml"
    path.write_text(PIECE_FLIPS)
    app = TestClient(create_app([path]))
    assert app.get("/api/specs").json()["specs"][0]["flip"] is True
    counts = {up: app.post("/api/count", json={"spec": "piece_flips", "labels": ["A"],
                                               "face_up": up}).json()["count"]
              for up in (False, True)}
    assert counts == {False: 4, True: 1}
    solved = app.post("/api/solution", json={"spec": "piece_flips", "labels": ["A"],
                                             "face_up": True}).json()
    assert solved["face_up"] is True
    check_packing(path, solved, face_up=True)


BAD = [
    ("/api/solution", {"spec": "nope"}, 404, "no spec named 'nope'"),
    ("/api/solution", {"spec": "calendar_week", "date": "2025-02-30"}, 422, "date"),
    ("/api/solution", {"spec": "calendar_week", "date": "tomorrow"}, 422, "date"),
    ("/api/solution", {"spec": "calendar_week", "labels": ["Jan", "40", "Mon"]}, 422,
     "unknown label '40'"),
    ("/api/solution", {"spec": "calendar_week", "labels": ["Jan", "Feb", "Mon"]}, 422,
     "both in group 'month'"),
    ("/api/solution", {"spec": "calendar_week", "labels": ["Jan"]}, 422, "no label given"),
    ("/api/solution", {"spec": "calendar_week", "labels": []}, 422, "labels"),
    ("/api/solution", {"spec": "calendar_week", "labels": ["x"] * 11}, 422, "labels"),
    ("/api/solution", {"spec": "calendar_week", "date": "2025-01-01",
                       "labels": ["Jan", "1", "Wed"]}, 422, "not both"),
    ("/api/solution", {"spec": "calendar_week", "index": -1}, 422, "index"),
    ("/api/solution", {"spec": "calendar_week", "index": "first"}, 422, "index"),
    ("/api/solution", {"spec": "calendar_week", "index": 10**9}, 422, "first 100,000"),
    ("/api/solution", {"spec": "calendar_week", "extra": 1}, 422, "extra"),
    ("/api/solution", {}, 422, "spec is required"),
    ("/api/solution", [], 422, "request"),
    ("/api/solution", "not json", 422, "not valid JSON"),
    ("/api/count", {"spec": "calendar_week", "face_up": "maybe"}, 422, "face_up"),
    ("/api/hint", {"spec": "calendar_week", "revealed": [{"piece": "I4", "cells": [[0, 0]]}]},
     422, "cells [0, 0] are not the shape of I4"),
    ("/api/hint", {"spec": "calendar_week", "revealed": [{"piece": "Q", "cells": [[9, 9]]}]},
     422, "there is no piece 'Q'"),
    ("/api/hint", {"spec": "calendar_week", "revealed": [{"piece": "I4"}]}, 422, "cells"),
    ("/api/hint", {"spec": "calendar_week", "revealed": "all"}, 422, "revealed"),
]


@pytest.mark.parametrize(("path", "body", "status", "fragment"), BAD)
def test_bad_requests_get_a_clear_4xx(client, path, body, status, fragment):
    if isinstance(body, str):
        response = client.post(path, content=body, headers={"content-type": "application/json"})
    else:
        response = client.post(path, json=body)
    assert response.status_code == status, response.text
    assert fragment in response.json()["error"]


def test_serve_refuses_other_spec_kinds(run_cli):
    code, _, err = run_cli("serve", SPECS / "towers.yaml")
    assert code == 2 and "the page shows calendars" in err


def test_requests_write_nothing(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    client.post("/api/solution", json={"spec": "calendar_day", "index": 3})
    client.post("/api/count", json={"spec": "calendar_day"})
    client.post("/api/hint", json={"spec": "calendar_day"})
    assert list(tmp_path.iterdir()) == []


# --- a real server ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def server():
    with running_server(create_app(CALENDARS)) as url:
        yield url


def test_a_slow_count_does_not_block_the_page(server, monkeypatch):
    """The page and the list of calendars are answered while a count is still running:
    the count ends only once they have been (a count on the event loop would hold them up
    until the client gave up)."""
    counting, answered = threading.Event(), threading.Event()

    def slow_total(self, deadline=None):
        counting.set()
        answered.wait(60)
        return 7

    monkeypatch.setattr(puzzles_module.Solutions, "total", slow_total)
    counted: dict = {}
    worker = threading.Thread(target=lambda: counted.update(httpx.post(
        f"{server}/api/count", json={"spec": "calendar_day", "labels": ["Oct", "7"]},
        timeout=30).json()))
    worker.start()
    try:
        assert counting.wait(60), "the count did not start"
        assert httpx.get(f"{server}/", timeout=30).status_code == 200
        assert httpx.get(f"{server}/api/specs", timeout=30).status_code == 200
    finally:
        answered.set()
    worker.join()
    assert counted["count"] == 7


# --- the page in headless Chromium -----------------------------------------------------

@pytest.fixture
def page(browser, server):
    page = browser.new_page(viewport={"width": 760, "height": 980})
    page.goto(server + "/?view=solutions")
    page.wait_for_selector("#reveal-box:not([hidden])", timeout=30_000)
    page.click("#reveal")  # the view shows a solution when asked for
    page.wait_for_selector("#board svg path.piece", timeout=30_000)
    yield page
    page.close()


def _status(page) -> str:
    return page.locator("#status").inner_text()


def _pieces(page) -> int:
    """The pieces drawn: a solution's, or a hint's (drawn on the board's cells)."""
    return page.locator("#board svg path.piece, #board svg .shown").count()


def _wait_status(page, text: str) -> None:
    page.wait_for_function("t => document.querySelector('#status').textContent.includes(t)",
                           arg=text, timeout=30_000)


def test_page_opens_on_todays_solution(page):
    assert _status(page).startswith(" ".join(_today_labels()) + ": solution 1")
    assert _pieces(page) == 10
    labels = page.eval_on_selector_all("#board svg text.label",
                                       "els => els.map(e => e.textContent)")
    assert sorted(labels) == sorted(_today_labels())
    assert page.locator("#prev").is_disabled()


def test_page_steps_through_solutions(page):
    first = page.locator("#board").inner_html()
    page.click("#next")
    _wait_status(page, "solution 2")
    second = page.locator("#board").inner_html()
    assert second != first and _pieces(page) == 10
    page.click("#prev")
    _wait_status(page, "solution 1")
    assert page.locator("#board").inner_html() == first


def test_hint_reveals_one_piece_at_a_time(page):
    page.click("#hint")
    _wait_status(page, "1 piece shown")
    assert _pieces(page) == 1
    page.click("#hint")
    _wait_status(page, "2 pieces shown")
    assert _pieces(page) == 2
    page.click("#show")
    _wait_status(page, "solution 1")
    assert _pieces(page) == 10


def _use_labels_and_count(page, month: str, day: str, weekday: str) -> None:
    """Pick the labels, show their first solution, then count them."""
    for group, label in (("month", month), ("day", day), ("weekday", weekday)):
        page.select_option(f"#group-{group}", label)
    page.click("#use-labels")
    _wait_status(page, f"{month} {day} {weekday}: solution 1")
    page.click("#count")
    _wait_status(page, " solutions")


def test_count_and_labels(page):
    _use_labels_and_count(page, "Jun", "7", "Tue")
    assert "Jun 7 Tue: 10,374 solutions" in _status(page)


def test_a_date_without_solution_shows_an_error(page):
    page.check("#face-up")
    page.fill("#date", "2025-01-27")
    page.dispatch_event("#date", "change")
    page.wait_for_function("document.querySelector('#error').textContent.length > 0",
                           timeout=30_000)
    assert "Jan 27 Mon has no solution with the pieces face up" in page.locator(
        "#error").inner_text()
    assert _pieces(page) == 0
    assert page.locator("#next").is_disabled() and page.locator("#hint").is_disabled()


def test_screenshot(page, tmp_path):
    _use_labels_and_count(page, "Nov", "21", "Sat")
    screenshot(page, tmp_path, "serve.png", "CPMODELS_SCREENSHOT")  # refreshes the README's


def test_a_late_answer_does_not_overwrite_a_newer_one(browser, server):
    """The first load's answer is held back (fetch delayed in the page) while the date is
    changed: the newer answer (no solution face up) stays on the board when the older one
    arrives."""
    page = browser.new_page(viewport={"width": 760, "height": 980})
    page.add_init_script("""
        const original = window.fetch;
        let first = true;
        window.fetch = async (...args) => {
          const slow = first && String(args[0]).includes("api/solution");
          if (!slow) return original(...args);
          first = false;
          // Held back whether it is answered or aborted by the newer request (as it is
          // when the server is slower than the date's change): either way it comes last.
          try {
            return await original(...args);
          } finally {
            await new Promise((done) => setTimeout(done, 1500));
            setTimeout(() => { document.documentElement.dataset.heldBack = "answered"; }, 0);
          }
        };
    """)
    try:
        page.goto(server + "/?view=solutions")
        page.wait_for_selector("#reveal-box:not([hidden])", timeout=30_000)
        page.click("#reveal")  # asks for the first solution: its answer is held back
        page.check("#face-up")
        page.fill("#date", "2025-01-27")
        page.dispatch_event("#date", "change")
        page.wait_for_function("document.querySelector('#error').textContent.length > 0",
                               timeout=30_000)
        page.wait_for_selector("html[data-held-back]", state="attached", timeout=30_000)
        page.evaluate("() => new Promise((done) => setTimeout(done, 100))")  # and handled
        assert "Jan 27 Mon has no solution with the pieces face up" in page.locator(
            "#error").inner_text()
        assert _pieces(page) == 0
    finally:
        page.close()


def test_two_apps_in_one_process_share_nothing(tmp_path):
    """What a server holds (its puzzles, the boards played, its pool and stream limits) is
    its app's own: a board drawn and played on one is unknown to the other."""
    day, week = create_app([SPECS / "calendar_day.yaml"]), create_app([WEEK])
    one, other = day.state.server, week.state.server
    assert one is not other
    assert {id(one.puzzles), id(one.pool), id(one.streams), id(one.makes)}.isdisjoint(
        {id(other.puzzles), id(other.pool), id(other.streams), id(other.makes)})
    board = {"board": ["A B C", "D E F"], "groups": {"top": ["A", "B", "C"],
                                                     "bottom": ["D", "E", "F"]},
             "pieces": [{"name": "L", "shape": "##/#."}, {"name": "I", "shape": "#"}]}
    with TestClient(day) as first, TestClient(week) as second:
        assert [s["name"] for s in first.get("/api/specs").json()["specs"]] == ["calendar_day"]
        assert [s["name"] for s in second.get("/api/specs").json()["specs"]] == [
            "calendar_week"]
        played = first.post("/api/board/play", json=board).json()["name"]
        assert first.get(f"/api/layout/{played}").status_code == 200
        assert second.get(f"/api/layout/{played}").status_code == 404


def test_create_app_only_assembles_the_routers():
    """Every endpoint is a module-level handler of a router in web/routes/; the app module
    defines none of its own."""
    import ast
    import inspect

    from fastapi.routing import APIRoute

    from cpmodels.web import app as app_module
    from cpmodels.web.routes import board, pages, play

    paths = set()
    for module in (pages, play, board):
        for route in module.router.routes:
            assert isinstance(route, APIRoute)
            assert route.endpoint.__module__ == module.__name__
            assert "<locals>" not in route.endpoint.__qualname__
            paths.add(route.path)
    assert {"/", "/edit", "/api/specs", "/api/check", "/api/hint", "/api/grids",
            "/api/board/counts", "/api/board/make"} <= paths
    tree = ast.parse(inspect.getsource(app_module))
    defined = {node.name for node in ast.walk(tree)
               if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    assert defined == {"create_app", "lifespan"}
