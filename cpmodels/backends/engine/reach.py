"""The reach search: which label combinations of a calendar have a solution, in one search.

A calendar compiled as a sweep compiles it (``sweep.py``: one slack item per label group,
one slack option per label, the hole) has a solution for every combination of holes it
can leave open. Where the per-date search forces each combination's holes and looks for a
first solution, one date after another, this search forces some holes (a task's) and
leaves the other groups' open, walking the board once for all their combinations, on the
one-word layout (``one_word.py``: cells in one word, pieces and slack items in another;
pieces left out are forced options), and:

* records the combination of each solution it reaches (the holes placed) and stops as soon
  as every wanted combination is found;
* prunes a branch whose reachable combinations are all found already: a group whose hole is
  placed reaches that label, an open group each of its labels still uncovered;
* keeps the states it searched to the end (cells, units used, holes): everything reachable
  from such a state was found then, so meeting it again ends the branch. The states of
  different forced prefixes (a design's sets: pieces left out) never mix;
* *settles* a state with at most one group's hole still open: what it reaches is then the
  labels of that group whose hole some completion leaves (or, none open, whether it has a
  completion), whatever holes were placed on the way, so it is kept for good by (cells,
  units used) alone in a second table, and holds for every later search: of another
  task, month or set (a piece left out is a unit used). A search asks only for the labels
  still wanted, and an entry grows as later searches ask for more (:func:`_settle`);
* prunes regions as the one-word kernel does, a region counting the holes it may take: an
  isolated cell that no open group's hole may fill, two isolated cells of one group, or a
  region next to the option just placed whose size no pieces plus the holes of the open
  groups touching it add up to.

The layout and the wanted combinations are ``reach_layout.py``'s. Self-contained for
numba's cache, like the other kernel modules.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from cpmodels import _native
from cpmodels.backends.engine.memo import FLUSHES, HITS, MISSES, NODES, STOP, USED, Table
from cpmodels.backends.engine.reach_layout import ReachLayout, ReachRegions

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


# --- bits ---------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _next_option(cells, x, m, k, end, bit, L):
    """The next placement at cell ``x`` that fits beside ``cells``: whether there is one,
    its cells, and where the walk of the placements at ``x`` is (``m``: the units not
    begun, ``k`` to ``end``: the run of the unit ``bit``)."""
    while True:
        while k < end:
            om = L.masks[k]
            k += _ONE
            if om & cells == _ZERO:
                return True, om, m, k, end, bit
        if m == _ZERO:
            return False, _ZERO, m, k, end, bit
        p = np.uint64(trailing_zeros(m))
        m &= m - _ONE
        k = L.start[x * L.n_units + p]
        end = L.start[x * L.n_units + p + _ONE]
        bit = _ONE << p


@intrinsic
def _ctpop(typingctx, x):
    """The number of set bits of a uint64 (LLVM's ctpop)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


@njit(cache=True, inline="always")
def _around(r, L):
    """The cells next to the cells of ``r`` (``r`` itself left out)."""
    return (((r >> _ONE) & ~L.last) | ((r << _ONE) & ~L.first)
            | (r >> L.inner) | (r << L.inner))


@njit(cache=True, inline="always")
def _open_labels(cells, used, L):
    """The cells where an open group's hole may still go."""
    out = _ZERO
    for g in range(L.group_cells.shape[0]):
        if used & L.group_unit[g] == _ZERO:
            out |= L.group_cells[g] & ~cells
    return out


@njit(cache=True, inline="always")
def _holes_may(region, used, L):
    """How many open groups have a label cell in ``region``."""
    k = 0
    for g in range(L.group_cells.shape[0]):
        if used & L.group_unit[g] == _ZERO and region & L.group_cells[g] != _ZERO:
            k += 1
    return k


@njit(cache=True, inline="always")
def _dead_end(om, cells, used, L, R):
    """True when no hole may fill an isolated cell, two isolated cells are labels of one
    group, or a region next to ``om`` has a size no pieces and holes add up to."""
    empty = ~cells
    holes_ok = _open_labels(cells, used, L)
    isolated = empty & ~_around(empty, L)
    if isolated != _ZERO:
        if isolated & ~holes_ok != _ZERO:
            return True
        for g in range(L.group_cells.shape[0]):
            if _ctpop(isolated & L.group_cells[g]) > _ONE:
                return True
    limit = R.limit
    seeds = _around(om, L) & empty
    while seeds != _ZERO:
        region = seeds & (~seeds + _ONE)
        size = _ONE
        while size < limit:
            grown = (region | _around(region, L)) & empty
            if grown == region:
                break
            region = grown
            size = _ctpop(region)
        if size < limit and not R.fill[_holes_may(region, used, L), size]:
            return True
        seeds &= ~region
    return False


@njit(cache=True, inline="always")
def _reach(g, cells, used, holes, L):
    """The cells of group ``g``'s labels it may still leave open (a dummy bit for no
    group)."""
    if g < 0:
        return _ONE
    if used & L.group_unit[g] != _ZERO:
        return holes & L.group_cells[g]
    return L.group_cells[g] & ~cells


@njit(cache=True, inline="always")
def _wanted_reachable(cells, used, holes, L, need):
    """Whether some combination still wanted is reachable from the state."""
    bits = _reach(L.bit_group, cells, used, holes, L)
    if bits == _ZERO:
        return False
    ra = _reach(L.a_group, cells, used, holes, L)
    rb = _reach(L.b_group, cells, used, holes, L)
    while ra != _ZERO:
        base = L.a_label[np.uint64(trailing_zeros(ra))] * L.a_stride
        ra &= ra - _ONE
        mb = rb
        while mb != _ZERO:
            if need[base + L.b_label[np.uint64(trailing_zeros(mb))]] & bits != _ZERO:
                return True
            mb &= mb - _ONE
    return False


# --- the table of states searched to the end ----------------------------------------------
# A state searched to the end found what it reaches *of the combinations wanted then*: its
# entry holds only for the call that made it. Each call marks its entries with a number of
# its own (column 3), and an entry with another mark is an empty slot, so no call has to
# empty the table. A state whose subtree held no solution at all, and none of whose
# branches was cut for having nothing left to find, has no completion: it is marked DEAD,
# which holds for every later call (whatever it wants, and for every set of a design).
DEAD = np.uint64(1)


@njit(cache=True, inline="always")
def _slot(cells, used, holes, keys, mark):
    x = used * _MIX1
    x = cells ^ (x ^ (x >> np.uint64(31))) ^ (holes * _MIX2)
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    x ^= x >> np.uint64(31)
    mask = np.uint64(keys.shape[0] - 1)
    s = x & mask
    while keys[s, 3] == mark or keys[s, 3] == DEAD:
        if keys[s, 0] == cells and keys[s, 1] == used and keys[s, 2] == holes:
            return s
        s = (s + _ONE) & mask
    return s


@njit(cache=True, inline="always")
def _keep(cells, used, holes, keys, stats, mark, dead):
    """Keep a state searched to the end; a table three quarters full is emptied first."""
    if stats[USED] * 4 >= keys.shape[0] * 3:
        keys[:, 3] = _ZERO
        stats[USED] = 0
        stats[FLUSHES] += 1
    s = _slot(cells, used, holes, keys, mark)
    if keys[s, 3] != mark and keys[s, 3] != DEAD:
        stats[USED] += 1  # (a slot another call had counts again: the table empties early)
    keys[s, 0] = cells
    keys[s, 1] = used
    keys[s, 2] = holes
    keys[s, 3] = DEAD if dead else mark


# --- states with at most one group open, settled for good (see the introduction) ---------
# An entry: cells, units used, the labels (cells of the open group; ONE: a completion when
# none is open) found reachable, the labels decided. An empty slot has nothing decided.


@njit(cache=True, inline="always")
def _open_group(used, L):
    """The one open group of a state with at most one (-1: none; -2: more than one)."""
    out = -1
    for g in range(L.group_cells.shape[0]):
        if used & L.group_unit[g] == _ZERO:
            if out != -1:
                return -2
            out = g
    return out


@njit(cache=True, inline="always")
def _universe(cells, used, L):
    """The labels a state with at most one open group may reach (ONE: none open)."""
    g = _open_group(used, L)
    if g < 0:
        return _ONE
    return L.group_cells[g] & ~cells


@njit(cache=True, inline="always")
def _combination(holes, L):
    """The index and the bit of the combination of the holes (one in every group)."""
    index = np.int64(0)
    if L.a_group >= 0:
        index += np.int64(L.a_label[np.uint64(trailing_zeros(
            holes & L.group_cells[L.a_group]))] * L.a_stride)
    if L.b_group >= 0:
        index += np.int64(L.b_label[np.uint64(trailing_zeros(
            holes & L.group_cells[L.b_group]))])
    return index, holes & L.group_cells[L.bit_group]


@njit(cache=True, inline="always")
def _wanted_labels(cells, used, holes, L, need):
    """Of a state with at most one open group, the labels whose combination with the holes
    placed is still wanted (ONE, or nothing, when no group is open)."""
    g = _open_group(used, L)
    if g < 0:
        index, bit = _combination(holes, L)
        return _ONE if need[index] & bit != _ZERO else _ZERO
    free = L.group_cells[g] & ~cells
    if g == L.bit_group:
        index, _ = _combination(holes | L.group_cells[g], L)
        return need[index] & free
    out = _ZERO
    rest = free
    while rest != _ZERO:
        c = rest & (~rest + _ONE)
        rest &= ~c
        index, bit = _combination(holes | c, L)
        if need[index] & bit != _ZERO:
            out |= c
    return out


@njit(cache=True, inline="always")
def _cross_off(yes, used, holes, L, need):
    """Cross the combinations of the labels ``yes`` (see :func:`_wanted_labels`) off
    ``need``; how many were crossed off."""
    g = _open_group(used, L)
    crossed = 0
    if g < 0:
        if yes != _ZERO:
            index, bit = _combination(holes, L)
            if need[index] & bit != _ZERO:
                need[index] &= ~bit
                crossed += 1
        return crossed
    rest = yes
    while rest != _ZERO:
        c = rest & (~rest + _ONE)
        rest &= ~c
        index, bit = _combination(holes | c, L)
        if need[index] & bit != _ZERO:
            need[index] &= ~bit
            crossed += 1
    return crossed


@njit(cache=True, inline="always")
def _settled_slot(cells, used, keys):
    x = used * _MIX2
    x = cells ^ (x ^ (x >> np.uint64(29)))
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    x ^= x >> np.uint64(31)
    mask = np.uint64(keys.shape[0] - 1)
    s = x & mask
    while keys[s, 3] != _ZERO:
        if keys[s, 0] == cells and keys[s, 1] == used:
            return s
        s = (s + _ONE) & mask
    return s


@njit(cache=True, inline="always")
def _settle_keep(cells, used, yes, done, keys, counts):
    """Add what a search decided of a state to its entry; a table three quarters full is
    emptied first."""
    if counts[USED] * 4 >= keys.shape[0] * 3:
        keys[:, 3] = _ZERO
        counts[USED] = 0
        counts[FLUSHES] += 1
    s = _settled_slot(cells, used, keys)
    if keys[s, 3] == _ZERO:
        counts[USED] += 1
        keys[s, 0] = cells
        keys[s, 1] = used
        keys[s, 2] = _ZERO
    keys[s, 2] |= yes
    keys[s, 3] |= done


@njit(cache=True)
def _settle(cells, used, ask, L, R, keys, counts, stats):
    """Which of the labels ``ask`` a state with at most one open group reaches (see above),
    searching only for those its entry has not decided; returns them and whether the state
    is dead (no completion at all). At a stop, returns nothing found (``stats[STOP]`` says
    so) and keeps only what was decided in full."""
    full, zero, one = ~_ZERO, _ZERO, _ONE
    all_units = (one << L.n_units) - one if L.n_units < 64 else full
    n_units, avail = L.n_units, L.avail
    s = _settled_slot(cells, used, keys)
    known_yes = keys[s, 2] if keys[s, 3] != zero else zero
    known_done = keys[s, 3]
    if ask & ~known_done == zero:
        counts[HITS] += 1
        universe = _universe(cells, used, L)
        return known_yes & ask, known_yes == zero and universe & ~known_done == zero
    counts[MISSES] += 1
    depth_max = np.int64(n_units) + 1
    st_cells = np.empty(depth_max, dtype=np.uint64)
    st_used = np.empty(depth_max, dtype=np.uint64)
    st_m = np.empty(depth_max, dtype=np.uint64)
    st_k = np.empty(depth_max, dtype=np.uint64)
    st_end = np.empty(depth_max, dtype=np.uint64)
    st_x = np.empty(depth_max, dtype=np.uint64)
    st_bit = np.empty(depth_max, dtype=np.uint64)
    st_om = np.empty(depth_max, dtype=np.uint64)
    st_goal = np.empty(depth_max, dtype=np.uint64)
    st_found = np.empty(depth_max, dtype=np.uint64)
    st_ask = np.empty(depth_max, dtype=np.uint64)
    st_known = np.empty(depth_max, dtype=np.uint64)
    st_hole = np.empty(depth_max, dtype=np.uint64)
    goal = ask & ~known_done  # the labels this frame decides
    found = zero
    g = _open_group(used, L)
    hole_unit = L.group_unit[g] if g >= 0 else zero
    depth = 0
    nodes = 1
    x = np.uint64(trailing_zeros(~cells))
    m = avail[x] & ~used
    k = end = bit = om = zero
    while True:
        got = False
        if goal & ~found != zero:
            got, om, m, k, end, bit = _next_option(cells, x, m, k, end, bit, L)
        if not got:  # decided: every option tried, or every label asked for found
            _settle_keep(cells, used, found, goal, keys, counts)
            answer = (known_yes | found) & ask
            if depth == 0:
                stats[NODES] += nodes
                counts[NODES] += nodes
                s = _settled_slot(cells, used, keys)
                universe = _universe(cells, used, L)
                return answer, (keys[s, 3] != zero and keys[s, 2] == zero
                                and universe & ~keys[s, 3] == zero)
            depth -= 1
            cells, used, m = st_cells[depth], st_used[depth], st_m[depth]
            k, end, x, bit, om = (st_k[depth], st_end[depth], st_x[depth], st_bit[depth],
                                  st_om[depth])
            goal, found, ask = st_goal[depth], st_found[depth], st_ask[depth]
            known_yes = st_known[depth]
            hole_unit = st_hole[depth]
            if answer != zero:
                found |= om if bit & hole_unit != zero else answer
            continue
        child_cells = cells | om
        child_used = used | bit
        if bit & hole_unit != zero:  # the open group's hole: the child has none open
            child_ask = one if om & goal & ~found != zero else zero
        else:
            child_ask = goal & ~found & ~child_cells if hole_unit != zero else goal
        if child_ask == zero:
            continue
        if child_cells == full:
            if child_used | L.optional == all_units:
                found |= om if bit & hole_unit != zero else child_ask
            continue
        if R.limit > zero and _dead_end(om, child_cells, child_used, L, R):
            continue
        s = _settled_slot(child_cells, child_used, keys)
        child_known = keys[s, 2] if keys[s, 3] != zero else zero
        child_done = keys[s, 3]
        if child_ask & ~child_done == zero:
            counts[HITS] += 1
            if child_known & child_ask != zero:
                found |= om if bit & hole_unit != zero else child_known & child_ask
            continue
        st_cells[depth], st_used[depth], st_m[depth] = cells, used, m
        st_k[depth], st_end[depth], st_x[depth], st_bit[depth], st_om[depth] = k, end, x, bit, om
        st_goal[depth], st_found[depth], st_ask[depth] = goal, found, ask
        st_known[depth] = known_yes
        st_hole[depth] = hole_unit
        depth += 1
        nodes += 1
        if nodes & 4095 == 0 and stats[STOP] != 0:
            stats[NODES] += nodes
            return zero, False
        if bit & hole_unit != zero:
            hole_unit = zero
        cells, used = child_cells, child_used
        ask, known_yes = child_ask, child_known
        goal = child_ask & ~child_done
        found = zero
        x = np.uint64(trailing_zeros(~cells))
        m = avail[x] & ~used
        k = end = zero


# --- the search ---------------------------------------------------------------------------


@njit(cache=True)
def _search(cells, used, holes, L, R, keys, stats, mark, need, left, settled, counts):
    """Search from the state, crossing each solution's combination off ``need``; returns
    the wanted combinations left (0: all found, the search ended there), or -1 at a stop.
    A state with at most one group open is settled (``settled``, ``counts``: its table)."""
    full, zero, one = ~_ZERO, _ZERO, _ONE
    all_units = (one << L.n_units) - one if L.n_units < 64 else full
    n_units, avail = L.n_units, L.avail
    if _open_group(used, L) != -2:
        labels = _wanted_labels(cells, used, holes, L, need)
        if labels == zero:
            return left
        yes, _ = _settle(cells, used, labels, L, R, settled, counts, stats)
        if stats[STOP] != 0:
            return -1
        return left - _cross_off(yes, used, holes, L, need)
    if not _wanted_reachable(cells, used, holes, L, need):
        return left
    depth_max = np.int64(n_units) + 1
    st_cells = np.empty(depth_max, dtype=np.uint64)
    st_used = np.empty(depth_max, dtype=np.uint64)
    st_holes = np.empty(depth_max, dtype=np.uint64)
    st_m = np.empty(depth_max, dtype=np.uint64)
    st_k = np.empty(depth_max, dtype=np.uint64)
    st_end = np.empty(depth_max, dtype=np.uint64)
    st_x = np.empty(depth_max, dtype=np.uint64)
    st_bit = np.empty(depth_max, dtype=np.uint64)
    st_clean = np.empty(depth_max, dtype=np.bool_)
    clean = True  # no solution below, no branch cut for having nothing left to find
    depth = 0
    nodes = 1
    x = np.uint64(trailing_zeros(~cells))
    m = avail[x] & ~used
    k = end = bit = zero
    while True:
        found, om, m, k, end, bit = _next_option(cells, x, m, k, end, bit, L)
        if not found:  # every option tried: everything reachable from here is found
            _keep(cells, used, holes, keys, stats, mark, clean)
            if depth == 0:
                stats[NODES] += nodes
                return left
            depth -= 1
            cells, used, holes, m = st_cells[depth], st_used[depth], st_holes[depth], st_m[depth]
            k, end, x, bit = st_k[depth], st_end[depth], st_x[depth], st_bit[depth]
            clean = clean and st_clean[depth]
            continue
        child_cells = cells | om
        child_used = used | bit
        child_holes = holes | om if bit & L.slack_units != zero else holes
        if child_cells == full:
            if child_used | L.optional == all_units:
                clean = False
                index, hole = _combination(child_holes, L)
                if need[index] & hole != zero:
                    need[index] &= ~hole
                    left -= 1
                    if left == 0:
                        stats[NODES] += nodes
                        return 0
            continue
        if R.limit > zero and _dead_end(om, child_cells, child_used, L, R):
            continue
        if _open_group(child_used, L) != -2:
            labels = _wanted_labels(child_cells, child_used, child_holes, L, need)
            if labels == zero:
                clean = False
                continue
            yes, dead = _settle(child_cells, child_used, labels, L, R, settled, counts,
                                stats)
            if stats[STOP] != 0:
                stats[NODES] += nodes
                return -1
            clean = clean and dead
            left -= _cross_off(yes, child_used, child_holes, L, need)
            if left == 0:
                stats[NODES] += nodes
                return 0
            continue
        if not _wanted_reachable(child_cells, child_used, child_holes, L, need):
            clean = False
            continue
        s = _slot(child_cells, child_used, child_holes, keys, mark)
        if keys[s, 3] == DEAD:
            continue
        if keys[s, 3] == mark:
            clean = False
            continue
        st_cells[depth], st_used[depth], st_holes[depth], st_m[depth] = cells, used, holes, m
        st_k[depth], st_end[depth], st_x[depth], st_bit[depth] = k, end, x, bit
        st_clean[depth] = clean
        clean = True
        depth += 1
        nodes += 1
        if nodes & 4095 == 0 and stats[STOP] != 0:
            stats[NODES] += nodes
            return -1
        cells, used, holes = child_cells, child_used, child_holes
        x = np.uint64(trailing_zeros(~cells))
        m = avail[x] & ~used
        k = end = zero


@njit(cache=True, inline="always")
def _apply(row, cells, used, holes, L):
    """The state with the options of ``row`` (-1 pads) placed, and whether they fit."""
    ok = True
    for q in range(row.shape[0]):
        o = row[q]
        if o < 0:
            continue
        ok = ok and (cells & L.opt_cells[o]) | (used & L.opt_unit[o]) == _ZERO
        cells |= L.opt_cells[o]
        used |= L.opt_unit[o]
        if L.opt_unit[o] & L.slack_units != _ZERO:
            holes |= L.opt_cells[o]
    return cells, used, holes, ok


@njit(cache=True, nogil=True)
def _reach_kernel_numba(forced, tasks, wanted_start, L, R, table, settled, mark, index, bit, found,
                 first_failure):
    """One reach search per task: row ``t`` of ``tasks`` (options forced besides ``forced``;
    -1 pads) wants the combinations ``wanted_start[t]`` to ``wanted_start[t + 1]`` of
    ``index``/``bit`` (see :func:`encode_wanted`). ``found[n]``: 1 when some solution holds
    wanted combination ``n``, 0 when none does, -1 when not searched: with
    ``first_failure``, the tasks after the first with a combination not found, or after a
    stop. Task ``t`` marks its table entries ``mark + t``."""
    keys, _, _, stats = table
    settled_keys, _, _, counts = settled
    found[:] = -1
    need = np.zeros(L.n_index, dtype=np.uint64)
    cells0, used0, holes0, ok0 = _apply(forced, L.covered, _ZERO, _ZERO, L)
    for t in range(tasks.shape[0]):
        if stats[STOP] != 0:
            return
        cells, used, holes, ok = _apply(tasks[t], cells0, used0, holes0, L)
        ok = ok and ok0
        first, last = wanted_start[t], wanted_start[t + 1]
        left = np.int64(0)
        if ok:
            for n in range(first, last):
                if need[index[n]] & bit[n] == _ZERO:
                    need[index[n]] |= bit[n]
                    left += 1
        if left > 0:
            left = _search(cells, used, holes, L, R, keys, stats, mark + np.uint64(t), need,
                           left, settled_keys, counts)
            if left < 0:
                return
        failed = False
        for n in range(first, last):
            if ok and need[index[n]] & bit[n] == _ZERO:
                found[n] = 1
            else:
                found[n] = 0
                failed = True
        for n in range(first, last):
            need[index[n]] = _ZERO
        if first_failure and failed:
            return


# --- the compiled core --------------------------------------------------------------------


def reach_kernel(forced: np.ndarray, tasks: np.ndarray, wanted_start: np.ndarray,
                 L: ReachLayout, R: ReachRegions, table: Table, settled: Table,
                 mark: int, index: np.ndarray, bit: np.ndarray, found: np.ndarray,
                 first_failure: bool) -> None:
    """One reach search per task: row ``t`` of ``tasks`` (options forced besides ``forced``;
    -1 pads) wants the combinations ``wanted_start[t]`` to ``wanted_start[t + 1]`` of
    ``index``/``bit`` (see :func:`~.reach_layout.encode_wanted`). ``found[n]``: 1 when some
    solution holds wanted combination ``n``, 0 when none does, -1 when not searched: with
    ``first_failure``, the tasks after the first with a combination not found, or after a
    stop. Task ``t`` marks its table entries ``mark + t`` (the core's search, run with the
    GIL released)."""
    def ints(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a, dtype=np.int64)
    _native.reach(ints(forced), ints(tasks), ints(wanted_start), L, R, table, settled,
                  int(mark), ints(index), np.ascontiguousarray(bit, dtype=np.uint64), found,
                  bool(first_failure))
