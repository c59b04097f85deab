"""The same units of work on a Dask cluster (the ``cluster`` extra: ``distributed``).

:func:`connect` reaches a running scheduler (``tcp://HOST:PORT``, ``tls://...``) or starts a
local cluster on loopback (``local``, ``local:N``); :func:`run_units_on` runs the units of
:mod:`~cpmodels.backends.engine.work` there and hands back each result as it finishes, like
:func:`~cpmodels.backends.engine.work.run_units`.

What goes over the wire: the :class:`~.work.CountJob` (the exact cover, the tally items)
once per worker, scattered before the units; then each unit (a tuple of tuples of option
ids) and its results (tallies: small dicts of counts). A worker keeps one
:class:`~.work.Counter` per job and thread, so its compiled cover and table of sub-board
counts stay warm from one unit of a job to the next; it is kept on the worker object, not
in a module-level variable. Units are pure: a unit whose worker died is run again elsewhere
by the scheduler, and the answer cannot change.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import cpmodels
from cpmodels.backends.engine.drivers import iter_solutions
from cpmodels.backends.engine.work import (
    Counter,
    CountJob,
    Progress,
    Runner,
    Task,
    in_order,
    split_tasks,
)
from cpmodels.cover import ExactCover
from cpmodels.errors import InputError

CONNECT_TIMEOUT = 10  # seconds to reach a scheduler before giving up
ENV = "CPMODELS_CLUSTER"  # the cluster address when --cluster is not given
MAX_JOBS_KEPT = 2  # jobs a worker keeps warm (the older ones are dropped)
MIN_UNITS = 64  # units a search is cut into at least (so no unit is 2% of the work)
UNITS_PER_WORKER = 16  # and this many per worker, for the loads to even out


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise InputError("--cluster needs Dask's distributed package: pip install "
                         "'cpmodels[cluster]'") from None
    return distributed


@dataclass
class Cluster:
    """A connection to a Dask scheduler (and the local cluster behind it, if one was started)."""

    client: Any
    address: str
    local: Any = None  # the LocalCluster this process started, if any
    dashboard: str | None = None
    _closed: bool = field(default=False, repr=False)

    @property
    def workers(self) -> int:
        return len(self.client.scheduler_info(n_workers=-1).get("workers", {}))

    def describe(self) -> dict[str, Any]:
        """What ``--format json`` says of the cluster."""
        return {"cluster": self.address, "workers": self.workers}

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.client.close()
        if self.local is not None:
            self.local.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect(address: str | Any) -> Cluster:
    """A :class:`Cluster` for ``address``: ``local`` or ``local:N`` (N worker processes on
    127.0.0.1), a scheduler address, or a ``distributed.Client`` already connected."""
    distributed = _distributed()
    if isinstance(address, distributed.Client):
        return Cluster(address, address.scheduler.address, None, address.dashboard_link)
    text = str(address).strip()
    if text == "local" or text.startswith("local:"):
        count = text.partition(":")[2] or "2"
        if not count.isdigit() or not 1 <= int(count) <= 256:
            raise InputError(f"--cluster {text}: give local or local:N with N from 1 to 256")
        local = distributed.LocalCluster(
            n_workers=int(count), threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address="127.0.0.1:0", silence_logs=40)
        client = distributed.Client(local)
        return Cluster(client, local.scheduler_address, local, client.dashboard_link)
    if "://" not in text:
        raise InputError(f"--cluster {text!r}: give local, local:N or a scheduler address "
                         "such as tcp://HOST:8786")
    try:
        client = distributed.Client(text, timeout=CONNECT_TIMEOUT)
    except ValueError as exc:
        raise InputError(f"--cluster {text!r} is not a scheduler address ({exc})") from None
    except (OSError, TimeoutError) as exc:
        raise InputError(f"cannot reach the Dask scheduler at {text} within "
                         f"{CONNECT_TIMEOUT} s ({type(exc).__name__}); is it running?") from None
    cluster = Cluster(client, text, None, client.dashboard_link)
    try:
        check_versions(cluster)
    except BaseException:
        cluster.close()
        raise
    return cluster


@contextlib.contextmanager
def using(cluster: Cluster | str | Any | None) -> Iterator[Cluster | None]:
    """The cluster to run on: None (this machine), an address (connected here and closed on
    leaving), a ``distributed.Client`` or a :class:`Cluster` (both left open)."""
    if cluster is None or isinstance(cluster, Cluster):
        yield cluster
        return
    if isinstance(cluster, str):
        with connect(cluster) as connected:
            yield connected
        return
    yield connect(cluster)


def _worker_version() -> str:
    return cpmodels.__version__


def check_versions(cluster: Cluster) -> None:
    """Refuse workers that run another version of cpmodels (their answers could differ)."""
    versions = cluster.client.run(_worker_version)
    other = {worker: v for worker, v in versions.items() if v != cpmodels.__version__}
    if other:
        worker, version = next(iter(other.items()))
        raise InputError(f"the cluster's workers run cpmodels {version} (e.g. {worker}), "
                         f"this client {cpmodels.__version__}; install the same version "
                         "on both")


def _run_unit(job_key: str, job: CountJob | Runner, unit: Any) -> Any:
    """On a worker: run ``unit`` with this thread's counter of ``job`` (kept warm), or with
    the worker's copy of a runner (a design, which compiles its cover once)."""
    from distributed import get_worker

    worker = get_worker()
    lock = worker.__dict__.setdefault("_cpmodels_lock", threading.Lock())
    with lock:
        kept: dict[tuple[str, int], Counter | Runner] = worker.__dict__.setdefault(
            "_cpmodels_counters", {})
        key = (job_key, threading.get_ident())
        counter: Any = kept.get(key)
        if counter is None:
            jobs = list(dict.fromkeys(k[0] for k in kept))
            for old in jobs[:max(0, len(jobs) - MAX_JOBS_KEPT + 1)]:
                for k in [k for k in kept if k[0] == old]:
                    del kept[k]
            counter = kept[key] = Counter(job) if isinstance(job, CountJob) else job
    return counter.run(unit)


