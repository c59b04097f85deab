"""The board editor in headless Chromium: a calendar drawn cell by cell from an empty grid,
its heatmap's counts against ``cpmodels sweep`` of the YAML it saves; an edit mid-stream
cancels the count; save, open and the share link round-trip."""

from __future__ import annotations

import colorsys
import itertools
import resource
import threading
import time

import pytest
import yaml
from conftest import SPECS, page_globals, running_server, screenshot, settled

from cpmodels.api import design, sweep
from cpmodels.web.app import create_app

# The editor's module, as the page loaded it (one module per address): what it exports.
EDITOR = 'import("/static/edit.js")'


@pytest.fixture(scope="module")
def server():
    with running_server(create_app([SPECS / "calendar_week.yaml",
                                    SPECS / "calendar_day.yaml"])) as url:
        yield url


@pytest.fixture
def editor(browser, server):
    page = browser.new_page(viewport={"width": 900, "height": 1100})
    page.goto(server + "/edit")
    page.wait_for_selector("#board svg .cellgroup", timeout=30_000)
    yield page
    page.close()


def _cell(page, r: int, c: int):
    return page.locator(f'#board .cellgroup[data-row="{r}"][data-col="{c}"] polygon')


def _heatmap(page) -> dict[str, dict[str, int]]:
    found = page.eval_on_selector_all(
        "#board .cellgroup[data-min]",
        "gs => gs.map(g => [g.dataset.token, +g.dataset.min, +g.dataset.sum, +g.dataset.zero])")
    return {t: {"min": m, "sum": s, "zero": z} for t, m, s, z in found}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _counting_threads() -> list[str]:
    """The names of the threads counting a board in this process (the server's)."""
    return [t.name for t in threading.enumerate()
            if t.name == "cpmodels-counts" or t.name.startswith("cpmodels-run-")]


def _draw_board(page, grid: str = "square", cols: int = 4, at: tuple[int, ...] = (0, 1, 2),
                rows: tuple[int, int] = (0, 1)) -> None:
    """A board of 3 rows and ``cols`` columns drawn cell by cell on ``grid``: labels J F M
    (group letter) in row ``rows[0]`` and 1 2 3 (group number) in row ``rows[1]``, in the
    columns ``at``."""
    page.select_option("#grid", grid)
    page.fill("#rows", "3")
    page.dispatch_event("#rows", "change")
    page.fill("#cols", str(cols))
    page.dispatch_event("#cols", "change")
    page.check("input[name=tool][value=cells]")
    _drag(page, [(0, c) for c in range(cols)])  # the first row in with one stroke
    for r in range(1, 3):  # the others one by one
        for c in range(cols):
            _cell(page, r, c).click()
    page.check("input[name=tool][value=label]")
    for group, labels, row in (("letter", ["J", "F", "M"], rows[0]),
                               ("number", ["1", "2", "3"], rows[1])):
        page.fill("#newgroup", group)
        page.click("#addgroup")
        page.fill("#label", labels[0])
        for c, label in zip(at, labels):
            if not label.isdigit():
                page.fill("#label", label)
            _cell(page, row, c).click()  # the day numbers follow on by themselves


def _drag(page, cells: list[tuple[int, int]]) -> None:
    """Press on the first cell and drag over the others: one stroke of the cells tool."""
    def centre(r: int, c: int) -> tuple[float, float]:
        box = _cell(page, r, c).bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.6

    settled(page)
    points = [centre(*cell) for cell in cells]  # before the stroke redraws the board
    page.mouse.move(*points[0])
    page.mouse.down()
    for point in points[1:]:
        page.mouse.move(*point, steps=4)
    page.mouse.up()
    tokens = [page.get_attribute(f'#board .cellgroup[data-row="{r}"][data-col="{c}"]',
                                 "data-token") for r, c in cells]
    assert tokens == ["."] * len(cells), "the stroke did not paint every cell"


def _add(page, pool: str, *names: str, to: str = "board") -> None:
    """Add pieces from a pool to the board's pieces or (to="candidates") the candidates."""
    page.select_option("#addto", to)
    page.select_option("#pool", pool)
    for name in names:
        page.click(f'#poolpieces .add-piece[data-piece="{name}"]')


