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
from cpmodels.files import bounded_json, lone_surrogate
from cpmodels.interrupt import seconds_left
from cpmodels.web.wording import plain_text

T = TypeVar("T")
DEFAULT_QUEUE = 64  # searches waiting for a worker: enough for a page opened in many tabs
GRACE = 5.0  # seconds past a search's deadline before its request stops waiting for it
# (at most the time limit itself)
UTF16_32_MARKS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")  # their byte order marks
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
    """A request body as JSON data; :class:`InputError` (one line) when it is not UTF-8
    JSON (:func:`body_text`), is nested more than :data:`MAX_JSON_DEPTH` levels, holds
    a number out of the bounds every JSON the package reads keeps (``files.bounded_json``)
    or a text no UTF-8 can hold (``files.lone_surrogate``)."""
    text = body_text(body, "JSON")
    try:
        data = bounded_json(text)
    except RecursionError:
        raise InputError(f"the request body is nested more than {MAX_JSON_DEPTH} levels "
                         "deep") from None
    except ValueError as exc:  # JSONDecodeError, and a number refused by the parsers
        raise InputError(json_error(exc)) from None
    if json_depth(data) > MAX_JSON_DEPTH:
        raise InputError(f"the request body is nested more than {MAX_JSON_DEPTH} levels deep")
    problem = lone_surrogate(data)
    if problem:
        raise InputError(problem)
    return data


def body_text(body: bytes, what: str) -> str:
    """A request body as text: :class:`InputError` when it is not UTF-8 (UTF-16 or UTF-32,
    by their byte order marks or the NUL bytes between their first characters; bytes no
    UTF-8 text holds), starts with a byte order mark, or holds a NUL byte (``what``: what
    the body should be, for the message)."""
    if body.startswith(b"\xef\xbb\xbf"):
        raise InputError(f"the request body starts with a byte order mark; send {what} as "
                         "UTF-8 without one")
    encoding = json.detect_encoding(body)  # by the byte order mark, else by the NULs
    if encoding != "utf-8":
        name = encoding.upper().replace("-LE", "").replace("-BE", "")
        how = ("it starts with a byte order mark" if body.startswith(UTF16_32_MARKS)
               else "NUL bytes lie between its first characters")
        raise InputError(f"the request body is {name} ({how}); send {what} as UTF-8")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"the request body is not UTF-8 text (byte {exc.start:,} is "
                         f"0x{body[exc.start]:02x}); send {what} as UTF-8") from None
    if "\x00" in text:
        raise InputError(f"the request body holds a NUL byte (at byte "
                         f"{body.index(0):,}); {what} has none")
    return text


def json_error(exc: BaseException | None) -> str:
    """What is wrong with a body that JSON did not read (``exc``: the reader's error)."""
    if isinstance(exc, RecursionError):
        return f"the request body is nested more than {MAX_JSON_DEPTH} levels deep"
    if isinstance(exc, UnicodeDecodeError):
        return "the request body is not UTF-8 text; send JSON as UTF-8"
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
    is a ``time.perf_counter`` value ``time_limit`` seconds after the request arrived. A
    request that stops waiting (504, or its task cancelled) lets go of its place and its
    turn before it answers: work that overran its deadline (it has the grace, at most
    :data:`GRACE`, to stop by itself) runs on uncounted until it stops, and its result is
    dropped.
    """

    def __init__(self, workers: int | None = None, queue: int | None = None,
                 time_limit: float = 20.0) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.queue = DEFAULT_QUEUE if queue is None else queue
        self.time_limit = time_limit
        self.grace = min(GRACE, time_limit)
        self._places = threading.BoundedSemaphore(self.workers + self.queue)
        self._turns = threading.BoundedSemaphore(self.workers)
        # A thread for each place, and one for each worker's work that overran (it runs on
        # uncounted until it stops; more than that waits for a thread).
        self._executor = ThreadPoolExecutor(2 * self.workers + self.queue,
                                            thread_name_prefix="cpmodels-search")

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args, deadline=...)`` on the pool; :class:`Busy` when the queue is full."""
        if not self._places.acquire(blocking=False):
            raise Busy(f"the server is busy ({self.workers} searches running and "
                       f"{self.queue} waiting); try again in a moment")
        deadline = time.perf_counter() + self.time_limit
        held = _Held(self._places, self._turns)

        def call() -> T:
            try:
                if not self._turns.acquire(timeout=max(0.0, seconds_left(deadline) or 0.0)):
                    raise OutOfTime("the request waited too long for its turn; try again")
                if not held.took_turn():  # the request stopped waiting meanwhile
                    raise OutOfTime("the request stopped waiting")
                return fn(*args, deadline=deadline)
            finally:
                held.let_go()

        future = asyncio.get_running_loop().run_in_executor(self._executor, call)
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.time_limit + self.grace)
        except OutOfTime:  # the search's own answer (a TimeoutError too): passed on as it is
            raise
        except asyncio.TimeoutError:
            raise OutOfTime(f"no answer within {self.time_limit:g} s; try again") from None
        finally:
            held.let_go()  # (at once if the work overran: it no longer counts)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the pool within its limits, for work that takes no deadline."""
        return await self.run(lambda *given, deadline: fn(*given), *args)

    def shutdown(self) -> None:
        """Drop the waiting searches; the running ones end by their deadlines."""
        self._executor.shutdown(wait=False, cancel_futures=True)


