"""Other grids: triangles, hexagons and cubes, from the grid's conventions to the figures."""

from __future__ import annotations

import itertools
import json
import random
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from conftest import SPECS, cpu_seconds
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.image import imread

from cpmodels import api
from cpmodels.backends import count_cover, engine, iter_cover_solutions
from cpmodels.backends.engine import EngineSession
from cpmodels.backends.engine.kernels import bit_cover, links
from cpmodels.backends.engine.kernels.memo import NODES, STATS
from cpmodels.backends.engine.searches import task_array
from cpmodels.counting import count_instance
from cpmodels.cover import ExactCover, Item, PieceKind, packing_cover
from cpmodels.errors import OutOfTime, SpecError
from cpmodels.geometry import Placement, board_symmetries, orientations, placements
from cpmodels.grids import GRIDS, grid
from cpmodels.instance import packing_instance
from cpmodels.pools import polyforms
from cpmodels.query import Query
from cpmodels.spec import load_spec, parse_spec
from cpmodels.symmetry import canonical_solution, problem_symmetries

SVG = "{http://www.w3.org/2000/svg}"
SOMA = SPECS / "soma.yaml"
RHOMBUS = SPECS / "hexiamonds_rhombus.yaml"
POLYHEXES = SPECS / "polyhexes.yaml"
SOLIDS = SPECS / "solid_pentominoes.yaml"
SOLIDS_2X2X5 = parse_spec("""\
kind: packing
name: four_solids
grid: cube
box: [2, 2, 5]
pieces:
  - {name: L1, layers: [["####", "#..."]]}
  - {name: L2, layers: [["####", "#..."]]}
  - {name: P1, layers: [["##", "##", "#."]]}
  - {name: P2, layers: [["##", "##", "#."]]}
""")


# --- the grids' conventions ------------------------------------------------------------

def _patch(g, size=4):
    return [cell for cell in itertools.product(range(-size, size + 1), repeat=g.dim)]


@pytest.mark.parametrize("name, order", [("square", 8), ("triangle", 12), ("hex", 12),
                                         ("cube", 48)])
def test_each_grid_has_its_symmetries_and_they_keep_neighbours(name, order):
    g = grid(name)
    cells = _patch(g)
    images = set()
    for t in g.symmetries:
        images.add(tuple(t(c) for c in cells))
        for c in cells:
            assert {t(nb) for nb in g.neighbours(c)} == set(g.neighbours(t(c)))
    assert len(g.symmetries) == len(images) == order
    assert g.symmetries[0](cells[5]) == cells[5]  # the identity first


def test_the_triangle_convention_of_neighbours():
    tri = grid("triangle")
    assert set(tri.neighbours((2, 4))) == {(2, 3), (2, 5), (3, 4)}  # points up: base below
    assert set(tri.neighbours((2, 3))) == {(2, 2), (2, 4), (1, 3)}  # points down
    assert tri.normalize([(3, 3), (3, 4)]) == {(0, 0), (0, 1)}  # kept pointing the same way
    assert tri.normalize([(3, 4), (3, 5)]) == {(0, 1), (0, 2)}
    assert not tri.translates((0, 0), (0, 1)) and tri.translates((0, 0), (1, 1))


@pytest.mark.parametrize("name, free, one_sided", [
    ("square", [1, 1, 2, 5, 12, 35], [1, 1, 2, 7, 18, 60]),
    ("triangle", [1, 1, 1, 3, 4, 12], [1, 1, 1, 4, 6, 19]),
    ("hex", [1, 1, 3, 7, 22, 82], [1, 1, 3, 10, 33, 147]),
    ("cube", [1, 1, 2, 7, 23], [1, 1, 2, 8, 29]),
])
def test_the_polyforms_of_each_grid_number_as_published(name, free, one_sided):
    g = grid(name)
    assert [len(polyforms(n, g)) for n in range(1, len(free) + 1)] == free
    assert [len(polyforms(n, g, flip=False)) for n in range(1, len(free) + 1)] == one_sided


