"""The design question ("Try them") on the static site (no server): the engine's workers
decide every candidate set of the board's candidates, with the progress, stop, ranking and
"choose a set" of the server's editor, and the same answers as ``cpmodels design`` on the
same board and pool, set for set. The page asks for nothing but the site's own files."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import screenshot
from test_site import static_host  # noqa: F401 (a fixture)
from test_site_files import LAPTOP, PHONE, WAIT, _editor, _only_site_files

SPECS = Path(__file__).resolve().parent.parent / "specs"
DESIGN = SPECS / "designs" / "apad_rectangle_pentominoes.yaml"  # 792 sets on calendar_day
RECTANGLE = {"name": "O6", "shape": ["###", "###"], "count": 1, "always": True}
DONE = "document.querySelector('#designsummary').dataset.done === '1'"


@pytest.fixture(scope="module")
def native(tmp_path_factory) -> tuple[dict[tuple[str, ...], dict], dict, float]:
    """``cpmodels design`` of the month/day calendar's design: each set's verdict (by its
    pieces), the JSON summary, and the wall-clock seconds the command took."""
    out = tmp_path_factory.mktemp("design") / "verdicts.jsonl"
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "cpmodels", "design", str(DESIGN), "--out",
                           str(out), "--format", "json", "--quiet"],
                          capture_output=True, text=True, timeout=900)
    seconds = time.perf_counter() - began
    assert done.returncode == 0, done.stderr
    lines = out.read_text().splitlines()[1:]  # (the first names the question)
    verdicts = {tuple(v["pieces"]): v for v in map(json.loads, lines)}
    return verdicts, json.loads(done.stdout), seconds


def _candidates(page) -> None:
    """The month/day calendar with the 2x3 rectangle (always) and the twelve pentominoes as
    candidates, seven to choose: the design file's question."""
    page.select_option("#start", "calendar_day")
    page.wait_for_function("document.querySelector('#name').value === 'calendar_day'",
                           timeout=WAIT)
    page.evaluate("(piece) => import('./static/edit.js').then((m) => "
                  "m.state.candidates.push(piece))", RECTANGLE)
    page.select_option("#addto", "candidates")
    page.select_option("#pool", "pentominoes")
    names = page.eval_on_selector_all("#poolpieces .add-piece", "bs => bs.map(b => "
                                      "b.dataset.piece)")
    assert len(names) == 12
    for name in names:
        page.click(f'#poolpieces .add-piece[data-piece="{name}"]')
    assert page.locator('#candidates .piece[data-piece="O6"] input.always').is_checked()
    page.fill("#choose", "7")
    page.select_option("#require", "real-dates")


def _shown(verdict: dict) -> str:
    """A working set as the page lists it (edit.js's setText)."""
    return (f"{' '.join(verdict['pieces'])}: fewest {verdict['min']:,} solutions "
            f"({' '.join(verdict['argmin'])}), {verdict['total']:,} in all")


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_try_them_on_the_site_answers_as_cpmodels_design(browser, site, static_host,  # noqa: F811
                                                         native, tmp_path, viewport):
    """Try them on the site: every set of the design decided by the engine's workers, the
    working ones ranked as ``cpmodels design`` ranks them (the same counts); choosing one
    puts its pieces on the board. Every verdict, read from the workers' answers, is the
    command's (works or not; a working set's fewest, its date, most and total)."""
    out, _ = site
    verdicts, summary, native_seconds = native
    context, page, asked, errors = _editor(browser, static_host, viewport, out)
    try:
        _candidates(page)
        page.click("#design")
        page.wait_for_function(DONE, timeout=600_000)
        said = page.inner_text("#designsummary")
        working = summary["working"]
        assert said.startswith(f"{len(working)} of {len(verdicts)} sets work, ranked by "
                               "their hardest date; ")
        assert page.eval_on_selector_all("#sets button", "bs => bs.map(b => b.textContent)") \
            == [_shown(v) for v in working]
        seconds = float(said.rsplit("; ", 1)[1].removesuffix(" s"))
        print(f"\n{viewport['width']}px: Try them on the site {seconds:.1f} s, "
              f"cpmodels design {summary['seconds']:.1f} s ({native_seconds:.1f} s with "
              "its start)")
        screenshot(page, tmp_path, f"site-design-{viewport['width']}.png",
                   "CPMODELS_SITE_DESIGN_SHOT")
        # choosing the best set puts its pieces on the board
        page.click("#sets li:first-child button")
        assert page.locator("#sets li:first-child button").get_attribute("aria-pressed") \
            == "true"
        fields = page.evaluate("import('./static/edit.js').then((m) => m.spec())")
        assert sorted(p["name"] for p in fields["pieces"]) == sorted(working[0]["pieces"])
        if viewport is LAPTOP:
            # every verdict, as the workers answer them, is the command's
            lines = page.evaluate("""async () => {
              const {designBoard, openPool} = await import('./static/counts.js');
              const {spec, state} = await import('./static/edit.js');
              const pool = await openPool();
              const lines = [];
              await designBoard(pool, {board: spec(state.candidates),
                                       always: ['O6'], choose: 7, require: 'real-dates'},
                                (line) => lines.push(line), new AbortController().signal);
              return lines; }""")
            found = [line for line in lines if "pieces" in line]
            assert lines[0] == {"candidates": len(verdicts), "skipped_as_equal": 0}
            assert len(found) == len(verdicts)
            keys = ("works", "min", "argmin", "max", "total")
            for verdict in found:
                want = verdicts[tuple(verdict["pieces"])]
                assert {k: verdict[k] for k in keys} == {k: want[k] for k in keys}, verdict
                assert verdict["first_failure"] == want["first_failure"], verdict
        assert errors == []
    finally:
        context.close()
    _only_site_files(asked, out)


