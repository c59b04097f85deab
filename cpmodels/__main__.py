"""The ``cpmodels`` command (and ``python -m cpmodels``): Ctrl-C from its first moment is
status 130 and one line. Until the command line's modules have loaded nothing is begun
that a stop should finish, so Ctrl-C then ends the process at once; :func:`cpmodels.cli.run`
takes over from there."""

import os
import signal
from typing import Any


def _leave(signum: int, frame: Any) -> None:
    os.write(2, b"interrupted\n")
    os._exit(130)


def entry() -> None:
    """Run the command line, Ctrl-C taken care of before anything loads."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # else it is ignored
        signal.signal(signal.SIGINT, _leave)
    from cpmodels.cli import run

    run()


if __name__ == "__main__":
    entry()
