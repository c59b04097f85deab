"""What the fuzzer (benchmarks/fuzz.py) and the sanitized build found in the core, each fed
again through the bindings: the refusal, or the right answer. Each holds for the class of
input, not the one found: a clause linked twice, an option listed twice by an item, a table
fuller than its caller says, scores and colour codes past 64 bits, a tally item listed
twice, sizes whose sum wraps. They run on the sanitized build too (tests/test_sanitized.py),
where reading or writing past a buffer would be reported."""

from __future__ import annotations

import numpy as np
import pytest

from cpmodels import _native
from cpmodels.backends import cnf
from cpmodels.backends.engine import EngineSession
from cpmodels.backends.engine.kernels import one_word
from cpmodels.backends.engine.kernels.memo import Memo
from cpmodels.backends.engine.layouts.cover import compile_cover, one_word_layout
from cpmodels.backends.engine.layouts.tally import tally_layout
from cpmodels.cover import ExactCover, Item, PieceKind, packing_cover
from cpmodels.drup import check_drup
from cpmodels.geometry import orientations

EMPTY = (1 << 64) - 1
SQUARE = [[1, 2], [1, -2], [-1, 2], [-1, -2]]  # unsatisfiable: x1 and x2 each way


def _drup(clauses, steps, n_formula):
    """The checker on ``clauses`` (the first n_formula the formula) and steps (kind, clause)."""
    lits = np.array([x for c in clauses for x in c] or [1], np.int64)
    length = np.array([len(c) for c in clauses], np.int64)
    start = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
    n_vars = max(abs(x) for c in clauses for x in c)
    kinds = np.array([k for k, _ in steps], np.int64)
    targets = np.array([c for _, c in steps], np.int64)
    n = len(clauses)
    return _native.drup_check(
        n_vars, n_formula, lits, start, length, kinds, targets,
        np.zeros(n + len(steps), np.int64), 0, np.empty(n, np.uint8),
        np.empty(2 * n_vars, np.int64), np.empty(2 * n, np.int64), np.empty(n_vars, np.int8),
        np.empty(n_vars + 1, np.int64), np.empty(n_vars, np.int8))


@pytest.mark.timeout(60)
def test_a_clause_derived_again_is_watched_once():
    """A step that derives a formula clause, or a lemma derived before, checks it and links
    it no second time (a second link made a watch list run in a circle: the checker never
    returned)."""
    clauses = [*SQUARE, [1], []]
    assert _drup(clauses, [(0, 0), (0, 4), (0, 4), (0, 1), (0, 5)], 4) == -1
    assert _drup(clauses, [(0, 0), (0, 0), (0, 5)], 4) == 2  # the empty clause needs [1]
    assert _drup(clauses, [(0, 4), (1, 4), (0, 4), (2, 4), (0, 5)], 4) == -1
    # The package's own path: a lemma repeated is taken again, not checked again.
    assert check_drup(SQUARE, ["1 0", "1 0", "1 0", "0"]).ok


def test_a_split_step_writes_each_option_once():
    """An item that lists an option twice: the step names the option once (it wrote past
    ``out``), and a bound or a literal at the edge of 64 bits is read without wrapping."""
    inc = _native.CnfIncidence(np.array([0, 1]), np.array([0]), np.array([0, 2]),
                               np.array([0, 0]), np.array([1]))
    out = np.full(1, -7, np.int64)
    assert inc.step(np.array([], np.int64), out) == (cnf.ITEM, 0, 1)
    assert out.tolist() == [0]
    assert inc.step(np.array([-(1 << 63)], np.int64), out) == (cnf.ITEM, 0, 1)
    low = _native.CnfIncidence(np.array([0, 1]), np.array([0]), np.array([0, 1]),
                               np.array([0]), np.array([-(1 << 63)]))
    assert low.step(np.array([1], np.int64), out) == (cnf.SOLVED, -1, 0)
    assert low.step(np.array([], np.int64), out) == (cnf.OPTION, 0, 0)


def _cell(bits, none, codes, table_value=0):
    shape = np.array([0, 0, 1, 1, bits, none], np.int64)
    table = np.full((none + 1, none + 1, codes), table_value, np.int64)
    return shape, table, np.zeros(codes, np.int64)


