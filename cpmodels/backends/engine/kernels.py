"""The compiled searches: one set of steps, a counting kernel and an enumerating kernel.

Everything numba compiles lives in this one file: numba's cache checks only the file of
the function it caches, so a step kept in another file could be changed and the cached
kernel go on running the old one.

Every kernel walks the same tree (see the package's introduction) with the same steps:
:func:`_next_open` finds the item to branch on, :func:`_next_fit` the next option to try
there (skipping a used-up piece's options as a block), :func:`_place` and :func:`_unplace`
put it down and take it back, and :func:`_counters_full` says whether a full board is a
solution. (The used-up test lives inside :func:`_next_fit`'s loop: as a function of its
own, called once per option, it cost the counting kernel 15 to 40 per cent, measured.) The
arrays come as three named tuples: ``lay`` (a :class:`~.layout.Layout`), ``tal`` (a
:class:`~.tally.Tallies`) and ``table`` (a :class:`~.memo.Table`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cpmodels import _native
from cpmodels.backends.engine.memo import ARENA_USED, FLUSHES, HITS, MISSES, NODES, STOP, USED

# --- the steps every kernel takes -------------------------------------------------------


@njit(cache=True, inline="always")
def _next_open(filled, pos, n_branch):
    """The first uncovered branching item at or after ``pos`` (``n_branch``: none)."""
    while pos < n_branch and (filled[pos >> 6] >> np.uint64(pos & 63)) & np.uint64(1):
        pos += 1
    return pos


@njit(cache=True, inline="always")
def _counters_full(counters, low):
    """Whether every counter has reached its lower bound (a full board is then a solution)."""
    for c in range(counters.shape[0]):  # noqa: SIM110 (a plain loop compiles best)
        if counters[c] < low[c]:
            return False
    return True


@njit(cache=True, inline="always")
def _next_fit(k, end, filled, counters, anchor_opts, group_end, tag_word, tag_bit,
              opt_counter, high, opt_mask):
    """The next option to try from ``anchor_opts[k:end]``: ``(option, k after it)``, or
    ``(-1, end)`` when none is left. Options of a used-up piece are skipped as a run;
    options that overlap the covered items are passed over."""
    while k < end:
        o = anchor_opts[k]
        tw = tag_word[o]
        c = opt_counter[o]
        if (tw >= 0 and filled[tw] & tag_bit[o]) or (c >= 0 and counters[c] >= high[c]):
            k = group_end[k]
            continue
        k += 1
        if _fits(o, filled, opt_mask):
            return o, k
    return -1, end


@njit(cache=True, inline="always")
def _fits(o, filled, opt_mask):
    """Whether option ``o`` covers no item already covered."""
    for w in range(filled.shape[0]):  # noqa: SIM110 (a plain loop compiles best)
        if opt_mask[o, w] & filled[w]:
            return False
    return True


@njit(cache=True, inline="always")
def _place(o, filled, counters, opt_mask, opt_counter):
    for w in range(filled.shape[0]):
        filled[w] |= opt_mask[o, w]
    c = opt_counter[o]
    if c >= 0:
        counters[c] += 1


@njit(cache=True, inline="always")
def _unplace(o, filled, counters, opt_mask, opt_counter):
    for w in range(filled.shape[0]):
        filled[w] ^= opt_mask[o, w]
    c = opt_counter[o]
    if c >= 0:
        counters[c] -= 1


# --- the table of sub-board counts (its data: memo.py) ---------------------------------

_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, inline="always")
def slot_of(filled, code, keys, values):
    n_words = filled.shape[0]
    h = code * _GOLDEN
    for w in range(n_words):
        x = filled[w] ^ h
        x = (x ^ (x >> np.uint64(30))) * _MIX1
        x = (x ^ (x >> np.uint64(27))) * _MIX2
        h = x ^ (x >> np.uint64(31))
    mask = np.uint64(values.shape[0] - 1)
    s = np.int64(h & mask)
    while values[s] > 0:
        same = keys[s, n_words] == code
        if same:
            for w in range(n_words):
                if keys[s, w] != filled[w]:
                    same = False
                    break
        if same:
            return s
        s = (s + 1) & np.int64(mask)
    return s



@njit(cache=True, inline="always")
def lookup(filled, code, keys, values, stats):
    slot = slot_of(filled, code, keys, values)
    if values[slot] > 0:
        stats[HITS] += 1
        return values[slot] - 1
    stats[MISSES] += 1
    return -1


@njit(cache=True, inline="always")
def store(filled, code, vec, lo, hi, scalar, keys, values, arena, stats):
    """Keep a state's counts. A plain count goes in the table itself (as count + 1); a count
    vector goes in ``arena`` as its first nonzero index, the run length and the run.

    A table three quarters full, or an arena without room, is emptied first (every count
    kept is a shortcut, never needed): a long search keeps the recent sub-boards instead of
    running on with a full table that can keep nothing new.
    """
    n = hi - lo
    if not scalar and n + 2 > arena.shape[0]:
        return  # this vector could never fit
    if (stats[USED] * 4 >= values.shape[0] * 3
            or not (scalar or stats[ARENA_USED] + n + 2 <= arena.shape[0])):
        values[:] = 0  # a zero value marks an empty slot: the keys may stay
        stats[USED] = 0
        stats[ARENA_USED] = 0
        stats[FLUSHES] += 1
    top = stats[ARENA_USED]
    n_words = filled.shape[0]
    slot = slot_of(filled, code, keys, values)
    for w in range(n_words):
        keys[slot, w] = filled[w]
    keys[slot, n_words] = code
    stats[USED] += 1
    if scalar:
        values[slot] = vec[0] + 1
        return
    arena[top] = lo
    arena[top + 1] = n
    for x in range(n):
        arena[top + 2 + x] = vec[lo + x]
    values[slot] = top + 1
    stats[ARENA_USED] = top + n + 2


# --- region pruning (its data: regions.py) --------------------------------------------

@njit(cache=True, inline="always")
def _flood_step(y, scratch, stack, top, size):
    """Push cell bit ``y`` onto the flood fill's stack unless it is filled or seen."""
    one = np.uint64(1)
    if y >= 0 and not (scratch[0, y >> 6] >> np.uint64(y & 63)) & one:
        scratch[0, y >> 6] |= one << np.uint64(y & 63)
        stack[top] = y
        return top + 1, size + 1
    return top, size

