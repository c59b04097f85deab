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

A count is cut at the root (:func:`root_tasks`): its most constrained item's options are
the tasks the engine session hands out, as it hands out every search's (the compiled
kernel, ``cpmodels/_core/src/links.cpp``, releases the GIL; :func:`count_tasks` counts
tasks in turn). Only covers whose items are all covered exactly once or at most once are
laid out this way; :func:`suits` says which covers the engine hands over. A cover of at
most 128 items is searched on bits instead (``bit_cover.py``: the same tree, a node in a
fifth of the time).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import cpmodels._native as _native
from cpmodels.backends.engine.kernels import bit_cover
from cpmodels.backends.engine.kernels.memo import NODES, STOP
from cpmodels.backends.engine.layouts.buffers import of
from cpmodels.cover import ExactCover

if TYPE_CHECKING:
    import numpy as np


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
    import numpy as np

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
    import numpy as np

    return _native.links_take(top, up, down, length, prev, nxt,
                              np.ascontiguousarray(forced, np.int64))


def most_constrained_kernel(length: np.ndarray, nxt: np.ndarray) -> int:
    """The item still to cover with the fewest options left (the first of them; 0: none)."""
    return _native.links_most_constrained(length, nxt)


def count_kernel(top: np.ndarray, up: np.ndarray, down: np.ndarray, length: np.ndarray,
                 prev: np.ndarray, nxt: np.ndarray, forced: np.ndarray,
                 stop: np.ndarray) -> tuple[int, int]:
    """Solutions that contain the options whose first nodes are ``forced`` (-1 when
    ``stop[0]`` was set before the search finished), and the nodes the search took.
    Compiled (``cpmodels/_core/src/links.cpp``); it releases the GIL while it searches."""
    import numpy as np

    return _native.links_count(top, up, down, length, prev, nxt,
                               np.ascontiguousarray(forced, np.int64), stop)


def root_tasks(lk: Links, forced: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    """The options of the most constrained item (once ``forced`` is taken), each with
    ``forced``: the top-level branches of a count."""
    import numpy as np

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


def count_tasks(tasks: np.ndarray, lk: Links | None, bits: bit_cover.Masks | None,
                out: np.ndarray, stats: np.ndarray) -> None:
    """Count each row of ``tasks`` (option ids forced; -1 pads) by the most constrained
    item first: on ``bits`` (``bit_cover.masks``) when given, else on copies of the links
    ``lk``. ``out[r]`` gets row ``r``'s count; ``stats`` is a memo table's (``memo.py``):
    the nodes are added to ``stats[NODES]``, and once ``stats[STOP]`` is set the search
    returns at its next check, the rows left as they were."""
    stop = stats[STOP:STOP + 1]
    for r, row in enumerate(tasks.tolist()):
        if stop[0]:
            return
        task = of(o for o in row if o >= 0)
        if bits is not None:
            found, nodes = bit_cover.count_kernel(*bits, task, stop)
        else:
            import numpy as np

            assert lk is not None
            first = np.array([lk.first_node[j] for j in task], np.int64)
            found, nodes = count_kernel(*lk.copy(), first, stop)  # type: ignore[call-arg]
        stats[NODES] += nodes
        if found < 0:
            return
        out[r] = found
