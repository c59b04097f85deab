"""A count shared by two threads (``placement/scheduling.py``'s ``count_each``): the
session and a twin of it take parts from the two ends of one queue. The thresholds are
forced (no timing decides whether the threads run), so these hold on a busy machine."""

from __future__ import annotations

import threading
from itertools import pairwise

import pytest
from conftest import SPECS

from cpmodels.backends import engine
from cpmodels.backends.engine.placement import processes, scheduling
from cpmodels.counting import count_instance
from cpmodels.errors import OutOfTime
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec

# The one-thread counts (raw, distinct) of the bundled packing specs that count in under a
# second, each target: what the engine counted on one thread before threads shared a count.
ONE_THREAD = {
    ("hexiamonds_rhombus", "rhombus"): (624, 156),
    ("hexiamonds_rhombus", "parallelogram_4x9"): (148, 74),
    ("hexiamonds_rhombus", "parallelogram_3x12"): (0, 0),
    ("pentominoes_10_of_12", "5x10"): (27804, 6951),
    ("pentominoes_10_of_12", "5x6"): (2164, 541),
    ("pentominoes_6x10", "6x10"): (9356, 2339),
    ("pentominoes_6x10", "5x12"): (4040, 1010),
    ("pentominoes_6x10", "4x15"): (1472, 368),
    ("pentominoes_6x10", "3x20"): (8, 2),
    ("pentominoes_8x8_centre", None): (520, 65),
    ("pentominoes_8x8_square", None): (129168, 16146),
    ("polyhexes", "parallelogram_4x10"): (14809060, 7404530),
    ("polyhexes", "parallelogram_5x8"): (30353640, 15176820),
    ("sixpack", "square"): (272, 34),
    ("sixpack", "long"): (256, 64),
    ("sixpack", "wide"): (10, 10),
    ("sixpack", "stairs"): (1, 1),
    ("sixpack", "hat"): (32, 16),
    ("sixpack", "zigzag"): (128, 64),
    ("solid_pentominoes", "box_2x5x6"): (2112, 264),
    ("solid_pentominoes", "box_2x3x10"): (96, 12),
    ("soma", None): (11520, 240),
}


def _instance(name: str, target: str | None = None, **kw):
    query = Query.of(load_spec(SPECS / f"{name}.yaml"),
                     **({"target": target} if target else {}), **kw)
    return packing_instance(query)


@pytest.fixture
def threads_at_once(monkeypatch):
    """Two workers whatever the machine, the threads from the first part on; the twins
    made are counted (so a test sees the threads ran)."""
    monkeypatch.setattr(scheduling, "workers_for",
                        lambda jobs: 2 if jobs is None else processes.workers_for(jobs))
    monkeypatch.setattr(scheduling, "COUNT_THREADS_AFTER", 0.0)
    twins: list[engine.EngineSession] = []
    real_twin = engine.EngineSession.twin

    def twin(self):
        made = real_twin(self)
        twins.append(made)
        return made

    monkeypatch.setattr(engine.EngineSession, "twin", twin)
    return twins


def _no_count_threads() -> bool:
    return not any(t.name == "cpmodels-count" for t in threading.enumerate())


@pytest.mark.parametrize(("name", "target"), sorted(ONE_THREAD, key=str))
def test_threads_count_as_one_thread(threads_at_once, name, target):
    instance = _instance(name, target)
    raw, distinct = ONE_THREAD[name, target]
    assert count_instance(instance).count == raw
    assert count_instance(instance, distinct=True).count == distinct
    assert threads_at_once and _no_count_threads()


@pytest.mark.parametrize(("name", "labels", "expected"), [
    ("calendar_day", ["Oct", "6"], 7), ("calendar_week", ["Jun", "7", "Tue"], 10374)])
def test_threads_count_a_calendar_date(threads_at_once, name, labels, expected):
    assert count_instance(_instance(name, labels=labels)).count == expected
    assert threads_at_once