def _saved(page, tmp_path, name: str = "drawn.yaml"):
    with page.expect_download() as saving:
        page.click("#save")
    saved = tmp_path / name
    saving.value.save_as(saved)
    return saved


def _swept_heatmap(path) -> tuple[dict[str, dict[str, int]], bool]:
    """Each label's fewest solutions, solutions in all and unsolvable combinations, from
    ``cpmodels sweep`` of the file; and whether every combination is solvable."""
    swept = sweep(path)
    expected: dict[str, dict[str, int]] = {}
    for labels, row in swept.rows.items():
        for label in labels:
            s = expected.setdefault(label, {"min": row.count, "sum": 0, "zero": 0})
            s["min"] = min(s["min"], row.count)
            s["sum"] += row.count
            s["zero"] += row.count == 0
    return expected, not swept.summary.unsolvable


# 10 cells to cover on each grid: one piece of 4 cells and two of 3.
PIECES = {"square": (("tetrominoes", "L4"), ("trominoes", "V3", "I3")),
          "triangle": (("4-iamonds", "T4b"), ("3-iamonds", "T3a", "T3a")),
          "hex": (("4-hexes", "H4a"), ("3-hexes", "H3a", "H3b"))}


@pytest.mark.parametrize("grid", ["square", "triangle", "hex"])
def test_a_calendar_drawn_cell_by_cell_counts_as_its_saved_yaml_sweeps(editor, browser,
                                                                       tmp_path, grid):
    page = editor
    _draw_board(page, grid)
    for pool, *names in PIECES[grid]:
        _add(page, pool, *names)
    page.wait_for_selector("#summary[data-done]", timeout=30_000)
    assert "the area matches" in page.inner_text("#arith")
    heat = _heatmap(page)
    saved = _saved(page, tmp_path)
    expected, every = _swept_heatmap(saved)
    assert heat == expected and len(expected) == 6
    assert ("every combination is solvable" in page.inner_text("#summary")) == every
    # The share link carries the board in its address; Open reads the saved file back.
    page.click("#share")
    link = page.url
    fresh = browser.new_page()
    try:
        fresh.goto(link)
        fresh.wait_for_selector("#summary[data-done]", timeout=30_000)
        assert _heatmap(fresh) == heat
        assert fresh.input_value("#grid") == grid
        fresh.goto(link.split("#")[0])
        fresh.wait_for_selector("#board svg .cellgroup")
        fresh.set_input_files("#open", str(saved))
        fresh.wait_for_selector("#summary[data-done]", timeout=30_000)
        assert _heatmap(fresh) == heat
    finally:
        fresh.close()
    if grid == "square":
        _plays(page, expected, sweep(saved).rows[("J", "1")].count)


def _plays(page, expected: dict[str, dict[str, int]], first: int) -> None:
    """Play it: the board opens in play mode, as a puzzle of its own, with its labels."""
    with page.expect_popup() as opening:
        page.click("#play")
    play = opening.value
    try:
        play.wait_for_selector("#play-board .cell", timeout=30_000)
        assert play.input_value("#spec").startswith("drawn-")
        shown = set(play.eval_on_selector_all("#play-board text",
                                              "ts => ts.map(t => t.textContent)"))
        assert set(expected) <= shown
        play.click("#tab-solutions")
        play.click("#count")
        play.wait_for_function("/solutions/.test(document.querySelector('#status').textContent)",
                               timeout=30_000)
        assert play.inner_text("#status") == f"J 1: {first:,} solutions"
    finally:
        play.close()


def test_a_piece_drawn_on_its_own_grid_is_a_piece_of_the_board(editor, tmp_path):
    page = editor
    _draw_board(page)
    _add(page, "tetrominoes", "L4")
    _add(page, "trominoes", "I3")
    for r, c in ((0, 0), (1, 0), (1, 1)):  # a V tromino, drawn
        page.locator(f'#pad .padcell[data-row="{r}"][data-col="{c}"]').click()
    page.fill("#padname", "X")
    page.click("#padadd")
    page.wait_for_selector("#summary[data-done]", timeout=30_000)
    saved = _saved(page, tmp_path)
    assert {"name": "X", "shape": ["#.", "##"]} in yaml.safe_load(saved.read_text())["pieces"]
    assert _heatmap(page) == _swept_heatmap(saved)[0]


