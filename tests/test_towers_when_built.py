"""Towers under the game's build-order rule (``rules: when-built``), against brute force over
every order of building."""

from __future__ import annotations

import functools
import itertools
import json
import textwrap

import numpy as np
import pytest
from checker import NEEDS, replay_towers
from conftest import SPECS

from cpmodels.errors import InputError
from cpmodels.export import check, decode, model_files, subject_of
from cpmodels.spec import load_spec
from cpmodels.towers import build
from cpmodels.towers import model as towers_model
from cpmodels.towers.problem import towers_problem

LETTERS = "BRGY"


def _game(tmp_path, points, rows=5, cols=5, rules="when-built"):
    names = ["Blue", "Red", "Green", "Yellow"]
    colours = "\n".join(
        f"  - {{name: {n}, letter: {n[0]}, points: {p}, needs: [{', '.join(names[:k])}]}}"
        for k, (n, p) in enumerate(zip(names, points)))
    path = tmp_path / f"game_{'_'.join(map(str, points))}.yaml"
    path.write_text(f"kind: towers\nname: game\nrows: {rows}\ncols: {cols}\nrules: {rules}\n"
                    f"colours:\n{colours}\n")
    return path


_CHUNK = 1 << 18  # boards expanded at once


def _digits(boards, n, base):
    """Each board's cells (its digits in ``base``, cell 0 the lowest), one array a cell."""
    digits = []
    for _ in range(n):
        boards, digit = np.divmod(boards, base)
        digits.append(digit)
    return digits


def _search(n, base, around, degree, start):
    """Breadth-first search over the boards from ``start``: each step builds a colour on a
    cell whose neighbours hold every colour it needs (colour k needs 0..k-1; code 4 is an
    empty cell). A board is its digits in ``base``, cell i the i-th; the boards of a layer
    are expanded together (numpy). Returns which boards are reached."""
    seen = np.zeros(base ** n, np.bool_)
    fresh = np.zeros(base ** n, np.bool_)  # the next layer
    weight = base ** np.arange(n, dtype=np.int32)
    bit = np.array([1, 2, 4, 8, 0], np.uint8)  # a colour's bit; none for an empty cell
    seen[start] = True
    layer = np.array([start], np.int32)
    while layer.size:
        for at in range(0, layer.size, _CHUNK):
            boards = layer[at:at + _CHUNK]
            digits = _digits(boards, n, base)
            colour = [bit[d] for d in digits]
            for v in range(n):
                held = functools.reduce(np.bitwise_or,
                                        [colour[u] for u in around[v, :degree[v]]])
                for k in range(4):
                    need = (1 << k) - 1
                    can = ((held & need) == need) & (digits[v] != k)
                    after = boards[can] + (k - digits[v][can]) * weight[v]
                    after = after[~seen[after]]
                    seen[after] = True
                    fresh[after] = True
        layer = np.flatnonzero(fresh).astype(np.int32)
        fresh[layer] = False
    return seen


def reachable_cities(rows, cols, start_empty=False):
    """Every city some order of building reaches (one row of colour codes a city).

    Without empty cells the search starts from all Blue: an order from the empty board,
    replayed from all Blue, stays legal (a cell still empty there is Blue here, which only
    adds neighbours), and all Blue is reachable, so the full cities reached are the same
    (checked on 2x3 below)."""
    n, base = rows * cols, 5 if start_empty else 4
    around = np.zeros((n, 4), np.int64)
    degree = np.zeros(n, np.int64)
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                if 0 <= r + dr < rows and 0 <= c + dc < cols:
                    around[r * cols + c, degree[r * cols + c]] = (r + dr) * cols + c + dc
                    degree[r * cols + c] += 1
    start = int((base ** np.arange(n)).sum()) * 4 if start_empty else 0
    cities = np.flatnonzero(_search(n, base, around, degree, start)).astype(np.int32)
    digits = np.stack(_digits(cities, n, base), axis=1).astype(np.int64)
    return digits[(digits < 4).all(axis=1)]


