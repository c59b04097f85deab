"""The engraving from the engine core (cpcore_engrave, the code make and the browser run)
against make's engraving as Python wrote it (tests/make_oracle.py: matplotlib's text paths,
shapely's pole of inaccessibility and fit check): the same labels at the same size and
place, the same names at the same size at a point as deep inside each piece; the page's
glyph table as make/glyphs.py writes it; bad input refused."""

from __future__ import annotations

import random
import struct

import numpy as np
import pytest

pytest.importorskip("shapely")

import cpmodels._native as native
import make_oracle
from shapely import affinity
from shapely.geometry import Point, Polygon

from cpmodels.make import MakeOptions, _sizes
from cpmodels.make.glyphs import CHARS, PAGE_TABLE, engraving_table, page_table, table
from cpmodels.make.shapes import FONT, Sheetwork, engraving_font, offset
from cpmodels.make.sheets import engrave
from cpmodels.spec import load_spec

SIZES = _sizes(MakeOptions())


def _even_odd(shape) -> Polygon:
    """The core's polygons filled even-odd (as the SVG's fill-rule fills them)."""
    region = Polygon()
    for poly in getattr(shape, "geoms", [shape]):
        region = region.symmetric_difference(poly.buffer(0))
    return region


def _depth(piece, x: float, y: float) -> float:
    return piece.exterior.distance(Point(x, y)) if piece.contains(Point(x, y)) else 0.0


def _check_against_oracle(grid: str, labels, pieces, options: MakeOptions) -> None:
    font = engraving_font([*labels.values(), *(name for name, _, _ in pieces)])
    glyphs = engraving_table([*labels.values(), *(name for name, _, _ in pieces)], font)
    *named, base = engrave(grid, labels, pieces, _sizes(options), glyphs)
    work = Sheetwork(grid, options.cell)
    tall, wide = make_oracle.LABEL_SIZE[grid]
    want = make_oracle.text_outlines({work.centre(c): t for c, t in labels.items()},
                                     tall * options.cell, wide * options.cell, font)
    assert (base is None) == (want is None)
    if want is not None:
        assert _even_odd(base).symmetric_difference(want).area <= 1e-6 * want.area
    for (name, cells, _), got in zip(pieces, named):
        nominal = offset(work.region(cells), -options.clearance / 2)
        want = make_oracle.name_on(nominal, name, tall * options.cell, wide * options.cell,
                                   font)
        assert (got is None) == (want is None), name
        if want is None:
            continue
        region = _even_odd(got)
        assert region.area == pytest.approx(want.area, rel=1e-6), name  # the same size
        (gx, gy), (wx, wy) = region.centroid.coords[0], want.centroid.coords[0]
        moved = affinity.translate(region, wx - gx, wy - gy)  # the same glyphs
        assert moved.symmetric_difference(want).area <= 1e-6 * want.area, name
        # Centred on a point as deep inside the piece as shapely's (within its tolerance).
        inside = nominal if nominal.geom_type == "Polygon" else max(nominal.geoms,
                                                                    key=lambda g: g.area)
        gb, wb = region.bounds, want.bounds
        got_depth = _depth(inside, (gb[0] + gb[2]) / 2, (gb[1] + gb[3]) / 2)
        want_depth = _depth(inside, (wb[0] + wb[2]) / 2, (wb[1] + wb[3]) / 2)
        assert got_depth >= want_depth - 0.02, name
        assert inside.buffer(-0.05 * tall * options.cell).contains(region), name


@pytest.mark.parametrize("name", make_oracle.BUNDLED)
def test_the_bundled_puzzles_engraving_equals_the_python_engraving(name):
    spec = load_spec(name)
    labels = spec.cell_labels if hasattr(spec, "cell_labels") else {}
    pieces = make_oracle.spec_pieces(spec)
    _check_against_oracle(spec.grid, labels, pieces, MakeOptions(clearance=0.4))


WORDS = ["AVA", "Tofu", "Wax", "fig", "Ärger", "café", "1", "31", "Jul", "x y", "LT", "Yo."]