def test_orientations_on_each_grid():
    tri, hexes, cube = grid("triangle"), grid("hex"), grid("cube")
    assert sorted(len(orientations(s, grid=tri)) for s in polyforms(6, tri)) == \
        [1, 3, 6, 6, 6, 6, 6, 12, 12, 12, 12, 12]
    assert len(orientations([(0, 0), (0, 1)], grid=hexes)) == 3
    screw = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 0, 1)]
    assert len(orientations(screw, grid=cube, flip=False)) == 12
    mirror = {frozenset(o) for o in orientations(screw, grid=cube, flip=True)}
    assert len(mirror) == 24
    # A flat piece turned in space shows its other face: no flip needed.
    f = [(1, 0, 0), (2, 0, 0), (0, 1, 0), (1, 1, 0), (1, 2, 0)]
    assert len(orientations(f, grid=cube, flip=False)) == len(orientations(f, grid=cube)) == 24


def test_triangle_placements_keep_the_triangles_pointing_the_right_way():
    tri = grid("triangle")
    board = [(0, c) for c in range(6)]  # up, down, up, down, up, down
    diamond = orientations([(0, 0), (0, 1)], grid=tri, rotate=False, flip=False)  # up, down
    assert [p.cells for p in placements("d", diamond, board, tri)] == \
        [((0, 0), (0, 1)), ((0, 2), (0, 3)), ((0, 4), (0, 5))]


# --- the figures -----------------------------------------------------------------------

def test_soma_figures_and_its_mirror_pair():
    assert api.count(SOMA).count == 11_520
    result = api.count(SOMA, distinct=True)
    assert (result.count, result.symmetries) == (240, 48)
    inst = api.instance(SOMA)
    swaps = [s.pieces for s in problem_symmetries(inst.cover, inst.cells) if s.pieces]
    assert len(swaps) == 24 and all(s == {"A": "B", "B": "A"} for s in swaps)


@pytest.mark.parametrize("target, distinct, symmetries", [
    ("rhombus", 156, 4), ("parallelogram_4x9", 74, 2), ("parallelogram_3x12", 0, 2)])
def test_hexiamond_figures(target, distinct, symmetries):
    result = api.count(RHOMBUS, distinct=True, target=target)
    assert (result.count, result.symmetries) == (distinct, symmetries)


def test_polyhex_figures(tmp_path):
    assert api.count(POLYHEXES, distinct=True).count == 7_404_530
    # Counted as Polyform Puzzler counts them, with P4 kept face up.
    text = POLYHEXES.read_text().replace("{name: P4,", "{name: P4, flip: false,")
    (tmp_path / "p4.yaml").write_text(text)
    assert api.count(tmp_path / "p4.yaml", distinct=True).count == 3_665_348


TETRAHEXES = """\
kind: packing
name: tetrahexes
grid: hex
pieces:
%s
targets:
  - {name: parallelogram, cells: %s}
  - {name: triangle, cells: %s}
"""


def _tetrahexes_spec() -> str:
    hexes = grid("hex")
    pieces = "\n".join(f"  - {{name: t{k}, cells: {json.dumps([list(c) for c in sorted(s)])}}}"
                       for k, s in enumerate(polyforms(4, hexes)))
    para = [[q, r] for r in range(4) for q in range(7)]
    tri = [[q, r] for q in range(7) for r in range(7) if q + r <= 6]
    return TETRAHEXES % (pieces, json.dumps(para), json.dumps(tri))


def test_tetrahexes_as_published():
    spec = parse_spec(_tetrahexes_spec())
    assert api.count(spec, distinct=True).count == 9
    assert api.count(spec).count == 18
    assert api.count(spec, target="triangle", distinct=True).count == 0


def test_solid_pentominoes_in_a_box():
    result = api.count(SOLIDS, target="box_2x3x10", distinct=True)
    assert (result.count, result.symmetries) == (12, 8)
    assert api.count(SOLIDS, target="box_2x3x10").count == 96


def test_solid_pentominoes_in_the_3x4x5_box():
    # 13.6 million nodes on bits: a few seconds of two cores.
    result = api.count(SOLIDS, target="box_3x4x5", distinct=True)
    assert (result.count, result.symmetries) == (3_940, 8)
    assert result.nodes is not None and result.nodes > 13_000_000


