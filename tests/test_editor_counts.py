"""The editor's counts from the engine in the browser (``static/counts.js`` over the pool of
workers): a drawn board's heatmap rows are ``cpmodels sweep``'s, combination by
combination, on a triangle board with two label groups and pieces in copies and on the
month/day calendar; the engine's counts ask the server nothing, and without the engine
the server's stream counts the same."""

from __future__ import annotations

import base64
import csv
import json
from pathlib import Path

import yaml
from conftest import SPECS, running_server
from test_play_game import WAIT
from test_wasm import _needs_clang

from cpmodels.spec import load_spec
from cpmodels.sweep import sweep_plan
from cpmodels.web import plans
from cpmodels.web.app import create_app

DAY = SPECS / "calendar_day.yaml"
LAPTOP = {"width": 1280, "height": 800}
# Two label groups, a piece in three copies and one in one or two.
TRIANGLE = """\
kind: calendar
name: triangle_two
grid: triangle
board:
  - "A . . . . . . . X"
  - ". . . . . . . . B"
  - ". . C . . . . Y ."
groups:
  g: [A, B, C]
  h: [X, Y]
pieces:
  - {name: T, count: 3, cells: [[0, 0], [0, 1], [0, 2]]}
  - {name: Q, cells: [[0, 0], [0, 1], [0, 2], [0, 3]]}
  - {name: H, cells: [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]}
  - {name: L, cells: [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0]]}
  - {name: M, count: [1, 2], cells: [[0, 0]]}
"""
DONE = "document.querySelector('#summary').dataset.done === '1'"
ENGINE_COUNTS = ("document.querySelector('footer').textContent.startsWith("
                 "'Counts come from the engine in this browser (')")


def sweep_rows(run_cli, spec: Path, folder: Path) -> dict[tuple[str, ...], int]:
    """``cpmodels sweep``'s count of each label combination of ``spec``."""
    out = folder / f"{spec.stem}-rows.csv"
    code, _, err = run_cli("sweep", spec, "--out", out, "--quiet")
    assert code == 0, err
    lines = [line for line in out.read_text().splitlines() if not line.startswith("#")]
    rows = list(csv.reader(lines))
    groups = rows[0].index("real_date")
    return {tuple(row[:groups]): int(row[-1]) for row in rows[1:]}


def counted(page) -> dict[tuple[str, ...], int]:
    """The rows the editor's heatmap holds, each combination once."""
    rows = page.evaluate("import('./static/edit.js').then((m) => m.countedRows())")
    found = {tuple(labels): n for labels, n in rows}
    assert len(found) == len(rows), "a combination came twice"
    return found


def board_link(fields: dict) -> str:
    text = json.dumps(fields)
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def test_the_editors_counts_come_from_the_engine_and_are_the_sweeps(browser, run_cli,
                                                                     tmp_path):
    if not plans.engine_built():
        _needs_clang()
    triangle = tmp_path / "triangle_two.yaml"
    triangle.write_text(TRIANGLE)
    want = {"triangle": sweep_rows(run_cli, triangle, tmp_path),
            "day": sweep_rows(run_cli, DAY, tmp_path)}
    assert 0 in want["triangle"].values() and len(want["day"]) == 372
    link = f"edit.html#board={board_link(yaml.safe_load(TRIANGLE))}"
    app = create_app([DAY])
    with running_server(app, browser_engine=True) as url:
        context = browser.new_context(viewport=LAPTOP)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        posted: list[str] = []
        page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
        try:
            page.goto(f"{url}/{link}")
            page.wait_for_function(ENGINE_COUNTS, timeout=WAIT)
            assert page.locator("footer").inner_text().endswith(
                "; the other answers from the cpmodels server.")
            page.wait_for_function(DONE, timeout=WAIT)
            assert counted(page) == want["triangle"]
            summary = page.locator("#summary").inner_text()
            assert summary.startswith("1 of 6 combinations have no solution; hardest A X (2); "
                                      "easiest B X (130)"), summary
            assert page.locator("#unsolvable button").all_inner_texts() == ["A Y"]
            page.select_option("#start", "calendar_day")
            page.wait_for_function("document.querySelector('#name').value === 'calendar_day'")
            page.wait_for_function(DONE, timeout=WAIT)
            assert counted(page) == want["day"]
            assert page.locator("#summary").inner_text().startswith(
                "every combination is solvable; hardest Oct 6 (7)")
            assert posted and not any(u.endswith("/api/board/counts") for u in posted)
            assert errors == []
        finally:
            context.close()
        # the engine off (serve --no-browser-engine): the server's stream counts the same
        app.state.server.browser_engine = False
        context = browser.new_context(viewport=LAPTOP)
        page = context.new_page()
        page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
        try:
            page.goto(f"{url}/{link}")
            page.wait_for_function(DONE, timeout=WAIT)
            assert page.locator("footer").inner_text() == "Answers come from the cpmodels server."
            assert counted(page) == want["triangle"]
            assert any(u.endswith("/api/board/counts") for u in posted)
        finally:
            context.close()