def test_cells_are_drawn_by_keyboard_too(editor):
    page = editor
    page.locator('#board .cellgroup[data-row="0"][data-col="0"]').focus()
    for key in ("Enter", "ArrowRight", "ArrowDown", " ", "ArrowLeft", "Enter", "Enter"):
        page.keyboard.press(key)
    tokens = {(r, c): page.get_attribute(
        f'#board .cellgroup[data-row="{r}"][data-col="{c}"]', "data-token")
        for r in range(2) for c in range(2)}
    assert tokens == {(0, 0): ".", (0, 1): "#", (1, 1): ".", (1, 0): "#"}
    on = page.evaluate("[document.activeElement.dataset.row, document.activeElement.dataset.col]")
    assert on == ["1", "0"]


def test_which_sets_of_the_pieces_work_as_each_set_sweeps(editor, tmp_path):
    page = editor
    _draw_board(page, cols=5, at=(0, 2, 4), rows=(0, 2))  # 13 cells to cover
    _add(page, "dominoes", "D2", to="candidates")
    _add(page, "trominoes", "I3", "V3", to="candidates")
    _add(page, "tetrominoes", "I4", "L4", "T4", "O4", "S4", to="candidates")
    page.locator('#candidates .piece[data-piece="D2"] input.always').check()
    page.fill("#choose", "3")
    # no month and day groups: "every real date" is not offered, every combination is asked
    assert page.input_value("#require") == "all-combinations"
    assert page.locator('#require option[value="real-dates"]').is_disabled()
    page.click("#design")
    page.wait_for_selector("#designsummary[data-done]", timeout=60_000)
    shown = page.eval_on_selector_all("#sets li", "ls => ls.map(l => l.dataset.pieces)")
    # Each set of D2 and three others with the board's area, swept as a spec of its own.
    spec = page.evaluate(f"{EDITOR}.then((m) => m.spec(m.state.candidates))")
    by_name = {p["name"]: p for p in spec["pieces"]}
    working = []
    for three in itertools.combinations(sorted(set(by_name) - {"D2"}), 3):
        chosen = ["D2", *three]
        if sum(sum(row.count("#") for row in by_name[n]["shape"]) for n in chosen) != 13:
            continue
        path = tmp_path / f"{'-'.join(chosen)}.yaml"
        path.write_text(yaml.safe_dump({**spec, "pieces": [by_name[n] for n in chosen]}))
        swept = sweep(path)
        if not swept.summary.unsolvable:
            fewest = min(row.count for row in swept.rows.values())
            total = sum(row.count for row in swept.rows.values())
            working.append((-fewest, -total, " ".join(sorted(chosen))))
    assert len(working) >= 2
    assert [w[2] for w in sorted(working)] == [" ".join(sorted(s.split())) for s in shown]
    assert f"{len(working)} of " in page.inner_text("#designsummary")
    # The best set, clicked, becomes the board's pieces: counted, and saved as a spec;
    # then the second, by keyboard: the board has exactly its pieces; the candidates stay.
    candidates = page.eval_on_selector_all("#candidates .piece",
                                           "ps => ps.map(p => p.dataset.piece)")
    for k in (0, 1):
        if k == 0:
            page.click(f"#sets li >> nth={k} >> button")
        else:
            page.locator(f"#sets li >> nth={k} >> button").focus()
            page.keyboard.press("Enter")
        page.wait_for_selector("#summary[data-done]", timeout=30_000)
        assert page.eval_on_selector_all(
            "#candidates .piece", "ps => ps.map(p => p.dataset.piece)") == candidates
        saved = _saved(page, tmp_path, f"set{k}.yaml")
        assert sorted(p["name"] for p in yaml.safe_load(saved.read_text())["pieces"]) == \
            sorted(shown[k].split())
        assert _heatmap(page) == _swept_heatmap(saved)[0]
        assert "every combination is solvable" in page.inner_text("#summary")
    # the question saved beside the board is a design file `cpmodels design` reads, and it
    # finds the sets the page ranked
    page.fill("#name", "drawn")
    page.dispatch_event("#name", "change")
    with page.expect_download() as saving:
        page.click("#savequestion")
    question = tmp_path / "question" / "drawn-design.yaml"
    question.parent.mkdir()
    saving.value.save_as(question)
    _saved(page, tmp_path / "question", "drawn.yaml")
    designed = design(question, jobs=1)
    assert sorted(" ".join(sorted(v.pieces)) for v in designed.verdicts if v.works) == \
        sorted(" ".join(sorted(s.split())) for s in shown)
    # a new candidate makes the ranking stale: it goes, and the page says to ask again
    _add(page, "monominoes", "M1", to="candidates")
    assert page.locator("#sets li").count() == 0
    assert "ask again" in page.inner_text("#designsummary")


