"""The run layer: one plan gives the same results at every place, a run stops from any
thread, and the sinks keep what was finished."""

from __future__ import annotations

import threading
import time

import pytest
from conftest import SPECS

from cpmodels.errors import OutOfTime
from cpmodels.running import (
    Here,
    Memory,
    Plan,
    Processes,
    ResumableFile,
    Run,
    Threads,
    csv_line,
    place_for,
    run,
)


class Squares:
    """A worker: each item squared (a unit is a tuple of items)."""

    def __init__(self, pause: float = 0.0) -> None:
        self.pause = pause
        self.stopped = threading.Event()

    def run(self, unit: tuple[int, ...]) -> list[int]:
        time.sleep(self.pause)
        return [n * n for n in unit]

    def stop(self) -> None:
        self.stopped.set()


@pytest.mark.parametrize("place", [Here(), Threads(3), Processes(2)],
                         ids=["here", "threads", "processes"])
def test_one_plan_gives_the_same_results_at_every_place(place):
    found = Memory()
    run(Plan(range(40), Squares), place, found)
    assert found.in_order() == [n * n for n in range(40)]


def test_threads_take_the_next_item_when_free_so_a_long_item_holds_up_no_other():
    """Item 0 ends only once every other item is done: a thread free takes the next item
    (items dealt in turn would leave items 2 and 4 behind item 0 for good)."""
    others_done = threading.Event()
    done: set[int] = set()

    class WaitsOnTheOthers(Squares):
        def run(self, unit: tuple[int, ...]) -> list[int]:
            if unit == (0,):
                assert others_done.wait(30), "the other items waited behind item 0"
            else:
                done.add(unit[0])
                if done == {1, 2, 3, 4}:
                    others_done.set()
            return super().run(unit)

    found = Memory()
    run(Plan(range(5), WaitsOnTheOthers), Threads(2), found)
    assert found.in_order() == [0, 1, 4, 9, 16]


def test_a_tallied_plan_in_threads_stays_on_one_worker_while_the_rest_is_quick(monkeypatch):
    """As the sweep's tasks stay in one process: while the engine's rule says the rest would
    be quick, every item runs on the first thread's worker (its table warm), none made for
    the others; once it says the rest would be long, the rest is shared, each item still run
    once. The rule is the test's, so no item's time on a busy machine decides the run."""
    import cpmodels.running as running

    made: list[Squares] = []
    second = threading.Event()  # a worker was made for another thread

    class WaitsToBeShared(Squares):
        def run(self, unit: tuple[int, ...]) -> list[int]:
            # once shared, the first thread's next item waits for the other thread to join
            # (else the first could take every item before the other wakes)
            if sharing and unit[0] >= 2 and len(made) == 1:
                assert second.wait(30), "the rest was not shared"
            return super().run(unit)

    def worker() -> Squares:
        made.append(WaitsToBeShared())
        if len(made) == 2:
            second.set()
        return made[-1]

    asked: list[tuple[int, bool]] = []

    def rule(answer: bool):
        def tasks_stay_here(first, last, left, *, cold):
            asked.append((left, cold))
            return answer
        return tasks_stay_here

    sharing = False
    monkeypatch.setattr(running, "tasks_stay_here", rule(True))
    found = Memory()
    run(Plan(range(8), worker, tallied=True), Threads(2), found)
    assert found.in_order() == [n * n for n in range(8)] and len(made) == 1
    assert asked == [(left, True) for left in range(6, 1, -1)]  # after each item but the first
    sharing = True
    made.clear()
    asked.clear()
    monkeypatch.setattr(running, "tasks_stay_here", rule(False))
    found = Memory()
    run(Plan(range(8), worker, tallied=True), Threads(2), found)
    assert found.in_order() == [n * n for n in range(8)] and len(made) == 2
    assert asked == [(6, True)]  # asked after the second item, once; the others start cold


def test_the_rule_for_sharing_a_sweeps_tasks():
    """calendar_week_11's pace (a first task of 3.7 s, then 1.9 s each, five left): forked
    warm workers take the rest; threads that start cold would pay 3.7 s again for 9.5 s
    shared, so the tasks stay; a first task under a second keeps every task here."""
    from cpmodels.backends.engine import tasks_stay_here

    assert tasks_stay_here(3.7, None, 6, cold=True)  # the second task stays, always
    assert not tasks_stay_here(3.7, 1.9, 5)
    assert tasks_stay_here(3.7, 1.9, 5, cold=True)
    assert not tasks_stay_here(3.7, 1.9, 20, cold=True)  # 38 s left: worth a cold start
    assert tasks_stay_here(3.7, 2.9, 5, cold=True)  # a slow second task: still not
    assert tasks_stay_here(0.5, 10.0, 100)