@pytest.mark.timeout(60)
def test_a_step_resumed_in_a_full_table_counts_its_states():
    """Going on (at > 0) in a table the caller filled: the states are counted, not taken
    from ``used``, and a table past half full is handed back at once to be grown (it
    probed for a free slot forever)."""
    shape, table, needs = _cell(3, 1, 2)
    keys, vals = np.array([0], np.uint64), np.array([0], np.int64)
    full = np.arange(10, 14, dtype=np.uint64)
    used, at = _native.towers_step(keys, vals, shape, table, needs, -1, 0, full,
                                   np.zeros(4, np.int64), 0, 1)
    assert (used, at) == (4, 1)
    grown = np.full(8, np.uint64(EMPTY))
    grown_vals = np.zeros(8, np.int64)
    _native.towers_rehash(full, np.zeros(4, np.int64), grown, grown_vals)
    used, at = _native.towers_step(keys, vals, shape, table, needs, -1, 0, grown, grown_vals,
                                   0, 1)
    assert (used, at) == (5, 2)  # colour 1 added to the four kept


def test_towers_scores_and_codes_past_64_bits():
    """A score whose sum does not fit 64 bits is no successor (it wrapped to a low one); a
    column's field of 64 bits and colour codes past 63 are read without shifting past the
    word."""
    shape, table, needs = _cell(64, 1, 63, table_value=1)
    keys, vals = np.array([0], np.uint64), np.array([(1 << 63) - 1], np.int64)
    new_keys, new_vals = np.empty(128, np.uint64), np.empty(128, np.int64)
    used, _ = _native.towers_step(keys, vals, shape, table, needs, -1, -(1 << 63), new_keys,
                                  new_vals, 0, 0)
    assert used == 0
    vals = np.array([5], np.int64)
    used, _ = _native.towers_step(keys, vals, shape, table, needs, -1, -(1 << 63), new_keys,
                                  new_vals, 0, 0)
    assert used == 63
    shape, table, needs = _cell(8, 127, 1, table_value=2)
    keys = np.array([100], np.uint64)  # above: colour 100, needing nothing
    used, _ = _native.towers_step(keys, np.array([1], np.int64), shape, table, needs, -1, 0,
                                  new_keys, new_vals, 0, 0)
    assert used == 1 and new_vals[new_keys == 0].tolist() == [3]


def _dominoes():
    domino = tuple(orientations([(0, 0), (0, 1)]))
    return packing_cover([(r, c) for r in range(2) for c in range(3)],
                         [PieceKind("d", domino, 3)])


def test_a_tally_item_listed_twice_is_refused():
    """Tallies by one item listed twice split the counts by nothing (the search counted 0
    for a cover with a solution): both tally layouts refuse it."""
    cover = _dominoes()
    with pytest.raises(ValueError, match="listed twice"):
        tally_layout(compile_cover(cover), [0, 0])
    kinds = np.array([it.kind for it in cover.items], np.int64)
    piece = len(cover.items) - 1
    bits = np.empty(2, np.uint64)
    assert _native.one_word_tally_bits(kinds, np.array([piece, piece]), 0, bits) == -11
    assert _native.layout_error(11) == "a tally item is listed twice"


def test_sizes_whose_sum_wraps_are_refused():
    """A board of 2**64 - 1 cells asks for fillable of 2**64 entries: refused (an empty
    array passed, and the core wrote past it); a clause whose start and length pass 2**63
    together is refused as running past the literals."""
    with pytest.raises(ValueError, match="total"):
        _native.region_sizes(np.array([1], np.int64), (1 << 64) - 1, np.zeros(0, bool))
    lits = np.array([1, -1], np.int64)
    with pytest.raises(ValueError, match="past the literals"):
        _native.drup_check(1, 1, lits, np.array([1 << 62], np.int64),
                           np.array([1 << 62], np.int64), np.array([], np.int64),
                           np.array([], np.int64), np.zeros(1, np.int64), 0,
                           np.empty(1, np.uint8), np.empty(2, np.int64), np.empty(2, np.int64),
                           np.empty(1, np.int8), np.empty(2, np.int64), np.empty(1, np.int8))


