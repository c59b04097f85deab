"""Every error the server answers says it twice: ``error``, the precise line for programs
(field paths and ``--options`` as the command line names them), and ``message``, the same
for a person. A sweep of hostile requests to every endpoint: each keeps its status, and no
message holds a field path, an option's spelling, a validator's phrase or an error's name."""

from __future__ import annotations

import re

import pytest
from conftest import SPECS, spec_fields
from fastapi.testclient import TestClient

from cpmodels.web.app import create_app
from cpmodels.web.wording import plain_text

# What a page must never show a person.
NOT_FOR_PEOPLE = [
    (re.compile(r"\[\d+\]"), "an index of a field path"),
    (re.compile(r"\b[a-z_]+\.[a-z_]+\b"), "a dotted field path"),
    (re.compile(r"(?:^|[.!?] )[a-z_\[\]0-9.]+: [a-z_\[\]0-9.]+: "), "a chain of fields"),
    (re.compile(r"(?:^|[.!?] )(?:board|body|query|pieces|groups): "), "a field's prefix"),
    (re.compile(r"(?<![\w-])--[a-z]"), "an option's spelling"),
    (re.compile(r"should have at least|Input should|validation|Field required|Value error|"
                r"List should|Dictionary should|String should|literal_error|extra_forbidden",
                re.I), "a validator's phrase"),
    (re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b|URI malformed|Failed to fetch|"
                r"Unexpected token|JSON\.parse|undefined|NaN"), "an error's name"),
]

QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def plainness(message: object) -> list[str]:
    """What is wrong with a message a person reads: nothing, or what it holds."""
    if not isinstance(message, str) or not message.strip():
        return [f"no message: {message!r}"]
    unquoted = QUOTED.sub("'...'", message)  # a value given, quoted back, may be anything
    wrong = [f"{what} in {message!r}" for pattern, what in NOT_FOR_PEOPLE
             if pattern.search(unquoted)]
    if not (message[0].isupper() or message[0].isdigit()) or message[-1] not in ".?!":
        wrong.append(f"not a sentence: {message!r}")
    return wrong


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app([SPECS / "calendar_week.yaml", SPECS / "calendar_day.yaml"]),
                      raise_server_exceptions=False)


DAY = spec_fields("calendar_day")
SMALL = {"board": ["A B C", "D E F"], "groups": {"top": ["A", "B", "C"],
                                                 "bottom": ["D", "E", "F"]},
         "pieces": [{"name": "L", "shape": "##/#."}, {"name": "I", "shape": "#"}]}
WEEK = {"spec": "calendar_week", "date": "2026-12-25"}


def _board(**change: object) -> dict:
    return {**SMALL, **change}


def _piece(**change: object) -> dict:
    return _board(pieces=[{**SMALL["pieces"][0], **change}, SMALL["pieces"][1]])


