"""Odd links on the static site, each answered in a plain sentence where it is seen: a
solution "number" that is none, an editor link with no board, a broken editor link (its
board left out of the address), a piece's count far too large, a grid the editor does not
draw (said as the server says it)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from test_editor_counts import board_link
from test_play_game import WAIT
from test_site import DRAWN, LAPTOP, WEEK, _hosting

from cpmodels.web.app import create_app

NO_BOARD = "This link holds no board: it has no rows of cells. Here is an empty board instead."
TOO_MANY = "give a count from 1 to 1000, or a range [min, max]"


@pytest.fixture(scope="module")
def host(site):
    with _hosting(site[0]) as url:
        yield url


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=LAPTOP, service_workers="block")
    try:
        yield context.new_page()
    finally:
        context.close()


def _error(page, selector: str = "#error") -> str:
    page.wait_for_function("s => document.querySelector(s).textContent.length > 0",
                           arg=selector, timeout=WAIT)
    return page.inner_text(selector)


def test_a_solution_number_that_is_none_is_said_at_once(page, host):
    page.goto(f"{host}?spec=calendar_week&view=solutions&solution=abc")
    assert _error(page) == ('there is no solution "abc": solutions are numbered from 1; '
                            "showing solution 1")  # (as the page says a solution past the last)
    assert page.inner_text("#reveal") == "Show me solution 1"


def test_an_editor_link_without_a_board_says_so_and_leaves_the_address(page, host):
    for fields in ({"kind": "calendar", "name": "x"}, {"name": "x", "board": ["  "]}):
        page.goto("about:blank")  # (a new load: not a change of the address's hash alone)
        page.goto(f"{host}edit.html#board={board_link(fields)}")
        assert _error(page, "#link-notice") == NO_BOARD
        assert page.evaluate("location.hash") == ""  # a reload shows what is drawn
        assert page.input_value("#name") != "x"


def test_a_broken_editor_link_leaves_the_address(page, host):
    page.goto(f"{host}edit.html#board=%%%")
    assert _error(page, "#link-notice").endswith("Here is an empty board instead.")
    assert page.evaluate("location.hash") == ""


@pytest.mark.parametrize("count", [10**20, 10**30])
def test_a_count_far_too_large_is_said_too_large_as_the_server_says_it(page, host, count):
    fields = {**DRAWN, "pieces": [{**DRAWN["pieces"][0], "count": count}, *DRAWN["pieces"][1:]]}
    page.goto(f"{host}?link=1#board={board_link(fields)}")
    said = _error(page)
    assert TOO_MANY in said.replace("Give", "give"), said
    with TestClient(create_app([WEEK])) as client:
        for given in (count, float(count)):  # (JSON may write it 1e+20)
            body = {**fields, "kind": "calendar", "pieces": [
                {**DRAWN["pieces"][0], "count": given}, *DRAWN["pieces"][1:]]}
            answer = client.post("/api/board/check", json=body).json()
            said = " ".join(p["message"] for p in answer.get("errors", [])) or \
                answer["message"]
            assert "too large" in said or TOO_MANY in said.replace("Give", "give"), answer


def test_a_grid_the_editor_does_not_draw_offers_its_grids_alone(page, host):
    fields = {**DRAWN, "grid": "octagon"}
    page.goto(f"{host}?link=2#board={board_link(fields)}")
    said = _error(page)
    assert "The grid must be 'square', 'triangle' or 'hex'." in said and "cube" not in said
    with TestClient(create_app([WEEK])) as client:
        answer = client.post("/api/board/check", json={**fields, "kind": "calendar"}).json()
    said = [problem["message"] for problem in answer["errors"]]
    assert "The grid must be 'square', 'triangle' or 'hex'." in said, answer
    assert "cube" not in " ".join(said)