def _submit(cluster: Cluster, fn: Any, job: CountJob | Runner, items: Sequence[Any],
            deadline: float | None) -> Generator[tuple[int, Any], None, None]:
    """``fn(job_key, job, item)`` for every item on the cluster, as each finishes; the job
    is scattered to every worker once. Closing the iterator (Ctrl-C, an error) cancels the
    items not finished yet; ``deadline`` (a ``time.perf_counter`` value) raises
    ``TimeoutError``."""
    distributed = _distributed()
    client = cluster.client
    job_key = uuid.uuid4().hex
    shared = client.scatter(job, broadcast=True, hash=False)
    futures = [client.submit(fn, job_key, shared, item, pure=False,
                             key=f"cpmodels-{job_key}-{i}")
               for i, item in enumerate(items)]
    index = {future.key: i for i, future in enumerate(futures)}
    timeout = None if deadline is None else max(0.0, deadline - time.perf_counter())
    try:
        for future in distributed.as_completed(futures, timeout=timeout):
            yield index[future.key], future.result()
    except distributed.TimeoutError:
        raise TimeoutError("the time limit passed with units left") from None
    finally:
        client.cancel([f for f in futures if not f.done()], force=True)
        client.cancel(shared, force=True)


def run_units_on(cluster: Cluster, job: CountJob | Runner, units: Sequence[Any],
                 deadline: float | None = None) -> Generator[tuple[int, Any], None, None]:
    """Run ``units`` on the cluster; yield ``(unit index, results)`` as each finishes.
    ``job``: a :class:`~.work.CountJob` (each unit a tuple of tasks, tallied) or a picklable
    runner whose ``run(unit)`` makes the results (a design)."""
    return _submit(cluster, _run_unit, job, units, deadline)


def units_for(cluster: Cluster) -> int:
    """How many units to cut a search into: enough that none is a large share of the work
    and the workers' loads even out."""
    return max(MIN_UNITS, UNITS_PER_WORKER * max(1, cluster.workers))


def count_on(cluster: Cluster, cover: ExactCover, *, time_limit: float | None = None,
             progress: Progress | None = None) -> int | None:
    """How many solutions ``cover`` has, counted in units on the cluster (None: the time
    limit passed first)."""
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    job = CountJob(cover)
    parts = _parts(cluster, job)
    total = done = 0
    try:
        for _, (tally,) in run_units_on(cluster, job, [(part,) for part in parts], deadline):
            total += sum(tally.values())
            done += 1
            if progress is not None:
                progress(done, len(parts))
    except TimeoutError:
        return None
    return total


def solutions_on(cluster: Cluster, cover: ExactCover) -> Iterator[list[int]]:
    """Every solution of ``cover``, enumerated in units on the cluster and handed back in
    the order one process finds them."""
    job = CountJob(cover)
    for found in in_order(_submit(cluster, _enumerate_unit, job, _parts(cluster, job), None)):
        yield from found


def _parts(cluster: Cluster, job: CountJob) -> list[Task]:
    """The whole search of ``job`` cut into enough disjoint tasks for the cluster, in the
    order one process searches them."""
    return [part for group in split_tasks(Counter(job), [()], units_for(cluster))
            for part in group]


def _enumerate_unit(job_key: str, job: CountJob, task: Task) -> list[list[int]]:
    """On a worker: every solution that contains the options of ``task``, in engine order."""
    return list(iter_solutions(job.cover, forced=task))
