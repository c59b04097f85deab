"""The editor's other questions of a drawn board, through the API: which sets of its
pieces work (against sweeps of each set), playing it, and the zip of its files to make;
bad requests refused at once, a closed connection stopping the design."""

from __future__ import annotations

import io
import json
import time
import zipfile
from pathlib import Path

import httpx
import pytest
import yaml
from conftest import cpu_seconds, ndjson_lines, running_server, spec_fields
from fastapi.testclient import TestClient

from cpmodels.api import sweep
from cpmodels.errors import InputError
from cpmodels.palette import pools
from cpmodels.web.app import create_app

SPECS = Path(__file__).resolve().parent.parent / "specs"



@pytest.fixture(scope="module")
def client():
    return TestClient(create_app([SPECS / "calendar_day.yaml"]))



def test_the_sets_that_work_are_those_whose_sweeps_solve_every_date(client, tmp_path):
    board = spec_fields("calendar_day")
    board["pieces"].append({"name": "T", "shape": "###/.#./.#."})  # 8 pentominoes to pick 7
    lines = ndjson_lines(client.post("/api/board/design", json={
        "board": board, "always": ["O6"], "choose": 7, "require": "real-dates"}))
    assert lines[0]["candidates"] == 8
    verdicts, done = lines[1:-1], lines[-1]
    assert done["done"] and len(verdicts) == 8
    by_name = {p["name"]: p for p in board["pieces"]}
    expected = []
    for verdict in verdicts:
        path = tmp_path / ("-".join(verdict["pieces"]) + ".yaml")
        path.write_text(yaml.safe_dump({**board, "pieces": [by_name[n] for n in verdict["pieces"]]},
                                       sort_keys=False))
        swept = sweep(path)
        real = {labels: row.count for labels, row in swept.rows.items()
                if row.real_date}
        assert verdict["works"] == (min(real.values()) > 0)
        if verdict["works"]:
            assert verdict["min"] == min(real.values())
            assert verdict["total"] == sum(real.values())
            expected.append((-verdict["min"], -verdict["total"], verdict["pieces"]))
    assert [w["pieces"] for w in done["working"]] == [p for *_, p in sorted(expected)]
    original = ["O6", "L", "N", "P", "U", "V", "Y", "Z"]
    assert any(sorted(w["pieces"]) == sorted(original) and w["min"] == 7
               for w in done["working"])


def test_the_editor_answers_a_design_as_cpmodels_design(client):
    """The month/day board with the rectangle and any 7 of the 12 pentominoes (792 sets)
    asked of the editor: every set's verdict, first failure, fewest, most and total, and
    the ranking, are ``run_design``'s on the same question (the order of dates learnt from
    the same first sets by the core's rule, on each of the editor's threads)."""
    from cpmodels.design import Design, ranked, run_design
    from cpmodels.web.designing import BoardDesign

    board = spec_fields("calendar_day")
    board["pieces"] = [board["pieces"][0], *({"name": p["name"], "shape": p["shape"]}
                                             for p in pools("square")["pentominoes"])]
    request = {"board": board, "always": ["O6"], "choose": 7, "require": "real-dates"}
    lines = ndjson_lines(client.post("/api/board/design", json=request))
    served, done = lines[1:-1], lines[-1]
    asked = BoardDesign(request)
    native = run_design(Design(asked._design, asked._board), jobs=1)
    assert len(served) == len(native) == 792
    by_set = {tuple(v["pieces"]): v for v in served}
    assert {tuple(v.as_dict()["pieces"]): v.as_dict() for v in native} == by_set
    assert sum(v["first_failure"] is not None for v in served) == 792 - len(done["working"])
    assert [w["pieces"] for w in done["working"]] == [
        w.as_dict()["pieces"] for w in ranked(native)]


