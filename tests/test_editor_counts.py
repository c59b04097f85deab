"""The editor's counts from the engine in the browser (``static/counts.js`` over the pool of
workers): a drawn board's heatmap rows are ``cpmodels sweep``'s, combination by
combination, on a triangle board with two label groups and pieces in copies and on the
month/day calendar; the engine's counts ask the server nothing, and without the engine
the server's stream counts the same."""

from __future__ import annotations

import base64
import csv
import json
import re
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


# A worker started as the pool starts one (its engine loaded), in a page's function:
# ``worker``, and ``reply()`` its next message; counts.js's ``boardInput``.
A_WORKER = """
  const {boardInput} = await import("./static/counts.js");
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
"""
# A worker of the editor's pool asked as counts.js asks it: the weekday board's fields made
# into its sweep cover in the worker, then one task (a month's index) after another on the
# worker's one table; each answer's rows and the nodes its search took.
WORKER_TASKS = """async (months) => {""" + A_WORKER + """
  const fields = await (await fetch("api/board/start/calendar_week")).json();
  const text = JSON.stringify(boardInput(fields));
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
    """The editor's worker tallies calendar_week's first eleven months on one table as the
    native sweep does on its own: the same rows and the same nodes, task by task, so no
    table is emptied and searched again (the eleven keep more states than a table of 2^22
    slots holds: 3.25 million; five did before a tally tiled its small regions); its
    preview (on a small table apart) is the first combination's count."""
    if not plans.engine_built():
        _needs_clang()
    plan = sweep_plan(load_spec(SPECS / "calendar_week.yaml"))
    tasks = plan.tasks()[:11]
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


# A pool of two stand-in workers (each answers a sweep's questions at once, saying the
# nodes each task is given here, in millions, and which worker it is), and counts.js's
# count of a board of one group of a label a task over it: which worker ran each task.
DEALT = """async (nodes) => {
  const {Pool} = await import("./static/answers.js");
  const {countBoard} = await import("./static/counts.js");
  const script = URL.createObjectURL(new Blob([`
    const me = Math.random();
    self.onmessage = ({data}) => {
      if (data.module !== undefined) { self.postMessage({ready: true}); return; }
      const {id, args: {task}} = data;
      if (task === null) { self.postMessage({id, answer: {fixed: [0]}}); return; }
      self.postMessage({id, answer: {rows: [{labels: [String(task[0])], count: me}],
                                     spent: {nodes: 1e6 * ${JSON.stringify(nodes)}[task[0]]}}});
    };`], {type: "text/javascript"}));
  const pool = new Pool("stand-in", 2, 0, 20, script);
  await pool.start(Promise.resolve("stand-in"));
  const labels = nodes.map((_, k) => `L${k}`);
  const fields = {grid: "square", board: [labels.join(" ")], groups: {g: labels}, pieces: []};
  const ran = {};
  await countBoard(pool, fields, (rows) => {
    for (const {labels: [task], count} of rows) ran[task] = count;
  }, new AbortController().signal);
  pool.slots.forEach((slot) => slot && slot.worker.terminate());
  const workers = [...new Set(Object.values(ran))];
  return nodes.map((_, task) => workers.indexOf(ran[task]));
}"""
TASKS_STAY_HERE = """(cases) => import("./static/counts.js").then(
  ({tasksStayHere}) => cases.map(([first, last, left]) => tasksStayHere(first, last, left)))"""


def test_a_sweeps_tasks_stay_on_one_workers_table_as_the_native_sweeps_do(browser):
    """The editor deals a board's tasks as the native sweep's threads do (``running.Threads``
    by ``tasks_stay_here``, cold): the first two on one worker, the next ones there while the
    rule says so, then the rest shared; so the weekday calendar's tasks (a first task of
    2 million nodes, the next ones quick on its table) run on one table, as natively. A
    task's seconds are its nodes at a microsecond each. The rule is the native one on
    every case tried."""
    from cpmodels.backends.engine import tasks_stay_here

    plan = sweep_plan(load_spec(SPECS / "calendar_week.yaml"))
    session = plan.session(table_slots=1 << 23, arena=1 << 26)
    weekday = []  # each month's nodes, on the one table of the months before it
    for task in plan.tasks():
        before = session.stats["nodes"]
        session.tally(plan.task_holes(task))
        weekday.append(session.stats["nodes"] - before)
    assert weekday[0] > 1_000_000 and len(weekday) == 12
    cases = [(first, last, left) for first in (0.2, 0.99, 1.0, 2.5, 6.0)
             for last in (None, 0.1, 0.9, 2.0, 5.0) for left in (2, 5, 10, 30)]
    with running_server(create_app([DAY]), browser_engine=True) as url:
        page = browser.new_page(viewport=LAPTOP)
        try:
            page.goto(f"{url}/edit.html")
            page.wait_for_function(ENGINE_COUNTS, timeout=WAIT)
            said = page.evaluate(TASKS_STAY_HERE, cases)
            # a quick first task: every task on its worker
            quick = page.evaluate(DEALT, [0.5, 3.0, 3.0, 3.0, 3.0, 3.0])
            # a long first task, the next ones quick (the weekday calendar's): all there too
            week = page.evaluate(DEALT, [n / 1e6 for n in weekday])
            # a long first task and long ones after it: from the third on, shared out
            long = page.evaluate(DEALT, [2.0, 5.0, 5.0, 5.0, 5.0, 5.0])
        finally:
            page.close()
    assert said == [tasks_stay_here(*case, cold=True) for case in cases]
    assert quick == [0] * 6 and week == [0] * 12
    # (the third goes to the warm worker, free then; the fourth, asked with it, to the other)
    assert long[:4] == [0, 0, 0, 1] and set(long) == {0, 1}