# --- every backend agrees on every grid ------------------------------------------------

def _random_instance(grid_name: str, seed: int):
    """A random board of 8 to 14 cells and random pieces of 2 to 4 cells that cover it."""
    rng = random.Random(seed)
    g = grid(grid_name)
    pool = [s for n in (2, 3, 4) for s in polyforms(n, g)]
    pieces, area = [], 0
    target = rng.randint(8, 14)
    while area < target:
        shape = rng.choice(pool)
        pieces.append(shape)
        area += len(shape)
    board = {(0,) * g.dim}
    while len(board) < area:
        cell = rng.choice(sorted(board))
        board.add(rng.choice(g.neighbours(cell)))
    flip = rng.random() < 0.5
    kinds = [PieceKind(f"p{k}", tuple(orientations(s, grid=g, flip=flip)))
             for k, s in enumerate(pieces)]
    return g, frozenset(board), kinds


def _distinct_by_hand(cover, board):
    """Classes of solutions by canonical_solution forms: the reference for ``--distinct``."""
    symmetries = problem_symmetries(cover, board)
    return len({canonical_solution(cover.decode(chosen), symmetries)
                for chosen in iter_cover_solutions("cpsat", cover)})


@settings(max_examples=12, deadline=None)
@given(name=st.sampled_from(["triangle", "hex", "cube"]), seed=st.integers(0, 10**6))
def test_engine_cpsat_and_cnf_agree_on_random_boards(name, seed):
    g, board, kinds = _random_instance(name, seed)
    cover = packing_cover(board, kinds, g)
    counts = {b: count_cover(b, cover) for b in ("engine", "cpsat", "sat")}
    assert len(set(counts.values())) == 1, counts


@pytest.mark.parametrize("name", ["triangle", "hex", "cube"])
def test_distinct_counts_agree_with_canonical_forms(name, tmp_path):
    # A symmetric board of each grid, with pieces that fill it in several ways.
    g = grid(name)
    boards = {
        "triangle": ([[r, c] for r in range(2) for c in range(r + 1, r + 9)],
                     polyforms(3, g) * 4 + polyforms(2, g) * 2),
        "hex": ([[q, r] for q in range(4) for r in range(3)],
                polyforms(1, g) + polyforms(2, g) + polyforms(3, g)),
        "cube": ([[x, y, z] for x in range(2) for y in range(2) for z in range(3)],
                 polyforms(3, g) * 2),
    }
    cells, shapes = boards[name]
    pieces = "\n".join(f"  - {{name: p{k}, cells: {json.dumps([list(c) for c in sorted(s)])}}}"
                       for k, s in enumerate(shapes))
    spec = parse_spec(f"kind: packing\nname: t\ngrid: {name}\ncells: {json.dumps(cells)}\n"
                      f"pieces:\n{pieces}\n")
    inst = packing_instance(Query.of(spec))
    by_hand = _distinct_by_hand(inst.cover, inst.cells)
    assert by_hand > 0
    for backend in ("engine", "cpsat", "sat"):
        assert count_instance(inst, distinct=True, backend=backend).count == by_hand
    assert count_instance(inst).count == count_cover("cpsat", inst.cover)


def test_region_pruning_uses_the_grid_neighbours():
    # A hex board whose corner cell is cut off by the first placements only on the hex grid.
    hexes = grid("hex")
    cells = [(q, r) for q in range(3) for r in range(3)]
    kinds = [PieceKind("I3", tuple(orientations([(0, 0), (1, 0), (2, 0)], grid=hexes)), 3)]
    cover = packing_cover(cells, kinds, hexes)
    assert count_cover("engine", cover) == count_cover("cpsat", cover) == count_cover("sat",
                                                                                       cover)


# --- specs: the keys, and clear errors -------------------------------------------------

