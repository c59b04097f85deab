"""The word-sized kernel (covers of at most 128 bits) against the general kernel, CNF and
closed forms: counts, tallies and existence, at the edges of one and two words."""

from __future__ import annotations

import itertools

import pytest
from conftest import SPECS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cpmodels.backends import count_cover, engine
from cpmodels.cover import PieceKind, packing_cover
from cpmodels.instance import packing_instance
from cpmodels.pools import pool
from cpmodels.query import Query
from cpmodels.spec import load_spec
from cpmodels.sweep import slack_options, sweep_cover


def _session(cover, words: bool, **kw) -> engine.EngineSession:
    return engine.EngineSession(cover, word_kernel=words, **kw)


def _both(cover, **kw) -> tuple[engine.EngineSession, engine.EngineSession]:
    return _session(cover, True, **kw), _session(cover, False, **kw)


def _rect(rows: int, cols: int) -> list[tuple[int, int]]:
    return [(r, c) for r in range(rows) for c in range(cols)]


DOMINO = (frozenset({(0, 0), (0, 1)}), frozenset({(0, 0), (1, 0)}))


def _dominoes(cells, marked: bool):
    """Domino tilings of ``cells``: the dominoes are copies (a counter, no bit), and with
    ``marked`` one of them is a piece of its own (one bit)."""
    n = len(cells) // 2
    pieces = [PieceKind("D", DOMINO, n - marked)] + ([PieceKind("E", DOMINO, 1)] if marked
                                                     else [])
    return packing_cover(cells, pieces)


def _domino_tilings(rows: int, cols: int) -> int:
    """Domino tilings of a rows x cols rectangle, column by column over the profile of
    cells already covered from the left (exact integers: an independent count)."""

    def fills(r: int, covered: int, nxt: int):
        if r == rows:
            yield nxt
        elif covered >> r & 1:
            yield from fills(r + 1, covered, nxt)
        else:
            yield from fills(r + 1, covered, nxt | 1 << r)  # across, into the next column
            if r + 1 < rows and not covered >> (r + 1) & 1:  # down, in this column
                yield from fills(r + 2, covered, nxt)

    ways = {0: 1}
    for _ in range(cols):
        nxt: dict[int, int] = {}
        for profile, n in ways.items():
            for after in fills(0, profile, 0):
                nxt[after] = nxt.get(after, 0) + n
        ways = nxt
    return ways.get(0, 0)


@pytest.mark.parametrize(("rows", "cols"), [(4, 16), (8, 16)])
def test_the_edges_of_one_and_two_words(rows, cols):
    """4x16 dominoes: 64 bits (one word); one domino marked: 65 bits (two words), and the
    count is the tilings times the dominoes it could be. 8x16: 128 bits, and 129 (the
    general kernel)."""
    cells = _rect(rows, cols)
    plain, marked = _dominoes(cells, False), _dominoes(cells, True)
    tilings = _domino_tilings(rows, cols)
    words, general = _both(plain)
    assert words.compiled.n_words == (1 if rows * cols == 64 else 2)
    assert words.count() == general.count() == tilings
    words, general = _both(marked)
    assert words.compiled.n_words == (2 if rows * cols == 64 else 3)
    assert words.count() == general.count() == tilings * rows * cols // 2


