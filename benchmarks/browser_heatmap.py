"""Time the board editor's heatmap counted by the engine in the browser against
``cpmodels sweep --jobs 2``, in turns, so both meet the same load.

``python benchmarks/browser_heatmap.py [--rounds N] [--boards calendar_week,calendar_day]
[--tasks] [--against SITE]`` writes the static site (``cpmodels site``) to a temporary
folder, serves it with Python's plain file server on 127.0.0.1 and, in each round, opens
the editor in headless Chromium (a fresh page: its workers start with empty tables),
chooses each board to start from and times the first coloured cell and the last count;
then runs ``cpmodels sweep SPEC --jobs 2`` of each board. Each browser count is split: the
board's plan made in the workers, each task's kernel time and nodes (``performance.now()``
around the tally in the worker; ``--tasks`` prints each task), the workers' idle time, and
the rest (messaging, decoding and drawing). ``--against SITE`` times a second site (an
earlier version's, written by its ``cpmodels site``) in the same rounds, before this one,
for figures paired at one load. ``--native`` first tallies each board's tasks here, in
order on one table as the sweep's session does, with each task's time, CPU time and nodes:
the same tasks as the browser's, to compare a node's cost. ``--workers N`` tells the page
it has N cores (the size of its pool of workers: 1 counts every task on one table).
"""

from __future__ import annotations

import argparse
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]

# Each worker's questions and answers, with the page's clock: wrapped around the page's
# Worker before its scripts run (the page's own code is unchanged).
RECORD_WORKERS = """
(() => {
  const Native = window.Worker;
  const log = [];
  Object.defineProperty(window, "heatmapLog", {value: log});
  window.Worker = class extends Native {
    constructor(url, options) {
      super(url, options);
      const events = [];
      log.push({spawned: performance.now(), events});
      this.addEventListener("message", ({data}) => {
        if (data && data.id !== undefined) {
          const answer = data.answer || {};
          events.push({id: data.id, answered: performance.now(), spent: answer.spent || null,
                       rows: answer.rows ? answer.rows.length : 0});
        }
      });
      const post = this.postMessage.bind(this);
      this.postMessage = (message, ...rest) => {
        if (message && message.id !== undefined) {
          const args = message.args || {};
          events.push({id: message.id, sent: performance.now(), op: message.op,
                       task: args.task === undefined ? null : args.task,
                       preview: Boolean(args.preview)});
        }
        post(message, ...rest);
      };
    }
  };
})();
"""

# The cores the page is told the device has (the pool's size: answers.js's poolSize).
CORES = ('Object.defineProperty(Navigator.prototype, "hardwareConcurrency", '
         '{get: () => %d, configurable: true});')

# Choose a board to start from and wait for its first row and its last: the page's clock.
CHOOSE_AND_WAIT = """
async (name) => {
  const edit = await import("./static/edit.js");
  const start = document.querySelector("#start");
  const began = performance.now();
  start.value = name;
  start.dispatchEvent(new Event("change"));
  let first = null;
  for (;;) {
    await new Promise((resolve) => requestAnimationFrame(resolve));
    const now = performance.now();
    if (first === null && edit.countedRows().length > 0) first = now;
    if (document.querySelector("#summary").dataset.done === "1") {
      return {began, first: first - began, all: now - began, rows: edit.countedRows().length};
    }
  }
}
"""
ENGINE_READY = ("document.querySelector('footer').textContent.startsWith("
                "'Counts come from the engine in this browser (')")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Python's static file server on ``folder``, once it answers."""
    port = free_port()
    host = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1",
                             str(port), "-d", str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return host, url
        except OSError:
            if time.monotonic() > deadline:
                host.kill()
                raise
            time.sleep(0.05)


def split(log: list[dict[str, Any]], began: float, ended: float) -> dict[str, Any]:
    """Where a count's time went, from the workers' questions and answers: the plan made,
    each task's kernel time and nodes, and each worker's idle time (busy: from a question
    sent to its answer)."""
    tasks, built, idle = [], [], []
    for worker in log:
        sent: dict[int, dict[str, Any]] = {}
        busy = 0.0
        for event in worker["events"]:
            if "sent" in event:
                if event["sent"] >= began and event["op"] == "sweep":
                    sent[event["id"]] = event
                continue
            asked = sent.pop(event["id"], None)
            if asked is None:
                continue
            busy += event["answered"] - asked["sent"]
            spent = event["spent"]
            if spent is not None:
                built.append(spent["built"])
                tasks.append({"task": asked["task"], "preview": asked["preview"],
                              "kernel": spent["kernel"], "nodes": spent["nodes"],
                              "wall": event["answered"] - asked["sent"]})
        if busy:
            idle.append(ended - began - busy)
    return {"tasks": tasks, "built": max(built, default=0.0), "idle": idle}


def browser_runs(url: str, boards: list[str], playwright: Any,
                 workers: int | None = None) -> dict[str, dict[str, Any]]:
    """Each board counted on a fresh page of the editor: its times and their split; with
    ``workers``, the page told it has that many cores (its pool's size)."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
    found = {}
    try:
        for board in boards:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            if workers is not None:
                page.add_init_script(CORES % workers)
            page.add_init_script(RECORD_WORKERS)
            page.goto(f"{url}edit.html")
            page.wait_for_function(ENGINE_READY, timeout=60_000)
            page.wait_for_function("document.querySelector('#start').options.length > 1")
            timed = page.evaluate(CHOOSE_AND_WAIT, board)
            log = page.evaluate("window.heatmapLog")
            parts = split(log, timed["began"], timed["began"] + timed["all"])
            found[board] = {**timed, **parts, "workers": len(log)}
            page.close()
    finally:
        browser.close()
    return found


def sweep_seconds(spec: Path) -> float:
    """The wall time of ``cpmodels sweep SPEC --jobs 2`` (the process's start included)."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "cpmodels", "sweep", str(spec), "--jobs", "2",
                        "--quiet", "--out", str(Path(tmp) / "rows.csv")], check=True,
                       stdout=subprocess.DEVNULL)
        return time.perf_counter() - start