@pytest.mark.parametrize("grid", ["square", "triangle", "hex"])
@pytest.mark.parametrize("seed", range(4))
def test_generated_boards_engraving_equals_the_python_engraving(grid, seed):
    rng = random.Random(seed)
    board = make_oracle.blob(rng, grid, rng.randint(6, 30))
    labels = {c: rng.choice(WORDS) for c in sorted(board)[:8]}
    pieces = [(rng.choice(WORDS) + str(k),
                tuple(sorted(make_oracle.blob(rng, grid, rng.randint(1, 7)))), rng.randint(1, 2))
              for k in range(rng.randint(1, 6))]
    options = MakeOptions(cell=rng.choice([10.0, 20.0, 33.3]), clearance=rng.choice([0.0, 0.2]))
    _check_against_oracle(grid, labels, pieces, options)


def test_the_pages_glyph_table_is_what_the_generator_writes():
    assert PAGE_TABLE.read_bytes() == page_table(), "run python -m cpmodels.make.glyphs"


def test_a_table_for_some_characters_lays_them_out_as_the_pages_table_does():
    # make builds a table for characters the page's has not (or another font); the same
    # characters from either give the same engraving.
    labels = {(0, 0): "Wave", (0, 1): "fi"}
    made = table(set("Wavefi"), FONT)
    assert len(made) < len(PAGE_TABLE.read_bytes())
    pages = engrave("square", labels, [], SIZES, PAGE_TABLE.read_bytes())
    own = engrave("square", labels, [], SIZES, made)
    assert _even_odd(own[0]).symmetric_difference(_even_odd(pages[0])).area < 1e-9
    assert set(CHARS) >= set("Wavefi")


def test_a_character_the_table_has_not_is_named():
    data = native.engrave(0, [((0, 0), "Ωx")], [], list(SIZES),
                          PAGE_TABLE.read_bytes())
    assert np.frombuffer(data, dtype=np.int64).tolist() == [ord("Ω")]


def test_nothing_to_draw_engraves_nothing():
    data = native.engrave(0, [((0, 0), " "), ((0, 1), "")], [([(0, 0)], 1, "")],
                          list(SIZES), PAGE_TABLE.read_bytes())
    assert np.frombuffer(data, dtype=np.int64).tolist() == [0, 0, 0]


def test_a_name_too_wide_for_its_piece_is_shrunk_as_python_shrank_it():
    grid, cells = "triangle", ((0, 0), (0, 1))
    pieces = [("W" * 12, cells, 1), ("Wj|", cells, 1), ("fi", cells, 1)]
    _check_against_oracle(grid, {}, pieces, MakeOptions(clearance=4.9))


@pytest.mark.parametrize("args, match", [
    (dict(grid=3), "printed, not cut"),
    (dict(labels=[((0, 0), "\ud800")]), "lone surrogate"),
    (dict(labels=[((0, 0), "\x00")]), "holds NUL"),
    (dict(labels=[((0, 0), "a" * 257)]), "longer than 256"),
    (dict(labels=[((0, 0), b"a")]), "a label is"),
    (dict(labels=[((0, 0), "a"), ((0, 0), "b")]), "a cell two labels"),
    (dict(pieces=[([(0, 0), (0, 0)], 1, "a")]), "a cell twice"),
    (dict(pieces=[([(0, 0)], 1, b"a")]), "a piece is"),
    (dict(sizes=[0.5, 0, 0, 1, 1, 1, 0, 0]), "out of make's bounds"),
    (dict(glyphs=b"\x01" * 8), "glyph table"),
    (dict(glyphs=b"\x00" * 7), "whole words"),
    (dict(glyphs=PAGE_TABLE.read_bytes()[:-8]), "glyph table"),
    (dict(glyphs=PAGE_TABLE.read_bytes() + b"\x00" * 8), "glyph table"),
    (dict(glyphs=struct.pack("<qdq", 1, float("nan"), 0) + b"\x00" * 32), "glyph table"),
])
def test_bad_input_is_refused(args, match):
    call = dict(grid=0, labels=[((0, 0), "1")], pieces=[([(0, 0)], 1, "a")],
                sizes=list(SIZES), glyphs=PAGE_TABLE.read_bytes())
    call.update(args)
    with pytest.raises(ValueError, match=match):
        native.engrave(**call)
