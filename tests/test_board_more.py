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
from conftest import ndjson_lines, running_server, spec_fields
from fastapi.testclient import TestClient

from cpmodels.api import sweep
from cpmodels.web.app import create_app
from cpmodels.web.board import pools

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
    start = time.perf_counter()
    refused = client.post("/api/board/design", json=request)
    assert refused.status_code == 422 and words in refused.json()["error"], refused.text
    assert time.perf_counter() - start < 2.0


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