@njit(cache=True)
def dead_end(o, filled, cell_nb, opt_nb_start, opt_nb, fillable, limit, scratch, stack):
    """True when option ``o`` (already applied) leaves an empty region no pieces can fill.

    Regions next to the option are flood-filled up to ``limit`` cells; ``scratch[0]`` marks
    the current fill, ``scratch[1]`` the regions measured to the end.
    """
    if limit == 0:
        return False
    n_words = filled.shape[0]
    for w in range(n_words):
        scratch[1, w] = filled[w]
    one = np.uint64(1)
    for q in range(opt_nb_start[o], opt_nb_start[o + 1]):
        b = opt_nb[q]
        if (scratch[1, b >> 6] >> np.uint64(b & 63)) & one:
            continue
        for w in range(n_words):
            scratch[0, w] = scratch[1, w]
        scratch[0, b >> 6] |= one << np.uint64(b & 63)
        size = 1
        top = 1
        stack[0] = b
        while top > 0 and size < limit:
            top -= 1
            x = stack[top]
            if cell_nb.shape[1] == 4:  # the square grid, with a loop numba can unroll
                for d in range(4):
                    top, size = _flood_step(cell_nb[x, d], scratch, stack, top, size)
            else:
                for d in range(cell_nb.shape[1]):
                    top, size = _flood_step(cell_nb[x, d], scratch, stack, top, size)
        if size < limit:
            if not fillable[size]:
                return True
            for w in range(n_words):
                scratch[1, w] = scratch[0, w]
    return False


@njit(cache=True, inline="always")
def _force(prefix, filled, counters, lay):
    """Place the options of ``prefix`` (-1 pads) on an empty state; ``(whether they fit
    together, the counter code)``."""
    code = np.uint64(0)
    ok = True
    for q in range(prefix.shape[0]):
        o = prefix[q]
        if o < 0:
            continue
        ok = ok and _fits(o, filled, lay.opt_mask)
        _place(o, filled, counters, lay.opt_mask, lay.opt_counter)
        c = lay.opt_counter[o]
        if c >= 0:
            code += lay.radix[c]
            ok = ok and counters[c] <= lay.counter_high[c]
    return ok, code