def test_try_them_on_the_site_stops_and_refuses_in_the_servers_words(
        browser, site, static_host):  # noqa: F811
    """Stop ends the deciding ("(stopped)"), as a change of the sets asked for does; a
    question the editor does not take is refused before any work in the server's sentence
    (web/designing.py)."""
    out, _ = site
    context, page, asked, errors = _editor(browser, static_host, LAPTOP, out)
    try:
        _candidates(page)
        page.click("#design")
        page.wait_for_function("document.querySelector('#designprogress').value > 0",
                               timeout=WAIT)
        page.click("#designstop")
        page.wait_for_function("document.querySelector('#designsummary').textContent"
                               ".endsWith('(stopped)')", timeout=WAIT)
        assert page.locator("#designstop").is_disabled()
        # the size of a set changed while the question runs: it ends, and nothing of the
        # question asked comes under the new one
        page.click("#design")
        page.wait_for_function("document.querySelector('#designprogress').value > 0",
                               timeout=WAIT)
        page.fill("#choose", "6")
        page.wait_for_function("document.querySelector('#designstop').disabled", timeout=WAIT)
        changed = "the board, the candidates or the sets asked for changed: ask again"
        page.wait_for_timeout(500)  # an answer of the question ended would show by now
        assert page.evaluate("document.querySelector('#designsummary').textContent"
                             ) == changed
        assert page.evaluate("[document.querySelector('#designprogress').value, "
                             "document.querySelector('#sets').children.length]") == [0, 0]
        page.fill("#choose", "7")
        # twenty to choose from, seven at a time: 77,520 sets asked, more than the served
        # editor's 5,000, of which the 792 of seven pentominoes fill the board; the engine
        # here takes them, with the progress and the stop
        page.select_option("#pool", "hexominoes")
        for name in page.eval_on_selector_all("#poolpieces .add-piece",
                                              "bs => bs.slice(0, 8).map(b => b.dataset.piece)"):
            page.click(f'#poolpieces .add-piece[data-piece="{name}"]')
        page.fill("#choose", "7")
        page.click("#design")
        page.wait_for_function("/ of 792 sets decided/.test(document.querySelector("
                               "'#designsummary').textContent)", timeout=WAIT)
        page.click("#designstop")
        page.wait_for_function("document.querySelector('#designsummary').textContent"
                               ".endsWith('(stopped)')", timeout=WAIT)
        # twenty-four: too many sets for the engine in the browser
        for name in page.eval_on_selector_all("#poolpieces .add-piece",
                                              "bs => bs.slice(8, 12).map(b => b.dataset.piece)"):
            page.click(f'#poolpieces .add-piece[data-piece="{name}"]')
        page.click("#design")
        page.wait_for_function("document.querySelector('#designsummary-problem')"
                               "?.textContent.length > 0 || document.querySelector("
                               "'#designsummary').textContent.startsWith('That is')",
                               timeout=WAIT)
        text = page.evaluate("(document.querySelector('#designsummary-problem') || "
                             "document.querySelector('#designsummary')).textContent")
        assert text == ("That is 346,104 sets to try; the editor tries at most 100,000 (run "
                        "cpmodels design on the saved board for more).")
        assert errors == []
    finally:
        context.close()
    _only_site_files(asked, out)


