"""Units of work on a real Dask cluster: a scheduler and two workers as processes on loopback.

Each test starts what it needs on free ports of 127.0.0.1 and stops it at the end.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import SPECS, free_port, said_port, stop_process

import cpmodels
from cpmodels import api
from cpmodels.backends.engine.placement import cluster as cluster_module
from cpmodels.errors import InputError
from cpmodels.spec import load_spec
from cpmodels.sweep import run_sweep

pytest.importorskip("distributed")

def _start(*argv: str, said: bool = False) -> subprocess.Popen:
    """A Dask command line program; ``said``: its log (stderr) read as its output."""
    return subprocess.Popen([sys.executable, "-c", "import sys; from distributed.cli."
                             f"{argv[0]} import main; sys.argv[0] = {argv[0]!r}; main()",
                             *argv[1:]], stdout=subprocess.PIPE if said else subprocess.DEVNULL,
                            stderr=subprocess.STDOUT if said else subprocess.DEVNULL,
                            text=said, start_new_session=True)


def _scheduler() -> tuple[str, subprocess.Popen]:
    """A Dask scheduler listening on 127.0.0.1 on a port it picks, and its address (as
    its log says it)."""
    process = _start("dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                     "--dashboard-address", "127.0.0.1:0", said=True)
    try:
        port = said_port(process, r"Scheduler at:\s+tcp://127\.0\.0\.1:(\d+)", 60)
    except BaseException:
        stop_process(process)
        raise
    return f"tcp://127.0.0.1:{port}", process


@contextmanager
def dask_cluster(workers: int = 2) -> Iterator[tuple[str, list[subprocess.Popen]]]:
    """A scheduler and ``workers`` single-threaded workers (no nanny: a killed worker stays
    dead) on 127.0.0.1, started once the scheduler listens; the scheduler's address and the
    worker processes."""
    address, scheduler = _scheduler()
    started = [scheduler]
    try:
        started += [_start("dask_worker", address, "--nthreads", "1", "--no-nanny",
                           "--host", "127.0.0.1", "--no-dashboard") for _ in range(workers)]
        from distributed import Client

        with Client(address, timeout=30) as client:
            client.wait_for_workers(workers, timeout=60)
        yield address, started[1:]
    finally:
        for process in reversed(started):
            stop_process(process)


def _rows(path: Path) -> list[list[str]]:
    with path.open(newline="") as handle:
        return list(csv.reader(handle))  # the question line too


def test_a_sweep_survives_a_worker_killed_mid_run(tmp_path):
    spec = load_spec(SPECS / "calendar_day.yaml")
    alone = run_sweep(spec, tmp_path / "alone.csv", jobs=1)
    killed = threading.Event()
    with dask_cluster(2) as (address, workers), cluster_module.connect(address) as cluster:
        assert cluster.workers == 2

        def progress(done: int, in_all: int) -> None:
            if done >= 31 and not killed.is_set():  # the first month is in: kill a worker
                os.kill(workers[0].pid, signal.SIGKILL)
                killed.set()

        summary = run_sweep(spec, tmp_path / "cluster.csv", cluster=cluster,
                            progress=progress)
        assert killed.is_set() and workers[0].wait(10) == -signal.SIGKILL
        assert cluster.workers == 1
    assert summary.units >= 64
    assert summary.total == alone.total == 25061
    assert _rows(tmp_path / "cluster.csv") == _rows(tmp_path / "alone.csv")


def test_counts_and_enumeration_on_a_cluster_match_one_process(tmp_path, run_cli):
    with dask_cluster(2) as (address, _):
        assert api.count(SPECS / "calendar_week.yaml", labels=["Jun", "7", "Tue"],
                         cluster=address).count == 10374
        code, _, err = run_cli("enumerate", SPECS / "calendar_day.yaml", "--labels", "Oct",
                                 "6", "--out", tmp_path / "on.jsonl", "--cluster", address)
        assert code == 0 and f"cluster {address}: 2 workers" in err
    code, _, _ = run_cli("enumerate", SPECS / "calendar_day.yaml", "--labels", "Oct", "6",
                         "--out", tmp_path / "here.jsonl")
    here = [line.split('"seconds"')[0] for line in
             (tmp_path / "here.jsonl").read_text().splitlines()]
    assert [line.split('"seconds"')[0] for line in
            (tmp_path / "on.jsonl").read_text().splitlines()] == here


def test_an_unreachable_scheduler_is_one_line_and_exit_2(run_cli, monkeypatch):
    """The program gives up on the scheduler after its own connect timeout: Dask's own,
    made ten minutes here, would outlast the test's two-minute guard against a hang."""
    import dask

    monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT", 2)  # 10 s on the command line
    port = free_port()  # nothing listens there
    done: list[tuple[int, str, str]] = []
    with dask.config.set({"distributed.comm.timeouts.connect": "600s"}):
        worker = threading.Thread(target=lambda: done.append(run_cli(
            "count", SPECS / "calendar_day.yaml", "--labels", "Oct", "6",
            "--cluster", f"tcp://127.0.0.1:{port}")), daemon=True)
        worker.start()
        worker.join(120)
    assert done, "still connecting after 120 s: the connect timeout was not applied"
    code, _, err = done[0]
    assert code == 2
    assert err.strip() == (f"error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port} "
                           "within 2 s (OSError); is it running?")