# --- tally vectors ----------------------------------------------------------------------


@njit(cache=True, inline="always")
def _uncovered_tally(filled, tally_bit, n_tally):
    """The tally items a state leaves uncovered, as a bit mask."""
    mask = 0
    for t in range(n_tally):
        b = tally_bit[t]
        if not (filled[b >> 6] >> np.uint64(b & 63)) & np.uint64(1):
            mask |= 1 << t
    return mask


@njit(cache=True, inline="always")
def _add_into(acc, src, start, lo, n, o, mask, tal):
    """Add a child's counts (entries ``lo .. lo+n-1`` of its vector, read from ``src`` at
    ``start``) to the parent's vector ``acc``; option ``o`` led from parent to child."""
    t = tal.opt_tally[o]
    if t < 0:
        for x in range(n):
            acc[lo + x] += src[start + x]
    else:
        base = tal.opt_index[o] * tal.stride[mask, t]
        m0 = tal.map_start[mask * max(tal.n_tally, 1) + t] + lo
        for x in range(n):
            acc[base + tal.map_flat[m0 + x]] += src[start + x]


@njit(cache=True, inline="always")
def _nonzero_range(vec, n):
    lo = 0
    while lo < n and vec[lo] == 0:
        lo += 1
    hi = n
    while hi > lo and vec[hi - 1] == 0:
        hi -= 1
    return lo, hi


# --- counting ---------------------------------------------------------------------------


@njit(cache=True)
def _tally(filled, counters, code, lay, tal, table, out):
    """Count the completions of a state, split by the options that cover the tally items.

    Writes ``length[mask]`` counts to ``out``, where ``mask`` holds the tally items the state
    leaves uncovered. Explicit stack (no recursion); one count vector per depth. Returns
    early, storing nothing partial, when the table's stop flag is set.
    """
    (opt_mask, opt_counter, tag_word, tag_bit, anchor_start, anchor_opts, group_end, low,
     high, radix, n_branch, use_memo, cell_nb, opt_nb_start, opt_nb, fillable, limit) = lay
    n_tally, tally_bit, last_anchor, length = tal.n_tally, tal.bit, tal.last_anchor, tal.length
    keys, values, arena, stats = table
    n_words = filled.shape[0]
    scalar = n_tally == 0  # a plain count: the table holds counts, not arena offsets
    one = np.ones(1, dtype=np.int64)
    root_mask = _uncovered_tally(filled, tally_bit, n_tally)
    n_root = length[root_mask]
    for x in range(n_root):
        out[x] = 0
    pos = _next_open(filled, 0, n_branch)
    if pos == n_branch:
        out[0] = 1 if _counters_full(counters, low) else 0
        return
    for t in range(n_tally):
        if (root_mask >> t) & 1 and last_anchor[t] < pos:
            return
    if use_memo:
        at = lookup(filled, code, keys, values, stats)
        if at >= 0 and scalar:
            out[0] = at
            return
        if at >= 0:
            for x in range(arena[at + 1]):
                out[arena[at] + x] = arena[at + 2 + x]
            return
    depth_max = n_branch + 1
    acc = np.zeros((depth_max, n_root), dtype=np.int64)
    stack_pos = np.zeros(depth_max, dtype=np.int64)
    stack_k = np.zeros(depth_max, dtype=np.int64)
    stack_code = np.zeros(depth_max, dtype=np.uint64)
    stack_mask = np.zeros(depth_max, dtype=np.int64)
    chosen = np.zeros(depth_max, dtype=np.int64)
    scratch = np.zeros((2, n_words), dtype=np.uint64)
    fill_stack = np.zeros(n_branch + 1, dtype=np.int64)
    depth = 0
    stack_pos[0] = pos
    stack_k[0] = anchor_start[pos]
    stack_code[0] = code
    stack_mask[0] = root_mask
    stats[NODES] += 1
    while True:
        pos = stack_pos[depth]
        o, stack_k[depth] = _next_fit(stack_k[depth], anchor_start[pos + 1], filled, counters,
                                      anchor_opts, group_end, tag_word, tag_bit, opt_counter,
                                      high, opt_mask)
        if o < 0:  # every option tried: this sub-board is counted
            lo, hi = 0, 1
            if not scalar:
                lo, hi = _nonzero_range(acc[depth], length[stack_mask[depth]])
            if use_memo:
                store(filled, stack_code[depth], acc[depth], lo, hi, scalar, keys, values,
                       arena, stats)
            if depth == 0:
                for x in range(lo, hi):
                    out[x] = acc[0, x]
                return
            depth -= 1
            o = chosen[depth]
            _unplace(o, filled, counters, opt_mask, opt_counter)
            if scalar:
                acc[depth, 0] += acc[depth + 1, 0]
            else:
                _add_into(acc[depth], acc[depth + 1], lo, lo, hi - lo, o, stack_mask[depth],
                          tal)
            continue
        _place(o, filled, counters, opt_mask, opt_counter)
        c = opt_counter[o]
        child_code = stack_code[depth]
        if c >= 0:
            child_code += radix[c]
        mask = stack_mask[depth]
        child_mask = mask
        if tal.opt_tally[o] >= 0:
            child_mask = mask & ~(1 << tal.opt_tally[o])
        nxt = _next_open(filled, pos + 1, n_branch)
        done = True
        if nxt == n_branch:
            ok = _counters_full(counters, low)
            if ok and scalar:
                acc[depth, 0] += 1
            elif ok:
                _add_into(acc[depth], one, 0, 0, 1, o, mask, tal)
        else:
            starved = False
            for t in range(n_tally):
                if (child_mask >> t) & 1 and last_anchor[t] < nxt:
                    starved = True
            if starved or dead_end(o, filled, cell_nb, opt_nb_start, opt_nb, fillable, limit,
                                scratch, fill_stack):
                pass
            elif use_memo:
                at = lookup(filled, child_code, keys, values, stats)
                if at >= 0 and scalar:
                    acc[depth, 0] += at
                elif at >= 0:
                    _add_into(acc[depth], arena, at + 2, arena[at], arena[at + 1], o, mask,
                              tal)
                else:
                    done = False
            else:
                done = False
        if done:
            _unplace(o, filled, counters, opt_mask, opt_counter)
            continue
        chosen[depth] = o
        stats[NODES] += 1
        if stats[STOP] != 0:
            return
        depth += 1
        stack_pos[depth] = nxt
        stack_k[depth] = anchor_start[nxt]
        stack_code[depth] = child_code
        stack_mask[depth] = child_mask
        for x in range(length[child_mask]):
            acc[depth, x] = 0


