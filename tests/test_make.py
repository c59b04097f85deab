"""cpmodels make: cut files and prints re-read by independent readers (ezdxf, an SVG path
parser, trimesh), their sizes worked out from the cells in closed form."""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import ezdxf
import pytest
import trimesh
from shapely.geometry import Polygon
from svgpathtools import parse_path

from cpmodels.api import make
from cpmodels.cli import main
from cpmodels.spec import load_spec

SPECS = Path(__file__).resolve().parent.parent / "specs"
SVG = "{http://www.w3.org/2000/svg}"
CELL, KERF, CLEARANCE, THICK = 20.0, 0.3, 0.4, 4.0

# A cell's area for a side of 1, and the grid's turning angle at a corner of a piece.
CELL_AREA = {"square": 1.0, "triangle": math.sqrt(3) / 4, "hex": 3 * math.sqrt(3) / 2}


def _loops(path_d: str) -> list[list[complex]]:
    """The closed loops of an SVG path, as their corner points."""
    loops = []
    for sub in parse_path(path_d).continuous_subpaths():
        assert sub.isclosed(), f"an open path: {path_d[:60]}"
        loops.append([seg.start for seg in sub])
    return loops


def _polygon(loop: list[complex]) -> Polygon:
    return Polygon([(p.real, p.imag) for p in loop])


def _sheet(path: Path) -> dict[str, dict[str, list[Polygon]]]:
    """Each part's cut loops and engraved loops, read from the SVG's two layers."""
    root = ET.parse(path).getroot()
    assert root.get("width", "").endswith("mm") and root.get("viewBox", "").startswith("0 0")
    parts: dict[str, dict[str, list[Polygon]]] = {}
    for group in root.iter(f"{SVG}g"):
        layer = group.get("id")
        if layer == "cut":
            assert group.get("stroke") == "#ff0000" and group.get("fill") == "none"
        else:
            assert layer == "engrave" and group.get("fill") == "#000000"
            assert group.get("stroke") == "none"
        for element in group.iter(f"{SVG}path"):
            entry = parts.setdefault(element.get("data-part"), {"cut": [], "engrave": []})
            entry[layer] += [_polygon(loop) for loop in _loops(element.get("d"))]
    return parts


SIDES = {"square": 4, "triangle": 3, "hex": 6}


def _corner_sum(outline: Polygon) -> float:
    """The sum over the corners of the tangent of half the turning angle (negative at a
    reflex corner): an offset keeps every angle, so any offset of the cells has the same."""
    pts = list(outline.exterior.coords)[:-1]
    sign = 1.0 if outline.exterior.is_ccw else -1.0
    total = 0.0
    for i, (x, y) in enumerate(pts):
        ax, ay = x - pts[i - 1][0], y - pts[i - 1][1]
        bx, by = pts[(i + 1) % len(pts)][0] - x, pts[(i + 1) % len(pts)][1] - y
        total += math.tan(sign * math.atan2(ax * by - ay * bx, ax * bx + ay * by) / 2)
    return total


def _offset_cells_area(spec, cells, d: float, corners: float) -> float:
    """The area of a piece's cells offset by ``d`` millimetres with mitred corners, in closed
    form: the cells' area, their outline's length times ``d`` (each cell side not shared
    with another cell of the piece), and ``d`` squared times the corners' sum."""
    cells = set(cells)
    exposed = sum(SIDES[spec.grid] - sum(n in cells for n in spec.geometry.neighbours(c))
                  for c in cells)
    return len(cells) * CELL_AREA[spec.grid] * CELL * CELL + exposed * CELL * d \
        + d * d * corners


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    out = {}
    for name in ("calendar_week", "hexiamonds_rhombus", "polyhexes"):
        folder = tmp_path_factory.mktemp("make") / name
        make(name, folder, cell=CELL, kerf=KERF, clearance=CLEARANCE, thickness=THICK,
             sheet=(500.0, 400.0))
        out[name] = folder
    return out


