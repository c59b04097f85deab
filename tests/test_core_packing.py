"""The compiled core's packing searches: the two-word and the N-word state node for node
against each other (every count, tally vector, verdict and statistic, and the table they
leave behind), against closed forms and the other backends, and against figures recorded
from the numba kernels they replaced (counts and statistics, the same inputs)."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest
from conftest import SPECS
from layout_oracle import forced_state

from cpmodels.backends import engine
from cpmodels.backends.engine.kernels import general as kernels
from cpmodels.backends.engine.kernels import words
from cpmodels.backends.engine.kernels.memo import Memo
from cpmodels.backends.engine.layouts.regions import region_sizes
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
    return tuple(np.array(a) for a in (memo.keys, memo.values, memo.arena, memo.stats))


def _same(a: tuple, b: tuple) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


def _tally(session: engine.EngineSession, tasks, *, general: bool, slots: int = 1 << 12,
           arena: int | None = None, regions=None) -> tuple:
    """Tally ``tasks`` on a fresh table: the counts, the masks, the table and its
    statistics."""
    arr = _array(tasks)
    tal = session.searches._tally_layout().kernel
    n_words = session.compiled.n_words
    if general:
        kernel, width = kernels.tally_prefixes_kernel, n_words
        lay = session.searches._kernel_layout(regions)
    else:
        kernel, lay = words.tally_prefixes_words, session.searches._word_layout(regions)
        width = words.table_words(n_words)
        assert lay is not None
    memo = Memo(width, slots, arena)
    out = np.zeros((len(tasks), int(tal.length[-1])), dtype=np.int64)
    masks = np.full(len(tasks), 7, dtype=np.int64)
    kernel(arr, lay, tal, memo.kernel, out, masks, memo.stop_flag)
    return (out, masks, *_table(memo))


def _exists(session: engine.EngineSession, tasks, *, general: bool, use_table: bool,
            first_failure: bool, slots: int = 1 << 10, calls: int = 2) -> tuple:
    """Each task's verdict, twice on one table (the second call starts from the dead
    states the first kept): the verdicts, the table and its statistics."""
    arr = _array(tasks)
    n_words = session.compiled.n_words
    if general:
        kernel, lay, width = kernels.exists_kernel, session.searches._kernel_layout(None), n_words
    else:
        kernel, lay = words.exists_words, session.searches._word_layout(None)
        width = words.table_words(n_words)
    memo = Memo(width, slots)
    out = np.full(len(tasks), -1, dtype=np.int64)
    for _ in range(calls):
        kernel(arr, lay, memo.kernel, use_table, out, first_failure, memo.stop_flag)
    return (out, *_table(memo))


def _both_ways(session, tasks, **kw) -> np.ndarray:
    """Tallied by the N-word and (when it fits) the two-word state: the same counts,
    statistics and table values; returns the counts."""
    general = _tally(session, tasks, general=True, **kw)
    if session.searches._word_layout(None) is not None:
        two = _tally(session, tasks, general=False, **kw)
        # The same counts, arena and statistics; each value in the same slot (the two-word
        # state keeps it in the key row, after the code).
        _same(general[:2] + general[4:], two[:2] + two[4:])
        width = session.compiled.n_words + 1
        np.testing.assert_array_equal(general[3], two[2][:, width].view(np.int64))
    return general[0]


def _exists_both(session, tasks, *, use_table: bool, first_failure: bool, counted: bool = True,
                 **kw) -> np.ndarray:
    """Decided by both states (when the two-word one fits): the same verdicts and
    statistics, and (``counted``) each verdict the same as the count's."""
    general = _exists(session, tasks, general=True, use_table=use_table,
                      first_failure=first_failure, **kw)
    if session.searches._word_layout(None) is not None:
        two = _exists(session, tasks, general=False, use_table=use_table,
                      first_failure=first_failure, **kw)
        np.testing.assert_array_equal(general[0], two[0])
        np.testing.assert_array_equal(general[-1], two[-1])
    decided = general[0] >= 0
    if not first_failure:
        assert decided.all()
    if not counted:
        return general[0]
    counts = _tally(session, tasks, general=True, slots=1 << 14)[0].sum(axis=1)
    np.testing.assert_array_equal(general[0][decided], (counts > 0)[decided])
    return general[0]


