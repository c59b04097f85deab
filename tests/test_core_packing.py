"""The compiled core's packing searches (the two-word and the N-word state) node for node
against the numba kernels they replace: every count, tally vector, verdict, solution and
statistic, and the table they leave behind."""

from __future__ import annotations

import random
import threading
import time

import numpy as np
import pytest
from conftest import SPECS

from cpmodels.backends import engine
from cpmodels.backends.engine import kernels, words
from cpmodels.backends.engine.memo import STOP, Memo
from cpmodels.backends.engine.regions import region_sizes
from cpmodels.cover import ExactCover, Item, PieceKind, packing_cover
from cpmodels.geometry import orientations, parse_drawing
from cpmodels.spec import load_spec
from cpmodels.sweep import TallyPlan

DOMINO = tuple(orientations(parse_drawing(["##"])))
TROMINO_I = tuple(orientations(parse_drawing(["###"])))
TROMINO_L = tuple(orientations(parse_drawing(["##", "#."])))


def _strip(n_cells: int) -> ExactCover:
    """A strip of ``n_cells`` cells (rows of two, the last one part full) packed with
    dominoes in copies (a counter) and, for an odd count, one straight tromino (a piece
    bit): a word's edge where wanted, and a tree the table keeps small."""
    cells = [(r, c) for r in range(n_cells // 2 + 1) for c in range(2)][:n_cells]
    pieces = [PieceKind("D", DOMINO, (n_cells - 3 * (n_cells % 2)) // 2)]
    if n_cells % 2:
        pieces.append(PieceKind("I", TROMINO_I, 1))
    return packing_cover(cells, pieces)


def _session(cover: ExactCover, tally_items=(), **kw) -> engine.EngineSession:
    return engine.EngineSession(cover, tally_items=list(tally_items), one_word=False, **kw)


def _tasks(cover: ExactCover, n: int, seed: int, most: int = 3) -> list[tuple[int, ...]]:
    """Random prefixes: options that may overlap (then no completion), and the empty one."""
    rng = random.Random(seed)
    return [()] + [tuple(rng.sample(range(len(cover.options)), rng.randint(1, most)))
                   for _ in range(n)]


def _array(tasks) -> np.ndarray:
    arr = np.full((len(tasks), max([len(t) for t in tasks] + [1])), -1, dtype=np.int64)
    for r, t in enumerate(tasks):
        arr[r, :len(t)] = t
    return arr


def _table(memo: Memo) -> tuple:
    return (memo.keys.copy(), memo.values.copy(), memo.arena.copy(), memo.stats.copy())


def _same(a: tuple, b: tuple) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


def _tally_both(session: engine.EngineSession, tasks, *, general: bool, slots: int = 1 << 12,
                arena: int | None = None, regions=None) -> tuple:
    """Tally ``tasks`` with the numba kernel and the core on fresh tables; assert every
    output, statistic and table entry equal, and return the core's outputs."""
    arr = _array(tasks)
    tal = session._tally_layout().kernel
    n_words = session.compiled.n_words
    if general:
        pair = (kernels._tally_prefixes_numba, kernels.tally_prefixes_kernel)
        lay, width = session._kernel_layout(regions), n_words
    else:
        pair = (words._tally_prefixes_numba, words.tally_prefixes_words)
        lay, width = session._word_layout(regions), words.table_words(n_words)
        assert lay is not None
    seen = []
    for kernel in pair:
        memo = Memo(width, slots, arena)
        out = np.full((len(tasks), int(tal.length[-1])), 7, dtype=np.int64)
        masks = np.full(len(tasks), 7, dtype=np.int64)
        kernel(arr, lay, tal, memo.kernel, out, masks)
        seen.append((out, masks, *_table(memo)))
    _same(*seen)
    return seen[1]


def _exists_both(session: engine.EngineSession, tasks, *, general: bool, use_table: bool,
                 first_failure: bool, slots: int = 1 << 10) -> np.ndarray:
    arr = _array(tasks)
    n_words = session.compiled.n_words
    if general:
        pair = (kernels._exists_numba, kernels.exists_kernel)
        lay, width = session._kernel_layout(None), n_words
    else:
        pair = (words._exists_numba, words.exists_words)
        lay, width = session._word_layout(None), words.table_words(n_words)
    seen = []
    for kernel in pair:
        memo = Memo(width, slots)
        out = np.full(len(tasks), -1, dtype=np.int64)
        for _ in range(2):  # the second call starts from the dead states the first kept
            kernel(arr, lay, memo.kernel, use_table, out, first_failure,
                   memo.stats[STOP:STOP + 1])
        seen.append((out, *_table(memo)))
    _same(*seen)
    return seen[1][0]


def _both_ways(session, tasks, **kw) -> np.ndarray:
    """Tallied by the N-word and (when it fits) the two-word state: the same counts."""
    general = _tally_both(session, tasks, general=True, **kw)
    if session._word_layout(None) is not None:
        two = _tally_both(session, tasks, general=False, **kw)
        np.testing.assert_array_equal(general[0], two[0])
    return general[0]


def test_calendar_day_tallies_and_counts():
    spec = load_spec(SPECS / "calendar_day.yaml")
    plan = TallyPlan.of(spec)
    tasks = [plan.holes(t) for t in plan.tasks()[::3]] + [plan.holes(("Oct", "6"))]
    session = _session(plan.cover, plan.tally_items)
    out = _both_ways(session, tasks, arena=1 << 14)
    assert out.sum() > 0
    plain = _session(plan.cover)
    _both_ways(plain, tasks)
    _both_ways(plain, tasks, slots=16)  # a table so small it is flushed again and again


def test_calendar_week_tallies_with_flushes():
    spec = load_spec(SPECS / "calendar_week.yaml")
    plan = TallyPlan.of(spec)
    tasks = [plan.holes(t) for t in [("Jun", "7"), ("Apr", "6"), ("Feb", "29")]]
    session = _session(plan.cover, plan.tally_items)
    for slots, arena in [(1 << 14, 1 << 16), (1 << 8, 1 << 10), (1 << 6, 8)]:
        _both_ways(session, tasks, slots=slots, arena=arena)


@pytest.mark.parametrize("name", ["pentominoes_6x10", "pentominoes_8x8_square"])
def test_pentomino_boxes(name):
    from cpmodels.instance import packing_instance
    from cpmodels.query import Query

    cover = packing_instance(Query.of(load_spec(SPECS / f"{name}.yaml"))).cover
    session = _session(cover)
    first = [t for b in session.branches()[:2] for t in session.split(b)[:3]]
    out = _both_ways(session, first, slots=1 << 16)
    assert out.sum() > 0
    _exists_both(session, first + _tasks(cover, 20, 1), general=True, use_table=True,
                 first_failure=False)
    _exists_both(session, first + _tasks(cover, 20, 1), general=False, use_table=True,
                 first_failure=True)


@pytest.mark.parametrize("n_cells", [20, 63, 64, 65, 127, 128, 129])
def test_boards_at_the_edges_of_a_word(n_cells):
    """Counters (pieces in copies) and the bits at each word's edge; the two-word state
    up to 128 bits, the N-word state at every size."""
    cover = _strip(n_cells)
    session = _session(cover)
    tasks = [()] if n_cells < 100 else session.branches()
    assert _both_ways(session, tasks, slots=1 << 12).sum() > 0
    solution = session.first_solution()
    assert solution is not None
    rng = random.Random(n_cells)
    # Parts of a solution (found at once), and options that overlap (refused at once);
    # random prefixes only with the table of dead states (without it, an unsolvable one
    # could take a search of the whole tree).
    found = [tuple(rng.sample(solution, k)) for k in (1, 3, 5)]
    clash = [(o, o) for o in solution[:2]]  # an option with itself
    for general in (True, False):
        if not general and session._word_layout(None) is None:
            continue
        for first_failure in (True, False):
            _exists_both(session, found + clash, general=general,
                         use_table=False, first_failure=first_failure)
            _exists_both(session, _tasks(cover, 12, n_cells), general=general,
                         use_table=True, first_failure=first_failure)


@pytest.mark.parametrize("seed", range(6))
def test_random_boards_prefixes_and_regions(seed):
    rng = random.Random(seed)
    cells = [(r, c) for r in range(6) for c in range(7) if rng.random() < 0.8]
    cells = cells[:len(cells) - len(cells) % 3]
    cover = packing_cover(cells, [PieceKind("I", TROMINO_I, len(cells) // 6),
                                  PieceKind("L", TROMINO_L, len(cells) // 3 - len(cells) // 6)])
    cover.items.append(Item("x", 0, 1))  # an item covered at most once
    for j in range(0, len(cover.options), 5):
        cover.options[j] = (*cover.options[j], len(cover.items) - 1)
    tally: list[int] = []  # up to three cells no option covers two of
    for i in rng.sample(range(len(cells)), len(cells)):
        if len(tally) < 3 and not any(i in o and any(t in o for t in tally)
                                      for o in cover.options):
            tally.append(i)
    session = _session(cover, tally)
    tasks = _tasks(cover, 15, seed, most=2)
    _both_ways(session, tasks, slots=1 << 6, arena=1 << 8)
    _both_ways(session, tasks, regions=region_sizes([3, 3, 3], len(cells)))
    for general in (True, False):
        _exists_both(session, tasks, general=general, use_table=True, first_failure=False,
                     slots=16)


def _stream(kernel, session, forced, steps) -> list:
    """The solution stream's every call: its outputs and the arrays it keeps."""
    cc = session.compiled
    filled = np.zeros(cc.n_words, dtype=np.uint64)
    counters = np.zeros(len(cc.counter_low), dtype=np.int64)
    for o in forced:
        filled |= cc.opt_mask[o]
        if cc.opt_counter[o] >= 0:
            counters[cc.opt_counter[o]] += 1
    depth = cc.n_branch + 1
    chosen, stack_pos, stack_k = (np.zeros(depth, dtype=np.int64) for _ in range(3))
    out = np.zeros((max(steps), depth), dtype=np.int64)
    state = np.array([-1, 0], dtype=np.int64)
    stop = np.zeros(1, dtype=np.int64)
    calls = []
    for step in steps:
        kernel(state, filled, counters, chosen, stack_pos, stack_k, cc.kernel, out, step, stop)
        calls.append([a.copy() for a in (state, filled, counters, chosen, stack_pos, stack_k,
                                         out[:int(state[1])])])
        if state[0] == -2:
            break
    return calls


@pytest.mark.parametrize("n_cells", [24, 65, 129])
def test_the_solution_stream(n_cells):
    session = _session(_strip(n_cells))
    steps = [1, 2, 4, 8, 100, 1000, 1000]
    for forced in [(), session.branches()[0]]:
        numba = _stream(kernels._search_numba, session, forced, steps)
        core = _stream(kernels.search_kernel, session, forced, steps)
        assert len(numba) == len(core)
        for a, b in zip(numba, core, strict=True):
            _same(tuple(a), tuple(b))


def test_a_stop_set_before_leaves_everything_as_it_was():
    spec = load_spec(SPECS / "calendar_week.yaml")
    plan = TallyPlan.of(spec)
    session = _session(plan.cover, plan.tally_items)
    tasks = [plan.holes(("Jun", "7"))]
    tal = session._tally_layout().kernel
    for kernel, lay, width in [
            (kernels.tally_prefixes_kernel, session._kernel_layout(None), 2),
            (words.tally_prefixes_words, session._word_layout(None), 3)]:
        memo = Memo(width, 1 << 10)
        memo.stop()
        out = np.full((1, int(tal.length[-1])), 5, dtype=np.int64)
        masks = np.full(1, 5, dtype=np.int64)
        kernel(_array(tasks), lay, tal, memo.kernel, out, masks)
        assert (out == 5).all() and masks[0] == 5
        assert memo.stats.tolist() == [0, 0, 0, 0, 0, 1, 0]


def test_a_stop_mid_search_returns_and_keeps_only_finished_states():
    """A count stopped from another thread returns at once; what its table kept is true:
    the count asked again on that table equals the count on a fresh one."""
    cover = _strip(129)
    session = _session(cover)
    lay = session._kernel_layout(None)
    tal = session._tally_layout().kernel
    arr = _array([()])
    memo = Memo(session.compiled.n_words, 1 << 12)
    out = np.zeros((1, 1), dtype=np.int64)
    masks = np.zeros(1, dtype=np.int64)
    runner = threading.Thread(target=kernels.tally_prefixes_kernel,
                              args=(arr, lay, tal, memo.kernel, out, masks))
    memo.stop()
    runner.start()
    runner.join(5)
    assert not runner.is_alive()
    memo.clear_stop()
    kernels.tally_prefixes_kernel(arr, lay, tal, memo.kernel, out, masks)
    fresh = Memo(session.compiled.n_words, 1 << 12)
    again = np.zeros((1, 1), dtype=np.int64)
    kernels.tally_prefixes_kernel(arr, lay, tal, fresh.kernel, again, masks)
    assert out[0, 0] == again[0, 0]


def test_threads_count_at_once():
    """The core releases the GIL: four threads tallying at once, each on its own table,
    give what one gives alone."""
    spec = load_spec(SPECS / "calendar_week.yaml")
    plan = TallyPlan.of(spec)
    session = _session(plan.cover, plan.tally_items)
    tasks = _array([plan.holes(t) for t in [("Jun", "7"), ("Apr", "6")]])
    tal = session._tally_layout().kernel
    lay = session._word_layout(None)

    def tally(out):
        memo = Memo(3, 1 << 14, 1 << 16)
        words.tally_prefixes_words(tasks, lay, tal, memo.kernel, out,
                                   np.zeros(len(tasks), dtype=np.int64))

    alone = np.zeros((len(tasks), int(tal.length[-1])), dtype=np.int64)
    start = time.perf_counter()
    tally(alone)
    outs = [np.zeros_like(alone) for _ in range(4)]
    threads = [threading.Thread(target=tally, args=(o,)) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert time.perf_counter() - start < 120
    for o in outs:
        np.testing.assert_array_equal(o, alone)


def test_bad_arrays_are_refused():
    cover = _strip(20)
    session = _session(cover)
    tal = session._tally_layout().kernel
    memo = Memo(1, 16)
    out = np.zeros((1, 1), dtype=np.int64)
    with pytest.raises(ValueError, match="out of range"):
        kernels.tally_prefixes_kernel(_array([(len(cover.options),)]), session._kernel_layout(
            None), tal, memo.kernel, out, np.zeros(1, dtype=np.int64))
    with pytest.raises(ValueError, match="one per prefix"):
        kernels.tally_prefixes_kernel(_array([()]), session._kernel_layout(None), tal,
                                      memo.kernel, out, np.zeros(2, dtype=np.int64))
    with pytest.raises(TypeError, match="opt_counter"):
        kernels.tally_prefixes_kernel(_array([()]), session._kernel_layout(None)._replace(
            opt_counter=np.zeros(3, dtype=np.float64)), tal, memo.kernel, out,
            np.zeros(1, dtype=np.int64))