def _grid(codes, cols):
    return ["".join(LETTERS[k] for k in codes[r:r + cols]) for r in range(0, len(codes), cols)]


def test_the_search_from_all_blue_finds_what_the_search_from_empty_finds():
    full = {tuple(c) for c in reachable_cities(2, 3)}
    assert full == {tuple(c) for c in reachable_cities(2, 3, start_empty=True)}
    assert len(full) == 824


@pytest.mark.parametrize("size", [(2, 3), (3, 3)])
def test_orderable_is_reachable(tmp_path, size):
    """The characterisation (docs/towers.md) against brute force, city by city, and every
    reachable city gets an order of builds that the checker replays."""
    rows, cols = size
    problem = towers_problem(load_spec(_game(tmp_path, (1, 2, 3, 4))), rows, cols)
    reached = {tuple(c) for c in reachable_cities(rows, cols)}
    cities = list(itertools.product(range(4), repeat=rows * cols))
    if len(cities) > 5000:
        rng = np.random.default_rng(3)
        cities = [cities[i] for i in rng.choice(len(cities), 2500, replace=False)]
        cities += list(itertools.islice(reached, 500))
    for city in cities:
        grid = _grid(city, cols)
        assert (not problem.violations(grid)) == (city in reached), grid
        if city in reached and rows * cols <= 6:
            assert replay_towers(build.build_order(problem, grid), rows, cols) == grid


POINTS = [(1, 2, 3, 4), (205, 966, 2677, 5738), (0, 0, 0, 1), (10, 20, 30, 40),
          (5, -3, 0, 7), (0, 9, 0, -1)]


@pytest.mark.parametrize("size", [(2, 2), (2, 3), (2, 4), (3, 3), (3, 4)])
def test_optima_agree_with_brute_force_over_build_orders(tmp_path, size):
    rows, cols = size
    cities = reachable_cities(rows, cols)
    counts = np.stack([(cities == k).sum(axis=1) for k in range(4)], axis=1)
    for points in POINTS:
        problem = towers_problem(load_spec(_game(tmp_path, points)), rows, cols)
        result = towers_model.solve(problem)
        assert result.optimal and result.score == int((counts @ np.array(points)).max())
        assert replay_towers(result.order, rows, cols) == result.grid
        assert build.replay(problem, result.order) == result.grid
        assert problem.score(result.grid) == result.score


@pytest.mark.parametrize("points, optimum", [((0, 0, 0, 1), 13),
                                             ((205, 966, 2677, 5738), 95_691)])
def test_the_published_optima(tmp_path, run_cli, points, optimum):
    """Found and proved by an outside CP optimiser for the game City Bloxx / Tower Bloxx
    ("build city"); 1/2/3/4 (81) and 10x10 Yellow only (58) are benchmarks."""
    code, out, _ = run_cli("solve", str(_game(tmp_path, points)), "--format", "json")
    payload = json.loads(out)
    assert code == 0 and payload["optimal"] and payload["score"] == optimum
    grid = replay_towers(payload["order"], 5, 5)
    assert grid == payload["grid"]
    score = dict(zip(LETTERS, points))
    assert sum(score[ch] for row in grid for ch in row) == optimum


def test_the_rule_scores_more_than_the_final_city_rule(tmp_path):
    for points, always in (((1, 2, 3, 4), None), ((0, 0, 0, 1), None)):
        spec = load_spec(_game(tmp_path, points, 3, 3, rules="always"))
        always = towers_model.solve(towers_problem(spec)).score
        when = towers_model.solve(towers_problem(load_spec(_game(tmp_path, points, 3, 3))))
        assert when.score > always
        # The default rule's checker refuses the city: some tower lost a needed neighbour.
        lacking = [1 for r, row in enumerate(when.grid) for c, ch in enumerate(row)
                   if not set(NEEDS[ch]) <= {when.grid[r + dr][c + dc]
                                            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                                            if 0 <= r + dr < 3 and 0 <= c + dc < 3}]
        assert lacking