@pytest.mark.parametrize(("change", "words"), [
    (lambda r: r.update(board={"grid": "hex", "board": ["A B .", "1 2 ."],
                               "groups": {"letter": ["A", "B"], "number": ["1", "2"]},
                               "pieces": [{"name": "H1", "cells": [[0, 0]]},
                                          {"name": "H2", "cells": [[0, 0], [1, 0]]},
                                          {"name": "H3", "cells": [[0, 0], [1, 0], [2, 0]]}]}),
     "square board"),
    (lambda r: r.update(always=["nobody"]), "names of pieces"),
    (lambda r: r.update(choose="seven"), "count"),
    (lambda r: r.update(choose=60), "50"),
    (lambda r: r.update(always=[p["name"] for p in r["board"]["pieces"]]), "leave some"),
    (lambda r: r["board"]["pieces"].extend(
        {"name": f"X{k}", "shape": "#" * (k % 5 + 1)} for k in range(40)), "at most 5,000"),
    (lambda r: r.update(board="calendar_day"), "JSON object"),
])
def test_a_bad_design_request_is_refused_at_once(client, change, words):
    request = {"board": spec_fields("calendar_day"), "always": ["O6"], "choose": 7}
    change(request)
    start = cpu_seconds()
    refused = client.post("/api/board/design", json=request)
    assert refused.status_code == 422 and words in refused.json()["error"], refused.text
    assert cpu_seconds() - start < 2.0


def test_a_design_no_set_of_which_covers_the_board_says_why(client):
    lines = ndjson_lines(client.post("/api/board/design", json={
        "board": spec_fields("calendar_day"), "always": [], "choose": 2}))
    assert lines[0]["candidates"] == 0 and lines[-1]["done"] and lines[-1]["working"] == []
    assert "covers the 41 cells" in lines[-1]["message"]


def test_a_closed_connection_stops_the_design():
    """The month/day board with the rectangle and any 7 of the 12 pentominoes (792 sets):
    dropped after its first verdict, the deciding stops and the CPU is idle."""
    board = spec_fields("calendar_day")
    board["pieces"] = [board["pieces"][0], *({"name": p["name"], "shape": p["shape"]}
                                             for p in pools("square")["pentominoes"])]
    app = create_app([SPECS / "calendar_day.yaml"])
    with running_server(app) as url:
        with httpx.Client(timeout=60) as http, \
                http.stream("POST", f"{url}/api/board/design",
                            json={"board": board, "always": ["O6"], "choose": 7}) as response:
            assert response.status_code == 200
            lines = response.iter_lines()
            assert json.loads(next(lines))["candidates"] == 792
            assert "works" in json.loads(next(lines))
        time.sleep(1.5)
        before = time.process_time()
        time.sleep(1.0)
        assert time.process_time() - before < 0.3, "the design went on after its stream closed"


def test_a_drawn_board_is_played_as_a_puzzle_of_its_own(client, tmp_path):
    board = spec_fields("calendar_day")
    board["pieces"][4] = {"name": "T", "shape": "###/.#./.#."}
    played = client.post("/api/board/play", json=board).json()
    again = client.post("/api/board/play", json=board).json()
    assert played["name"] == again["name"] and played["name"].startswith("drawn-")
    assert played["groups"]["month"][0] == "Jan" and played["dates"]
    answer = client.post("/api/count", json={"spec": played["name"], "date": "2026-03-14"})
    saved = tmp_path / "drawn.yaml"
    saved.write_text(yaml.safe_dump(board, sort_keys=False))
    assert answer.json()["count"] == sweep(saved).rows[("Mar", "14")].count
    assert client.post("/api/count", json={"spec": "calendar_day", "date": "2026-03-14"}
                       ).json()["count"] != answer.json()["count"]
    board["pieces"].pop()
    assert client.post("/api/board/play", json=board).status_code == 422


