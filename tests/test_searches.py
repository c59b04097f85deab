"""The choice of search (``engine/searches.py``): which kernel answers each question, on
which layout, and that the call it returns, run as it is, gives the session's answer."""

from __future__ import annotations

import dataclasses
import itertools
import pickle
import random

import numpy as np
import pytest
from conftest import SPECS
from layout_oracle import forced_state

from cpmodels.api import instance
from cpmodels.backends.engine import EngineSession
from cpmodels.backends.engine.kernels import general, one_word, words
from cpmodels.backends.engine.kernels.choice import EXISTS, SOLUTIONS, TALLY, Offers, choose
from cpmodels.backends.engine.searches import Searches
from cpmodels.errors import OutOfTime
from cpmodels.spec import load_spec
from cpmodels.sweep import TallyPlan


@pytest.fixture(scope="module")
def cover():
    return instance("calendar_day", labels=["Oct", "6"]).cover  # 7 solutions


@pytest.mark.parametrize(("kw", "kernel"), [
    ({}, one_word.count_one_word),
    ({"one_word": False}, words.tally_prefixes_words),
    ({"word_kernel": False}, general.tally_prefixes_kernel),
])
def test_a_count_takes_the_narrowest_kernel_that_suits(cover, kw, kernel):
    """A calendar date (one word of cells) is counted by the one-word kernel, else by the
    word kernel, else by the general one; the call, run as returned, fills its answer."""
    searches = Searches(cover, **kw)
    call = searches.tally_call([()], None)
    assert call.kernel is kernel
    call.kernel(*call.args)
    rows = call.out.tolist()  # (buffers of the standard library: a count's, a tally's)
    first = rows[0] if call.masks is None else sum(rows[0])
    assert int(first) == 7 == EngineSession(cover, **kw).count()
    assert call.table in searches.tables()


@pytest.mark.parametrize(("kw", "kernel"), [
    ({}, words.exists_words), ({"word_kernel": False}, general.exists_kernel)])
def test_existence_keeps_its_dead_states_only_when_asked(cover, kw, kernel):
    searches = Searches(cover, **kw)
    once = searches.exists_call([()], None, first_failure=False, remember=False)
    assert once.kernel is kernel and searches.tables() == []
    kept = searches.exists_call([()], None, first_failure=False, remember=True)
    kept.kernel(*kept.args)
    assert kept.out.tolist() == [1] and searches.tables() == [kept.table]


def test_a_tally_by_holes_takes_the_one_word_tally_kernel():
    """A sweep's cover (slack items for the holes) tallied by one group's holes: the one-word
    tally kernel, its answer decoded by the session as the general kernel's is."""
    plan = TallyPlan.of(load_spec("calendar_day"))
    one = plan.session()
    tasks = [plan.task_holes(task) for task in plan.tasks()[:2]]
    call = one.searches.tally_call(tasks, None)
    assert call.kernel is one_word.tally_one_word and call.masks is not None
    general_session = EngineSession(one.cover, tally_items=one.tally_items, word_kernel=False)
    tallies = one.tally_many(tasks)
    assert tallies == general_session.tally_many(tasks) and sum(tallies[0].values()) > 0


def test_the_session_keeps_its_questions_and_hands_the_choice_on(cover):
    """The session's switches are its choice's; a pickled session chooses alike; a stopped
    session stops every table its choice made."""
    session = EngineSession(cover)
    session.use_one_word = False
    assert session.searches.use_one_word is False
    assert session.searches.tally_call([()], None).kernel is words.tally_prefixes_words
    again = pickle.loads(pickle.dumps(session))
    assert again.use_one_word is False and again.count() == 7
    assert again.stats["used"] > 0 and session.stats == dict.fromkeys(session.stats, 0)
    again.stop()
    assert all(table.stopped for table in again.searches.tables())
    with pytest.raises(OutOfTime):
        again.count()
    assert np.all(np.asarray(again.searches.count_stats()) >= 0)


@pytest.mark.parametrize("question", ["tally", "exists"])
def test_a_stop_while_the_call_is_made_is_not_lost(cover, question):
    """stop() from another thread while the session makes its call (before the table's
    flag is cleared, or before the table exists): the question ends stopped, its kernel
    never run, instead of running to its end."""
    session = EngineSession(cover)
    searches = session.searches
    make = searches.tally_call if question == "tally" else searches.exists_call
    ran = []

    def stopped_while_made(*args, **kw):
        session.stop()  # as another thread would, mid-make
        call = make(*args, **kw)
        kernel = call.kernel

        def counted(*a):
            ran.append(True)
            return kernel(*a)
        return dataclasses.replace(call, kernel=counted)

    setattr(searches, f"{question}_call", stopped_while_made)
    with pytest.raises(OutOfTime):
        session.tally(()) if question == "tally" else session.exists([[]])
    assert ran == []


def test_a_solution_stream_runs_in_the_sessions_turn_and_stops_with_it():
    """Each step of a stream is a call run in the session's turn: it waits for the turn
    within its time limit, hands over what a step found, and ends when the session is
    stopped between its steps or during one."""
    session = EngineSession(instance("pentominoes_8x8_square").cover)  # 129,168 raw
    stream = session.solutions(batch=4)
    first = [next(stream) for _ in range(5)]
    assert len({tuple(s) for s in first}) == 5
    assert first == list(itertools.islice(EngineSession(session.cover).solutions(), 5))
    with session._turn, pytest.raises(OutOfTime, match="waited"):  # another holds the turn
        next(session.solutions(time_limit=0.2))
    session.stop()
    with pytest.raises(OutOfTime, match="session was stopped"):
        list(stream)
    with pytest.raises(OutOfTime, match="session was stopped"):
        next(session.solutions())
    clash = session.branches()[:2]  # two options of the first item: never together
    assert list(EngineSession(session.cover).solutions([o for (o,) in clash])) == []


