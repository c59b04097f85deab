"""The board editor's API: a drawn board's arithmetic and its counts streamed, against
``cpmodels sweep`` of the same board saved as YAML; bad boards refused at once; a closed
connection stops the work."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import httpx
import pytest
import yaml
from conftest import cpu_seconds, ndjson_lines, running_server, spec_fields
from fastapi.testclient import TestClient

from cpmodels.api import sweep
from cpmodels.web.app import create_app

SPECS = Path(__file__).resolve().parent.parent / "specs"



@pytest.fixture(scope="module")
def client():
    return TestClient(create_app([SPECS / "calendar_day.yaml"]))



def test_check_says_the_arithmetic_without_search(client):
    answer = client.post("/api/board/check", json=spec_fields("calendar_day")).json()
    assert answer["valid"] and answer["fits"] and answer["errors"] == []
    assert (answer["cells"], answer["to_cover"], answer["pieces_area"]) == (43, 41, [41, 41])
    assert answer["combinations"] == 372
    board = spec_fields("calendar_day")
    board["pieces"] = board["pieces"][:-1]  # one pentomino fewer
    answer = client.post("/api/board/check", json=board).json()
    assert not answer["valid"] and answer["errors"][0]["field"] == "pieces"
    assert "the pieces cover 36 cells" in answer["errors"][0]["error"]
    assert "leaving 41 to fill" in answer["errors"][0]["error"]
    assert answer["errors"][0]["message"].startswith("The pieces cover 36 cells")


@pytest.mark.parametrize(("change", "field", "words"), [
    (lambda b: b["groups"]["day"].append("Jan"), "groups", "Jan"),
    (lambda b: b["pieces"].append({"name": "split", "shape": ["#.#"]}), "pieces",
     "not connected"),
    (lambda b: b.update(board=["1 2 3"] * 3000), None, "cells"),
    (lambda b: b.update(kind="towers"), "kind", "calendar"),
])
def test_a_bad_board_gets_its_reasons(client, change, field, words):
    board = spec_fields("calendar_day")
    change(board)
    answer = client.post("/api/board/check", json=board).json()
    assert not answer["valid"] and answer["errors"]
    first = answer["errors"][0]
    assert words in first["message"] or words in str(answer["errors"])
    if field is not None:
        assert (first["field"] or "").startswith(field)
    refused = client.post("/api/board/counts", json=board)
    assert refused.status_code == 422 and len(refused.json()["error"].splitlines()) >= 1


def test_counts_are_refused_at_once_when_the_area_never_matches(client):
    board = spec_fields("calendar_day")
    board["pieces"] = board["pieces"][:-1]
    start = cpu_seconds()
    refused = client.post("/api/board/counts", json=board)
    assert refused.status_code == 422 and "the pieces cover 36 cells" in refused.json()["error"]
    assert cpu_seconds() - start < 2.0
    huge = client.post("/api/board/counts", content=b"{" + b" " * (11 << 20) + b"}",
                       headers={"content-type": "application/json"})
    assert huge.status_code == 413 and "larger than" in huge.json()["error"]
    assert client.post("/api/board/check", content=b"{nope").status_code == 422


def test_streamed_counts_equal_the_sweep_of_the_saved_yaml(client, tmp_path):
    board = spec_fields("calendar_day")
    board["name"] = "drawn"
    # The board as an editor would change it: the Z pentomino swapped for the T.
    board["pieces"][4] = {"name": "T", "shape": "###/.#./.#."}
    saved = tmp_path / "drawn.yaml"
    saved.write_text(yaml.safe_dump(board, sort_keys=False))
    lines = ndjson_lines(client.post("/api/board/counts", json=board))
    rows, summary = lines[:-1], lines[-1]
    assert summary["done"] and summary["combinations"] == 372 == len(rows)
    swept = sweep(saved, out=tmp_path / "drawn.csv")
    expected = {labels: r.count for labels, r in swept.rows.items()}
    assert {tuple(r["labels"]): r["count"] for r in rows} == expected
    assert sorted(map(tuple, summary["unsolvable"])) == sorted(
        k for k, v in expected.items() if v == 0)
    assert summary["most"]["count"] == max(expected.values())
    assert sorted(map(tuple, summary["unsolvable_real_dates"])) == sorted(
        k for k, r in swept.rows.items() if r.count == 0 and r.real_date)


def _cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _rss() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * 4096


def test_eight_editors_at_once_each_get_every_count_and_memory_stays_flat(client):
    day = client.post("/api/board/counts", json=spec_fields("calendar_day"))
    expected = {tuple(r["labels"]): r["count"] for r in ndjson_lines(day) if "labels" in r}
    app = create_app([SPECS / "calendar_day.yaml"])
    with running_server(app) as url:
        def editor(out: list) -> None:
            with httpx.Client(timeout=120) as http:
                answer = http.post(f"{url}/api/board/counts", json=spec_fields("calendar_day"))
                out.append(ndjson_lines(answer))

        sizes = []
        for _ in range(2):
            results: list = []
            threads = [threading.Thread(target=editor, args=(results,)) for _ in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
            assert len(results) == 8
            for lines in results:
                assert lines[-1]["done"] and lines[-1]["combinations"] == 372
                assert {tuple(r["labels"]): r["count"] for r in lines[:-1]} == expected
            sizes.append(_rss())
        assert sizes[1] < sizes[0] + (200 << 20), "memory grew from one round to the next"
        with httpx.Client(timeout=10) as http:  # the page still answers
            assert http.get(f"{url}/api/specs").status_code == 200


def test_a_closed_connection_stops_the_counting():
    """A stream of the weekday board dropped after its first line: the counting stops, the
    server's CPU is back to idle within a second, and it still answers."""
    app = create_app([SPECS / "calendar_day.yaml"])
    with running_server(app) as url:
        with httpx.Client(timeout=60) as http, \
                http.stream("POST", f"{url}/api/board/counts",
                            json=spec_fields("calendar_week")) as response:
            assert response.status_code == 200
            first = json.loads(next(response.iter_lines()))
            assert first["count"] > 0 and len(first["labels"]) == 3
        time.sleep(1.0)
        before = _cpu()
        time.sleep(1.0)
        assert _cpu() - before < 0.3, "the counts went on after their stream was closed"
        with httpx.Client(timeout=30) as http:
            day = http.post(f"{url}/api/board/counts", json=spec_fields("calendar_day"))
            assert day.status_code == 200 and json.loads(day.text.splitlines()[-1])["done"]