# A worker of the editor's pool asked as counts.js asks it: the weekday board's fields made
# into its sweep cover in the worker, then one task (a month's index) after another on the
# worker's one table; each answer's rows and the nodes its search took.
WORKER_TASKS = """async (months) => {
  const {boardInput} = await import("./static/counts.js");
  const fields = await (await fetch("api/board/start/calendar_week")).json();
  const text = JSON.stringify(boardInput(fields));
  const bytes = await (await fetch("static/engine/engine.wasm")).arrayBuffer();
  const worker = new Worker("static/engine/worker.js", {type: "module"});
  const replies = [];
  let wake = () => {};
  worker.onmessage = ({data}) => { replies.push(data); wake(); };
  const reply = async () => {
    while (!replies.length) await new Promise((resolve) => { wake = resolve; });
    return replies.shift();
  };
  worker.postMessage({module: await WebAssembly.compile(bytes)});
  const loaded = await reply();
  if (!loaded.ready) throw new Error(loaded.error);
  const ask = async (id, args) => {
    worker.postMessage({id, op: "sweep", key: "week", plan: text, args});
    const {answer, error} = await reply();
    if (error) throw new Error(error);
    return answer;
  };
  const first = (await ask(0, {task: [months[0]], preview: true})).rows;
  const found = [];
  for (const [k, month] of months.entries()) {
    const answer = await ask(k + 1, {task: [month]});
    found.push({nodes: answer.spent.nodes, rows: answer.rows.map((r) => [r.labels, r.count])});
  }
  worker.terminate();
  return {first: first.map((r) => [r.labels, r.count]), found};
}"""


def test_a_workers_weekday_tasks_search_the_native_sweeps_tree(browser):
    """The editor's worker tallies calendar_week's first five months on one table as the
    native sweep does on its own: the same rows and the same nodes, task by task, so no
    table is emptied and searched again (the five keep more states than a table of 2^22
    slots holds); its preview (on a small table apart) is the first combination's count."""
    if not plans.engine_built():
        _needs_clang()
    plan = sweep_plan(load_spec(SPECS / "calendar_week.yaml"))
    tasks = plan.tasks()[:5]
    session = plan.session(table_slots=1 << 23, arena=1 << 26)
    want = []
    for task in tasks:
        before = session.stats["nodes"]
        tally = session.tally(plan.task_holes(task))
        want.append({"nodes": session.stats["nodes"] - before,
                     "rows": [[list(labels), n] for labels, n in plan.rows(task, tally)]})
    assert session.stats["used"] > 3 << 20 and session.stats["flushes"] == 0
    preview = plan.preview_tasks()[0]
    first = [[list(plan.labels(preview[:1], preview[1:])), session.count(plan.holes(preview))]]
    with running_server(create_app([SPECS / "calendar_week.yaml"]),
                        browser_engine=True) as url:
        page = browser.new_page(viewport=LAPTOP)
        try:
            page.goto(f"{url}/edit.html")
            page.wait_for_function(ENGINE_COUNTS, timeout=WAIT)
            got = page.evaluate(WORKER_TASKS, list(range(len(tasks))))
        finally:
            page.close()
    assert [g["nodes"] for g in got["found"]] == [w["nodes"] for w in want]
    assert got["found"] == want
    assert got["first"] == first and first[0][0] == ["Jan", "1", "Mon"] and first[0][1] > 0