def test_the_design_question_is_refused_in_the_pages_words(editor):
    page = editor
    _start(page, "calendar_day")
    page.click("#design")
    assert "add candidate pieces first" in page.inner_text("#designsummary")
    _add(page, "pentominoes", "I", "T", to="candidates")
    page.fill("#choose", "3")
    page.click("#design")
    assert page.inner_text("#designsummary") == (
        "choose a number from 1 to 2: there are 2 candidates not marked always")
    page.fill("#choose", "1")
    page.click("#design")  # one pentomino cannot fill the board: said in the page's words
    page.wait_for_function(
        "document.querySelector('#designsummary').textContent.includes('no set of')")
    assert page.inner_text("#designsummary") == (
        "no set of 1 of the candidates (with those marked always) has the area the board "
        "leaves to cover; try another number")
    for tick in page.locator("#candidates input.always").all():
        tick.check()
    page.click("#design")
    assert "every candidate is marked always" in page.inner_text("#designsummary")


def test_ties_for_hardest_and_easiest_go_to_the_first_in_the_groups_order(editor):
    found = editor.evaluate("""async () => {
        const {extremes} = await """ + EDITOR + """;
        const groups = {month: ["Jan", "Feb"], day: ["1", "2"]};
        const combos = [[["Feb", "2"], 5], [["Jan", "2"], 5], [["Feb", "1"], 9],
                        [["Jan", "1"], 9], [["Jan", "2"], 0]];
        const [fewest, most] = extremes(combos, groups);
        combos.reverse();
        const again = extremes(combos, groups);
        return [fewest, most, again];
      }""")
    fewest, most, again = found
    assert fewest == [["Jan", "2"], 5] and most == [["Jan", "1"], 9]
    assert again == [fewest, most]  # whatever order the counts came in


def test_an_edit_mid_stream_cancels_the_count(editor):
    page = editor
    page.select_option("#start", "calendar_week")
    page.wait_for_function("document.querySelector('#progress').value > 0", timeout=60_000)
    assert not page.locator("#summary[data-done]").count()
    page.check("input[name=tool][value=cells]")
    _cell(page, 7, 0).click()  # a wall cell in: the area no longer matches
    page.wait_for_function(
        "document.querySelector('#errors').textContent.includes('The pieces cover')",
        timeout=10_000)
    # The count's threads end, having burnt little more after the edit (the rest of the
    # count would take several seconds of processor time): measured by processor time, so a
    # busy machine that is slow to schedule them changes nothing.
    before = _cpu()
    deadline = time.monotonic() + 60
    while _counting_threads() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _counting_threads(), "the count went on after the edit"
    assert _cpu() - before < 1.0, "the count went on after the edit"
    _cell(page, 7, 0).click()  # and back: the board counts again
    # An edit while the board is still being checked (its answer held back 1.5 s): only
    # the last board's answers count.
    page.evaluate("""() => {
      const real = window.fetch;
      let held = false;
      window.fetch = (url, options) => {
        const answer = real(url, options);
        if (held || !String(url).endsWith("api/board/check")) return answer;
        held = true;
        return answer.then((r) => new Promise((done) => setTimeout(() => {
          document.body.dataset.heldBack = "answered";
          done(r);
        }, 1500)));
      };
    }""")
    for name in ("week-a", "week-b"):
        time.sleep(0.4)
        page.fill("#name", name)
        page.dispatch_event("#name", "change")
    page.wait_for_selector("#summary[data-done]", timeout=60_000)
    page.wait_for_selector("body[data-held-back]", timeout=10_000)  # the held answer is back
    assert "every combination is solvable" in page.inner_text("#summary")
    weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    heat = _heatmap(page)
    assert sum(heat[d]["sum"] for d in weekdays) == 4_937_780  # every solution once


