"""The towers programme, the DRUP checker and the CNF split step in the compiled core against
their numba kernels (kept as the oracle): every layer, board, verdict and step the same."""

from __future__ import annotations

import textwrap
import threading

import numpy as np
import pytest
from conftest import SPECS

from cpmodels.backends import cnf
from cpmodels.drup import check_drup
from cpmodels.spec import load_spec
from cpmodels.towers import programme
from cpmodels.towers.problem import towers_problem


def _numba_kernels(monkeypatch):
    monkeypatch.setattr(programme, "_step", programme._numba_step)
    monkeypatch.setattr(programme, "_predecessor", programme._numba_predecessor)
    monkeypatch.setattr(programme, "_best", lambda k, v: int(programme._numba_best(k, v)))


def _run(problem, **kw):
    layers = []
    found = programme.solve_dp(problem, layer_sink=lambda t, k, v: layers.append(
        (t, k.copy(), v.copy())), **kw)
    return found, layers


def _same_runs(problem, monkeypatch, **kw):
    ours, our_layers = _run(problem, **kw)
    with monkeypatch.context() as m:
        _numba_kernels(m)
        theirs, their_layers = _run(problem, **kw)
    assert (ours.best, ours.finished, ours.peak_states, ours.grid, ours.partial) == \
        (theirs.best, theirs.finished, theirs.peak_states, theirs.grid, theirs.partial)
    assert len(our_layers) == len(their_layers)
    for (t, k, v), (t2, k2, v2) in zip(our_layers, their_layers):
        assert t == t2 and np.array_equal(k, k2) and np.array_equal(v, v2), t
    return ours


def _custom(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent("""\
        kind: towers
        name: custom
        rows: 4
        cols: 5
        allow_empty: true
        colours:
          - {name: Stone, letter: S, points: 1}
          - {name: Tower, letter: T, points: 9, needs: [Stone]}
          - {name: Castle, letter: C, points: 30, needs: [Tower, Stone, Moat]}
          - {name: Moat, letter: M, points: -2}
        fixed: ["??.??", "?C???", "?????", "????S"]
        """))
    return towers_problem(load_spec(path))


@pytest.mark.parametrize("size", [(1, 8), (3, 4), (4, 3), (5, 5), (6, 6), (2, 8), (4, 7)])
def test_the_programme_is_the_numba_programme(size, monkeypatch):
    problem = towers_problem(load_spec(SPECS / "towers.yaml"), *size)
    best = _same_runs(problem, monkeypatch, board=True).best
    for incumbent in (best - 10, best, best + 5):
        _same_runs(problem, monkeypatch, incumbent=incumbent)


def test_the_programme_with_built_cells_helpers_and_prices(tmp_path, monkeypatch):
    _same_runs(_custom(tmp_path), monkeypatch, board=True)
    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 4, 3)
    rng = np.random.default_rng(5)
    prices = rng.integers(-60, 60, size=(4, 3, 5))
    _same_runs(problem, monkeypatch, board=True, helpers=frozenset([0]), cell_points=prices)
    corner = rng.integers(-60, 60, size=(4, 3, 6, 6, 5))
    _same_runs(problem, monkeypatch, board=True, helpers=frozenset([3]), cell_points=corner)
    _same_runs(towers_problem(load_spec(SPECS / "towers.yaml"), 3, 5), monkeypatch,
               board=True, cell_points=rng.integers(-60, 60, size=(3, 5, 6, 6, 5)))


def _layer(rng, n, bits, cols, n_codes):
    """Random distinct frontier states: per column a colour code (``none`` included) and a
    mask of colours still needed."""
    colour_bits = bits - n_codes
    keys = np.zeros(n, np.uint64)
    for j in range(cols):
        cell = (rng.integers(0, 1 << colour_bits, size=n)
                | (rng.integers(0, 1 << n_codes, size=n) << colour_bits))
        keys |= cell.astype(np.uint64) << np.uint64(bits * j)
    keys = np.unique(keys)
    rng.shuffle(keys)
    return keys, rng.integers(-100, 100, size=keys.size).astype(np.int64)