def test_a_cube_board_as_box_layers_or_cells_is_the_same_board():
    base = ("kind: packing\nname: b\ngrid: cube\npieces:\n"
            "  - {name: I, cells: [[0,0,0],[1,0,0]], count: 2}\n")
    box = parse_spec(base + "box: [2, 1, 2]\n")
    layers = parse_spec(base + "layers: [['..'], ['..']]\n")
    cells = parse_spec(base + "cells: [[0,0,0],[1,0,0],[0,0,1],[1,0,1]]\n")
    assert box.all_targets()[0].cells == layers.all_targets()[0].cells == \
        cells.all_targets()[0].cells
    assert api.count(box).count == 2
    assert not box.flip and parse_spec(base.replace("grid: cube", "grid: cube\nflip: true")
                                       + "box: [2, 1, 2]\n").flip


PIECE = "kind: packing\nname: t\ngrid: %s\n%s\npieces:\n  - %s\n"


@pytest.mark.parametrize("grid_name, board, piece, field, fragment", [
    ("triangle", "cells: [[0, 1], [0, 2]]", "{name: a, cells: [[0, 1], [1, 2]]}",
     "pieces[0].cells", "not connected on the triangle grid"),
    ("hex", "cells: [[0, 0], [1, 0]]", "{name: a, cells: [[0, 0], [1, 0, 0]]}",
     "pieces[0].cells", "the same number of coordinates"),
    ("cube", "box: [2, 1, 1]", "{name: a, cells: [[0, 0], [1, 0]]}", "pieces[0].cells",
     "on the cube grid a cell is [x, y, z]"),
    ("hex", "cells: [[0, 0], [1, 0]]", "{name: a, shape: '##'}", "pieces[0].shape",
     "a drawing is read on the square grid"),
    ("triangle", "board: ['..']", "{name: a, cells: [[0, 1], [0, 2]]}", "board",
     "give the board's 'cells' as [row, col]"),
    ("square", "box: [2, 1, 1]", "{name: a, shape: '##'}", "box", "'box' is for the cube grid"),
    ("triangle", "cells: [[0, 1], [0, 2]]", "{name: a, layers: [['##']]}", "pieces[0].layers",
     "'layers' is for the cube grid"),
    ("hex", "cells: [[0, 0], [0, 0]]", "{name: a, cells: [[0, 0], [0, 1]]}", "cells",
     "cell [0, 0] is listed twice"),
    ("hex", "cells: [[0, 0], [1, 0]]", "{name: a, cells: [[0, 0], [0, 1]], shape: '##'}",
     "pieces[0]", "not shape and cells"),
    ("hex", "cells: [[0, 0], [1, 0]]", "{name: a}", "pieces[0]", "give the piece as one of"),
    ("cube", "box: [0, 1, 1]", "{name: a, cells: [[0, 0, 0]]}", "box", "each side 1 to"),
    ("cube", "box: [2, 1, 1]\ncells: [[0, 0, 0], [1, 0, 0]]", "{name: a, cells: [[0, 0, 0]]}",
     "", "not both and not neither"),
    ("hex", "cells: [[0, 0], [99999, 0]]", "{name: a, cells: [[0, 0]]}", "cells",
     "coordinates are at most"),
    ("hex", "cells: [[0, 0], [1, 0, 2, 3]]", "{name: a, cells: [[0, 0]]}", "cells",
     "a cell is [a, b] on a plane grid"),
    ("pentagon", "cells: [[0, 0]]", "{name: a, cells: [[0, 0]]}", "grid", "square"),
    ("hex", "cells: [[0, 0], [1, 0]]", "{name: a, cells: [[0, 0], [0, 2]]}",
     "pieces[0].cells", "not connected on the hex grid"),
])
def test_bad_grid_specs_get_one_clear_line(grid_name, board, piece, field, fragment):
    with pytest.raises(SpecError) as caught:
        parse_spec(PIECE % (grid_name, board, piece), "bad.yaml")
    message = str(caught.value)
    assert "bad.yaml" in message and fragment in message, message
    assert field in message and "Traceback" not in message


def test_a_calendar_must_be_flat():
    text = (SPECS / "calendar_day.yaml").read_text()
    with pytest.raises(SpecError, match="a calendar is drawn in the plane"):
        parse_spec(text.replace("kind: calendar", "kind: calendar\ngrid: cube"))


