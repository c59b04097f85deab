"""Pictures: SVG and PNG boards, the sweep heatmap, rich display in Jupyter, progress bars."""

from __future__ import annotations

import csv
import io
import sys
import xml.etree.ElementTree as ET

import numpy as np
from conftest import SPECS
from matplotlib.image import imread

from cpmodels import api
from cpmodels.render.scene import outline
from cpmodels.spec import load_spec

SVG = "{http://www.w3.org/2000/svg}"


def _svg(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg"
    return root


def _area(loop) -> float:
    """Signed shoelace area of a loop of corner points."""
    return sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(loop, loop[1:] + loop[:1])) / 2


def test_outline_traces_corners_and_holes():
    (l_loop,) = outline([(0, 0), (1, 0), (2, 0), (2, 1)])  # an L tetromino
    assert len(l_loop) == 6 and abs(_area(l_loop)) == 4
    ring = [(r, c) for r in range(3) for c in range(3) if (r, c) != (1, 1)]
    loops = outline(ring)
    assert len(loops) == 2  # the outside and the hole
    assert sorted(abs(_area(loop)) for loop in loops) == [1, 9]
    assert sum(_area(loop) for loop in loops) in (8, -8)  # the hole runs the other way


def test_solution_svg_has_one_outline_per_piece_and_the_uncovered_labels(run_cli, tmp_path):
    out = tmp_path / "nov21.svg"
    code, text, _ = run_cli("solve", SPECS / "calendar_week.yaml", "--date", "2026-11-21",
                            "--format", "svg", "--out", out)
    assert code == 0 and f"picture written to {out}" in text
    root = _svg(out.read_text())
    pieces = root.findall(f".//{SVG}path[@class='piece']")
    spec = load_spec(SPECS / "calendar_week.yaml")
    assert sorted(p.get("data-piece") for p in pieces) == sorted(p.name for p in spec.pieces)
    for path in pieces:  # one closed outline, not one square per cell
        assert path.get("d").count("M") == 1 and path.get("d").count("Z") == 1
        assert path.get("stroke") and path.get("fill") not in (None, "none")
    labels = sorted(t.text for t in root.findall(f".//{SVG}text[@class='label']"))
    assert labels == sorted(["Nov", "21", "Sat"])
    assert root.find(f".//{SVG}path[@class='walls']") is not None
    assert len(root.findall(f".//{SVG}rect[@class='wall']")) == 6  # the board's corner walls


def test_piece_outlines_tile_the_board_exactly():
    solution = api.solve(SPECS / "pentominoes_6x10.yaml")
    scene = solution.scene()
    area = sum(abs(sum(_area(loop) for loop in shape.loops)) for shape in scene.shapes)
    assert area == 60 and len(scene.shapes) == 12
    covered = sorted(rc for shape in scene.shapes for rc in shape.cells)
    assert covered == sorted(solution.instance.cells)


def test_svg_to_stdout_and_png_needs_a_file(run_cli):
    code, text, _ = run_cli("solve", SPECS / "calendar_day.yaml", "--labels", "Oct", "6",
                            "--format", "svg")
    assert code == 0 and len(_svg(text).findall(f".//{SVG}path[@class='piece']")) == 8
    code, _, err = run_cli("solve", SPECS / "calendar_day.yaml", "--format", "png")
    assert code == 2 and "--format png needs --out" in err
    code, _, err = run_cli("solve", SPECS / "calendar_day.yaml", "--out", "x.svg")
    assert code == 2 and "--out goes with --format svg or png" in err


def test_png_decodes_at_the_scene_size(run_cli, tmp_path):
    out = tmp_path / "board.png"
    code, _, _ = run_cli("solve", SPECS / "calendar_day.yaml", "--labels", "Jan", "25",
                         "--format", "png", "--out", out)
    assert code == 0
    image = imread(out)
    width, height = api.solve(SPECS / "calendar_day.yaml", labels=["Jan", "25"]).scene().size_px
    assert image.shape[:2] == (height, width)
    assert image.std() > 0.1  # something is drawn


def test_towers_picture_has_coloured_cells_and_the_score(run_cli, tmp_path):
    out = tmp_path / "t.svg"
    code, _, _ = run_cli("solve", SPECS / "towers.yaml", "--size", "4x4", "--format", "svg",
                         "--out", out)
    assert code == 0
    root = _svg(out.read_text())
    cells = root.findall(f".//{SVG}rect[@class='cell']")
    assert len(cells) == 16 and len({c.get("fill") for c in cells}) == 5
    letters = "".join(t.text for t in root.findall(f".//{SVG}text[@class='tower']"))
    assert len(letters) == 16 and set(letters) == set("BRGYW")
    assert "score 440 (optimal)" in root.find(f"{SVG}title").text
    png = tmp_path / "t.png"
    assert run_cli("solve", SPECS / "towers.yaml", "--size", "3x5", "--format", "png",
                   "--out", png)[0] == 0
    size = api.towers(SPECS / "towers.yaml", (3, 5)).scene().size_px
    assert imread(png).shape[:2] == (size[1], size[0])


