"""Play mode: /api/layout and /api/check judged against an independent count, and the page
played in headless Chromium by dragging pieces (square, triangle and hex boards)."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, SPECS, cpu_seconds, page_globals, running_server, screenshot, settled
from fastapi.testclient import TestClient

from cpmodels.backends import cnf
from cpmodels.cover import packing_cover
from cpmodels.errors import OutOfTime
from cpmodels.geometry import Placement
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec
from cpmodels.web import play as play_module
from cpmodels.web.app import create_app

WEEK = SPECS / "calendar_week.yaml"
DAY = SPECS / "calendar_day.yaml"

TRIANGLE = """\
kind: calendar
name: triangle_calendar
grid: triangle
board:
  - "A . . . . . ."
  - ". . . . . . B"
groups:
  g: [A, B]
pieces:
  - {name: T, count: 3, cells: [[0, 0], [0, 1], [0, 2]]}
  - {name: Q, cells: [[0, 0], [0, 1], [0, 2], [0, 3]]}
"""

HEX = """\
kind: calendar
name: hex_calendar
grid: hex
board:
  - "A . . ."
  - ". . . ."
  - ". . . B"
groups:
  g: [A, B]
pieces:
  - {name: I3, cells: [[0, 0], [1, 0], [2, 0]]}
  - {name: V3, cells: [[0, 0], [1, 0], [0, 1]]}
  - {name: C3, cells: [[0, 0], [1, 0], [1, 1]]}
  - {name: D2, cells: [[0, 0], [1, 0]]}
"""


@pytest.fixture(scope="module")
def grid_specs(tmp_path_factory) -> list[Path]:
    folder = tmp_path_factory.mktemp("grids")
    paths = []
    for name, text in (("triangle_calendar", TRIANGLE), ("hex_calendar", HEX)):
        path = folder / f"{name}.yaml"
        path.write_text(text)
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def client(grid_specs):
    return TestClient(create_app([WEEK, DAY, *grid_specs]))


def _check(client, placements, **puzzle):
    body = {"placements": [{"piece": p.piece, "cells": [list(c) for c in p.cells]}
                           for p in placements], **puzzle}
    return client.post("/api/check", json=body)


def _all_solutions(path: Path, labels: list[str], face_up: bool = False):
    """Every solution, as sets of placements, enumerated by the CNF backend."""
    instance = packing_instance(Query.of(load_spec(path), labels=labels, face_up=face_up))
    placements = instance.cover.placements
    return instance, [frozenset(placements[j] for j in chosen)
                      for chosen in cnf.iter_solutions(instance.cover)]


# --- the API ---------------------------------------------------------------------------------

CASES = [(DAY, "calendar_day", ["Oct", "6"]), (DAY, "calendar_day", ["Feb", "29"]),
         (None, "triangle_calendar", ["A"]), (None, "hex_calendar", ["B"])]


@pytest.mark.parametrize(("path", "spec", "labels"), CASES)
def test_completions_agree_with_an_independent_enumeration(client, grid_specs, path, spec,
                                                            labels):
    """Random positions (parts of solutions and placements drawn at random) are judged as
    the CNF backend's full list of solutions says: how many contain the position."""
    path = path or next(p for p in grid_specs if p.stem == spec)
    instance, solutions = _all_solutions(path, labels)
    assert solutions
    rng = random.Random(f"{spec}{labels}")
    options = instance.cover.placements
    seen = set()
    for _ in range(25):
        base = sorted(rng.choice(solutions))
        position = rng.sample(base, rng.randint(0, len(base)))
        if rng.random() < 0.5:  # swap in a placement of another solution or any placement
            extra = rng.choice(options)
            position = [p for p in position if p.piece != extra.piece
                        and not set(p.cells) & set(extra.cells)] + [extra]
        data = _check(client, position, spec=spec, labels=labels).json()
        expected = sum(1 for s in solutions if set(position) <= s)
        full = len(position) == len(base) and frozenset(position) in solutions
        assert data["completions"] == expected, (position, data)
        assert data["status"] == ("solved" if full else "open" if expected else "dead_end")
        seen.add(data["status"])
        if data["status"] == "dead_end":  # each piece to take back does get out of it
            for k in data["take_back"]:
                rest = position[:k] + position[k + 1:]
                assert any(set(rest) <= s for s in solutions)
            others = set(range(len(position))) - set(data["take_back"])
            for k in others:
                rest = position[:k] + position[k + 1:]
                assert not any(set(rest) <= s for s in solutions)
    assert {"open", "dead_end"} <= seen


def test_statuses_and_messages(client):
    week = {"spec": "calendar_week", "labels": ["Jun", "7", "Tue"]}
    empty = _check(client, [], **week).json()
    assert empty == {"spec": "calendar_week", "labels": ["Jun", "7", "Tue"], "face_up": False,
                     "status": "open", "completions": 10374, "take_back": [],
                     "message": "10,374 solutions still possible from here"}
    solution = client.post("/api/solution", json=week).json()["placements"]
    full = [Placement(p["piece"], tuple(map(tuple, p["cells"]))) for p in solution]
    solved = _check(client, full, **week).json()
    assert solved["status"] == "solved" and solved["completions"] == 1
    assert solved["message"] == "solved!"
    one_left = _check(client, full[:-1], **week).json()
    assert one_left["status"] == "open" and one_left["completions"] == 1
    assert one_left["message"] == "1 solution still possible from here"


