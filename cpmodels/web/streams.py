"""A drawn board's long work (its counts, its design question) streamed as newline-delimited
JSON while the client listens, within the limits of the streams one server holds open.

:class:`StreamLimits` is a server's: at most :data:`BOARDS_AT_ONCE` works run at once, each
on every core, and :data:`BOARDS_WAITING` more wait their turn (each holds its compiled
cover); one more is turned away (:class:`~cpmodels.web.limits.Busy`, 503) before anything
is compiled. A work runs on a thread of its own within :data:`BOARD_TIME_LIMIT`; a closed
connection stops it, and the memory it took is given back when it ends.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from fastapi.responses import StreamingResponse

from cpmodels.web.board import Stoppable
from cpmodels.web.limits import Busy, SearchPool, release_memory
from cpmodels.web.wording import plain, plain_text

BOARDS_AT_ONCE = 2  # drawn boards counted at once (each on every core, with its tables)
BOARDS_WAITING = 8  # more streams waiting for a turn (each holds its compiled cover)
BOARD_TIME_LIMIT = 120.0  # seconds a board's counts may take (the 11-piece weekday board: about 15)
log = logging.getLogger("cpmodels.web")


class WorkStream(StreamingResponse):
    """NDJSON lines streamed while the client listens: a closed connection cancels the
    stream at once, and ``stop`` is called however the stream ends (whatever the ASGI
    version: a server that does not report a disconnect until a send fails would leave
    a stream that is still waiting for its first line running)."""

    def __init__(self, lines: AsyncIterator[bytes], stop: Callable[[], None]) -> None:
        super().__init__(lines, media_type="application/x-ndjson")
        self.stop = stop

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            async with anyio.create_task_group() as group:

                async def stream() -> None:
                    await self.stream_response(send)
                    group.cancel_scope.cancel()

                group.start_soon(stream)
                await self.listen_for_disconnect(receive)
                group.cancel_scope.cancel()
        except Exception as exc:  # (in a group, from the task group)
            if not _client_gone(exc):
                raise
        finally:
            self.stop()


def _client_gone(exc: BaseException) -> bool:
    """Whether ``exc`` (or every error of a group) says the client went away mid-send."""
    inner = getattr(exc, "exceptions", None)
    return all(map(_client_gone, inner)) if inner else isinstance(exc, OSError)


class StreamLimits:
    """The streams one server holds open: ``at_once`` working, ``waiting`` more waiting."""

    def __init__(self, at_once: int = BOARDS_AT_ONCE, waiting: int = BOARDS_WAITING) -> None:
        self.open_at_most = at_once + waiting
        # Works running at once; the others wait their turn (each works on every core).
        self.turns = threading.BoundedSemaphore(at_once)
        # Streams open (working or waiting); one more is turned away before compiling.
        self.places = threading.BoundedSemaphore(self.open_at_most)

    async def stream(self, pool: SearchPool, make: Callable[[Any], Stoppable], data: Any,
                     what: str) -> StreamingResponse:
        """The stream of the work ``make`` makes of ``data`` (compiled on ``pool``), when
        fewer than the streams allowed are open; else :class:`Busy`."""
        if not self.places.acquire(blocking=False):
            raise Busy(f"{self.open_at_most} boards are being counted or waiting; try "
                       "again in a moment")
        try:
            work = await pool.call(make, data)
        except BaseException:
            self.places.release()
            raise
        return self._streamed(work, what)  # which lets the place go when it ends

    def _streamed(self, work: Stoppable, what: str) -> StreamingResponse:
        """``work``'s rows as NDJSON, produced on a thread of their own once a turn is free,
        within the board time limit; a closed connection stops the work, and the memory
        the work took is given back when it ends."""
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

        def send(row: dict[str, Any] | None) -> None:
            loop.call_soon_threadsafe(lines.put_nowait, row)

        def produce() -> None:
            timer = threading.Timer(BOARD_TIME_LIMIT, work.stop)
            ran = False
            try:
                while not self.turns.acquire(timeout=0.1):
                    if work.stopped:
                        return
                try:
                    ran = True
                    timer.start()
                    for row in work.rows():
                        send(row)
                    if work.stopped and not timer.is_alive():
                        said = (f"the {what} took more than {BOARD_TIME_LIMIT:g} s and "
                                "were stopped")
                        send({"done": False, "error": said, "message": plain_text(said)})
                finally:
                    self.turns.release()
            except Exception as exc:  # the stream ends with the reason, and it is logged
                log.error("board %s failed", what, exc_info=exc)
                send({"done": False, "error": f"internal error ({type(exc).__name__})",
                      "message": plain(exc)})
            finally:
                timer.cancel()
                send(None)
                self.places.release()
                if ran:
                    release_memory()

        producer = threading.Thread(target=produce, daemon=True, name=f"cpmodels-{what}")
        try:
            producer.start()
        except RuntimeError:  # no thread to be had now: the work and its place let go here
            work.stop()
            self.places.release()
            raise

        async def body() -> AsyncIterator[bytes]:
            try:
                while (row := await lines.get()) is not None:
                    yield (json.dumps(row) + "\n").encode()
            finally:
                work.stop()  # the client went away, or the stream is done

        return WorkStream(body(), work.stop)