def test_the_files_to_make_a_drawn_board_come_as_one_zip(client):
    board = spec_fields("calendar_day")
    answer = client.post("/api/board/make?cell=15&kerf=0.1", json=board)
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(answer.content)) as archive:
        names = set(archive.namelist())
        manifest = json.loads(archive.read("calendar_day/manifest.json"))
    assert {"calendar_day/sheet-1.svg", "calendar_day/sheet-1.dxf", "calendar_day/tray.stl",
            "calendar_day/piece-O6.stl"} <= names
    assert manifest["options"]["cell"] == 15 and manifest["options"]["kerf"] == 0.1
    for query, words in (("kerf=30", "kerf"), ("sheet=20x20", "sheet"),
                         ("sheet=big", "WxH"), ("cell=nope", "cell")):
        refused = client.post(f"/api/board/make?{query}", json=board)
        assert refused.status_code == 422 and words in refused.json()["error"], query


def test_the_editor_starts_from_any_served_calendar(tmp_path):
    mine = spec_fields("calendar_day")
    mine["name"] = "my_day"
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(mine, sort_keys=False))
    client = TestClient(create_app([path]))
    assert "Design a calendar puzzle" in client.get("/edit").text
    assert client.get("/api/board/start/my_day").json() == mine
    assert client.get("/api/board/start/calendar_day").status_code == 404
    assert client.get("/api/board/pools/cube").status_code == 404
    pools_here = client.get("/api/board/pools/hex").json()
    assert [len(v) for v in pools_here.values()] == [1, 1, 3, 7]  # polyhexes of 1 to 4 cells


