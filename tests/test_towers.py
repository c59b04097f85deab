"""Towers: the dynamic programme against CP-SAT, generalised specs, built cells."""

from __future__ import annotations

import itertools
import textwrap
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from checker import check_towers
from conftest import SPECS, early_call, figures_of, write_figures

from cpmodels.spec import load_spec
from cpmodels.towers import bounds, programme
from cpmodels.towers import model as towers_model
from cpmodels.towers.problem import towers_problem


def _spec(tmp_path, text):
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent(text))
    return load_spec(path)


def _rules_hold(problem, grid):
    """An independent reading of the rules: colours, needed neighbours, built cells."""
    by_letter = {c.letter: c for c in problem.colours}
    for r, row in enumerate(grid):
        for c, letter in enumerate(row):
            if letter == problem.empty_letter and problem.allow_empty:
                continue
            around = {grid[r + dr][c + dc] for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                      if 0 <= r + dr < problem.rows and 0 <= c + dc < problem.cols}
            for need in by_letter[letter].needs:
                assert problem.colours[need].letter in around
    for (r, c), k in problem.fixed:
        assert grid[r][c] == (problem.empty_letter if k < 0 else problem.colours[k].letter)
    return sum(by_letter[ch].points for row in grid for ch in row if ch in by_letter)


@pytest.mark.parametrize("size", [(1, 5), (2, 7), (3, 4), (4, 3), (3, 6), (4, 5)])
def test_programme_agrees_with_cpsat(size):
    problem = towers_problem(load_spec(SPECS / "towers.yaml"), *size)
    by_dp = towers_model.solve(problem)
    by_cpsat = towers_model.solve(problem, use_dp=False)
    assert by_dp.backend == "dp" and by_dp.optimal and by_cpsat.optimal
    assert by_dp.score == by_cpsat.score == check_towers(by_dp.grid, *size)


def test_programme_with_an_incumbent():
    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 5, 5)
    assert programme.solve_dp(problem).best == 730
    assert programme.solve_dp(problem, incumbent=730).best is None  # nothing beats 730
    assert programme.solve_dp(problem, incumbent=700).best == 730
    # A 7-wide board: CP-SAT's board, then the programme proves it (the benchmark does 7x7).
    result = towers_model.solve(towers_problem(load_spec(SPECS / "towers.yaml"), 3, 7))
    assert result.optimal and check_towers(result.grid, 3, 7) == result.score == 620


def test_any_colours_empty_cells_and_built_cells(tmp_path):
    spec = _spec(tmp_path, """\
        kind: towers
        name: custom
        rows: 3
        cols: 4
        allow_empty: true
        colours:
          - {name: Stone, letter: S, points: 1}
          - {name: Tower, letter: T, points: 9, needs: [Stone]}
          - {name: Castle, letter: C, points: 30, needs: [Tower, Stone, Moat]}
          - {name: Moat, letter: M, points: -2}
        fixed: ["??.?", "?C??", "????"]
        """)
    problem = towers_problem(spec)
    assert problem.fixed == (((0, 2), -1), ((1, 1), 2))
    by_dp, by_cpsat = towers_model.solve(problem), towers_model.solve(problem, use_dp=False)
    assert by_dp.optimal and by_cpsat.optimal and by_dp.score == by_cpsat.score
    assert _rules_hold(problem, by_dp.grid) == by_dp.score
    assert _rules_hold(problem, by_cpsat.grid) == by_cpsat.score
    with pytest.raises(Exception, match="cannot be solved at 4x4"):
        towers_problem(spec, 4, 4)


def test_wide_boards_use_cpsat_alone():
    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 9, 9)
    assert programme.max_width(problem) == 8
    result = towers_model.solve(problem, time_limit=2)
    assert result.backend == "cpsat" and result.bound >= result.score
    assert check_towers(result.grid, 9, 9) == result.score


def test_band_bounds_hold_and_are_exact_for_one_band():
    spec = load_spec(SPECS / "towers.yaml")
    for n, optimum in ((3, 200), (4, 440), (5, 730), (6, 1130)):
        bound, cut = bounds.upper_bound(towers_problem(spec, n, n), max_band=3)
        assert bound >= optimum and sum(cut) == n
    # One band of the whole board, with no free rows, is the exact optimum.
    assert bounds.upper_bound(towers_problem(spec, 5, 5), max_band=5) == (730, [5])


