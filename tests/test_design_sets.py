"""A design's candidate sets as the core makes them (``cpcore_design_sets``), against the
sets the Python design made before the core did (kept here as the oracle)."""

from __future__ import annotations

import itertools
import random

import pytest
from conftest import SPECS

from cpmodels.design import Design, load_board
from cpmodels.geometry import board_reflections
from cpmodels.pools import canonical_shape, pool
from cpmodels.spec.loading import load_design


def oracle_sets(design: Design) -> list[tuple[tuple[int, ...], bool]]:
    """Every set with the area and whether it is the first of its equals."""
    def can_flip(piece):
        return design.board.flip if piece.flip is None else piece.flip

    def shape_key(piece, mirrored=False):
        flip = can_flip(piece)
        cells = [(r, -c) for r, c in piece.cells] if mirrored and not flip else piece.cells
        return canonical_shape(cells, flip=flip), piece.count

    def board_mirrors():
        cells = design.board.label_cells
        holes = {frozenset(cells[label] for label in combo) for combo in design.required}
        return any({frozenset(m[rc] for rc in hole) for hole in holes} == holes
                   for m in board_reflections(design.board.cells))

    pieces = design.pieces
    fixed = tuple(range(len(design.spec.fixed)))
    fixed_area = sum(p.area * p.high for p in design.spec.fixed)
    own = [shape_key(p) for p in pieces]
    shape = [key for key, _ in own]
    mirrors = any(not can_flip(p) for p in pieces) and board_mirrors()
    mirror = [shape_key(p, mirrored=True) for p in pieces] if mirrors else own
    may_repeat = len(set(own)) < len(own) or mirrors
    seen: set[tuple] = set()
    choices = [[tuple(sorted(combo, key=lambda i: pieces[i].name))
                for k in draw.counts for combo in itertools.combinations(indices, k)]
               for draw, indices in zip(design.spec.choose, design.draws)]
    out = []
    for picked in itertools.product(*choices):
        chosen = fixed + tuple(i for combo in picked for i in combo)
        if fixed_area + sum(pieces[i].area for combo in picked for i in combo) \
                != design.area:
            continue
        shapes = [shape[i] for i in chosen]
        if len(set(shapes)) != len(shapes):
            continue
        if not may_repeat:
            out.append((chosen, True))
            continue
        key = tuple(sorted(own[i] for i in chosen))
        twin = tuple(sorted(mirror[i] for i in chosen))
        out.append((chosen, key not in seen and twin not in seen))
        seen.add(key)
    return out


def check(design: Design) -> tuple[int, int]:
    """The core's sets are the oracle's; returns how many were kept and skipped."""
    every = oracle_sets(design)
    assert list(design.candidates()) == [c for c, first in every if first]
    assert design.skipped() == sum(not first for _, first in every)
    return len(every) - design.skipped(), design.skipped()


@pytest.mark.parametrize(("name", "sets"), [("apad_rectangle_pentominoes", 792),
                                           ("apad_rectangle_pentominoes_face_up", 792),
                                           ("weekday_pentominoes_tetrominoes", 7_920),
                                           ("apad_hexomino_pentominoes", 27_720)])
def test_the_bundled_designs_sets_are_the_oracles(name, sets):
    path = SPECS / "designs" / f"{name}.yaml"
    spec = load_design(path)
    assert check(Design(spec, load_board(spec, path))) == (sets, 0)


CORNERS = """\
kind: calendar
name: corners
board:
  - "a . . . b"
  - ". . . . ."
  - ". . . . ."
  - "c . . . d"
groups:
  corner: [a, b, c, d]
pieces:  # a design uses the board alone
  - {name: V3, shape: "##/#."}
  - {name: L4, shape: "###/#.."}
  - {name: I4, shape: "####"}
  - {name: O4, shape: "##/##"}
  - {name: T4, shape: "###/.#."}
"""


def _piece(rng: random.Random, name: str, shape, flip, copies: bool) -> str:
    drawing = "/".join("".join("#" if (r, c) in shape else "."
                               for c in range(1 + max(c for _, c in shape)))
                       for r in range(1 + max(r for r, _ in shape)))
    count = rng.choice(["", "", "", ", count: 2"]) if copies else ""
    turn = "" if flip is None else f", flip: {str(flip).lower()}"
    return f'{{name: "{name}", shape: "{drawing}"{turn}{count}}}'


def generated(tmp_path, seed: int) -> tuple[int, int]:
    """A random design (shapes repeated under other names, one-sided pieces, copies, names
    alike and not ASCII), fixed pieces and draws of count ranges, on a board with a mirror
    symmetry that keeps its holes and on the month/day calendar."""
    rng = random.Random(seed)
    (tmp_path / "corners.yaml").write_text(CORNERS)
    corners = seed % 2 == 0
    names = ["L", "J", "S", "Z", "é", "ü", "A1", "a", "Ω"]
    if corners:  # 19 cells to cover (16 with V3 fixed): trominoes and tetrominoes
        board = "corners.yaml"
        fixed = 'fixed:\n  - {name: "V3", shape: "##/#."}\n' if rng.random() < 0.5 else ""
        plan = [("trominoes", 2, 4, [0, 1]), ("tetrominoes", 4, 8, [3, 4])]
        if rng.random() < 0.5:
            plan.append(("tetrominoes", 2, 3, [0, 1]))
    else:  # 41 cells: the rectangle and seven pentominoes
        board = str(SPECS / "calendar_day.yaml")
        fixed = 'fixed:\n  - {name: "O6", shape: "###/###"}\n'
        plan = [("pentominoes", 7, 9, [7, 7])]
    draws = []
    for size, fewest, most, (low, high) in plan:
        shapes = [s for _, s in pool(size)]
        # Names distinct within a pool, alike across pools (the same piece when the shape is).
        taken = rng.sample(names, rng.randint(fewest, most))
        drawn = [*rng.sample(shapes, min(len(shapes), len(taken) - 1)), rng.choice(shapes)]
        rng.shuffle(drawn)  # distinct shapes but one, or two when the pool is short
        members = [_piece(rng, name + rng.choice(["", "0"]), shape,
                          rng.choice([None, False, True]), corners)
                   for name, shape in zip(taken, drawn)]
        low = rng.randint(low, high)
        count = str(low) if rng.random() < 0.5 else f"[{low}, {high}]"
        draws.append(f"  - count: {count}\n    pool:\n" + "".join(
            f"      - {m}\n" for m in members))
    text = (f"kind: design\nname: generated\nboard: {board}\n{fixed}choose:\n"
            + "".join(draws) + "require: all-combinations\n")
    path = tmp_path / "design.yaml"
    path.write_text(text)
    spec = load_design(path)
    return check(Design(spec, load_board(spec, path)))


def test_generated_designs_sets_are_the_oracles(tmp_path):
    """Sixty designs, a third or more with sets and a sixth with sets skipped as equal."""
    seen = [generated(tmp_path, seed) for seed in range(60)]
    assert sum(kept > 0 for kept, _ in seen) >= 20
    assert sum(skipped > 0 for _, skipped in seen) >= 10
