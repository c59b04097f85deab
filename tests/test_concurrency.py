"""Counting from several threads at once, stopping searches, and worker processes that die."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest
from conftest import ROOT, SPECS, cpu_seconds

from cpmodels import api
from cpmodels.backends import engine
from cpmodels.errors import OutOfTime
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec
from cpmodels.sweep import run_sweep

# (spec, labels, count): figures of the reference sweeps and boxes.
CASES = [
    ("calendar_day.yaml", ["Oct", "6"], 7),
    ("calendar_day.yaml", ["Jan", "25"], 216),
    ("calendar_week.yaml", ["Jun", "7", "Tue"], 10374),
    ("calendar_week.yaml", ["Apr", "6", "Mon"], 97),
    ("calendar_week.yaml", ["Jun", "1", "Tue"], 3537),
    ("calendar_week.yaml", ["Jun", "2", "Tue"], 4455),
    ("pentominoes_8x8_centre.yaml", None, 520),
    ("calendar_week_11.yaml", ["Jan", "1", "Mon"], 119836),
]


def _cover(spec: str, labels: list[str] | None):
    return packing_instance(Query.of(load_spec(SPECS / spec), labels=labels)).cover


def _in_threads(calls: list) -> list:
    """Run every call in its own thread, all released at once; their results in order."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(k: int) -> None:
        barrier.wait()
        try:
            results[k] = calls[k]()
        except BaseException as exc:  # handed back to the test
            results[k] = exc

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return results


def test_counts_from_8_threads_on_different_covers():
    covers = [_cover(spec, labels) for spec, labels, _ in CASES]
    expected = [n for _, _, n in CASES]
    for _ in range(3):
        assert _in_threads([lambda c=c: engine.count(c) for c in covers]) == expected


def test_the_same_cover_from_8_threads():
    cover = _cover("calendar_week.yaml", ["Jun", "7", "Tue"])
    assert _in_threads([lambda: engine.count(cover)] * 8) == [10374] * 8


def test_api_counts_and_sweeps_from_threads(tmp_path):
    day = load_spec(SPECS / "calendar_day.yaml")
    calls = [lambda: api.count(SPECS / "calendar_week.yaml", labels=["Jun", "7", "Tue"]).count,
             lambda: api.count(SPECS / "pentominoes_6x10.yaml", distinct=True).count,
             lambda: run_sweep(day, tmp_path / "a.csv").total,
             lambda: run_sweep(day, tmp_path / "b.csv").total]
    assert _in_threads(calls) == [10374, 2339, 25061, 25061]
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()


def test_a_session_serves_one_thread_at_a_time():
    """A second thread waits for the session's turn within its own time limit."""
    session = engine.EngineSession(_cover("pentominoes_8x8_square.yaml", None))
    outcome: list = []

    def first() -> None:
        try:
            outcome.append(session.count())
        except OutOfTime as exc:
            outcome.append(exc)

    worker = threading.Thread(target=first)
    worker.start()
    time.sleep(0.3)
    with pytest.raises(OutOfTime, match="waited"):
        session.count(time_limit=0.2)
    session.stop()
    worker.join(5)
    assert not worker.is_alive()
    assert isinstance(outcome[0], OutOfTime)
    with pytest.raises(OutOfTime, match="stopped"):  # stopped for good
        session.count()


def test_one_session_shared_by_eight_threads_answers_each_right():
    """Counts, tallies, existence, streams and difficulty asked of one session at once:
    the table questions take turns, the rest run side by side, every answer right."""
    cover = _cover("calendar_day.yaml", ["Oct", "6"])
    session = engine.EngineSession(cover)
    branches = session.branches()
    expected = [engine.EngineSession(cover).count(task) for task in branches]
    calls = [lambda: [session.count(task) for task in branches],
             lambda: session.count(),
             lambda: session.exists([list(task) for task in branches]),
             lambda: sum(1 for _ in session.solutions()),
             lambda: session.difficulty() is not None,
             lambda: [session.count(task) for task in reversed(branches)],
             lambda: sum(session.tally().values()),
             lambda: len(session.first_solution() or [])]
    results = _in_threads(calls)
    assert results[0] == expected and results[5] == expected[::-1]
    assert results[1] == results[3] == results[6] == 7
    assert results[2] == [n > 0 for n in expected]
    assert results[4] is True and results[7] > 0


def test_a_search_out_of_time_keeps_its_table_true():
    """Stopped half-way by its time limit, the table holds only finished sub-boards:
    counting on with the same session gives the same answer as a fresh count."""
    cover = _cover("calendar_week_11.yaml", ["Jan", "1", "Mon"])
    session = engine.EngineSession(cover)
    with pytest.raises(OutOfTime):
        session.count(time_limit=0.05)
    assert session.stats["nodes"] > 0  # it had started
    assert session.count() == 119836


