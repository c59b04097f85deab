"""The ``cpmodels`` command (and ``python -m cpmodels``): Ctrl-C from its first moment is
status 130 and one line. Until the command line's modules have loaded nothing is begun
that a stop should finish, so Ctrl-C then ends the process at once; :func:`cpmodels.cli.run`
takes over from there."""

import os
import signal


def _leave(signum: int, frame: object) -> None:
    os.write(2, b"interrupted\n")
    os._exit(130)


def _ctrl_c_leaves() -> None:
    """Ctrl-C ends the process at once (unless it is ignored, as in a background job)."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _leave)


_ctrl_c_leaves()  # as this module loads, before anything else does


def entry() -> None:
    """Run the command line, Ctrl-C taken care of before anything loads."""
    _ctrl_c_leaves()
    from cpmodels.cli import run

    run()


if __name__ == "__main__":
    entry()
