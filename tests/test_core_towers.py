"""The towers programme, the DRUP checker and the CNF split step, which run in the compiled
core: against plain Python references of the same kernels (every state, its order in the
table, every verdict and split), the numba kernels' recorded figures, and several threads."""

from __future__ import annotations

import ast
import hashlib
import textwrap
import threading

import numpy as np
import pytest
from conftest import ROOT, SPECS

from cpmodels import _native
from cpmodels.backends import cnf
from cpmodels.drup import check_drup
from cpmodels.spec import load_spec
from cpmodels.towers import programme
from cpmodels.towers.problem import towers_problem

EMPTY = (1 << 64) - 1


# The programme, in plain Python: a table of keys (EMPTY: free) and best scores.

def _slot(key, mask):
    h = key ^ (key >> 33)
    h = (h * 0xFF51AFD7ED558CCD) & EMPTY
    return (h ^ (h >> 33)) & mask


def _insert(keys, vals, key, val):
    s = _slot(key, len(keys) - 1)
    while keys[s] != EMPTY and keys[s] != key:
        s = (s + 1) % len(keys)
    if keys[s] == EMPTY:
        keys[s], vals[s] = key, val
        return 1
    vals[s] = max(vals[s], val)
    return 0


def _after(key, k, i, j, rows, cols, needs, bits, none):
    """The colour codes above and left of (i, j), and the state after colour ``k`` there
    (None when a cell is left needing more colours than it has neighbours to come)."""
    colour_bits = bits - len(needs)
    cell, colours = (1 << bits) - 1, (1 << colour_bits) - 1
    up = (key >> (bits * j)) & cell
    up_colour, up_missing = up & colours, up >> colour_bits
    left_colour, left_missing = none, 0
    if j > 0:
        left = (key >> (bits * (j - 1))) & cell
        left_colour, left_missing = left & colours, left >> colour_bits
    below = 1 if i < rows - 1 else 0
    new = key
    if up_colour != none and up_missing & ~(1 << k):
        new = None
    elif j > 0:
        still = left_missing & ~(1 << k)
        shift = bits * (j - 1)
        new = None if bin(still).count("1") > below else \
            (new & ~(cell << shift)) | ((left_colour | (still << colour_bits)) << shift)
    if new is not None:
        missing = needs[k]
        for colour in (up_colour, left_colour):
            if colour != none:
                missing &= ~(1 << colour)
        if bin(missing).count("1") > (1 if j < cols - 1 else 0) + below:
            new = None
        else:
            new = (new & ~(cell << (bits * j))) | ((k | (missing << colour_bits)) << (bits * j))
    return up_colour, left_colour, new


def _reference_step(keys, vals, i, j, rows, cols, table, needs, allowed, bits, none, floor,
                    new_keys, new_vals):
    """The step as the numba kernel wrote it: a table twice as big each time it is half
    full, the states moved into it in slot order."""
    table, needs = table.tolist(), needs.tolist()
    out_keys, out_vals, used = [EMPTY] * len(new_keys), [0] * len(new_keys), 0
    for key, val in zip(keys.tolist(), vals.tolist()):
        if key == EMPTY:
            continue
        for k in range(len(needs)):
            up, left, new = _after(key, k, i, j, rows, cols, needs, bits, none)
            score = val + table[up][left][k]
            if not (allowed >> k) & 1 or score < floor or new is None:
                continue
            used += _insert(out_keys, out_vals, new, score)
            if used * 2 > len(out_keys):
                grown_keys, grown_vals = [EMPTY] * (2 * len(out_keys)), [0] * (2 * len(out_keys))
                for q, at in enumerate(out_keys):
                    if at != EMPTY:
                        _insert(grown_keys, grown_vals, at, out_vals[q])
                out_keys, out_vals = grown_keys, grown_vals
    return np.array(out_keys, np.uint64), np.array(out_vals, np.int64), used


