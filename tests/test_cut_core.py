"""The laser's sheets from the engine core (cpcore_cut_sheets, the code make and the
browser run) against make's sheets as Python wrote them (tests/make_oracle.py): the same
parts on the same sheets at the same places, the same cut lines and engraving, within the
SVG's four decimals; its numbers written as Python writes them; bad input refused."""

from __future__ import annotations

import math
import random
import re
import struct

import numpy as np
import pytest

pytest.importorskip("shapely")

import cpmodels._native as native
import make_oracle

from cpmodels.make import MakeOptions, flat_parts
from cpmodels.make import sheets as core_sheets
from cpmodels.make.shapes import Sheetwork, engraving_font
from cpmodels.spec import load_spec

PATH = re.compile(r'    <path data-part=("[^"]*"|\'[^\']*\') d="([^"]*)"/>')


def _rings(d: str) -> list[list[tuple[float, float]]]:
    rings = []
    for sub in d.split(" Z")[:-1]:
        nums = [float(v) for v in sub.replace("M", " ").replace("L", " ").split()]
        rings.append(list(zip(nums[0::2], nums[1::2])))
    return rings


def _normal(ring: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """A ring clockwise on screen, from its least point (rounded), repeated points of a
    straight run dropped."""
    twice = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(ring, ring[1:] + ring[:1]))
    pts = ring if twice > 0 else ring[::-1]
    kept = []
    for i, p in enumerate(pts):
        a, b = pts[i - 1], pts[(i + 1) % len(pts)]
        cross = (p[0] - a[0]) * (b[1] - p[1]) - (p[1] - a[1]) * (b[0] - p[0])
        if abs(cross) > 1e-4 * math.dist(a, p) * math.dist(p, b):  # a corner, not rounding
            kept.append(p)
    start = min(range(len(kept)), key=lambda i: (round(kept[i][0], 2), round(kept[i][1], 2)))
    return kept[start:] + kept[:start]


def _layers(svg: str) -> tuple[str, list[tuple[str, str]], list[tuple[str, str]]]:
    head, engrave = svg.split('  <g id="cut"')[0].split("    <path", 1)[0], []
    body_engrave, body_cut = svg.split('  <g id="cut"')
    engrave = PATH.findall(body_engrave)
    return head, engrave, PATH.findall(body_cut)