def test_replay_refuses_illegal_orders(tmp_path):
    problem = towers_problem(load_spec(_game(tmp_path, (1, 2, 3, 4))), 2, 2)
    assert build.replay(problem, [(0, 0, "B"), (0, 1, "R"), (1, 0, "B"), (1, 1, "G")]) == \
        ["BR", "BG"]
    for order, why in (([(0, 0, "R")], "lacks Blue"),
                       ([(0, 0, "B"), (5, 0, "B")], "off the 2x2 board"),
                       ([(0, 0, "Q")], "not a colour"),
                       ([(0, 0, "B")], "empty"),
                       ([(0, 0)], "not \\[row, column, letter\\]"),
                       ([7], "not \\[row, column, letter\\]")):
        with pytest.raises(InputError, match=why):
            build.replay(problem, order)


def test_specs_the_rule_does_not_take(tmp_path):
    text = textwrap.dedent("""\
        kind: towers
        name: t
        rules: when-built
        colours:
          - {name: Stone, letter: S, points: 1}
          - {name: Tower, letter: T, points: 9, needs: [Moat]}
          - {name: Moat, letter: M, points: 2}
        """)
    path = tmp_path / "t.yaml"
    path.write_text(text)
    with pytest.raises(InputError, match="chain"):
        towers_problem(load_spec(path))
    path.write_text(text.replace("needs: [Moat]", "needs: [Stone]").replace(
        "points: 2}", "points: 2, needs: [Stone, Tower]}") + "allow_empty: true\n")
    with pytest.raises(InputError, match="empty"):
        towers_problem(load_spec(path))
    path.write_text(text.replace("when-built", "sometimes"))
    with pytest.raises(Exception, match="when-built"):
        load_spec(path)


def test_the_bundled_spec_and_the_default_spec_under_the_rule(tmp_path):
    result = towers_model.solve(towers_problem(load_spec(SPECS / "city_bloxx.yaml"), 3, 3))
    assert result.optimal and replay_towers(result.order, 3, 3) == result.grid
    five = (SPECS / "towers.yaml").read_text().replace("allow_empty: false",
                                                       "rules: when-built")
    (tmp_path / "five.yaml").write_text(five)
    problem = towers_problem(load_spec(tmp_path / "five.yaml"), 3, 3)
    result = towers_model.solve(problem)
    assert result.optimal and replay_towers(result.order, 3, 3) == result.grid
    assert result.score >= towers_model.solve(towers_problem(
        load_spec(SPECS / "towers.yaml"), 3, 3)).score


def test_cpsat_export_and_decode_check_the_rule(tmp_path):
    from google.protobuf import text_format
    from ortools.sat import cp_model_pb2
    from ortools.sat.python import cp_model

    spec = load_spec(_game(tmp_path, (1, 2, 3, 4), 3, 3))
    subject = subject_of(spec, size=(3, 3))
    data = model_files(subject, "cpsat", tmp_path / "t.pb")[tmp_path / "t.pb"]
    proto = cp_model_pb2.CpModelProto()
    proto.ParseFromString(data)
    model = cp_model.CpModel()
    model.proto.parse_text_format(text_format.MessageToString(proto))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    assert solver.solve(model) == cp_model.OPTIMAL
    response = cp_model_pb2.CpSolverResponse()
    response.solution.extend(solver.value(model.get_int_var_from_proto_index(i))
                             for i in range(len(proto.variables)))
    response.status = cp_model_pb2.OPTIMAL
    found = decode(subject, "cpsat", response.SerializeToString())
    assert found.ok and found.score == towers_model.solve(subject.towers).score == 27
    # No order of building reaches a board of Greens; the game's rule reaches a city the
    # final-city rule refuses (the Yellow in the middle lacks its Blue); no Yellow stands
    # in a corner (two neighbours).
    from cpmodels.export.decode import towers_vars

    faults = check(subject, towers_vars(subject, ["GGG", "GGG", "GGG"])).faults
    assert faults and "no order of building" in faults[0]
    assert check(subject, towers_vars(subject, ["BRB", "GYG", "RBR"])).ok
    faults = check(subject, towers_vars(subject, ["YRB", "GBG", "BRG"])).faults
    assert faults == ["Yellow at (0,0) has 2 neighbours but needs 3 colours"]