def _reference_predecessor(keys, vals, target, value, i, j, rows, cols, table, needs, allowed,
                           bits, none):
    needs = needs.tolist()
    for s, key in enumerate(keys.tolist()):
        for k in range(len(needs)):
            up, left, new = _after(key, k, i, j, rows, cols, needs, bits, none)
            if (allowed >> k) & 1 and vals[s] + table[up, left, k] == value and new == target:
                return s, k
    return -1, -1


def _reference_best(keys, vals):
    full = keys != np.uint64(EMPTY)
    return int(vals[full].max()) if full.any() else -(1 << 62)


def _run(problem, **kw):
    layers = []
    found = programme.solve_dp(problem, layer_sink=lambda t, k, v: layers.append(
        (t, k.copy(), v.copy())), **kw)
    return found, layers


def _same_as_reference(problem, monkeypatch, **kw):
    ours, our_layers = _run(problem, **kw)
    with monkeypatch.context() as m:
        m.setattr(programme, "_step", _reference_step)
        m.setattr(programme, "_predecessor", _reference_predecessor)
        m.setattr(programme, "_best", _reference_best)
        theirs, their_layers = _run(problem, **kw)
    assert (ours.best, ours.finished, ours.peak_states, ours.grid, ours.partial) == \
        (theirs.best, theirs.finished, theirs.peak_states, theirs.grid, theirs.partial)
    assert len(our_layers) == len(their_layers)
    for (t, k, v), (t2, k2, v2) in zip(our_layers, their_layers):
        assert t == t2 and np.array_equal(k, k2) and np.array_equal(v, v2), t


def _custom(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent("""\
        kind: towers
        name: custom
        rows: 4
        cols: 3
        allow_empty: true
        colours:
          - {name: Stone, letter: S, points: 1}
          - {name: Tower, letter: T, points: 9, needs: [Stone]}
          - {name: Castle, letter: C, points: 30, needs: [Tower, Stone, Moat]}
          - {name: Moat, letter: M, points: -2}
        fixed: ["?.?", "?C?", "???", "??S"]
        """))
    return towers_problem(load_spec(path))


def test_the_programme_is_its_plain_python_reference(tmp_path, monkeypatch):
    """Every layer (states in table order, scores), the board traced back, with built
    cells, free rows and prices per cell and per neighbours, read along rows and down
    columns."""
    spec = load_spec(SPECS / "towers.yaml")
    _same_as_reference(_custom(tmp_path), monkeypatch, board=True)
    _same_as_reference(towers_problem(spec, 4, 4), monkeypatch, incumbent=430)
    rng = np.random.default_rng(5)
    problem = towers_problem(spec, 4, 3)
    _same_as_reference(problem, monkeypatch, board=True, helpers=frozenset([0]),
                       cell_points=rng.integers(-60, 60, size=(4, 3, 5)))
    _same_as_reference(problem, monkeypatch, board=True, helpers=frozenset([3]),
                       cell_points=rng.integers(-60, 60, size=(4, 3, 6, 6, 5)))


# (size, arguments): best, peak states, board or cells traced, a digest of every layer;
# recorded from the numba kernels.
RECORDED = [
    ((6, 6), dict(board=True), 1130, 217359,
     ["BGRGBG", "RWBYWR", "GYBRGB", "BRGYWB", "GYWBRG", "RBRYGB"], "4bde95fa4e4e1974"),
    ((6, 6), dict(incumbent=1100), 1130, 191924,
     ["......", "......", "......", "YBWRYG", "GRYGWB", "BGBBRG"], "52fe538d8714f1af"),
    ((4, 7), dict(board=True), 850, 3761, ["BRGRBBG", "GWBYGYR", "RYBWRWB", "BGRGBGR"],
     "828507609c43bb19"),
    ((7, 4), dict(incumbent=1000), None, 3352, None, "c4d9fc59323921cc"),
    ((2, 8), dict(board=True), 370, 56, ["BGYRBGYR", "GRBYGRBB"], "115342f06c29f7d3"),
]