def test_a_dead_end_names_the_pieces_to_take_back(client):
    """Two pieces, each in some solution but in none together: either one taken back gets out
    of it, and both are named."""
    day = {"spec": "calendar_day", "labels": ["Oct", "6"]}
    _, solutions = _all_solutions(DAY, ["Oct", "6"])
    fine = sorted({p for s in solutions for p in s})
    a, b = next((a, b) for a in fine for b in fine
                if a.piece < b.piece and not set(a.cells) & set(b.cells)
                and not any({a, b} <= s for s in solutions))
    data = _check(client, [a, b], **day).json()
    assert data["status"] == "dead_end" and data["completions"] == 0, data
    assert data["take_back"] == [0, 1]
    assert data["message"] == (f"dead end: no solution contains these pieces; take back "
                               f"{a.piece} or {b.piece} to get out of it")


def test_dead_ends_where_one_piece_is_not_enough_and_without_any_solution(client):
    face_up = {"spec": "calendar_week", "date": "2025-01-27", "face_up": True}
    none = _check(client, [], **face_up).json()
    assert none["status"] == "dead_end" and none["completions"] == 0
    assert none["message"] == "Jan 27 Mon with the pieces face up has no solution"
    # Four corners of calendar_day each hold a piece the wrong way: two must go.
    instance, solutions = _all_solutions(DAY, ["Oct", "6"])
    rng = random.Random(7)
    for _ in range(2000):
        position: list[Placement] = []
        for p in rng.sample(instance.cover.placements, 30):
            if all(p.piece != q.piece and not set(p.cells) & set(q.cells) for q in position):
                position.append(p)
            if len(position) == 4:
                break
        ok = [any(set(position[:k] + position[k + 1:]) <= s for s in solutions)
              for k in range(len(position))]
        if len(position) == 4 and not any(ok):
            break
    data = _check(client, position, spec="calendar_day", labels=["Oct", "6"]).json()
    assert data["status"] == "dead_end" and data["take_back"] == []
    assert data["message"].endswith("taking back one piece is not enough")


def _placement(piece: str, *cells: tuple[int, int]) -> dict:
    return {"piece": piece, "cells": [list(c) for c in cells]}


I4 = [(2, 0), (3, 0), (4, 0), (5, 0)]
INVALID = [
    ("overlap", [_placement("I4", *I4), _placement("L4", (5, 0), (6, 0), (6, 1), (6, 2))],
     "placement 2 (L4) overlaps placement 1 (I4) at [5, 0]"),
    ("off the board", [_placement("I4", (0, 5), (0, 6), (0, 7), (0, 8))],
     "placement 1 (I4): cell [0, 6] is not on the board"),
    ("a wall", [_placement("I4", (7, 0), (7, 1), (7, 2), (7, 3))],
     "placement 1 (I4): cell [7, 0] is not on the board"),
    ("negative", [_placement("I4", (-1, 0), (0, 0), (1, 0), (2, 0))],
     "placement 1 (I4): cell [-1, 0] is not on the board"),
    ("open label", [_placement("I4", (1, 0), (1, 1), (1, 2), (1, 3))],
     "placement 1 (I4) covers Jul, which Jul 4 Sat leaves open"),
    ("used twice", [_placement("I4", *I4), _placement("I4", (2, 1), (3, 1), (4, 1), (5, 1))],
     "placement 2 (I4): I4 is placed twice; the puzzle has one"),
    ("wrong shape", [_placement("I4", (0, 1), (0, 2), (0, 3), (1, 3))],
     "placement 1 (I4): cells [0, 1], [0, 2], [0, 3], [1, 3] are not the shape of I4"),
    ("too few cells", [_placement("L5", *I4)], "are not the shape of L5"),
    ("not connected", [_placement("I4", (0, 0), (0, 2), (0, 3), (0, 4))],
     "are not the shape of I4"),
    ("a cell twice", [_placement("I4", (2, 0), (2, 0), (3, 0), (4, 0))],
     "placement 1 (I4): cell [2, 0] is listed twice"),
    ("unknown piece", [_placement("X5", (0, 0))], "placement 1: there is no piece 'X5'"),
]


@pytest.mark.parametrize(("what", "placements", "message"), INVALID,
                         ids=[case[0] for case in INVALID])
def test_invalid_positions_get_a_4xx_with_the_reason(client, what, placements, message):
    response = client.post("/api/check", json={"spec": "calendar_week", "date": "2026-07-04",
                                               "placements": placements})
    assert response.status_code == 422, response.text
    data = response.json()
    assert data["status"] == "invalid" and data["completions"] == 0
    assert message in data["message"] and data["error"] == data["message"]