def _day_first() -> dict:
    """calendar_day with its groups the other way round (day, then month): the sweep still
    fixes the months, whose cells the search passes first."""
    board = spec_fields("calendar_day")
    board["groups"] = {"day": board["groups"]["day"], "month": board["groups"]["month"]}
    return board


@pytest.mark.parametrize("name, fixed", [("calendar_day", ("month",)),
                                         ("calendar_week", ("month",)),
                                         ("calendar_week_11", ("weekday",))])
def test_the_stream_counts_by_the_sweeps_plan(name, fixed):
    """The editor's counts fix the groups a sweep fixes (calendar_week_11: the weekdays,
    so its tasks share the sub-boards of the other columns), and preview one combination
    of the first task."""
    from cpmodels.sweep import scan_fixed_groups
    from cpmodels.web.board import BoardCounts, board_spec

    spec = board_spec(spec_fields(name))
    counts = BoardCounts(spec, threads=2)
    assert counts.plan.fixed == scan_fixed_groups(spec) == fixed
    assert [labels for labels, _ in counts.plan.rows(counts.previews[0], {})] == [
        counts.plan.labels(counts.tasks[0], counts.previews[0][1:])]


def test_the_streams_rows_are_the_sweeps_and_the_first_comes_before_any_task():
    """On a board whose sweep fixes a group that is not its first, the stream's rows are
    the sweep's (of the YAML the editor saves) combination by combination; its first row
    comes from the preview, before any task is tallied (each task's session waits until
    that row is read), and that combination is sent once."""
    from cpmodels.spec import parse_spec
    from cpmodels.sweep import run_sweep
    from cpmodels.web.board import BoardCounts, board_spec, to_yaml

    board = _day_first()
    swept = run_sweep(parse_spec(to_yaml(board), "drawn"), None, jobs=1)
    expected = {labels: row.count for labels, row in swept.rows.items()}
    counts = BoardCounts(board_spec(board), threads=2)
    assert counts.plan.fixed == ("month",)
    first_read = threading.Event()
    make_session = counts.run.plan.worker

    class HeldUntilTheFirstRow:
        """A task's session that starts its first tally once the first row is read."""

        def __init__(self) -> None:
            self.session = make_session()

        def run(self, unit):
            assert first_read.wait(60), "the first row waited for a task"
            return self.session.run(unit)

        def stop(self) -> None:
            self.session.stop()

    counts.run.plan.worker = HeldUntilTheFirstRow
    rows = counts.rows()
    first = next(rows)
    first_read.set()
    lines = [first, *rows]
    summary, got = lines[-1], lines[:-1]
    assert tuple(first["labels"]) == ("1", "Jan") and first["count"] == expected[("1", "Jan")]
    assert len(got) == len({tuple(r["labels"]) for r in got}) == 372
    assert {tuple(r["labels"]): r["count"] for r in got} == expected
    assert summary["done"] and summary["combinations"] == 372


def test_each_of_a_streams_sessions_keeps_its_first_task_whole():
    """calendar_week_11 counted on two sessions: each table has room for the first
    weekday's sub-boards (never emptied mid-task, as the sweep's table is not); with half
    the room it was emptied twice in that task and the counts took twice the CPU."""
    from cpmodels.web.board import BoardCounts, board_spec

    counts = BoardCounts(board_spec(spec_fields("calendar_week_11")), threads=2)
    session = counts.plan.session(table_slots=counts.table_slots, arena=counts.arena)
    tally = session.tally(counts.plan.task_holes(counts.tasks[0]))
    assert len(tally) == 12 * 31 and session.stats["flushes"] == 0
