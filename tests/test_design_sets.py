"""A design's candidate sets as the core makes them (``cpcore_design_sets``), against the
sets the Python design made before the core did (kept here as the oracle)."""

from __future__ import annotations

import itertools
import random

import pytest
from conftest import SPECS

from cpmodels.design import Design, load_board, run_design
from cpmodels.geometry import board_reflections
from cpmodels.pools import canonical_shape, normalize, pool
from cpmodels.spec.loading import load_design


def oracle_sets(design: Design) -> list[tuple[tuple[int, ...], bool]]:
    """Every set with the area and whether it is the first of its equals: equal pieces
    have the same form under their turns, the same copies and the same turns."""
    def can_flip(piece):
        return design.board.flip if piece.flip is None else piece.flip

    def can_rotate(piece):
        return design.board.rotate if piece.rotate is None else piece.rotate

    def form(cells, flip, rotate):
        if rotate:
            return canonical_shape(cells, flip=flip)
        turns = [cells, [(r, -c) for r, c in cells]] if flip else [cells]
        return min(tuple(sorted(normalize(turn))) for turn in turns)

    def shape_key(piece, mirrored=False):
        flip, rotate = can_flip(piece), can_rotate(piece)
        cells = [(r, -c) for r, c in piece.cells] if mirrored and not flip else piece.cells
        return form(cells, flip, rotate), piece.count, flip, rotate

    def board_mirrors():
        cells = design.board.label_cells
        holes = {frozenset(cells[label] for label in combo) for combo in design.required}
        return any({frozenset(m[rc] for rc in hole) for hole in holes} == holes
                   for m in board_reflections(design.board.cells))

    pieces = design.pieces
    fixed = tuple(range(len(design.spec.fixed)))
    fixed_area = sum(p.area * p.high for p in design.spec.fixed)
    own = [shape_key(p) for p in pieces]
    shape = [key[0] for key in own]
    mirrors = (any(not can_flip(p) for p in pieces) and all(map(can_rotate, pieces))
               and board_mirrors())
    mirror = [shape_key(p, mirrored=True) for p in pieces] if mirrors else own
    placed = [*fixed, *(i for indices in design.draws for i in indices)]
    may_repeat = len(set(own)) < len(own) or mirrors or len(set(placed)) < len(placed)
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


def test_a_piece_offered_by_two_draws_makes_each_set_once(tmp_path):
    """Two draws that offer the same pieces (the same names and shapes: one piece) give
    each set of pieces once, whichever draw picked which."""
    (tmp_path / "corners.yaml").write_text(CORNERS)
    offer = ("    pool:\n      - {name: L, shape: \"###/#..\"}\n"
             "      - {name: T, shape: \"###/.#.\"}\n")
    (tmp_path / "d.yaml").write_text(
        "kind: design\nname: twice\nboard: corners.yaml\nchoose:\n"
        + f"  - count: 1\n{offer}" * 2
        + "  - count: 2\n    pool:\n      - {name: S, shape: \".##/##.\"}\n"
          "      - {name: I, shape: \"####\"}\n      - {name: O, shape: \"##/##\"}\n"
          "  - count: 1\n    pool:\n      - {name: V, shape: \"##/#.\"}\n"
          "require: all-combinations\n")
    spec = load_design(tmp_path / "d.yaml")
    design = Design(spec, load_board(spec, tmp_path / "d.yaml"))
    assert check(design) == (3, 3)
    names = [sorted(design.pieces[i].name for i in s) for s in design.candidates()]
    assert len({tuple(n) for n in names}) == len(names) == 3


@pytest.mark.parametrize("pool", [
    ['{name: L, shape: "###/#.."}', '{name: J, shape: "###/#..", flip: false}'],
    ['{name: L, shape: "###/#.."}', '{name: J, shape: "###/..#", flip: false}'],
    ['{name: L, shape: "###/#..", rotate: false}', '{name: J, shape: "#./#./##", rotate: false}'],
    ['{name: L, shape: "###/#.."}', '{name: J, shape: "###/#..", rotate: false}']])
def test_pieces_that_turn_otherwise_make_sets_of_their_own(tmp_path, pool):
    """A piece that may turn over beside one of its form that may not, or two forms of a
    shape that may not rotate: each set is its own (the placements differ, and so do the
    counts), none skipped as equal to the other."""
    (tmp_path / "corners.yaml").write_text(CORNERS)
    fixed = "".join(f"  - {{name: {n}, shape: \"{s}\"}}\n" for n, s in [
        ("V3", "##/#."), ("I4", "####"), ("O4", "##/##"), ("T4", "###/.#.")])
    (tmp_path / "d.yaml").write_text(
        "kind: design\nname: turns\nboard: corners.yaml\nfixed:\n" + fixed
        + "choose:\n  - count: 1\n    pool:\n" + "".join(f"      - {p}\n" for p in pool)
        + "require: all-combinations\n")
    spec = load_design(tmp_path / "d.yaml")
    design = Design(spec, load_board(spec, tmp_path / "d.yaml"))
    assert check(design) == (2, 0)
    verdicts = run_design(design)
    assert [v.pieces[-1] for v in verdicts] == ["L", "J"]
    assert verdicts[0].total != verdicts[1].total


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


