"""The play page's answers from the engine in the browser (``static/answers.js`` over
``static/engine/worker.js`` and engine.wasm): the same answers, in the same words, as the
server's (``web/play.py``), and the page that uses them (its footer, its moves judged with
no request to the server, a move's count cancelled by the next move, the solutions view
drawn from the engine, and the server's API when the puzzle's plan does not load)."""

from __future__ import annotations

import json
import random
import time
from importlib import resources
from pathlib import Path

import httpx
import pytest
from conftest import SPECS, running_server, settled
from test_play import LAPTOP, PHONE, _drag_piece, _within

from cpmodels.backends.engine import EngineSession
from cpmodels.geometry import Placement
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec
from cpmodels.sweep import slack_options, sweep_cover
from cpmodels.web import board
from cpmodels.web.app import create_app
from cpmodels.web.play import (
    InvalidPosition,
    NoSolution,
    board_layout,
    check_position,
    hint_answer,
    position_session,
)
from cpmodels.web.wording import plain

WEEK = SPECS / "calendar_week.yaml"
DAY = SPECS / "calendar_day.yaml"
ENGINE = resources.files("cpmodels.web").joinpath("static/engine")
# The puzzles the positions are played on: dates and label combinations, one face up.
PUZZLES = [({"date": "2026-12-25"}, False), ({"date": "2027-02-28"}, False),
           ({"labels": ["Jul", "4", "Sat"]}, False), ({"labels": ["Nov", "24", "Tue"]}, False),
           ({"date": "2026-03-14"}, True)]
POSITIONS = 100


@pytest.fixture(scope="module")
def server():
    if not ENGINE.joinpath("engine.wasm").is_file():
        pytest.skip("engine.wasm is not built here (the install needs clang and lld)")
    with running_server(create_app([WEEK, DAY]), browser_engine=True) as url:
        yield url


def _page(browser, viewport, errors):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return context, page


def _wait_for_console(page, errors: list[str], text: str, count: int,
                      seconds: float = 60.0) -> None:
    """Wait (bounded) until `count` of the page's console errors contain `text`: the
    browser reports some failures (a service worker's script not found) when it gets to
    them, not in step with what the page shows."""
    deadline = time.monotonic() + seconds
    while sum(text in e for e in errors) < count:
        assert time.monotonic() < deadline, errors
        page.wait_for_timeout(50)  # console events are delivered while Playwright waits


def _sorted(placement: Placement) -> dict:
    return {"piece": placement.piece, "cells": [list(c) for c in sorted(placement.cells)]}


def _native_check(instance, placements: list[Placement], session) -> dict:
    """What the server answers a position, as check_answer and the error handler say it."""
    try:
        verdict = check_position(instance, placements, session=session)
    except InvalidPosition as exc:
        return {"status": "invalid", "message": str(exc), "http": 422}
    return {"spec": instance.name, "labels": list(instance.labels), "face_up": instance.face_up,
            "status": verdict.status, "completions": verdict.completions,
            "message": verdict.message, "take_back": list(verdict.take_back)}


def _native_hint(instance, placements: list[Placement]) -> dict:
    try:
        answer = hint_answer(instance, placements)
    except (NoSolution, InvalidPosition) as exc:
        return {"message": plain(exc) if isinstance(exc, NoSolution) else str(exc),
                "http": 409 if isinstance(exc, NoSolution) else 422}
    answer.pop("svg")
    return answer