@pytest.mark.parametrize("name", ["calendar_week", "hexiamonds_rhombus", "polyhexes"])
def test_cut_files_read_back_closed_apart_and_at_their_size(made, name):
    spec = load_spec(name)
    folder = made[name]
    manifest = json.loads((folder / "manifest.json").read_text())
    sheets = [f for f in manifest["files"] if f["holds"] == "sheet"]
    pieces = {p.name: p for p in spec.pieces}
    counted = {}
    for entry in sheets:
        parts = _sheet(folder / entry["file"])
        assert set(parts) == {p["part"] for p in entry["parts"]}
        # No two parts on a sheet overlap, and every part lies on the sheet.
        outlines = {n: max(p["cut"], key=lambda g: g.area) for n, p in parts.items()}
        names = sorted(outlines)
        w, h = entry["size_mm"]
        for i, a in enumerate(names):
            x0, y0, x1, y1 = outlines[a].bounds
            assert x0 >= 0 and y0 >= 0 and x1 <= w and y1 <= h
            for b in names[i + 1:]:
                assert not outlines[a].intersects(outlines[b]), (a, b)
        # Each piece is its cells, less the clearance and plus the kerf (closed form).
        for part in entry["parts"]:
            if part["kind"] != "piece":
                continue
            piece = pieces[part["piece"]]
            counted[piece.name] = counted.get(piece.name, 0) + 1
            cut = parts[part["part"]]["cut"]
            assert len(cut) == 1
            corners = _corner_sum(cut[0])
            expected = _offset_cells_area(spec, piece.cells, (KERF - CLEARANCE) / 2, corners)
            assert abs(cut[0].area - expected) < 0.01
            nominal = _offset_cells_area(spec, piece.cells, -CLEARANCE / 2, corners)
            assert abs(part["area_mm2"] - nominal) < 0.01
        # The DXF holds the same closed outlines, in millimetres, cut and engraving apart.
        doc = ezdxf.readfile(folder / entry["also"][0])
        assert doc.header["$INSUNITS"] == 4
        lines = list(doc.modelspace())
        assert lines and all(e.dxftype() == "LWPOLYLINE" and e.closed for e in lines)
        cut_loops = sum(len(p["cut"]) + sum(len(g.interiors) for g in p["cut"])
                        for p in parts.values())
        assert len([e for e in lines if e.dxf.layer == "CUT"]) == cut_loops
        engraved = sum(1 + len(g.interiors) for p in parts.values() for g in p["engrave"])
        assert len([e for e in lines if e.dxf.layer == "ENGRAVE"]) == engraved
    assert counted == {p.name: p.high for p in spec.pieces}


def test_frame_hole_shrinks_by_the_kerf_and_labels_are_engraved(made):
    spec = load_spec("calendar_week")
    folder = made["calendar_week"]
    manifest = json.loads((folder / "manifest.json").read_text())
    sheet = next(f for f in manifest["files"] if f["holds"] == "sheet")
    parts = _sheet(folder / sheet["file"])
    frame = parts["frame"]["cut"]
    cavity = min(frame, key=lambda g: g.area)  # the hole, its own closed path
    cells_area = len(spec.cells) * CELL * CELL
    assert cells_area - 0.5 * KERF * cavity.length - 1 < cavity.area < cells_area
    # Every label is engraved on the base plate (a glyph's holes in its own path).
    assert len(parts["base"]["engrave"]) >= sum(
        len([ch for ch in label if not ch.isspace()]) for label in spec.label_cells)
    assert parts["base"]["cut"] and not parts["frame"]["engrave"]


@pytest.mark.parametrize("name", ["calendar_week", "hexiamonds_rhombus", "polyhexes"])
def test_every_piece_is_engraved_with_its_name_inside_it(made, name):
    folder = made[name]
    manifest = json.loads((folder / "manifest.json").read_text())
    for entry in (f for f in manifest["files"] if f["holds"] == "sheet"):
        parts = _sheet(folder / entry["file"])
        for part in (p for p in entry["parts"] if p["kind"] == "piece"):
            assert part["engraved"] == part["piece"]
            loops = parts[part["part"]]
            (outline,) = loops["cut"]
            assert loops["engrave"] and all(outline.contains(g) for g in loops["engrave"])
    note = (folder / "README.txt").read_text()
    assert "sheet-N.png" in note and "preview" in note and "hairlines" in note
    assert "README.txt" in {f["file"] for f in manifest["files"]}


