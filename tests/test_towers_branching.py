"""Branch and bound over a priced bound's cut: exact against the programme, closed into one
certificate of the branches and their prices that verify checks by working out each
branch's bound again (a forged, missing or doubled branch, or prices that no longer bound
it, refused), resumable from its state, run through the run layer."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest
from conftest import SPECS

from cpmodels.cli import main
from cpmodels.errors import InputError
from cpmodels.running import Threads
from cpmodels.spec import load_spec
from cpmodels.towers import model as towers_model
from cpmodels.towers.branching import BranchSearch, middle_out
from cpmodels.towers.certificate import partition_gap
from cpmodels.towers.compact import check_branched_bound
from cpmodels.towers.problem import towers_problem

THREE = """kind: towers
name: three
rows: 3
cols: 2
colours:
  - {name: Blue, letter: B, points: 10}
  - {name: Red, letter: R, points: 20, needs: [Blue]}
  - {name: Green, letter: G, points: 30, needs: [Red, Blue]}
"""


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """A 3x2 board of three colours (optimum 120): its spec and its problem."""
    path = tmp_path_factory.mktemp("three") / "three.yaml"
    path.write_text(THREE)
    return path, towers_problem(load_spec(path))


def _search(problem, state, goal, **options):
    n = problem.codes
    return BranchSearch(problem, state, cut=2, scale=10,
                        prices=np.zeros((problem.cols, n, n + 1, n), dtype=np.int64),
                        goal=goal, **options)


def test_with_every_column_fixed_the_branches_find_the_optimum(three, tmp_path):
    # A goal below the optimum is never proved: the branches go down to every column fixed,
    # where the prices cancel and a branch's bound is its best board: the programme's optimum.
    _, problem = three
    optimum = towers_model.solve(problem).score
    outcome = _search(problem, tmp_path / "low.branches", optimum - 10).run()
    assert optimum == 120 and not outcome.closed and outcome.bound == optimum
    assert [level.depth for level in outcome.levels] == [0, 1, 2]
    assert outcome.levels[0].highest > optimum and outcome.levels[-1].highest == optimum


def test_a_closed_search_is_one_certificate_verify_checks(three, tmp_path, capsys):
    spec, problem = three
    board = towers_model.solve(problem).grid
    search = _search(problem, tmp_path / "s.branches", 120)
    outcome = search.run(Threads(2))
    assert outcome.closed and outcome.bound == 120
    proof = tmp_path / "three.proof"
    search.write_certificate(proof, board)
    check = check_branched_bound(proof, problem)
    assert check.ok and check.optimum == 120 and "branches" in check.message
    assert main(["verify", str(spec), "--proof", str(proof), "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "optimum 120 proved" in out and "worked out again" in out


@pytest.fixture(scope="module")
def closed_proof(three, tmp_path_factory):
    _, problem = three
    folder = tmp_path_factory.mktemp("closed")
    search = _search(problem, folder / "s.branches", 130)
    assert search.run().closed
    proof = folder / "three.proof"
    search.write_certificate(proof)
    assert check_branched_bound(proof, problem).ok
    return problem, proof


def _forged(source, target, change_claim=None, drop=None, swap=None, data=None):
    """A copy of a branched certificate: its claim changed, a member dropped, or one
    member's bytes put in another's place (or ``data`` in the place of ``swap[0]``)."""
    replacement = data
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            data = old.read(item.filename)
            if item.filename == "claim.json" and change_claim is not None:
                claim = json.loads(data)
                change_claim(claim)
                data = json.dumps(claim).encode()
            if item.filename == drop:
                continue
            if swap is not None and item.filename == swap[0]:
                data = old.read(swap[1]) if replacement is None else replacement
            new.writestr(item, data)
    return target


def _drop_branch(claim):
    claim["branches"] = claim["branches"][1:]


def _split_leaf_twice(claim):
    claim["branches"].append(claim["branches"][0])


def _lower_bound(claim):
    claim["bound"] -= 10


def _raise_prices(claim):
    # Column 1's corners under Blue over Blue: the bottom band earns them, the top band
    # pays, so the bands part ways there and the bound they give goes far past the claim.
    for left in claim["prices"][1][0]:
        left[0] += 10**6


def _move_branch(claim):
    leaf = claim["branches"][-1]
    leaf["fixing"][-1][1] = (leaf["fixing"][-1][1] + 1) % 3


@pytest.mark.parametrize(("change", "message"), [
    (_drop_branch, "is missing"),
    (_split_leaf_twice, "listed twice"),
    (_lower_bound, "above the 120 claimed"),
    (_raise_prices, "above the 130 claimed"),
    (lambda c: c["branches"][0].update(prices=0), "misshapen"),
    (lambda c: c.update(version=1), "of version 1"),
    (_move_branch, "listed twice"),
    (lambda c: c.update(board=["GG", "GG", "GG"]), "breaks a rule"),
    (lambda c: c.update(branches=[{"fixing": [[0, 9, 0]]}]), "off the board"),
    (lambda c: c.update(branches="all"), "list of at most"),
])
def test_a_forged_or_missing_branch_is_refused(closed_proof, tmp_path, change, message):
    problem, proof = closed_proof
    check = check_branched_bound(_forged(proof, tmp_path / "bad", change), problem)
    assert not check.ok and message in check.message, check.message


def test_the_prices_of_the_branches_are_checked(closed_proof, tmp_path):
    problem, proof = closed_proof
    check = check_branched_bound(_forged(proof, tmp_path / "gone", drop="prices.npy"), problem)
    assert not check.ok and "are missing" in check.message
    flat = io.BytesIO()
    np.lib.format.write_array(flat, np.zeros((2, 3), dtype=np.int64))
    check = check_branched_bound(_forged(proof, tmp_path / "flat", swap=("prices.npy", None),
                                         data=flat.getvalue()), problem)
    assert not check.ok and "shape" in check.message


def test_the_certificate_is_small_and_verify_works_each_branch_out(closed_proof):
    problem, proof = closed_proof
    check = check_branched_bound(proof, problem)
    with zipfile.ZipFile(proof) as archive:
        names = archive.namelist()
        leaves = len(json.loads(archive.read("claim.json"))["branches"])
    assert sorted(names) == ["claim.json", "prices.npy"]  # no band certificates
    assert check.ok and check.recomputed == leaves and proof.stat().st_size < 300 * leaves


def test_a_branch_above_the_claim_stops_a_check_in_threads(closed_proof, tmp_path):
    problem, proof = closed_proof
    heard = []
    check = check_branched_bound(_forged(proof, tmp_path / "low", _lower_bound), problem,
                                 on_branch=lambda done, total: heard.append(done), workers=2)
    assert not check.ok and "above the 120 claimed" in check.message
    assert check_branched_bound(proof, problem, on_branch=lambda done, total: heard.append(
        (done, total)), workers=2).ok and heard[-1][0] == heard[-1][1]


def test_the_partition_check():
    assert partition_gap([()], 2, 2) is None
    split = [((0, a, k),) for a in range(2) for k in range(2)]
    assert partition_gap(split, 2, 2) is None
    assert "missing" in partition_gap(split[1:], 2, 2)
    deeper = split[1:] + [((0, 0, 0), (1, a, k)) for a in range(2) for k in range(2)]
    assert partition_gap(deeper, 2, 2) is None
    assert "split again on column 0" in partition_gap(
        split[1:] + [((0, 0, 0), (0, a, k)) for a in range(2) for k in range(2)], 2, 2)
    assert "more than one column" in partition_gap(
        [*split[1:], ((0, 0, 0), (1, 0, 0)), ((0, 0, 0), (0, 1, 1))], 2, 2)
    assert middle_out(5) == (2, 1, 3, 0, 4) and middle_out(4) == (1, 2, 0, 3)


def test_a_stopped_search_goes_on_from_every_finished_branch(three, tmp_path):
    _, problem = three
    whole = _search(problem, tmp_path / "whole.branches", 120).run()
    state = tmp_path / "parts.branches"
    first = _search(problem, state, 120).run(max_branches=4)
    assert first.finished == 4 and not first.closed
    with state.open("a") as handle:  # a line a killed run cut short is bounded again
        handle.write('{"fixing": [[0, 1')
    again = _search(problem, state, 120)
    assert len(again.done) == 4
    rest = again.run()
    assert rest.closed and rest.finished == whole.finished and rest.bound == whole.bound
    lines = state.read_text().splitlines()
    assert len(lines) == 1 + whole.finished  # the header and one line a branch, no repeats
    with pytest.raises(InputError, match="another board, cut, scale, prices, goal"):
        _search(problem, state, 130)


def test_ctrl_c_keeps_every_finished_branch(three, tmp_path):
    _, problem = three
    state = tmp_path / "stopped.branches"
    heard = []

    def stop_after_three(found):
        heard.append(found)
        if len(heard) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _search(problem, state, 120).run(on_branch=stop_after_three)
    again = _search(problem, state, 120)
    assert sorted(again.done) == sorted(found.fixing for found in heard)
    assert again.run().closed


def test_branches_priced_again_prove_the_4x4_optimum(tmp_path):
    # 4x4 (optimum 440) from 10 of Polyak's steps (520): a branch its parent's prices leave
    # open is priced again from them and keeps its own prices, which its children start
    # from and the certificate lists (a child closed at its parent's prices too).
    from cpmodels.towers.bounds import lagrangian_bound

    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 4, 4)
    root = lagrangian_bound(problem, 2, steps=10, target=440, scale=10)
    search = BranchSearch(problem, tmp_path / "p.branches", cut=2, scale=10,
                          prices=root.prices, goal=440, steps=20)
    outcome = search.run()
    own = {f: found for f, found in search.done.items() if found.prices is not None}
    assert own and all(found.top + found.bottom < min(root.steps) * 10
                       for found in own.values())
    assert outcome.closed and outcome.levels[0].highest == root.bound > 440
    assert any(f[:-1] in own and search.done[f].prices is None for f in search.done)
    proof = tmp_path / "4x4.proof"
    search.write_certificate(proof, towers_model.solve(problem).grid)
    check = check_branched_bound(proof, problem)
    assert check.ok and check.optimum == 440, check.message
    # The branches' own prices changed so that they no longer bound their branch (column
    # 3's corners under Blue over Blue paid by the top band, earned by the bottom one): the
    # certificate is refused.
    with zipfile.ZipFile(proof) as archive, archive.open("prices.npy") as stream:
        prices = np.lib.format.read_array(stream)
    assert len(prices)
    prices[:, 3, 0, :, 0] += 10**6
    forged = io.BytesIO()
    np.lib.format.write_array(forged, prices)
    bad = _forged(proof, tmp_path / "raised", swap=("prices.npy", None),
                  data=forged.getvalue())
    check = check_branched_bound(bad, problem)
    assert not check.ok and "above the 440 claimed" in check.message, check.message


def test_the_command_line_closes_goes_on_and_verifies(three, tmp_path, capsys):
    spec, problem = three
    n = problem.codes
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"rows": 3, "cols": 2, "cut": 2, "scale": 10,
                                  "prices": np.zeros((2, n, n + 1, n), int).tolist(),
                                  "board": towers_model.solve(problem).grid}))
    proof = tmp_path / "three.proof"
    argv = ["branch", str(spec), "--prices", str(prices), "--proof", str(proof), "--quiet"]
    assert main([*argv, "--max-branches", "3"]) == 3  # not closed yet: unknown
    out = capsys.readouterr().out
    assert "not closed" in out and not proof.exists()
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "optimum 120 proved by" in out and "depth 1:" in out
    assert main(["verify", str(spec), "--proof", str(proof)]) == 0
    prices.write_text("[1, 2]")
    assert main(argv) == 2
    assert "not a JSON object" in capsys.readouterr().err


def test_branches_run_on_a_cluster(three, tmp_path, capsys):
    pytest.importorskip("distributed")
    spec, problem = three
    n = problem.codes
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"rows": 3, "cols": 2, "cut": 2, "scale": 10,
                                  "prices": np.zeros((2, n, n + 1, n), int).tolist()}))
    proof = tmp_path / "three.proof"
    assert main(["branch", str(spec), "--prices", str(prices), "--goal", "120", "--proof",
                 str(proof), "--cluster", "local:2", "--quiet", "--format", "json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["closed"] and said["proof_checked"] and said["bound"] == 120
    assert [level["depth"] for level in said["levels"]] == [0, 1, 2]


def test_siblings_go_on_from_their_first_siblings_layer():
    # The branches of one parent at its prices share the cells before their split column:
    # each band goes on from the layer the first sibling kept, with the same optimum.
    from cpmodels.towers.compact import Prefixes, branch_value

    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 4, 5)
    n = problem.codes
    prices = np.random.default_rng(3).integers(-300, 300, size=(5, n, n + 1, n))
    prefixes = Prefixes()
    for parent, column in (((), 3), (((2, 0, 1),), 3), (((2, 2, 2), (3, 1, 0)), 1)):
        for a in range(n):
            for k in range(n):
                fixing = (*parent, (column, a, k))
                assert branch_value(problem, 2, 10, prices, fixing, prefixes) == \
                    branch_value(problem, 2, 10, prices, fixing), fixing
    assert prefixes.reused == 3 * 24 * 2
    # A sibling of other prices is not solved from the kept layer.
    other = prices.copy()
    other[0] += 7
    fixing = ((1, 4, 4),)
    assert branch_value(problem, 2, 10, other, fixing, prefixes) == \
        branch_value(problem, 2, 10, other, fixing) and prefixes.reused == 3 * 24 * 2


def test_the_programme_goes_on_from_a_layer():
    from cpmodels.towers.programme import solve_dp

    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 3, 5)
    points = np.random.default_rng(4).integers(-50, 120, size=(3, 5, 5))
    whole = solve_dp(problem, cell_points=points)
    for cells in (0, 4, 9, 15):
        layers = []
        part = solve_dp(problem, cell_points=points, until=cells, layer_sink=lambda t, k, v,
                        into=layers: into.append((t, k.copy(), v.copy())))
        assert part.finished and layers[-1][0] == cells
        assert solve_dp(problem, cell_points=points, start=layers[-1]).best == whole.best
    with pytest.raises(ValueError, match="traces no board"):
        solve_dp(problem, board=True, until=3)


def test_a_prefix_with_no_board_leaves_its_siblings_none():
    # White can never stand on an edge row: every state of the band dies in the prefix.
    from cpmodels.towers.compact import Prefixes, branch_value

    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 4, 5)
    n = problem.codes
    prices = np.zeros((5, n, n + 1, n), dtype=np.int64)
    prefixes = Prefixes()
    for k in range(n):
        fixing = ((0, 4, 4), (3, 0, k))
        assert branch_value(problem, 2, 10, prices, fixing, prefixes) == \
            branch_value(problem, 2, 10, prices, fixing)
    assert prefixes.reused == 2 * (n - 1)