@pytest.mark.parametrize("size, kw, best, peak, board, digest", RECORDED)
def test_the_programme_keeps_the_numba_figures(size, kw, best, peak, board, digest):
    problem = towers_problem(load_spec(SPECS / "towers.yaml"), *size)
    layers = hashlib.sha256()

    def sink(t, keys, values):
        layers.update(keys.tobytes())
        layers.update(values.tobytes())

    found = programme.solve_dp(problem, layer_sink=sink, **kw)
    assert (found.best, found.finished, found.peak_states) == (best, True, peak)
    assert layers.hexdigest()[:16] == digest
    if found.partial:
        rows = [["."] * size[1] for _ in range(size[0])]
        for (r, c), letter in found.partial.items():
            rows[r][c] = letter
        assert ["".join(row) for row in rows] == board
    else:
        assert found.grid == board


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


@pytest.mark.parametrize("seed", range(3))
def test_a_step_grows_its_table_as_the_reference_does(seed):
    """A table far too small for the layer grows many times mid-step: the states, their
    order and the count are the reference's, as are the trace backs from them."""
    rng = np.random.default_rng(seed)
    bits, none, n_codes, cols, rows = 9, 7, 6, 4, 5
    keys, vals = _layer(rng, 1500, bits, cols, n_codes)
    needs = rng.integers(0, 1 << n_codes, size=n_codes).astype(np.int64)
    table = rng.integers(-5, 9, size=(none + 1, none + 1, n_codes)).astype(np.int64)
    for i, j in ((0, 0), (2, 1), (rows - 1, cols - 1), (1, cols - 1)):
        allowed, floor = int(rng.integers(1, 1 << n_codes)), int(rng.integers(-50, 50))
        args = (keys, vals, i, j, rows, cols, table, needs, allowed, bits, none, floor,
                np.empty(16, np.uint64), np.empty(16, np.int64))
        got, want = programme._step(*args), _reference_step(*args)
        assert got[2] == want[2] and np.array_equal(got[0], want[0])
        full = got[0] != np.uint64(EMPTY)
        assert np.array_equal(got[1][full], want[1][full])
        assert programme._best(*got[:2]) == _reference_best(*want[:2])
        for s in rng.choice(np.flatnonzero(full), size=min(10, int(full.sum())),
                            replace=False) if full.any() else []:
            args = (keys, vals, got[0][s], int(got[1][s]), i, j, rows, cols, table, needs,
                    allowed, bits, none)
            assert programme._predecessor(*args) == _reference_predecessor(*args)
        assert programme._predecessor(keys, vals, np.uint64(12345), 7, i, j, rows, cols,
                                      table, needs, 0, bits, none) == (-1, -1)
    empty = np.full(8, np.uint64(EMPTY))
    assert programme._best(empty, np.zeros(8, np.int64)) == -(1 << 62)