def test_a_design_question_that_fails_ends_its_other_questions(
        browser, site, static_host):  # noqa: F811
    """One of a design question's questions failing (a worker's engine failed) ends the
    others, waiting or running, with it: none is left to hold the workers untimed, out of
    reach of Stop (the question is over) and of the page's other questions."""
    out, _ = site
    context, page, asked, errors = _editor(browser, static_host, LAPTOP, out)
    try:
        _candidates(page)
        left = page.evaluate("""async () => {
          const {designBoard, openPool} = await import('./static/counts.js');
          const {spec, state} = await import('./static/edit.js');
          const pool = await openPool();
          let sets = 0;
          const failing = {ask(kind, op, ...rest) {
            if (op === 'design' && ++sets === 3) return Promise.reject(new Error('failed'));
            return pool.ask(kind, op, ...rest); }};
          let said = null;
          try {
            await designBoard(failing, {board: spec(state.candidates), always: ['O6'],
                                        choose: 7, require: 'real-dates'},
                              () => {}, new AbortController().signal);
          } catch (err) { said = err.message; }
          return {said, waiting: pool.waiting.length,
                  running: pool.slots.filter((s) => s && s.question).length}; }""")
        assert left == {"said": "failed", "waiting": 0, "running": 0}
        assert errors == []
    finally:
        context.close()
    _only_site_files(asked, out)


def _refusal(page, candidates: list[dict] | str, choose: int) -> str:
    """What the editor says when Try them is asked of the month/day calendar with these
    candidates (the pieces' fields, ``always`` among them; or the 2x3 rectangle always and
    a named pool's every piece) and ``choose``."""
    page.select_option("#start", "calendar_day")
    page.wait_for_function("document.querySelector('#name').value === 'calendar_day'",
                           timeout=WAIT)
    pieces = [RECTANGLE] if isinstance(candidates, str) else candidates
    page.evaluate("(pieces) => import('./static/edit.js').then((m) => "
                  "m.state.candidates.splice(0, Infinity, ...pieces))", pieces)
    if isinstance(candidates, str):
        page.select_option("#addto", "candidates")
        page.select_option("#pool", candidates)
        # the pool as the page lists it once its pools have come (the board's load asks again)
        listed = ("document.querySelector('#pool').value === p && [...document.querySelectorAll("
                  "'#poolpieces .add-piece')].length > 0")
        page.wait_for_function(f"(p) => {listed}", arg=candidates, timeout=WAIT)
        names = page.eval_on_selector_all("#poolpieces .add-piece",
                                          "bs => bs.map(b => b.dataset.piece)")
        for name in names:
            page.click(f'#poolpieces .add-piece[data-piece="{name}"]')
        assert page.evaluate("import('./static/edit.js').then((m) => m.state.candidates"
                             ".map((p) => p.name))") == ["O6", *names]
    page.fill("#choose", str(choose))
    page.select_option("#require", "real-dates")
    page.evaluate("document.querySelector('#designsummary').textContent = ''")
    page.click("#design")
    said = ("(document.querySelector('#designsummary-problem')?.textContent || "
            "document.querySelector('#designsummary').textContent)")
    page.wait_for_function(f"{said}.length > 0 && !/sets decided/.test({said})",
                           timeout=WAIT)
    return page.evaluate(said)


SHAPES = {"P": ["##", "##", "#."], "L": ["#.", "#.", "#.", "##"], "X": [".#.", "###", ".#."],
          "T": ["###", ".#.", ".#."], "U": ["#.#", "###"], "V": ["#..", "#..", "###"],
          "I": ["#####"], "N": [".#", ".#", "##", "#."]}


def _pentominoes(*names: str, **changed: dict) -> list[dict]:
    """The 2x3 rectangle (always) and these pentominoes as candidates, a piece's fields
    changed as ``changed`` says (by its name)."""
    return [RECTANGLE, *({"name": n, "shape": SHAPES[n], "count": 1, **changed.get(n, {})}
                         for n in names)]