def test_a_table_of_fewer_than_16_slots_is_refused():
    """A table emptied when three quarters full keeps a free slot only from 4 slots on (a
    table of 2 filled up and the next probe never ended): the bindings ask for 16, as
    memo.py and engine.js make them."""
    domino = tuple(orientations([(0, 0), (0, 1)]))
    cover = packing_cover([(0, 0), (0, 1), (1, 0), (1, 1)],
                          [PieceKind("a", domino), PieceKind("b", domino)])
    layout = one_word_layout(cover)
    table = Memo(2, 16).kernel
    small = table._replace(keys=np.ascontiguousarray(table.keys[:2]))
    out = np.zeros(1, np.int64)
    with pytest.raises(ValueError, match="at least 16"):
        one_word.count_one_word(np.array([[-1]]), layout, small, True, out, np.zeros(1, np.int64))
    one_word.count_one_word(np.array([[-1]]), layout, table, True, out, np.zeros(1, np.int64))
    assert out.tolist() == [4]


def test_region_pruning_needs_options_joined_as_pieces_are():
    """Options whose cells are not neighbours (a cover made by hand, or a drawn one): the
    region check would call the regions they leave dead when those options fill them (a
    count of 0 for a cover with a solution), so the layout switches it off."""
    from cpmodels.backends.engine import EngineSession
    from cpmodels.cover import ExactCover, Item

    cells = [(0, c) for c in range(4)]
    items = [Item(f"c{c}", cell=cell) for c, cell in enumerate(cells)] + [Item("P", 2, 2)]
    apart = ExactCover(items=items, options=[(0, 2, 4), (1, 3, 4)], grid="square")
    assert compile_cover(apart).region_limit == 0
    assert EngineSession(apart).count() == 1
    together = ExactCover(items=items, options=[(0, 1, 4), (2, 3, 4), (1, 2, 4)],
                          grid="square")
    assert compile_cover(together).region_limit > 0  # pieces as drawn keep the check
    assert EngineSession(together).count() == 1


def test_one_word_region_pruning_needs_options_joined_as_pieces_are():
    """The one-word layout's region check, as the general layout's: two pieces whose
    options' cells are not neighbours leave a single cell between the cells of the first
    one placed, which the second fills; the check called it dead (a count of 0 for a cover
    with a solution), so a cover with such an option has it off."""
    from cpmodels.backends.engine import EngineSession
    from cpmodels.cover import ExactCover, Item

    cells = [(0, c) for c in range(4)]
    items = [Item(f"c{c}", cell=cell) for c, cell in enumerate(cells)] + [Item("A"),
                                                                         Item("B")]
    apart = ExactCover(items=items, options=[(0, 2, 4), (1, 3, 5)], grid="square")
    layout = one_word_layout(apart)
    assert layout is not None and layout.region_limit == 0 and not layout.isolated_dead
    assert EngineSession(apart).count() == 1
    out = np.zeros(1, np.int64)
    one_word.count_one_word(np.array([[-1]]), layout, Memo(2, 16).kernel, True, out,
                            np.zeros(1, np.int64))
    assert out.tolist() == [1]
    # Dominoes as drawn keep the check: a lone cell between them is a dead end.
    together = ExactCover(items=items, options=[(0, 1, 4), (2, 3, 5), (1, 2, 4)],
                          grid="square")
    layout = one_word_layout(together)
    assert layout is not None and layout.region_limit > 0 and layout.isolated_dead
    assert EngineSession(together).count() == 1


def test_reach_search_needs_options_joined_as_pieces_are():
    """The reach search prunes regions as the one-word kernel does: on a cover whose piece
    has cells apart it called the hole at the row's end unreachable, while a solution leaves
    it (piece A on cells 0 and 2, B on 1). Such a cover has no reach layout: its dates are
    asked one by one."""
    from cpmodels.backends.engine import EngineSession
    from cpmodels.backends.engine.layouts.reach import reach_layout
    from cpmodels.cover import ExactCover, Item, ItemKind

    cells = [(0, c) for c in range(4)]
    items = [Item(f"c{c}", cell=cell) for c, cell in enumerate(cells)]
    items += [Item("A"), Item("B"), Item("S", kind=ItemKind.SLACK)]
    apart = ExactCover(items=items, options=[(0, 2, 4), (1, 5), (3, 6), (1, 6)],
                       grid="square")
    assert reach_layout(apart) is None and not EngineSession(apart).reaches
    assert EngineSession(apart).count([2]) == 1
    together = ExactCover(items=items, options=[(0, 1, 4), (2, 5), (3, 6), (2, 6)],
                          grid="square")
    session = EngineSession(together)
    assert session.reaches
    assert session.reach([], [((), [(2,), (3,)])], areas=[2, 1]) == [[True, False]]