def test_face_up_refuses_a_piece_turned_over(client):
    # N5 as drawn, then its mirror image: the second is refused only with face_up.
    week = {"spec": "calendar_week", "labels": ["Jun", "7", "Tue"]}
    spec = load_spec(WEEK)
    piece = next(p for p in spec.pieces if p.name == "N5")
    mirror = sorted((r, 6 - c) for r, c in piece.cells)
    body = [_placement("N5", *[(r + 3, c) for r, c in mirror])]
    assert client.post("/api/check", json={**week, "placements": body}).status_code == 200
    refused = client.post("/api/check", json={**week, "face_up": True, "placements": body})
    assert refused.status_code == 422
    assert refused.json()["message"] == ("placement 1 (N5) is turned over, and the pieces are "
                                         "face up")


def test_copies_of_a_piece(client):
    """The triangle calendar has three copies of T: three are fine, a fourth is not."""
    tri = {"spec": "triangle_calendar", "labels": ["A"]}
    three = [_placement("T", (0, 1), (0, 2), (0, 3)), _placement("T", (1, 1), (1, 2), (1, 3)),
             _placement("T", (0, 4), (0, 5), (0, 6))]
    assert _check_json(client, three, tri)["status"] in ("open", "dead_end")
    four = [*three, _placement("T", (1, 4), (1, 5), (1, 6))]
    response = client.post("/api/check", json={**tri, "placements": four})
    assert response.status_code == 422
    assert "T is placed 4 times; the puzzle has 3 of it" in response.json()["message"]


def _check_json(client, placements, puzzle):
    response = client.post("/api/check", json={**puzzle, "placements": placements})
    assert response.status_code == 200, response.text
    return response.json()


BAD_REQUESTS = [
    ({"spec": "nope"}, 404, "no spec named 'nope'"),
    ({"spec": "calendar_week", "placements": "all"}, 422, "placements"),
    ({"spec": "calendar_week", "placements": [{"piece": "I4"}]}, 422, "cells"),
    ({"spec": "calendar_week", "placements": [{"piece": "I4", "cells": [[0, 0, 0]]}]}, 422,
     "cells"),
    ({"spec": "calendar_week", "placements": [{"piece": "I4", "cells": [["a", 0]]}]}, 422,
     "cells"),
    ({"spec": "calendar_week", "placements": [{"piece": "I4", "cells": []}]}, 422, "cells"),
    ({"spec": "calendar_week", "placements": [_placement("I4", *I4)] * 65}, 422, "placements"),
    ({"spec": "calendar_week", "labels": ["Jan", "99", "Mon"]}, 422, "unknown label '99'"),
    ({"spec": "calendar_week", "date": "2025-02-30"}, 422, "date"),
    ({"spec": "calendar_week", "position": []}, 422, "position is not a field this request takes"),
]


@pytest.mark.parametrize(("body", "status", "fragment"), BAD_REQUESTS)
def test_bad_check_requests(client, body, status, fragment):
    response = client.post("/api/check", json=body)
    assert response.status_code == status, response.text
    assert fragment in response.json()["error"]


def test_layout_of_each_grid(client):
    for name, cells, flips in (("calendar_week", 50, True), ("triangle_calendar", 14, True),
                               ("hex_calendar", 12, True)):
        layout = client.get(f"/api/layout/{name}").json()
        assert layout["spec"] == name and len(layout["cells"]) == cells, name
        for piece in layout["pieces"]:
            shapes = piece["orientations"]
            assert shapes[0]["face_up"]
            for k, shape in enumerate(shapes):
                # a turn and a flip lead to orientations; turning six (four) times is a no-op
                assert shape["rotate"] is not None and (shape["flip"] is not None) == flips
                j = k
                for _ in range(12):
                    j = shapes[j]["rotate"]
                assert j == k
                if shape["flip"] is not None:
                    assert shapes[shape["flip"]]["flip"] == k
                    assert shapes[shape["flip"]]["face_up"] != shape["face_up"] or (
                        sorted(map(tuple, shapes[shape["flip"]]["cells"]))
                        in [sorted(map(tuple, s["cells"])) for s in shapes if s["face_up"]])
    assert client.get("/api/layout/nope").status_code == 404


def test_layout_places_are_every_placement_on_the_full_board(client, grid_specs):
    """Each orientation's places, laid out, are exactly the cover's placements of the board
    with no label open (counted with a calendar's own labels as plain cells)."""
    for path in (WEEK, *grid_specs):
        spec = load_spec(path)
        layout = client.get(f"/api/layout/{spec.name}").json()
        board = {tuple(c["cell"]) for c in layout["cells"]}
        assert board == set(spec.cells)
        listed = set()
        for piece in layout["pieces"]:
            for shape in piece["orientations"]:
                for dr, dc, _x, _y in shape["places"]:
                    cells = tuple(sorted((a + dr, b + dc) for a, b in shape["cells"]))
                    assert set(cells) <= board
                    listed.add(Placement(piece["name"], cells))
        kinds = spec.piece_kinds()
        expected = set(packing_cover(spec.cells, kinds, spec.geometry).placements)
        assert listed == expected, spec.name