ODD_QUESTIONS = {  # the candidates and how many to choose: 7 pentominoes fill the board
    # a candidate with two copies: a set takes each candidate once
    "copies": (_pentominoes(*"PLXTUVIN", L={"count": 2}), 7),
    # two candidates of one name
    "one name twice": (_pentominoes(*"PLXTUVIN", L={"name": "P"}), 7),
    # a candidate with no name
    "no name": (_pentominoes(*"PLXTUVIN", X={"name": ""}), 7),
    # a piece marked always with a range of copies: a design's pieces have one count
    "always a range": ([{**RECTANGLE, "count": [1, 2]}, *_pentominoes(*"PLXTUVIN")[1:]], 7),
    # too many sets (6,545), and none of them has the area: the area is said
    "area before count": ("hexominoes", 3),
}


@pytest.mark.parametrize("question", list(ODD_QUESTIONS))
def test_the_site_refuses_an_odd_question_as_the_server_does(browser, site, static_host,  # noqa: F811
                                                               question):
    """Each question the server's editor refuses, the site's refuses before any work, in the
    same sentence: the board read as the server reads it, the area before the count of sets,
    a candidate's copies."""
    from conftest import SPECS as BUNDLED
    from conftest import running_server

    from cpmodels.web.app import create_app

    candidates, choose = ODD_QUESTIONS[question]
    out, _ = site
    context, page, asked, errors = _editor(browser, static_host, LAPTOP, out)
    try:
        on_site = _refusal(page, candidates, choose)
    finally:
        context.close()
    _only_site_files(asked, out)
    with running_server(create_app([BUNDLED / "calendar_day.yaml"])) as server:
        page = browser.new_page(viewport=LAPTOP)
        try:
            page.goto(server + "/edit")
            page.wait_for_selector("#board svg .cellgroup", timeout=WAIT)
            on_server = _refusal(page, candidates, choose)
        finally:
            page.close()
    assert on_site == on_server and "sets decided" not in on_site, (on_site, on_server)
    assert errors == []


TABLET = {"width": 768, "height": 1024}
TABLET_LANDSCAPE = {"width": 1024, "height": 768}
PHONE_LANDSCAPE = {"width": 844, "height": 390}
ON_SCREEN = """(id) => { const r = document.getElementById(id).getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= innerWidth; }"""


@pytest.mark.parametrize("viewport", [TABLET, TABLET_LANDSCAPE, PHONE_LANDSCAPE],
                         ids=["tablet", "tablet-landscape", "phone-landscape"])