# --- the choice and the branching step are the core's ----------------------------------

def _offers(word: int) -> Offers:
    names = ["one_word", "slack", "tallies", "one_word_tallies", "two_words", "links", "bits"]
    return Offers(**{name: bool(word >> k & 1) for k, name in enumerate(names)})


def _python_choice(question: int, offers: Offers) -> str:
    """The choice as the Python side made it before the core did (the oracle)."""
    if question == EXISTS:
        return "exists_two_words" if offers.two_words else "exists_n_words"
    if question == SOLUTIONS:
        return "search_n_words"
    if offers.links and not offers.tallies:
        return "bit_cover_count" if offers.bits else "links_count"
    if offers.one_word and (offers.slack or offers.tallies) and offers.one_word_tallies:
        return "tally_one_word"
    if offers.one_word and not offers.slack and not offers.tallies:
        return "count_one_word"
    return "tally_prefixes_two_words" if offers.two_words else "tally_prefixes_n_words"


def test_the_core_chooses_the_search_as_the_python_side_did():
    """Every question and every combination of offers: the compiled choice is the one the
    Python side (and the browser, in its own copy) made."""
    for question in (TALLY, EXISTS, SOLUTIONS):
        for word in range(128):
            offers = _offers(word)
            assert offers.bits_word == word
            assert choose(question, offers) == _python_choice(question, offers), (question, word)


def _python_split(session: EngineSession, task: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The branching step as the Python side took it before the core did (the oracle):
    the first item ``task`` leaves open, and each of its options that fits."""
    cc = session.compiled.numpy()
    filled, counters = forced_state(cc, task)
    pos = next((b for b in range(cc.n_branch)
                if not int(filled[b >> 6]) >> (b & 63) & 1), None)
    if pos is None:
        return [task]
    parts = []
    for o in cc.anchor_opts[cc.anchor_start[pos]:cc.anchor_start[pos + 1]]:
        c, tw = cc.opt_counter[o], cc.opt_tag_word[o]
        if np.any(cc.opt_mask[o] & filled) or (c >= 0 and counters[c] >= cc.counter_high[c]):
            continue
        if tw >= 0 and filled[tw] & cc.opt_tag_bit[o]:
            continue
        parts.append((*task, int(o)))
    return parts or [task]


@pytest.mark.parametrize("name", sorted(p.stem for p in SPECS.glob("*.yaml")))
def test_the_cores_branching_step_cuts_tasks_as_the_python_loop_did(name):
    """On every bundled packing spec: the root, two levels of the cuts, and random tasks
    (options that may clash, pieces used past their copies) are cut by the core as the
    Python loop cut them; the forced step of the solution stream agrees too."""
    spec = load_spec(SPECS / f"{name}.yaml")
    if getattr(spec, "kind", "packing") == "towers":
        pytest.skip("not a packing")
    cover = instance(spec).cover
    session = EngineSession(cover, solids=False)
    rng = random.Random(name)
    tasks: list[tuple[int, ...]] = [()]
    for part in session.split(())[:4]:
        tasks += [part, *session.split(part)[:3]]
    n = len(cover.options)
    tasks += [tuple(rng.sample(range(n), rng.randint(1, min(n, 6)))) for _ in range(20)]
    cc = session.compiled.numpy()
    for task in tasks:
        assert session.split(task) == _python_split(session, task), task
        filled = np.zeros(cc.n_words, dtype=np.uint64)
        counters = np.zeros(len(cc.counter_low), dtype=np.int64)
        fits = general.force_kernel(cc.kernel, np.array(task, np.int64), filled, counters)
        union = np.zeros(cc.n_words, dtype=np.uint64)
        clash = False
        for o in task:
            clash = clash or bool(np.any(cc.opt_mask[o] & union))
            union |= cc.opt_mask[o]
        want = np.zeros(len(cc.counter_low), dtype=np.int64)
        for o in task:
            if cc.opt_counter[o] >= 0:
                want[cc.opt_counter[o]] += 1
        assert fits == (not clash and bool(np.all(want <= cc.counter_high))), task
        assert filled.tolist() == union.tolist() and counters.tolist() == want.tolist()


@pytest.mark.parametrize("name", ["pentominoes_6x10", "pentominoes_8x8_centre",
                                  "pentominoes_8x8_square", "hexiamonds_rhombus", "soma"])
def test_the_choice_makes_the_two_word_layout_only_where_it_turns_on_it(name):
    """The choice asks for the two-word layout (the cover's compilation) only where the
    core's choice turns on whether it is offered, and chooses as with every offer made (the
    oracle); a box's count, chosen first, compiles nothing."""
    cover = instance(name).cover
    for first in (TALLY, EXISTS, SOLUTIONS):
        searches = Searches(cover)
        for question in (first, TALLY, EXISTS, SOLUTIONS):
            assert searches.chosen(question) == choose(question, Searches(cover).offers())
    box = Searches(cover)
    if box.chosen(TALLY) == "count_one_word":
        assert box._compiled is None and box._words is None
    assert name not in {"pentominoes_6x10", "pentominoes_8x8_centre",
                        "pentominoes_8x8_square"} or box._compiled is None