def test_calendar_day_tallies_counts_and_statistics():
    """calendar_day's sweep tasks by both states; three of them against the figures the
    numba kernels gave on the same inputs (counts, and the statistics of a table kept
    and of one so small it is flushed again and again)."""
    spec = load_spec(SPECS / "calendar_day.yaml")
    plan = TallyPlan.of(spec)
    session = _session(plan.cover, plan.tally_items)
    sweep = [plan.holes(t) for t in plan.tasks()[::3]]
    assert _both_ways(session, sweep, arena=1 << 14).sum() > 0
    tasks = [plan.holes(t) for t in [("Oct", "6"), ("Jan", "25"), ("Feb", "30")]]
    for slots, arena, stats in [(1 << 14, 1 << 16, [2009, 7308, 88025, 88025, 4031, 0, 7]),
                                (16, 8, [1, 84, 104948, 104948, 3, 0, 26536])]:
        out = _tally(session, tasks, general=False, slots=slots, arena=arena)
        assert out[0][:, 0].tolist() == [7, 216, 34]  # (every tally item forced)
        assert out[-1].tolist() == stats
        _both_ways(session, tasks, slots=slots, arena=arena)
    for general in (True, False):
        once = _exists(session, tasks, general=general, use_table=True, first_failure=False,
                       calls=1)
        assert once[0].tolist() == [1, 1, 1]
        assert once[-1].tolist() == [514, 111, 5146, 0, 0, 0, 6]


def test_calendar_week_tallies_with_flushes():
    spec = load_spec(SPECS / "calendar_week.yaml")
    plan = TallyPlan.of(spec)
    session = _session(plan.cover, plan.tally_items)
    tasks = [plan.holes(("Apr", "6"))]
    for slots, arena in [(1 << 14, 1 << 16), (1 << 6, 8)]:
        assert _both_ways(session, tasks, slots=slots, arena=arena).sum() == 1173


@pytest.mark.parametrize("name", ["pentominoes_6x10", "pentominoes_8x8_square"])
def test_pentomino_boxes(name):
    """Tasks two options deep: both states, and the one-word kernel's counts."""
    from cpmodels.instance import packing_instance
    from cpmodels.query import Query

    cover = packing_instance(Query.of(load_spec(SPECS / f"{name}.yaml"))).cover
    session = _session(cover)
    first = [t for b in session.branches()[:2] for t in session.split(b)[:3]]
    out = _both_ways(session, first, slots=1 << 16)
    one_word = engine.EngineSession(cover).tally_many(first)
    assert out[:, 0].tolist() == [sum(t.values()) for t in one_word]
    assert out.sum() > 0
    verdicts = _exists_both(session, first + _tasks(cover, 20, 1), use_table=True,
                            first_failure=False, counted=False)
    assert verdicts[:len(first)].tolist() == (out[:, 0] > 0).tolist()
    _exists_both(session, first + _tasks(cover, 20, 1), use_table=True, first_failure=True,
                 counted=False)


# Counts (the odd strips: recorded from the numba kernels; the even ones are Fibonacci
# numbers) and the statistics of a table of 4096 slots (recorded from the numba kernels).
STRIPS = {20: (89, [19, 8, 19, 19]), 63: (2178308, [146, 84, 146, 146]),
          64: (3524578, [63, 30, 63, 63]), 65: (3524577, [151, 87, 151, 151]),
          127: (10610209857722, [306, 180, 306, 306]),
          128: (17167680177565, [127, 62, 127, 127]),
          129: (17167680177564, [311, 183, 311, 311])}