def test_try_them_on_a_tablet_and_a_phone_turned_with_slowed_answers(
        browser, site, static_host, viewport, tmp_path):  # noqa: F811
    """Try them at a tablet's sizes and a phone's turned on its side, the engine's answers
    slowed past a question's time limit (``?engine_delay``, ``?engine_time_limit``), which
    does not bind a design's answers: its controls and answer fit the width (the page scrolls no
    way but down), Stop ends a question while its answers are held back, and the question
    asked again ranks the sets as the server's editor does (``BoardDesign``); a set chosen
    is put on the board."""
    from cpmodels.web.designing import BoardDesign

    out, _ = site
    context, page, asked, errors = _editor(browser, static_host, viewport, out)
    try:
        # each answer held back 3 s: Stop lands while the first sets' answers are held; a
        # question's time limit of 1 s does not bind the design question's answers (a
        # weekday calendar's set takes longer to count than any question of the heatmap)
        page.goto(f"{static_host}edit.html?engine_delay=3000&engine_time_limit=1")
        page.wait_for_function("document.querySelector('footer').textContent"
                               ".startsWith('Counts come')", timeout=WAIT)
        page.select_option("#start", "calendar_day")
        page.wait_for_function("document.querySelector('#name').value === 'calendar_day'",
                               timeout=WAIT)
        page.evaluate("(pieces) => import('./static/edit.js').then((m) => "
                      "m.state.candidates.splice(0, Infinity, ...pieces))",
                      _pentominoes(*"PLXTUVIN"))
        page.fill("#choose", "7")
        page.select_option("#require", "real-dates")
        page.locator("#design").scroll_into_view_if_needed()
        page.click("#design")
        page.wait_for_function("document.querySelector('#designsummary').textContent"
                               ".startsWith('0 of 8 sets decided')", timeout=WAIT)
        # the order of dates learnt from the 8 sets first, its progress said in the summary
        page.wait_for_function("document.querySelector('#designsummary').textContent === "
                               "'0 of 8 sets decided, 0 work; learning which dates fail most "
                               "often from the first 8 sets: 8 tried'", timeout=WAIT)
        for control in ("design", "designstop", "designprogress", "designsummary"):
            assert page.evaluate(ON_SCREEN, control), control
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        screenshot(page, tmp_path, f"site-design-learning-{viewport['width']}.png",
                   "CPMODELS_SITE_DESIGN_LEARNING_SLOWED")
        page.click("#designstop")
        page.wait_for_function("document.querySelector('#designsummary').textContent"
                               ".endsWith('(stopped)')", timeout=WAIT)
        assert page.locator("#designstop").is_disabled()
        page.click("#design")
        page.wait_for_function(DONE, timeout=600_000)
        body = page.evaluate("import('./static/edit.js').then((m) => "
                             "({board: m.spec(m.state.candidates), always: ['O6'], choose: 7,"
                             " require: 'real-dates'}))")
        server = list(BoardDesign(body, threads=1).rows())[-1]
        assert server["done"] and server["candidates"] == 8
        said = page.inner_text("#designsummary")
        assert said.startswith(f"{len(server['working'])} of 8 sets work, ranked by their "
                               "hardest date; ")
        assert page.eval_on_selector_all("#sets button", "bs => bs.map(b => b.textContent)") \
            == [_shown(v) for v in server["working"]]
        for control in ("designsummary", "sets"):
            assert page.evaluate(ON_SCREEN, control), control
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        page.locator("#sets li:first-child button").scroll_into_view_if_needed()
        page.click("#sets li:first-child button")
        fields = page.evaluate("import('./static/edit.js').then((m) => m.spec())")
        assert sorted(p["name"] for p in fields["pieces"]) == \
            sorted(server["working"][0]["pieces"])
        assert errors == []
    finally:
        context.close()
    _only_site_files(asked, out)


WEEKDAY_FIRST = 400  # of the weekday design's 7,920 sets, after the order learnt from 320


def _weekday_candidates(page) -> None:
    """The weekday calendar with the twelve pentominoes and the five tetrominoes as
    candidates, ten to choose, real dates required."""
    page.select_option("#start", "calendar_week")
    page.wait_for_function("document.querySelector('#name').value === 'calendar_week'",
                           timeout=WAIT)
    page.select_option("#addto", "candidates")
    for pool in ("pentominoes", "tetrominoes"):
        page.select_option("#pool", pool)
        page.wait_for_function(
            "(p) => document.querySelector('#pool').value === p && [...document"
            ".querySelectorAll('#poolpieces .add-piece')].length > 0", arg=pool,
            timeout=WAIT)
        for name in page.eval_on_selector_all("#poolpieces .add-piece",
                                              "bs => bs.map(b => b.dataset.piece)"):
            page.click(f'#poolpieces .add-piece[data-piece="{name}"]')
    page.fill("#choose", "10")
    page.select_option("#require", "real-dates")


def test_the_weekday_design_is_tried_on_the_site_with_progress_and_stop(
        browser, site, static_host, tmp_path):  # noqa: F811
    """The weekday calendar with the twelve pentominoes and the five tetrominoes as
    candidates, ten to choose (19,448 sets asked, 7,920 of them fill the board; the served
    editor takes at most 5,000): the engine here learns the order of dates from the first
    320 (half a minute), the progress of that learning moves turn by turn, and Stop ends
    the question at once, in the middle of it."""
    out, _ = site
    context, page, asked, errors = _editor(browser, static_host, LAPTOP, out)
    try:
        _weekday_candidates(page)
        page.click("#design")
        learning = ("/^0 of 7,920 sets decided, 0 work; learning which dates fail most often "
                    "from the first 320 sets: ([1-9][0-9]*) tried$/.exec(document"
                    ".querySelector('#designsummary').textContent)?.[1]")
        page.wait_for_function(f"+{learning} >= 32", timeout=300_000)
        assert page.evaluate("document.querySelector('#designprogress').max") == 7920
        screenshot(page, tmp_path, "site-design-learning.png", "CPMODELS_SITE_DESIGN_LEARNING")
        page.click("#designstop", timeout=WAIT)
        page.wait_for_function("document.querySelector('#designsummary').textContent"
                               ".endsWith('(stopped)')", timeout=WAIT)
        assert page.locator("#designstop").is_disabled()
        assert errors == []
    finally:
        context.close()
    _only_site_files(asked, out)


