"""The contract of a packing backend: copy this file to add one, then list it in BACKENDS
with the capabilities it declares beyond this contract (``Capability``: counting without
listing, checked proofs of unsolvability, units on a cluster). The contract is the
``Backend`` protocol of ``cpmodels.backends``.

A packing backend is a module that takes an :class:`~cpmodels.cover.ExactCover` (items
with their bounds, options with the items they cover) and nothing else: no spec, no board,
no dates. Option ids are the cover's option indices. Every function takes the same keyword
arguments:

* ``time_limit``: seconds (None: no limit). Every backend honours it.
* ``forced``: option ids every solution must contain (as hints and play positions need).

What it offers:

* ``NAME``: the name it is listed under in ``cpmodels.backends.BACKENDS`` and that answers
  carry (``CoverResult.backend``).
* ``STREAMS``: True when ``iter_solutions`` hands over each solution as it is found; False
  when it must finish its search first (say so, rather than pretend).
* ``solve(cover, *, time_limit=None, forced=())`` -> ``CoverResult``: "solved" with the
  chosen option ids, "unsolvable" only when the search proved there is none, "unknown"
  when the time limit passed first.
* ``iter_solutions(cover, *, time_limit=None, forced=())``: every solution exactly once,
  as a list of option ids (forced ones included), in the same order on every run; raises
  :class:`~cpmodels.errors.OutOfTime` when the time limit passes before the last one.
* ``count(cover, *, time_limit=None, forced=(), progress=None)`` -> ``int``: how many
  solutions there are (:class:`~cpmodels.errors.OutOfTime`, with the count so far as its
  ``partial``, when the time limit passes first). A backend without a
  counting method of its own counts what it enumerates
  (:func:`cpmodels.backends.result.count_by_enumeration`). ``progress(done, in_all)`` may
  be called as it goes.

It must be safe to call from several threads at once (no module-level mutable state), and
Ctrl-C must stop it within a second (see ``cpmodels/interrupt.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from cpmodels.backends.result import CoverResult, count_by_enumeration
from cpmodels.cover import ExactCover

NAME = "template"
STREAMS = True


def solve(cover: ExactCover, *, time_limit: float | None = None,
          forced: Sequence[int] = ()) -> CoverResult:
    """One solution, a proof that there is none, or "unknown" at the time limit."""
    raise NotImplementedError


def iter_solutions(cover: ExactCover, *, time_limit: float | None = None,
                   forced: Sequence[int] = ()) -> Iterator[list[int]]:
    """Every solution (option ids), each once, in a fixed order."""
    raise NotImplementedError


def count(cover: ExactCover, *, time_limit: float | None = None, forced: Sequence[int] = (),
          progress: Callable[[int, int], None] | None = None) -> int:
    """How many solutions (``OutOfTime`` at the time limit)."""
    return count_by_enumeration(iter_solutions, cover, time_limit=time_limit, forced=forced)