def test_the_kernels_refuse_arrays_they_cannot_read():
    """Arrays of the wrong length, type or layout, and cells off the board, are refused
    before the core reads or writes past them."""
    keys, vals = np.full(4, np.uint64(0)), np.zeros(4, np.int64)
    shape = np.array([0, 0, 2, 2, 9, 7], np.int64)
    table, needs = np.zeros((8, 8, 6), np.int64), np.zeros(6, np.int64)
    new = (np.empty(16, np.uint64), np.empty(16, np.int64))
    bad = [dict(vals=np.zeros(3, np.int64)), dict(table=np.zeros((7, 8, 6), np.int64)),
           dict(needs=np.zeros(5, np.int64)), dict(shape=np.array([0, 0, 2, 2, 9], np.int64)),
           dict(shape=np.array([0, 0, 2, 2, 9, 3], np.int64)),
           dict(shape=np.array([0, 2, 2, 2, 9, 7], np.int64)),
           dict(shape=np.array([2, 0, 2, 2, 9, 7], np.int64)),
           dict(shape=np.array([0, 0, 2, 8, 9, 7], np.int64)),
           dict(new_keys=np.empty(12, np.uint64), new_vals=np.empty(12, np.int64)),
           dict(new_vals=np.empty(16, np.int32)), dict(new_keys=np.empty(32, np.uint64)[::2]),
           dict(used=9)]
    for change in bad:
        args = dict(keys=keys, vals=vals, shape=shape, table=table, needs=needs, allowed=1,
                    floor=0, new_keys=new[0], new_vals=new[1], used=0, at=0) | change
        with pytest.raises((ValueError, TypeError)):
            _native.towers_step(**args)
    with pytest.raises((ValueError, TypeError)):
        _native.towers_rehash(keys, vals, np.empty(4, np.uint64), np.empty(4, np.int64))
    inc = cnf._Incidence(_cover("calendar_day.yaml", date="2026-01-25"))
    parts = dict(opt_start=inc.opt_start, opt_items=inc.opt_items, item_start=inc.item_start,
                 item_opts=inc.item_opts, low=inc.low)
    past = inc.opt_items.copy()
    past[3] = inc.low.size
    back = inc.item_start.copy()
    back[2] = back[1] - 1
    for change in (dict(opt_items=past), dict(item_start=back), dict(low=inc.low[:-1]),
                   dict(item_opts=-inc.item_opts - 1), dict(opt_start=inc.opt_start[1:])):
        with pytest.raises(ValueError):
            _native.CnfIncidence(**(parts | change))
    with pytest.raises(ValueError):
        inc._native.step(np.array([1], np.int64), np.empty(inc.n_options - 1, np.int64))
    _drup_refusals()


def _drup_refusals():
    """The checker's arrays: a clause past the literals, a literal past the variables or 0,
    a step naming no clause, scratch of the wrong length."""
    def arrays(n_vars=2, **change):
        lits, start, length = [1, 2, -1, -2], [0, 2], [2, 2]
        made = dict(n_vars=n_vars, n_formula=2, lits=np.array(lits, np.int64),
                    start=np.array(start, np.int64), length=np.array(length, np.int64),
                    step_kind=np.array([1], np.int64), step_clause=np.array([0], np.int64),
                    units=np.zeros(3, np.int64), n_units_formula=0,
                    active=np.empty(2, np.uint8), head=np.empty(2 * n_vars, np.int64),
                    next=np.empty(4, np.int64), value=np.empty(n_vars, np.int8),
                    trail=np.empty(n_vars + 1, np.int64), top_level=np.empty(n_vars, np.int8))
        return made | change

    assert _native.drup_check(**arrays()) == 1  # no empty clause follows
    for change in (dict(lits=np.array([1, 2, -1, -3], np.int64)),
                   dict(lits=np.array([1, 2, -1, 0], np.int64)),
                   dict(length=np.array([2, 3], np.int64)),
                   dict(step_clause=np.array([2], np.int64)),
                   dict(step_kind=np.array([0], np.int64), step_clause=np.array([-1], np.int64)),
                   dict(step_kind=np.array([3], np.int64)),
                   dict(n_units_formula=1), dict(head=np.empty(3, np.int64)),
                   dict(units=np.zeros(0, np.int64), step_kind=np.array([0], np.int64),
                        start=np.array([0, 2, 1], np.int64),
                        length=np.array([2, 2, 1], np.int64), active=np.empty(3, np.uint8),
                        next=np.empty(6, np.int64), step_clause=np.array([2], np.int64)),
                   dict(value=np.empty(2, np.int64))):
        with pytest.raises((ValueError, TypeError)):
            _native.drup_check(**arrays(**change))


# The split step, in plain Python.