def test_the_weekday_design_on_the_site_answers_its_first_sets_as_cpmodels_design(
        browser, site, static_host, monkeypatch):  # noqa: F811
    """The weekday design's first sets (the order of dates learnt from its first 320, as
    ``cpmodels design`` learns it), decided by the core's design decision in the engine's
    workers without counts: each verdict (works, first failure) is the command's on the
    same question (``run_design(first=N)``, existence alone). The seconds of both are
    printed, not asserted."""
    from cpmodels.design import run_design
    from cpmodels.design.search import Design
    from cpmodels.web import designing

    out, _ = site
    context, page, asked, errors = _editor(browser, static_host, LAPTOP, out)
    try:
        _weekday_candidates(page)
        board = page.evaluate("import('./static/edit.js').then((m) => "
                              "m.spec(m.state.candidates))")
        began = time.perf_counter()
        lines = page.evaluate("""async (first) => {
          const {designBoard, openPool} = await import('./static/counts.js');
          const {spec, state} = await import('./static/edit.js');
          const pool = await openPool();
          const lines = [];
          await designBoard(pool, {board: spec(state.candidates), always: [], choose: 10,
                                   require: 'real-dates', counts: false, first},
                            (line) => lines.push(line), new AbortController().signal);
          return lines; }""", WEEKDAY_FIRST)
        browser_seconds = time.perf_counter() - began
        assert errors == []
    finally:
        context.close()
    _only_site_files(asked, out)
    monkeypatch.setattr(designing, "MAX_SETS", 100_000)  # (the page's bound, not the server's)
    asked_as = designing.BoardDesign({"board": board, "always": [], "choose": 10,
                            "require": "real-dates"})
    design = Design(asked_as._design, asked_as._board, with_counts=False)
    began = time.perf_counter()
    native = run_design(design, first=WEEKDAY_FIRST, jobs=2)
    native_seconds = time.perf_counter() - began
    found = [line for line in lines if "pieces" in line]
    assert lines[0] == {"candidates": 7920, "skipped_as_equal": 0}
    assert len(found) == len(native) == WEEKDAY_FIRST
    want = {tuple(v.pieces): v.as_dict() for v in native}
    for verdict in found:
        expected = want[tuple(verdict["pieces"])]
        assert (verdict["works"], verdict["first_failure"]) == \
            (expected["works"], expected["first_failure"]), verdict
    print(f"\nthe weekday design's first {WEEKDAY_FIRST} sets: the site {browser_seconds:.1f} s"
          f" (2 workers), run_design {native_seconds:.1f} s (2 processes), "
          f"{sum(v['works'] for v in found)} work")


# A board of its own (a wall inside, two label groups), its pieces turned as each says: one
# in two copies marked always, two face up (no mirror image), one that may not turn.
TURNED = {"name": "turned", "board": ["A1 A2 A3 .  #", ".  .  .  .  .", ".  #  .  B1 .",
                                      ".  .  .  .  B2", ".  .  .  .  ."],
          "groups": {"a": ["A1", "A2", "A3"], "b": ["B1", "B2"]},
          "pieces": [{"name": "D", "shape": ["##"], "count": 2},
                     {"name": "L", "shape": SHAPES["L"], "flip": False},
                     {"name": "P", "shape": SHAPES["P"]}, {"name": "U", "shape": SHAPES["U"]},
                     {"name": "T4", "shape": ["###", ".#."], "rotate": False},
                     {"name": "S4", "shape": ["##.", ".##"], "flip": False},
                     {"name": "L4", "shape": ["#..", "###"]}, {"name": "V3", "shape": ["#.", "##"]},
                     {"name": "I3", "shape": ["###"]}]}