@njit(cache=True, nogil=True)
def _tally_prefixes_numba(prefixes, lay, tal, table, out, out_mask):
    """Tally the completions of each row of ``prefixes`` (option ids forced first; -1 pads):
    row ``p``'s counts go to ``out[p]``, its uncovered tally items to ``out_mask[p]``."""
    stats = table.stats
    n_words = lay.opt_mask.shape[1]
    for p in range(prefixes.shape[0]):
        if stats[STOP] != 0:
            return
        filled = np.zeros(n_words, dtype=np.uint64)
        counters = np.zeros(lay.counter_low.shape[0], dtype=np.int64)
        ok, code = _force(prefixes[p], filled, counters, lay)
        out_mask[p] = _uncovered_tally(filled, tal.bit, tal.n_tally)
        if ok:
            _tally(filled, counters, code, lay, tal, table, out[p])
        else:
            out[p, :] = 0


# --- enumerating ------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _search_numba(state, filled, counters, chosen, stack_pos, stack_k, lay, out, max_out, stop):
    """Resumable depth-first search; writes up to ``max_out`` solutions (option ids) to ``out``.

    ``state[0]`` is the depth (-1 before the start, -2 when finished); ``state[1]`` counts
    the solutions written by this call. The arrays keep the search between calls. It
    returns at its next node once ``stop[0]`` is set, and can be resumed after.
    """
    (opt_mask, opt_counter, tag_word, tag_bit, anchor_start, anchor_opts, group_end, low,
     high, _, n_branch, _, cell_nb, opt_nb_start, opt_nb, fillable, limit) = lay
    n_words = filled.shape[0]
    scratch = np.zeros((2, n_words), dtype=np.uint64)
    fill_stack = np.zeros(n_branch + 1, dtype=np.int64)
    written = 0
    depth = state[0]
    if depth == -2:
        state[1] = 0
        return
    if depth == -1:
        pos = _next_open(filled, 0, n_branch)
        if pos == n_branch:  # nothing to branch on: the forced options are the solution
            if _counters_full(counters, low):
                out[0, 0] = -1
                written = 1
            state[0] = -2
            state[1] = written
            return
        depth = 0
        stack_pos[0] = pos
        stack_k[0] = anchor_start[pos]
    while depth >= 0:
        if written >= max_out or stop[0] != 0:
            break
        pos = stack_pos[depth]
        o, stack_k[depth] = _next_fit(stack_k[depth], anchor_start[pos + 1], filled, counters,
                                      anchor_opts, group_end, tag_word, tag_bit, opt_counter,
                                      high, opt_mask)
        if o < 0:  # every option tried: back up
            depth -= 1
            if depth >= 0:
                _unplace(chosen[depth], filled, counters, opt_mask, opt_counter)
            continue
        _place(o, filled, counters, opt_mask, opt_counter)
        chosen[depth] = o
        nxt = _next_open(filled, pos + 1, n_branch)
        if nxt == n_branch:
            if _counters_full(counters, low):
                for d in range(depth + 1):
                    out[written, d] = chosen[d]
                if depth + 1 < out.shape[1]:
                    out[written, depth + 1] = -1
                written += 1
            _unplace(o, filled, counters, opt_mask, opt_counter)
            continue
        if dead_end(o, filled, cell_nb, opt_nb_start, opt_nb, fillable, limit, scratch,
                    fill_stack):
            _unplace(o, filled, counters, opt_mask, opt_counter)
            continue
        depth += 1
        stack_pos[depth] = nxt
        stack_k[depth] = anchor_start[nxt]
    state[0] = depth if depth >= 0 else -2
    state[1] = written