# Bad boards, each refused by every endpoint that takes a board with 422.
BAD_BOARDS = {
    "no pieces": _board(pieces=[]),
    "no groups": _board(groups={}),
    "no cells": _board(board=[], groups={}),
    "an empty group": _board(groups={**SMALL["groups"], "none": []}),
    "a piece apart": _piece(shape="#./.#"),
    "a piece's name of two words": _piece(name="two words"),
    "a piece's count below 0": _piece(count=-1),
    "a piece's count as text": _piece(count="many"),
    "a piece without shape": _board(pieces=[{"name": "L"}]),
    "an unknown field": _board(colour="red"),
    "a piece's unknown field": _piece(colour="red"),
    "an unknown grid": _board(grid="octagon"),
    "the cube grid": _board(grid="cube"),
    "flip as text": _board(flip="yes"),
    "a name with a slash": _board(name="a/b"),
    "labels in no group": _board(board=["A B C", "D E X"]),
    "labels not drawn": _board(groups={**SMALL["groups"], "more": ["Q"]}),
    "groups as a list": _board(groups=["top"]),
    "pieces as text": _board(pieces="L"),
    "a board as a number": _board(board=7),
    "too many cells": _board(board=["A B C", "D E F"] + [". " * 30] * 30),
    "the area never matches": _board(pieces=[SMALL["pieces"][0]]),
    "another kind": _board(kind="towers"),
    "not an object": ["A B C"],
    "a text": "calendar_day",
}
OPTIONS = {
    "cell=0": 422, "cell=nan": 422, "cell=abc": 422, "cell=1e999": 422, "kerf=100": 422,
    "clearance=-1": 422, "thickness=0": 422, "sheet=abc": 422, "sheet=0x0": 422,
    f"sheet={'9' * 50}": 422, "foo=1": 422,
}
PLAY_REQUESTS = [
    ("/api/solution", {"spec": "calendar_week", "date": "0000-01-01"}, 422),
    ("/api/solution", {"spec": "calendar_week", "date": "2026-02-30"}, 422),
    ("/api/solution", {"spec": "calendar_week", "date": 20261225}, 422),
    ("/api/solution", {"spec": "calendar_week", "date": ""}, 422),
    ("/api/solution", {"spec": "calendar_week", "labels": []}, 422),
    ("/api/solution", {"spec": "calendar_week", "labels": ["x" * 41, "1", "Mon"]}, 422),
    ("/api/solution", {"spec": "calendar_week", "labels": ["Foo", "1", "Mon"]}, 422),
    ("/api/solution", {"spec": "calendar_week", "labels": ["Jan"] * 11}, 422),
    ("/api/solution", {**WEEK, "index": -1}, 422),
    ("/api/solution", {**WEEK, "index": True}, 422),
    ("/api/solution", {**WEEK, "index": "3"}, 422),
    ("/api/solution", {**WEEK, "index": 10**9}, 422),
    ("/api/solution", {**WEEK, "face_up": "yes"}, 422),
    ("/api/solution", {"spec": "", "date": "2026-12-25"}, 422),
    ("/api/solution", {"spec": "nope", "date": "2026-12-25"}, 404),
    ("/api/solution", {**WEEK, "colour": "red"}, 422),
    ("/api/solution", {"date": "2026-12-25"}, 422),
    ("/api/solution", [], 422),
    ("/api/count", "calendar_week", 422),
    ("/api/count?foo=1", WEEK, 422),
    ("/api/check", {**WEEK, "placements": [{"piece": "", "cells": [[0, 0]]}]}, 422),
    ("/api/check", {**WEEK, "placements": [{"piece": "L5", "cells": [[0]]}]}, 422),
    ("/api/check", {**WEEK, "placements": [{"piece": "L5", "cells": [[1e20, 0]]}]}, 422),
    ("/api/check", {**WEEK, "placements": [{"piece": "nope", "cells": [[0, 0]]}]}, 422),
    ("/api/check", {**WEEK, "placements": [{"piece": "I4", "cells": [[99, 0], [100, 0],
                                                                      [101, 0], [102, 0]]}]},
     422),
    ("/api/check", {**WEEK, "placements": [{"piece": "I4", "cells": [[0, 0]]}] * 65}, 422),
    ("/api/hint", {**WEEK, "revealed": [{"piece": "I4"}]}, 422),
    ("/api/board/design", {"board": DAY, "always": ["nobody"], "choose": 7}, 422),
    ("/api/board/design", {"board": DAY, "always": ["O6"], "choose": "seven"}, 422),
    ("/api/board/design", {"board": DAY, "always": ["O6"], "choose": -1}, 422),
    ("/api/board/design", {"board": DAY, "always": ["O6"], "choose": 7,
                           "require": "sometimes"}, 422),
    ("/api/board/design", {"board": _board(pieces=[]), "choose": 1}, 422),
    ("/api/board/design", "calendar_day", 422),
]
GETS = [("/api/layout/nope", 404), ("/api/board/pools/octagon", 404),
        ("/api/board/start/nope", 404), ("/api/specs?foo=1", 422), ("/static/nope.js", 404)]


def _refusal(answer, status: int) -> dict:
    """An error answer: its status as before, ``error`` and ``message`` (a position no one
    could lay is said as play mode's other verdicts are, naming the placement)."""
    assert answer.status_code == status, answer.text
    data = answer.json()
    assert isinstance(data["error"], str) and data["error"]
    wrong = plainness(data["message"])
    if data.get("status") == "invalid":
        wrong = [w for w in wrong if not w.startswith("not a sentence")]
    assert wrong == []
    return data


def test_the_messages_people_met_are_said_for_a_person(client):
    played = _refusal(client.post("/api/board/play", json=_board(pieces=[])), 422)
    assert played["error"] == ("board: pieces: List should have at least 1 item after "
                               "validation, not 0 (got [])")
    assert played["message"] == "The board has no pieces yet: add at least one piece."
    dated = _refusal(client.post("/api/solution", json={"spec": "calendar_week",
                                                        "date": "0000-01-01"}), 422)
    assert dated["error"].startswith("date: ")
    assert dated["message"] == ("The date could not be read: give a real date written "
                                "YYYY-MM-DD, such as 2026-12-25.")
    checked = client.post("/api/board/check", json=_piece(shape="#./.#")).json()
    assert checked["errors"] == [{
        "field": "pieces[0].shape",
        "error": "the piece is not connected: every '#' must touch another '#' by an edge",
        "message": "Piece 1 is not connected: its cells must touch side to side."}]
    made = _refusal(client.post("/api/board/make?cell=0", json=SMALL), 422)
    assert made["error"] == "--cell 0: a cell must be 1 to 500 mm"
    assert made["message"] == "A cell must be 1 to 500 mm, not 0."