def test_a_band_bound_is_the_best_band_score_by_brute_force():
    spec = load_spec(SPECS / "towers.yaml")
    problem = towers_problem(spec, 4, 2)  # a band of rows 1-2 with free rows 0 and 3
    points = {col.letter: col.points for col in problem.colours}
    best = 0
    for cells in itertools.product([c.letter for c in problem.colours], repeat=8):
        grid = ["".join(cells[0:2]), "".join(cells[2:4]), "".join(cells[4:6]),
                "".join(cells[6:8])]
        broken = [p for p in problem.violations(grid) if " at (1," in p or " at (2," in p]
        if not broken:
            best = max(best, sum(points[ch] for row in grid[1:3] for ch in row))
    band = towers_problem(spec, 2, 2)
    assert bounds.band_bound(band, 2, True, True) == best


def test_rest_bounds_keep_the_proof_and_prune():
    spec = load_spec(SPECS / "towers.yaml")
    problem = towers_problem(spec, 6, 6)
    rest = bounds.rest_bounds(problem, bounds.BandBounds(problem, 3))
    assert rest[-1] == 0 and all(a >= b for a, b in itertools.pairwise(rest))
    plain = programme.solve_dp(problem, incumbent=1130)
    pruned = programme.solve_dp(problem, incumbent=1130, rest_bound=rest)
    assert plain.best is None and pruned.best is None and pruned.finished
    assert pruned.peak_states < plain.peak_states
    assert programme.solve_dp(problem, incumbent=1100, rest_bound=rest).best == 1130


def _band_bound_solve() -> dict[str, Any]:
    """The 9x9 board's band bound, and a 10-second solve with bands of three rows: its
    bound, its score, and the score of its board by the rules."""
    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 9, 9)
    bound, cut = bounds.upper_bound(problem, max_band=3)
    result = towers_model.solve(problem, time_limit=10, band_height=3)
    return {"bound": bound, "cut": cut, "solved": result.bound, "score": result.score,
            "checked": check_towers(result.grid, 9, 9)}


def figures(scratch: Path) -> None:
    """The wide board's solve, in ``scratch``. Started with the session (the test's early
    command): the second processor solves while the suite runs."""
    write_figures({"band": _band_bound_solve}, scratch)


@pytest.mark.early.with_args(partial(early_call, "test_towers", "figures"))
def test_wide_boards_get_the_band_bound(early):
    found = figures_of(early, "band")
    assert (found["bound"], found["cut"]) == (3230, [3, 3, 3])
    assert found["solved"] is not None and found["solved"] <= found["bound"]
    assert found["checked"] == found["score"]


def test_scores_per_cell_are_the_best_priced_board_by_brute_force():
    import numpy as np

    spec = load_spec(SPECS / "towers.yaml")
    problem = towers_problem(spec, 3, 2)  # row 0 is a free copy: it needs nothing
    letters = [c.letter for c in problem.colours]
    rng = np.random.default_rng(7)
    prices = rng.integers(-60, 60, size=(3, 2, len(letters)))
    prices[1:] += np.array([c.points for c in problem.colours])
    best, boards = None, []
    for cells in itertools.product(letters, repeat=6):
        grid = ["".join(cells[0:2]), "".join(cells[2:4]), "".join(cells[4:6])]
        if [p for p in problem.violations(grid) if " at (0," not in p]:
            continue
        value = sum(int(prices[r, c, letters.index(grid[r][c])])
                    for r in range(3) for c in range(2))
        if best is None or value > best:
            best = value
        boards.append((value, grid))
    found = programme.solve_dp(problem, board=True, helpers=frozenset([0]),
                               cell_points=prices)
    assert found.best == best and (best, found.grid) in boards
    # Scores that depend on the colours above and to the left (the priced corners of
    # ``bounds.lagrangian_bound``), on a board the programme reads down its columns and on
    # one it reads along its rows.
    for rows, cols in ((3, 2), (2, 3)):
        problem = towers_problem(spec, rows, cols)
        corner = rng.integers(-60, 60, size=(rows, cols, 6, 6, 5))
        best, boards = None, []
        for cells in itertools.product(letters, repeat=rows * cols):
            grid = ["".join(cells[r * cols:(r + 1) * cols]) for r in range(rows)]
            if [p for p in problem.violations(grid) if " at (0," not in p]:
                continue
            code = [[letters.index(ch) for ch in row] for row in grid]
            value = sum(int(corner[r, c, code[r - 1][c] if r else 5,
                                   code[r][c - 1] if c else 5, code[r][c]])
                        for r in range(rows) for c in range(cols))
            if best is None or value > best:
                best = value
            boards.append((value, grid))
        found = programme.solve_dp(problem, board=True, helpers=frozenset([0]),
                                   cell_points=corner)
        assert found.best == best and (best, found.grid) in boards
    # With the colours' own points and no free row it is the plain programme.
    problem = towers_problem(spec, 3, 2)
    plain = np.broadcast_to(np.array([c.points for c in problem.colours]), (3, 2, 5))
    assert programme.solve_dp(problem, cell_points=plain).best == \
        programme.solve_dp(problem).best