def test_region_pruning_needs_one_item_a_cell():
    """Two exact-one items on one cell, or a cell named by an item that is no cell's: a
    region counts the cell once, or for the wrong item (a count of 0 for a cover with a
    solution), so the check is off."""
    from cpmodels.backends.engine import EngineSession
    from cpmodels.cover import ExactCover, Item

    items = [Item("a", cell=(0, 0)), Item("b", cell=(0, 1)), Item("c", cell=(0, 2)),
             Item("c again", cell=(0, 2)), Item("P", 2, 2)]
    shared = ExactCover(items=items, options=[(0, 1, 4), (2, 3, 4)], grid="square")
    assert compile_cover(shared).region_limit == 0
    assert EngineSession(shared).count() == 1
    # A piece's item naming a cell: a region would count that cell for it as well.
    cells = [(0, c) for c in range(4)]
    items = [Item(f"c{c}", cell=cell) for c, cell in enumerate(cells)]
    named = ExactCover(items=[*items, Item("P", 2, 2, cell=(0, 1))],
                       options=[(0, 1, 4), (2, 3, 4)], grid="square")
    assert compile_cover(named).region_limit == 0
    assert EngineSession(named).count() == 1


def test_a_run_of_one_tag_with_two_counters_is_two_runs():
    """Options of one tag (their last item) whose counters differ are used up apart: the
    branching choice passes over a run whole when one of its options is used up, so the
    layout ends a run where the counter changes. Found by the fuzzer as a run whose options
    were not all used up together; with such a run the counts lost the option after it."""
    items = [Item("c", cell=(0, 0)), Item("A", 0, 2), Item("C", 0, 2), Item("B", 0, 1)]
    options = [(1,), (1,), (0, 1, 3), (0, 2, 3)]  # two A alone, then A and C under tag B
    cover = ExactCover(items, options)
    session = EngineSession(cover)
    assert session.count((0, 1)) == 1  # A at its bound: only the option of C is left
    assert session.split((0, 1)) == [(0, 1, 3)]
    assert session.count(()) == 2
    assert sorted(session.split(())) == [(2,), (3,)]


def _design_sets(draws):
    """The candidate sets of the L, T and I tetrominoes on a 2x4 board with no dates (any
    two of them a set), drawn as ``draws`` (indices, fewest, most)."""
    shapes = {"L": [(0, 0), (1, 0), (2, 0), (2, 1)], "T": [(0, 0), (0, 1), (0, 2), (1, 1)],
              "I": [(0, 0), (0, 1), (0, 2), (0, 3)]}
    pieces = [(cells, True, True, 0, 4, 1, name.encode()) for name, cells in shapes.items()]
    board = [(r, c) for r in range(2) for c in range(4)]
    return _native.design_sets(pieces, 0, draws, 8, board, np.zeros((0, 1), np.int64))


def test_a_set_that_can_be_picked_two_ways_is_made_once():
    """A piece offered in two draws (or twice in one) lets one set be picked in two ways:
    the set is made once and the other way counted as skipped, as when two pieces are
    alike. (Found by the fuzzer, ``design_sets``: two draws offering the same piece made
    the same set twice, each to be decided again.)"""
    sets, skipped = _design_sets([([0, 1, 2], 1, 1), ([0, 1, 2], 1, 1)])
    assert sorted(tuple(sorted(s)) for s in sets) == [(0, 1), (0, 2), (1, 2)]
    assert skipped == 3
    sets, skipped = _design_sets([([0, 1, 1, 2], 2, 2)])  # L, T, T, I: T twice
    assert sorted(tuple(sorted(s)) for s in sets) == [(0, 1), (0, 2), (1, 2)]
    assert skipped == 2
    sets, skipped = _design_sets([([0, 1, 2], 2, 2)])  # each piece once: no skip
    assert len(sets) == 3 and skipped == 0