def test_the_counts_of_each_task_and_the_nodes_of_both_threads(threads_at_once, monkeypatch):
    cover = _instance("pentominoes_6x10").cover
    one = engine.EngineSession(cover)
    tasks = one.branches()[:12]
    expected = [one.count(task) for task in tasks]
    searched: list[int] = []
    real = engine.EngineSession.tally_many

    def tally_many(self, parts, **kw):
        before = self.stats["nodes"]
        try:
            return real(self, parts, **kw)
        finally:
            searched.append(self.stats["nodes"] - before)

    monkeypatch.setattr(engine.EngineSession, "tally_many", tally_many)
    stats: dict[str, int] = {}
    assert engine.count_each(cover, tasks, stats=stats) == expected
    assert stats["nodes"] == sum(searched) > 0 and threads_at_once


def test_progress_is_monotone_and_complete(threads_at_once):
    told: list[tuple[int, int]] = []
    cover = _instance("pentominoes_6x10").cover
    assert engine.count(cover, progress=lambda done, in_all: told.append((done, in_all))) \
        == 9356
    assert told and told[-1][0] == told[-1][1]
    assert all(0 <= done <= in_all for done, in_all in told)
    assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in pairwise(told))
    assert threads_at_once and _no_count_threads()


def test_a_time_limit_stops_both_threads_with_the_parts_finished(threads_at_once):
    cover = _instance("pentominoes_8x8_square").cover
    told: list[int] = []
    with pytest.raises(OutOfTime) as stop:
        engine.count(cover, time_limit=0.02, progress=lambda done, in_all: told.append(done))
    assert isinstance(stop.value.partial, int) and 0 <= stop.value.partial < 129168
    assert "branches before the time limit" in str(stop.value)
    assert _no_count_threads()


def test_two_counts_at_once_from_two_threads(threads_at_once):
    covers = {"pentominoes_6x10": 9356, "pentominoes_8x8_centre": 520}
    answers: dict[str, int] = {}
    errors: list[BaseException] = []

    def count(name: str) -> None:
        try:
            answers[name] = engine.count(_instance(name).cover)
        except BaseException as exc:  # handed to the test
            errors.append(exc)

    callers = [threading.Thread(target=count, args=(name,)) for name in covers]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    assert not errors and answers == covers
    assert len(threads_at_once) >= 2 and _no_count_threads()


@pytest.mark.parametrize("failing", ["twin", "session"])
def test_an_error_in_one_thread_stops_the_other_and_is_raised(threads_at_once, monkeypatch,
                                                               failing):
    """One thread's session raises at its first call; the other's search (of the 8x8
    square's parts, far longer than that) is stopped, and the error reaches the caller."""
    real = engine.EngineSession.tally_many
    stopped: list[engine.EngineSession] = []
    real_stop = engine.EngineSession.stop

    def stop(self):
        stopped.append(self)
        real_stop(self)

    def tally_many(self, parts, **kw):
        if (self in threads_at_once) == (failing == "twin"):
            raise ValueError("broken part")
        return real(self, parts, **kw)

    monkeypatch.setattr(engine.EngineSession, "stop", stop)
    monkeypatch.setattr(engine.EngineSession, "tally_many", tally_many)
    with pytest.raises(ValueError, match="broken part"):
        engine.count(_instance("pentominoes_8x8_square").cover)
    assert threads_at_once and _no_count_threads()
    assert len({id(session) for session in stopped}) == 2  # each thread's session