def _close(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> bool:
    return len(a) == len(b) and all(math.isclose(p, q, abs_tol=2e-4)
                                    for pa, pb in zip(a, b) for p, q in zip(pa, pb))


def _sheets_both(grid: str, cells, labels, pieces, options: MakeOptions):
    font = engraving_font([*labels.values(), *(name for name, _, _ in pieces)])
    work = Sheetwork(grid, options.cell)
    parts, _ = flat_parts(work, frozenset(cells), labels, pieces, options, font)
    placed = [make_oracle.Placed(p.name, p.kind, p.cut, p.engrave) for p in parts]
    oracle = make_oracle.lay_out(placed, options.sheet, make_oracle.turns(grid),
                                 gap=options.gap + options.kerf, margin=options.margin)
    core = core_sheets.lay_out(grid, cells, pieces, parts, (
        options.cell, options.kerf, options.clearance, *options.sheet, options.frame_border,
        options.gap, options.margin))
    return oracle, core


def _check_equal(oracle, core) -> None:
    assert len(core) == len(oracle)
    for want_sheet, got_sheet in zip(oracle, core):
        assert [(p.name, p.turn) for p in got_sheet.parts] == [
            (p.name, p.turn) for p in want_sheet.parts]
        for want_part, got_part in zip(want_sheet.parts, got_sheet.parts):
            assert got_part.at == pytest.approx(want_part.at, abs=1e-6)
        want_head, want_engrave, want_cut = _layers(make_oracle.sheet_svg(want_sheet))
        got_head, got_engrave, got_cut = _layers(got_sheet.svg)
        assert got_head == want_head
        assert [name for name, _ in got_engrave] == [name for name, _ in want_engrave]
        for (_, want), (_, got) in zip(want_engrave, got_engrave):
            assert all(_close(a, b) for a, b in zip(_rings(want), _rings(got)))
        by_part: dict[str, list] = {}
        for name, d in want_cut:
            by_part.setdefault(name, []).extend(_normal(r) for r in _rings(d))
        got_by_part: dict[str, list] = {}
        for name, d in got_cut:
            got_by_part.setdefault(name, []).extend(_normal(r) for r in _rings(d))
        assert sorted(got_by_part) == sorted(by_part)
        for name, want_rings in by_part.items():
            got_rings = got_by_part[name]
            assert len(got_rings) == len(want_rings), name
            for ring in want_rings:
                assert any(_close(ring, other) for other in got_rings), (name, ring[:3])


@pytest.mark.parametrize("name", make_oracle.BUNDLED)
def test_the_bundled_puzzles_sheets_equal_the_python_sheets(name):
    spec = load_spec(name)
    if hasattr(spec, "cell_labels"):
        cells, labels = spec.cells, spec.cell_labels
    else:
        cells, labels = next(iter(spec.all_targets())).cells, {}
    pieces = make_oracle.spec_pieces(spec)
    options = MakeOptions(kerf=0.3, clearance=0.4, sheet=(500.0, 400.0))
    _check_equal(*_sheets_both(spec.grid, cells, labels, pieces, options))


@pytest.mark.parametrize("grid", ["square", "triangle", "hex"])
@pytest.mark.parametrize("seed", range(3))
def test_generated_boards_sheets_equal_the_python_sheets(grid, seed):
    rng = random.Random(seed)
    board = make_oracle.blob(rng, grid, rng.randint(6, 30))
    pieces = [(f"p{k}", tuple(sorted(make_oracle.blob(rng, grid, rng.randint(1, 6)))),
               rng.randint(1, 2)) for k in range(rng.randint(1, 6))]
    labels = {c: str(k) for k, c in enumerate(sorted(board)[:5])}
    options = MakeOptions(cell=rng.choice([10.0, 20.0, 33.3]), kerf=rng.choice([0.0, 0.15, 0.5]),
                          clearance=rng.choice([0.0, 0.2]), sheet=(1200.0, 800.0),
                          gap=rng.choice([0.0, 3.0]))
    _check_equal(*_sheets_both(grid, board, labels, pieces, options))


SIZES = [20.0, 0.0, 0.0, 600.0, 400.0, 10.0, 3.0, 5.0]


def _base(engraving: np.ndarray) -> tuple[np.ndarray, str]:
    """One cell's sheet with ``engraving`` (its words) on the base: the parts' words and
    the SVG."""
    data = native.cut_sheets(0, [(0, 0)], [], SIZES, engraving.tobytes())
    words = np.frombuffer(data, np.int64)
    assert words[0] == 1
    n_bytes = int(words[1])
    text = data[16:16 + n_bytes].decode()
    return words[2 + (n_bytes + 7) // 8:], text


def test_numbers_are_written_as_python_writes_them():
    """Every coordinate is format(x, ".4f") of the point moved (ties to even, -0.0000 for a
    small negative): the base's engraving at chosen points, exact halves among them."""
    parts, _ = _base(np.array([0], dtype=np.int64))
    base = next(k for k in range(int(parts[0])) if parts[1 + 7 * k] == 1)
    turn, at_x, at_y = parts[1 + 7 * base + 2], *parts[1 + 7 * base + 3:][:2].view(np.float64)
    assert turn == 0 and at_x == int(at_x) and at_y == int(at_y)
    rng = random.Random(5)
    targets = [0.03125, 0.00005, 0.15625, 1.00015, 2.5e-5, 0.0, -0.0, -0.00001, 123.45675,
               -0.03125, 7.99995, *(rng.uniform(-50, 600) for _ in range(40))]
    xs = np.array([t - at_x for t in targets])
    ys = np.array([t - at_y for t in targets])
    rings = []
    for x, y in zip(xs, ys):
        rings += [4, *np.array([x, y, x + 1, y, x + 1, y + 1, x, y + 1]).view(np.int64)]
    stream = [len(targets)]
    for k in range(len(targets)):
        stream += [1, *rings[9 * k: 9 * k + 9]]
    _, text = _base(np.array(stream, dtype=np.int64))
    for x, y in zip(xs, ys):
        want = f"M {x + at_x:.4f} {y + at_y:.4f} L {x + 1 + at_x:.4f} {y + at_y:.4f}"
        assert want in text
    head = text.splitlines()[1]
    assert 'width="600mm" height="400mm" viewBox="0 0 600 400"' in head


@pytest.mark.parametrize("size", [2.0, 2.5, 123.456789, 9999.995, 333.3333333, 1234.5650001,
                                  9.9999995, 10000.0])
def test_the_sheets_size_is_written_as_python_writes_it(size):
    data = native.cut_sheets(0, [(0, 0)], [], [1.0, 0.0, 0.0, size, 10000.0, 0.1, 0.0, 0.0],
                             np.array([0], dtype=np.int64).tobytes())
    assert f'width="{size:g}mm" height="10000mm" viewBox="0 0 {size:g} 10000"' in data.decode(
        errors="replace")


def test_bad_input_is_refused():
    sizes = [20.0, 0.15, 0.2, 600.0, 400.0, 10.0, 3.0, 5.0]
    empty = np.zeros(2, dtype=np.int64).tobytes()
    with pytest.raises(ValueError, match="no cells"):
        native.cut_sheets(0, [], [((( 0, 0),), 1, b"p")][:0], sizes, empty[:8])
    with pytest.raises(ValueError, match="printed"):
        native.cut_sheets(3, [(0, 0, 0)], [], sizes, empty[:8])
    with pytest.raises(ValueError, match="bounds"):
        native.cut_sheets(0, [(0, 0)], [], [20.0, 11.0, *sizes[2:]], empty[:8])
    with pytest.raises(ValueError, match="bounds"):
        native.cut_sheets(0, [(0, 0)], [], [math.nan, *sizes[1:]], empty[:8])
    with pytest.raises(ValueError, match="twice"):
        native.cut_sheets(0, [(0, 0), (0, 0)], [], sizes, empty[:8])
    with pytest.raises(ValueError, match="engraving"):
        native.cut_sheets(0, [(0, 0)], [], sizes, empty)
    with pytest.raises(ValueError, match="engraving"):
        native.cut_sheets(0, [(0, 0)], [], sizes, struct.pack("<qqq", 1, 1, 2))
    with pytest.raises(ValueError, match="copies"):
        native.cut_sheets(0, [(0, 0)], [(((0, 0),), 0, b"p")], sizes, empty)
    words = np.frombuffer(native.cut_sheets(0, [(0, 0)], [], [20.0, 0, 0, 20.0, 20.0, 10.0,
                                                              0, 0], empty[:8]), np.int64)
    assert words[0] == 0 and words[1] == 0  # the frame fits on no sheet: it is said