# --- the editor as a person meets it ------------------------------------------------------

def _start(page, name: str) -> None:
    page.select_option("#start", name)
    page.wait_for_function("n => document.querySelector('#name').value === n", arg=name)
    page.wait_for_selector("#summary[data-done]", timeout=60_000)


def test_candidates_never_invalidate_the_board(editor, tmp_path):
    page = editor
    _start(page, "calendar_day")
    heat = _heatmap(page)
    assert page.input_value("#require") == "real-dates"  # month and day groups: dates
    _add(page, "dominoes", "D2", to="candidates")
    _add(page, "pentominoes", "I", "T", to="candidates")
    page.wait_for_selector("#summary[data-done]", timeout=60_000)
    assert page.inner_text("#errors") == ""
    assert _heatmap(page) == heat
    saved = yaml.safe_load(_saved(page, tmp_path).read_text())
    assert [p["name"] for p in saved["pieces"]] == ["O6", "P", "U", "V", "Z", "N", "Y", "L"]
    assert page.eval_on_selector_all("#candidates .piece",
                                     "ps => ps.map(p => p.dataset.piece)") == ["D2", "I", "T"]


def test_an_empty_board_guides_and_errors_are_plain(editor):
    page = editor
    page.wait_for_selector("#guide-box:not([hidden])")
    assert page.inner_text("#errors") == ""
    steps = page.eval_on_selector_all("#guide li", "ls => ls.map(l => l.textContent)")
    assert len(steps) == 4 and steps[0].startswith("Put cells on the board")
    # cells on and off the board are drawn differently, not only a shade apart
    off = page.eval_on_selector("#board .cell.off", "c => getComputedStyle(c).strokeDasharray")
    _cell(page, 0, 0).click()
    on = page.eval_on_selector("#board .cell.on", "c => getComputedStyle(c).strokeDasharray")
    assert off not in ("none", "") and on == "none"
    page.wait_for_function("document.querySelectorAll('#guide li').length === 3")
    # a board with a label and a piece but an empty group: the error names the group
    page.fill("#newgroup", "letter")
    page.click("#addgroup")
    page.check("input[name=tool][value=label]")
    page.fill("#label", "A")
    _cell(page, 0, 0).click()
    page.fill("#newgroup", "empty")
    page.click("#addgroup")
    _add(page, "monominoes", "M1")
    page.wait_for_function("document.querySelector('#errors').textContent.length > 0")
    errors = page.inner_text("#errors")
    assert errors.startswith("Group 'empty' has no labels")
    assert "pieces:" not in errors and "List should" not in errors


def test_month_names_follow_on_and_the_rule_is_said_where_groups_are_made(editor):
    page = editor
    rule = page.locator("#grouphelp")
    assert "12" in rule.inner_text() and "31" in rule.inner_text()
    box, add = rule.bounding_box(), page.locator("#addgroup").bounding_box()
    assert 0 <= box["y"] - (add["y"] + add["height"]) < 60  # right under the group controls
    for r in range(2):
        for c in range(3):
            _cell(page, r, c).click()
    page.fill("#newgroup", "month")
    page.click("#addgroup")
    page.check("input[name=tool][value=label]")
    page.fill("#label", "Jan")
    for c in range(3):
        _cell(page, 0, c).click()
    assert page.input_value("#label") == "Apr"
    page.fill("#newgroup", "weekday")
    page.click("#addgroup")
    page.fill("#label", "Sat")
    _cell(page, 1, 0).click()
    _cell(page, 1, 1).click()
    tokens = [page.get_attribute(f'#board .cellgroup[data-row="{r}"][data-col="{c}"]',
                                 "data-token") for r, c in ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1))]
    assert tokens == ["Jan", "Feb", "Mar", "Sat", "Sun"]


def test_old_colours_go_at_once_and_counting_is_said(editor):
    page = editor
    _start(page, "calendar_day")
    assert _heatmap(page)
    page.select_option("#start", "calendar_week")
    page.wait_for_function("document.querySelector('#name').value === 'calendar_week'")
    assert _heatmap(page) == {}  # none of calendar_day's colours left
    fills = page.eval_on_selector_all("#board .cell.on", "cs => cs.map(c => c.style.fill)")
    assert set(fills) == {""}
    page.wait_for_function("document.querySelector('#summary').textContent.includes('counting')",
                           timeout=10_000)