@njit(cache=True)
def _first_solution(filled, counters, code, lay, table, use_table, stop, chosen, stack_pos,
                    stack_k, stack_code, scratch, fill_stack):
    """Whether the state has a completion: a depth-first search that ends at its first
    solution. With ``use_table``, every state it exhausts is kept in ``table`` as dead (a
    count of 0), and a state found there is not searched again: the table carries over
    from one prefix to the next, and from one call to the next. Returns False at once,
    keeping nothing partial, when ``stop[0]`` is set (the caller checks it)."""
    (opt_mask, opt_counter, tag_word, tag_bit, anchor_start, anchor_opts, group_end, low,
     high, radix, n_branch, memo_ok, cell_nb, opt_nb_start, opt_nb, fillable, limit) = lay
    keys, values, arena, stats = table
    use_table = use_table and memo_ok
    none = np.zeros(1, dtype=np.int64)
    pos = _next_open(filled, 0, n_branch)
    if pos == n_branch:
        return _counters_full(counters, low)
    if use_table and lookup(filled, code, keys, values, stats) >= 0:
        return False
    depth = 0
    stack_pos[0] = pos
    stack_k[0] = anchor_start[pos]
    stack_code[0] = code
    while True:
        if stop[0] != 0:
            return False
        pos = stack_pos[depth]
        o, stack_k[depth] = _next_fit(stack_k[depth], anchor_start[pos + 1], filled, counters,
                                      anchor_opts, group_end, tag_word, tag_bit, opt_counter,
                                      high, opt_mask)
        if o < 0:  # every option tried: this state has no completion
            if use_table:
                store(filled, stack_code[depth], none, 0, 1, True, keys, values, arena, stats)
            depth -= 1
            if depth < 0:
                return False
            _unplace(chosen[depth], filled, counters, opt_mask, opt_counter)
            continue
        _place(o, filled, counters, opt_mask, opt_counter)
        chosen[depth] = o
        child_code = stack_code[depth]
        c = opt_counter[o]
        if c >= 0:
            child_code += radix[c]
        nxt = _next_open(filled, pos + 1, n_branch)
        if nxt == n_branch:
            if _counters_full(counters, low):
                return True
            _unplace(o, filled, counters, opt_mask, opt_counter)
            continue
        if dead_end(o, filled, cell_nb, opt_nb_start, opt_nb, fillable, limit, scratch,
                    fill_stack) or (use_table and
                                    lookup(filled, child_code, keys, values, stats) >= 0):
            _unplace(o, filled, counters, opt_mask, opt_counter)
            continue
        depth += 1
        stack_pos[depth] = nxt
        stack_k[depth] = anchor_start[nxt]
        stack_code[depth] = child_code