def test_hints_build_on_the_players_position(client):
    week = {"spec": "calendar_week", "labels": ["Apr", "6", "Mon"]}
    instance = packing_instance(Query.of(load_spec(WEEK), labels=["Apr", "6", "Mon"]))
    solution = instance.cover.decode(sorted(next(iter(
        cnf.iter_solutions(instance.cover)))))
    # the player's own start: two pieces of some solution, not the engine's first
    revealed = [_placement(p.piece, *p.cells) for p in solution[3:5]]
    for _ in range(8):
        data = client.post("/api/hint", json={**week, "revealed": revealed}).json()
        assert data["revealed"][:len(revealed)] == revealed
        revealed = data["revealed"]
        status = _check_json(client, revealed, week)["status"]
        assert status in ("open", "solved")
    assert status == "solved"
    stuck = [_placement("I4", *I4)]  # a dead end: no solution has I4 in the corner column
    if _check_json(client, stuck, week)["status"] == "dead_end":
        response = client.post("/api/hint", json={**week, "revealed": stuck})
        assert response.status_code == 409 and "take some back" in response.json()["error"]


def test_a_count_that_takes_too_long_is_cut_off(monkeypatch):
    """A count still running at the request's time limit is stopped (its table's stop flag,
    as the engine's search reads it) and answers 504 with a clear message; the next request
    is answered in full."""
    app = TestClient(create_app([WEEK], time_limit=0.5))
    real = play_module.engine.EngineSession.count
    limits: list = []

    def endless(self, forced=(), *, time_limit=None):  # runs until its time limit
        limits.append(time_limit)
        start = time.perf_counter()
        while time.perf_counter() - start < (120 if time_limit is None else time_limit):
            time.sleep(0.01)
        raise OutOfTime("stopped")

    monkeypatch.setattr(play_module.engine.EngineSession, "count", endless)
    inst = packing_instance(Query.of(load_spec(WEEK), labels=["Jun", "7", "Tue"]))
    one = inst.cover.placements[0]
    response = _check(app, [one], spec="calendar_week", labels=["Jun", "7", "Tue"])
    assert response.status_code == 504
    assert "took longer than the server allows" in response.json()["error"]
    # The count was told the request's limit (what a busy machine cannot stretch), so it
    # stopped then; without one it would have run on.
    assert limits and all(limit is not None and limit <= 0.5 for limit in limits), limits
    monkeypatch.setattr(play_module.engine.EngineSession, "count", real)
    again = _check(app, [one], spec="calendar_week", labels=["Jun", "7", "Tue"])
    assert again.status_code == 200 and again.json()["status"] in ("open", "dead_end")


def test_the_engine_stops_a_long_count_at_the_deadline():
    """No stand-in: the 11-piece calendar's empty board counted with 0.05 s is cut off."""
    spec = load_spec(SPECS / "calendar_week_11.yaml")
    instance = packing_instance(Query.of(spec, labels=["Jan", "1", "Mon"]))
    start = cpu_seconds()
    with pytest.raises(OutOfTime, match="took longer than the server allows"):
        play_module.check_position(instance, [], deadline=time.perf_counter() + 0.05)
    assert cpu_seconds() - start < 3


def test_checks_from_many_threads_agree(client):
    """The same positions judged from eight threads at once give the same answers."""
    _, solutions = _all_solutions(DAY, ["Oct", "6"])
    rng = random.Random(3)
    positions = [rng.sample(sorted(rng.choice(solutions)), rng.randint(0, 4)) for _ in range(12)]
    expected = [sum(1 for s in solutions if set(p) <= s) for p in positions]
    results: dict[int, list[int]] = {}

    def worker(t: int) -> None:
        results[t] = [_check(client, p, spec="calendar_day", labels=["Oct", "6"])
                      .json()["completions"] for p in positions]

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert all(results[t] == expected for t in range(8))


# --- the page in headless Chromium -----------------------------------------------------------

@pytest.fixture(scope="module")
def server(grid_specs):
    with running_server(create_app([WEEK, DAY, *grid_specs])) as url:
        yield url


def _page_error(message) -> bool:
    """Whether a console message is an error of the page's: the puzzle's parts or engine.wasm
    missing (these servers serve neither, so the page asks the API) is none."""
    url = message.location.get("url", "")
    return message.type == "error" and "/api/puzzle/" not in url and \
        not url.endswith("/static/engine/engine.wasm")


@pytest.fixture
def player(browser, server):
    """A fresh page (its own storage) that fails the test on any console error."""
    context = browser.new_context(viewport={"width": 760, "height": 1100})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if _page_error(m) else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.console_errors = errors
    yield page
    context.close()
    assert errors == []


def _open(page, server, query: str) -> None:
    page.goto(f"{server}/?{query}")
    page.wait_for_function("document.querySelector('#feedback').textContent.length > 0",
                           timeout=30_000)


def _feedback(page) -> str:
    return page.locator("#feedback").inner_text()


def _wait_feedback(page, text: str) -> None:
    page.wait_for_function("t => document.querySelector('#feedback').textContent.includes(t)",
                           arg=text, timeout=30_000)


def _solution(server, spec: str, labels: list[str], index: int = 0) -> list[dict]:
    """Solution ``index`` of a puzzle, as the server gives it."""
    return httpx.post(f"{server}/api/solution", json={"spec": spec, "labels": labels,
                                                      "index": index},
                      timeout=30).json()["placements"]