def test_a_time_limit_stops_a_count_inside_a_branch():
    cover = _cover("pentominoes_8x8_square.yaml", None)  # half a minute of processor time in all
    for jobs in (1, 2):
        start, cpu = time.perf_counter(), cpu_seconds()
        with pytest.raises(OutOfTime) as stop:
            engine.count(cover, jobs=jobs, time_limit=0.5)
        assert isinstance(stop.value.partial, int)
        # at most the limit on each worker's core, and a second to start and stop them
        assert cpu_seconds() - cpu < 0.5 * jobs + 1.0
        assert time.perf_counter() - start < 120  # a hang guard: the work is measured above


def test_a_worker_that_dies_has_its_unit_run_again(monkeypatch, tmp_path):
    if not engine.parallel_here(2):
        pytest.skip("needs fork")
    marker = tmp_path / "died"
    real_run = engine.EngineSession.run

    def die_once(self, unit):
        if not marker.exists():
            marker.write_text("")
            os._exit(9)  # as if killed while running a unit
        return real_run(self, unit)

    monkeypatch.setattr(engine.EngineSession, "run", die_once)
    monkeypatch.setattr(engine.placement.scheduling, "COUNT_FORK_AFTER", 0.0)
    monkeypatch.setattr(engine.placement.scheduling, "COUNT_THREADS", 1)  # workers, not threads
    cover = _cover("calendar_week.yaml", ["Jun", "7", "Tue"])
    assert engine.count(cover, jobs=2) == 10374
    assert marker.exists()


def test_a_unit_that_fails_in_a_worker_is_reported(monkeypatch):
    if not engine.parallel_here(2):
        pytest.skip("needs fork")

    def fail(self, unit):
        raise ValueError("broken unit")

    monkeypatch.setattr(engine.EngineSession, "run", fail)
    monkeypatch.setattr(engine.placement.scheduling, "COUNT_FORK_AFTER", 0.0)
    monkeypatch.setattr(engine.placement.scheduling, "COUNT_THREADS", 1)  # workers, not threads
    with pytest.raises(engine.WorkerFailed, match="broken unit"):
        engine.count(_cover("calendar_week.yaml", ["Jun", "7", "Tue"]), jobs=2)


def test_units_run_in_processes_that_did_not_fork(monkeypatch):
    """Without fork (as on macOS or Windows), workers start from a pickled session, which
    leaves its compiled arrays and tables behind and compiles again."""
    monkeypatch.setattr(engine.placement.processes, "can_fork_here", lambda: False)
    session = engine.EngineSession(_cover("calendar_day.yaml", ["Oct", "6"]))
    branches = session.branches()
    assert session.count() == 7  # warm here; nothing of that goes over
    results = engine.run_units(session, [(b,) for b in branches], jobs=2)
    total = sum(sum(tally.values()) for _, (tally,) in results)
    assert total == 7


def test_first_use_from_8_threads():
    """A fresh interpreter: 8 threads count at once, each as one thread alone would."""
    script = (
        "import threading\n"
        "from cpmodels.backends.engine import count\n"
        "from cpmodels.instance import packing_instance\n"
        "from cpmodels.query import Query\n"
        "from cpmodels.spec import load_spec\n"
        f"spec = load_spec({str(SPECS / 'calendar_day.yaml')!r})\n"
        "days = [str(d) for d in range(1, 9)]\n"
        "covers = [packing_instance(Query.of(spec, labels=['Oct', d])).cover for d in days]\n"
        "out = [None] * 8\n"
        "def run(k): out[k] = count(covers[k])\n"
        "threads = [threading.Thread(target=run, args=(k,)) for k in range(8)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print(out)\n"
        "print([count(c) for c in covers])\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    concurrent, serial = done.stdout.splitlines()
    assert concurrent == serial and "None" not in concurrent



# Designs the core decides (``cpcore_design``, on the reach search's tables), each cut to its
# first candidate sets so that a run takes a moment; some of the rectangle's work.
DESIGN_POOLS = [("apad_rectangle_pentominoes", 120), ("apad_hexomino_pentominoes", 120)]


def _decided(name: str, sets: int) -> list:
    """The verdicts of a design's first ``sets`` candidate sets, decided by a design of its
    own (its own session): the order of the dates learnt, then the sets in one call."""
    import itertools

    from cpmodels.design import Design, load_board
    from cpmodels.spec.loading import load_design

    path = SPECS / "designs" / f"{name}.yaml"
    spec = load_design(path)
    design = Design(spec, load_board(spec, path), with_counts=False)
    assert design._cover(False).session.reaches  # decided by the core's design call
    design.learn_order(8)
    return design.run(list(itertools.islice(design.candidates(), sets)))


def test_two_designs_decided_on_two_threads_at_once_answer_as_alone():
    """Two designs decided on two threads at once (the core's design decisions running
    side by side, the interpreter lock let go): each thread's verdicts, working sets and
    first failures, are those of its design decided alone."""
    alone = [_decided(name, sets) for name, sets in DESIGN_POOLS]
    assert [len(verdicts) for verdicts in alone] == [sets for _, sets in DESIGN_POOLS]
    assert any(v.works for v in alone[0]) and not all(v.works for v in alone[0])
    assert _in_threads([lambda n=name, s=sets: _decided(n, s)
                        for name, sets in DESIGN_POOLS]) == alone
