"""How the server holds its connections: none waits on a client for long, and idle ones
never keep others out.

uvicorn closes an idle connection only after it has answered a request on it, and its own
cap counts every open connection and every request whose body is still on its way:
connections that send nothing, or headers and then a byte a second, would hold their places
for ever and turn every newcomer away with a plain-text 503. So uvicorn's cap is off and
the server keeps its own two:

* :class:`GuardedProtocol` (uvicorn's own HTTP protocol otherwise) gives each request
  :data:`READ_TIMEOUT` seconds to arrive in full, headers and body, counted from the
  connection's opening or the previous answer, and closes the connection when it does not;
  and when a new connection takes the number open past :data:`MAX_CONNECTIONS` it closes
  the one that has waited longest for a request (or its body).
* :class:`Admission` lets a request reach the app only once its body has arrived, and
  counts only those: at most :data:`MAX_CONNECTIONS` being answered at once, a request
  beyond that answered 503 with ``{"error": ...}`` like every other refusal.

:func:`serve` is how ``cpmodels serve`` runs the server: uvicorn with these limits
(:func:`server_config`, which the tests start too) on the socket :func:`listening_socket`
binds.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from cpmodels.web.wording import plain_text

MAX_CONNECTIONS = 256  # requests being answered at once before newcomers get 503, and
# connections open before the longest-waiting idle one is closed for a newcomer
HELD_BODY_BYTES = 64 * 1024  # a body held this far counts as arrived (the app refuses more)
READ_TIMEOUT = 10.0  # seconds for a request to arrive in full (headers and body)
KEEP_ALIVE = 5  # seconds an idle connection stays open after an answer
MAX_HEADER_BYTES = 16 * 1024  # a request's line and headers
BACKLOG = 2048  # connections the system holds until the server takes them
WAITING = (h11.IDLE, h11.SEND_BODY)  # the client's states in which the server waits on it


class GuardedProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline on every request's arrival and a cap
    that closes the longest-waiting idle connection rather than turn a newcomer away."""

    read_timeout = READ_TIMEOUT
    max_connections = MAX_CONNECTIONS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.waiting_since: float | None = None  # when it began to wait for a request
        self.read_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.watch()
        if len(self.connections) > self.max_connections:
            self.drop_longest_waiting()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self.watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop_timer()
        super().connection_lost(exc)

    def watch(self) -> None:
        """Time the client while the server waits on it for a request; stop when the
        request has arrived in full (its answer may take as long as the work needs)."""
        if self.conn.their_state in WAITING and not self.transport.is_closing():
            if self.read_timer is None:
                self.waiting_since = time.monotonic()
                self.read_timer = self.loop.call_later(self.read_timeout, self.too_slow)
        else:
            self.stop_timer()

    def stop_timer(self) -> None:
        if self.read_timer is not None:
            self.read_timer.cancel()
        self.read_timer = None
        self.waiting_since = None

    def too_slow(self) -> None:
        """The request did not arrive in time: the connection is closed."""
        self.read_timer = None
        self.close()

    def close(self) -> None:
        """Close the connection now; it no longer counts against the cap."""
        self.stop_timer()
        self.connections.discard(self)
        self.transport.close()

    def drop_longest_waiting(self) -> None:
        """Close the connection (not this one) that has waited longest for a request."""
        idle = [c for c in self.connections if isinstance(c, GuardedProtocol)
                and c is not self and c.waiting_since is not None]
        if idle:
            min(idle, key=lambda c: c.waiting_since or 0.0).close()


class Admission:
    """ASGI wrapper: a request reaches ``app`` once its body has arrived (in full, or
    :data:`HELD_BODY_BYTES` of it, or at once when it declares more), and only then counts
    against ``cap``; one that finds ``cap`` requests being answered gets 503 and JSON.

    A request still waiting on its body holds no place (the protocol's read deadline ends
    it); one whose client goes away before its body arrives is dropped unanswered."""

    def __init__(self, app: Any, cap: int = MAX_CONNECTIONS) -> None:
        self.app = app
        self.cap = cap
        self.working = 0  # requests being answered now

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        arrived = await _arrival(scope, receive)
        if arrived is None:
            return  # the client went away: no one reads an answer
        if self.working >= self.cap:
            await _busy(send, self.cap)
            return
        self.working += 1
        try:
            await self.app(scope, _replaying(arrived, receive), send)
        finally:
            self.working -= 1


async def _arrival(scope: dict, receive: Callable) -> list[dict] | None:
    """A request's body messages as far as :class:`Admission` waits for them; ``None`` if
    the client went away first."""
    declared = dict(scope.get("headers", [])).get(b"content-length", b"0")
    if not declared.isdigit() or len(declared) > 18 or int(declared) > HELD_BODY_BYTES:
        return []  # the app refuses it without reading it
    messages: list[dict] = []
    held, more = 0, True
    while more and held <= HELD_BODY_BYTES:
        message = await receive()
        if message["type"] != "http.request":
            return None
        messages.append(message)
        held += len(message.get("body", b""))
        more = message.get("more_body", False)
    return messages


def _replaying(messages: list[dict], receive: Callable) -> Callable:
    """``receive`` that gives ``messages`` first, then what the client sends next."""
    waiting = list(messages)

    async def replay() -> dict:
        return waiting.pop(0) if waiting else dict(await receive())
    return replay


async def _busy(send: Callable, cap: int) -> None:
    said = f"the server is answering {cap} requests already; try again in a moment"
    body = json.dumps({"error": said, "message": plain_text(said)}).encode()
    await send({"type": "http.response.start", "status": 503,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def server_config(app: Any, host: str, port: int, *, read_timeout: float = READ_TIMEOUT,
                  max_connections: int = MAX_CONNECTIONS) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` on ``host:port``, with the server's limits:
    ``max_connections`` (:data:`MAX_CONNECTIONS`) answered at once and open before idle
    ones are closed, :data:`KEEP_ALIVE`, :data:`MAX_HEADER_BYTES` and each request read
    within ``read_timeout`` seconds."""
    protocol = type("GuardedProtocol", (GuardedProtocol,),
                    {"read_timeout": read_timeout, "max_connections": max_connections})
    return uvicorn.Config(Admission(app, max_connections), host=host, port=port,
                          log_level="warning", http=protocol, timeout_keep_alive=KEEP_ALIVE,
                          backlog=BACKLOG,
                          h11_max_incomplete_event_size=MAX_HEADER_BYTES)


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` (connections wait in its backlog until the
    server is ready); ``OSError`` (an address in use, a host that is not this machine's)
    before anything is served."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


def serve(app: Any, host: str, port: int, listening: Callable[[int], None]) -> None:
    """Serve ``app`` on ``host:port`` (port 0: a free one the system picks) with the
    server's limits until stopped; ``OSError`` when it cannot listen there, else
    ``listening(port)`` with the port it listens on, once it does."""
    sock = listening_socket(host, port)
    with sock:
        bound = sock.getsockname()[1]
        listening(bound)
        uvicorn.Server(server_config(app, host, bound)).run(sockets=[sock])
