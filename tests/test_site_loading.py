"""What the static site's first visit loads, and what it keeps: the bytes a new player's
browser fetches before the first count (the page, its scripts, the engine and the chosen
puzzle's parts, from which the core in the page makes its layout and plan), the plan made
in the page against the server's, a puzzle opened once played again offline, one never
opened said so, and every puzzle kept on the player's word."""

from __future__ import annotations

import datetime as dt
import gzip
import importlib.util
import json
import re

import pytest
from conftest import ROOT, screenshot
from test_play_game import WAIT, _verdict
from test_site import ENGINE_SAYS, LAPTOP, WEEK, _hosting

from cpmodels.backends.engine import EngineSession
from cpmodels.spec import load_spec
from cpmodels.sweep import sweep_cover
from cpmodels.web.plans import puzzle_parts, puzzle_plan

FIRST_VISIT_KB = 400  # bytes fetched before the first count, on a host that does not compress
NEAR = 0.2  # how far docs/web.md's figures may be from a fresh site's


def _docs() -> str:
    return " ".join((ROOT / "docs" / "web.md").read_text().split())


def _near(said: float, found: float, what: str) -> None:
    assert abs(said - found) <= NEAR * found, (
        f"docs/web.md says {said} for {what}; a fresh site has {found:.3g}: update it")

