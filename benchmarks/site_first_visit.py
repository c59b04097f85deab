"""Time a new player's first visit to the static site, and count the bytes it fetches.

``python benchmarks/site_first_visit.py [--rounds N] [--against SITE]`` writes the static
site (``cpmodels site``) to a temporary folder, serves it with Python's plain file server on
127.0.0.1 and, in each round, opens it in headless Chromium with nothing kept (a fresh
context) and times the first count of today's weekday calendar (from the page's start, by
its own clock), and counts the bytes of every request made before the count appears
(headers and bodies as sent: the host does not compress). ``--against SITE`` does the same
for a second site (an earlier version's, written by its ``cpmodels site``) in the same
rounds, first or second in turns, for figures paired at one load: with the median of the
differences of the rounds' pairs.

Where the wait goes, by the page's own marks (``cpmodels:NAME`` in its timeline: the engine
compiled and loaded in the first worker, the first puzzle's plan and layout asked and made,
its first count asked and answered) and the moment engine.wasm had come: the median of each,
in ms from the page's start, and the median of the spans between them (the plan: asked to
made; the count: from the later of its question and the plan to its answer). A site that
marks none (an earlier version's) shows the first count and the engine's arrival alone.
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

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-quic"]

# The moment (ms since the epoch) the first count is shown.
FIRST_COUNT = """window.firstCount = new Promise((resolve) => {
  const shown = () => {
    const said = document.querySelector("#feedback");
    return said && said.dataset.pieces === "0" && said.getAttribute("aria-busy") === "false";
  };
  const watch = new MutationObserver(() => {
    if (shown()) { watch.disconnect(); resolve(performance.timeOrigin + performance.now()); }
  });
  watch.observe(document, {subtree: true, childList: true, attributes: true});
});"""


def _serve(folder: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    host = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1",
                             str(port), "-d", str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    for _ in range(600):
        try:
            urllib.request.urlopen(url, timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    return host, url


def _bytes(request: Any) -> int:
    sizes = request.sizes()
    response = request.response()
    said = int(response.headers.get("content-length", 0)) if response else 0
    return sizes["responseHeadersSize"] + max(sizes["responseBodySize"], said)


# The page's marks and the moment engine.wasm had come, in ms from the page's start.
MARKS = """(() => {
  const found = {};
  for (const entry of performance.getEntriesByType("mark")) {
    if (entry.name.startsWith("cpmodels:")) found[entry.name.slice(9)] = entry.startTime;
  }
  const wasm = performance.getEntriesByType("resource")
    .find((entry) => entry.name.endsWith("/engine.wasm"));
  if (wasm) found["wasm-fetched"] = wasm.responseEnd;
  return found;
})()"""
MOMENTS = ("wasm-fetched", "engine-compiled", "engine-loaded", "plan-asked", "layout-asked",
           "layout-made", "plan-made", "count-asked", "count-answered")


def _spans(marks: dict[str, float]) -> dict[str, float]:
    """The plan's and the count's spans (ms) from one visit's marks, where it has them."""
    spans = {}
    if "plan-asked" in marks and "plan-made" in marks:
        spans["plan"] = marks["plan-made"] - marks["plan-asked"]
    if "layout-asked" in marks and "layout-made" in marks:
        spans["layout"] = marks["layout-made"] - marks["layout-asked"]
    if {"count-asked", "count-answered", "plan-made"} <= marks.keys():
        spans["count"] = marks["count-answered"] - max(marks["count-asked"], marks["plan-made"])
    return spans


def visit(browser: Any, url: str) -> tuple[float, int, dict[str, float]]:
    """One first visit: the first count's time (s, from the page's start), the bytes
    fetched before it and the page's marks (ms)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    finished: list = []
    context.on("requestfinished", lambda request: finished.append(request))
    try:
        page = context.new_page()
        page.add_init_script(FIRST_COUNT)
        page.goto(url)
        shown = page.evaluate("window.firstCount")
        start = page.evaluate("performance.timeOrigin")
        marks = page.evaluate(MARKS)
        page.wait_for_timeout(500)  # (the requests made before the count, all finished)
        fetched = sum(_bytes(r) for r in finished if r.timing["startTime"] <= shown)
        return (shown - start) / 1000, fetched, marks
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--against", type=Path, help="an earlier version's site")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        subprocess.run([sys.executable, "-m", "cpmodels", "site", str(site)], check=True,
                       stdout=subprocess.DEVNULL)
        sites = {"before": args.against, "after": site} if args.against else {"site": site}
        hosts = {name: _serve(folder) for name, folder in sites.items()}
        found: dict[str, list[tuple[float, int, dict[str, float]]]] = {
            name: [] for name in sites}
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                for round_ in range(args.rounds):
                    turn = list(hosts.items())
                    for name, (_, url) in turn[::-1] if round_ % 2 else turn:
                        found[name].append(visit(browser, url))
                browser.close()
        finally:
            for host, _ in hosts.values():
                host.terminate()
                host.wait()
    for name, runs in found.items():
        times = sorted(t for t, _, _ in runs)
        kb = sorted({round(b / 1000) for _, b, _ in runs})
        print(f"{name}: first count {times[0]:.2f}-{times[-1]:.2f} s (median "
              f"{statistics.median(times):.2f} s), {kb[0]:,}-{kb[-1]:,} KB fetched before it")
        print("  " + _medians([m for _, _, m in runs], MOMENTS, "at"))
        spans = _medians([_spans(m) for _, _, m in runs], ("layout", "plan", "count"), "took")
        if spans:
            print("  " + spans)
    if args.against:
        gained = [b - a for (b, _, _), (a, _, _) in zip(found["before"], found["after"])]
        print(f"after, less before in the same round: median {-statistics.median(gained):+.2f} s "
              f"({sum(g > 0 for g in gained)} of {len(gained)} rounds sooner)")


def _medians(runs: list[dict[str, float]], names: tuple[str, ...], said: str) -> str:
    """The median of each of ``names`` the runs have, in ms ("" when they have none)."""
    shown = [f"{name} {statistics.median([r[name] for r in runs if name in r]):.0f}"
             for name in names if any(name in r for r in runs)]
    return f"{said} (median ms): " + ", ".join(shown) if shown else ""


if __name__ == "__main__":
    main()
