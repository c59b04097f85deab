"""What keeps the server up whatever it is sent: a bounded search pool and a body limit.

* :class:`SearchPool` runs the server's heavy work (the engine's searches, and compiling,
  laying out and making drawn boards) on at most ``workers`` threads; at most ``queue``
  more wait their turn, and a request beyond that is turned away at once (:class:`Busy`,
  503). Each search gets a deadline: one that
  cannot finish by it stops and answers ``OutOfTime`` (504).
* :class:`BodyLimit` refuses a request body over ``max_bytes`` (413) before it is read
  in full, whether or not it says its length.
* :func:`parse_json` reads a body as JSON within bounds (its nesting, its numbers), and
  :func:`release_memory` hands the heap freed by big work back to the system.
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import json
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from starlette.exceptions import HTTPException

from cpmodels.errors import CpmodelsError, InputError, OutOfTime
from cpmodels.files import bounded_json
from cpmodels.interrupt import seconds_left

T = TypeVar("T")
DEFAULT_QUEUE = 64  # searches waiting for a worker: enough for a page opened in many tabs
GRACE = 5.0  # seconds past a search's deadline before its request stops waiting for it
MAX_JSON_DEPTH = 32  # nesting of a request's JSON: a board is 4 levels deep, a design 5


def check_deadline(deadline: float | None) -> None:
    """``OutOfTime`` once ``deadline`` (a ``time.perf_counter`` value) has passed."""
    if deadline is not None and time.perf_counter() > deadline:
        raise OutOfTime("the search ran out of time; try again, or ask for an earlier solution")


def acquire(lock: threading.Lock, deadline: float | None) -> None:
    """Take ``lock``, waiting no later than ``deadline``; ``OutOfTime`` if it passes."""
    wait = seconds_left(deadline)
    if not lock.acquire(timeout=-1 if wait is None else wait):
        check_deadline(0.0)


def parse_json(body: bytes) -> Any:
    """A request body as JSON data; :class:`InputError` (one line) when it is not JSON, is
    nested more than :data:`MAX_JSON_DEPTH` levels or holds a number Python will not read."""
    try:
        data = bounded_json(body)
    except RecursionError:
        raise InputError(f"the request body is nested more than {MAX_JSON_DEPTH} levels "
                         "deep") from None
    except ValueError as exc:  # JSONDecodeError, and a number out of range
        raise InputError(json_error(exc)) from None
    if json_depth(data) > MAX_JSON_DEPTH:
        raise InputError(f"the request body is nested more than {MAX_JSON_DEPTH} levels deep")
    return data


def json_error(exc: BaseException | None) -> str:
    """What is wrong with a body that JSON did not read (``exc``: the reader's error)."""
    if isinstance(exc, RecursionError):
        return f"the request body is nested more than {MAX_JSON_DEPTH} levels deep"
    if isinstance(exc, ValueError) and not isinstance(exc, json.JSONDecodeError):
        return f"the request body holds a number out of range: {exc}"
    return "the request body is not valid JSON"


def json_depth(data: Any) -> int:
    """How deeply ``data``'s lists and objects nest (0 for a scalar); without recursion."""
    deepest, todo = 0, [(data, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth)
            if depth <= MAX_JSON_DEPTH:
                todo.extend((x, depth + 1) for x in item)
    return deepest


def release_memory() -> None:
    """Give the memory big work freed back to the system: collect what cycles hold (a
    stopped stream's frames), then ask glibc to return its free heap (``malloc_trim``,
    which runs without the interpreter's lock; nothing where the C library has none)."""
    gc.collect()
    try:
        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)  # the process's own C library
    except OSError:
        trim = None
    if trim is not None:
        trim(0)


class Busy(CpmodelsError):
    """Too many searches are running or waiting: the request is turned away (503)."""


class SearchPool:
    """At most ``workers`` searches at once and ``queue`` waiting, each within ``time_limit``.

    ``run(fn, *args)`` calls ``fn(*args, deadline=...)`` on a pool thread, where the deadline
    is a ``time.perf_counter`` value ``time_limit`` seconds after the request arrived.
    """

    def __init__(self, workers: int | None = None, queue: int | None = None,
                 time_limit: float = 20.0) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.queue = DEFAULT_QUEUE if queue is None else queue
        self.time_limit = time_limit
        self._slots = threading.BoundedSemaphore(self.workers + self.queue)
        self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="cpmodels-search")

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args, deadline=...)`` on the pool; :class:`Busy` when the queue is full."""
        if not self._slots.acquire(blocking=False):
            raise Busy(f"the server is busy ({self.workers} searches running and "
                       f"{self.queue} waiting); try again in a moment")
        deadline = time.perf_counter() + self.time_limit

        def call() -> T:
            try:
                if time.perf_counter() > deadline:
                    raise OutOfTime("the request waited too long for its turn; try again")
                return fn(*args, deadline=deadline)
            finally:
                self._slots.release()

        future = asyncio.get_running_loop().run_in_executor(self._executor, call)
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.time_limit + GRACE)
        except OutOfTime:  # the search's own answer (a TimeoutError too): passed on as it is
            raise
        except asyncio.TimeoutError:
            raise OutOfTime(f"no answer within {self.time_limit:g} s; try again") from None

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the pool within its limits, for work that takes no deadline."""
        return await self.run(lambda *given, deadline: fn(*given), *args)

    def shutdown(self) -> None:
        """Drop the waiting searches; the running ones end by their deadlines."""
        self._executor.shutdown(wait=False, cancel_futures=True)


class BodyLimit:
    """ASGI middleware: a request body of more than ``max_bytes`` gets 413 and JSON, on
    every path.

    A declared length over the limit is refused before the body is read; a body that runs
    over while it is read raises an ``HTTPException`` in the handler reading it.
    """

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and (not value.isdigit() or len(value) > 18
                                              or int(value) > self.max_bytes):
                body = json.dumps({"error": self.message}).encode()
                await send({"type": "http.response.start", "status": 413,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        seen = 0

        async def limited_receive() -> dict:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise HTTPException(413, self.message)
            return message

        await self.app(scope, limited_receive, send)

    @property
    def message(self) -> str:
        return f"the request body is larger than {self.max_bytes:,} bytes"
