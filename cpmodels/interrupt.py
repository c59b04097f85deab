"""Run compiled code so that Ctrl-C and time limits still stop the program at once.

A compiled search holds the interpreter until it returns, so Ctrl-C would wait for it. The
searches release the interpreter lock; :func:`interruptible` runs one in a daemon
thread while the main thread waits in short steps, where Ctrl-C arrives as usual. A search
that can be stopped is then asked to stop; any other is left to finish on its own, writing
only to its own arrays.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def seconds_left(deadline: float | None) -> float | None:
    """The seconds until ``deadline`` (a ``time.perf_counter`` value; None: no deadline),
    never below zero: how a deadline becomes a ``time_limit``."""
    return None if deadline is None else max(0.0, deadline - time.perf_counter())


BACKSTOP_SECONDS = 5.0  # after Ctrl-C, the longest a command may take to stop by itself
BACKSTOP = "cpmodels-backstop"  # the name of the thread that ends the process then
EXIT_INTERRUPTED = 130


def leave_now(signum: int = signal.SIGINT, frame: Any = None) -> None:
    """End the process at once with status 130 and the one line "interrupted" (what is
    on standard output so far is flushed first). A Ctrl-C handler for the program's
    start-up, where nothing is begun that a stop should finish."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    with contextlib.suppress(OSError):
        os.write(2, b"interrupted\n")
    if "multiprocessing" in sys.modules:  # worker processes go too
        with contextlib.suppress(Exception):
            for child in sys.modules["multiprocessing"].active_children():
                child.kill()
    os._exit(EXIT_INTERRUPTED)


def _loading_a_module(frame: Any) -> bool:
    """Whether ``frame`` runs inside Python's import machinery (a module loading)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


LOAD_RETRY_SECONDS = 0.01  # how soon a Ctrl-C that came while a module loaded is asked again


def interrupt_or_leave(signum: int, frame: Any) -> None:
    """The command line's Ctrl-C handler while a command runs: ``KeyboardInterrupt``, so
    the command stops as it says (keeping rows and lines, stopping workers, telling how to
    resume). Python only prints an exception raised while a module loads (in its lock's
    callbacks) or turns it into another (in ``__set_name__``), so a Ctrl-C that comes then
    is asked again (the same signal, :data:`LOAD_RETRY_SECONDS` later) until the module has
    loaded, and is raised there; in the engine's compiled searches, which release the
    interpreter, it is raised as the search returns; and should the interrupt be lost
    elsewhere, the process ends :data:`BACKSTOP_SECONDS` after the first Ctrl-C all the
    same (:func:`leave_now`)."""
    if not any(thread.name == BACKSTOP for thread in threading.enumerate()):
        backstop = threading.Timer(BACKSTOP_SECONDS, leave_now)
        backstop.name, backstop.daemon = BACKSTOP, True
        backstop.start()
    if _loading_a_module(frame):
        main = threading.main_thread().ident
        assert main is not None  # the main thread has always started
        again = threading.Timer(LOAD_RETRY_SECONDS, signal.pthread_kill, (main, signum))
        again.daemon = True
        again.start()
        return
    raise KeyboardInterrupt


def leave_ctrl_c_to_parent() -> None:
    """In a worker process: ignore Ctrl-C (one that came while it started, held by
    :func:`ctrl_c_held`, is dropped); the parent stops the workers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Hold Ctrl-C (and a time limit's alarm) back while a worker process starts, so the
    start is never cut midway (a worker forked but not yet known to the parent would be
    left running), or while a spec is validated (whose callbacks would lose it). The
    worker begins with Ctrl-C blocked until :func:`leave_ctrl_c_to_parent`; here a Ctrl-C
    or an alarm that came meanwhile is acted on once the block ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    kept = {number: signal.signal(number, lambda signum, frame: held.append(signum))
            for number in (signal.SIGINT, signal.SIGALRM)}
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        for number, handler in kept.items():
            signal.signal(number, handler)
        for number, handler in kept.items():
            if number not in held:
                continue
            if callable(handler):
                handler(number, None)
            elif handler == signal.SIG_DFL and number == signal.SIGINT:
                raise KeyboardInterrupt


def interruptible(fn: Callable[..., Any], *args: Any,
                  stop: Callable[[], None] | None = None) -> Any:
    """``fn(*args)`` in a daemon thread; Ctrl-C in the main thread is not held up by it.

    On Ctrl-C (or a time limit) ``stop()``, when given, asks the search to end, and the
    search thread gets a second to do so before the interrupt goes on up.
    """
    if threading.current_thread() is not threading.main_thread():
        return fn(*args)
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = fn(*args)
        except BaseException as exc:  # handed to the caller below
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True, name="cpmodels-search")
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.05)
    except BaseException:
        if stop is not None:
            stop()
            worker.join(1.0)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


@contextmanager
def stop_after(seconds: float | None, stop: Callable[[], None]) -> Iterator[None]:
    """Call ``stop()`` from a timer thread once ``seconds`` have passed (None: never),
    unless the block has ended first: how a search that checks a flag gets a time limit."""
    if seconds is None:
        yield
        return
    timer = threading.Timer(max(0.0, seconds), stop)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


class TimeLimitReached(KeyboardInterrupt):
    """Raised in the main thread when a :func:`time_limit` runs out.

    It is a kind of Ctrl-C, so every run that stops cleanly on Ctrl-C (keeping finished rows
    and lines, stopping worker processes) stops the same way on its time limit.
    """


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`TimeLimitReached` in the main thread after ``seconds`` (None: never).

    A timer thread signals the main thread itself (SIGALRM), which wakes it from any wait;
    searches run through :func:`interruptible` are left behind at once.
    """
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    main = threading.main_thread().ident
    assert main is not None  # the main thread has always started
    fired = threading.Event()

    def on_alarm(signum: int, frame: Any) -> None:
        if fired.is_set():
            raise TimeLimitReached(f"stopped by the time limit ({seconds:g} s)")

    def ring() -> None:
        fired.set()
        signal.pthread_kill(main, signal.SIGALRM)

    previous = signal.signal(signal.SIGALRM, on_alarm)
    try:
        with stop_after(seconds, ring):
            yield
    finally:
        signal.signal(signal.SIGALRM, previous)