def test_a_monomino_at_the_edge_of_the_first_word():
    """7x9 and a monomino: exactly 64 bits; the same board with one more row of cells
    opens a second word. Both kernels agree on both."""
    mono = PieceKind("M", (frozenset({(0, 0)}),), 1)
    for cells in (_rect(7, 9), [*_rect(7, 9), (7, 0)]):
        cover = packing_cover(cells, [mono, PieceKind("D", DOMINO, (len(cells) - 1) // 2)])
        words, general = _both(cover)
        assert words.count() == general.count()


@pytest.mark.parametrize(("spec", "labels"), [
    ("pentominoes_6x10.yaml", None), ("pentominoes_8x8_centre.yaml", None),
    ("calendar_week.yaml", ["Jun", "7", "Tue"]), ("calendar_day.yaml", ["Oct", "6"]),
    ("pentominoes_10_of_12.yaml", None), ("hexiamonds_rhombus.yaml", None),
    ("polyhexes.yaml", None)])
def test_counts_equal_the_general_kernel(spec, labels):
    query = Query.of(load_spec(SPECS / spec), **({"labels": labels} if labels else {}))
    cover = packing_instance(query).cover
    words, general = _both(cover)
    if general.compiled.n_words > 2:
        pytest.skip(f"{spec} needs {general.compiled.n_words} words")
    first = words.branches()[:6]
    assert [words.count(t) for t in first] == [general.count(t) for t in first]


@pytest.mark.parametrize("face_up", [False, True])
def test_a_sweeps_tallies_and_existence_equal_the_general_kernel(face_up):
    spec = load_spec(SPECS / "calendar_day.yaml")
    cover, slack = sweep_cover(spec, face_up=face_up)
    option = slack_options(cover, spec)
    months = [(option[("month", m)],) for m in spec.groups["month"]]
    words, general = _both(cover, tally_items=slack[1:])
    assert words.tally_many(months) == general.tally_many(months)
    dates = [[option[("month", m)], option[("day", d)]]
             for m, d in itertools.product(spec.groups["month"], spec.groups["day"])]
    words, general = _both(cover)
    found = words.exists(dates)
    assert found == general.exists(dates) == _both(cover)[0].exists(dates, remember=False)
    assert all(found) if not face_up else not all(found)


def test_design_regions_and_dead_states_equal_the_general_kernel():
    """A design's existence questions: fewer pieces (region sizes replaced), forced
    left-out options, one table of dead states across them."""
    from cpmodels.design import Design, load_board
    from cpmodels.spec.loading import load_design

    spec = load_design("apad_rectangle_pentominoes")
    verdicts = []
    for words in (True, False):
        design = Design(spec, load_board(spec, "apad_rectangle_pentominoes"),
                        with_counts=True)
        compiled = design._cover(False)
        compiled.session.use_words = words
        verdicts.append([design.decide(c) for c in itertools.islice(design.candidates(), 40)])
    assert verdicts[0] == verdicts[1]


PIECES = [shape for _, shape in pool("tetrominoes")] + [shape for _, shape in
                                                          pool("trominoes")]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sets(st.sampled_from(_rect(6, 6)), min_size=6, max_size=20),
       st.lists(st.sampled_from(range(len(PIECES))), min_size=1, max_size=5, unique=True),
       st.integers(1, 2))
def test_random_boards_agree_with_the_general_kernel_and_cnf(cells, chosen, copies):
    from cpmodels.geometry import orientations

    kinds = [PieceKind(f"P{k}", tuple(orientations(PIECES[k])), copies) for k in chosen]
    area = sum(len(PIECES[k]) * copies for k in chosen)
    if area != len(cells):
        cells = set(sorted(cells)[:area]) if area < len(cells) else cells
    if area != len(cells):
        return
    cover = packing_cover(cells, kinds)
    words, general = _both(cover)
    n = words.count()
    assert n == general.count() == count_cover("sat", cover)
    assert words.exists([[]]) == [n > 0]


def _bars(n: int) -> tuple[list[tuple[int, int]], list[PieceKind]]:
    """A 1 x n strip and five bars of different lengths that fill it: 5! solutions."""
    lengths = [n - 10, 1, 2, 3, 4]
    kinds = [PieceKind(f"B{k}", tuple({frozenset((0, c) for c in range(size)),
                                       frozenset((c, 0) for c in range(size))}), 1)
             for k, size in enumerate(lengths)]
    return [(0, c) for c in range(n)], kinds


@pytest.mark.parametrize("n", [63, 64, 65, 127, 128, 129])
def test_the_one_word_kernel_at_the_edges_of_a_word(n):
    """Strips of 63 to 129 cells: the one-word kernel takes those of at most 64 cells, with
    its table and without; every kernel and CNF count the 120 orders of the bars, and the
    same with a bar forced."""
    cells, kinds = _bars(n)
    cover = packing_cover(cells, kinds)
    one, words = _session(cover, True), _session(cover, True, one_word=False)
    bare, general = _session(cover, True, table_slots=0), _session(cover, False)
    assert (one.searches.chosen() == "count_one_word") == (n <= 64) \
        == (bare.searches.chosen() == "count_one_word")
    assert one.count() == bare.count() == words.count() == general.count() == 120
    assert count_cover("sat", cover) == 120
    last = max(j for j, p in enumerate(cover.placements) if p.piece == "B0")
    forced = [last]  # the long bar at the end of the strip: the others in 4! orders
    assert one.count(forced) == bare.count(forced) == general.count(forced) == 24
    assert one.tally_many([[], forced, [last, last]]) == [{(): 120}, {(): 24}, {}]


@pytest.mark.parametrize("spec", ["pentominoes_8x8_square.yaml", "pentominoes_8x8_centre.yaml",
                                  "pentominoes_6x10.yaml"])
def test_the_one_word_kernel_on_the_boxes_equals_the_general_kernel(spec):
    """64 and 60 cells, 13 and 12 pieces (a second word of bits for the pieces): the
    one-word kernel, with and without its table, against the general kernel on parts of
    the search two steps deep, and against CNF on one of them."""
    cover = packing_instance(Query.of(load_spec(SPECS / spec))).cover
    one, general = _session(cover, True), _session(cover, False)
    bare = _session(cover, True, table_slots=0)
    assert one.searches.chosen() == "count_one_word" and general.compiled.n_words == 2
    parts = [p for b in one.branches()[:3] for p in one.split(b)[:2]]
    counts = [one.count(p) for p in parts]
    assert counts == [bare.count(p) for p in parts] == [general.count(p) for p in parts]
    small = min(range(len(parts)), key=lambda k: counts[k])
    assert count_cover("sat", cover, forced=parts[small]) == counts[small]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sets(st.sampled_from(_rect(8, 8)), min_size=10, max_size=64),
       st.lists(st.sampled_from(range(len(PIECES))), min_size=2, max_size=9))
def test_random_boards_of_one_word_agree_with_the_general_kernel(cells, chosen):
    """Random boards of up to 64 cells and pieces each used once (shapes may repeat under
    other names): the one-word kernel, with and without its table, the general kernel."""
    from cpmodels.geometry import orientations

    kinds = [PieceKind(f"P{i}", tuple(orientations(PIECES[k])), 1) for i, k in enumerate(chosen)]
    area = sum(len(PIECES[k]) for k in chosen)
    if area > len(cells):
        return
    cells = set(sorted(cells, key=lambda rc: (rc[1], rc[0]))[:area])
    cover = packing_cover(cells, kinds)
    one, general = _session(cover, True), _session(cover, False)
    assert one.searches.chosen() == "count_one_word"
    n = one.count()
    assert n == _session(cover, True, table_slots=0).count() == general.count()
    if n < 200:
        assert n == count_cover("sat", cover)