HEX_CALENDAR = """\
kind: calendar
name: hex_week
grid: hex
board:
  - "Mon Tue Wed Thu"
  - ". . . ."
  - ". . Fri Sat"
  - ". . . Sun"
groups:
  weekday: [Mon, Tue, Wed, Thu, Fri, Sat, Sun]
pieces:
  - {name: bar, cells: [[0, 0], [1, 0], [2, 0]], count: 2}
  - {name: tri, cells: [[0, 0], [1, 0], [0, 1]], count: 2}
  - {name: bent, cells: [[0, 0], [1, 0], [1, 1]]}
"""


def test_a_hex_calendar_solves_counts_sweeps_and_draws(tmp_path, run_cli):
    path = tmp_path / "hex_week.yaml"
    path.write_text(HEX_CALENDAR)
    spec = load_spec(path)
    assert spec.label_cells["Fri"] == (2, 2)  # token 2 of row 2: axial [q, r] = [2, 2]
    counts = {label: api.count(spec, labels=[label]).count for label in spec.groups["weekday"]}
    for label in counts:
        cover = packing_instance(Query.of(spec, labels=[label])).cover
        assert counts[label] == count_cover("cpsat", cover) == count_cover("sat", cover)
    code, out, _ = run_cli("sweep", path, "--out", tmp_path / "rows.csv")
    assert code == 0, out
    rows = (tmp_path / "rows.csv").read_text().splitlines()[1:]  # after the question line
    assert len(rows) == 8
    for row in rows[1:]:
        label, count = row.split(",")[0], int(row.split(",")[2])
        assert counts[label] == count
    solvable = next(label for label, n in counts.items() if n)
    code, out, _ = run_cli("solve", path, "--labels", solvable)
    assert code == 0 and solvable in out
    svg = api.solve(spec, labels=[solvable]).svg()
    root = ET.fromstring(svg)
    assert len(root.findall(f".//{SVG}path[@class='piece']")) == 5  # copies included
    assert [t.text for t in root.findall(f".//{SVG}text[@class='label']")] == [solvable]


# --- pictures and text ---------------------------------------------------------------

def test_triangle_and_hex_pictures_outline_each_piece(tmp_path, run_cli):
    for path in (RHOMBUS, POLYHEXES):
        spec = load_spec(path)
        root = ET.fromstring(api.solve(spec).svg())
        pieces = root.findall(f".//{SVG}path[@class='piece']")
        assert sorted(p.get("data-piece") for p in pieces) == sorted(p.name for p in
                                                                     spec.pieces)
        for piece in pieces:  # one outline each (no piece here has a hole)
            assert piece.get("d").count("M") == 1
        out = tmp_path / f"{spec.name}.png"
        assert run_cli("solve", path, "--format", "png", "--out", out)[0] == 0
        width, height = api.solve(spec).scene().size_px
        assert imread(out).shape[:2] == (height, width)


def test_a_solid_is_drawn_in_space_and_by_layers(tmp_path, run_cli):
    solution = api.solve(SOMA)
    root = ET.fromstring(solution.svg())
    faces = root.findall(f".//{SVG}path[@class='face']")
    assert len(faces) == 27 * 3
    assert {f.get("data-piece") for f in faces} == set("VLTZABP")
    captions = [t.text for t in root.findall(f".//{SVG}text[@class='caption']")]
    assert captions == ["z = 0", "z = 1", "z = 2"]
    layer_pieces = root.findall(f".//{SVG}path[@class='piece']")
    cells = sum(len({c for c in p.cells if c[2] == z}) > 0 for p in
                solution.instance.cover.decode(solution.result.chosen) for z in range(3))
    assert len(layer_pieces) == cells
    out = tmp_path / "soma.png"
    assert run_cli("solve", SOMA, "--format", "png", "--out", out)[0] == 0
    assert imread(out).shape[:2] == solution.scene().size_px[::-1]


