"""The engine from Python: counts of forced prefixes, streamed solutions, the backend contract.

:func:`solve` and :func:`iter_solutions` are the engine's side of the backend contract
(``backends/TEMPLATE.py``); its :func:`~.work.count` splits counts across processes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

import numpy as np

from cpmodels.backends.engine.kernels import (
    exists_kernel,
    search_kernel,
    tally_prefixes_kernel,
)
from cpmodels.backends.engine.layout import CompiledCover, Layout, compile_cover
from cpmodels.backends.engine.memo import STOP, Memo, SearchStopped
from cpmodels.backends.engine.tally import TallyLayout, tally_layout
from cpmodels.backends.result import CoverResult
from cpmodels.cover import ExactCover
from cpmodels.interrupt import interruptible, stop_after

NAME = "engine"
STREAMS = True  # iter_solutions hands over each solution as the search finds it


def tally_prefixes(cc: CompiledCover, layout: TallyLayout,
                   prefixes: Sequence[Sequence[int]], memo: Memo | None = None,
                   regions: tuple[np.ndarray, int] | None = None,
                   ) -> list[dict[tuple[int, ...], int]]:
    """For each set of forced options, the solution counts by tally combination.

    Each result maps a tuple of option ids (the options covering the tally items, in
    ``layout.items`` order) to the number of solutions that contain them and the forced
    options; combinations without solutions are left out. Raises :class:`SearchStopped`
    when the memo's search is (or gets) stopped. ``regions`` (fillable sizes and limit, see
    ``regions.region_sizes``) replaces the cover's when the prefixes leave fewer pieces.
    """
    if memo is None:
        memo = Memo(cc.n_words)
    owner = (id(cc), tuple(layout.items))
    if memo.owner is None:
        memo.owner = owner
    elif memo.owner != owner:
        raise ValueError("this memo holds counts of another cover or another tally layout")
    width = max([len(p) for p in prefixes] + [1])
    arr = np.full((len(prefixes), width), -1, dtype=np.int64)
    for r, prefix in enumerate(prefixes):
        arr[r, :len(prefix)] = prefix
    n_t = len(layout.items)
    out = np.zeros((len(prefixes), int(layout.length[-1])), dtype=np.int64)
    masks = np.zeros(len(prefixes), dtype=np.int64)
    if memo.stopped:
        raise SearchStopped("this memo's search was stopped")
    interruptible(tally_prefixes_kernel, arr, _with_regions(cc, regions), layout.kernel,
                  memo.kernel, out, masks, stop=memo.stop)
    if memo.stopped:  # the counts are partial: none of them may get out
        raise SearchStopped("the search was stopped before it finished")
    results = []
    for r, prefix in enumerate(prefixes):
        mask = int(masks[r])
        fixed = {int(layout.opt_tally[o]): int(o) for o in prefix if layout.opt_tally[o] >= 0}
        counts: dict[tuple[int, ...], int] = {}
        for x in np.flatnonzero(out[r, :int(layout.length[mask])]):
            combo = []
            for t in range(n_t):
                if mask >> t & 1:
                    index = (int(x) // int(layout.stride[mask, t])) % len(layout.options[t])
                    combo.append(layout.options[t][index])
                else:
                    combo.append(fixed.get(t, -1))
            counts[tuple(combo)] = int(out[r, x])
        results.append(counts)
    return results


def _with_regions(cc: CompiledCover, regions: tuple[np.ndarray, int] | None) -> Layout:
    """The kernels' view of ``cc``, with its region sizes replaced when ``regions`` is given."""
    if regions is None:
        return cc.kernel
    return cc.kernel._replace(fillable=regions[0], limit=regions[1])


def count_prefixes(cc: CompiledCover, prefixes: Sequence[Sequence[int]],
                   memo: Memo | None = None) -> list[int]:
    """Count the solutions that contain each given set of options (one count per set)."""
    layout = tally_layout(cc, [])
    return [counts.get((), 0) for counts in tally_prefixes(cc, layout, prefixes, memo)]


def exists(cc: CompiledCover, prefixes: Sequence[Sequence[int]], *,
           first_failure: bool = False, regions: tuple[np.ndarray, int] | None = None,
           memo: Memo | None = None) -> list[bool | None]:
    """For each set of forced options, whether some solution contains it (each decided by
    the search's first solution, not a count). With ``first_failure``, the sets after the
    first one without a solution are not searched (None). ``regions`` as for
    :func:`tally_prefixes`. A ``memo`` of ``cc`` keeps the states found dead, for these
    prefixes and for later calls (one thread at a time; its ``stop`` stops the search)."""
    width = max([len(p) for p in prefixes] + [1])
    arr = np.full((len(prefixes), width), -1, dtype=np.int64)
    for r, prefix in enumerate(prefixes):
        arr[r, :len(prefix)] = prefix
    out = np.full(len(prefixes), -1, dtype=np.int64)
    table = memo if memo is not None else Memo(cc.n_words, slots=16)
    table.clear_stop()  # a stop left by an earlier, interrupted call
    stop = table.stats[STOP:STOP + 1]
    interruptible(exists_kernel, arr, _with_regions(cc, regions), table.kernel,
                  memo is not None, out, first_failure, stop, stop=table.stop)
    if table.stopped:
        table.clear_stop()
        raise SearchStopped("the existence search was stopped")
    return [None if x < 0 else bool(x) for x in out]