def test_previews_come_first_on_their_own_worker_and_memory_leaves_them_out():
    made = []

    def worker() -> Squares:
        made.append("items")
        return Squares()

    def preview() -> Squares:
        made.append("preview")
        return Squares()

    work = Run(Plan([1, 2, 3], worker, preview=[10], preview_worker=preview), Here())
    results = list(work.results())
    assert (results[0].index, results[0].result) == (None, 100)
    assert made == ["preview", "items"]
    kept = Memory()
    for done in results:
        kept.take(done)
    assert kept.in_order() == [1, 4, 9]


def test_a_run_in_threads_stops_from_another_thread_and_says_nothing_more():
    workers: list[Squares] = []

    def worker() -> Squares:
        workers.append(Squares(pause=0.05))
        return workers[-1]

    work = Run(Plan(range(1000), worker), Threads(2))
    seen = 0
    for _ in work.results():
        seen += 1
        if seen == 3:
            threading.Thread(target=work.stop).start()
    assert 3 <= seen < 20 and work.stopped
    assert workers and all(w.stopped.is_set() for w in workers)


def test_a_time_limit_raises_out_of_time_with_what_was_finished_kept():
    found = Memory()
    with pytest.raises(OutOfTime):
        run(Plan(range(1000), lambda: Squares(pause=0.02)), Here(), found, time_limit=0.2)
    assert 0 < len(found.found) < 1000
    assert found.in_order() == [n * n for n in range(len(found.found))]


def test_a_workers_error_reaches_the_reader():
    class Failing(Squares):
        def run(self, unit):
            raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        run(Plan(range(5), Failing), Threads(2), Memory())


def test_a_resumable_file_appends_and_rewrites_what_an_earlier_run_kept(tmp_path):
    path = tmp_path / "rows.csv"
    with ResumableFile(path) as out:
        out.write([csv_line(["a", "b"]), csv_line(["1", "x,y"])])
    path.write_text(path.read_text() + "2,cut sho")  # a killed run's last line
    with ResumableFile(path, rewrite=["a,b", '1,"x,y"']) as out:
        out.write(["2,z"])
    assert path.read_text() == 'a,b\n1,"x,y"\n2,z\n'
    with ResumableFile(path, append=True,
                       lines_of=lambda done: [f"{done.index},{done.result}"]) as out:
        run(Plan([3], Squares), Here(), out)
    assert path.read_text().splitlines()[-1] == "0,9"


def test_place_for_takes_jobs_and_cluster_as_the_command_line_does():
    assert isinstance(place_for(1), Here)
    assert isinstance(place_for(2), Processes)  # the main thread of a process that forks
    box: list = []
    thread = threading.Thread(target=lambda: box.append(place_for(2)))
    thread.start()
    thread.join()
    assert isinstance(box[0], Here)  # processes are forked from the main thread alone


def test_the_sweep_runs_the_same_rows_here_and_in_memory(tmp_path):
    from cpmodels.spec import load_spec
    from cpmodels.sweep import run_sweep

    spec = load_spec(SPECS / "calendar_day.yaml")
    kept = run_sweep(spec, None, jobs=1)
    written = run_sweep(spec, tmp_path / "day.csv", jobs=1)
    assert kept.total == written.total == 25_061
    assert kept.as_dict() == written.as_dict()
    assert len((tmp_path / "day.csv").read_text().splitlines()) == 1 + 1 + 372


def test_one_summary_rule_the_fewest_is_solvable_and_the_unsolvable_are_apart():
    from cpmodels.sweep import Row, SweepSummary

    summary = SweepSummary()
    for labels, count in ((("Jan", "1"), 5), (("Jan", "2"), 0), (("Jan", "3"), 2),
                          (("Jan", "4"), 2), (("Jan", "5"), 9)):
        summary.add(Row(labels, True, count))
    found = summary.as_dict()
    assert found["fewest"] == {"labels": ["Jan", "3"], "count": 2}  # the first on a tie
    assert found["most"] == {"labels": ["Jan", "5"], "count": 9}
    assert found["unsolvable"] == [["Jan", "2"]]
    assert summary.lines("cal", 1.0, "rows.csv")[1] == "fewest: Jan 3 with 2"