@pytest.mark.parametrize("n_cells", sorted(STRIPS))
def test_boards_at_the_edges_of_a_word(n_cells):
    """Counters (pieces in copies) and the bits at each word's edge; the two-word state
    up to 128 bits, the N-word state at every size."""
    cover = _strip(n_cells)
    session = _session(cover)
    count, stats = STRIPS[n_cells]
    out = _tally(session, [()], general=True)
    assert out[0][0, 0] == count and out[-1].tolist()[:4] == stats
    if n_cells % 2 == 0:
        fib = [0, 1]
        while len(fib) < n_cells // 2 + 2:
            fib.append(fib[-1] + fib[-2])
        assert count == fib[n_cells // 2 + 1]  # domino tilings of a 2 x k strip: F(k + 1)
    _both_ways(session, [(), *session.branches()])
    solution = session.first_solution()
    assert solution is not None
    rng = random.Random(n_cells)
    # Parts of a solution (found at once), and options that overlap (refused at once);
    # random prefixes only with the table of dead states (without it, an unsolvable one
    # could take a search of the whole tree).
    found = [tuple(rng.sample(solution, k)) for k in (1, 3, 5)]
    clash = [(o, o) for o in solution[:2]]  # an option with itself
    for first_failure in (True, False):
        _exists_both(session, found + clash, use_table=False, first_failure=first_failure)
        _exists_both(session, _tasks(cover, 12, n_cells), use_table=True,
                     first_failure=first_failure)


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
    counts = _both_ways(session, tasks, slots=1 << 6, arena=1 << 8).sum(axis=1)
    np.testing.assert_array_equal(
        counts, _both_ways(session, tasks, slots=1 << 12).sum(axis=1))
    _both_ways(session, tasks, regions=region_sizes([3, 3, 3], len(cells)))
    _exists_both(session, tasks, use_table=True, first_failure=False, slots=16)


def _stream(kernel, session, forced, steps) -> list:
    """The solution stream's every call: its outputs and the arrays it keeps."""
    cc = session.compiled
    filled, counters = forced_state(cc, forced)
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
    """The stream paused after 1, 2, 4, ... solutions gives what one call gives: every
    solution once, each a solution (all F(13) = 233 tilings of the 24-cell strip)."""
    cover = _strip(n_cells)
    session = _session(cover)
    for forced in [(), session.branches()[0]]:
        steps = _stream(kernels.search_kernel, session, forced, [1, 2, 4, 8, 100, 1000])
        whole = _stream(kernels.search_kernel, session, forced, [1115])
        paused = np.concatenate([call[-1] for call in steps])
        np.testing.assert_array_equal(paused, whole[0][-1])
        assert steps[-1][0][0] == whole[0][0][0]  # where each stands
        _same(tuple(steps[-1][1:3]), tuple(whole[0][1:3]))
        ends = [int(np.argmax(row < 0)) if (row < 0).any() else len(row) for row in paused]
        found = {tuple(sorted((*forced, *(int(o) for o in row[:n]))))
                 for row, n in zip(paused, ends, strict=True)}
        assert len(found) == len(paused)
        assert all(cover.is_solution(list(s)) for s in found)
        if n_cells == 24:
            assert len(found) == (233 if not forced else len(found)) and steps[-1][0][0] == -2


def test_a_stop_set_before_leaves_everything_as_it_was():
    spec = load_spec(SPECS / "calendar_week.yaml")
    plan = TallyPlan.of(spec)
    session = _session(plan.cover, plan.tally_items)
    tasks = [plan.holes(("Jun", "7"))]
    tal = session.searches._tally_layout().kernel
    for kernel, lay, width in [
            (kernels.tally_prefixes_kernel, session.searches._kernel_layout(None), 2),
            (words.tally_prefixes_words, session.searches._word_layout(None), 3)]:
        memo = Memo(width, 1 << 10)
        memo.stop()
        out = np.full((1, int(tal.length[-1])), 5, dtype=np.int64)
        masks = np.full(1, 5, dtype=np.int64)
        kernel(_array(tasks), lay, tal, memo.kernel, out, masks, memo.stop_flag)
        assert (out == 5).all() and masks[0] == 5
        assert memo.stats.tolist() == [0, 0, 0, 0, 0, 1, 0]


def test_a_stop_mid_search_returns_and_keeps_only_finished_states():
    """A count stopped from another thread returns at once; what its table kept is true:
    the count asked again on that table equals the count on a fresh one."""
    cover = _strip(129)
    session = _session(cover)
    lay = session.searches._kernel_layout(None)
    tal = session.searches._tally_layout().kernel
    arr = _array([()])
    memo = Memo(session.compiled.n_words, 1 << 12)
    out = np.zeros((1, 1), dtype=np.int64)
    masks = np.zeros(1, dtype=np.int64)
    runner = threading.Thread(target=kernels.tally_prefixes_kernel,
                              args=(arr, lay, tal, memo.kernel, out, masks, memo.stop_flag))
    memo.stop()
    runner.start()
    runner.join(5)
    assert not runner.is_alive()
    memo.clear_stop()
    kernels.tally_prefixes_kernel(arr, lay, tal, memo.kernel, out, masks, memo.stop_flag)
    fresh = Memo(session.compiled.n_words, 1 << 12)
    again = np.zeros((1, 1), dtype=np.int64)
    kernels.tally_prefixes_kernel(arr, lay, tal, fresh.kernel, again, masks, fresh.stop_flag)
    assert out[0, 0] == again[0, 0]


def test_threads_count_at_once():
    """The core releases the GIL: four threads tallying at once, each on its own table,
    give what one gives alone."""
    spec = load_spec(SPECS / "calendar_week.yaml")
    plan = TallyPlan.of(spec)
    session = _session(plan.cover, plan.tally_items)
    tasks = _array([plan.holes(t) for t in [("Jun", "7"), ("Apr", "6")]])
    tal = session.searches._tally_layout().kernel
    lay = session.searches._word_layout(None)

    def tally(out):
        memo = Memo(3, 1 << 14, 1 << 16)
        words.tally_prefixes_words(tasks, lay, tal, memo.kernel, out,
                                   np.zeros(len(tasks), dtype=np.int64), memo.stop_flag)

    alone = np.zeros((len(tasks), int(tal.length[-1])), dtype=np.int64)
    tally(alone)
    outs = [np.zeros_like(alone) for _ in range(4)]
    threads = [threading.Thread(target=tally, args=(o,), daemon=True) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)  # a guard against a hang only
    assert not any(t.is_alive() for t in threads), "the threads are stuck"
    for o in outs:
        np.testing.assert_array_equal(o, alone)


def test_bad_arrays_are_refused():
    cover = _strip(20)
    session = _session(cover)
    tal = session.searches._tally_layout().kernel
    memo = Memo(1, 16)
    out = np.zeros((1, 1), dtype=np.int64)
    with pytest.raises(ValueError, match="out of range"):
        kernels.tally_prefixes_kernel(_array([(len(cover.options),)]),
                                      session.searches._kernel_layout(None), tal, memo.kernel,
                                      out, np.zeros(1, dtype=np.int64), memo.stop_flag)
    with pytest.raises(ValueError, match="one per prefix"):
        kernels.tally_prefixes_kernel(_array([()]), session.searches._kernel_layout(None), tal,
                                      memo.kernel, out, np.zeros(2, dtype=np.int64),
                                      memo.stop_flag)
    with pytest.raises(TypeError, match="opt_counter"):
        kernels.tally_prefixes_kernel(_array([()]), session.searches._kernel_layout(None)._replace(
            opt_counter=np.zeros(3, dtype=np.float64)), tal, memo.kernel, out,
            np.zeros(1, dtype=np.int64), memo.stop_flag)