def _positions(spec, rng: random.Random, kept: dict) -> list[tuple[dict, list[Placement]]]:
    """POSITIONS positions of every kind on PUZZLES: the empty board, open ones (a
    solution's first pieces), solved ones, dead ends with a piece to take back and without,
    and a few no one could lay (overlapping, on an open label, turned over face up)."""
    found: dict[str, list] = {}
    for query, face_up in PUZZLES:
        puzzle = {"spec": spec.name, **query, "face_up": face_up}
        instance, session = _instance_of(spec, puzzle, kept)
        cover = instance.cover
        pieces = [p for p in cover.placements if p.kind == 0]
        solutions = session.solutions()
        first = [cover.placements[j] for j in next(solutions)]
        found.setdefault("empty", []).append((puzzle, []))
        found.setdefault("solved", []).append((puzzle, first))
        for k in (1, 2, 4, 6, 8, 9):
            found.setdefault("open", []).append((puzzle, first[:k]))
        overlapping = next(p for p in pieces
                           if p.piece != first[0].piece and set(p.cells) & set(first[0].cells))
        found.setdefault("invalid", []).append((puzzle, [first[0], overlapping]))
        mine = {"dead_out": 6, "dead_stuck": 6}  # random dead ends of each kind
        for _ in range(300):
            if not any(mine.values()):
                break
            chosen: list[Placement] = []
            used: set = set()
            size = rng.choice((2, 3, 4))
            for p in rng.sample(pieces, len(pieces)):
                if len(chosen) == size:
                    break
                if p.piece not in {c.piece for c in chosen} and not used & set(p.cells):
                    chosen.append(p)
                    used |= set(p.cells)
            verdict = _native_check(instance, chosen, session)
            kind = verdict["status"] if verdict["status"] != "dead_end" else (
                "dead_out" if verdict["take_back"] else "dead_stuck")
            if mine.get(kind, 0) > 0:
                mine[kind] -= 1
                found.setdefault(kind, []).append((puzzle, chosen))
    layout = board_layout(spec)

    def laid(piece: str, fits) -> Placement:  # the first place of the piece that fits
        info = next(p for p in layout["pieces"] if p["name"] == piece)
        return next(Placement(piece, tuple(sorted((a + dr, b + dc) for a, b in o["cells"])))
                    for o in info["orientations"] for dr, dc, *_ in o["places"]
                    if fits(o, {(a + dr, b + dc) for a, b in o["cells"]}))

    dec = next(tuple(c["cell"]) for c in layout["cells"] if c["label"] == "Dec")
    covering = laid("T5", lambda o, cells: dec in cells)
    flipped = laid("N5", lambda o, cells: not o["face_up"])
    found["invalid"].append(({"spec": spec.name, "date": "2026-12-25", "face_up": False},
                             [covering]))
    found["invalid"].append(({"spec": spec.name, "labels": ["Jan", "1", "Mon"], "face_up": True},
                             [flipped]))
    found["invalid"].append(({"spec": spec.name, "labels": ["Jan", "1", "Mon"], "face_up": False},
                             [Placement("X9", ((0, 0),))]))
    assert all(found.get(k) for k in ("dead_out", "dead_stuck", "open", "solved", "empty"))
    every = [x for kind in ("empty", "solved", "open", "invalid", "dead_out", "dead_stuck")
             for x in found.get(kind, [])]
    return every[:POSITIONS]


def _instance_of(spec, puzzle: dict, kept: dict):
    """The puzzle's instance and its engine session, kept in ``kept`` as the server keeps
    them."""
    key = json.dumps(puzzle, sort_keys=True)
    if key not in kept:
        query = {k: v for k, v in puzzle.items() if k in ("date", "labels")}
        instance = packing_instance(Query.of(spec, face_up=puzzle["face_up"], **query))
        kept[key] = instance, position_session(instance.cover)
    return kept[key]


ASK_ALL = """async ([positions, solutions]) => {
  const {openAnswers} = await import(new URL("static/answers.js", location.href).href);
  const answers = await openAnswers();
  await answers.specs();
  const plain = (err) => ({message: err.message, http: err.status});
  const out = {kind: answers.kind, checks: [], hints: [], solutions: []};
  for (const [puzzle, placements] of positions) {
    out.checks.push(await answers.check(puzzle, placements).catch(plain));
    out.hints.push(await answers.hint(puzzle, placements).catch(plain));
  }
  for (const [puzzle, index] of solutions)
    out.solutions.push(await answers.solution(puzzle, index).catch(plain));
  out.kind = answers.kind;
  return out;
}"""