def test_a_board_check_says_each_problem_for_a_person(client):
    """Each problem of a board is one entry: its field, the precise error, the message."""
    board = _board(pieces=[{"name": "two words", "shape": "#./.#", "count": -1}],
                   groups={**SMALL["groups"], "more": ["Q"]})
    errors = client.post("/api/board/check", json=board).json()["errors"]
    assert len(errors) >= 3
    for entry in errors:
        assert set(entry) == {"field", "error", "message"} and plainness(entry["message"]) == []
    said = " ".join(e["message"] for e in errors)
    assert "Piece 1's name must be one word" in said and "Piece 1's count: give" in said
    assert "Piece 1 is not connected" in said
    whole = client.post("/api/board/counts", json=board)
    assert whole.status_code == 422
    assert whole.json()["message"].startswith(errors[0]["message"])


@pytest.mark.parametrize("name", list(BAD_BOARDS))
def test_a_bad_board_is_said_for_a_person_everywhere(client, name):
    board = BAD_BOARDS[name]
    checked = client.post("/api/board/check", json=board)
    assert checked.status_code == 200 and checked.json()["valid"] is False
    for entry in checked.json()["errors"]:
        assert plainness(entry["message"]) == [], entry
    for path in ("/api/board/play", "/api/board/counts", "/api/board/yaml"):
        _refusal(client.post(path, json=board), 422)


@pytest.mark.parametrize("option", list(OPTIONS))
def test_make_options_are_said_without_their_spelling(client, option):
    made = _refusal(client.post(f"/api/board/make?{option}", json=SMALL), OPTIONS[option])
    if option.startswith(("cell=0", "kerf", "clearance", "thickness")):
        assert made["error"].startswith(f"--{option.split('=')[0]} ")  # the CLI's words kept


@pytest.mark.parametrize(("path", "body", "status"), PLAY_REQUESTS,
                         ids=[f"{p} {str(b)[:60]}" for p, b, _ in PLAY_REQUESTS])
def test_bad_requests_are_said_for_a_person(client, path, body, status):
    answer = _refusal(client.post(path, json=body), status)
    if answer.get("status") == "invalid":  # a position no one could lay: said the same way
        assert answer["completions"] == 0


@pytest.mark.parametrize(("path", "status"), GETS)
def test_bad_addresses_are_said_for_a_person(client, path, status):
    _refusal(client.get(path), status)


@pytest.mark.parametrize(("body", "headers", "status"), [
    (b"{nope", {"content-type": "application/json"}, 422),
    (b"\xff\xfe{}", {"content-type": "application/json"}, 422),
    (b"[" * 40 + b"]" * 40, {"content-type": "application/json"}, 422),
    (b"{}", {"content-type": "text/plain"}, 415),
    (b"{" + b" " * (70 << 10) + b"}", {"content-type": "application/json"}, 413),
    (b'{"n": 1e999}', {"content-type": "application/json"}, 422),
])
def test_unreadable_bodies_are_said_for_a_person(client, body, headers, status):
    _refusal(client.post("/api/board/check", content=body, headers=headers), status)


@pytest.mark.parametrize("text", ["a: [", "- just\n- a list\n", "kind: calendar\nboard: 7\n",
                                  "x: 1\nx: 2\n"])
def test_a_bad_yaml_file_is_said_for_a_person(client, text):
    _refusal(client.post("/api/board/open", content=text.encode()), 422)


def test_command_line_spellings_are_said_in_words():
    """Messages that cross from ``cpmodels make``'s own process as text."""
    assert plain_text("the tray (700.0 x 520.0 mm at --cell 60) does not fit on a 600 x 400 "
                      "mm sheet with 5 mm margins; give a smaller --cell or a larger "
                      "--sheet") == (
        "The tray (700.0 x 520.0 mm with 60 mm cells) does not fit on a 600 x 400 mm sheet "
        "with 5 mm margins; give a smaller cell size or a larger sheet.")
    fonts = plain_text("the labels have characters no font here can engrave (\u6f22); give "
                       "--font a TTF or OTF file that has them (for Chinese, Japanese or "
                       "Korean: Noto Sans CJK)")
    assert plainness(fonts) == [] and "use other labels" in fonts


def test_the_drawings_name_their_puzzle_by_its_title(client):
    """A solution's and a hint's drawing (its SVG title, a tooltip) name the puzzle by the
    title the pages list it by, never by its spec's name."""
    puzzle = {"spec": "calendar_week", "labels": ["Nov", "27", "Fri"]}
    titles = [re.search(r"<title>([^<]*)</title>", client.post(path, json=body).json()["svg"])
              .group(1) for path, body in (("/api/solution", {**puzzle, "index": 1}),
                                           ("/api/hint", {**puzzle, "revealed": []}),
                                           ("/api/solution", {**puzzle, "labels":
                                                              ["Jan", "27", "Mon"],
                                                              "face_up": True}))]
    listed = {s["name"]: s["title"] for s in client.get("/api/specs").json()["specs"]}
    assert listed["calendar_week"] == "10-piece weekday calendar"  # the pages' one title
    assert titles == ["10-piece weekday calendar, Nov 27 Fri: solution 2",
                      "10-piece weekday calendar, Nov 27 Fri: hint, 1 of 10 pieces",
                      "10-piece weekday calendar, Jan 27 Mon: no solution"]