def test_priced_bands_bound_the_optimum_and_start_at_the_band_bound():
    spec = load_spec(SPECS / "towers.yaml")
    for n, cut, optimum in ((4, 2, 440), (5, 3, 730), (5, 2, 730), (6, 3, 1130)):
        problem = towers_problem(spec, n, n)
        priced = bounds.lagrangian_bound(problem, cut, steps=15, target=optimum)
        free = bounds.band_bound(problem, cut, False, True) + \
            bounds.band_bound(problem, n - cut, True, False)
        assert priced.steps[0] == free  # no prices: the free rows of the band bound
        assert optimum <= priced.bound <= min(priced.steps) < free
        assert priced.bound % 10 == 0
    with pytest.raises(ValueError, match="cut"):
        bounds.lagrangian_bound(towers_problem(spec, 4, 4), 4)
    with pytest.raises(ValueError, match="method"):
        bounds.lagrangian_bound(towers_problem(spec, 4, 4), 2, method="newton")


def test_the_bundle_prices_4x4_down_to_its_optimum():
    # Polyak's steps stall above it; the bundle's cutting planes reach the optimum (440):
    # the two priced bands alone prove it.
    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 4, 4)
    polyak = bounds.lagrangian_bound(problem, 2, steps=120, target=440, method="polyak")
    bundle = bounds.lagrangian_bound(problem, 2, steps=120, target=440, method="bundle")
    assert polyak.bound == 460 and bundle.bound == 440
    assert 440 <= min(bundle.steps) < 450 <= min(polyak.steps)
    # Started from the bundle's prices, one step is their bound again.
    again = bounds.lagrangian_bound(problem, 2, steps=1, start=bundle.prices,
                                    method="bundle")
    assert again.steps == [min(bundle.steps)] and again.bound == 440


def test_pricing_stops_once_the_bound_is_down_to_a_boards_score():
    # A board scoring 440 exists on 4x4, so once the priced bound is 440 no step can lower
    # it: the pricing ends there, with the bound and the prices that gave it.
    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 4, 4)
    whole = bounds.lagrangian_bound(problem, 2, steps=120, target=440, method="bundle")
    stopped = bounds.lagrangian_bound(problem, 2, steps=120, target=440, method="bundle",
                                      stop_at=440)
    assert whole.bound == stopped.bound == 440
    first = next(k for k, value in enumerate(whole.steps) if value < 450)
    assert stopped.steps == whole.steps[:first + 1]
    again = bounds.lagrangian_bound(problem, 2, steps=1, start=stopped.prices)
    assert again.bound == 440
    # Not reached: every step is taken.
    assert len(bounds.lagrangian_bound(problem, 2, steps=12, stop_at=100).steps) == 12


def test_the_model_s_building_stops_at_the_deadline():
    import time

    from cpmodels.errors import OutOfTime

    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 200, 200)
    start, cpu = time.perf_counter(), time.process_time()
    with pytest.raises(OutOfTime):
        towers_model.build_towers_model(problem, deadline=start + 0.2)
    # A whole model of this board takes seconds of processor time.
    assert time.process_time() - cpu < 1.0
    status, grid, bound = towers_model._search(problem, start, None)
    assert (status, grid, bound) == (towers_model.cp_model.UNKNOWN, [], None)


@pytest.mark.parametrize("rules", ["", "rules: when-built\n"])
def test_a_large_board_ends_near_its_time_limit(tmp_path, rules):
    """The model of a 200x200 board takes longer to build than the time limit: the solve
    still ends about then, with no board and no bound it did not prove."""
    import time

    spec = SPECS / "towers.yaml"
    if rules:
        spec = tmp_path / "built.yaml"
        spec.write_text((SPECS / "towers.yaml").read_text() + rules)
    problem = towers_problem(load_spec(spec), 200, 200)
    cpu = time.process_time()
    result = towers_model.solve(problem, time_limit=1.5)
    assert time.process_time() - cpu < 1.5 + 1.0  # the building alone takes longer
    assert result.status == "unknown" and result.grid in (None, []) and result.bound is None