def test_enumerate_writes_one_picture_per_solution(run_cli, tmp_path):
    out = tmp_path / "oct6.svg"
    code, text, _ = run_cli("enumerate", SPECS / "calendar_day.yaml", "--labels", "Oct", "6",
                            "--format", "svg", "--out", out, "--limit", "3")
    assert code == 0 and "3 solutions written" in text
    pictures = [(tmp_path / f"oct6-{k}.svg").read_text() for k in (1, 2, 3)]
    assert len(set(pictures)) == 3
    for picture in pictures:
        assert len(_svg(picture).findall(f".//{SVG}path[@class='piece']")) == 8
    code, _, err = run_cli("enumerate", SPECS / "calendar_day.yaml", "--format", "png",
                           "--out", tmp_path / "all.png")
    assert code == 2 and "give --limit N" in err


def test_unsolvable_board_is_drawn_empty_with_its_labels():
    solution = api.solve(SPECS / "calendar_week.yaml", labels=["Jan", "27", "Mon"],
                         face_up=True)
    assert solution.status == "unsolvable"
    root = _svg(solution.svg())
    assert not root.findall(f".//{SVG}path[@class='piece']")
    assert "(no solution)" in root.find(f"{SVG}title").text


TINY_WEEK = """\
kind: calendar
name: tiny_week
board:
  - "a b 1 2"
  - "3 x y ."
  - ". . . ."
groups:
  letter: [a, b]
  digit: ["1", "2", "3"]
  extra: [x, y]
pieces:
  - {name: L, shape: "##/#.", count: 3}
"""


def _csv_counts(path) -> dict[tuple[str, ...], int]:
    with open(path, newline="") as handle:
        handle.readline()  # the question line
        return {(r["letter"], r["digit"], r["extra"]): int(r["count"])
                for r in csv.DictReader(handle)}


def test_heatmap_plots_the_sweeps_counts(run_cli, tmp_path):
    spec_path = tmp_path / "tiny_week.yaml"
    spec_path.write_text(TINY_WEEK)
    out, plot = tmp_path / "tiny.csv", tmp_path / "tiny.png"
    code, text, _ = run_cli("sweep", spec_path, "--out", out, "--plot", plot)
    assert code == 0 and f"heatmap in {plot}" in text
    assert imread(plot).shape[0] > 100
    counts = _csv_counts(out)
    assert 0 in counts.values() and max(counts.values()) > 0  # both kinds of cell drawn
    figure = api.SweepResult.read_csv(spec_path, out).figure()
    panels = {ax.get_title(): ax for ax in figure.axes if ax.get_images()}
    assert set(panels) == {"x", "y"}
    for extra, ax in panels.items():
        plotted = ax.get_images()[0].get_array().data
        expected = [[counts[(a, d, extra)] for d in ("1", "2", "3")] for a in ("a", "b")]
        assert np.array_equal(plotted, expected)
    code, _, err = run_cli("sweep", spec_path, "--out", out, "--plot", tmp_path / "x.gif")
    assert code == 2 and ".png or .svg" in err


def test_heatmap_marks_impossible_dates_and_leaves_missing_rows_blank(tmp_path):
    from cpmodels.render.heatmap import heatmap_grids

    spec = load_spec(SPECS / "calendar_day.yaml")
    rows = {("Feb", "30"): (False, 12), ("Jan", "25"): (True, 216)}
    ((panel, counts, real),) = heatmap_grids(spec.groups, rows)
    assert panel == () and counts[0, 24] == 216 and counts[1, 29] == 12
    assert real[0, 24] and not real[1, 29]
    assert np.isnan(counts).sum() == 12 * 31 - 2


def test_every_result_shows_a_picture_and_a_text(tmp_path):
    """Each result the API returns displays itself in Jupyter: a picture (SVG, PNG, or a
    table with the best set drawn) and a text for front ends that show text only."""
    day = SPECS / "calendar_day.yaml"
    results = [api.solve(day, labels=["Oct", "6"]), api.towers(SPECS / "towers.yaml", (3, 3)),
               api.count(day, labels=["Oct", "6"]), api.count(SPECS / "soma.yaml", distinct=True),
               api.sweep(day, tmp_path / "d.csv", jobs=1),
               api.design(SPECS / "designs" / "apad_rectangle_pentominoes.yaml", best=1,
                          jobs=1)]
    for result in results:
        data = result._repr_mimebundle_()
        assert data["text/plain"].strip(), type(result).__name__
        picture = (data.get("image/svg+xml", "") + data.get("text/html", "")
                   + ("<png>" if data.get("image/png", b"")[:4] == b"\x89PNG" else ""))
        assert "<svg" in picture or picture == "<png>", type(result).__name__
    count = results[2]
    assert isinstance(count, api.CountResult) and count.count == 7
    assert repr(count) == "<PuzzleCount calendar_day Oct 6: 7 solutions>"
    assert str(count).startswith("calendar_day Oct 6: 7 solutions in ")
    assert ">calendar_day Oct 6: 7 solutions<" in count.svg()
    assert count.to_dict()["count"] == 7 and count.to_dict()["labels"] == ["Oct", "6"]
    assert repr(results[3]) == "<PuzzleCount soma: 240 distinct solutions>"


