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

The wanted combinations are kept as words: the group with the most labels (the *bit group*)
is a bit mask of cells, the others (at most two) index an array of such masks. Covers that
do not suit (no one-word layout, more than three groups) have no layout, and the caller
asks date by date instead.

Self-contained for numba's cache, like the other kernel modules.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from cpmodels.backends.engine.memo import FLUSHES, HITS, MISSES, NODES, STOP, USED
from cpmodels.backends.engine.one_word import one_word_layout
from cpmodels.backends.engine.regions import region_sizes
from cpmodels.cover import ExactCover, ItemKind

#: What the reach kernel reads (see :func:`reach_layout`).
ReachLayout = namedtuple("ReachLayout", [
    "start", "masks", "avail", "n_units", "opt_cells", "opt_unit", "slack_units", "optional",
    "covered", "inner", "first", "last", "group_cells", "group_unit", "bit_group", "a_group",
    "b_group", "a_label", "b_label", "a_stride", "n_index", "n_cells", "last_group"])

#: The region sizes a set's pieces fill with k holes, k = 0 .. groups (row k), and the
#: size below which regions are checked.
ReachRegions = namedtuple("ReachRegions", ["fill", "limit"])

MAX_GROUPS = 3  # the bit group and at most two indexing groups

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def reach_layout(cover: ExactCover) -> ReachLayout | None:
    """The reach kernel's view of a calendar's sweep cover, or None when it does not suit:
    the one-word layout of the cover (``one_word.py``: a square grid of at most 64 cells,
    pieces used once, slack and left-out options) with one to three slack items (label
    groups), read from it: the group cells, the bit group and the other groups' labels.

    Of the four corners the scan may start from, it takes the one whose scan meets last
    the group with the most labels (the group a design's searches leave open, see
    ``design/reaching.py``: the fewer the searches), then one that is a board cell (the
    scan starts where the board does). On the weekday calendar that is the corner of
    Saturday, months last: 0.5 of the time of the scan from January (``docs/design.md``)."""
    layouts = [layout for flips in range(4)
               if (layout := _reach_layout(cover, flips)) is not None]
    if not layouts:
        return None

    def preference(layout: ReachLayout) -> tuple[int, bool]:
        last = int(layout.group_cells[layout.last_group])
        return bin(last).count("1"), not int(layout.covered) & 1
    return max(layouts, key=preference)  # the first of the best, on a tie


def _reach_layout(cover: ExactCover, flips: int) -> ReachLayout | None:
    """:func:`reach_layout` with the scan from the corner ``flips`` names."""
    one = one_word_layout(cover, flips)
    if one is None:
        return None
    n_units = int(one.n_pieces)
    slack_bits = [p for p in range(n_units) if int(one.slack) >> p & 1]
    if not 0 < len(slack_bits) <= MAX_GROUPS:
        return None
    group_cells = [int(one.slack_cells[p]) for p in slack_bits]
    sizes = [bin(m).count("1") for m in group_cells]
    if min(sizes) == 0:
        return None
    bit_group = max(range(len(slack_bits)), key=lambda g: (sizes[g], -g))
    others = [g for g in range(len(slack_bits)) if g != bit_group]

    def labels(g: int) -> np.ndarray:
        """Each cell bit of group ``g``'s labels -> the label's index (in bit order)."""
        out = np.zeros(64, dtype=np.uint64)
        if g >= 0:
            for k, b in enumerate(b for b in range(64) if group_cells[g] >> b & 1):
                out[b] = k
        return out

    a_group = others[0] if others else -1
    b_group = others[1] if len(others) > 1 else -1
    a_size = sizes[a_group] if a_group >= 0 else 1
    b_size = sizes[b_group] if b_group >= 0 else 1
    n_cells = 64 - bin(int(one.covered)).count("1")
    return ReachLayout(
        one.start, one.masks, one.avail, one.n_pieces, one.opt_cells, one.opt_piece,
        one.slack, one.optional, one.covered, one.inner, one.first, one.last,
        np.array(group_cells, dtype=np.uint64),
        np.array([1 << p for p in slack_bits], dtype=np.uint64),
        np.int64(bit_group), np.int64(a_group), np.int64(b_group), labels(a_group),
        labels(b_group), np.uint64(b_size), np.int64(a_size * b_size), np.int64(n_cells),
        np.int64(max(range(len(group_cells)), key=lambda g: (group_cells[g] & -group_cells[g],
                                                            g))))