def _piece(name: str, shape, flip, rotate=None) -> str:
    drawing = "/".join("".join("#" if (r, c) in shape else "."
                               for c in range(1 + max(c for _, c in shape)))
                       for r in range(1 + max(r for r, _ in shape)))
    turn = "" if flip is None else f", flip: {str(flip).lower()}"
    turn += "" if rotate is None else f", rotate: {str(rotate).lower()}"
    return f'{{name: "{name}", shape: "{drawing}"{turn}}}'


def generated(tmp_path, seed: int) -> tuple[int, int]:
    """A random design (shapes repeated under other names, one-sided pieces, a piece offered
    by two draws, names alike and not ASCII), fixed pieces and draws of count ranges, on a
    board with a mirror symmetry that keeps its holes and on the month/day calendar."""
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
    given: dict[str, tuple] = {}  # a name is one piece in a design: its shape and turns
    # (from seed 60, pieces that may not rotate too)
    for size, fewest, most, (low, high) in plan:
        shapes = [s for _, s in pool(size)]
        # Names distinct within a pool, alike across pools: the same piece when the sizes
        # agree (offered by two draws), else told apart by the pool's initial.
        taken = rng.sample(names, rng.randint(fewest, most))
        drawn = [*rng.sample(shapes, min(len(shapes), len(taken) - 1)), rng.choice(shapes)]
        rng.shuffle(drawn)  # distinct shapes but one, or two when the pool is short
        members = []
        for name, shape in zip(taken, drawn):
            name += rng.choice(["", "0"])
            flip = rng.choice([None, False, True])
            rotate = rng.choice([None, None, None, False, True]) if seed >= 60 else None
            if name in given and len(given[name][0]) != len(shape):
                name += size[:2]
            shape, flip, rotate = given.setdefault(name, (shape, flip, rotate))
            members.append(_piece(name, shape, flip, rotate))
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


@pytest.mark.parametrize("seeds", [range(60), range(60, 120)])
def test_generated_designs_sets_are_the_oracles(tmp_path, seeds):
    """Sixty designs, a third or more with sets and a sixth with sets skipped as equal;
    then sixty with pieces that may not rotate among them."""
    seen = [generated(tmp_path, seed) for seed in seeds]
    assert sum(kept > 0 for kept, _ in seen) >= 20
    assert sum(skipped > 0 for _, skipped in seen) >= 10


# --- design --best's ranking (cpcore_design_best_*) ------------------------------------------

def oracle_best(table: list[list[int]], names: list[list[str]], best: int):
    """The ranking loop as the Python design ran it before the core did: the leaders (set,
    fewest, total, date) and every count asked for, in order. ``table[k][d]``: set k's
    count on date d."""
    asked = []

    def fewest(k):
        d = min(range(len(table[k])), key=lambda d: table[k][d])
        return table[k][d], d

    leaders: list[tuple[int, int, int, int]] = []
    probed: dict[int, dict[int, int]] = {k: {} for k in range(len(table))}
    while probed:
        floor = leaders[best - 1][1] if len(leaders) >= best else None
        bound = {k: min(known.values(), default=1 << 62) for k, known in probed.items()}
        k = max(probed, key=lambda j: (bound[j], -j))
        if floor is not None and bound[k] < floor:
            break
        known = probed[k]
        unknown = [date for _, _, _, date in leaders if date not in known]
        if unknown:
            for date in dict.fromkeys(unknown):
                asked.append(("alone", k, date))
                known[date] = table[k][date]
            continue
        del probed[k]
        asked.append(("full", k, floor))
        low, date = fewest(k)
        if floor is not None and low < floor:
            continue
        leaders = sorted([*leaders, (k, low, sum(table[k]), date)],
                         key=lambda v: (-v[1], -v[2], names[v[0]]))[:best]
    return leaders, asked