def _reference_split(lits, inc):
    n = inc.n_options
    taken = {int(x) - 1 for x in lits if 0 < x <= n}
    possible = set(range(n)) - {abs(int(x)) - 1 for x in lits if 0 < abs(x) <= n}
    short, room = inc.low.tolist(), [0] * inc.low.size
    for j in range(n):
        for item in inc.opt_items[inc.opt_start[j]:inc.opt_start[j + 1]]:
            if j in taken:
                short[item] -= 1
            elif j in possible:
                room[item] += 1
    wanting = [i for i in range(len(short)) if short[i] > 0]
    if any(room[i] < short[i] for i in wanting):
        return (cnf.DEAD, -1, 0), []
    if wanting:
        best = min(wanting, key=lambda i: (room[i], i))
        options = [int(j) for j in inc.item_opts[inc.item_start[best]:inc.item_start[best + 1]]
                   if j in possible]
        return (cnf.ITEM, best, len(options)), options
    if possible:
        return (cnf.OPTION, min(possible), 0), []
    return (cnf.SOLVED, -1, 0), []


def _cover(name, **query):
    from cpmodels.instance import packing_instance
    from cpmodels.query import Query

    return packing_instance(Query.of(load_spec(SPECS / name), **query)).cover


COVERS = [("calendar_day.yaml", dict(date="2026-01-25")),
          ("calendar_week.yaml", dict(date="2024-06-07")),
          ("pentominoes_6x10.yaml", {}), ("pentominoes_8x8_centre.yaml", {})]


@pytest.mark.parametrize("name, query", COVERS, ids=[c[0] for c in COVERS])
def test_the_split_step_is_its_plain_python_reference(name, query):
    """Random parts: options taken and ruled out (repeats, auxiliary variables past the
    options), from nothing decided to almost everything."""
    cover = _cover(name, **query)
    inc = cnf._Incidence(cover)
    n = inc.n_options
    rng = np.random.default_rng(len(name))
    kinds = set()
    for trial in range(150):
        chosen = rng.choice(n, size=int(rng.integers(0, 12)), replace=False)
        ruled_out = rng.choice(n, size=int(rng.integers(0, n)), replace=False)
        lits = np.concatenate([chosen + 1, -(ruled_out + 1), chosen[:2] + 1,
                               rng.integers(n + 1, n + 50, size=3)]).astype(np.int64)
        rng.shuffle(lits)
        out = np.full(n, -1, np.int64)
        got = inc.step(lits, out)
        want, options = _reference_split(lits, inc)
        assert got == want and out[:got[2]].tolist() == options, trial
        kinds.add(got[0])
    solved = inc.step(np.arange(1, n + 1, dtype=np.int64), np.zeros(n, np.int64))
    assert solved[0] in (cnf.SOLVED, cnf.DEAD) and cnf.DEAD in kinds and cnf.ITEM in kinds


# The DRUP checker, in plain Python: unit propagation over occurrence lists.

def _propagate(assigned, clauses, active, occurs):
    """Unit propagation from ``assigned`` (literals, changed in place); True on a conflict."""
    queue = list(assigned)
    for c, clause in enumerate(clauses):  # units
        if active[c] and len(clause) == 1:
            queue.append(clause[0])
    while queue:
        lit = queue.pop()
        if -lit in assigned:
            return True
        assigned.add(lit)
        for c in occurs.get(-lit, ()):
            if not active[c] or any(x in assigned for x in clauses[c]):
                continue
            open_ = [x for x in clauses[c] if -x not in assigned]
            if not open_:
                return True
            if len(open_) == 1:
                queue.append(open_[0])
    return False