def top_branches(cc: CompiledCover) -> list[list[int]]:
    """The options anchored at the first branching item: disjoint parts of the search."""
    if cc.n_branch == 0:
        return [[]]
    return [[int(o)] for o in cc.anchor_opts[cc.anchor_start[0]:cc.anchor_start[1]]]


def iter_solutions(cover: ExactCover, *, time_limit: float | None = None,
                   forced: Sequence[int] = (), batch: int = 1024) -> Iterator[list[int]]:
    """Stream every solution (option ids, forced ones included), in a fixed order.

    The search pauses to hand over 1, 2, 4, ... and then ``batch`` solutions at a time, so
    the first ones arrive at once and the rest with little overhead. Raises
    ``TimeoutError`` when ``time_limit`` seconds pass before the last solution.
    """
    cc = compile_cover(cover)
    filled = np.zeros(cc.n_words, dtype=np.uint64)
    counters = np.zeros(len(cc.counter_low), dtype=np.int64)
    for o in forced:
        if np.any(cc.opt_mask[o] & filled):
            return
        filled |= cc.opt_mask[o]
        if cc.opt_counter[o] >= 0:
            counters[cc.opt_counter[o]] += 1
    if np.any(counters > cc.counter_high):
        return
    depth_max = cc.n_branch + 1
    chosen = np.zeros(depth_max, dtype=np.int64)
    stack_pos = np.zeros(depth_max, dtype=np.int64)
    stack_k = np.zeros(depth_max, dtype=np.int64)
    out = np.zeros((batch, depth_max), dtype=np.int64)
    state = np.array([-1, 0], dtype=np.int64)
    stop = np.zeros(1, dtype=np.int64)
    base = [int(o) for o in forced]
    step = 1
    with stop_after(time_limit, lambda: stop.fill(1)):
        while state[0] != -2:
            interruptible(search_kernel, state, filled, counters, chosen, stack_pos, stack_k,
                          cc.kernel, out, step, stop, stop=lambda: stop.fill(1))
            step = min(2 * step, batch)
            for r in range(int(state[1])):
                row = out[r]
                n = int(np.argmax(row < 0)) if np.any(row < 0) else len(row)
                yield base + [int(o) for o in row[:n]]
            if stop[0] and state[0] != -2:
                raise TimeoutError(f"the engine stopped at the time limit ({time_limit:g} s)")


def solve(cover: ExactCover, *, time_limit: float | None = None,
          forced: Sequence[int] = ()) -> CoverResult:
    """The first solution, a proof by exhaustion that there is none, or "unknown" when
    ``time_limit`` seconds pass first."""
    start = time.perf_counter()
    try:
        first = next(iter_solutions(cover, time_limit=time_limit, forced=forced, batch=1),
                     None)
    except TimeoutError:
        return CoverResult("unknown", NAME, time.perf_counter() - start)
    seconds = time.perf_counter() - start
    if first is None:
        return CoverResult("unsolvable", NAME, seconds)
    return CoverResult("solved", NAME, seconds, sorted(first))


KERNELS = ("count", "exists", "search")  # what warm_up can load: counting and tallying,
# first-solution existence, enumeration


def warm_up(kernels: Sequence[str] = KERNELS) -> None:
    """Load (or compile) search kernels now, on a tiny board, not in a first real search:
    ``count`` (counts and tallies), ``exists`` (first solutions), ``search`` (solutions).

    numba compiles under its own global lock, so first calls from several threads at once
    are safe too; this only moves the wait to a convenient moment (a server's start, or
    before a command's progress bar).
    """
    from cpmodels.cover import PieceKind, packing_cover

    unknown = set(kernels) - set(KERNELS)
    if unknown:
        raise ValueError(f"no kernels named {sorted(unknown)}; known: {KERNELS}")
    domino = PieceKind("D", (frozenset({(0, 0), (0, 1)}), frozenset({(0, 0), (1, 0)})), 2)
    cover = packing_cover([(r, c) for r in range(2) for c in range(2)], [domino])
    cc = compile_cover(cover)
    if "count" in kernels:
        tally_prefixes(cc, tally_layout(cc, [0]), [[]])
        count_prefixes(cc, [[]])
    if "exists" in kernels:
        exists(cc, [[]], memo=Memo(cc.n_words, slots=16))
    if "search" in kernels:
        next(iter_solutions(cover), None)