def span(values: list[float]) -> str:
    return f"{min(values):.2f}-{max(values):.2f} s (median {statistics.median(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--boards", default="calendar_week,calendar_day")
    parser.add_argument("--tasks", action="store_true", help="print each task's figures")
    parser.add_argument("--against", type=Path, help="a second site to time in turns")
    parser.add_argument("--workers", type=int,
                        help="the cores the page is told it has (its pool's size)")
    parser.add_argument("--native", action="store_true",
                        help="tally each board's tasks natively first, task by task")
    args = parser.parse_args()
    boards = args.boards.split(",")
    if args.native:
        for board in boards:
            native_tasks(ROOT / "specs" / f"{board}.yaml")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        site = Path(tmp) / "site"
        subprocess.run([sys.executable, "-m", "cpmodels", "site", str(site)], check=True,
                       stdout=subprocess.DEVNULL)
        sites = {"this": site} if args.against is None else {"against": args.against,
                                                               "this": site}
        hosts = {name: serve(folder) for name, folder in sites.items()}
        seen: dict[tuple[str, str], dict[str, list[float]]] = {
            (name, b): {"first": [], "all": [], "sweep": []} for name in sites for b in boards}
        try:
            for round_ in range(args.rounds):
                runs = {name: browser_runs(url, boards, playwright, args.workers)
                        for name, (_, url) in hosts.items()}
                for board in boards:
                    swept = sweep_seconds(ROOT / "specs" / f"{board}.yaml")
                    for name in sites:
                        show(f"round {round_ + 1} {name} {board}", runs[name][board], swept,
                             seen[name, board], args.tasks)
        finally:
            for host, _ in hosts.values():
                host.kill()
                host.wait()
    for (name, board), s in seen.items():
        ratio = [a / b for a, b in zip(s["all"], s["sweep"])]
        print(f"{name} {board}: first colour {span(s['first'])}; all {span(s['all'])}; "
              f"cpmodels sweep --jobs 2 {span(s['sweep'])}; all/sweep "
              f"{min(ratio):.2f}-{max(ratio):.2f}")


def native_tasks(spec: Path) -> None:
    """The sweep's tasks of ``spec`` tallied here in order on one session (the sweep's
    table sizes), each task's time, CPU time and nodes printed."""
    from cpmodels.spec import load_spec
    from cpmodels.spec.models import CalendarSpec
    from cpmodels.sweep import SWEEP_ARENA, SWEEP_MEMO_SLOTS, sweep_plan

    calendar = load_spec(spec)
    assert isinstance(calendar, CalendarSpec), f"{spec} is not a calendar"
    plan = sweep_plan(calendar)
    session = plan.session(table_slots=SWEEP_MEMO_SLOTS, arena=SWEEP_ARENA)
    wall = cpu = 0.0
    for task in plan.tasks():
        nodes = session.stats["nodes"]
        start, start_cpu = time.perf_counter(), time.process_time()
        session.tally(plan.task_holes(task))
        took, took_cpu = time.perf_counter() - start, time.process_time() - start_cpu
        wall, cpu = wall + took, cpu + took_cpu
        print(f"native {spec.stem} task {task}: {1000 * took:.0f} ms ({1000 * took_cpu:.0f} "
              f"ms CPU), {session.stats['nodes'] - nodes:,} nodes")
    nodes = session.stats["nodes"]
    print(f"native {spec.stem}: {wall:.2f} s ({cpu:.2f} s CPU) for {nodes:,} nodes, "
          f"{1e9 * wall / nodes:.0f} ns a node ({1e9 * cpu / nodes:.0f} of CPU)", flush=True)


def show(title: str, run: dict[str, Any], swept: float, seen: dict[str, list[float]],
         tasks: bool) -> None:
    """One count's figures printed and kept in ``seen``."""
    seen["first"].append(run["first"] / 1000)
    seen["all"].append(run["all"] / 1000)
    seen["sweep"].append(swept)
    kernel = sum(t["kernel"] for t in run["tasks"])
    nodes = sum(t["nodes"] for t in run["tasks"])
    idle = ", ".join(f"{x / 1000:.2f}" for x in run["idle"])
    split = (f"plan made {run['built'] / 1000:.2f} s, kernels {kernel / 1000:.2f} s for "
             f"{nodes:,} nodes ({1e6 * kernel / max(nodes, 1):.0f} ns a node), idle {idle} s"
             if run["tasks"] else "no split (the site's worker does not say it)")
    print(f"{title}: first {run['first'] / 1000:.2f} s, all {run['all'] / 1000:.2f} s "
          f"({run['rows']} rows, {run['workers']} workers), sweep --jobs 2 {swept:.2f} s "
          f"(all/sweep {run['all'] / 1000 / swept:.2f}); {split}", flush=True)
    if tasks:
        for t in run["tasks"]:
            print(f"    task {t['task']}{' preview' if t['preview'] else ''}: kernel "
                  f"{t['kernel']:.0f} ms, {t['nodes']:,} nodes, answered after "
                  f"{t['wall']:.0f} ms")


if __name__ == "__main__":
    main()