def _scores_legally(grid, rows, cols):
    """The board's score by the tests' own checker, or None when it breaks a rule."""
    try:
        return check_towers(grid, rows, cols)
    except AssertionError:
        return None


@pytest.mark.parametrize("start", ["blue", "optimal"])
def test_a_window_is_the_best_board_around_it_by_brute_force(start):
    """Rows 2-3 of a 6x3 board re-solved with the rest kept: every letter of the window
    tried, a board counted only when all of it is legal (the rows beside the window need
    it too), against the programme's answer with helper rows on both sides."""
    from cpmodels.towers import search

    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 6, 3)
    board = ["BBB"] * 6 if start == "blue" else programme.solve_dp(problem, board=True).grid
    best = None
    for cells in itertools.product("BRGYW", repeat=6):
        grid = [*board[:2], "".join(cells[:3]), "".join(cells[3:]), *board[4:]]
        score = _scores_legally(grid, 6, 3)
        if score is not None and (best is None or score > best):
            best = score
    found = search.best_window(problem, board, 2, 2)
    assert found[:2] == board[:2] and found[4:] == board[4:]
    assert _scores_legally(found, 6, 3) == best
    assert best > 180 if start == "blue" else best == _scores_legally(board, 6, 3)
    with pytest.raises(ValueError, match="not a window"):
        search.best_window(problem, board, 5, 2)


def test_polish_climbs_to_a_board_no_window_improves():
    from cpmodels.towers import search

    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 7, 5)  # windows across too
    polished = search.polish(problem, ["BBBBB"] * 7)
    score = _scores_legally(polished, 7, 5)
    assert score is not None and 350 < score <= programme.solve_dp(problem).best
    for first in range(7 - 3):
        assert problem.score(search.best_window(problem, polished, first, 4)) <= score
    across = search.transposed(polished)
    for first in range(5 - 3):
        assert problem.score(search.best_window(search.turned(problem), across, first,
                                                4)) <= score
    assert search.polish(problem, polished) == polished


def test_a_wide_board_from_solve_is_polished(monkeypatch):
    """Past the programme's width CP-SAT's board is polished in the time kept for it, and
    the polished board is the answer (how far the polish gets depends on the machine's
    speed, so the polish itself is checked above)."""
    import time

    from cpmodels.towers import search

    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 9, 9)
    calls = []
    polish = search.polish

    def watched(problem, board, *, deadline=None):
        calls.append((list(board), deadline))
        calls.append(polish(problem, board, deadline=deadline))
        return calls[-1]

    monkeypatch.setattr(search, "polish", watched)
    start = time.perf_counter()
    result = towers_model.solve(problem, time_limit=3)
    end = time.perf_counter()
    (board, deadline), polished = calls
    assert check_towers(board, 9, 9) <= check_towers(result.grid, 9, 9) == result.score
    assert result.grid == polished
    assert start + 3 <= deadline <= end + 3  # the solve's own deadline


def test_polish_keeps_built_and_empty_cells(tmp_path):
    """Windows keep the built cells (an empty one among them) and may leave cells empty;
    the board they reach is legal by the tests' own reading of the rules."""
    from cpmodels.towers import search

    spec = _spec(tmp_path, """\
        kind: towers
        name: custom
        rows: 6
        cols: 5
        allow_empty: true
        colours:
          - {name: Stone, letter: S, points: 1}
          - {name: Tower, letter: T, points: 9, needs: [Stone]}
          - {name: Castle, letter: C, points: 30, needs: [Tower, Stone, Moat]}
          - {name: Moat, letter: M, points: -2}
        fixed: ["??.??", "?C???", "?????", "?????", "????.", "?????"]
        """)
    problem = towers_problem(spec)
    start = ["ST.SS", "MCSSS", "SSSSS", "SSSSS", "SSSS.", "SSSSS"]
    assert _rules_hold(problem, start) == 62
    polished = search.polish(problem, start)
    assert 62 < _rules_hold(problem, polished) <= programme.solve_dp(problem).best
    assert polished[0][2] == polished[4][4] == "." and polished[1][1] == "C"