class _Held:
    """What one request holds of a :class:`SearchPool`: its place, then its turn; each let
    go of once, by whichever comes first of its work ending and its request giving up."""

    def __init__(self, places: threading.BoundedSemaphore,
                 turns: threading.BoundedSemaphore) -> None:
        self._lock = threading.Lock()
        self._places, self._turns = places, turns
        self._place, self._turn = True, False

    def took_turn(self) -> bool:
        """Record the turn just taken; ``False`` (and the turn given back) if the request
        has let go already."""
        with self._lock:
            if self._place:
                self._turn = True
                return True
        self._turns.release()
        return False

    def let_go(self) -> None:
        with self._lock:
            if self._turn:
                self._turns.release()
            if self._place:
                self._places.release()
            self._place = self._turn = False


class BodyLimit:
    """ASGI middleware: a request body of more than ``max_bytes`` gets 413 and JSON, on
    every path; a body posted to the API (but to ``text_paths``) that is not UTF-8 JSON
    gets 422 saying why (:func:`parse_json`), or 415 when it is sent as another type (one
    sent without a type is read as JSON).

    A declared length over the limit is refused before the body is read; a body that runs
    over while it is read is refused as soon as it does.
    """

    def __init__(self, app: Any, max_bytes: int, text_paths: frozenset[str] = frozenset()
                 ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.text_paths = text_paths

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or len(length) > 18
                                   or int(length) > self.max_bytes):
            await _refuse(send, 413, self.message)
            return
        if scope["method"] != "POST" or not scope["path"].startswith("/api/") \
                or scope["path"] in self.text_paths:
            await self.app(scope, self._limited(receive), send)
            return
        try:
            body = await self._read(receive)
            if body is None:
                return  # the client went away: no one reads an answer
            if not body:
                raise InputError("the request body is empty; send the request as JSON")
            _check_json_type(headers.get(b"content-type"))
            parse_json(body)
        except HTTPException as exc:
            await _refuse(send, exc.status_code, str(exc.detail))
            return
        except InputError as exc:
            await _refuse(send, 422, str(exc))
            return
        if b"content-type" not in headers:  # read as JSON by every endpoint alike
            scope = {**scope, "headers": [*scope["headers"],
                                          (b"content-type", b"application/json")]}
        await self.app(scope, _replaying(body, receive), send)

    def _limited(self, receive: Callable) -> Callable:
        """``receive``, raising 413 once the body runs over the limit."""
        seen = 0

        async def limited_receive() -> dict:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise HTTPException(413, self.message)
            return message
        return limited_receive

    async def _read(self, receive: Callable) -> bytes | None:
        """The whole body, within the limit; ``None`` if the client went away first."""
        parts, more, limited = [], True, self._limited(receive)
        while more:
            message = await limited()
            if message["type"] != "http.request":
                return None
            parts.append(message.get("body", b""))
            more = message.get("more_body", False)
        return b"".join(parts)

    @property
    def message(self) -> str:
        return f"the request body is larger than {self.max_bytes:,} bytes"


def _check_json_type(value: bytes | None) -> None:
    """415 unless a body's declared type (none is JSON) is JSON in UTF-8."""
    if value is None:
        return
    kind, *params = [part.strip().lower() for part in value.decode("latin-1").split(";")]
    charsets = [p.split("=", 1)[1].strip('" ') for p in params if p.startswith("charset=")]
    if kind != "application/json" and not kind.endswith("+json"):
        raise HTTPException(415, f"the request body must be JSON sent as application/json, "
                                 f"not {kind[:60] or 'an empty type'}")
    if any(charset not in ("utf-8", "utf8") for charset in charsets):
        raise HTTPException(415, f"the request body must be JSON in UTF-8, not "
                                 f"{charsets[0][:30]}")


def _replaying(body: bytes, receive: Callable) -> Callable:
    """``receive`` that gives ``body`` first, whole, then what the client sends next (its
    disconnect)."""
    given = False

    async def replay() -> dict:
        nonlocal given
        if given:
            return dict(await receive())
        given = True
        return {"type": "http.request", "body": body, "more_body": False}
    return replay


async def _refuse(send: Callable, status: int, message: str) -> None:
    body = json.dumps({"error": message, "message": plain_text(message)}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
