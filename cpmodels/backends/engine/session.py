"""The engine session: one exact cover compiled once, and every question asked of it.

An :class:`EngineSession` is the one door to the engine's search. It is made from an
:class:`~cpmodels.cover.ExactCover` (and, for tallies, the items whose covering options
split the counts), compiles the cover the first time it is asked something, and owns the
tables its searches fill: one of sub-board counts (shared by every count and tally asked of
it) and one of states known to have no completion (shared by every existence question). It
answers:

* :meth:`~EngineSession.count` and :meth:`~EngineSession.tally`: how many solutions contain
  some forced options, in all or split by the tally items' options;
* :meth:`~EngineSession.exists`: for each set of forced options, whether some solution
  contains it (a first solution, not a count);
* :meth:`~EngineSession.reach`: which combinations of a calendar's holes have a solution,
  one search for many (``reach.py``);
* :meth:`~EngineSession.first_solution` and :meth:`~EngineSession.solutions`: solutions
  themselves, streamed in a fixed order;
* :meth:`~EngineSession.difficulty`: how hard a first solution is for a person, the work of
  a plain backtracker (``difficulty.py``, ``docs/difficulty.md``);
* :meth:`~EngineSession.branches` and :meth:`~EngineSession.split`: the search cut into
  disjoint *tasks* (tuples of forced option ids), and :meth:`~EngineSession.run`: a *unit*
  (a tuple of tasks) tallied, as the scheduler's workers run it (``scheduling.py``).

Every question takes ``time_limit`` (seconds, None: none) and raises
:class:`~cpmodels.errors.OutOfTime` when it passes first, or when :meth:`stop` was called
(from any thread). A session's tables belong to one thread at a time: a second thread
waits for its turn, within its own time limit. A session pickles without its compiled
arrays and tables (a worker process or a Dask worker compiles it again, once); a forked
worker inherits it warm.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from cpmodels.backends.engine.kernels.difficulty import Backtracker, Difficulty
from cpmodels.backends.engine.kernels.general import (
    exists_kernel,
    search_kernel,
    tally_prefixes_kernel,
)
from cpmodels.backends.engine.kernels.memo import (
    ARENA_USED,
    DEFAULT_MEMO_SLOTS,
    FLUSHES,
    HITS,
    MISSES,
    NODES,
    STATS,
    STOP,
    USED,
    Memo,
)
from cpmodels.backends.engine.kernels.one_word import count_one_word, tally_one_word
from cpmodels.backends.engine.kernels.reach import reach_kernel
from cpmodels.backends.engine.kernels.words import (
    WordLayout,
    exists_words,
    table_words,
    tally_prefixes_words,
    word_layout,
)
from cpmodels.backends.engine.layouts.cover import (
    CompiledCover,
    Layout,
    OneWord,
    compile_cover,
    one_word_layout,
)
from cpmodels.backends.engine.layouts.reach import (
    ReachLayout,
    ReachRegions,
    WantedLists,
    left_open_holes,
    reach_layout,
    reach_regions,
)
from cpmodels.backends.engine.layouts.regions import region_sizes
from cpmodels.backends.engine.layouts.tally import (
    OneTallies,
    TallyLayout,
    one_word_tallies,
    tally_layout,
)
from cpmodels.cover import ExactCover, ItemKind
from cpmodels.errors import OutOfTime
from cpmodels.interrupt import interruptible, stop_after

Task = tuple[int, ...]  # option ids forced before the search
Unit = tuple[Task, ...]  # tasks run in turn by one worker, sharing its table
Tally = dict[tuple[int, ...], int]  # options covering the tally items -> solutions
Regions = tuple[np.ndarray, int]  # fillable region sizes and the limit they are checked to
DEAD_SLOTS = 1 << 16  # the table of dead states, by default
# The one-word kernel's table: 6 MB. On 6x10, the 8x8 boxes and single calendar dates, a
# bigger one saves nodes but costs as much again in page faults and cache misses.
ONE_WORD_SLOTS = 1 << 18
# Its table for tallies (a sweep's, a design's): keys of 24 bytes, vectors in the arena.
ONE_WORD_TALLY_SLOTS = 1 << 23
REACH_SLOTS = 1 << 16  # the reach search's states searched to the end (2 MB)
SETTLED_SLOTS = 1 << 20  # its settled states, kept for good (32 MB; docs/design.md)


class EngineSession:
    """One exact cover compiled for the engine, its tables, and the questions it answers.

    ``tally_items`` (at most 16 exact-one items) split :meth:`tally`'s counts by the
    options covering them; ``table_slots`` and ``arena`` size the table of sub-board counts
    (see ``memo.py``), ``dead_slots`` the table of dead states :meth:`exists` keeps. Counts
    on a square board of at most 64 cells with every piece used once take the one-word
    kernel (``one_word.py``), with a table of at most :data:`ONE_WORD_SLOTS` (none when
    ``table_slots`` is 0); so do tallies and the counts of covers with slack items (a
    sweep's, a design's: slack and tally items are bits of the piece word), with a table
    of at most :data:`ONE_WORD_TALLY_SLOTS`. ``word_kernel`` and ``one_word`` turn the
    word kernels off.

    ```python
    >>> from cpmodels.api import instance
    >>> session = EngineSession(instance("calendar_day", labels=["Oct", "6"]).cover)
    >>> session.count(), session.exists([[]]), len(list(session.solutions()))
    (7, [True], 7)

    ```
    """

    def __init__(self, cover: ExactCover, *, tally_items: Sequence[int] = (),
                 table_slots: int = DEFAULT_MEMO_SLOTS, arena: int | None = None,
                 dead_slots: int = DEAD_SLOTS, word_kernel: bool = True,
                 one_word: bool = True) -> None:
        self.cover = cover
        self.tally_items = tuple(tally_items)
        self.table_slots = table_slots
        self.arena = arena
        self.dead_slots = dead_slots
        self._compiled: CompiledCover | None = None
        self._words: WordLayout | None = None
        self._tallies: TallyLayout | None = None
        self._table: Memo | None = None
        self._dead: Memo | None = None
        self._turn = threading.Lock()
        self._backtracker_made = threading.Lock()
        self._backtracker: Backtracker | None = None
        self._cancelled = False
        self.use_words = word_kernel  # covers of at most two words take the word kernel
        self.use_one_word = word_kernel and one_word  # and counts of <= 64 cells, this one
        self._one: OneWord | bool | None = None  # False: the cover does not suit it
        self._one_tallies: OneTallies | bool | None = None  # False: the tallies do not
        self._one_tally_layout: TallyLayout | None = None
        self._reach: ReachLayout | bool | None = None  # likewise, for :meth:`reach`
        self._reached: Memo | None = None
        self._settled: Memo | None = None  # the reach search's states settled for good
        self._reach_calls = 1  # each reach search marks its table entries with its number
        self._reach_regions: dict[tuple[int, ...], ReachRegions] = {}
        self._wanted = WantedLists()  # the last few lists the reach search was asked

    # -- life cycle ---------------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        """What goes to another process: the cover and the sizes, not the compiled arrays
        nor the tables (rebuilt there once, on the first question)."""
        return {"cover": self.cover, "tally_items": self.tally_items,
                "table_slots": self.table_slots, "arena": self.arena,
                "dead_slots": self.dead_slots, "word_kernel": self.use_words,
                "one_word": self.use_one_word}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state.pop("cover"), **state)  # type: ignore[misc]

    @property
    def compiled(self) -> CompiledCover:
        """The cover laid out for the kernels (compiled on first use)."""
        if self._compiled is None:
            self._compiled = compile_cover(self.cover)
        return self._compiled

    def stop(self) -> None:
        """End the search in progress, and every later one, as soon as possible (from any
        thread). The tables stay true: only finished sub-boards are ever stored."""
        self._cancelled = True
        for table in (self._table, self._dead, self._reached, self._settled):
            if table is not None:
                table.stop()

    @property
    def stopped(self) -> bool:
        return self._cancelled

    @contextmanager
    def _searching(self, table: Memo, time_limit: float | None,
                   what: str) -> Iterator[None]:
        """Hold this session's turn (waiting within ``time_limit``), run the block with
        ``table`` stopped at the limit, and turn a stop into :class:`OutOfTime`."""
        start = time.perf_counter()
        if not self._turn.acquire(timeout=-1 if time_limit is None else max(0.0, time_limit)):
            raise OutOfTime(f"{what}: waited {time_limit:g} s for the engine session")
        try:
            if self._cancelled:
                raise OutOfTime(f"{what}: the session was stopped")
            table.clear_stop()
            left = None if time_limit is None else time_limit - (time.perf_counter() - start)
            with stop_after(left, table.stop):
                yield
            if table.stopped:
                raise OutOfTime(f"{what}: stopped before it finished"
                                + (f" ({time_limit:g} s)" if time_limit is not None else ""))
        finally:
            self._turn.release()

    def _tally_layout(self) -> TallyLayout:
        if self._tallies is None:
            self._tallies = tally_layout(self.compiled, list(self.tally_items))
        return self._tallies

    def _count_table(self) -> tuple[TallyLayout, Memo]:
        self._tally_layout()
        assert self._tallies is not None
        if self._table is None:
            self._table = Memo(self._table_width(), self.table_slots, self.arena)
        return self._tallies, self._table

    def _one_word_table(self, tallies: bool) -> Memo:
        """The one-word kernel's table: keys are the cells and the pieces used (with
        ``tallies``, vectors in its arena)."""
        if self._table is None:
            most = ONE_WORD_TALLY_SLOTS if tallies else ONE_WORD_SLOTS
            self._table = Memo(2, max(16, min(self.table_slots, most)),
                               self.arena if tallies else None)
        return self._table

    def _table_width(self) -> int:
        """The words of a table's key rows: the word kernel keeps each value in its row."""
        n_words = self.compiled.n_words
        return n_words if self._word_layout(None) is None else table_words(n_words)

    def _one_word(self, regions: Regions | None) -> OneWord | None:
        """The one-word kernel's view of the cover for plain counts (None when it does not
        suit: tallies, slack items, more than 64 cells or pieces, pieces in copies, other
        items or grids)."""
        one = self._one_word_layout()
        if one is None or self.tally_items or one.slack:
            return None
        if regions is None:
            return one
        return one._replace(fillable=regions[0], region_limit=regions[1],
                            isolated_dead=bool(regions[1] > 1 and not regions[0][1]))

    def _one_word_layout(self) -> OneWord | None:
        if self._one is None:
            one = one_word_layout(self.cover) if self.use_one_word else None
            self._one = False if one is None else one
        return self._one if isinstance(self._one, OneWord) else None

    def _one_word_tally(self, regions: Regions | None
                        ) -> tuple[OneWord, OneTallies, TallyLayout | None] | None:
        """The one-word tally kernel's view of the cover (covers with slack items or
        tally items; None when it does not suit): the layout with the region sizes of the
        pieces alone (``regions``, else the cover's pieces), the tallies, and the tally
        layout to decode them with (None: no tally items)."""
        one = self._one_word_layout()
        if one is None or not (one.slack or self.tally_items):
            return None
        if self._one_tallies is None:
            layout = self._tally_layout() if self.tally_items else None
            tallies = one_word_tallies(self.cover, self.tally_items,
                                       None if layout is None else layout.kernel)
            piece_bits = [i for i, it in enumerate(self.cover.items)
                          if it.kind is not ItemKind.CELL]
            if any(int(one.optional) >> piece_bits.index(i) & 1
                   for i in self.tally_items if i in piece_bits):
                tallies = None  # a tally item that may be left out
            self._one_tallies = False if tallies is None else tallies
            self._one_tally_layout = layout
        if not isinstance(self._one_tallies, OneTallies):
            return None
        if regions is None:
            areas = [int(a) for p, a in enumerate(one.areas)
                     if a and not int(one.slack) >> p & 1]
            regions = region_sizes(areas, int(np.sum(one.areas)))
        L = one._replace(fillable=regions[0], region_limit=regions[1],
                         isolated_dead=bool(regions[1] > 1 and not regions[0][1]))
        return L, self._one_tallies, self._one_tally_layout

    def _word_layout(self, regions: Regions | None) -> WordLayout | None:
        """The word kernel's view of the cover (None when it needs more than two words)."""
        if self._words is None and self.use_words and self.compiled.n_words <= 2:
            self._words = word_layout(self.compiled)
        if self._words is None or regions is None:
            return self._words
        return self._words._replace(fillable=regions[0], region_limit=regions[1])

    def _slack_regions(self, regions: Regions | None,
                       tasks: Sequence[Sequence[int]]) -> Regions | None:
        """``regions`` (the sizes the pieces left fill) as the kernels that take a slack
        item for a piece of one cell read them: with one cell more for each slack item
        some task leaves open."""
        if regions is None:
            return None
        slack = {i for i, it in enumerate(self.cover.items) if it.kind is ItemKind.SLACK}
        if not slack:
            return regions
        ones = max(len(slack.difference(*(self.cover.options[o] for o in task)))
                   for task in tasks) if tasks else len(slack)
        fillable, limit = regions
        if ones == 0 or limit == 0:
            return regions
        more = np.zeros(len(fillable) + ones, dtype=np.bool_)
        for k in range(ones + 1):
            more[k:k + len(fillable)] |= fillable
        gaps = [k for k in range(1, limit) if not more[k]]
        return more, (max(gaps) + 1 if gaps else 0)

    def _kernel_layout(self, regions: Regions | None) -> Layout:
        """The kernels' view of the cover, its region sizes replaced by ``regions``."""
        if regions is None:
            return self.compiled.kernel
        return self.compiled.kernel._replace(fillable=regions[0], region_limit=regions[1])

    # -- counts -------------------------------------------------------------------------

    def tally(self, forced: Sequence[int] = (), *, regions: Regions | None = None,
              time_limit: float | None = None) -> Tally:
        """The solutions that contain the ``forced`` options, split by the options covering
        the tally items: ``{those options, in tally item order: count}`` (a tally item the
        forced options cover shows its forced option; combinations without solutions are
        left out; ``{(): n}`` with no tally items). ``regions`` (see :meth:`regions_for`)
        replaces the cover's fillable region sizes when fewer pieces are left: the sizes
        the pieces fill, without the one-cell holes of the slack items (the session adds
        those the tasks leave open)."""
        return self.tally_many([forced], regions=regions, time_limit=time_limit)[0]

    def tally_many(self, tasks: Sequence[Sequence[int]], *, regions: Regions | None = None,
                   time_limit: float | None = None) -> list[Tally]:
        """:meth:`tally` of each task in one call of the kernel (sharing the table)."""
        arr = _task_array(tasks)
        one_tally = self._one_word_tally(regions)
        if one_tally is not None:
            layout_one, tallies, decode = one_tally
            table = self._one_word_table(True)
            out = np.zeros((len(tasks), int(tallies.length[-1])), dtype=np.int64)
            masks = np.zeros(len(tasks), dtype=np.int64)
            with self._searching(table, time_limit, "counting"):
                interruptible(tally_one_word, arr, layout_one, tallies, table.kernel,
                              self.table_slots > 0, out, masks, stop=table.stop)
            if decode is None:
                return [{(): int(row[0])} if row[0] else {} for row in out]
            return [_decode_tally(decode, task, out[r], int(masks[r]))
                    for r, task in enumerate(tasks)]
        regions = self._slack_regions(regions, tasks)
        one = self._one_word(regions)
        if one is not None:
            table = self._one_word_table(False)
            counts = np.zeros(len(tasks), dtype=np.int64)
            with self._searching(table, time_limit, "counting"):
                interruptible(count_one_word, arr, one, table.kernel, self.table_slots > 0,
                              counts, stop=table.stop)
            return [{(): int(n)} if n else {} for n in counts]
        layout, table = self._count_table()
        out = np.zeros((len(tasks), int(layout.length[-1])), dtype=np.int64)
        masks = np.zeros(len(tasks), dtype=np.int64)
        words = self._word_layout(regions)
        with self._searching(table, time_limit, "counting"):
            if words is not None:
                interruptible(tally_prefixes_words, arr, words, layout.kernel, table.kernel,
                              out, masks, stop=table.stop)
            else:
                interruptible(tally_prefixes_kernel, arr, self._kernel_layout(regions),
                              layout.kernel, table.kernel, out, masks, stop=table.stop)
        return [_decode_tally(layout, task, out[r], int(masks[r]))
                for r, task in enumerate(tasks)]

    def count(self, forced: Sequence[int] = (), *, time_limit: float | None = None) -> int:
        """How many solutions contain the ``forced`` options."""
        return sum(self.tally(forced, time_limit=time_limit).values())

    def run(self, unit: Unit) -> list[Tally]:
        """Every task of ``unit`` tallied, in turn (what a worker does with a unit)."""
        return [self.tally(task) for task in unit]

    # -- existence and solutions --------------------------------------------------------

    def exists(self, tasks: Sequence[Sequence[int]], *, first_failure: bool = False,
               regions: Regions | None = None, remember: bool = True,
               time_limit: float | None = None) -> list[bool | None]:
        """For each task, whether some solution contains its options (decided by a first
        solution, not a count). With ``first_failure``, the tasks after the first without a
        solution are not searched (None). The states found dead are remembered for later
        calls (``remember``: the session's table of dead states; else none is kept)."""
        arr = _task_array(tasks)
        out = np.full(len(tasks), -1, dtype=np.int64)
        regions = self._slack_regions(regions, tasks)
        words = self._word_layout(regions)
        if remember:
            if self._dead is None:
                self._dead = Memo(self._table_width(), slots=self.dead_slots)
            table = self._dead
        else:
            table = Memo(self._table_width(), slots=16)
        stop = table.stats[STOP:STOP + 1]
        with self._searching(table, time_limit, "the existence search"):
            if words is not None:
                interruptible(exists_words, arr, words, table.kernel, remember, out,
                              first_failure, stop, stop=table.stop)
            else:
                interruptible(exists_kernel, arr, self._kernel_layout(regions), table.kernel,
                              remember, out, first_failure, stop, stop=table.stop)
        return [None if x < 0 else bool(x) for x in out]

    @property
    def reaches(self) -> bool:
        """Whether :meth:`reach` suits the cover: a calendar's sweep cover (one to three
        slack items) on a square board of at most 64 cells, pieces used once."""
        if self._reach is None:
            layout = reach_layout(self.cover) if self.use_one_word else None
            self._reach = False if layout is None else layout
        return isinstance(self._reach, ReachLayout)

    @property
    def reach_left_open(self) -> frozenset[int]:
        """The holes (slack options) of the label group the reach search's scan meets last:
        the group each search best leaves open (none when :attr:`reaches` is not)."""
        return left_open_holes(self.cover, self._reach if self.reaches else None)

    def reach(self, forced: Sequence[int],
              tasks: Sequence[tuple[Sequence[int], Sequence[Sequence[int]]]], *,
              areas: Sequence[int], first_failure: bool = False,
              time_limit: float | None = None) -> list[list[bool | None]]:
        """For each task, (options forced besides ``forced``, wanted combinations of slack
        options, one per slack item: the holes of a calendar's label groups), whether some
        solution containing the options holds each wanted combination: one search a task,
        the holes it does not force left open, which stops once all it wants are found
        (``reach.py``). A task that forces every hole is a first-solution search.
        ``areas``: the areas of the pieces the forced options leave (for region pruning).
        With ``first_failure``, the tasks after the first with a combination not found are
        not searched (None). Dead and settled states are kept for later calls. Only when
        :attr:`reaches`."""
        if not tasks:
            return []
        flat = [combo for _, wanted in tasks for combo in wanted]
        layout, regions, index, bit, table, settled = self._reach_parts(flat, areas)
        starts = np.cumsum([0, *(len(wanted) for _, wanted in tasks)]).astype(np.int64)
        found = np.full(len(flat), -1, dtype=np.int64)
        with self._searching(table, time_limit, "the reach search"):
            mark = np.uint64(self._reach_calls + 1)
            self._reach_calls += len(tasks) + 1
            interruptible(reach_kernel, _task_array([forced]).reshape(-1),
                          _task_array([held for held, _ in tasks] or [()]), starts, layout,
                          regions, table.kernel, settled.kernel, mark, index, bit, found,
                          first_failure, stop=table.stop)
        answers = [None if x < 0 else bool(x) for x in found]
        return [answers[starts[t]:starts[t + 1]] for t in range(len(tasks))]

    def _reach_parts(self, wanted: Sequence[Sequence[int]], areas: Sequence[int],
                     ) -> tuple[ReachLayout, ReachRegions, np.ndarray, np.ndarray, Memo,
                                Memo]:
        """The reach kernel's layout, the region sizes of ``areas``, ``wanted`` encoded
        (the last few lists kept) and the tables."""
        if not self.reaches:
            raise ValueError("the reach search needs a calendar's sweep cover of at most 64 "
                             "cells with at most three label groups")
        layout = self._reach
        assert isinstance(layout, ReachLayout)
        shape = tuple(sorted(int(a) for a in areas))
        if shape not in self._reach_regions:
            self._reach_regions[shape] = reach_regions(layout, shape)
        if self._reached is None or self._settled is None:
            self._reached = Memo(3, slots=REACH_SLOTS)
            self._settled = Memo(3, slots=SETTLED_SLOTS, arena=1)
        encoded = self._wanted.encoded(layout, self.cover, wanted)
        return (layout, self._reach_regions[shape], *encoded, self._reached, self._settled)

    def solutions(self, forced: Sequence[int] = (), *, time_limit: float | None = None,
                  batch: int = 1024) -> Iterator[list[int]]:
        """Every solution that contains the ``forced`` options (option ids, forced ones
        included), in a fixed order. The search pauses to hand over 1, 2, 4, ... and then
        ``batch`` solutions at a time, so the first ones arrive at once. It reads the
        compiled cover only (no table), so streams may run side by side."""
        cc = self.compiled
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
        if self._cancelled:
            raise OutOfTime("the session was stopped")
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
                interruptible(search_kernel, state, filled, counters, chosen, stack_pos,
                              stack_k, cc.kernel, out, step, stop, stop=lambda: stop.fill(1))
                step = min(2 * step, batch)
                for r in range(int(state[1])):
                    row = out[r]
                    n = int(np.argmax(row < 0)) if np.any(row < 0) else len(row)
                    yield base + [int(o) for o in row[:n]]
                if stop[0] and state[0] != -2:
                    raise OutOfTime(f"the engine stopped at the time limit ({time_limit:g} s)")

    def first_solution(self, forced: Sequence[int] = (), *,
                       time_limit: float | None = None) -> list[int] | None:
        """A solution that contains the ``forced`` options, or None when there is none."""
        return next(self.solutions(forced, time_limit=time_limit, batch=1), None)

    def difficulty(self, forced: Sequence[int] = ()) -> Difficulty | None:
        """How hard the puzzle with the ``forced`` options is (None: it has no solution):
        the mean work of a plain backtracker over its piece orders. It reads a read-only
        layout of its own, so threads may ask at once (a sweep scores rows in a pool)."""
        with self._backtracker_made:
            if self._backtracker is None:
                self._backtracker = Backtracker.of(self.cover)
        return self._backtracker.difficulty(forced)

    # -- cutting the search into tasks --------------------------------------------------

    def branches(self) -> list[Task]:
        """Disjoint tasks that together make the whole search: its first branching step."""
        cc = self.compiled
        if cc.n_branch == 0:
            return [()]
        return [(int(o),) for o in cc.anchor_opts[cc.anchor_start[0]:cc.anchor_start[1]]]

    def split(self, task: Task) -> list[Task]:
        """``task`` cut into the disjoint tasks that together make it: one per option that
        can cover the first item it leaves open (the search's next branching step). A task
        that cannot be cut (nothing left open, or no option fits) stays whole."""
        cc = self.compiled
        filled = np.zeros(cc.n_words, dtype=np.uint64)
        counters = np.zeros(len(cc.counter_low), dtype=np.int64)
        for o in task:
            filled |= cc.opt_mask[o]
            if cc.opt_counter[o] >= 0:
                counters[cc.opt_counter[o]] += 1
        pos = next((b for b in range(cc.n_branch)
                    if not int(filled[b >> 6]) >> (b & 63) & 1), None)
        if pos is None:
            return [task]
        parts = []
        for o in cc.anchor_opts[cc.anchor_start[pos]:cc.anchor_start[pos + 1]]:
            c, tw = cc.opt_counter[o], cc.opt_tag_word[o]
            if np.any(cc.opt_mask[o] & filled) or (c >= 0 and counters[c] >= cc.counter_high[c]):
                continue
            if tw >= 0 and filled[tw] & cc.opt_tag_bit[o]:
                continue
            parts.append((*task, int(o)))
        return parts or [task]

    @staticmethod
    def regions_for(areas: Sequence[int], total: int) -> Regions:
        """The region sizes pieces of ``areas`` can fill, checked up to ``total`` cells (to
        pass as ``regions`` when a task leaves only those pieces)."""
        return region_sizes(list(areas), total)

    @property
    def stats(self) -> dict[str, int]:
        """The table of sub-board counts' figures (zeros before the first count)."""
        where = {"used": USED, "hits": HITS, "misses": MISSES, "nodes": NODES,
                 "arena_used": ARENA_USED, "flushes": FLUSHES}
        stats = self._table.stats if self._table is not None else np.zeros(STATS, np.int64)
        return {name: int(stats[k]) for name, k in where.items()}


def _task_array(tasks: Sequence[Sequence[int]]) -> np.ndarray:
    """Tasks as the kernels take them: one row each, padded with -1."""
    arr = np.full((len(tasks), max([len(t) for t in tasks] + [1])), -1, dtype=np.int64)
    for r, task in enumerate(tasks):
        arr[r, :len(task)] = task
    return arr


def _decode_tally(layout: TallyLayout, task: Sequence[int], row: np.ndarray,
                  mask: int) -> Tally:
    """One task's count vector as ``{options covering the tally items: count}``."""
    n_t = len(layout.items)
    fixed = {int(layout.opt_tally[o]): int(o) for o in task if layout.opt_tally[o] >= 0}
    counts: Tally = {}
    for x in np.flatnonzero(row[:int(layout.length[mask])]):
        combo = []
        for t in range(n_t):
            if mask >> t & 1:
                index = (int(x) // int(layout.stride[mask, t])) % len(layout.options[t])
                combo.append(layout.options[t][index])
            else:
                combo.append(fixed.get(t, -1))
        counts[tuple(combo)] = int(row[x])
    return counts