def reach_regions(layout: ReachLayout, areas: Sequence[int]) -> ReachRegions:
    """The region sizes pieces of ``areas`` fill with 0 .. groups holes of one cell."""
    groups = len(layout.group_cells)
    total = int(layout.n_cells)
    fill = np.zeros((groups + 1, total + 1), dtype=np.bool_)
    limit = 0
    for k in range(groups + 1):
        fill[k], found = region_sizes(list(areas) + [1] * k, total)
        limit = max(limit, found)
    return ReachRegions(fill, np.uint64(limit))


def encode_wanted(layout: ReachLayout, cover: ExactCover,
                  wanted: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Each wanted combination (its slack options, any order) as its index into the array
    of masks and its bit there."""
    slack_group = {i: g for g, i in enumerate(
        i for i, it in enumerate(cover.items) if it.kind is ItemKind.SLACK)}
    index = np.zeros(len(wanted), dtype=np.int64)
    bit = np.zeros(len(wanted), dtype=np.uint64)
    labels = {int(layout.a_group): layout.a_label, int(layout.b_group): layout.b_label}
    for n, combo in enumerate(wanted):
        hole = {}
        for o in combo:
            item = next(i for i in cover.options[o] if i in slack_group)
            hole[slack_group[item]] = int(layout.opt_cells[o])
        if len(hole) != len(layout.group_cells):
            raise ValueError(f"combination {n} leaves no hole in some group")
        a, b = (int(labels[g][hole[g].bit_length() - 1]) if g >= 0 else 0
                for g in (int(layout.a_group), int(layout.b_group)))
        index[n] = a * int(layout.a_stride) + b
        bit[n] = np.uint64(hole[int(layout.bit_group)])
    return index, bit


# --- bits ---------------------------------------------------------------------------------


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


# --- the reach of a state with at most one group open, kept for good --------------------
# Once at most one group's hole is still open, what a state reaches no longer hangs on the
# holes placed: it is the labels of the open group (as cells) whose hole some completion
# leaves, or ONE when no group is open and the state has a completion. Such a state is
# keyed by (cells, units used) alone, and its entry (columns: cells, used, labels found
# reachable, labels decided) holds for every later search: of another task, another month,
# another set of a design (pieces left out are units used). A search asks for some labels
# only, and an entry grows as later searches ask for more. Empty slots have nothing decided.


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
    n_units, start, masks, avail = L.n_units, L.start, L.masks, L.avail
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
            while True:
                while k < end:
                    om = masks[k]
                    k += one
                    if om & cells == zero:
                        got = True
                        break
                if got or m == zero:
                    break
                p = np.uint64(trailing_zeros(m))
                m &= m - one
                k = start[x * n_units + p]
                end = start[x * n_units + p + one]
                bit = one << p
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
    n_units, start, masks, avail = L.n_units, L.start, L.masks, L.avail
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
        om = zero
        found = False
        while True:
            while k < end:
                om = masks[k]
                k += one
                if om & cells == zero:
                    found = True
                    break
            if found or m == zero:
                break
            p = np.uint64(trailing_zeros(m))
            m &= m - one
            k = start[x * n_units + p]
            end = start[x * n_units + p + one]
            bit = one << p
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
                index = np.int64(0)
                if L.a_group >= 0:
                    index += np.int64(L.a_label[np.uint64(trailing_zeros(
                        child_holes & L.group_cells[L.a_group]))] * L.a_stride)
                if L.b_group >= 0:
                    index += np.int64(L.b_label[np.uint64(trailing_zeros(
                        child_holes & L.group_cells[L.b_group]))])
                hole = child_holes & L.group_cells[L.bit_group]
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
def reach_kernel(forced, tasks, wanted_start, L, R, table, settled, mark, index, bit, found,
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