def core_best(table: list[list[int]], names: list[list[str]], best: int):
    """The same, stepped by the core (as design/best.py steps it)."""
    import cpmodels._native as native
    import numpy as np

    from cpmodels.backends.engine.layouts.described import constants

    kind = constants("CPCORE_BEST_")
    n, dates = len(table), len(table[0])
    rank = np.empty(n, dtype=np.int64)
    rank[sorted(range(n), key=lambda k: names[k])] = np.arange(n)
    arrays = (rank, np.ones(n, np.uint8), np.zeros((n, dates), np.uint8),
              np.full(n, -1, np.int64), np.full((best, 4), -1, np.int64),
              np.zeros(best, np.int64))
    asked = []
    while True:
        step, k, floor, n_out = native.design_best_step(*arrays)
        if step == kind["probe"]:
            for d in arrays[5][:n_out]:
                asked.append(("alone", k, int(d)))
                native.design_best_known(*arrays, k, int(d), table[k][d])
        elif step == kind["count"]:
            asked.append(("full", k, None if floor < 0 else floor))
            low = min(table[k])
            if floor < 0 or low >= floor:
                native.design_best_counted(*arrays, k, low, sum(table[k]),
                                           table[k].index(low))
        else:
            assert step == kind["done"]
            break
    leaders = [tuple(int(x) for x in row) for row in arrays[4] if row[0] >= 0]
    return leaders, asked


@pytest.mark.parametrize("seed", range(30))
def test_the_cores_best_ranking_is_the_oracles(seed):
    """Random figures (ties in the fewest and the totals, names alike in part): the same
    counts asked for in the same order, and the same leaders."""
    rng = random.Random(seed)
    n, dates, best = rng.randint(1, 25), rng.randint(1, 8), rng.randint(1, 6)
    table = [[rng.randint(1, 6) for _ in range(dates)] for _ in range(n)]
    names = [[rng.choice("ABC") for _ in range(3)] + [str(k)] for k in range(n)]
    assert core_best(table, names, best) == oracle_best(table, names, best)


def test_the_best_ranking_refuses_what_is_out_of_range():
    import cpmodels._native as native
    import numpy as np

    arrays = (np.zeros(2, np.int64), np.ones(2, np.uint8), np.zeros((2, 3), np.uint8),
              np.full(2, -1, np.int64), np.full((1, 4), -1, np.int64), np.zeros(1, np.int64))
    for args in ((2, 0, 1), (0, 3, 1), (0, 0, -1)):
        with pytest.raises(ValueError, match="out of range"):
            native.design_best_known(*arrays, *args)
    with pytest.raises(ValueError, match="out of range"):
        native.design_best_counted(*arrays, 0, 5, 4, 0)  # a total below the fewest


def test_a_designs_verdicts_with_one_sided_and_fixed_pieces_are_their_sweeps(tmp_path):
    """The month/day calendar with six pieces fixed and two drawn from forms that may not
    turn over or may not rotate (beside the same shapes that may): each set's verdict, and a
    working set's fewest and total, are what sweeping its pieces says."""
    from cpmodels.api import sweep

    def drawn_piece(name, drawing, flip, rotate):
        turn = "" if flip is None else f", flip: {str(flip).lower()}"
        turn += "" if rotate is None else f", rotate: {str(rotate).lower()}"
        return f'{{name: "{name}", shape: "{drawing}"{turn}}}'

    board = (SPECS / "calendar_day.yaml").read_text()
    fixed = [("O6", "###/###", None, None), ("L", "####/#...", None, None),
             ("P", "##./###", None, None), ("U", "#.#/###", None, None),
             ("V", "###/#../#..", None, None), ("Y", "####/..#.", None, None)]
    drawn = [("N", ".###/##..", False, None), ("Nm", "##../.###", False, None),
             ("Z", "##./.#./.##", False, None), ("Zr", "##./.#./.##", None, False),
             ("Nr", ".###/##..", None, False)]
    (tmp_path / "board.yaml").write_text(board)
    (tmp_path / "d.yaml").write_text(
        "kind: design\nname: sides\nboard: board.yaml\nfixed:\n"
        + "".join(f"  - {drawn_piece(*p)}\n" for p in fixed) + "choose:\n  - count: 2\n    pool:\n"
        + "".join(f"      - {drawn_piece(*p)}\n" for p in drawn) + "require: real-dates\n")
    spec = load_design(tmp_path / "d.yaml")
    verdicts = run_design(Design(spec, load_board(spec, tmp_path / "d.yaml")), jobs=1)
    assert len(verdicts) == 8  # not N with Nr, nor Z with Zr: a set's shapes are distinct
    pieces = {name: drawn_piece(name, shape, flip, rotate)
              for name, shape, flip, rotate in fixed + drawn}
    head = board[:board.index("pieces:")]
    works = 0
    for verdict in verdicts:
        path = tmp_path / ("-".join(verdict.pieces) + ".yaml")
        path.write_text(head + "pieces:\n" + "".join(f"  - {pieces[n]}\n"
                                                     for n in verdict.pieces))
        real = [row.count for row in sweep(path).rows.values() if row.real_date]
        assert verdict.works == (min(real) > 0), verdict.pieces
        if verdict.works:
            works += 1
            assert (verdict.min, verdict.total) == (min(real), sum(real))
    assert 0 < works < len(verdicts)