def test_the_heatmap_has_a_legend_counts_on_tap_and_focus_and_marks_unsolvable(editor):
    page = editor
    _start(page, "calendar_day")
    _greens_are_clear_steps(page)
    page.uncheck("#flip")  # face up, some dates have no solution
    page.wait_for_selector("#summary[data-done]", timeout=60_000)
    legend = page.inner_text("#legend")
    heat = _heatmap(page)
    top = max(s["min"] for s in heat.values())
    assert f"{top:,}" in legend and "no solution" in legend
    # the bands are the counts shown: each colours some label, the first starts at the
    # fewest of a solvable label, the last ends at the largest
    bands = [[int(n.replace(",", "")) for n in text.split("\u2013")] for text in
             page.eval_on_selector_all("#legend .swatch[data-step]",
                                       "items => items.map((i) => i.textContent)")]
    fewest = [s["min"] for s in heat.values() if not s["zero"]]
    assert bands[0][0] == min(fewest) and bands[-1][-1] == top, bands
    for band in bands:
        assert any(band[0] <= n <= band[-1] for n in fewest), (band, sorted(fewest))
    # by keyboard: the focused cell's counts are said, and in its label
    cell = page.locator('#board .cellgroup[data-token="Oct"]')
    cell.focus()
    oct_ = heat["Oct"]
    said = f"fewest {oct_['min']:,} solutions, {oct_['sum']:,} in all"
    assert said in page.inner_text("#cellinfo")
    assert said in cell.get_attribute("aria-label")
    # a tap with "show counts" says the counts and changes nothing
    page.check("input[name=tool][value=counts]")
    page.locator('#board .cellgroup[data-token="Jan"] polygon').click()
    assert page.inner_text("#cellinfo").startswith("Jan (month): fewest")
    assert page.locator('#board .cellgroup[data-token="Jan"]').count() == 1
    # unsolvable: the labels outlined, and a combination chosen is marked on the board
    zero = {t for t, s in heat.items() if s["zero"]}
    outlined = set(page.eval_on_selector_all("#board .cellgroup.unsolvable",
                                             "gs => gs.map(g => g.dataset.token)"))
    assert zero and outlined == zero
    first = page.locator("#unsolvable button.combo").first
    labels = first.inner_text().split()
    first.click()
    marked = page.eval_on_selector_all("#board .cellgroup.marked",
                                       "gs => gs.map(g => g.dataset.token)")
    assert sorted(marked) == sorted(labels)
    # the combination chosen stands out from the red outlines: another colour, twice as
    # thick, drawn above its neighbours, and named in the legend
    outline = ("g => [getComputedStyle(g.querySelector('.cell')).stroke, "
               "parseFloat(getComputedStyle(g.querySelector('.cell')).strokeWidth)]")
    red = page.eval_on_selector("#board .cellgroup.unsolvable:not(.marked)", outline)
    blue = page.eval_on_selector("#board .cellgroup.marked", outline)
    assert blue[1] >= 2 * red[1] and _hue_apart(_rgb(blue[0]), _rgb(red[0])) >= 120
    last = page.eval_on_selector_all("#board .cellgroup",
                                     f"gs => gs.slice(-{len(labels)}).map(g => g.dataset.token)")
    assert sorted(last) == sorted(labels)
    assert f"chosen: {' '.join(labels)}" in page.inner_text("#legend")



def _greens_are_clear_steps(page) -> None:
    """The heatmap's greens: a few clear steps, each well apart from the next (luminance
    contrast), every label readable on its colour."""
    cells = page.eval_on_selector_all(
        "#board .cellgroup[data-min]:not(.unsolvable)",
        "gs => gs.map(g => [+g.dataset.step, getComputedStyle(g.querySelector('.cell')).fill,"
        " getComputedStyle(g.querySelector('text')).fill])")
    steps = {step: _rgb(fill) for step, fill, _ in cells}
    assert 3 <= len(steps) <= 5 and len({fill for _, fill, _ in cells}) == len(steps)
    shades = [steps[k] for k in sorted(steps)]
    assert all(_luminance(a) > _luminance(b) for a, b in itertools.pairwise(shades))
    assert all(_contrast(a, b) >= 1.3 for a, b in itertools.pairwise(shades))
    assert all(_contrast(_rgb(fill), _rgb(text)) >= 4.5 for _, fill, text in cells)