ONE_GROUP = """\
kind: calendar
name: one_group
board: ["A B . .", ". . . .", ". . . #"]
groups: {g: [A, B]}
pieces:
  - {name: O, shape: "##/##"}
  - {name: I, shape: "####"}
  - {name: T, shape: "##"}
"""


def test_a_result_with_no_picture_to_draw_shows_its_text(tmp_path):
    """A sweep of one label group (no heatmap to draw; 2 combinations, 0 solutions) shows
    its line of text, in a notebook and in its widget's picture, and raises nothing."""
    spec = tmp_path / "one_group.yaml"
    spec.write_text(ONE_GROUP)
    result = api.sweep(spec, tmp_path / "one.csv", jobs=1)
    assert result._repr_png_() is None
    assert result._repr_mimebundle_() == {
        "text/plain": "<SweepResult one_group: 2 combinations, 0 solutions, 2 unsolvable>"}
    count = api.count(spec, labels=["A"])
    assert count.count == 0 and "<svg" in count._repr_mimebundle_()["image/svg+xml"]


def test_rich_display_and_dataframe(tmp_path):
    solution = api.solve(SPECS / "calendar_day.yaml", labels=["Oct", "6"])
    assert solution._repr_svg_().startswith("<svg")
    assert solution.to_dict()["labels"] == ["Oct", "6"]
    towers = api.towers(SPECS / "towers.yaml", (3, 3))
    assert towers.score == 200 and "<svg" in towers._repr_svg_()
    result = api.sweep(SPECS / "calendar_day.yaml", tmp_path / "d.csv")
    assert result._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"
    frame = result.to_dataframe()
    assert list(frame.columns) == ["month", "day", "real_date", "count"]
    assert len(frame) == 372 and frame["count"].sum() == 25061
    assert frame[frame.real_date]["count"].sum() == 24405
    assert [(r.labels, r.count) for r in result.hardest(1)] == [(("Oct", "6"), 7)]
    assert [(r.labels, r.count) for r in result.easiest(1)] == [(("Jan", "25"), 216)]
    assert result.summary.total == 25061


def test_progress_bars_only_on_a_terminal(run_cli, tmp_path, monkeypatch):
    from cpmodels.progress import progress_bar

    buffer = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buffer)
    with progress_bar(total=3, desc="sweep", unit="combo", enabled=True, delay=0) as bar:
        bar.update(3)
    assert "sweep:" in buffer.getvalue() and "/3 [" in buffer.getvalue()
    monkeypatch.undo()
    # Under pytest stderr is not a terminal: no bar, only the summary on stdout.
    code, _, err = run_cli("sweep", SPECS / "calendar_day.yaml", "--out", tmp_path / "d.csv")
    assert code == 0 and err == ""
    code, _, err = run_cli("count", SPECS / "calendar_day.yaml", "--labels", "Oct", "6",
                           "--quiet")
    assert code == 0 and err == ""


def test_readme_pictures_exist_and_were_drawn_by_the_package():
    from conftest import ROOT

    readme = (ROOT / "README.md").read_text()
    board = ROOT / "docs/images/calendar_week_nov21.svg"
    heatmap = ROOT / "docs/images/calendar_week_sweep.png"
    assert f"]({board.relative_to(ROOT)})" in readme and f"]({heatmap.relative_to(ROOT)})" in readme
    assert len(_svg(board.read_text()).findall(f".//{SVG}path[@class='piece']")) == 10
    assert imread(heatmap).shape[0] > 500


def test_terminal_colour_only_where_it_is_supported(run_cli, monkeypatch):
    from cpmodels.cli import output as cli
    from cpmodels.render import packing_text

    solution = api.solve(SPECS / "calendar_day.yaml", labels=["Oct", "6"])
    assert "\x1b[48;5;" in packing_text(solution.instance, solution.result, colour=True)
    assert "\x1b" not in packing_text(solution.instance, solution.result, colour=False)
    code, out, _ = run_cli("solve", SPECS / "calendar_day.yaml", "--labels", "Oct", "6")
    assert code == 0 and "\x1b" not in out  # captured output is not a terminal

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert cli.colour_ok(Terminal())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not cli.colour_ok(Terminal())
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert not cli.colour_ok(Terminal())