def test_the_engines_answers_are_the_servers_word_for_word(browser, server):
    spec = load_spec(WEEK)
    kept: dict = {}
    positions = _positions(spec, random.Random(7), kept)
    assert len(positions) == POSITIONS
    errors: list[str] = []
    context, page = _page(browser, LAPTOP, errors)
    try:
        page.goto(f"{server}/?spec=calendar_week&labels=Dec,25,Fri")
        asked = [[puzzle, [_sorted(p) for p in placements]] for puzzle, placements in positions]
        wanted = [[{"spec": spec.name, "labels": ["Dec", "25", "Fri"], "face_up": False}, k]
                  for k in (0, 1, 2)]
        wanted += [[{"spec": "calendar_day", "labels": ["Oct", "6"], "face_up": False}, k]
                   for k in (6, 7)]  # its last solution, and one past it
        got = page.evaluate(ASK_ALL, [asked, wanted])
    finally:
        context.close()
    assert got["kind"] == "engine"
    kinds = set()
    for (puzzle, placements), check, hint in zip(positions, got["checks"], got["hints"]):
        instance, session = _instance_of(spec, puzzle, kept)
        native = _native_check(instance, placements, session)
        if native["status"] == "invalid":
            assert check == {"message": native["message"], "http": 422}, (puzzle, placements)
        else:
            assert check == native, (puzzle, placements)
        kinds.add(native["status"] + ("+way out" if native.get("take_back") else ""))
        assert hint == _native_hint(instance, placements), (puzzle, placements)
    assert kinds >= {"open", "solved", "dead_end", "dead_end+way out", "invalid"}
    # solutions 1, 2 and 3 of a date: the engine's stream on the calendar's one cover
    cover, _ = sweep_cover(spec)
    prefix = [slack_options(cover, spec)[(g, label)]
              for g, label in zip(spec.groups, ["Dec", "25", "Fri"])]
    stream = EngineSession(cover).solutions(prefix)
    last, past = got["solutions"][3:]  # as the server says them
    said = [httpx.post(f"{server}/api/solution", json={**puzzle, "index": index}, timeout=30)
            for puzzle, index in wanted[3:]]
    assert [r.status_code for r in said] == [200, 404]
    count = httpx.post(f"{server}/api/count", json=wanted[3][0], timeout=30).json()["count"]
    assert (last["index"], last["found"]) == (6, said[0].json()["found"]) == (6, count)
    assert last["exhausted"] and last["count"] == count  # (the engine looked one further)
    assert past == {"message": said[1].json()["message"], "http": 404}
    for k, answer in enumerate(got["solutions"][:3]):
        ids = next(stream)
        want = sorted([cover.placements[j].piece, sorted(map(list, cover.placements[j].cells))]
                      for j in ids if cover.placements[j].kind == 0)
        assert sorted([p["piece"], sorted(p["cells"])] for p in answer["placements"]) == want
        assert (answer["index"], answer["status"], answer["labels"]) == (
            k, "solved", ["Dec", "25", "Fri"])
        assert answer["found"] == k + 2 and answer["exhausted"] is False
    assert errors == []


def _verdict(page, pieces: int) -> str:
    page.wait_for_selector(f'#feedback[data-pieces="{pieces}"][aria-busy="false"]',
                           timeout=30_000)
    return page.locator("#feedback").inner_text()


def _at_the_end(page, viewport: dict) -> None:
    """The footer is in view at the end of the page, below everything else, overlapping
    nothing."""
    settled(page)
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    _within(page, "footer", viewport)
    footer = page.locator("footer").bounding_box()
    main = page.locator("main").bounding_box()
    assert footer["y"] >= main["y"] + main["height"] - 0.5, (footer, main)