# The page told it has two cores and the memory for two workers (answers.js's poolSize).
TWO_WORKERS = """
Object.defineProperty(Navigator.prototype, "hardwareConcurrency", {get: () => 2});
Object.defineProperty(Navigator.prototype, "deviceMemory", {get: () => 8});
"""
# Each task's part (0 or 1, or none) each worker was asked, by the page's workers.
PARTS_ASKED = """
(() => {
  const Native = window.Worker;
  const asked = [];
  Object.defineProperty(window, "partsAsked", {value: asked});
  window.Worker = class extends Native {
    constructor(url, options) {
      super(url, options);
      const mine = [];
      asked.push(mine);
      const post = this.postMessage.bind(this);
      this.postMessage = (message, ...rest) => {
        const args = message && message.args;
        if (message.op === "sweep" && args && args.task && !args.preview) {
          mine.push(args.part === undefined ? null : args.part);
        }
        post(message, ...rest);
      };
    }
  };
})();
"""


def test_the_weekday_heatmap_on_two_workers_is_the_sweeps(browser, run_cli, tmp_path):
    """On a device of two cores, the weekday calendar's heatmap is counted in two parts, one
    a worker (worker.js's splitOf: one piece's early placements forced, or left out), each
    month's rows the sum of its two parts': every row is ``cpmodels sweep``'s."""
    if not plans.engine_built():
        _needs_clang()
    week = SPECS / "calendar_week.yaml"
    want = sweep_rows(run_cli, week, tmp_path)
    assert len(want) == 2604
    with running_server(create_app([week]), browser_engine=True) as url:
        page = browser.new_page(viewport=LAPTOP)
        page.add_init_script(TWO_WORKERS)
        page.add_init_script(PARTS_ASKED)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            page.goto(f"{url}/edit.html")
            page.wait_for_function(ENGINE_COUNTS, timeout=WAIT)
            page.select_option("#start", "calendar_week")
            page.wait_for_function("document.querySelector('#name').value === 'calendar_week'")
            page.wait_for_function(DONE, timeout=4 * WAIT)
            got = counted(page)
            asked = page.evaluate("window.partsAsked")
        finally:
            page.close()
    assert errors == []
    assert got == want
    # each part's twelve months on a worker of its own
    assert sorted(parts for parts in asked if parts) == [[0] * 12, [1] * 12]


# A worker asked, for each board, the groups its tasks fix and whether its count is split.
SPLIT_SAID = """async (names) => {""" + A_WORKER + """
  const said = [];
  for (const [k, name] of names.entries()) {
    const fields = await (await fetch(`api/board/start/${name}`)).json();
    const text = JSON.stringify(boardInput(fields));
    worker.postMessage({id: k, op: "sweep", key: name, plan: text, args: {task: null}});
    const {answer, error} = await reply();
    if (error) throw new Error(error);
    said.push(answer);
  }
  worker.terminate();
  return said;
}"""


def test_a_board_is_split_where_its_fixed_labels_come_first(browser):
    """The split (worker.js's splitOf) of a large board whose tasks fix the labels of the
    scan's first cells (calendar_week's months, its first two rows), not of one whose fixed
    labels lie further (calendar_week_11's weekdays, in its first columns: the forced
    placements' rows would search far more), nor of a board under 48 cells."""
    if not plans.engine_built():
        _needs_clang()
    names = ["calendar_week", "calendar_week_11", "calendar_day"]
    with running_server(create_app([SPECS / f"{name}.yaml" for name in names]),
                        browser_engine=True) as url:
        page = browser.new_page(viewport=LAPTOP)
        try:
            page.goto(f"{url}/edit.html")
            page.wait_for_function(ENGINE_COUNTS, timeout=WAIT)
            said = page.evaluate(SPLIT_SAID, names)
        finally:
            page.close()
    assert said == [{"fixed": [0], "split": True}, {"fixed": [2], "split": False},
                    {"fixed": [0], "split": False}]


def test_the_workers_large_board_table_starts_as_the_engines():
    """The browser's worker sizes a large board's table as the native engine does: the
    same least cells for a large board, and its one-word table probing from the start half
    the first live slots of the engine's, whose one table holds every state of a sweep
    where each of two workers holds one of its two parts (worker.js's LARGE_BOARD and
    ONE_WORD_LARGE against searches.py's LARGE_TALLY_CELLS and TALLY_FIRST_LIVE)."""
    from cpmodels.backends.engine import searches

    worker = (Path(__file__).resolve().parents[1] / "cpmodels" / "web" / "static" / "engine"
              / "worker.js").read_text()
    cells = re.search(r"^const LARGE_BOARD = (\d+);", worker, re.M)
    large = re.search(r"^const ONE_WORD_LARGE = \{[^}]*firstLive: 1 << (\d+)\}", worker, re.M)
    assert cells and large, "worker.js no longer names its large board's sizes so"
    assert int(cells.group(1)) == searches.LARGE_TALLY_CELLS
    assert 1 << int(large.group(1)) == searches.TALLY_FIRST_LIVE // 2