def test_text_shows_every_cell_of_every_grid(run_cli):
    for path, cells in ((SOMA, 27), (RHOMBUS, 72), (POLYHEXES, 40)):
        code, out, _ = run_cli("solve", path)
        assert code == 0
        letters = set(load_spec(path).letters().values())
        assert sum(ch in letters for line in out.splitlines()[1:-1] for ch in line) == cells
    code, out, _ = run_cli("solve", SOMA)
    assert out.splitlines()[1].split() == ["z", "=", "0", "z", "=", "1", "z", "=", "2"]


def test_board_symmetries_of_a_cube_box():
    cube = grid("cube")
    box = [c for c in itertools.product(range(3), repeat=3)]
    assert len(board_symmetries(box, grid=cube)) == 48
    slab = [c for c in itertools.product(range(2), range(3), range(5))]
    assert len(board_symmetries(slab, grid=cube)) == 8


def test_every_grid_is_known_by_name():
    assert set(GRIDS) == {"square", "triangle", "hex", "cube"}
    with pytest.raises(ValueError, match="unknown grid"):
        grid("pentagon")


# --- solids are counted by dancing links ----------------------------------------------

def test_solids_are_counted_by_dancing_links_with_forced_options_and_progress():
    """A solid's count is the session's, which chooses the most constrained item first
    and cuts the count there (its progress by those parts)."""
    inst = api.instance(SOLIDS, target="box_2x3x10")
    assert links.suits(inst.cover) and not links.suits(api.instance(RHOMBUS).cover)
    assert EngineSession(inst.cover).searches.tally_call([()], None).kernel is \
        links.count_tasks
    roots = len(links.root_tasks(links.links(inst.cover)))
    seen = []  # one worker: a progress step for each root part, in turn
    assert engine.count(inst.cover, jobs=1,
                        progress=lambda done, total: seen.append((done, total))) == 96
    assert seen == [(k, roots) for k in range(1, roots + 1)]
    seen.clear()  # two threads may cut the last parts finer: told complete, never back
    assert engine.count(inst.cover, progress=lambda done, total: seen.append((done, total))) \
        == 96
    assert seen[-1][0] == seen[-1][1] >= roots
    assert all(a <= b for (a, _), (b, _) in itertools.pairwise(seen))
    assert all(done <= total for done, total in seen)
    containing: dict[int, int] = {}  # the engine's stream: first empty cell, no links
    for chosen in iter_cover_solutions("engine", inst.cover):
        for j in chosen:
            containing[j] = containing.get(j, 0) + 1
    for j in [*list(containing)[:5], 0, 1]:
        assert engine.count(inst.cover, forced=(j,)) == containing.get(j, 0)
        assert EngineSession(inst.cover, solids=False).count((j,)) == containing.get(j, 0)


def test_a_solid_count_stops_at_its_time_limit():
    inst = api.instance(SOLIDS, target="box_3x4x5")
    start = cpu_seconds()
    with pytest.raises(OutOfTime):
        count_cover("engine", inst.cover, time_limit=0.5)
    assert cpu_seconds() - start < 5


def test_solids_counted_from_several_threads_at_once():
    covers = [api.instance(SOMA).cover, api.instance(SOLIDS, target="box_2x3x10").cover] * 2
    with ThreadPoolExecutor(4) as pool:
        counts = list(pool.map(lambda cover: engine.count(cover, jobs=2), covers))
    assert counts == [11_520, 96] * 2


def _random_cover(n_items: int, seed: int) -> ExactCover:
    """A cover of ``n_items`` items (about one in eight covered at most once) with planted
    solutions and random options of 3 to 5 items, each with an item to cover."""
    rng = random.Random(seed)
    items = [Item(f"i{k}", 0 if rng.random() < 0.125 else 1, 1) for k in range(n_items)]
    options: set[tuple[int, ...]] = set()
    for _ in range(4):  # four partitions of the items into options
        order = list(range(n_items))
        rng.shuffle(order)
        while order:
            size = min(len(order), rng.randint(3, 5))
            options.add(tuple(sorted(order[:size])))
            order = order[size:]
    for _ in range(n_items):
        options.add(tuple(sorted(rng.sample(range(n_items), min(n_items, 4)))))
    # An option of items covered at most once only is never branched on by the item
    # choice (the CNF backend would count it in or out of each solution): none here.
    chosen = sorted(o for o in options if any(items[i].low for i in o))
    return ExactCover(items=items, options=chosen,
                      placements=[Placement(f"o{j}", ()) for j in range(len(chosen))],
                      grid="cube")