def test_ctrl_c_in_the_calling_thread_stops_both(threads_at_once):
    def interrupt(done: int, in_all: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        engine.count(_instance("pentominoes_8x8_square").cover, progress=interrupt)
    assert _no_count_threads()


def test_one_worker_counts_every_task_in_one_call(monkeypatch):
    calls: list[int] = []
    real = engine.EngineSession.tally_many

    def tally_many(self, parts, **kw):
        calls.append(len(parts))
        return real(self, parts, **kw)

    monkeypatch.setattr(engine.EngineSession, "tally_many", tally_many)
    cover = _instance("pentominoes_6x10").cover
    tasks = engine.EngineSession(cover).branches()
    stats: dict[str, int] = {}
    assert sum(engine.count_each(cover, tasks, jobs=1, stats=stats)) == 9356
    assert calls == [len(tasks)] and stats["nodes"] > 0


def test_more_cores_than_threads_still_fork_workers(monkeypatch):
    """Where ``jobs`` asks for more workers than the threads, the parts left after
    ``COUNT_FORK_AFTER`` go to worker processes (here at once: the threads take none)."""
    if not engine.parallel_here(2):
        pytest.skip("needs fork")
    monkeypatch.setattr(scheduling, "workers_for", lambda jobs: 3)
    monkeypatch.setattr(scheduling, "COUNT_THREADS_AFTER", 0.0)
    monkeypatch.setattr(scheduling, "COUNT_FORK_AFTER", 0.0)
    ran: list[int] = []
    real = scheduling.run_units

    def run_units(runner, units, **kw):
        ran.append(len(units))
        return real(runner, units, **{**kw, "jobs": 2})

    monkeypatch.setattr(scheduling, "run_units", run_units)
    assert engine.count(_instance("pentominoes_6x10").cover) == 9356
    assert ran and ran[0] >= 2 and _no_count_threads()


def test_the_first_threads_last_whole_task_is_cut_short_for_the_second(threads_at_once,
                                                                         monkeypatch):
    """A count of one task: the first thread holds it whole when the second is to start, so
    its call is cut short (``EngineSession.interrupt``, asked until it is) and the task goes
    back to the queue, cut, for both threads; the count is as before."""
    cover = _instance("pentominoes_6x10").cover
    interrupted = threading.Event()
    real_interrupt = engine.EngineSession.interrupt
    real = engine.EngineSession.tally_many
    calls: list[tuple[bool, list[tuple[int, ...]]]] = []

    def interrupt(self):
        interrupted.set()
        real_interrupt(self)

    def tally_many(self, parts, **kw):
        calls.append((self in threads_at_once, [tuple(p) for p in parts]))
        if len(calls) == 1:  # the first thread's whole task, until it is cut short
            assert interrupted.wait(30)
            raise OutOfTime("cut short")
        return real(self, parts, **kw)

    monkeypatch.setattr(engine.EngineSession, "interrupt", interrupt)
    monkeypatch.setattr(engine.EngineSession, "tally_many", tally_many)
    assert engine.count(cover) == 9356
    assert calls[0] == (False, [()])
    assert all(part != () for _, parts in calls[1:] for part in parts)
    assert any(twin for twin, _ in calls) and _no_count_threads()


def test_an_interrupt_ends_the_call_in_progress_only():
    """``interrupt`` stops the search running (OutOfTime), not the session: it counts
    again after."""
    cover = _instance("pentominoes_8x8_square").cover
    session = engine.EngineSession(cover)
    stopped: list[OutOfTime] = []

    def count() -> None:
        try:
            session.count()
        except OutOfTime as stop:
            stopped.append(stop)

    counting = threading.Thread(target=count)
    counting.start()
    while counting.is_alive():
        session.interrupt()  # (an ask before the search has begun is lost: asked again)
        counting.join(0.001)
    assert stopped and not session.stopped
    task = session.split(session.branches()[0])[0]
    assert session.count(task) == engine.EngineSession(cover).count(task)


def test_a_twin_made_first_takes_the_layouts_made_since():
    """A twin made before its session's first question takes the layouts the session made
    since (``share_layouts``), compiling nothing again."""
    session = engine.EngineSession(_instance("pentominoes_6x10").cover)
    twin = session.twin()
    compiled = session.compiled
    twin.share_layouts(session)
    assert twin.compiled is compiled
    assert twin.count() == session.count() == 9356
