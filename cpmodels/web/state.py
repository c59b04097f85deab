"""What one server holds between requests, kept on its app (``app.state.server``) and
handed to each handler by :func:`server_state`: two apps in one process share nothing."""

from __future__ import annotations

import threading
from typing import Annotated

from fastapi import Depends, Request

from cpmodels.web.limits import SearchPool
from cpmodels.web.puzzles import Puzzles
from cpmodels.web.streams import StreamLimits

MAKES_AT_ONCE = 1  # boards made at once (a make holds a pool worker for seconds)


class ServerState:
    """A server's puzzles, its search pool, its open streams and its makes; whether its
    pages may answer with the engine in the browser (``browser_engine``: else the plans are
    not served, and the pages ask the API)."""

    def __init__(self, puzzles: Puzzles, pool: SearchPool, *,
                 browser_engine: bool = True) -> None:
        self.puzzles = puzzles
        self.pool = pool
        self.browser_engine = browser_engine
        self.streams = StreamLimits()
        self.makes = threading.BoundedSemaphore(MAKES_AT_ONCE)


async def server_state(request: Request) -> ServerState:
    """The state of the app serving ``request`` (async: read on the event loop, with no
    thread to wait for)."""
    server = request.app.state.server
    assert isinstance(server, ServerState)
    return server


Server = Annotated[ServerState, Depends(server_state)]