def _links_and_bits(cover, forced=()) -> tuple[tuple[int | None, int], ...]:
    """The count and the nodes by dancing links and by the bit kernel."""
    found = []
    for bits in (None, bit_cover.masks(cover)):
        stats = np.zeros(STATS, np.int64)
        out = np.zeros(1, np.int64)
        links.count_tasks(task_array([tuple(forced)]), links.links(cover) if bits is None
                          else None, bits, out, stats)
        found.append((int(out[0]), int(stats[NODES])))
    return tuple(found)


@pytest.mark.parametrize("n_items", [5, 63, 64, 65, 127, 128])
def test_the_bit_kernel_walks_the_tree_of_dancing_links(n_items):
    # Random covers on both sides of each word's edge: the same count, node for node, as
    # dancing links, and the count of the CNF backend.
    for seed in range(3):
        cover = _random_cover(n_items, seed)
        assert bit_cover.fits(cover)
        by_links, by_bits = _links_and_bits(cover)
        assert by_links == by_bits
        assert by_bits[0] == count_cover("sat", cover)
        assert by_bits[0] >= 1  # the planted partitions
        forced = (len(cover.options) // 2,)
        assert _links_and_bits(cover, forced)[0] == _links_and_bits(cover, forced)[1]
    assert not bit_cover.fits(_random_cover(129, 0))


def test_solids_on_bits_count_as_dancing_links_do():
    for path, target, raw in ((SOMA, None, 11_520), (SOLIDS, "box_2x3x10", 96)):
        cover = api.instance(path, target=target).cover
        by_links, by_bits = _links_and_bits(cover)
        assert by_links == by_bits and by_bits[0] == raw
        assert bit_cover.root_tasks(cover) == links.root_tasks(links.links(cover))
    # A box of 2 x 2 x 5 filled by two L and two P pentominoes: against the CNF backend.
    cover = api.instance(SOLIDS_2X2X5).cover
    by_links, by_bits = _links_and_bits(cover)
    assert by_links == by_bits and by_bits[0] == count_cover("sat", cover) > 0


def test_the_web_page_serves_a_hex_calendar(tmp_path):
    from fastapi.testclient import TestClient

    from cpmodels.web.app import create_app

    path = tmp_path / "hex_week.yaml"
    path.write_text(HEX_CALENDAR)
    with TestClient(create_app([path])) as client:
        assert "hex_week" in json.dumps(client.get("/api/specs").json())
        data = client.post("/api/solution", json={"spec": "hex_week",
                                                  "labels": ["Wed"]}).json()
        assert data["status"] == "solved" and data["svg"].count('class="piece"') == 5
        assert client.post("/api/count", json={"spec": "hex_week",
                                               "labels": ["Wed"]}).json()["count"] == 8
        body = {"spec": "hex_week", "labels": ["Wed"], "revealed": []}
        for shown in range(1, 6):
            hint = client.post("/api/hint", json=body).json()
            assert len(hint["revealed"]) == shown
            body["revealed"] = hint["revealed"]


def test_a_square_board_given_by_cells_anywhere_is_framed_around_its_cells(run_cli, tmp_path):
    path = tmp_path / "far.yaml"
    path.write_text("kind: packing\nname: far\ncells: [[-2, -1], [-2, 0], [-2, 1], [-1, -1], "
                    "[-1, 0], [-1, 1]]\npieces:\n  - {name: L, shape: '##/#.', count: 2}\n")
    code, out, _ = run_cli("solve", path)
    assert code == 0 and out.splitlines()[1:3] == ["L L L", "L L L"]
    scene = api.solve(path).scene()
    assert scene.bounds == (-1, -2, 2, 0) and not scene.walls
