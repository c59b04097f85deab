"""The choice of search (``engine/searches.py``): which kernel answers each question, on
which layout, and that the call it returns, run as it is, gives the session's answer."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from cpmodels.api import instance
from cpmodels.backends.engine import EngineSession
from cpmodels.backends.engine.kernels import general, one_word, words
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
    assert int(call.out[0].sum()) == 7 == EngineSession(cover, **kw).count()
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
    assert np.all(again.searches.count_stats() >= 0)


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
