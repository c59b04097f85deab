"""How many worker processes a run gets: the one check of ``jobs`` that the command line's
``--jobs`` and every API function taking ``jobs`` share."""

from __future__ import annotations

import os

from cpmodels.errors import InputError

MAX_JOBS = 4096  # a jobs past this is refused; past the cores it is the cores


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def jobs_refused(shown: str) -> str:
    """What a refused ``jobs`` (``shown`` as given) is told."""
    return (f"{shown} is not a number of worker processes: give a whole number from 1 to "
            f"{MAX_JOBS:,}")


def worker_count(jobs: object) -> int | None:
    """``jobs`` as a run takes it: None (every core) as it is, a whole number from 1 to
    :data:`MAX_JOBS` (an ``int``, not a bool) with more than the cores here becoming the
    cores; anything else an :class:`InputError` of one line."""
    if jobs is None:
        return None
    if type(jobs) is not int or not 1 <= jobs <= MAX_JOBS:
        shown = repr(jobs) if len(repr(jobs)) <= 24 else f"{repr(jobs)[:20]}..."
        raise InputError(jobs_refused(f"jobs={shown}"))
    return min(jobs, cores())
