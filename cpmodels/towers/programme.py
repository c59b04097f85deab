"""Exact dynamic programme for the towers grid on narrow boards: proves optima.

Cells are placed one at a time in reading order. A state is the *frontier*: for each column,
the last cell placed there, as its colour and the set of colours it still needs from the
neighbours not yet placed. A cell leaves the frontier when its last neighbour is placed; a
state in which some cell needs more colours than it has neighbours to come is dropped. For
every state only the best score so far is kept, so the last layer holds the optimum.

With an incumbent score (from CP-SAT), the second half of the board is pruned by a bound:
turning the board half a turn maps the cells still to place onto the first cells of the
reading order, so the best score any state reached after that many cells bounds what is
left. A state that cannot beat the incumbent is dropped; the programme then either finds a
better score or proves that none exists. States are kept in open-addressing hash tables of
64-bit keys, so the width is at most 64 // (bits per cell): 8 columns for five colours.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import cpmodels._native as _native
from cpmodels.towers.problem import TowersProblem

_EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)
MEMORY_LIMIT = 3 << 30  # bytes of hash tables before the programme gives up


@dataclass
class DpResult:
    """``best`` is the optimum (no incumbent), the better score found, or ``None`` when no
    board beats the incumbent; ``finished`` is False when a limit stopped the programme."""

    best: int | None
    finished: bool
    peak_states: int
    seconds: float
    grid: list[str] | None = None  # an optimal board, when asked for and found
    # With an incumbent: the cells of the pruned half of a better board, by (row, col).
    partial: dict[tuple[int, int], str] | None = None


def _step(keys: np.ndarray, vals: np.ndarray, i: int, j: int, rows: int, cols: int,
          table: np.ndarray, needs: np.ndarray, allowed: int, bits: int, none: int,
          floor: int, new_keys: np.ndarray, new_vals: np.ndarray,
          ) -> tuple[np.ndarray, np.ndarray, int]:
    """The layer after placing cell (i, j) into ``new_keys``/``new_vals`` (emptied here;
    each time they are half full the core stops, a table twice as big is made and the states
    move to it in slot order, and the core goes on); successors scoring below ``floor`` are
    dropped. ``table[up, left, k]`` is what colour ``k`` scores under those colour codes.
    Returns the table that holds the layer and its number of states."""
    shape = np.array([i, j, rows, cols, bits, none], dtype=np.int64)
    used, at = 0, 0
    done = keys.shape[0] * table.shape[2]
    while True:
        used, at = _native.towers_step(keys, vals, shape, table, needs, allowed, floor,
                                       new_keys, new_vals, used, at)
        if at == done:
            return new_keys, new_vals, used
        cap = 2 * new_keys.shape[0]
        grown_keys = np.empty(cap, dtype=np.uint64)
        grown_vals = np.empty(cap, dtype=np.int64)
        _native.towers_rehash(new_keys, new_vals, grown_keys, grown_vals)
        new_keys, new_vals = grown_keys, grown_vals


def _predecessor(keys: np.ndarray, vals: np.ndarray, target: np.uint64, value: int, i: int,
                 j: int, rows: int, cols: int, table: np.ndarray, needs: np.ndarray,
                 allowed: int, bits: int, none: int) -> tuple[int, int]:
    """A state of the layer before (i, j) and the colour that lead to ``target`` with
    score ``value``; (-1, -1) when there is none."""
    shape = np.array([i, j, rows, cols, bits, none], dtype=np.int64)
    found: tuple[int, int] = _native.towers_predecessor(keys, vals, int(target), value, shape,
                                                        table, needs, allowed)
    return found


def _best(keys: np.ndarray, vals: np.ndarray) -> int:
    """The best score of a table (``-2**62`` when it is empty)."""
    best: int = _native.towers_best(keys, vals)
    return best


@dataclass(frozen=True)
class KeyLayout:
    """How the programme reads a board and packs a frontier state into a 64-bit key.

    The board is ``turned`` (rows and columns swapped) when it is wider than tall, and its
    cells are placed in reading order. Column ``j`` of the frontier takes bits
    ``cell_bits * j`` up: the colour code of its last placed cell in the low
    ``colour_bits`` (the colours in the spec's order, then "empty"; all ones: no cell yet),
    then the mask of the colours that cell still needs from neighbours to come.
    """

    turned: bool
    cell_bits: int
    colour_bits: int


def key_layout(problem: TowersProblem) -> KeyLayout:
    """The programme's reading order and key layout for ``problem``."""
    n = len(problem.colours) + (1 if problem.allow_empty else 0)
    colour_bits = n.bit_length()  # codes 0 .. n - 1, and one more for "no cell"
    return KeyLayout(problem.cols > problem.rows, colour_bits + n, colour_bits)


def max_width(problem: TowersProblem) -> int:
    """The widest board (columns, after turning it) the programme can take."""
    return 64 // _bits(problem)[0]


def _bits(problem: TowersProblem) -> tuple[int, int]:
    layout = key_layout(problem)
    return layout.cell_bits, (1 << layout.colour_bits) - 1


def _context_points(cell_points: np.ndarray | None, problem: TowersProblem,
                    points: np.ndarray, none: int) -> np.ndarray | None:
    """``cell_points`` as ``[r, c, up, left, k]`` over the key's colour codes (``none``: no
    cell), whether it was given per colour or per colour and neighbours; None if not given."""
    if cell_points is None:
        return None
    n = len(points)
    cell_points = np.asarray(cell_points, dtype=np.int64)
    grid = (problem.rows, problem.cols)
    if cell_points.shape == (*grid, n):
        cell_points = np.broadcast_to(cell_points[:, :, None, None, :],
                                      (*grid, n + 1, n + 1, n))
    elif cell_points.shape != (*grid, n + 1, n + 1, n):
        raise ValueError(f"cell_points must be {(*grid, n)} or {(*grid, n + 1, n + 1, n)}, "
                         f"not {cell_points.shape}")
    code = np.minimum(np.arange(none + 1), n)  # codes n .. none - 1 never occur
    return cell_points[:, :, code][:, :, :, code]


def solve_dp(problem: TowersProblem, *, incumbent: int | None = None,
             deadline: float | None = None, memory_limit: int = MEMORY_LIMIT,
             board: bool = False, helpers: frozenset[int] = frozenset(),
             rest_bound: list[int] | None = None,
             layer_sink: Callable[[int, np.ndarray, np.ndarray], None] | None = None,
             cell_points: np.ndarray | None = None,
             start: tuple[int, np.ndarray, np.ndarray] | None = None,
             until: int | None = None,
             ) -> DpResult:
    """The optimum, or whether any board beats ``incumbent`` (see the module docstring).

    With ``board``, every layer is kept (compacted) so an optimal board can be traced back.
    With an incumbent, the layers of the pruned half are kept, so a better board, if there
    is one, is traced back over that half (``partial``). ``helpers`` are rows whose towers
    score nothing and need nothing: neighbours of a band of rows, free to be anything (see
    :func:`upper_bound`). ``rest_bound[t]``, when given with an incumbent, bounds the score
    of the cells from the ``t``-th on (in the programme's reading order): a state that
    cannot beat the incumbent even so is dropped in the first half too.

    ``cell_points[r, c, k]`` (board coordinates; ``k`` the colour, then "empty"), when
    given, replaces the colours' points cell by cell: what a tower of colour ``k`` scores
    at ``(r, c)``, which may be negative (prices on the rows of a band, see
    ``bounds.lagrangian_bound``). ``cell_points[r, c, up, left, k]`` makes the score depend
    on the colours of the cells above and to the left as well (index ``codes``: no cell
    there); the programme knows both when it places a cell, whichever way it reads.

    ``layer_sink(t, keys, values)`` is handed every layer as it is made, from the start
    state (``t = 0``) to the states after the last cell: the frontier states reached after
    ``t`` cells and their best scores: a certificate (``cpmodels.towers.certificate``).

    ``until`` stops the programme once ``until`` cells are placed (the layer handed to
    ``layer_sink`` last; ``best`` is that layer's best score). ``start = (t, keys,
    values)`` goes on from a layer of ``t`` cells so made, of a problem whose first ``t``
    cells (in reading order) are the same: the same cells built and the same scores there.
    Boards sharing a prefix are solved from one layer that way (the branches of one parent,
    ``towers.compact``); the answer is the one of a run from the first cell. Neither goes
    with ``board`` or an incumbent.
    """
    if (start is not None or until is not None) and (board or incumbent is not None):
        raise ValueError("a programme started from a layer or stopped early traces no board "
                         "and takes no incumbent")
    began, clock = start, time.perf_counter()
    rows, cols = problem.rows, problem.cols
    fixed = dict(problem.fixed)
    turned = key_layout(problem).turned
    if turned:  # place along the shorter side
        rows, cols = cols, rows
        fixed = {(c, r): k for (r, c), k in fixed.items()}
    bits, none = _bits(problem)
    if cols > 64 // bits:
        raise ValueError(f"the programme takes boards up to {64 // bits} wide")
    colours = list(problem.colours)
    points = np.array([c.points for c in colours] + ([0] if problem.allow_empty else []),
                      dtype=np.int64)
    needs = np.array([sum(1 << n for n in c.needs) for c in colours]
                     + ([0] if problem.allow_empty else []), dtype=np.int64)
    every = (1 << len(points)) - 1
    empty_code = len(colours)
    init = np.uint64(0)
    for j in range(cols):
        init |= np.uint64(none) << np.uint64(bits * j)
    first = 0
    if began is None:
        keys = np.full(16, _EMPTY, dtype=np.uint64)
        vals = np.zeros(16, dtype=np.int64)
        keys[0] = init
        len_keys = 1
    else:  # the layer after ``first`` cells, in a table of its own (it is written over)
        first, layer_keys, layer_vals = began
        if not 0 <= first <= rows * cols or len(layer_keys) != len(layer_vals):
            raise ValueError("a start layer must be the states after 0 to all cells")
        len_keys = len(layer_keys)
        cap = 16
        while cap < 2 * len_keys:
            cap *= 2
        keys = np.full(cap, _EMPTY, dtype=np.uint64)
        vals = np.zeros(cap, dtype=np.int64)
        _native.towers_rehash(np.ascontiguousarray(layer_keys, dtype=np.uint64),
                              np.ascontiguousarray(layer_vals, dtype=np.int64), keys, vals)
    buffers = [(keys, vals), (np.empty(16, dtype=np.uint64), np.empty(16, dtype=np.int64))]
    current = 0  # the buffer that holds the layer; the next one goes in the other
    total = rows * cols
    best_after = [0] * (total + 1)
    layers: list[tuple[np.ndarray, np.ndarray]] = []
    kept = 0
    allowed_at = []
    # The half-turn bound needs the board to look the same turned: not with built cells.
    symmetric = not fixed and not helpers and cell_points is None
    free_needs = np.zeros_like(needs)
    context = _context_points(cell_points, problem, points, none)

    def terms(i: int, j: int) -> tuple[np.ndarray, np.ndarray]:
        """What each colour scores at cell (i, j) of the reading order, by the colour codes
        of the frontier cells above and to the left of it there, and what it needs."""
        r, c = (j, i) if turned else (i, j)
        helper = r in helpers
        wants = free_needs if helper else needs
        if context is None:
            flat = np.zeros_like(points) if helper else points
            return np.ascontiguousarray(np.broadcast_to(flat, (none + 1, none + 1,
                                                               len(points)))), wants
        table = context[r, c]
        if turned:  # reading down the columns: the cell above is the board's left one
            table = table.transpose(1, 0, 2)
        return np.ascontiguousarray(table), wants
    peak = max(1, len_keys)
    last = total if until is None else min(total, max(first, until))
    t = first - 1  # no cell placed yet in this run
    for t in range(first, last):
        i, j = divmod(t, cols)
        rest = total - t - 1
        floor = -(1 << 62)
        if incumbent is not None and symmetric and rest <= t:
            floor = incumbent + 1 - best_after[rest]
        if incumbent is not None and rest_bound is not None:
            floor = max(floor, incumbent + 1 - rest_bound[t + 1])
        code = fixed.get((i, j))
        allowed = every if code is None else 1 << (empty_code if code < 0 else code)
        allowed_at.append(allowed)
        keep = board or (incumbent is not None and symmetric and rest <= t)  # the half traced
        if keep or layer_sink is not None:
            full = keys != _EMPTY
            layer = (keys[full], vals[full])
            if layer_sink is not None:
                layer_sink(t, *layer)
        if keep:
            layers.append(layer)
            kept += len(layer[0]) * 16
        else:
            layers.append((np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)))
        # Tables are reused from layer to layer: fresh memory costs page faults.
        cap = 16
        while cap < 4 * len_keys:
            cap *= 2
        target = 1 if current == 0 else 0
        if buffers[target][0].shape[0] < cap:
            buffers[target] = (np.empty(cap, dtype=np.uint64), np.empty(cap, dtype=np.int64))
        cell_pts, cell_needs = terms(i, j)
        keys, vals, n = _step(keys, vals, i, j, rows, cols, cell_pts, cell_needs,
                              allowed, bits, none, floor, buffers[target][0][:cap],
                              buffers[target][1][:cap])
        if keys.shape[0] != cap:  # the table grew: keep the bigger one
            buffers[target] = (keys, vals)
        current = target
        len_keys = n
        best_after[t + 1] = _best(keys, vals)
        peak = max(peak, n)
        out_of_time = deadline is not None and time.perf_counter() > deadline
        if out_of_time or keys.nbytes * 2 + kept > memory_limit:
            return DpResult(None, False, peak, time.perf_counter() - clock)
        if n == 0:
            break
    if layer_sink is not None:
        full = keys != _EMPTY
        layer_sink(t + 1, keys[full], vals[full])
    if len_keys == 0:
        return DpResult(None, True, peak, time.perf_counter() - clock)
    if began is not None or until is not None:  # no trace-back (neither has a board)
        return DpResult(_best(keys, vals), True, peak, time.perf_counter() - clock)
    letters = [c.letter for c in colours] + [problem.empty_letter]
    found: dict[tuple[int, int], str] = {}
    full = keys != _EMPTY
    at = int(np.argmax(np.where(full, vals, np.iinfo(np.int64).min)))
    key, value = keys[at], int(vals[at])
    for t in range(total - 1, -1, -1):
        prev_keys, prev_vals = layers[t]
        if not len(prev_keys):
            break
        i, j = divmod(t, cols)
        cell_pts, cell_needs = terms(i, j)
        s, k = _predecessor(prev_keys, prev_vals, key, value, i, j, rows, cols, cell_pts,
                            cell_needs, allowed_at[t], bits, none)
        found[(j, i) if turned else (i, j)] = letters[k]
        key, value = prev_keys[s], int(prev_vals[s])
    grid = None
    if board:
        grid = ["".join(found[r, c] for c in range(problem.cols)) for r in range(problem.rows)]
    return DpResult(best_after[total], True, peak, time.perf_counter() - clock, grid,
                    None if board else found)
