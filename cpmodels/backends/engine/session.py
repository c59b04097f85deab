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
  one search for many (``kernels/reach.py``);
* :meth:`~EngineSession.first_solution` and :meth:`~EngineSession.solutions`: solutions
  themselves, streamed in a fixed order;
* :meth:`~EngineSession.difficulty`: how hard a first solution is for a person, the work of
  a plain backtracker (``kernels/difficulty.py``, ``docs/difficulty.md``);
* :meth:`~EngineSession.branches` and :meth:`~EngineSession.split`: the search cut into
  disjoint *tasks* (tuples of forced option ids), and :meth:`~EngineSession.run`: a *unit*
  (a tuple of tasks) tallied, as the scheduler's workers run it
  (``placement/scheduling.py``).

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
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from cpmodels.backends.engine.kernels.memo import (
    ARENA_USED,
    FLUSHES,
    HITS,
    MISSES,
    NODES,
    USED,
    Memo,
)
from cpmodels.backends.engine.layouts.browser import plain
from cpmodels.backends.engine.layouts.cover import CompiledCover
from cpmodels.backends.engine.layouts.reach import ReachDates
from cpmodels.backends.engine.layouts.regions import region_sizes
from cpmodels.backends.engine.layouts.tally import TallyLayout
from cpmodels.backends.engine.searches import (
    DEAD_SLOTS,
    DEFAULT_MEMO_SLOTS,
    Backtracker,
    Call,
    Difficulty,
    Regions,
    Searches,
)
from cpmodels.cover import ExactCover
from cpmodels.errors import OutOfTime
from cpmodels.interrupt import interruptible, stop_after

if TYPE_CHECKING:
    import numpy as np

Task = tuple[int, ...]  # option ids forced before the search
Unit = tuple[Task, ...]  # tasks run in turn by one worker, sharing its table
Tally = dict[tuple[int, ...], int]  # options covering the tally items -> solutions