def _layout(server, spec: str) -> dict:
    return httpx.get(f"{server}/api/layout/{spec}", timeout=30).json()


def _find(layout, piece: str, cells) -> tuple[int, list]:
    want = {tuple(c) for c in cells}
    info = next(p for p in layout["pieces"] if p["name"] == piece)
    for o, shape in enumerate(info["orientations"]):
        for place in shape["places"]:
            dr, dc = place[:2]
            if {(a + dr, b + dc) for a, b in shape["cells"]} == want:
                return o, place
    raise AssertionError(f"{piece} {cells} is no place")


def _turn_to(page, piece: str, o: int, layout) -> None:
    """Choose the piece in the tray and turn it (R, F) until it shows orientation o."""
    tile = page.locator(f'#tray .tile[data-piece="{piece}"]')
    shapes = next(p for p in layout["pieces"] if p["name"] == piece)["orientations"]
    if tile.get_attribute("aria-pressed") != "true":
        tile.click()
    for _ in range(len(shapes) * 2 + 2):
        now = int(tile.get_attribute("data-orientation"))
        if now == o:
            break
        # rotate until the face matches, then flip if needed
        if shapes[now]["face_up"] != shapes[o]["face_up"]:
            page.keyboard.press("f")
        else:
            page.keyboard.press("r")
    assert int(tile.get_attribute("data-orientation")) == o


def _drag_piece(page, layout, piece: str, cells) -> None:
    """Drag a piece from the tray so that it lands on ``cells``."""
    o, place = _find(layout, piece, cells)
    _turn_to(page, piece, o, layout)
    shape = next(p for p in layout["pieces"] if p["name"] == piece)["orientations"][o]
    mx, my = shape["mark"]
    settled(page)
    sx, sy, tx, ty = page.evaluate(
        """([piece, mx, my, bx, by]) => {
             const t = document.querySelector(`#tray .tile[data-piece="${piece}"] svg`)
               .getScreenCTM();
             const b = document.querySelector('#play-board').getScreenCTM();
             return [t.a * mx + t.e, t.d * my + t.f, b.a * bx + b.e, b.d * by + b.f];
           }""", [piece, mx, my, mx + place[2], my + place[3]])
    page.mouse.move(sx, sy)
    page.mouse.down()
    page.mouse.move(sx + 20, sy + 20, steps=3)
    page.mouse.move(tx, ty, steps=8)
    page.mouse.up()


def _wait_verdict(page, pieces: int) -> None:
    """Wait for the verdict on a position of this many pieces."""
    page.wait_for_selector(f'#feedback[data-pieces="{pieces}"][aria-busy="false"]',
                           timeout=30_000)


def _placed(page) -> int:
    return page.locator("#play-board .placed").count()


def test_play_a_whole_solution_by_dragging(player, server, tmp_path):
    labels = ["Dec", "25", "Fri"]
    _open(player, server, "spec=calendar_week&labels=Dec,25,Fri")
    _wait_feedback(player, "solutions still possible from here")
    layout = _layout(server, "calendar_week")
    solution = _solution(server, "calendar_week", labels, 5)
    for n, p in enumerate(solution, 1):
        _drag_piece(player, layout, p["piece"], p["cells"])
        _wait_verdict(player, n)
        if n < len(solution):
            assert "still possible from here" in _feedback(player)
        if n == 5:  # half played: the picture in the README
            screenshot(player, tmp_path, "play.png", "CPMODELS_SCREENSHOT_PLAY")
            assert (ROOT / "docs" / "images" / "play.png").stat().st_size > 10_000
    _wait_feedback(player, "Dec 25 Fri: solved!")
    assert player.locator("#feedback").get_attribute("class") == "solved"
    assert player.locator("#tray .tile:not([hidden])").count() == 0
    # the position is kept: a reload shows the same board, still solved
    player.reload()
    _wait_feedback(player, "solved!")
    assert _placed(player) == 10