@njit(cache=True, nogil=True)
def _exists_numba(prefixes, lay, table, use_table, out, first_failure, stop):
    """For each row of ``prefixes`` (option ids forced first; -1 pads), whether some
    solution contains them: ``out[p]`` is 1 or 0 (see :func:`_first_solution`; ``table``
    keeps the dead states when ``use_table``). With ``first_failure``, rows after the
    first 0 are left as they were (not searched); so are the rows after a stop."""
    n_words = lay.opt_mask.shape[1]
    depth_max = lay.n_branch + 1
    chosen = np.zeros(depth_max, dtype=np.int64)
    stack_pos = np.zeros(depth_max, dtype=np.int64)
    stack_k = np.zeros(depth_max, dtype=np.int64)
    stack_code = np.zeros(depth_max, dtype=np.uint64)
    scratch = np.zeros((2, n_words), dtype=np.uint64)
    fill_stack = np.zeros(lay.n_branch + 1, dtype=np.int64)
    for p in range(prefixes.shape[0]):
        if stop[0] != 0:
            return
        filled = np.zeros(n_words, dtype=np.uint64)
        counters = np.zeros(lay.counter_low.shape[0], dtype=np.int64)
        ok, code = _force(prefixes[p], filled, counters, lay)
        found = ok and _first_solution(filled, counters, code, lay, table, use_table, stop,
                                       chosen, stack_pos, stack_k, stack_code, scratch,
                                       fill_stack)
        if stop[0] != 0:
            return
        out[p] = 1 if found else 0
        if first_failure and out[p] == 0:
            return


# --- the compiled core's searches (cpcore/packing_search.hpp, the N-word state) ---------


def tally_prefixes_kernel(prefixes: np.ndarray, lay: tuple, tal: tuple, table: tuple,
                          out: np.ndarray, out_mask: np.ndarray) -> None:
    """Tally the completions of each row of ``prefixes`` (option ids forced first; -1
    pads): row ``p``'s counts go to ``out[p]``, its uncovered tally items to
    ``out_mask[p]``. ``lay`` is a :class:`~.layout.Layout`, ``tal`` a
    :class:`~.tally.Tallies`, ``table`` a :class:`~.memo.Table` (its statistics updated)."""
    _native.tally_prefixes_n_words(_rows(prefixes), lay, tal, table, out, out_mask)


def exists_kernel(prefixes: np.ndarray, lay: tuple, table: tuple, use_table: bool,
                  out: np.ndarray, first_failure: bool, stop: np.ndarray) -> None:
    """For each row of ``prefixes`` (option ids forced first; -1 pads), whether some
    solution contains them: ``out[p]`` is 1 or 0. With ``use_table``, the states found
    dead are kept in ``table`` and carry over to later rows and calls. With
    ``first_failure``, rows after the first 0 are left as they were (not searched); so
    are the rows after ``stop[0]`` is set."""
    _native.exists_n_words(_rows(prefixes), lay, table, bool(use_table), out,
                           bool(first_failure), stop)


def search_kernel(state: np.ndarray, filled: np.ndarray, counters: np.ndarray,
                  chosen: np.ndarray, stack_pos: np.ndarray, stack_k: np.ndarray, lay: tuple,
                  out: np.ndarray, max_out: int, stop: np.ndarray) -> None:
    """Resumable depth-first search; writes up to ``max_out`` solutions (option ids, -1
    after the last) to ``out``. ``state[0]`` is the depth (-1 before the start, -2 when
    finished), ``state[1]`` the solutions this call wrote; the arrays keep the search
    between calls. It returns at its next node once ``stop[0]`` is set, and can be resumed
    after."""
    _native.search_n_words(state, filled, counters, chosen, stack_pos, stack_k, lay, out,
                           int(max_out), stop)


def _rows(prefixes: np.ndarray) -> np.ndarray:
    """Prefixes as the core reads them: a C-contiguous 2-d array of int64."""
    return np.ascontiguousarray(prefixes, dtype=np.int64).reshape(len(prefixes), -1)