class EngineSession:
    """One exact cover compiled for the engine, its tables, and the questions it answers.

    ``tally_items`` (at most 16 exact-one items) split :meth:`tally`'s counts by the
    options covering them; ``table_slots`` and ``arena`` size the table of sub-board counts
    (see ``kernels/memo.py``), ``dead_slots`` the table of dead states :meth:`exists`
    keeps. Which search answers is :class:`~.searches.Searches`' choice: counts on a square
    board of at most 64 cells with every piece used once take the one-word kernel
    (``kernels/one_word.py``), with a table of at most :data:`~.searches.ONE_WORD_SLOTS`
    (none when ``table_slots`` is 0); so do tallies and the counts of covers with slack
    items (a sweep's, a design's: slack and tally items are bits of the piece word), with a
    table of at most :data:`~.searches.ONE_WORD_TALLY_SLOTS`. A solid's counts take its
    most constrained item first (``kernels/links.py``, on bits in ``kernels/bit_cover.py``
    when they fit; no table). ``word_kernel`` and ``one_word`` turn the word kernels off,
    ``solids`` the solids' search.

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
                 one_word: bool = True, solids: bool = True) -> None:
        self.cover = cover
        self.searches = Searches(cover, tally_items=tuple(tally_items), table_slots=table_slots,
                                 arena=arena, dead_slots=dead_slots, word_kernel=word_kernel,
                                 one_word=one_word, solids=solids)
        self._turn = threading.Lock()
        self._backtracker_made = threading.Lock()
        self._backtracker: Backtracker | None = None
        self._cancelled = False
        self._running: Memo | None = None  # the table of the search running now

    @property
    def tally_items(self) -> tuple[int, ...]:
        """The exact-one items :meth:`tally` splits its counts by."""
        return self.searches.tally_items

    @property
    def table_slots(self) -> int:
        """Slots of the table of sub-board counts (0: no table)."""
        return self.searches.table_slots

    @property
    def arena(self) -> int | None:
        """Rows of the count table's arena for tally vectors (None: four a slot)."""
        return self.searches.arena

    @property
    def dead_slots(self) -> int:
        """Slots of the table of dead states :meth:`exists` keeps."""
        return self.searches.dead_slots

    @property
    def use_words(self) -> bool:
        """Whether covers of at most two words take the word kernel."""
        return self.searches.use_words

    @use_words.setter
    def use_words(self, value: bool) -> None:
        self.searches.use_words = value

    @property
    def use_one_word(self) -> bool:
        """Whether counts on boards of at most 64 cells take the one-word kernel."""
        return self.searches.use_one_word

    @use_one_word.setter
    def use_one_word(self, value: bool) -> None:
        self.searches.use_one_word = value

    # -- life cycle ---------------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        """What goes to another process: the cover and the sizes, not the compiled arrays
        nor the tables (rebuilt there once, on the first question)."""
        return {"cover": self.cover, "tally_items": self.tally_items,
                "table_slots": self.table_slots, "arena": self.arena,
                "dead_slots": self.dead_slots, "word_kernel": self.use_words,
                "one_word": self.use_one_word, "solids": self.searches.use_links}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state.pop("cover"), **state)  # type: ignore[misc]

    def twin(self) -> EngineSession:
        """A second session of the same cover that shares this one's compiled, read-only
        layouts (:meth:`.Searches.twin`) and owns its own tables, turn and stop flag: a
        second thread counts on it while this one counts too (the kernels release the
        GIL). Its tables start empty; stopping one session does not stop the other."""
        other = EngineSession(self.cover)  # (its own turn, stop flag and backtracker)
        other.searches = self.searches.twin()
        return other

    def share_layouts(self, other: EngineSession) -> None:
        """Take the layouts ``other`` (the session this is a twin of) has made since the twin
        was made, and this one has not (:meth:`.Searches.share`): a twin made before its
        session's first question, asked its first after that, compiles nothing again."""
        self.searches.share(other.searches)

    def interrupt(self) -> None:
        """End the search in progress as :meth:`stop` does (it raises
        :class:`~cpmodels.errors.OutOfTime`), but not the later ones: from another thread,
        to cut one call short (a search between calls is not stopped)."""
        running = self._running
        if running is not None:
            running.stop()

    @property
    def compiled(self) -> CompiledCover:
        """The cover laid out for the kernels (compiled on first use)."""
        return self.searches.compiled

    def stop(self) -> None:
        """End the search in progress, and every later one, as soon as possible (from any
        thread). The tables stay true: only finished sub-boards are ever stored."""
        self._cancelled = True
        running = self._running  # a table of its own (existence that keeps no dead states)
        for table in [*self.searches.tables(), *([running] if running is not None else [])]:
            table.stop()

    @property
    def stopped(self) -> bool:
        return self._cancelled

    def _run(self, make: Callable[[], Call], time_limit: float | None, what: str, *,
             keep_stopped: bool = False) -> Call:
        """Hold this session's turn (waiting within ``time_limit``), make the call
        :class:`Searches` chooses, run it with its table stopped at the limit, and turn a
        stop into :class:`OutOfTime` (with ``keep_stopped``, the call stopped is returned, its
        table stopped, for the caller to hand over what it found first). The layouts the
        call needs are made first, outside the limit."""
        start = time.perf_counter()
        if not self._turn.acquire(timeout=-1 if time_limit is None else max(0.0, time_limit)):
            raise OutOfTime(f"{what}: waited {time_limit:g} s for the engine session")
        try:
            if self._cancelled:
                raise OutOfTime(f"{what}: the session was stopped")
            waited = time.perf_counter() - start
            call = make()
            table = call.table
            table.clear_stop()
            self._running = table
            # A stop() since the check above (while the call was made) may have found no
            # table to stop, or this one before its flag was cleared: it is seen here, and
            # any later one finds this table as the one running.
            if self._cancelled:
                raise OutOfTime(f"{what}: the session was stopped")
            left = None if time_limit is None else time_limit - waited
            with stop_after(left, table.stop):
                interruptible(call.kernel, *call.args, stop=table.stop)
            if table.stopped and not keep_stopped:
                raise OutOfTime(f"{what}: stopped before it finished"
                                + (f" ({time_limit:g} s)" if time_limit is not None else ""))
            return call
        finally:
            self._running = None
            self._turn.release()

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
        call = self._run(lambda: self.searches.tally_call(tasks, regions), time_limit,
                         "counting")
        if call.masks is None:  # a plain count's answers: one count a task
            return [{(): int(n)} if n else {} for n in call.out]
        rows: Any = call.out.tolist()  # (a tally's: one row a task, as lists)
        if call.tallies is None:
            return [{(): int(row[0])} if row[0] else {} for row in rows]
        return [_decode_tally(call.tallies, task, rows[r], int(call.masks[r]))
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
        call = self._run(lambda: self.searches.exists_call(
            tasks, regions, first_failure=first_failure, remember=remember),
            time_limit, "the existence search")
        return [None if x < 0 else bool(x) for x in call.out]

    @property
    def reaches(self) -> bool:
        """Whether :meth:`reach` suits the cover: a calendar's sweep cover (one to three
        slack items) on a square board of at most 64 cells, pieces used once."""
        return self.searches.reaches

    @property
    def reach_left_open(self) -> frozenset[int]:
        """The holes (slack options) of the label group the reach search's scan meets last:
        the group each search best leaves open (none when :attr:`reaches` is not)."""
        return self.searches.reach_left_open

    def reach(self, forced: Sequence[int],
              tasks: Sequence[tuple[Sequence[int], Sequence[Sequence[int]]]], *,
              areas: Sequence[int], first_failure: bool = False,
              time_limit: float | None = None) -> list[list[bool | None]]:
        """For each task, (options forced besides ``forced``, wanted combinations of slack
        options, one per slack item: the holes of a calendar's label groups), whether some
        solution containing the options holds each wanted combination: one search a task,
        the holes it does not force left open, which stops once all it wants are found
        (``kernels/reach.py``). A task that forces every hole is a first-solution search.
        ``areas``: the areas of the pieces the forced options leave (for region pruning).
        With ``first_failure``, the tasks after the first with a combination not found are
        not searched (None). Dead and settled states are kept for later calls. Only when
        :attr:`reaches`."""
        import numpy as np

        if not tasks:
            return []
        flat = [combo for _, wanted in tasks for combo in wanted]
        starts = np.cumsum([0, *(len(wanted) for _, wanted in tasks)]).astype(np.int64)
        if not self.reaches:
            raise ValueError("the reach search needs a calendar's sweep cover of at most 64 "
                             "cells with at most three label groups")
        call = self._run(lambda: self.searches.reach_call(
            forced, [held for held, _ in tasks], flat, starts, areas, first_failure),
            time_limit, "the reach search")
        answers = [None if x < 0 else bool(x) for x in call.out]
        return [answers[starts[t]:starts[t + 1]] for t in range(len(tasks))]

    def reach_dates(self, holes: Sequence[Sequence[int]]) -> ReachDates:
        """A design's required dates (each its holes: slack options) as :meth:`design`
        asks them. Only when :attr:`reaches`."""
        if not self.reaches:
            raise ValueError("the reach search needs a calendar's sweep cover of at most 64 "
                             "cells with at most three label groups")
        return self.searches.reach_dates(holes)

    def design(self, dates: ReachDates, order: np.ndarray, front: np.ndarray, late: np.ndarray,
               sets: Sequence[Sequence[int]], areas: Sequence[Sequence[int]], *,
               learning: bool = False, time_limit: float | None = None) -> list[int | None]:
        """For each set (``sets[s]``: the options it forces, its pieces left out;
        ``areas[s]``: its pieces' areas), the first of ``dates`` in ``order`` (a
        permutation of their indices, int64) that no solution holds, or None: the core's
        design decision (``cpcore_design``, on the reach search's tables). The dates whose
        ``front`` (uint8) is 1 are searched one by one, then those ``late`` (int64) counts
        most often as a failure past the front (the call counts them), the others a group
        of held holes at a time. With ``learning``, each failure moves its date to the
        front of ``order`` and sets its ``front`` (the arrays change in place). Only when
        :attr:`reaches`."""
        if not self.reaches:
            raise ValueError("the reach search needs a calendar's sweep cover of at most 64 "
                             "cells with at most three label groups")
        if not sets:
            return []
        call = self._run(lambda: self.searches.design_call(dates, order, front, late, sets,
                                                           areas, learning),
                         time_limit, "the design decision")
        n = len(order)
        return [None if x == n else int(x) for x in call.out]

    def solutions(self, forced: Sequence[int] = (), *, time_limit: float | None = None,
                  batch: int = 1024) -> Iterator[list[int]]:
        """Every solution that contains the ``forced`` options (option ids, forced ones
        included), in a fixed order. The search pauses to hand over 1, 2, 4, ... and then
        ``batch`` solutions at a time, so the first ones arrive at once. Each step takes the
        session's turn as every question does (a stream holds it only while it searches,
        never between its solutions); ``time_limit`` counts from the first step."""
        stream = self.searches.stream(forced, batch)
        if stream is None:
            return
        if self._cancelled:
            raise OutOfTime("the session was stopped")
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        step = 1
        while not stream.finished:
            left = None if deadline is None else deadline - time.perf_counter()
            call = self._run(partial(stream.call, step), left, "the solution stream",
                             keep_stopped=True)
            step = min(2 * step, batch)
            yield from stream.found()
            if call.table.stopped and not stream.finished:
                raise OutOfTime(f"the engine stopped at the time limit ({time_limit:g} s)"
                                if time_limit is not None and not self._cancelled
                                else "the solution stream: the session was stopped")

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
        """Disjoint tasks that together make the whole search: its first branching step
        (:meth:`split` of the empty task)."""
        return self.split(())

    def split(self, task: Task) -> list[Task]:
        """``task`` cut into the disjoint tasks that together make it: one per option the
        counting search tries next below it (its next branching step, taken by the core:
        the first item the task leaves open, or a solid's most constrained item). A task
        that cannot be cut (nothing left open, or no option fits) stays whole."""
        return self.searches.split(tuple(task))

    @staticmethod
    def regions_for(areas: Sequence[int], total: int) -> Regions:
        """The region sizes pieces of ``areas`` can fill, checked up to ``total`` cells (to
        pass as ``regions`` when a task leaves only those pieces)."""
        return region_sizes(list(areas), total)

    def browser_plan(self) -> dict[str, dict[str, Any]]:
        """What the engine in the browser (``web/static/engine/engine.js``) needs to answer
        this cover's counts, tallies, existence and first solutions with the same searches:
        for each question the core's search and its layouts, as plain data (JSON)."""
        return {question: {"kernel": kernel, **{name: plain(layout)
                                                for name, layout in layouts.items()}}
                for question, (kernel, layouts) in self.searches.browser_plan().items()}

    @property
    def stats(self) -> dict[str, int]:
        """The table of sub-board counts' figures (zeros before the first count)."""
        where = {"used": USED, "hits": HITS, "misses": MISSES, "nodes": NODES,
                 "arena_used": ARENA_USED, "flushes": FLUSHES}
        stats = self.searches.count_stats()
        return {name: int(stats[k]) for name, k in where.items()}


def _decode_tally(layout: TallyLayout, task: Sequence[int], row: list[int],
                  mask: int) -> Tally:
    """One task's count vector as ``{options covering the tally items: count}``."""
    n_t = len(layout.items)
    opt_tally = layout.opt_tally
    fixed = {opt_tally[o]: int(o) for o in task if opt_tally[o] >= 0}
    # each tally item's stride, options and fixed option (-1: none) in this layout
    items = [(layout.stride[mask, t], layout.options[t]) if mask >> t & 1
             else (0, [fixed.get(t, -1)]) for t in range(n_t)]
    counts: Tally = {}
    for x, n in enumerate(row[:layout.length[mask]]):
        if n:
            counts[tuple(options[x // stride % len(options)] if stride else options[0]
                         for stride, options in items)] = n
    return counts