def test_a_dead_end_and_the_way_out(player, server):
    _open(player, server, "spec=calendar_day&labels=Oct,6")
    layout = _layout(server, "calendar_day")
    instance, solutions = _all_solutions(DAY, ["Oct", "6"])
    day = {"spec": "calendar_day", "labels": ["Oct", "6"]}
    client = httpx.Client(base_url=server, timeout=30)
    # a first piece from a solution, then one that fits no solution with it
    first = sorted(solutions[0])[0]
    for p in instance.cover.placements:
        if p.piece == first.piece or set(p.cells) & set(first.cells):
            continue
        data = client.post("/api/check", json={**day, "placements": [
            _placement(first.piece, *first.cells), _placement(p.piece, *p.cells)]}).json()
        if data["status"] == "dead_end" and data["take_back"] == [1]:
            second = p
            break
    _drag_piece(player, layout, first.piece, first.cells)
    _wait_feedback(player, "still possible from here")
    _drag_piece(player, layout, second.piece, second.cells)
    _wait_feedback(player, "dead end")
    assert f"take back {second.piece}" in _feedback(player)
    assert player.locator("#play-board .placed.take-back").count() == 1
    # drag the piece named back to the tray: the position is open again
    tray = player.locator("#tray").bounding_box()
    x, y = _centre_of_cell(player, layout, second.cells[0])
    player.mouse.move(x, y)
    player.mouse.down()
    player.mouse.move(x + 10, y + 10, steps=2)
    player.mouse.move(tray["x"] + 20, tray["y"] + tray["height"] / 2, steps=8)
    player.mouse.up()
    _wait_feedback(player, "still possible from here")
    assert _placed(player) == 1
    # undo puts it back (dead end again): a hint says how to get out, undo gets out
    player.keyboard.press("u")
    _wait_feedback(player, "dead end")
    player.click("#play-hint")
    # the hint in a dead end says more than the dead end did: the way out, in focus
    assert _feedback(player).startswith("hint: no piece can be added here")
    assert f"take back {second.piece}" in _feedback(player)
    assert player.evaluate("document.activeElement.dataset.piece") == second.piece
    player.click("#undo")
    _wait_feedback(player, "still possible")
    assert _placed(player) == 1
    # hints build on the position: each adds a piece, until the board is solved
    for n in range(2, 9):
        player.click("#play-hint")
        _wait_verdict(player, n)
        if "solved!" in _feedback(player):
            break
        assert "still possible" in _feedback(player)
    assert "Oct 6: solved!" in _feedback(player)
    assert _placed(player) == n


def _centre_of_cell(page, layout, cell) -> tuple[float, float]:
    centre = next(c["centre"] for c in layout["cells"] if c["cell"] == list(cell))
    settled(page)
    return tuple(page.evaluate(
        """([x, y]) => { const b = document.querySelector('#play-board').getScreenCTM();
             return [b.a * x + b.e, b.d * y + b.f]; }""", centre))


def test_a_deep_link_opens_its_puzzle_and_the_url_follows(player, server):
    _open(player, server, "spec=calendar_week&date=2026-12-25&face_up=1")
    assert player.locator("#spec").input_value() == "calendar_week"
    assert player.locator("#date").input_value() == "2026-12-25"
    assert player.locator("#face-up").is_checked()
    assert player.locator("#flip").is_hidden()
    _wait_feedback(player, "still possible from here")
    opened = player.eval_on_selector_all("#play-board text.open",
                                         "els => els.map(e => e.textContent)")
    assert sorted(opened) == sorted(["Dec", "25", "Fri"])
    # the label selectors show the date's labels, so "Use these labels" keeps the puzzle
    assert [player.locator(f"#group-{g}").input_value()
            for g in ("month", "day", "weekday")] == ["Dec", "25", "Fri"]
    player.click("#use-labels")
    player.wait_for_url("**labels=Dec,25,Fri**")
    _wait_feedback(player, "still possible from here")
    count = httpx.post(f"{server}/api/count", json={"spec": "calendar_week",
                                                    "date": "2026-12-25", "face_up": True},
                       timeout=30).json()["count"]
    assert f"{count:,} solutions" in _feedback(player)
    # labels in the link, and the URL following a change of selection
    _open(player, server, "spec=calendar_week&labels=Feb,29,Mon")
    assert player.locator("#group-day").input_value() == "29"
    _wait_feedback(player, "still possible")
    player.select_option("#spec", "calendar_day")
    player.wait_for_url("**spec=calendar_day**")
    player.fill("#date", "2024-10-06")
    player.dispatch_event("#date", "change")
    player.wait_for_url("**date=2024-10-06**")
    _wait_feedback(player, "7 solutions still possible")
    player.click("#tab-solutions")
    player.wait_for_url("**view=solutions**")
    player.click("#reveal")  # a solution is shown when asked for
    player.wait_for_selector("#board svg path.piece", timeout=30_000)
    player.click("#next")
    player.wait_for_url("**solution=2**")
    player.click("#next")
    player.wait_for_url("**solution=3**")
    link = player.url
    other = player.context.new_page()
    other.goto(link)
    other.wait_for_function("document.querySelector('#reveal').textContent.includes('3')")
    assert other.inner_text("#reveal") == "Show me solution 3"
    other.click("#reveal")
    other.wait_for_selector("#board svg path.piece", timeout=30_000)
    assert other.locator("#status").inner_text().startswith("Oct 6: solution 3")
    assert other.locator("#board").inner_html() == player.locator("#board").inner_html()
    other.close()


def test_a_bad_deep_link_says_what_is_wrong(player, server):
    player.goto(f"{server}/?spec=nope&labels=Jan,1,Mon")
    player.wait_for_function("document.querySelector('#error').textContent.length > 0",
                             timeout=30_000)
    assert "There is no puzzle named \"nope\"" in player.locator("#error").inner_text()
    for query, message in (("labels=Jan,99,Mon", '10-piece weekday calendar has no label "99"'),
                           ("labels=Jan,Feb,Mon", "two labels of the group month"),
                           ("labels=Jan,1", "The link gives no label for weekday."),
                           ("date=2025-02-30", '"2025-02-30" is not a real date'),
                           ("date=tomorrow", '"tomorrow" is not a date')):
        player.goto(f"{server}/?spec=calendar_week&{query}")
        player.wait_for_function("document.querySelector('#error').textContent.length > 0",
                                 timeout=30_000)
        assert f"{message}" in player.locator("#error").inner_text()
        assert "Showing today's puzzle instead." in player.locator("#error").inner_text()
        _wait_feedback(player, "still possible")  # today's puzzle, to play


