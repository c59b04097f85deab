"""How the server holds its connections: none waits on a client for long, and idle ones
never keep others out.

uvicorn closes an idle connection only after it has answered a request on it, and counts
every open connection against its cap: connections that send nothing, or a byte a second,
would hold their places for ever and turn every newcomer away with 503.
:class:`GuardedProtocol` (uvicorn's own HTTP protocol otherwise) gives each request
:data:`READ_TIMEOUT` seconds to arrive in full, headers and body, counted from the
connection's opening or the previous answer, and closes the connection when it does not;
and when a new connection reaches the cap it closes the one that has waited longest for a
request, so only connections being answered count against it. :func:`serve` is how
``cpmodels serve`` runs the server: uvicorn with these limits (:func:`server_config`,
which the tests start too) on the socket :func:`listening_socket` binds.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_CONNECTIONS = 256  # connections being answered at once before newcomers get 503
READ_TIMEOUT = 10.0  # seconds for a request to arrive in full (headers and body)
KEEP_ALIVE = 5  # seconds an idle connection stays open after an answer
MAX_HEADER_BYTES = 16 * 1024  # a request's line and headers
BACKLOG = 2048  # connections the system holds until the server takes them
WAITING = (h11.IDLE, h11.SEND_BODY)  # the client's states in which the server waits on it


class GuardedProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline on every request's arrival and a cap
    that closes the longest-waiting idle connection rather than turn a newcomer away."""

    read_timeout = READ_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.waiting_since: float | None = None  # when it began to wait for a request
        self.read_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.watch()
        cap = self.limit_concurrency
        if cap is not None and len(self.connections) >= cap:
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


def server_config(app: Any, host: str, port: int, *,
                  read_timeout: float = READ_TIMEOUT) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` on ``host:port``, with the server's limits:
    :data:`MAX_CONNECTIONS`, :data:`KEEP_ALIVE`, :data:`MAX_HEADER_BYTES` and each request
    read within ``read_timeout`` seconds."""
    protocol = type("GuardedProtocol", (GuardedProtocol,), {"read_timeout": read_timeout})
    return uvicorn.Config(app, host=host, port=port, log_level="warning", http=protocol,
                          limit_concurrency=MAX_CONNECTIONS, timeout_keep_alive=KEEP_ALIVE,
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


def serve(app: Any, host: str, port: int, listening: Callable[[], None]) -> None:
    """Serve ``app`` on ``host:port`` with the server's limits until stopped; ``OSError``
    when it cannot listen there, else ``listening()`` once it does."""
    sock = listening_socket(host, port)
    with sock:
        listening()
        uvicorn.Server(server_config(app, host, port)).run(sockets=[sock])
