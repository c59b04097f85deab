"""The same units of work on a Dask cluster (the ``cluster`` extra: ``distributed``).

:func:`connect` reaches a running scheduler (``tcp://HOST:PORT``, ``tls://...``) or starts a
local cluster on loopback (``local``, ``local:N``); :func:`run_units_on` runs units there and
hands back each result as it finishes, as ``processes.run_units`` does on this machine
(``scheduling.py`` chooses between the two).

What goes over the wire: the runner (an engine session pickles as its exact cover and
tally items, without compiled arrays) once per worker, scattered before the units; then
each unit (a tuple of tuples of option ids) and its results (tallies: small dicts of
counts). A worker keeps one copy of the runner per job and thread, so its compiled cover and
tables stay warm from one unit of a job to the next; it is kept on the worker object, not in
a module-level variable. Units are pure: a unit whose worker died is run again elsewhere by
the scheduler, and the answer cannot change.
"""

from __future__ import annotations

import contextlib
import pickle
import threading
import time
import uuid
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import cpmodels
from cpmodels.backends.engine.placement.processes import Runner, cores
from cpmodels.backends.engine.session import EngineSession, Task
from cpmodels.errors import InputError, OutOfTime
from cpmodels.extras import require
from cpmodels.interrupt import seconds_left

CONNECT_TIMEOUT = 10  # seconds to reach a scheduler before giving up
MAX_JOBS_KEPT = 2  # jobs a worker keeps warm (the older ones are dropped)
MIN_UNITS = 64  # units a search is cut into at least (so no unit is 2% of the work)
UNITS_PER_WORKER = 16  # and this many per worker, for the loads to even out
# A runner this small (pickled, in bytes) goes with each item rather than being broadcast
# first: a job's work alone then meets a worker that died since the last job (a towers
# pricing sends a job of two bands a step), and it is run again elsewhere.
SENT_WITH_ITEMS = 1 << 16
SCATTER_TRIES = 5  # a runner's broadcast tried this often (a worker may have just died)
SCATTER_PAUSE = 0.5  # seconds between the tries: for the scheduler to hear of the death
SCATTER_SECONDS = 10  # a broadcast taking longer (to a worker gone quiet) is tried again


def _distributed() -> Any:
    require("cluster", "--cluster")
    import distributed

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
        local = distributed.LocalCluster(  # at most a worker per core
            n_workers=min(int(count), cores()), threads_per_worker=1, processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0", silence_logs=40)
        try:
            client = distributed.Client(local)
        except BaseException:  # (Ctrl-C as it connects): the workers started go too
            local.close()
            raise
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


def _run_unit(job_key: str, runner: Runner, unit: Any) -> Any:
    """On a worker: run ``unit`` with this thread's copy of ``runner`` (kept warm)."""
    return _kept(job_key, runner).run(unit)


def _kept(job_key: str, runner: Any) -> Any:
    """This worker thread's copy of ``runner`` for the job ``job_key``: made (by a pickle
    round trip, so without another thread's tables) the first time, then kept; only the
    newest :data:`MAX_JOBS_KEPT` jobs are kept."""
    from distributed import get_worker

    worker = get_worker()
    lock = worker.__dict__.setdefault("_cpmodels_lock", threading.Lock())
    with lock:
        kept: dict[tuple[str, int], Any] = worker.__dict__.setdefault("_cpmodels_runners", {})
        key = (job_key, threading.get_ident())
        copy = kept.get(key)
        if copy is None:
            jobs = list(dict.fromkeys(k[0] for k in kept))
            for old in jobs[:max(0, len(jobs) - MAX_JOBS_KEPT + 1)]:
                for k in [k for k in kept if k[0] == old]:
                    del kept[k]
            copy = kept[key] = pickle.loads(pickle.dumps(runner))
    return copy


def _submit(cluster: Cluster, fn: Any, runner: Runner, items: Sequence[Any],
            deadline: float | None) -> Generator[tuple[int, Any], None, None]:
    """``fn(job_key, runner, item)`` for every item on the cluster, as each finishes; the
    runner is scattered to every worker once, or goes with each item when it is small
    (:data:`SENT_WITH_ITEMS`). Closing the iterator (Ctrl-C, an error) cancels the items
    not finished yet; ``deadline`` (a ``time.perf_counter`` value) raises
    :class:`~cpmodels.errors.OutOfTime`."""
    distributed = _distributed()
    client = cluster.client
    job_key = uuid.uuid4().hex
    small = len(pickle.dumps(runner)) <= SENT_WITH_ITEMS
    shared = runner if small else _broadcast(client, runner)
    futures = [client.submit(fn, job_key, shared, item, pure=False,
                             key=f"cpmodels-{job_key}-{i}")
               for i, item in enumerate(items)]
    index = {future.key: i for i, future in enumerate(futures)}
    try:
        for future in distributed.as_completed(futures, timeout=seconds_left(deadline)):
            yield index[future.key], future.result()
    except distributed.TimeoutError:
        raise OutOfTime("the time limit passed with units left") from None
    finally:
        client.cancel([f for f in futures if not f.done()], force=True)
        if not small:
            client.cancel(shared, force=True)


def _broadcast(client: Any, runner: Runner) -> Any:
    """``runner`` scattered to every worker. A worker killed since the last job, the
    scheduler not told yet, fails the broadcast: it is tried again once the scheduler has
    had a moment to drop it (:data:`SCATTER_TRIES` times at most)."""
    from distributed.comm import CommClosedError

    for _ in range(SCATTER_TRIES - 1):
        try:
            return client.scatter(runner, broadcast=True, hash=False, timeout=SCATTER_SECONDS)
        except (CommClosedError, OSError, KeyError):  # KeyError: the scheduler lost the
            time.sleep(SCATTER_PAUSE)  # worker while it sent (a TimeoutError is an OSError)
    return client.scatter(runner, broadcast=True, hash=False, timeout=SCATTER_SECONDS)


def run_units_on(cluster: Cluster, runner: Runner, units: Sequence[Any],
                 deadline: float | None = None) -> Generator[tuple[int, Any], None, None]:
    """Run ``units`` on the cluster; yield ``(unit index, results)`` as each finishes."""
    return _submit(cluster, _run_unit, runner, units, deadline)


def units_for(cluster: Cluster) -> int:
    """How many units to cut a search into: enough that none is a large share of the work
    and the workers' loads even out."""
    return max(MIN_UNITS, UNITS_PER_WORKER * max(1, cluster.workers))


def solutions_on(cluster: Cluster, session: EngineSession,
                 tasks: Sequence[Task]) -> Generator[tuple[int, Any], None, None]:
    """Every solution of each task (in engine order), one task a unit on the cluster."""
    return _submit(cluster, _enumerate_unit, session, tasks, None)


def _enumerate_unit(job_key: str, session: EngineSession, task: Task) -> list[list[int]]:
    """On a worker: every solution that contains the options of ``task``, in engine order."""
    return list(_kept(job_key, session).solutions(task))