def _rgb(css: str) -> tuple[int, ...]:
    return tuple(int(v) for v in css[css.index("(") + 1:css.index(")")].split(",")[:3])


def _hue_apart(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    """How far apart two colours' hues are, in degrees (0 to 180)."""
    apart = abs(colorsys.rgb_to_hsv(*(c / 255 for c in a))[0]
                - colorsys.rgb_to_hsv(*(c / 255 for c in b))[0]) * 360
    return min(apart, 360 - apart)


def _luminance(rgb: tuple[int, ...]) -> float:
    """The relative luminance of a colour (WCAG 2)."""
    linear = [(c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4)
              for c in rgb]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_undo_redo_and_enter_keeps_a_labelled_cell(editor):
    page = editor
    _cell(page, 0, 0).click()
    _drag(page, [(1, 0), (1, 1), (1, 2)])
    token = lambda r, c: page.get_attribute(  # noqa: E731
        f'#board .cellgroup[data-row="{r}"][data-col="{c}"]', "data-token")
    page.click("#undo")  # the stroke, as one step
    assert [token(1, c) for c in range(3)] == ["#"] * 3 and token(0, 0) == "."
    page.keyboard.press("Control+z")
    assert token(0, 0) == "#"
    page.click("#redo")
    page.keyboard.press("Control+y")
    assert token(0, 0) == "." and [token(1, c) for c in range(3)] == ["."] * 3
    # Enter on a labelled cell in "cells" mode says what it is and deletes nothing
    page.fill("#newgroup", "g")
    page.click("#addgroup")
    page.check("input[name=tool][value=label]")
    page.fill("#label", "A")
    _cell(page, 0, 0).click()
    page.check("input[name=tool][value=cells]")
    page.locator('#board .cellgroup[data-row="0"][data-col="0"]').focus()
    page.keyboard.press("Enter")
    assert token(0, 0) == "A"
    assert "Delete takes its cell off" in page.inner_text("#cellinfo")
    page.keyboard.press("Delete")
    assert token(0, 0) == "#"
    page.click("#undo")
    assert token(0, 0) == "A"


def test_make_sizes_and_a_shared_board_keeps_the_piece_grid(editor, browser):
    page = editor
    _start(page, "calendar_day")
    page.fill("#cellmm", "15")
    page.fill("#kerf", "0.2")
    page.fill("#sheet", "300x200")
    with page.expect_request("**/api/board/make**") as asked, page.expect_download():
        page.click("#make")
    assert "cell=15" in asked.value.url and "kerf=0.2" in asked.value.url
    assert "sheet=300x200" in asked.value.url
    page.click("#share")
    fresh = browser.new_page()
    try:
        fresh.goto(page.url)
        fresh.wait_for_selector("#summary[data-done]", timeout=60_000)
        assert fresh.locator("#pad .padcell").count() == 25
    finally:
        fresh.close()


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800},
                                      {"width": 390, "height": 844}], ids=["laptop", "phone"])
def test_screenshots_of_the_editor_at_both_widths(browser, server, tmp_path, viewport):
    page = browser.new_page(viewport=viewport)
    try:
        page.goto(server + "/edit")
        page.wait_for_selector("#board svg .cellgroup", timeout=30_000)
        _start(page, "calendar_day")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        settled(page)
        board = page.locator("#board svg").bounding_box()
        assert board["x"] >= 0 and board["x"] + board["width"] <= viewport["width"]
        name = "laptop" if viewport["width"] > 1000 else "phone"
        screenshot(page, tmp_path, f"editor-{name}.png",
                   f"CPMODELS_SCREENSHOT_EDITOR_{name.upper()}")
    finally:
        page.close()


def test_the_editor_leaves_no_global_names(editor, browser):
    """The editor's scripts are ES modules: what they share they import, nothing is global."""
    assert page_globals(editor, browser) == []