@pytest.mark.parametrize("name", ["calendar_week", "hexiamonds_rhombus"])
def test_prints_are_watertight_with_the_volume_of_their_cells(made, name):
    spec = load_spec(name)
    folder = made[name]
    manifest = json.loads((folder / "manifest.json").read_text())
    side_area = CELL_AREA[spec.grid] * CELL * CELL
    solids = [f for f in manifest["files"] if f["file"].endswith(".stl")]
    assert {f["piece"] for f in solids if f["holds"] == "piece"} == {p.name for p in
                                                                      spec.pieces}
    for entry in solids:
        mesh = trimesh.load(folder / entry["file"], force="mesh")
        assert mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0
        if entry["holds"] == "piece":
            cells = len(entry["cells"])
            # The clearance comes off every side: less than the cells' own prism, more
            # than that prism less the perimeter band.
            full = cells * side_area * THICK
            assert abs(mesh.volume - entry["area_mm2"] * THICK) < 0.005 * full
            assert full * 0.9 < mesh.volume < full
        else:
            tray = entry
            assert abs(mesh.volume - tray["volume_mm3"]) < 0.005 * tray["volume_mm3"]
            x0, y0, x1, y1 = mesh.bounds[0][0], mesh.bounds[0][1], mesh.bounds[1][0], \
                mesh.bounds[1][1]
            block = (x1 - x0) * (y1 - y0) * (2.0 + THICK)
            hollow = tray["cavity_area_mm2"] * THICK
            assert hollow == pytest.approx(len(tray["cells"]) * side_area * THICK, rel=1e-6)
            engraved = block - hollow - mesh.volume  # the labels cut into the floor
            if spec.kind == "calendar":
                assert 0 < engraved < len(tray["cells"]) * side_area * 0.6
            else:
                assert abs(engraved) < 0.005 * mesh.volume


@pytest.mark.parametrize("name", ["calendar_week", "polyhexes"])
def test_one_3mf_holds_every_solid_apart(made, name):
    folder = made[name]
    manifest = json.loads((folder / "manifest.json").read_text())
    entry = next(f for f in manifest["files"] if f["file"] == "puzzle.3mf")
    solids = {f["piece"] if f["holds"] == "piece" else "tray": f
              for f in manifest["files"] if f["file"].endswith(".stl")}
    scene = trimesh.load(folder / "puzzle.3mf", force="scene")
    meshes = scene.dump()  # each object placed where the plate has it
    assert sorted(entry["objects"]) == sorted(solids) and len(meshes) == len(solids)
    for mesh in meshes:
        assert mesh.is_watertight and mesh.volume > 0
    volumes = sorted(round(m.volume, 1) for m in meshes)
    assert volumes == pytest.approx(sorted(f["volume_mm3"] for f in solids.values()), rel=0.005)
    boxes = sorted((m.bounds[0][0], m.bounds[1][0]) for m in meshes)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(boxes)), "two objects overlap"
    assert all(m.bounds[0][2] >= -1e-6 for m in meshes), "an object is under the plate"