def _reference_check(formula, proof):
    """The verdict's failing step (-1: the proof holds; len(steps): no empty clause), with
    the checker's rules: clauses by their sets of literals, copies counted, deletions of
    clauses true at the top level (as last worked out after a lemma) skipped."""
    clauses, index, copies = [], {}, []
    for clause in formula:
        key = tuple(sorted(set(clause)))
        if key not in index:
            index[key] = len(clauses)
            clauses.append(key)
            copies.append(0)
        copies[index[key]] += 1
    active = [True] * len(clauses)
    added = set(range(len(clauses)))  # clauses given or derived so far
    steps = []
    for line in proof:
        fields = line.split()
        deletion = fields[0] == "d"
        steps.append((deletion, tuple(sorted({int(x) for x in fields[deletion:-1]}))))
    for _, lemma in steps:
        if lemma not in index:
            index[lemma] = len(clauses)
            clauses.append(lemma)
            copies.append(0)
            active.append(False)
    occurs = {}
    for c, clause in enumerate(clauses):
        for x in clause:
            occurs.setdefault(x, []).append(c)
    top, stale = set(), True
    for s, (deletion, lemma) in enumerate(steps):
        c = index[lemma]
        if deletion:
            if copies[c] > 0:
                copies[c] -= 1
            if copies[c] > 0 or c not in added:
                continue
            if stale:
                top, stale = set(), False
                _propagate(top, clauses, active, occurs)
            if len(lemma) > 1 and not any(x in top for x in lemma):
                active[c] = False
            continue
        copies[c] += 1
        if c in added:
            active[c] = True
            continue
        added.add(c)
        if not (any(-x in lemma for x in lemma)
                or _propagate({-x for x in lemma}, clauses, active, occurs)):
            return s
        active[c], stale = True, True
        if not lemma:
            return -1
    return -1 if _propagate(set(), clauses, active, occurs) else len(steps)


def _proofs(count):
    """Refutations of random 3-SAT formulas, from Glucose."""
    from pysat.solvers import Solver

    rng = np.random.default_rng(11)
    found = []
    while len(found) < count:
        n_vars = int(rng.integers(6, 24))
        clauses = [[int(v) * (1 if rng.random() < 0.5 else -1)
                    for v in rng.choice(np.arange(1, n_vars + 1), size=3, replace=False)]
                   for _ in range(int(n_vars * 6))]
        with Solver(name="glucose4", bootstrap_with=clauses, with_proof=True) as sat:
            if not sat.solve():
                found.append((clauses, list(sat.get_proof())))
    return found


def test_the_checker_is_its_plain_python_reference():
    """Glucose's proofs and proofs spoilt every way: cut short, reversed, twice over, lemmas
    dropped, deletions of formula clauses slipped in."""
    rng = np.random.default_rng(2)
    verdicts = set()
    for clauses, proof in _proofs(12):
        variants = [proof, proof[:-1], proof[::-1], proof + proof, proof[1:],
                    ["d " + line for line in proof[:len(proof) // 2]] + proof]
        for _ in range(5):
            changed = list(proof)
            k = int(rng.integers(0, len(changed)))
            if rng.random() < 0.5:
                del changed[k]
            else:
                changed.insert(k, "d " + " ".join(map(str, clauses[k % len(clauses)]))
                               + " 0")
            variants.append(changed)
        for variant in variants:
            failed = _reference_check(clauses, variant)
            ours = check_drup(clauses, variant)
            assert ours.ok == (failed == -1), variant
            if failed >= 0:
                where = ("does not reach the empty clause" if failed == len(variant)
                         else f"step {failed + 1}:")
                assert where in ours.message
            verdicts.add(failed == -1)
    assert verdicts == {True, False}


def test_the_native_kernels_run_in_several_threads_at_once():
    """Four threads each run the programme, the checker and the split step: the answers are
    what one thread alone gets."""
    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 5, 6)
    clauses, proof = _proofs(1)[0]
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


def test_the_programme_checker_and_split_step_need_no_numba():
    """Their modules, and the build-order test's brute force, import nothing of numba."""
    for path in ("cpmodels/towers/programme.py", "cpmodels/drup.py", "cpmodels/backends/cnf.py",
                 "tests/test_towers_when_built.py"):
        tree = ast.parse((ROOT / path).read_text())
        names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
        names |= {node.module or "" for node in ast.walk(tree)
                  if isinstance(node, ast.ImportFrom)}
        assert not {name for name in names if name.split(".")[0] == "numba"}, path