def test_the_sites_answers_turn_each_piece_as_it_says(browser, site, static_host,  # noqa: F811
                                                      run_cli, tmp_path):
    """A piece's own ``flip`` and ``rotate`` hold on the site as in the spec: Try them on a
    board of its own with face-up pieces, and a T that may rotate beside the one that may
    not (sets of their own, not equal), gives ``run_design``'s verdicts, set for set, and
    its heatmap ``cpmodels sweep``'s rows."""
    import yaml

    from cpmodels.design.search import run_design
    from cpmodels.web import designing

    turning_t = {"name": "T5", "shape": ["###", ".#."]}
    question = {"board": {**TURNED, "pieces": [*TURNED["pieces"], turning_t]},
                "always": ["D"], "choose": 4, "require": "all-combinations"}
    out, _ = site
    context, page, asked, errors = _editor(browser, static_host, LAPTOP, out)
    try:
        found = page.evaluate("""async (question) => {
          const {countBoard, designBoard, openPool} = await import('./static/counts.js');
          const pool = await openPool();
          const lines = [], rows = [];
          const signal = new AbortController().signal;
          await designBoard(pool, question, (line) => lines.push(line), signal);
          const board = {...question.board, pieces: question.board.pieces.filter((p) =>
            ['D', 'L', 'P', 'T4', 'V3'].includes(p.name))};
          await countBoard(pool, board, (found) => rows.push(...found), signal);
          return {lines, rows}; }""", question)
        assert errors == []
    finally:
        context.close()
    _only_site_files(asked, out)
    asked_as = designing.BoardDesign(question)
    native = {tuple(v.pieces): v.as_dict()
              for v in run_design(designing.Design(asked_as._design, asked_as._board))}
    verdicts = [line for line in found["lines"] if "pieces" in line]
    assert len(verdicts) == len(native) == 30  # (21 if the T5 sets were taken as equal)
    assert sum(v["works"] for v in verdicts) == 17
    with_t = {tuple(sorted(v["pieces"])) for v in verdicts if "T4" in v["pieces"]}
    assert with_t and all(tuple(sorted(["T5" if n == "T4" else n for n in t])) in
                          {tuple(sorted(v["pieces"])) for v in verdicts} for t in with_t)
    for verdict in verdicts:
        assert {k: verdict[k] for k in native[tuple(verdict["pieces"])]} == \
            native[tuple(verdict["pieces"])], verdict
    # the heatmap: the board with the face-up pieces and the one that may not turn
    spec = {**TURNED, "kind": "calendar",
            "pieces": [p for p in TURNED["pieces"] if p["name"] in ("D", "L", "P", "T4", "V3")]}
    path = tmp_path / "turned.yaml"
    path.write_text(yaml.safe_dump(spec))
    rows = tmp_path / "rows.csv"
    code, _, err = run_cli("sweep", path, "--out", rows, "--quiet")
    assert code == 0, err
    lines = [line.split(",") for line in rows.read_text().splitlines()
             if not line.startswith("#")][1:]
    want = {tuple(line[:2]): int(line[-1]) for line in lines}
    assert {tuple(r["labels"]): r["count"] for r in found["rows"]} == want
    assert sum(want.values()) > 0


def test_a_board_opened_in_the_editor_keeps_its_pieces_turns(
        browser, site, static_host):  # noqa: F811
    """A board opened by its link keeps the board's ``rotate`` and each piece's own
    ``rotate`` and ``flip`` in the fields the editor counts, saves and asks about, and
    through an undo: none is turned as the spec does not let it."""
    import base64

    fields = {**TURNED, "rotate": False, "kind": "calendar",
              "pieces": [p for p in TURNED["pieces"] if p["name"] in ("D", "L", "T4")]}
    link = base64.urlsafe_b64encode(json.dumps(fields).encode()).decode().rstrip("=")
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    try:
        page.goto(f"{static_host}edit.html#board={link}")
        page.wait_for_function("document.querySelector('#name').value === 'turned'",
                               timeout=WAIT)
        read = "import('./static/edit.js').then((m) => m.spec())"
        kept = page.evaluate(read)
        assert kept["rotate"] is False
        assert [(p["name"], p.get("rotate"), p.get("flip")) for p in kept["pieces"]] == \
            [("D", None, None), ("L", None, False), ("T4", False, None)]
        page.fill("#name", "turned2")
        page.dispatch_event("#name", "input")
        page.keyboard.press("Control+z")
        assert page.evaluate(read)["pieces"] == kept["pieces"]
        assert page.evaluate(read)["rotate"] is False
    finally:
        context.close()