def test_keyboard_play_and_a_phone_sized_screen(browser, server):
    context = browser.new_context(viewport={"width": 375, "height": 800}, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if _page_error(m) else None)
    try:
        _open(page, server, "spec=calendar_day&labels=Oct,6")
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        board = page.locator("#play-board").bounding_box()
        assert board["x"] >= 0 and board["x"] + board["width"] <= 375
        # keyboard: focus the first tile, choose it with Enter, move, place with Enter
        page.locator("#tray .tile").first.focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("#play-board .ghost")
        assert page.evaluate("document.activeElement.id") == "play-board"
        for key in ("ArrowLeft", "ArrowUp", "ArrowUp", "r"):
            page.keyboard.press(key)
        before = _feedback(page)
        for _ in range(12):  # move until the ghost may go down, then place it
            page.keyboard.press("Enter")
            if _placed(page) == 1:
                break
            page.keyboard.press("ArrowRight")
        assert _placed(page) == 1
        page.wait_for_function("b => document.querySelector('#feedback').textContent !== b",
                               arg=before, timeout=30_000)
        # Delete takes off the piece in focus
        page.locator("#play-board .placed").first.focus()
        page.keyboard.press("Delete")
        page.wait_for_function("document.querySelectorAll('#play-board .placed').length === 0")
        # a tap on a tile and a tap on the board place a piece (touch)
        page.locator("#tray .tile").nth(1).tap()
        x, y = _centre_of_cell(page, _layout(server, "calendar_day"), (3, 3))
        page.touchscreen.tap(x, y)
        page.wait_for_function("document.querySelectorAll('#play-board .placed').length === 1")
    finally:
        context.close()
    assert errors == []


@pytest.mark.parametrize("spec", ["triangle_calendar", "hex_calendar"])
def test_other_grids_play_to_the_end(player, server, spec):
    _open(player, server, f"spec={spec}&labels=A")
    layout = _layout(server, spec)
    solution = _solution(server, spec, ["A"])
    for n, p in enumerate(solution, 1):
        _drag_piece(player, layout, p["piece"], p["cells"])
        _wait_verdict(player, n)
    _wait_feedback(player, "A: solved!")


# --- the page as a person meets it: positions on a laptop and on a phone ----------------------

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _within(page, selector: str, viewport: dict) -> None:
    """The element's box lies wholly within the viewport, as the page is scrolled now and
    laid out (its resize observers run)."""
    settled(page)
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= viewport["width"] + 0.5, (selector, box)
    assert box["y"] + box["height"] <= viewport["height"] + 0.5, (selector, box)


# What the page's error line says when its verdict line first says anything (the count begun).
ERROR_AT_FIRST_WORD = """document.addEventListener("DOMContentLoaded", () => {
    const feedback = document.querySelector("#feedback");
    const seen = new MutationObserver(() => {
        if (!feedback.textContent) return;
        window.errorAtFirstWord = document.querySelector("#error").textContent;
        seen.disconnect();
    });
    seen.observe(feedback, {childList: true, characterData: true, subtree: true});
});"""

TOOLS = ("#rotate", "#flip", "#undo", "#clear", "#play-hint", "#feedback")


@pytest.mark.parametrize("query", ["spec=calendar_week&labels=Nov,24,Tue",
                                   "spec=calendar_week&date=2026-02-29"])
def test_play_is_on_one_laptop_screen(browser, server, tmp_path, query):
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    try:
        page.add_init_script(ERROR_AT_FIRST_WORD)
        _open(page, server, query)
        if "date" in query:  # the link's error is there as the board is, not a count later
            said = page.evaluate("window.errorAtFirstWord")
            assert "Showing today's puzzle instead." in said, said
        _wait_feedback(page, "still possible")
        settled(page)  # the footer's words came with the engine: the board refits to them
        assert page.evaluate("document.documentElement.scrollHeight") <= LAPTOP["height"]
        for selector in ("#play-board", "#tray", *TOOLS):
            _within(page, selector, LAPTOP)
        for k in range(page.locator("#tray .tile").count()):  # the whole tray
            _within(page, f"#tray .tile >> nth={k}", LAPTOP)
        if "date" in query:  # with an error shown above it, too
            assert "Showing today's puzzle instead." in page.locator("#error").inner_text()
        else:
            screenshot(page, tmp_path, "play-laptop.png", "CPMODELS_SCREENSHOT_PLAY_LAPTOP")
        page.click("#tab-solutions")  # the solutions view too: its board and its buttons
        page.click("#reveal")
        page.wait_for_selector("#board svg path.piece", timeout=30_000)
        for selector in ("#board svg", "#prev", "#next", "#count", "#status"):
            _within(page, selector, LAPTOP)
    finally:
        context.close()