def test_the_page_plays_with_the_engine_and_without(browser, server):
    spec = load_spec(WEEK)
    kept: dict = {}
    puzzle = {"spec": spec.name, "labels": ["Dec", "25", "Fri"], "face_up": False}
    instance, session = _instance_of(spec, puzzle, kept)
    solution = [instance.cover.placements[j] for j in session.first_solution()]
    layout = board_layout(spec)
    errors: list[str] = []
    context, page = _page(browser, LAPTOP, errors)
    posted: list[str] = []  # the questions asked of the server (every one is a POST)
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    made: list = []  # the workers made, in order, and those ended
    ended: list = []
    page.on("worker", lambda w: (made.append(w), w.on("close", lambda _: ended.append(w))))
    url = f"{server}/?spec=calendar_week&labels=Dec,25,Fri"
    try:
        page.goto(url)
        workers = page.evaluate("import('./static/answers.js').then((m) => m.poolSize())")
        # one worker a core, as many as a quarter of the device's memory holds at 400 MB
        sizes = page.evaluate("""import('./static/answers.js').then((m) => [
            [2, 8], [16, 8], [16, 2], [16, 0.5], [16, null], [0, 8], [NaN, NaN], [3.7, 4]]
            .map(([cores, memory]) => m.poolSize(cores, memory)))""")
        assert sizes == [2, 5, 1, 1, 2, 1, 1, 2]
        cores, memory = page.evaluate("[navigator.hardwareConcurrency, navigator.deviceMemory]")
        assert workers == min(cores, max(1, int(memory * 1024 / 4 / 400)))
        page.wait_for_function("document.querySelector('footer').textContent.length > 0")
        assert page.locator("footer").inner_text() == (
            f"Answers come from the engine in this browser ({workers} worker"
            f"{'s' if workers > 1 else ''}).")
        assert _verdict(page, 0) == _native_check(instance, [], session)["message"]
        settled(page)  # the footer's words just came: the board refits to the room left
        assert page.evaluate("document.documentElement.scrollHeight") <= LAPTOP["height"]
        _at_the_end(page, LAPTOP)
        _drag_piece(page, layout, solution[0].piece, solution[0].cells)
        assert _verdict(page, 1) == _native_check(instance, solution[:1], session)["message"]
        # a move while the engine still counts the position before it ends that count:
        # its worker is stopped (the answers held back 10 s, a move takes far less)
        page.goto(f"{url}&engine_delay=10000")
        page.wait_for_selector('#feedback[aria-busy="true"]')
        page.wait_for_selector("#play-board .placed")
        counting = made[-1]  # the page's first worker: it counts the position of one piece
        assert counting.url.endswith("/static/engine/worker.js") and counting not in ended
        _drag_piece(page, layout, solution[1].piece, solution[1].cells)
        page.wait_for_function("document.querySelectorAll('#play-board .placed').length === 2")
        if counting not in ended:
            counting.wait_for_event("close")
        assert page.locator("#feedback").get_attribute("aria-busy") == "true"
        page.goto(url)  # the position kept, judged at once
        assert _verdict(page, 2) == _native_check(instance, solution[:2], session)["message"]
        # the solutions view draws the engine's solutions 1 and 2
        cover, _ = sweep_cover(spec)
        prefix = [slack_options(cover, spec)[(g, label)]
                  for g, label in zip(spec.groups, puzzle["labels"])]
        stream = EngineSession(cover).solutions(prefix)
        page.click("#tab-solutions")
        page.click("#reveal")
        for n in (1, 2):
            if n == 2:
                page.click("#next")
            page.wait_for_function(
                "n => document.querySelector('#status').textContent.includes(`solution ${n}`)",
                arg=n)
            drawn = page.evaluate("[...document.querySelectorAll('#board .shown')].map((g) => "
                                  "[g.dataset.piece, JSON.parse(g.dataset.cells)])")
            want = [[cover.placements[j].piece, sorted(map(list, cover.placements[j].cells))]
                    for j in next(stream) if cover.placements[j].kind == 0]
            assert sorted([p, sorted(c)] for p, c in drawn) == sorted(want)
            assert page.locator("#board svg > title").text_content().endswith(
                f"Dec 25 Fri: solution {n}")
        assert posted == []
    finally:
        context.close()
    assert errors == []
    # The puzzle's parts missing (a server run with --no-browser-engine), or the engine's worker:
    # the server answers.
    context, page = _page(browser, PHONE, errors)
    page.route("**/api/puzzle/**", lambda route: route.fulfill(
        status=404, json={"error": "no plan", "message": "No plan."}))
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    try:
        page.goto(url)
        page.wait_for_function("document.querySelector('footer').textContent.length > 0")
        assert page.locator("footer").inner_text() == "Answers come from the cpmodels server."
        assert _verdict(page, 0) == _native_check(instance, [], session)["message"]
        assert posted and all(u.endswith("/api/check") for u in posted)
        _at_the_end(page, PHONE)
        # the engine's worker missing: the same
        page.unroute("**/api/puzzle/**")
        page.route("**/static/engine/worker.js", lambda route: route.fulfill(status=404))
        posted.clear()
        page.goto(url)
        assert _verdict(page, 0) == _native_check(instance, [], session)["message"]
        assert page.locator("footer").inner_text() == "Answers come from the cpmodels server."
        assert posted and all(u.endswith("/api/check") for u in posted)
    finally:
        context.close()


