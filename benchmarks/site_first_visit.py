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


def visit(browser: Any, url: str) -> tuple[float, int]:
    """One first visit: the first count's time (s, from the page's start) and the bytes
    fetched before it."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    finished: list = []
    context.on("requestfinished", lambda request: finished.append(request))
    try:
        page = context.new_page()
        page.add_init_script(FIRST_COUNT)
        page.goto(url)
        shown = page.evaluate("window.firstCount")
        start = page.evaluate("performance.timeOrigin")
        page.wait_for_timeout(500)  # (the requests made before the count, all finished)
        fetched = sum(_bytes(r) for r in finished if r.timing["startTime"] <= shown)
        return (shown - start) / 1000, fetched
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
        found: dict[str, list[tuple[float, int]]] = {name: [] for name in sites}
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
        times = sorted(t for t, _ in runs)
        kb = sorted({round(b / 1000) for _, b in runs})
        print(f"{name}: first count {times[0]:.2f}-{times[-1]:.2f} s (median "
              f"{statistics.median(times):.2f} s), {kb[0]:,}-{kb[-1]:,} KB fetched before it")
    if args.against:
        gained = [b - a for (b, _), (a, _) in zip(found["before"], found["after"])]
        print(f"after, less before in the same round: median {-statistics.median(gained):+.2f} s "
              f"({sum(g > 0 for g in gained)} of {len(gained)} rounds sooner)")


if __name__ == "__main__":
    main()