def test_on_a_phone_the_tools_and_the_verdict_stay_in_view(browser, server, tmp_path):
    context = browser.new_context(viewport=PHONE, has_touch=True)
    page = context.new_page()
    try:
        _open(page, server, "spec=calendar_week&labels=Nov,24,Tue")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        # the puzzle's choices folded into one line: the board and the whole tray on screen
        assert page.locator("#spec").is_hidden()
        assert page.inner_text("#puzzle-summary") == "10-piece weekday calendar, Nov 24 Tue"
        for selector in ("#play-board", "#tray", *TOOLS):
            _within(page, selector, PHONE)
        page.locator("#puzzle-summary").tap()  # opened, the board shrinks: the tray in view
        assert page.locator("#spec").is_visible()
        page.wait_for_function("""() => { const t = document.querySelector('#tray')
            .getBoundingClientRect(); return t.bottom <= innerHeight; }""")
        page.locator("#tray .tile").last.tap()
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        assert page.evaluate("window.scrollY") > 0  # scrolled down to the help
        for selector in TOOLS:
            _within(page, selector, PHONE)
        x, y = _centre_of_cell(page, _layout(server, "calendar_week"), (6, 1))
        assert 0 < y < PHONE["height"]
        page.touchscreen.tap(x, y)
        _wait_verdict(page, 1)
        for selector in TOOLS:
            _within(page, selector, PHONE)
        # the tools are not drawn over by the board: a tap on Undo undoes
        page.locator("#undo").tap()
        page.wait_for_function("document.querySelectorAll('#play-board .placed').length === 0")
        page.evaluate("window.scrollTo(0, 0)")
        page.locator("#puzzle-summary").tap()  # folded again
        assert page.locator("#spec").is_hidden()
        # a window grown wide shows the choices, with no line to unfold them
        page.set_viewport_size(LAPTOP)
        page.wait_for_function("document.querySelector('#puzzle-box').open")
        assert page.locator("#spec").is_visible() and page.locator("#puzzle-summary").is_hidden()
        page.set_viewport_size(PHONE)
        page.locator("#puzzle-summary").tap()
        screenshot(page, tmp_path, "play-phone.png", "CPMODELS_SCREENSHOT_PLAY_PHONE")
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_errors_are_at_the_top_in_plain_words(browser, server, viewport):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    try:
        for query, message in (
                ("spec=nope&labels=Jan,1,Mon", 'There is no puzzle named "nope"'),
                ("spec=calendar_week&date=2026-02-29",
                 '"2026-02-29" is not a real date (2026 has no February 29)'),
                ("spec=calendar_week&date=2026-13-01",
                 '"2026-13-01" is not a real date (there is no month 13)'),
                ("spec=calendar_week&date=26-1-1", '"26-1-1" is not a date: write it as')):
            page.goto(f"{server}/?{query}")
            page.wait_for_function("document.querySelector('#error').textContent.length > 0",
                                   timeout=30_000)
            assert message in page.locator("#error").inner_text()
            box = page.locator("#error").bounding_box()
            assert box["y"] + box["height"] <= 200, box
    finally:
        context.close()


def test_pieces_are_lettered_by_their_names_and_puzzles_by_their_titles(player, server):
    _open(player, server, "spec=calendar_week&labels=Nov,24,Tue")
    letters = player.eval_on_selector_all(
        "#tray .tile", "ts => ts.map(t => [t.dataset.piece, t.querySelector('text').textContent])")
    assert letters and all(piece == letter for piece, letter in letters)
    assert ["L5", "L5"] in letters
    options = player.eval_on_selector_all("#spec option", "os => os.map(o => o.textContent)")
    assert options[:2] == ["10-piece weekday calendar", "8-piece month/day calendar"]
    # the title is not cut short: the picker is as wide as its longest title
    fits = player.evaluate("""() => {
        const select = document.querySelector('#spec');
        const probe = document.createElement('span');
        probe.style.font = getComputedStyle(select).font;
        probe.textContent = [...select.options].map(o => o.textContent)
          .reduce((a, b) => (a.length > b.length ? a : b));
        document.body.append(probe);
        const wide = probe.getBoundingClientRect().width;
        probe.remove();
        return select.getBoundingClientRect().width >= wide;
      }""")
    assert fits


def test_the_solutions_view_letters_its_pieces_as_play_does(player, server):
    player.goto(f"{server}/?spec=calendar_week&labels=Nov,24,Tue&view=solutions")
    player.click("#reveal")
    player.wait_for_selector("#board svg text.piece-letter", timeout=30_000)
    found = player.evaluate("""() => [...document.querySelectorAll('#board svg path.piece')]
        .map((path) => {
          const text = path.nextElementSibling;
          const point = new DOMPoint(+text.getAttribute('x'), +text.getAttribute('y'));
          return [path.dataset.piece, text.textContent, path.isPointInFill(point)];
        })""")
    assert len(found) == 10
    assert all(piece == letter and inside for piece, letter, inside in found)


def test_the_play_page_leaves_no_global_names(player, server, browser):
    """The page's scripts are ES modules: what they share they import, nothing is global."""
    _open(player, server, "spec=calendar_day&labels=Mar,14")
    assert page_globals(player, browser) == []
