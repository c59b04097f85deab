"""Dancing links with the most constrained item first: how the engine counts solids.

The engine's first-empty-cell search with its table of sub-boards is what makes plane
boards fast: behind a front of one column few sub-boards recur. A box of cubes has a
front of a whole layer, and a cell deep inside can be covered in many more ways, so there
branching on the item with the fewest options left (Knuth's Algorithm X with dancing
links, as in his DLX1) takes far fewer nodes. Measured on the solid pentominoes: the
2x5x6 box in 51 s by the first-empty-cell search against 6.6 s by DLX1 on one core.

Data layout (DLX1's). Items are ``1..n`` (``0`` is the root of the list of items still to
cover; an item covered at most once is kept out of that list, linked to itself). Nodes
follow the items: each option is a run of nodes, one per item, between spacers. Every
node and item header has ``up`` and ``down`` links in its item's circular list, and
``top`` names its item; a spacer has ``top <= 0``, its ``up`` is the first node of the
option before it and its ``down`` the last node of the option after it, so a walk around
an option steps over the spacers. ``length[i]`` is how many options item ``i`` has left.

A count is split at the root: its most constrained item's options are the tasks, each
searched in a thread of its own (the compiled kernel, ``cpmodels/_core/src/links.cpp``,
releases the GIL). Only covers whose items are
all covered exactly once or at most once are laid out this way; :func:`suits` says which
covers the engine hands over. A cover of at most 128 items is searched on bits instead
(``bit_cover.py``: the same tree, a node in a fifth of the time).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

import numpy as np

import cpmodels._native as _native
from cpmodels.backends.engine.kernels import bit_cover
from cpmodels.cover import ExactCover


@dataclass(frozen=True)
class Links:
    """The dancing-links arrays of a cover (copied per search; see the module docstring)."""

    top: np.ndarray
    up: np.ndarray
    down: np.ndarray
    length: np.ndarray
    prev: np.ndarray
    next: np.ndarray
    first_node: np.ndarray  # option j's first node

    def copy(self) -> tuple[np.ndarray, ...]:
        """Fresh link arrays for one search (``top`` and the option index are shared)."""
        return (self.top, self.up.copy(), self.down.copy(), self.length.copy(),
                self.prev.copy(), self.next.copy())


def suits(cover: ExactCover) -> bool:
    """Whether the engine counts this cover with dancing links: a solid (cube grid) whose
    items are all covered exactly once or at most once."""
    return cover.grid == "cube" and bool(cover.items) and all(
        (item.low, item.high) in ((1, 1), (0, 1)) for item in cover.items)


def links(cover: ExactCover) -> Links:
    """Lay the cover out as dancing links."""
    n = len(cover.items)
    n_nodes = n + 1 + sum(len(o) for o in cover.options) + len(cover.options) + 1
    top = np.zeros(n_nodes, np.int64)
    up = np.arange(n_nodes, dtype=np.int64)
    down = np.arange(n_nodes, dtype=np.int64)
    length = np.zeros(n + 1, np.int64)
    prev = np.arange(n + 1, dtype=np.int64)
    nxt = np.arange(n + 1, dtype=np.int64)
    primary = [0] + [i + 1 for i, it in enumerate(cover.items) if it.low == 1]
    for a, b in zip(primary, primary[1:] + primary[:1]):
        nxt[a], prev[b] = b, a
    first_node = np.zeros(len(cover.options), np.int64)
    spacer = n + 1
    top[spacer] = 0
    for j, option in enumerate(cover.options):
        first = spacer + 1
        first_node[j] = first
        for k, item in enumerate(option):
            node, head = first + k, item + 1
            top[node] = head
            last = up[head]
            down[last], up[node], down[node], up[head] = node, last, head, node
            length[head] += 1
        down[spacer] = first + len(option) - 1  # the last node of the option after it
        spacer = first + len(option)
        top[spacer] = -(j + 1)
        up[spacer] = first  # the first node of the option before it
    return Links(top, up, down, length, prev, nxt, first_node)


def take_kernel(top: np.ndarray, up: np.ndarray, down: np.ndarray, length: np.ndarray,
                prev: np.ndarray, nxt: np.ndarray, forced: np.ndarray) -> bool:
    """Take the options whose first nodes are ``forced``: cover each of their items. False
    when two of them share an item. The link arrays are changed in place."""
    return _native.links_take(top, up, down, length, prev, nxt,
                              np.ascontiguousarray(forced, np.int64))


def most_constrained_kernel(length: np.ndarray, nxt: np.ndarray) -> int:
    """The item still to cover with the fewest options left (the first of them; 0: none)."""
    return _native.links_most_constrained(length, nxt)


def count_kernel(top: np.ndarray, up: np.ndarray, down: np.ndarray, length: np.ndarray,
                 prev: np.ndarray, nxt: np.ndarray, forced: np.ndarray,
                 stop: np.ndarray) -> tuple[int, int]:
    """Solutions that contain the options whose first nodes are ``forced`` (the core's
    ``STOPPED``, -1, when ``stop[0]`` was set before the search finished), and the nodes
    the search took.
    Compiled (``cpmodels/_core/src/links.cpp``); it releases the GIL while it searches."""
    return _native.links_count(top, up, down, length, prev, nxt,
                               np.ascontiguousarray(forced, np.int64), stop)


def root_tasks(lk: Links, forced: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    """The options of the most constrained item (once ``forced`` is taken), each with
    ``forced``: the top-level branches of a count."""
    arrays = lk.copy()
    top, _, down, length, _, nxt = arrays
    first = np.array([lk.first_node[j] for j in forced], np.int64)
    if not take_kernel(*arrays, first):  # type: ignore[call-arg]
        return []
    if nxt[0] == 0:
        return [forced]
    best = int(most_constrained_kernel(length, nxt))
    option_of = {int(node): j for j, node in enumerate(lk.first_node)}
    tasks = []
    node = int(down[best])
    while node != best:
        start = node
        while top[start - 1] > 0:
            start -= 1
        tasks.append((*forced, option_of[start]))
        node = int(down[node])
    return tasks


def count(cover: ExactCover, *, time_limit: float | None = None,
          forced: tuple[int, ...] = (), progress: Callable[[int, int], None] | None = None,
          jobs: int = 2, on_bits: bool = True) -> int | None:
    """Count the solutions (with the ``forced`` options) in ``jobs`` threads; None when
    ``time_limit`` seconds pass first. Ctrl-C stops every thread and is raised again."""
    counts = count_each(cover, [tuple(forced)], time_limit=time_limit, progress=progress,
                        jobs=jobs, on_bits=on_bits)
    return None if counts is None else counts[0]


def count_each(cover: ExactCover, tasks: Sequence[tuple[int, ...]], *,
               time_limit: float | None = None,
               progress: Callable[[int, int], None] | None = None,
               jobs: int = 2, on_bits: bool = True,
               stats: dict[str, int] | None = None) -> list[int] | None:
    """The solutions with each task's options forced, counted in ``jobs`` threads (each
    task cut at its most constrained item); None when ``time_limit`` seconds pass first.
    On bits (``bit_cover.py``) when the cover fits and ``on_bits``, else by the links.
    ``stats["nodes"]``, when given, is increased by the nodes the searches took."""
    bits = bit_cover.masks(cover) if on_bits and bit_cover.fits(cover) else None
    lk = None if bits is not None else links(cover)  # the links' kernels load only if used
    parts = [(t, part) for t, task in enumerate(tasks)
             for part in (bit_cover.root_tasks(cover, tuple(task)) if lk is None
                          else root_tasks(lk, tuple(task)))]
    counts = [0] * len(tasks)
    stop = np.zeros(1, np.int64)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    done = 0

    def run(part: tuple[int, ...]) -> tuple[int, int]:
        if bits is not None:
            found = bit_cover.count_kernel(*bits, np.array(part, np.int64), stop)
        else:
            assert lk is not None
            first = np.array([lk.first_node[j] for j in part], np.int64)
            found = count_kernel(*lk.copy(), first, stop)  # type: ignore[call-arg]
        return int(found[0]), int(found[1])

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        pending: dict[Future[tuple[int, int]], int] = {}
        try:  # (an interrupt while the tasks are handed out stops those already running)
            pending.update((pool.submit(run, part), t) for t, part in parts)
            while pending:
                left = None if deadline is None else deadline - time.perf_counter()
                if left is not None and left <= 0:
                    stop[0] = 1
                    return None
                finished, _ = wait(pending, timeout=left, return_when=FIRST_COMPLETED)
                for future in finished:
                    n, searched = future.result()
                    if stats is not None:
                        stats["nodes"] = stats.get("nodes", 0) + searched
                    if n < 0:
                        return None
                    counts[pending.pop(future)] += n
                    done += 1
                    if progress is not None:
                        progress(done, len(parts))
        finally:  # ends the searches still running (a time limit, Ctrl-C, an error)
            stop[0] = 1
            for future in pending:  # and those not started: none starts after a stop
                future.cancel()
    return counts