def _first_visit_benchmark():
    """benchmarks/site_first_visit.py, whose watch for the first count the tests share."""
    spec = importlib.util.spec_from_file_location(
        "benchmark_site_first_visit", ROOT / "benchmarks" / "site_first_visit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The moment (ms since the epoch) the play page's first count is shown.
FIRST_COUNT = _first_visit_benchmark().FIRST_COUNT


def _bytes(request) -> int:
    """The bytes a request brought: its headers and body as sent (the body's length as the
    host says it where the browser does not count it: a worker's own script)."""
    sizes = request.sizes()
    response = request.response()
    said = int(response.headers.get("content-length", 0)) if response else 0
    return sizes["responseHeadersSize"] + max(sizes["responseBodySize"], said)


@pytest.fixture(scope="module")
def host(site):
    with _hosting(site[0]) as url:
        yield url


# What the page posts to its engine's workers, in order: each question's op, its plan's key
# and whether it has an id (one without is made ahead and not answered), by worker.
POSTED = """window.posted = [];
const Made = window.Worker;
window.Worker = class extends Made {
  constructor(...args) { super(...args); this.number = window.posted.push([]) - 1; }
  postMessage(message, ...rest) {
    if (!message.module) {
      window.posted[this.number].push([message.op, message.key, message.id !== undefined]);
    }
    return super.postMessage(message, ...rest);
  }
};"""


def test_a_first_visit_loads_only_what_it_plays(browser, host):
    """A new player's browser (nothing kept) fetches at most FIRST_VISIT_KB before the first
    count of today's weekday calendar: no plan, no other puzzle's file, nothing kept for
    offline play until the count is shown. The page's head asks the one worker for the
    puzzle's layout and plan with the engine, and the page's questions come after them."""
    context = browser.new_context(viewport=LAPTOP)
    finished: list = []
    context.on("requestfinished", lambda request: finished.append(request))
    try:
        page = context.new_page()
        page.add_init_script(POSTED)
        page.add_init_script(FIRST_COUNT)
        page.goto(host)
        shown = page.evaluate("window.firstCount")
        _verdict(page, 0)
        key = "calendar_week:any"
        assert page.evaluate("window.posted") == [[
            ["layout", None, False], ["plan", key, False], ["plan", key, True],
            ["position", key, True]]]
        page.wait_for_function("document.querySelector('#offline-said').textContent !== ''",
                               timeout=WAIT)  # the service worker's fetches, after the count
        before = [r for r in finished if r.timing["startTime"] <= shown]
        fetched = {r.url.removeprefix(host): _bytes(r) for r in before}
        total = sum(_bytes(r) for r in before)
        assert total <= FIRST_VISIT_KB * 1000, (total, fetched)
        assert "api/puzzle/calendar_week" in fetched
        # each once: asked for by the page's head as it opens, and taken by its scripts
        for once in ("api/puzzle/calendar_week", "api/specs", "static/engine/engine.wasm",
                     "static/engine/worker.js"):
            assert [r.url for r in before].count(host + once) == 1, once
        # (the worker is one script, engine.js in it)
        assert not [url for url in fetched if "calendar_day" in url or "api/plan" in url
                    or url.startswith("api/layout/") or url.endswith(("edit.js", "engine.js"))
                    ], fetched
        assert "sw.js" not in fetched  # registered once the count is shown
        said = re.search(r"about (\d+) KB before the first count", _docs())
        assert said, "docs/web.md says how much a first visit fetches"
        _near(int(said[1]), total / 1000, "a first visit's KB")
    finally:
        context.close()


def _offline_said(page, text: str) -> None:
    page.wait_for_function("t => document.querySelector('#offline-said').textContent === t",
                           arg=text, timeout=WAIT)


def test_a_puzzle_opened_once_plays_offline_and_every_puzzle_on_the_players_word(
        browser, host, tmp_path):
    """Offline, a reload of the puzzle opened plays (its first count the native one); a
    puzzle never opened says in a sentence that it was not kept; "Keep every puzzle
    offline" keeps them all, and then that puzzle plays offline too."""
    spec = load_spec(WEEK)
    context = browser.new_context(viewport=LAPTOP)
    try:
        page = context.new_page()
        page.goto(f"{host}?spec=calendar_week&date=2024-02-29")
        _verdict(page, 0)
        _offline_said(page, "The puzzles opened here play offline in this browser.")
        assert page.is_visible("#keep-all")
        context.set_offline(True)
        page.reload()
        page.wait_for_function(ENGINE_SAYS, timeout=WAIT)
        _verdict(page, 0)
        cover, _ = sweep_cover(spec)
        plan = puzzle_plan(spec, False)
        count = EngineSession(cover).count([plan["slack"][label] for label in
                                            spec.date_labels(dt.date(2024, 2, 29))])
        assert page.inner_text("#feedback") == f"{count:,} solutions still possible from here"
        # a puzzle never opened: not kept, said so
        page.goto(f"{host}?spec=calendar_day&date=2024-02-29")
        page.wait_for_function("document.querySelector('#error').textContent !== ''",
                               timeout=WAIT)
        assert page.inner_text("#error") == (
            "This puzzle was not kept for play offline, and there is no network: open it "
            "once online (or choose Keep every puzzle offline), and it plays offline from "
            "then on.")
        context.set_offline(False)
        page.goto(f"{host}?spec=calendar_week&date=2024-02-29")
        _offline_said(page, "The puzzles opened here play offline in this browser.")
        page.click("#keep-all")
        _offline_said(page, "Every puzzle plays offline in this browser.")
        assert page.is_hidden("#keep-all")
        context.set_offline(True)
        page.goto(f"{host}?spec=calendar_day&date=2024-02-29")
        page.wait_for_function(ENGINE_SAYS, timeout=WAIT)
        _verdict(page, 0)
        assert page.inner_text("#feedback").endswith("still possible from here")
        assert page.inner_text("#error") == ""
        screenshot(page, tmp_path, "site-kept.png", "CPMODELS_SCREENSHOT_SITE_KEPT")
    finally:
        context.close()


# Workers of the page's pool asked to make a plan from a puzzle's parts, then to count: a
# fresh worker for each count (a worker's first count is split by the core's branching step).
MADE = """async ({parts, faceUp, prefixes}) => {
  const module = await WebAssembly.compileStreaming(fetch("static/engine/engine.wasm"));
  const plan = JSON.stringify({faceUp, parts});
  const worker = async (questions) => {
    const one = new Worker("static/engine/worker.js", {type: "module"});
    const replies = [];
    let wake = null;
    one.onmessage = ({data}) => { replies.push(data); if (wake) wake(); };
    const next = async () => {
      while (!replies.length) await new Promise((resolve) => { wake = resolve; });
      const data = replies.shift();
      if (data.error !== undefined || data.ready === false) throw new Error(data.error);
      return data.answer;
    };
    one.postMessage({module});
    await next();
    const answers = [];
    for (const [id, [op, args]] of questions.entries()) {
      one.postMessage({id, op, key: "k", plan, args});
      answers.push(await next());
    }
    one.terminate();
    return answers;
  };
  const [listing] = await worker([["plan", {}]]);
  const counts = [];
  for (const prefix of prefixes) {
    const [first, again] = await worker([["count", {prefix}], ["count", {prefix}]]);
    counts.push([first.count, again.count]);
  }
  return {listing, counts};
}"""


@pytest.mark.parametrize("face_up", [False, True])
def test_the_plan_made_in_the_page_is_the_servers(browser, host, face_up):
    """The plan a worker makes from ``api/puzzle/NAME`` lists the server's options, slack,
    letters and copies, and counts a few dates and positions as the server's plan does."""
    spec = load_spec(WEEK)
    plan = puzzle_plan(spec, face_up)
    cover, _ = sweep_cover(spec, face_up=face_up)
    session = EngineSession(cover)
    prefixes = []
    for date in (dt.date(2024, 1, 1), dt.date(2025, 2, 28), dt.date(2026, 7, 4)):
        prefix = [plan["slack"][label] for label in spec.date_labels(date)]
        solution = [j for j in sorted(session.first_solution(prefix)) if j not in prefix]
        prefixes += [prefix, prefix + solution[:2]]
    context = browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        page.goto(host)
        got = page.evaluate(MADE, {"parts": json.loads(json.dumps(puzzle_parts(spec))),
                                   "faceUp": face_up, "prefixes": prefixes})
    finally:
        context.close()
    assert got["listing"] == {key: json.loads(json.dumps(plan[key]))
                              for key in ("options", "slack", "letters", "copies")}
    assert [[int(c) for c in pair] for pair in got["counts"]] == [
        [session.count(p)] * 2 for p in prefixes]  # split (a worker's first) or not


def test_the_docs_figures_are_a_fresh_sites(site):
    """docs/web.md's sizes of the bundled calendars' site: its files, its bytes raw and
    compressed, engine.wasm's."""
    out, _ = site
    found = re.search(r"the site is (\d+) files and ([\d.]+) MB, ([\d.]+) MB compressed "
                      r"\(`engine.wasm` is (\d+) KB, (\d+) KB gzipped\)", _docs())
    assert found, "docs/web.md gives the site's sizes"
    files = [p for p in out.rglob("*") if p.is_file()]
    wasm = (out / "static/engine/engine.wasm").read_bytes()
    assert int(found[1]) == len(files), [p.relative_to(out).as_posix() for p in files]
    _near(float(found[2]), sum(p.stat().st_size for p in files) / 1e6, "the site's MB")
    _near(float(found[3]), sum(len(gzip.compress(p.read_bytes())) for p in files) / 1e6,
          "the site's MB compressed")
    _near(int(found[4]), len(wasm) / 1000, "engine.wasm's KB")
    _near(int(found[5]), len(gzip.compress(wasm)) / 1000, "engine.wasm's KB gzipped")
