"""The board editor in headless Chromium: a calendar drawn cell by cell from an empty grid,
its heatmap's counts against ``cpmodels sweep`` of the YAML it saves; an edit mid-stream
cancels the count; save, open and the share link round-trip."""

from __future__ import annotations

import itertools
import resource
import time

import pytest
import yaml
from conftest import SPECS, running_server, screenshot

from cpmodels.api import sweep
from cpmodels.web.app import create_app


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
    spec = page.evaluate("spec(state.candidates)")
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
    # The best set, clicked, becomes the board's pieces: counted, and saved as a spec.
    # then the second, by keyboard: the board has exactly its pieces; the candidates stay
    candidates = page.eval_on_selector_all("#candidates .piece", "ps => ps.map(p => p.dataset.piece)")
    for k in (0, 1):
        page.click(f"#sets li >> nth={k} >> button")
        page.wait_for_selector("#summary[data-done]", timeout=30_000)
        assert page.eval_on_selector_all(
            "#candidates .piece", "ps => ps.map(p => p.dataset.piece)") == candidates
        saved = _saved(page, tmp_path, f"set{k}.yaml")
        assert sorted(p["name"] for p in yaml.safe_load(saved.read_text())["pieces"]) == \
            sorted(shown[k].split())
        assert _heatmap(page) == _swept_heatmap(saved)[0]
        assert "every combination is solvable" in page.inner_text("#summary")


def test_an_edit_mid_stream_cancels_the_count(editor):
    page = editor
    page.select_option("#start", "calendar_week")
    page.wait_for_function("document.querySelector('#progress').value > 0", timeout=60_000)
    assert not page.locator("#summary[data-done]").count()
    page.check("input[name=tool][value=cells]")
    _cell(page, 7, 0).click()  # a wall cell in: the area no longer matches
    page.wait_for_function(
        "document.querySelector('#errors').textContent.includes('the pieces cover')",
        timeout=10_000)
    time.sleep(1.0)
    before = _cpu()
    time.sleep(1.0)
    assert _cpu() - before < 0.3, "the count went on after the edit"
    _cell(page, 7, 0).click()  # and back: the board counts again
    # An edit while the board is still being checked (its answer held back 1.5 s): only
    # the last board's answers count.
    page.evaluate("""() => {
      const real = window.fetch;
      let held = false;
      window.fetch = (url, options) => {
        const answer = real(url, options);
        if (held || !String(url).endsWith("/api/board/check")) return answer;
        held = true;
        return answer.then((r) => new Promise((done) => setTimeout(() => done(r), 1500)));
      };
    }""")
    for name in ("week-a", "week-b"):
        time.sleep(0.4)
        page.fill("#name", name)
        page.dispatch_event("#name", "change")
    page.wait_for_selector("#summary[data-done]", timeout=60_000)
    time.sleep(2.0)  # the held answer has come back by now
    assert "every combination is solvable" in page.inner_text("#summary")
    weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    heat = _heatmap(page)
    assert sum(heat[d]["sum"] for d in weekdays) == 4_937_780  # every solution once


def test_screenshot_of_the_editor(editor, tmp_path):
    editor.select_option("#start", "calendar_day")
    editor.wait_for_selector("#summary[data-done]", timeout=30_000)
    screenshot(editor, tmp_path, "editor.png", "CPMODELS_SCREENSHOT_EDITOR")