@pytest.mark.parametrize("size", [(2, 3), (3, 3)])
def test_the_programme_exports_hold_the_rule(tmp_path, run_cli, size):
    """The 0-1 programme (OPB, MPS, LP) under the rule: its optimum, solved by HiGHS, is
    the package's, and the answer decodes and checks."""
    highspy = pytest.importorskip("highspy")
    rows, cols = size
    path = _game(tmp_path, (1, 2, 3, 4), rows, cols)
    best = towers_model.solve(towers_problem(load_spec(path)))
    mps = tmp_path / "w.mps"
    assert run_cli("export", str(path), "--out", str(mps))[0] == 0
    assert run_cli("export", str(path), "--out", str(tmp_path / "w.opb"))[0] == 0
    assert "the order of building" in (tmp_path / "w.opb").read_text()
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("time_limit", 60.0)
    highs.readModel(str(mps))
    highs.run()
    assert highs.modelStatusToString(highs.getModelStatus()) == "Optimal"
    assert round(highs.getInfo().objective_function_value) == best.score
    solution = tmp_path / "w.sol"
    highs.writeSolution(str(solution), 0)
    code, out, _ = run_cli("decode", str(path), "--format", "mps", "--model", str(solution),
                           "--output", "json")
    assert code == 0 and json.loads(out)["score"] == best.score


def test_minizinc_export_holds_the_rule(tmp_path, run_cli):
    import shutil
    import subprocess

    if shutil.which("minizinc") is None:
        pytest.skip("minizinc is not installed")
    path = _game(tmp_path, (1, 2, 3, 4), 2, 3)
    model = tmp_path / "w.mzn"
    assert run_cli("export", str(path), "--out", str(model))[0] == 0
    done = subprocess.run(["minizinc", "--solver", "gecode", str(model),
                           str(model.with_suffix(".dzn"))],
                          capture_output=True, text=True, timeout=120)
    answer = tmp_path / "w.out"
    answer.write_text(done.stdout)
    code, out, _ = run_cli("decode", str(path), "--format", "mzn", "--model", str(answer),
                           "--output", "json")
    assert code == 0 and json.loads(out)["score"] == 15


def test_certificates_are_refused_under_the_rule(run_cli, tmp_path):
    for argv in (["solve", str(SPECS / "city_bloxx.yaml"), "--proof", str(tmp_path / "c")],
                 ["verify", str(SPECS / "city_bloxx.yaml"), "--proof", str(tmp_path / "c")]):
        code, out, err = run_cli(*argv)
        assert code != 0 and "certificates are for the default rule" in err + out
        assert not (tmp_path / "c").exists()


def test_a_city_without_builds_is_excluded_and_kept_in_the_bound(tmp_path, monkeypatch):
    problem = towers_problem(load_spec(_game(tmp_path, (1, 2, 3, 4))), 3, 3)
    found, proposed = build.build_order, []

    def first_fails(problem, grid, cells=None):
        proposed.append(grid)
        return None if len(proposed) == 1 else found(problem, grid, cells)

    monkeypatch.setattr(build, "build_order", first_fails)
    result = towers_model.solve(problem)
    assert len(proposed) == 2 and result.grid != proposed[0]
    assert result.bound == 27 and result.optimal == (result.score == 27)
    assert replay_towers(result.order, 3, 3) == result.grid
    # When no city gets its builds, the answer is unknown under the best excluded score.
    monkeypatch.setattr(build, "build_order", lambda problem, grid, cells=None: None)
    monkeypatch.setattr(towers_model, "BUILD_ATTEMPTS", 3)
    result = towers_model.solve(problem)
    assert result.status == "unknown" and result.bound == 27 and not result.grid