@pytest.mark.parametrize("seed", range(6))
def test_a_step_grows_its_table_as_the_numba_step_does(seed):
    """Tables far too small for the layer grow many times mid-step: the states, their
    order and the count are the numba step's, as are the trace backs from them."""
    rng = np.random.default_rng(seed)
    bits, none, n_codes, cols, rows = 9, 7, 6, 4, 5
    keys, vals = _layer(rng, 3000, bits, cols, n_codes)
    needs = rng.integers(0, 1 << n_codes, size=n_codes).astype(np.int64)
    table = rng.integers(-5, 9, size=(none + 1, none + 1, n_codes)).astype(np.int64)
    for i, j in ((0, 0), (2, 1), (rows - 1, cols - 1), (1, cols - 1)):
        allowed = int(rng.integers(1, 1 << n_codes))
        floor = int(rng.integers(-50, 50))
        got = programme._step(keys, vals, i, j, rows, cols, table, needs, allowed, bits,
                              none, floor, np.empty(16, np.uint64), np.empty(16, np.int64))
        want = programme._numba_step(keys, vals, i, j, rows, cols, table, needs, allowed,
                                     bits, none, floor, np.empty(16, np.uint64),
                                     np.empty(16, np.int64))
        assert got[2] == want[2] and got[0].shape == want[0].shape
        assert np.array_equal(got[0], want[0])
        full = got[0] != np.uint64(0xFFFFFFFFFFFFFFFF)
        assert np.array_equal(got[1][full], want[1][full])
        assert programme._best(*got[:2]) == programme._numba_best(*want[:2])
        for s in rng.choice(np.flatnonzero(full), size=min(20, int(full.sum())),
                            replace=False) if full.any() else []:
            args = (keys, vals, got[0][s], int(got[1][s]), i, j, rows, cols, table, needs,
                    allowed, bits, none)
            assert programme._predecessor(*args) == tuple(programme._numba_predecessor(*args))
    empty = np.full(8, np.uint64(0xFFFFFFFFFFFFFFFF))
    assert programme._best(empty, np.zeros(8, np.int64)) == programme._numba_best(
        empty, np.zeros(8, np.int64))


def test_the_kernels_refuse_arrays_they_cannot_read():
    from cpmodels import _native

    keys, vals = np.full(4, np.uint64(0)), np.zeros(4, np.int64)
    shape = np.array([0, 0, 2, 2, 9, 7], np.int64)
    table, needs = np.zeros((8, 8, 6), np.int64), np.zeros(6, np.int64)
    new = (np.empty(16, np.uint64), np.empty(16, np.int64))
    bad = [dict(vals=np.zeros(3, np.int64)), dict(table=np.zeros((7, 8, 6), np.int64)),
           dict(needs=np.zeros(5, np.int64)), dict(shape=np.array([0, 0, 2, 2, 9], np.int64)),
           dict(shape=np.array([0, 0, 2, 2, 9, 3], np.int64)),
           dict(shape=np.array([0, 7, 2, 2, 9, 7], np.int64)),
           dict(new_keys=np.empty(12, np.uint64), new_vals=np.empty(12, np.int64)),
           dict(new_vals=np.empty(16, np.int32))]
    for change in bad:
        args = dict(keys=keys, vals=vals, shape=shape, table=table, needs=needs, allowed=1,
                    floor=0, new_keys=new[0], new_vals=new[1], used=0, at=0) | change
        with pytest.raises((ValueError, TypeError)):
            _native.towers_step(**args)


def _cover(name, **query):
    from cpmodels.instance import packing_instance
    from cpmodels.query import Query

    return packing_instance(Query.of(load_spec(SPECS / name), **query)).cover