def test_solid_pieces_are_unions_of_cubes(tmp_path):
    spec = load_spec("soma")
    make(spec, tmp_path / "exact", clearance=0.0, cell=10.0)
    manifest = json.loads((tmp_path / "exact" / "manifest.json").read_text())
    assert not [f for f in manifest["files"] if f["holds"] == "sheet"]
    for entry in (f for f in manifest["files"] if f["file"] != "README.txt"):
        mesh = trimesh.load(tmp_path / "exact" / entry["file"], force="mesh")
        assert mesh.is_watertight
        if entry["holds"] == "piece":
            assert mesh.volume == pytest.approx(len(entry["cells"]) * 1000.0, rel=1e-9)
    # With play, every face comes in by half of it: a single cube's side by all of it.
    make(spec, tmp_path / "play", clearance=0.5, cell=10.0)
    manifest = json.loads((tmp_path / "play" / "manifest.json").read_text())
    v = next(f for f in manifest["files"] if f.get("piece") == "V")  # three cubes, an L
    mesh = trimesh.load(tmp_path / "play" / v["file"], force="mesh")
    # An L of three cubes, eroded by 0.25 on every side.
    expected = (19.5 * 9.5 + 9.5 * 10.0) * 9.5  # the bar, and the cube beside its end
    assert mesh.is_watertight and mesh.volume == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize(("args", "message"), [
    (["--kerf", "12"], "the kerf must be"),
    (["--clearance", "-1"], "the clearance must be"),
    (["--cell", "0"], "a cell must be"),
    (["--sheet", "100x100"], "does not fit on a 100 x 100 mm sheet"),
    (["--thickness", "0"], "--thickness"),
    (["--cell", "nan"], "a cell must be"),
    (["--kerf", "inf"], "the kerf must be"),
    (["--border", "nan"], "--border nan"),
    (["--sheet", "infxinf"], "a sheet's sides must be"),
])
def test_bad_sizes_get_one_line_and_nothing_is_written(tmp_path, capsys, args, message):
    out = tmp_path / "out"
    assert main(["make", "calendar_week", "--out", str(out), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists() and not list(tmp_path.iterdir())


def test_make_refuses_towers_and_a_full_directory(tmp_path, capsys):
    assert main(["make", "towers", "--out", str(tmp_path / "t")]) == 2
    assert "towers grid has no pieces" in capsys.readouterr().err
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine")
    assert main(["make", "calendar_day", "--out", str(full)]) == 2
    assert "not an empty directory" in capsys.readouterr().err
    assert [p.name for p in full.iterdir()] == ["keep.txt"]
    with pytest.raises(SystemExit) as stopped:
        main(["make", "calendar_day", "--out", str(tmp_path / "c"), "--sheet", "6x"])
    assert stopped.value.code == 2 and "not WxH" in capsys.readouterr().err


def test_two_makes_at_once_write_the_same_files(tmp_path):
    results = {}

    def run(k: int) -> None:
        results[k] = make("hexiamonds_rhombus", tmp_path / f"m{k}", cell=15.0).manifest

    threads = [threading.Thread(target=run, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results[0] == results[1] == results[2]
    svgs = {(tmp_path / f"m{k}" / "sheet-1.svg").read_text() for k in range(3)}
    assert len(svgs) == 1


def _part_on_board(shape: Polygon, part: dict) -> Polygon:
    """A part's shape taken off its sheet: its move and turn there undone."""
    from shapely import affinity

    back = affinity.translate(shape, -part["at"][0], -part["at"][1])
    return affinity.rotate(back, -part["turn"], origin=(0, 0))


def _fit(shape: Polygon, target: Polygon, turns: list[float]) -> Polygon | None:
    """``shape`` turned (and turned over) and moved onto ``target``, if it is congruent."""
    from shapely import affinity

    for mirror in (1, -1):
        mirrored = affinity.scale(shape, mirror, 1, origin=(0, 0))
        for turn in turns:
            turned = affinity.rotate(mirrored, turn, origin=(0, 0))
            dx = target.centroid.x - turned.centroid.x
            dy = target.centroid.y - turned.centroid.y
            moved = affinity.translate(turned, dx, dy)
            if moved.symmetric_difference(target).area < 0.01:
                return moved
    return None


@pytest.mark.parametrize(("name", "which"), [("calendar_week", {"date": "2026-11-25"}),
                                             ("hexiamonds_rhombus", {})])
def test_an_engine_solution_made_of_the_cut_pieces_fills_the_cavity(made, name, which):
    """The cut pieces (read from the SVG, the kerf taken off) laid where an engine solution
    puts them fill the frame's hole (read from the SVG, the kerf given back) up to the
    clearance: nothing overlaps or sticks out, and what is left is the clearance band."""
    from shapely.ops import unary_union

    from cpmodels.api import solve
    from cpmodels.make.shapes import Sheetwork

    spec = load_spec(name)
    folder = made[name]
    manifest = json.loads((folder / "manifest.json").read_text())
    parts, entries = {}, {}
    for entry in (f for f in manifest["files"] if f["holds"] == "sheet"):
        parts.update(_sheet(folder / entry["file"]))
        entries.update({p["part"]: p for p in entry["parts"]})
    grow = {"join_style": "mitre", "mitre_limit": 10.0}
    frame = _part_on_board(max(parts["frame"]["cut"], key=lambda g: g.area),
                           entries["frame"])
    hole = Polygon(min(parts["frame"]["cut"], key=lambda g: g.area).exterior)
    hole = _part_on_board(hole, entries["frame"]).buffer(KERF / 2, **grow)
    assert frame.area > hole.area
    solution = solve(spec, backend="engine", **which).to_dict()
    assert solution["status"] == "solved"
    work = Sheetwork(spec.grid, CELL)
    turns = [float(t) for t in range(0, 360, 90 if spec.grid == "square" else 60)]
    unused = {n: {"cut": p["cut"][0], "piece": entries[n]["piece"]}
              for n, p in parts.items() if entries[n]["kind"] == "piece"}
    placed, band = [], 0.0
    for p in solution["placements"]:
        cells = work.region(tuple(c) for c in p["cells"])
        target = cells.buffer(-CLEARANCE / 2, **grow)
        fitted = None
        for part_name, part in sorted(unused.items()):
            if part["piece"] != p["piece"]:
                continue
            nominal = _part_on_board(part["cut"], entries[part_name]).buffer(-KERF / 2,
                                                                              **grow)
            fitted = _fit(nominal, target, turns)
            if fitted is not None:
                del unused[part_name]
                break
        assert fitted is not None, f"no cut {p['piece']} fits its place in the solution"
        placed.append(fitted)
        band += cells.area - fitted.area
    # Align the hole with the board: the cavity's cells as the solution sees them.
    every = work.region([tuple(c) for p in solution["placements"] for c in p["cells"]]
                        + [tuple(c) for c in solution["uncovered"]])
    hole = _fit(hole, every, [0.0]) or _fit(hole, every, turns)
    assert hole is not None, "the frame's hole is not the board's cells"
    open_cells = work.region(tuple(c) for c in solution["uncovered"]) \
        if solution["uncovered"] else Polygon()
    pieces = unary_union(placed)
    assert pieces.area == pytest.approx(sum(g.area for g in placed), abs=0.01)  # no overlap
    assert pieces.difference(hole).area < 0.01  # nothing outside the hole
    left = hole.difference(pieces).difference(open_cells).area
    assert left == pytest.approx(band, abs=0.05) and band > 0


def _small_design(tmp_path: Path) -> Path:
    """The month/day board with its rectangle and any 7 of 8 pentominoes: 8 sets."""
    (tmp_path / "board.yaml").write_text((SPECS / "calendar_day.yaml").read_text())
    board = load_spec(SPECS / "calendar_day.yaml")
    pentominoes = [{"name": p.name, "shape": p.shape} for p in board.pieces[1:]]
    design = {"kind": "design", "name": "small", "board": "board.yaml",
              "fixed": [{"name": "O6", "shape": ["###", "###"]}],
              "choose": [{"pool": [*pentominoes, {"name": "T", "shape": ["###", ".#.", ".#."]}],
                          "count": 7}]}
    path = tmp_path / "small.yaml"
    path.write_text(json.dumps(design))
    return path


def test_a_design_files_ranked_set_is_made(tmp_path, capsys):
    from cpmodels.api import design as run

    path = _small_design(tmp_path)
    ranking = [v.pieces for v in run(path).working]
    assert len(ranking) >= 2
    out = tmp_path / "first"
    assert main(["make", str(path), "--set", "1", "--out", str(out), "--quiet"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    made_pieces = {f["piece"] for f in manifest["files"] if f.get("piece")}
    assert manifest["puzzle"] == "small_set1" and made_pieces == set(ranking[0])
    verdicts = tmp_path / "verdicts.jsonl"
    assert main(["design", str(path), "--out", str(verdicts), "--quiet"]) == 0
    out = tmp_path / "second"
    assert main(["make", str(path), "--set", "2", "--verdicts", str(verdicts),
                 "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert {f["piece"] for f in manifest["files"] if f.get("piece")} == set(ranking[1])
    report = make(path, tmp_path / "api", rank=1, verdicts=verdicts)
    assert {f["piece"] for f in report.manifest["files"] if f.get("piece")} == set(ranking[0])
    capsys.readouterr()
    for args, message in (([], "choose one of its working sets with --set N"),
                          (["--set", "99"], f"has {len(ranking)} working sets"),
                          (["--set", "1", "--verdicts", str(tmp_path / "none.jsonl")],
                           "no verdicts at"),
                          (["--set", "1", "--kerf", "15"], "the kerf must be")):
        assert main(["make", str(path), "--out", str(tmp_path / "bad"), *args]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (args, err)
        assert not (tmp_path / "bad").exists()
    assert main(["make", "calendar_day", "--set", "1", "--out", str(tmp_path / "bad")]) == 2
    assert "go with a design file" in capsys.readouterr().err


def test_labels_are_engraved_in_a_font_that_has_them(tmp_path, capsys):
    import matplotlib

    mono = str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSansMono.ttf")
    board = {"kind": "calendar", "name": "moons", "board": ["一月 二月 .", "Ω 2 .", ". . ."],
             "groups": {"moon": ["一月", "二月"], "other": ["Ω", "2"]},
             "pieces": [{"name": "L", "shape": ["##", "#."]}, {"name": "I", "shape": ["##"],
                                                               "count": 2}]}
    path = tmp_path / "moons.yaml"
    path.write_text(json.dumps(board, ensure_ascii=False), encoding="utf-8")
    latin = {**board, "name": "latin", "board": ["Jan Feb .", "Ω 2 .", ". . ."],
             "groups": {"moon": ["Jan", "Feb"], "other": ["Ω", "2"]}}
    (tmp_path / "latin.yaml").write_text(json.dumps(latin, ensure_ascii=False))
    out = tmp_path / "latin"
    assert main(["make", str(tmp_path / "latin.yaml"), "--out", str(out), "--font", mono]) == 0
    assert json.loads((out / "manifest.json").read_text())["font"] == "DejaVu Sans Mono"
    assert main(["make", str(path), "--out", str(tmp_path / "a"), "--font", mono]) == 2
    assert "has no glyph for 一 二 月" in capsys.readouterr().err
    assert main(["make", str(path), "--out", str(tmp_path / "b"), "--font", "no.ttf"]) == 2
    assert "no such font file" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    # Without --font: a font of this machine that has every character, or one clear line.
    code = main(["make", str(path), "--out", str(tmp_path / "c")])
    if code == 0:
        font = json.loads((tmp_path / "c" / "manifest.json").read_text())["font"]
        assert font != "DejaVu Sans"
    else:
        assert code == 2 and "give --font a TTF or OTF file" in capsys.readouterr().err


@pytest.mark.parametrize(("spec", "args"), [
    ("soma", ["--cell", "500"]),  # cubes: the tray is printed, on the sheet as its plate
    ("soma", ["--cell", "20", "--sheet", "60x60"]),
    ("calendar_week", ["--cell", "500"]),
])
def test_a_cell_too_large_for_the_sheet_is_refused_before_anything_is_made(
        tmp_path, capsys, spec, args):
    out = tmp_path / "out"
    assert main(["make", spec, "--out", str(out), *args]) == 2
    err = capsys.readouterr().err
    assert "does not fit on a" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())


def test_a_font_that_is_not_a_regular_file_is_refused_without_waiting(tmp_path, capsys):
    fifo = tmp_path / "font.ttf"
    os.mkfifo(fifo)
    done: list[int] = []
    worker = threading.Thread(target=lambda: done.append(main(
        ["make", "calendar_day", "--out", str(tmp_path / "out"), "--font", str(fifo)])),
        daemon=True)
    worker.start()
    worker.join(60)
    assert done == [2], "make waited on a FIFO given as its font"
    assert "not a file: it is a FIFO" in capsys.readouterr().err
    junk = tmp_path / "junk.ttf"
    junk.write_bytes(bytes(range(256)) * 8)
    assert main(["make", "calendar_day", "--out", str(tmp_path / "out"), "--font",
                 str(junk)]) == 2
    assert "not a TTF or OTF font that can be read" in capsys.readouterr().err


@pytest.mark.parametrize(("sizes", "message"), [
    ({"gap": float("nan")}, "gap nan: the gap between parts must be 0 to 1000 mm"),
    ({"gap": 1e308}, "the gap between parts must be 0 to 1000 mm"),
    ({"margin": float("inf")}, "margin inf: the sheet's margin must be"),
    ({"margin": 300.0}, "less than half its shorter side (200 mm)"),
])
def test_every_size_of_the_library_is_bounded(tmp_path, sizes, message):
    from cpmodels.errors import InputError
    from cpmodels.make import MakeOptions

    with pytest.raises(InputError, match=re.escape(message)):
        MakeOptions(**sizes).check()


def test_the_report_shows_its_previews_in_a_notebook(tmp_path):
    """What make wrote displays itself: its previews (each sheet's and the tray's PNG) as
    pictures, and a line of text saying what was made where."""
    report = make("calendar_day", tmp_path / "out")
    assert [p.name for p in report.previews()] == ["sheet-1.png", "tray.png"]
    data = report._repr_mimebundle_()
    assert data["text/plain"] == (f"calendar_day made in {tmp_path / 'out'}: 1 cut sheet "
                                  "(SVG, DXF), 10 solids to print, manifest.json")
    assert data["text/html"].count('src="data:image/png;base64,iVBORw0KGgo') == 2