def test_on_a_static_site_what_needs_the_server_says_so(browser, server):
    """The pages marked as a static site's (served here with the marker cpmodels site
    writes): the editor draws, and says in a sentence that its checks, counts and files need
    the cpmodels server; the play page says a drawn board's link needs the engine, which
    did not load; both register
    the site's service worker."""
    from cpmodels.web.routes.pages import editor_page

    static = resources.files("cpmodels.web").joinpath("static")
    pages = {"edit.html": editor_page(), "index.html": static.joinpath("index.html").read_text()}
    marked = {name: text.replace("<head>", '<head>\n<meta name="cpmodels-site">', 1)
              for name, text in pages.items()}
    errors: list[str] = []
    context, page = _page(browser, LAPTOP, errors)
    page.route("**/*.html", lambda route: route.fulfill(
        body=marked[route.request.url.split("/")[-1].split("#")[0]], content_type="text/html"))
    # without the engine (engine.wasm missing) the editor's counts, too, are the server's
    page.route("**/static/engine/engine.wasm", lambda route: route.fulfill(status=404))
    try:
        page.goto(f"{server}/edit.html")
        page.wait_for_function("document.querySelector('footer').textContent.length > 0")
        _wait_for_console(page, errors, "when fetching the script", 1)  # its service worker
        assert page.locator("footer").inner_text() == (
            "A copy of the editor on a static site: drawing, saving and opening work here; "
            "checking, counting, designing and the cut and print files need the cpmodels "
            "server (cpmodels serve).")
        page.select_option("#start", "calendar_week")  # its fields are a file of the site
        page.wait_for_function("document.querySelector('#name').value === 'calendar_week'")
        page.wait_for_function("document.querySelector('#arith').textContent.length > 0")
        assert page.locator("#arith").inner_text() == (
            "Checking the board and counting its dates need the cpmodels server: run cpmodels "
            "serve and open the editor there.")
        # the board is saved here, as the server writes it (no engine: its pieces' fit is
        # left to the commands that read the file)
        with page.expect_download() as saving:
            page.click("#save")
        fields = page.evaluate("import('./static/edit.js').then((m) => m.spec())")
        assert Path(saving.value.path()).read_text() == board.to_yaml(fields)
        # the cut file needs the engine too: said, nothing made
        page.click("#make")
        page.wait_for_function("document.querySelector('#shared').textContent.length > 0")
        assert page.locator("#shared").inner_text() == (
            "This browser cannot run the engine (WebAssembly in workers), so the cut file "
            "cannot be made here: Save YAML, then run cpmodels make on the file.")
        linked = page.evaluate("""async () => { const {base64url} = await import(
          new URL("static/base64url.js", location.href).href);
          return base64url(JSON.stringify({name: "x"})); }""")
        page.goto(f"{server}/index.html#board={linked}")
        page.wait_for_function("document.querySelector('#error').textContent.length > 0")
        assert page.locator("#error").inner_text().startswith(
            "This link's board is played by the puzzle engine in the browser, which did not "
            "load here (WebAssembly or workers may be blocked, or a file of the site is "
            "missing), and this site has no server to play it. Here is ")
        # the browser reports a failed registration when it has fetched the script, which
        # may be after the page has said everything else: wait for each page's report
        _wait_for_console(page, errors, "when fetching the script", 2)
        _wait_for_console(page, errors, "status of 404", 2)
    finally:
        context.close()
    # each page asked for the site's service worker (this server has none to give), which
    # the server's own pages never do (the test above sees no error)
    # (and each said engine.wasm was not found)
    missing = [e for e in errors if "status of 404" in e]
    rest = [e for e in errors if e not in missing]
    assert len(missing) == 2 and len(rest) == 2, errors
    assert all("when fetching the script" in e for e in rest), errors