def test_bad_cluster_addresses_and_backends_are_refused(run_cli, monkeypatch):
    for address, fragment in [("local:0", "local:N with N from 1 to 256"),
                              ("my-laptop", "give local, local:N or a scheduler address"),
                              ("tcp://", "is not a scheduler address (missing port"),
                              ("ftp://x", "unknown address scheme 'ftp'")]:
        code, _, err = run_cli("count", SPECS / "calendar_day.yaml", "--cluster", address)
        assert code == 2 and fragment in err
    code, _, err = run_cli("count", SPECS / "calendar_day.yaml", "--backend", "sat",
                           "--cluster", "local:1")
    assert code == 2 and "(engine), not sat" in err
    monkeypatch.setenv("CPMODELS_CLUSTER", "nowhere")  # the environment's address is used
    code, _, err = run_cli("count", SPECS / "calendar_day.yaml")
    assert code == 2 and "'nowhere'" in err


def test_without_the_extra_the_message_names_it(run_cli, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    code, _, err = run_cli("sweep", SPECS / "calendar_day.yaml", "--out", tmp_path / "x.csv",
                           "--cluster", "local")
    assert code == 2 and "pip install 'cpmodels[cluster]'" in err


def test_workers_of_another_version_are_refused(monkeypatch):
    real = cpmodels.__version__
    with dask_cluster(1) as (address, _):
        monkeypatch.setattr(cpmodels, "__version__", "0.0.0-other")
        with pytest.raises(InputError, match=f"workers run cpmodels {real} .* this client "
                                             "0.0.0-other"):
            cluster_module.connect(address)


def test_resume_on_a_cluster_finishes_what_a_killed_client_left(tmp_path, run_cli):
    spec = SPECS / "calendar_day.yaml"
    code, _, _ = run_cli("sweep", spec, "--out", tmp_path / "full.csv")
    assert code == 0
    lines = (tmp_path / "full.csv").read_text().splitlines(keepends=True)
    # What a killed client leaves: the question and columns, some rows, a line cut short.
    (tmp_path / "part.csv").write_text("".join(lines[:100]) + lines[100][:5])
    code, out, _ = run_cli("sweep", spec, "--out", tmp_path / "part.csv", "--resume",
                           "--cluster", "local:1", "--format", "json")
    assert code == 0 and '"workers": 1' in out
    assert (tmp_path / "part.csv").read_text() == (tmp_path / "full.csv").read_text()


def test_a_design_on_a_cluster_gives_the_verdicts_of_one_process(tmp_path, run_cli):
    from test_design import SMALL

    path = tmp_path / "small.yaml"
    path.write_text(SMALL.replace("count: 1}", "count: [1, 2]}").replace(
        '  - {name: Y, shape: "####/..#."}\n', ""))  # 21 sets
    here, there = tmp_path / "here.jsonl", tmp_path / "there.jsonl"
    code, _, _ = run_cli("design", path, "--out", here, "--jobs", "1")
    assert code == 0
    with dask_cluster(2) as (address, _):
        code, text, err = run_cli("design", path, "--out", there, "--cluster", address,
                                  "--format", "json")
    assert code == 0 and f"cluster {address}: 2 workers" in err
    assert json.loads(text)["workers"] == 2
    lines = sorted(here.read_text().splitlines())
    assert sorted(there.read_text().splitlines()) == lines and len(lines) == 1 + 21


def test_the_towers_pricing_on_a_cluster_gives_the_bound_of_one_process(tmp_path, run_cli):
    """Each step's two bands go to the cluster as units (their small worker with each); a
    worker killed between steps loses nothing: the bound and prices are those of one
    process."""
    import zipfile

    import numpy as np

    from cpmodels.running import OnCluster
    from cpmodels.towers import bounds, towers_problem

    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 5, 5)
    asked = dict(steps=16, method="bundle", scale=100, target=730)
    here = bounds.lagrangian_bound(problem, 3, **asked)
    killed = threading.Event()
    with dask_cluster(2) as (address, workers), cluster_module.connect(address) as cluster:
        def kill_one(state) -> None:
            if len(state.values) == 5:  # Polyak's steps are done: kill a worker
                os.kill(workers[0].pid, signal.SIGKILL)
                killed.set()  # the next step's units go out at once, the scheduler not told

        there = bounds.lagrangian_bound(problem, 3, **asked, place=OnCluster(cluster),
                                        on_state=kill_one)
        assert killed.is_set() and workers[0].wait(10) == -signal.SIGKILL
    assert there.steps == here.steps and np.array_equal(there.prices, here.prices)
    # The command line: solve --proof --priced-bound --cluster local:2.
    proof = tmp_path / "5x5.bound"
    code, out, err = run_cli("solve", SPECS / "towers.yaml", "--size", "5x5", "--time-limit",
                             "5", "--proof", proof, "--priced-bound", "--price-steps", "16",
                             "--price-method", "bundle", "--price-scale", "100",
                             "--cluster", "local:2", "--format", "json")
    assert code == 0 and "cluster tcp://127.0.0.1:" in err and "pricing step 1/16" in err
    assert json.loads(out)["proof_bound"] == here.bound
    with zipfile.ZipFile(proof) as archive:
        assert np.array_equal(np.array(json.loads(archive.read("claim.json"))["prices"]),
                              here.prices)


def test_a_broadcast_that_meets_a_worker_just_killed_is_tried_again(monkeypatch):
    """A worker killed between two jobs, the scheduler not told yet, closes the next
    runner's broadcast: it is tried again, at most ``SCATTER_TRIES`` times in all."""
    from distributed.comm import CommClosedError

    class Closing:
        def __init__(self, failures: int) -> None:
            self.failures, self.calls = failures, 0

        def scatter(self, runner, **options):
            self.calls += 1
            if self.calls <= self.failures:
                raise CommClosedError("in <TCP (closed) ConnectionPool.scatter>")
            return ("shared", runner, options["broadcast"])

    monkeypatch.setattr(cluster_module, "SCATTER_PAUSE", 0)
    client = Closing(2)
    assert cluster_module._broadcast(client, "runner") == ("shared", "runner", True)
    assert client.calls == 3
    client = Closing(cluster_module.SCATTER_TRIES)
    with pytest.raises(CommClosedError):
        cluster_module._broadcast(client, "runner")
    assert client.calls == cluster_module.SCATTER_TRIES