COVERS = [("calendar_day.yaml", dict(date="2026-01-25")),
          ("calendar_week.yaml", dict(date="2024-06-07")),
          ("pentominoes_6x10.yaml", {}), ("pentominoes_8x8_centre.yaml", {})]


@pytest.mark.parametrize("name, query", COVERS, ids=[c[0] for c in COVERS])
def test_the_split_step_is_the_numba_split_step(name, query):
    cover = _cover(name, **query)
    inc = cnf._Incidence(cover)
    n = inc.n_options
    rng = np.random.default_rng(len(name))
    for trial in range(300):
        chosen = rng.choice(n, size=int(rng.integers(0, 12)), replace=False)
        ruled_out = rng.choice(n, size=int(rng.integers(0, n)), replace=False)
        lits = np.concatenate([chosen + 1, -(ruled_out + 1),
                               rng.integers(n + 1, n + 50, size=3)]).astype(np.int64)
        rng.shuffle(lits)
        ours, theirs = np.zeros(n, np.int64), np.zeros(n, np.int64)
        got = inc.step(lits, ours)
        want = cnf._numba_next_step(lits, n, inc.opt_start, inc.opt_items, inc.item_start,
                                    inc.item_opts, inc.low, theirs)
        assert got == tuple(int(x) for x in want), trial
        assert np.array_equal(ours[:got[2]], theirs[:got[2]])


def test_enumeration_is_unchanged():
    cover = _cover("calendar_day.yaml", date="2026-01-25")
    assert sum(1 for _ in cnf.iter_solutions(cover)) == cnf.count(cover)


def _numba_verdict(clauses, proof, monkeypatch):
    from cpmodels import drup

    with monkeypatch.context() as m:
        m.setattr(drup, "_check", drup._numba_check)
        return drup.check_drup(clauses, proof)


def _proofs():
    """Refutations of random 3-SAT formulas over a few variables, from Glucose."""
    from pysat.solvers import Solver

    rng = np.random.default_rng(11)
    found = []
    while len(found) < 25:
        n_vars = int(rng.integers(6, 30))
        clauses = [[int(v) * (1 if rng.random() < 0.5 else -1)
                    for v in rng.choice(np.arange(1, n_vars + 1), size=3, replace=False)]
                   for _ in range(int(n_vars * 6))]
        with Solver(name="glucose4", bootstrap_with=clauses, with_proof=True) as sat:
            if not sat.solve():
                found.append((clauses, list(sat.get_proof())))
    return found


def test_the_checker_is_the_numba_checker(monkeypatch):
    rng = np.random.default_rng(2)
    for clauses, proof in _proofs():
        variants = [proof, proof[:-1], proof[::-1], proof + proof, proof[1:],
                    ["d " + line for line in proof[:len(proof) // 2]] + proof]
        for _ in range(6):  # lemmas dropped, deletions moved, lemmas weakened
            changed = list(proof)
            k = int(rng.integers(0, len(changed)))
            if rng.random() < 0.5:
                del changed[k]
            else:
                changed.insert(k, "d " + " ".join(map(str, clauses[k % len(clauses)]))
                               + " 0")
            variants.append(changed)
        for variant in variants:
            ours = check_drup(clauses, variant)
            assert ours == _numba_verdict(clauses, variant, monkeypatch)


def test_the_native_kernels_run_in_several_threads_at_once():
    """Four threads each run the programme, the checker and the split step: the answers are
    what one thread alone gets."""
    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 5, 6)
    clauses, proof = _proofs()[0]
    cover = _cover("pentominoes_6x10.yaml")

    def work():
        found = programme.solve_dp(problem, board=True)
        inc = cnf._Incidence(cover)
        lits = np.array([1, -2, 3], np.int64)
        return (found.best, found.grid, check_drup(clauses, proof),
                inc.step(lits, np.zeros(inc.n_options, np.int64)))

    alone = work()
    answers = [None] * 4

    def run(k):
        answers[k] = work()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [alone] * 4