def test_three_designs_at_once_give_one_answer():
    """The design question from three threads at once (a server's, a notebook's): each
    decides the same sets the same way."""
    import threading

    from cpmodels.web.designing import BoardDesign

    board = spec_fields("calendar_day")
    board["pieces"].append({"name": "T", "shape": "###/.#./.#."})
    request = {"board": board, "always": ["O6"], "choose": 7}
    answers: list = []

    def decide() -> None:
        lines = list(BoardDesign(request).rows())
        answers.append((sorted((tuple(v["pieces"]), v["works"], v["min"], v["total"])
                               for v in lines[1:-1]), lines[-1]["working"]))

    threads = [threading.Thread(target=decide) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(answers) == 3 and answers[0] == answers[1] == answers[2]
    assert sum(works for _, works, _, _ in answers[0][0]) == len(answers[0][1]) == 4


# -- hostile input: one status for one kind of bad input, on every endpoint -----------------

JSON_ENDPOINTS = ["/api/solution", "/api/count", "/api/hint", "/api/check", "/api/board/yaml",
                  "/api/board/check", "/api/board/counts", "/api/board/design",
                  "/api/board/play", "/api/board/make"]
NOT_JSON = [
    (b"{nope", "not valid JSON"),
    (b"[" * 30_000 + b"]" * 30_000, "nested"),  # past Python's recursion limit
    (b'{"board": ' + b"[" * 40 + b"]" * 40 + b"}", "nested"),  # within it, past the bound
    (b'{"spec": ' + b"9" * 5_000 + b"}", "number"),  # past Python's 4,300 digits
    (b"\xff\xfe{}", "UTF-16"),
]


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
@pytest.mark.parametrize(("body", "words"), NOT_JSON, ids=["bad", "deep", "nested", "digits",
                                                          "bytes"])
def test_a_body_that_is_not_json_gets_422_everywhere(client, path, body, words):
    answer = client.post(path, content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 422, answer.text
    if path.startswith("/api/board/") or len(body) > 1000:  # (else: no such field, 422)
        assert words in answer.json()["error"], answer.text


@pytest.mark.parametrize("path", [*JSON_ENDPOINTS, "/api/board/open"])
def test_a_body_too_large_gets_413_everywhere(client, path):
    body = b'{"board": "' + b"x" * (70 << 10) + b'"}'
    answer = client.post(path, content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 413 and "larger than" in answer.json()["error"]


@pytest.mark.parametrize("length", [b"9" * 5_000, b"65537", b"-1", b"1e9", b"\xd9\xa1"])
def test_a_declared_length_too_large_or_not_a_length_gets_413_unread(length):
    """(A length of 5,000 digits was read as an integer: past Python's limit, an error.)"""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from cpmodels.web.limits import BodyLimit

    async def app(scope, receive, send):
        raise AssertionError("the request went on")

    sent: list = []

    async def send(message):
        sent.append(message)

    async def receive():
        raise AssertionError("the body was read")

    limit = BodyLimit(app, max_bytes=65536)
    request = limit({"type": "http", "path": "/api/count",
                     "headers": [(b"content-length", length)]}, receive, send)
    with ThreadPoolExecutor(1) as thread:  # a loop of its own (a browser's may be running)
        thread.submit(asyncio.run, request).result(10)
    assert sent[0]["status"] == 413 and b"larger than" in sent[1]["body"]


@pytest.mark.parametrize("path", [p for p in JSON_ENDPOINTS if p != "/api/board/check"])
@pytest.mark.parametrize("body", [[], "calendar_day", 7, {"spec": ["calendar_day"]},
                                  {"board": {"a": 1}}, {"spec": 1.5, "labels": "Jan"}])
def test_a_body_of_the_wrong_shape_gets_422_everywhere(client, path, body):
    """(``/api/board/check``'s answer to a bad board is its errors, with 200.)"""
    answer = client.post(path, json=body)
    assert answer.status_code == 422 and answer.json()["error"], answer.text


@pytest.mark.parametrize(("method", "path"), [
    *(("POST", p) for p in [*JSON_ENDPOINTS, "/api/board/open"]),
    ("GET", "/api/specs"), ("GET", "/api/layout/calendar_day"),
    ("GET", "/api/board/pools/square"), ("GET", "/api/board/start/calendar_day")])
def test_an_unknown_query_option_gets_422_everywhere(client, method, path):
    body = spec_fields("calendar_day") if path.startswith("/api/board/") else {
        "spec": "calendar_day", "date": "2026-03-14"}
    answer = client.request(method, f"{path}?foo=1&cell=2", json=body)
    error = answer.json()["error"]
    assert answer.status_code == 422 and "unknown query option" in error and "'foo'" in error
    assert client.get("/?spec=calendar_day&date=2026-03-14").status_code == 200  # the pages'


BAD_SPECS = [
    {"board": ["A B", "C"], "groups": {"g": ["A", "B", "Z"]},
     "pieces": [{"name": "I", "shape": "#"}]},  # a label not on the board
    {"board": ["A B"], "groups": {"g": ["A", "B"]},
     "pieces": [{"name": "I", "shape": "#", "count": "many"}]},  # a wrong type
    {"kind": "packing", "board": ["A B"], "groups": {"g": ["A", "B"]},
     "pieces": [{"name": "I", "shape": "#"}]},  # not a calendar
    {"board": ["A B"], "groups": {"g": ["A", "B"]}},  # no pieces
    {"board": ["A B C"], "groups": {"g": ["A", "B", "C"]},
     "pieces": [{"name": "I", "shape": "#"}], "flip": "sometimes"},  # not a yes or no
]


@pytest.mark.parametrize("bad", BAD_SPECS, ids=["label", "type", "kind", "pieces", "flip"])
def test_the_same_bad_spec_gets_one_status_on_every_endpoint_that_takes_one(client, bad):
    """A spec every endpoint taking one refuses alike: 422 with a message, whether it
    comes as JSON fields, inside a design request or as YAML; ``/api/board/check`` answers
    it with its errors."""
    answers = {path: client.post(path, json=bad) for path in
               ["/api/board/yaml", "/api/board/counts", "/api/board/play", "/api/board/make"]}
    answers["/api/board/design"] = client.post("/api/board/design", json={
        "board": bad, "always": [], "choose": 1, "require": "all-combinations"})
    answers["/api/board/open"] = client.post("/api/board/open",
                                             content=yaml.safe_dump(bad).encode())
    statuses = {path: answer.status_code for path, answer in answers.items()}
    assert set(statuses.values()) == {422}, statuses
    assert all(answer.json()["error"] for answer in answers.values())
    checked = client.post("/api/board/check", json=bad).json()
    assert checked["valid"] is False and checked["errors"]


def test_an_unknown_spec_gets_404_on_every_endpoint_that_names_one(client):
    puzzle = {"spec": "no_such_calendar", "date": "2026-03-14"}
    answers = [client.post(path, json=puzzle)
               for path in ("/api/solution", "/api/count", "/api/hint", "/api/check")]
    answers += [client.get("/api/layout/no_such_calendar"),
                client.get("/api/board/start/no_such_calendar")]
    assert [a.status_code for a in answers] == [404] * len(answers)
    assert all("no_such_calendar" in a.json()["error"] for a in answers)


@pytest.mark.parametrize("text", [
    "kind: calendar\nboard: ['A B']\ngroups: {g: [A, B]}\npieces: []\nx: " + "9" * 5_000,
    "board: " + "[" * 5_000 + "]" * 5_000, "board: [unclosed", "\x00", "- a\n- b",
    "&a [*a, *a]"])
def test_bad_yaml_gets_422(client, text):
    answer = client.post("/api/board/open", content=text.encode())
    assert answer.status_code == 422 and answer.json()["error"], answer.text


@pytest.mark.parametrize("board", [
    {"board": ["A B"], "groups": {"g": ["A", "B"]}, "pieces": [{"name": "I", "shape": "#",
                                                             "count": 10 ** 4000}]},
    {"board": ["A B"], "groups": {"g": ["A", "B"]}, "pieces": [{"name": "I", "shape": "#",
                                                             "count": -1}]},
    {"board": ["A B"], "groups": {"g": ["A", "B"]}, "pieces": [{"name": "I", "shape": "#",
                                                             "count": 1.5}]},
    {"board": ["A B"], "groups": {"g": ["A", "B"]}, "name": "\u00e9\u6f22\u202e\n\"x",
     "pieces": [{"name": "I", "shape": "#"}]},
    {"board": ["A B"], "groups": {"g": ["A", "B"]}, "name": "\u00e9\u6f22 \"x\"",
     "pieces": [{"name": "I", "shape": "#"}]},
    {"board": ["A B " + "C " * 2000], "groups": {"g": ["A", "B"]},
     "pieces": [{"name": "I", "shape": "#"}]},
    {"board": ["\U0001f600 B"], "groups": {"g": ["\U0001f600", "B"]},
     "pieces": [{"name": "\U0001f600" * 200, "shape": "#"}]},
])
@pytest.mark.parametrize("path", ["/api/board/yaml", "/api/board/counts", "/api/board/play",
                                  "/api/board/make", "/api/board/check"])
def test_hostile_boards_get_an_answer_never_a_500(client, board, path):
    answer = client.post(path, json=board)
    assert answer.status_code in (200, 422), answer.text[:300]
    if answer.status_code == 422:
        assert answer.json()["error"]


@pytest.mark.parametrize("path", ["/api/board/counts", "/api/board/play", "/api/board/make"])
def test_a_board_of_too_many_placements_is_refused_before_compiling(client, path):
    rows = [" ".join("." for _ in range(20)) for _ in range(20)]
    rows[0] = " ".join(["A", "B"] + ["."] * 18)
    pieces = [{"name": f"P{k}", "shape": "#" * (k % 6 + 1), "count": [0, 5]} for k in range(80)]
    start = cpu_seconds()
    answer = client.post(path, json={"board": rows, "groups": {"g": ["A", "B"]},
                                     "pieces": pieces})
    assert answer.status_code == 422 and "256,000 placements" in answer.json()["error"]
    assert cpu_seconds() - start < 2.0


@pytest.mark.parametrize("query", [
    "cell=1e400", "cell=nan", "cell=-20", "kerf=inf", "thickness=0", "sheet=99999x400",
    "sheet=nanxnan", "sheet=" + "9" * 5_000 + "x1", "sheet=" + "1x" * 30 + "1",
    "clearance=" + "9" * 400, "cell=20&cell=abc"])
def test_make_sizes_are_bounded(client, query):
    answer = client.post(f"/api/board/make?{query}", json=spec_fields("calendar_day"))
    assert answer.status_code == 422 and len(answer.json()["error"]) < 400, answer.text


SMALL = {"board": ["A B C", "D E F"], "groups": {"top": ["A", "B", "C"],
                                                 "bottom": ["D", "E", "F"]},
         "pieces": [{"name": "L", "shape": "##/#."}, {"name": "I", "shape": "#"}]}


@pytest.mark.parametrize("name", ["..", ".", "\u00e9\u6f22"])
def test_make_writes_only_in_its_own_folder_whatever_the_name(client, tmp_path, monkeypatch,
                                                               name):
    """'..' is a valid board name: the files are made in the make's own temporary folder,
    and the zip holds no path out of its folder."""
    import tempfile

    from cpmodels.web.board import board_spec
    from cpmodels.web.designing import make_options, make_zip

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    made = make_zip(board_spec({**SMALL, "name": name}), make_options({}))
    with zipfile.ZipFile(io.BytesIO(made)) as archive:
        names = archive.namelist()
    assert names and all(".." not in n.split("/") and not n.startswith(("/", "./"))
                         for n in names), names
    assert list(tmp_path.iterdir()) == []  # nothing left beside the temporary folder
    answer = client.post("/api/board/make", json={**SMALL, "name": name})
    assert answer.status_code == 200, answer.text
    disposition = answer.headers["content-disposition"]
    assert disposition.isascii() and disposition.startswith("attachment; filename=")


def test_a_make_past_its_deadline_is_ended():
    """A make cannot be stopped midway: it runs in a process of its own, ended at the
    deadline (here already past)."""
    from cpmodels.errors import OutOfTime
    from cpmodels.web.board import board_spec
    from cpmodels.web.designing import made_board, make_options, make_zip_within

    with pytest.raises(OutOfTime, match="longer than the server allows"):
        make_zip_within(board_spec(SMALL), make_options({}), time.perf_counter())
    with pytest.raises(InputError, match="kerf"):  # refused before a process is started
        made_board(SMALL, {"kerf": 30.0}, time.perf_counter() + 0.5)
    made = make_zip_within(board_spec(SMALL), make_options({}), None)
    assert zipfile.ZipFile(io.BytesIO(made)).namelist()


def test_a_preview_has_a_pixel_budget(client):
    """A 10 m square sheet for a 6-cell board: drawn within the budget (before: 20,000 px
    square, seconds and 1.5 GB)."""
    from cpmodels.make.preview import MAX_PIXELS

    answer = client.post("/api/board/make?sheet=10000x10000", json=SMALL)
    assert answer.status_code == 200
    with zipfile.ZipFile(io.BytesIO(answer.content)) as archive:
        pngs = [archive.read(n) for n in archive.namelist() if n.endswith(".png")]
    assert pngs
    for png in pngs:
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        assert width * height <= MAX_PIXELS * 1.01


def test_one_board_is_made_at_a_time(monkeypatch):
    """A make holds a pool worker for seconds: a second one while it runs gets 503."""
    import threading

    from cpmodels.web import designing

    started, release = threading.Event(), threading.Event()

    def slow_make(spec, sizes, deadline):
        started.set()
        release.wait(20)
        return b"zip"

    monkeypatch.setattr(designing, "make_zip_within", slow_make)
    client = TestClient(create_app([SPECS / "calendar_day.yaml"]))
    first: list = []
    thread = threading.Thread(target=lambda: first.append(
        client.post("/api/board/make", json=SMALL)))
    thread.start()
    try:
        assert started.wait(20)
        second = client.post("/api/board/make", json=SMALL)
        assert second.status_code == 503 and "being made" in second.json()["error"]
    finally:
        release.set()
        thread.join(20)
    assert first[0].status_code == 200
    assert client.post("/api/board/make", json=SMALL).status_code == 200


def test_streams_beyond_those_counting_and_waiting_are_turned_away(monkeypatch):
    """Each open stream holds its compiled board: past the streams counting and those
    waiting their turn, one more gets 503 before anything is compiled; closed, they let
    their places go."""
    import threading

    from cpmodels.web import streams
    from cpmodels.web.board import BoardCounts

    def rows(self):  # a count that goes on until it is stopped
        while not self.stopped:
            time.sleep(0.02)
        yield from ()

    monkeypatch.setattr(BoardCounts, "rows", rows)
    app = create_app([SPECS / "calendar_day.yaml"])
    allowed = streams.BOARDS_AT_ONCE + streams.BOARDS_WAITING
    with running_server(app) as url:
        opened: list = []
        stop = threading.Event()

        def hold() -> None:
            with httpx.Client(timeout=30) as http, \
                    http.stream("POST", f"{url}/api/board/counts", json=SMALL) as answer:
                opened.append(answer.status_code)
                stop.wait(30)

        threads = [threading.Thread(target=hold) for _ in range(allowed)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 30
        while len(opened) < allowed and time.monotonic() < deadline:
            time.sleep(0.05)
        assert opened == [200] * allowed
        with httpx.Client(timeout=30) as http:
            refused = http.post(f"{url}/api/board/counts", json=SMALL)
            assert refused.status_code == 503 and "try again" in refused.json()["error"]
            stop.set()
            for thread in threads:
                thread.join(30)
            for _ in range(100):  # the closed streams let their places go
                with http.stream("POST", f"{url}/api/board/counts", json=SMALL) as answer:
                    if answer.status_code == 200:
                        break
                time.sleep(0.1)
            assert answer.status_code == 200


@pytest.mark.parametrize("path", ["/api/board/counts", "/api/board/check", "/api/count"])
def test_a_client_gone_mid_body_is_no_internal_error(path, caplog):
    import socket

    app = create_app([SPECS / "calendar_day.yaml"])
    with running_server(app) as url:
        host, port = url.removeprefix("http://").split(":")
        for _ in range(3):
            with socket.create_connection((host, int(port)), timeout=10) as raw:
                raw.sendall(f"POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: "
                            "application/json\r\ncontent-length: 5000\r\n\r\n{\"bo"
                            .encode())
        time.sleep(0.5)
        with httpx.Client(timeout=30) as http:
            assert http.get(f"{url}/api/specs").status_code == 200
    assert not [r for r in caplog.records if r.levelname == "ERROR"], caplog.text


def test_each_grid_is_drawn_as_the_server_draws_it(client):
    """The editor reads a cell's corners from ``/api/grids`` (a tile of four cells and two
    steps): for every cell near the origin that gives the corners the pictures draw, and
    its neighbours (the engine in the browser lays a board's cover out with them)."""
    from cpmodels.grids import grid as get_grid
    from cpmodels.render.scene import DRAWINGS

    drawings = client.get("/api/grids").json()
    assert sorted(drawings) == ["hex", "square", "triangle"]
    for grid, table in drawings.items():
        drawing = DRAWINGS[grid]
        for a in range(-4, 9):
            for b in range(-4, 9):
                tile = table["tiles"][a % 2][b % 2]
                dx = (a // 2) * table["step"][0][0] + (b // 2) * table["step"][1][0]
                dy = (a // 2) * table["step"][0][1] + (b // 2) * table["step"][1][1]
                read = [v for x, y in tile for v in (x + dx, y + dy)]
                drawn = [v for x, y in drawing.corners((a, b))
                         for v in (x * drawing.unit[0], y * drawing.unit[1])]
                assert read == pytest.approx(drawn, abs=0.05), (grid, a, b)
                # and its neighbours, in the grid's order, from the table's offsets
                offsets = table["neighbours"][a % 2][b % 2]
                assert [(a + da, b + db) for da, db in offsets] == \
                    list(get_grid(grid).neighbours((a, b))), (grid, a, b)
