"""Which search answers a question of one cover: the layout, the table and the kernel.

:class:`Searches` is made from an exact cover and the sizes of its tables. It lays the
cover out lazily, owns the tables the searches fill, and for each question returns a
:class:`Call`: the kernel of the compiled core to run (``kernels/``), its arguments on the
layout that suits (``layouts/``), the table it fills and the arrays it writes its answers
to. It runs nothing and holds no lock: the session (``session.py``) takes its turn, runs
the call within its time limit and reads the answers.

The choice itself is the compiled core's (``kernels/choice.py``, ``src/choice.cpp``): this
module says what the cover's layouts offer (:meth:`Searches.offers`) and the core names the
search. For counts and tallies:

* a solid's plain counts: the most constrained item first (``kernels/links.py``, on bits
  in ``kernels/bit_cover.py`` when they fit);
* the one-word tally kernel (``kernels/one_word.py``) for tallies and covers with slack
  items on a square board of at most 64 cells, pieces used once;
* the one-word count kernel for plain counts of such boards;
* the word kernel (``kernels/words.py``) for covers of at most two 64-bit words;
* the general kernel (``kernels/general.py``) for every other cover.

Existence questions take the word kernel or the general one, the solution stream the
general one; reach questions their own (``kernels/reach.py``). The browser's engine asks
the same choice (:meth:`Searches.browser_plan`, and ``engine.js`` for a cover it lays out).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from cpmodels.backends.engine.kernels import bit_cover, links
from cpmodels.backends.engine.kernels.choice import EXISTS, SOLUTIONS, TALLY, Offers, choose
from cpmodels.backends.engine.kernels.difficulty import Backtracker as Backtracker
from cpmodels.backends.engine.kernels.difficulty import Difficulty as Difficulty
from cpmodels.backends.engine.kernels.general import (
    exists_kernel,
    force_kernel,
    search_kernel,
    split_kernel,
    tally_prefixes_kernel,
)
from cpmodels.backends.engine.kernels.memo import DEFAULT_MEMO_SLOTS as DEFAULT_MEMO_SLOTS
from cpmodels.backends.engine.kernels.memo import STATS, Memo
from cpmodels.backends.engine.kernels.one_word import (
    count_one_word,
    split_one_word,
    tally_one_word,
)
from cpmodels.backends.engine.kernels.reach import design_kernel, reach_kernel
from cpmodels.backends.engine.kernels.words import (
    WordLayout,
    exists_words,
    table_words,
    tally_prefixes_words,
    word_layout,
)
from cpmodels.backends.engine.layouts.buffers import of, zeros
from cpmodels.backends.engine.layouts.cover import (
    CompiledCover,
    Layout,
    OneWord,
    compile_cover,
    one_word_layout,
)
from cpmodels.backends.engine.layouts.reach import (
    ReachDates,
    ReachLayout,
    ReachRegions,
    WantedLists,
    left_open_holes,
    reach_dates,
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

if TYPE_CHECKING:
    import numpy as np

# Fillable region sizes and the limit they are checked to.
Regions = tuple[memoryview, int]
DEAD_SLOTS = 1 << 16  # the table of dead states, by default
# The one-word kernel's table: 6 MB, of which the core probes a quarter until that fills
# (cpcore/table.hpp). On 6x10, the 8x8 boxes and single calendar dates, a bigger one saves
# nodes but costs as much again in page faults and cache misses (the 8x8 square distinct,
# 1,048,576 slots: 13% fewer nodes, 2% less CPU; 4,194,304: 27% fewer nodes, the same CPU
# and 90 MB more).
ONE_WORD_SLOTS = 1 << 18
# Its table for tallies (a sweep's, a design's): keys of 24 bytes (16 used where the units
# fit in 24 bits: cpcore's NarrowRows), vectors in the arena;
# the core grows a table this large from its first rows (cpcore/table.hpp), so a search
# that keeps few states touches few pages of it. 16 million slots: calendar_week_11's sweep
# keeps 6.8 million states, which 8 million slots flushed once (5 million nodes more).
ONE_WORD_TALLY_SLOTS = 1 << 24
# A board of LARGE_TALLY_CELLS cells or more (the weekday calendar, 50) keeps millions of
# states in that table (calendar_week's sweep 3.3 million): the core probes
# TALLY_FIRST_LIVE of its slots from the start, where it would double them from 16,384,
# each doubling putting back every state held (the sweep 2.03-2.36 s against
# 1.96-2.02 s). 8 million: the sweep's 3.3 million states fill past five eighths of 4
# million, which doubled once more in its sixth month, putting back 2.6 million states
# (0.3 s of its 1.9). The month/day calendar (43 cells, 168,413 states) grows its table
# from the start: 4 million live slots would take 56 MB more of rows for nothing.
LARGE_TALLY_CELLS = 48
TALLY_FIRST_LIVE = 1 << 23
REACH_SLOTS = 1 << 16  # the reach search's states searched to the end (2 MB)
# Its settled states, kept for good: 32 MB of rows, and in the arena a byte a slot, the
# slots' tags (1 MB; docs/design.md).
SETTLED_SLOTS = 1 << 20


@dataclass(frozen=True)
class Call:
    """A search ready to run: ``kernel(*args)`` fills ``out`` (and ``masks``) using
    ``table``, which the caller stops at its time limit. ``tallies`` decodes a tally's
    rows (None: each row holds one count, in its first column; without ``masks``, ``out``
    is a plain count's, one count a task)."""

    kernel: Callable[..., Any]
    args: tuple[Any, ...]
    table: Memo
    out: np.ndarray | memoryview
    masks: np.ndarray | memoryview | None = None
    tallies: TallyLayout | None = None


class Stream:
    """A solution stream's place between calls: the state the forced options make, the
    search's stacks, the rows it writes, and a small table for its stop flag (the session
    stops a stream's call as it stops any other)."""

    def __init__(self, compiled: CompiledCover, filled: memoryview,
                 counters: memoryview, forced: Sequence[int], batch: int) -> None:
        depth_max = compiled.n_branch + 1
        self.layout = compiled.kernel
        self.filled, self.counters = filled, counters
        self.chosen = zeros(depth_max)
        self.stack_pos = zeros(depth_max)
        self.stack_k = zeros(depth_max)
        self.out = zeros((batch, depth_max))
        self.state = of([-1, 0])
        self.table = Memo(1, slots=16)
        self.forced = [int(o) for o in forced]

    @classmethod
    def of(cls, compiled: CompiledCover, forced: Sequence[int], batch: int = 1024
           ) -> Stream | None:
        """The stream of the solutions with the ``forced`` options (placed by the core's
        forced step), or None when they do not fit together."""
        filled = zeros(compiled.n_words, "Q")
        counters = zeros(len(compiled.counter_low))
        if not force_kernel(compiled.kernel, of(forced), filled, counters):
            return None
        return cls(compiled, filled, counters, forced, batch)

    @property
    def finished(self) -> bool:
        return bool(self.state[0] == -2)

    def call(self, step: int) -> Call:
        """The call that writes the next ``step`` solutions (at most the rows made)."""
        return Call(search_kernel, (self.state, self.filled, self.counters, self.chosen,
                                    self.stack_pos, self.stack_k, self.layout, self.out,
                                    min(step, len(self.out)),
                                    self.table.stop_flag), self.table, self.out)

    def found(self) -> list[list[int]]:
        """The solutions the last call wrote (the forced options first)."""
        out, width = self.out, self.out.shape[1]
        rows = []
        for r in range(self.state[1]):
            row = list(self.forced)
            for c in range(width):  # its options, then -1 (unless it fills the row)
                if out[r, c] < 0:
                    break
                row.append(out[r, c])
            rows.append(row)
        return rows


def task_array(tasks: Sequence[Sequence[int]]) -> np.ndarray | memoryview:
    """Tasks as the kernels take them: one row each, padded with -1 (an int64 buffer,
    ``layouts/buffers.py``)."""
    width = max([len(t) for t in tasks] + [1])
    return of((o for task in tasks for o in (*task, *[-1] * (width - len(task)))),
              shape=(len(tasks), width))


class Searches:
    """The layouts of one cover, its tables, and the kernel call that answers each
    question (see the module's docstring for the choice). ``word_kernel`` and
    ``one_word`` turn the word kernels off, ``solids`` the solids' own search; the other
    sizes are the session's."""

    def __init__(self, cover: ExactCover, *, tally_items: Sequence[int] = (),
                 table_slots: int = DEFAULT_MEMO_SLOTS, arena: int | None = None,
                 dead_slots: int = DEAD_SLOTS, word_kernel: bool = True,
                 one_word: bool = True, solids: bool = True) -> None:
        self.cover = cover
        self.tally_items = tuple(tally_items)
        self.table_slots = table_slots
        self.arena = arena
        self.dead_slots = dead_slots
        self.use_words = word_kernel  # covers of at most two words take the word kernel
        self.use_one_word = word_kernel and one_word  # and counts of <= 64 cells, this one
        self.use_links = solids  # a solid's counts, the most constrained item first
        self._compiled: CompiledCover | None = None
        self._words: WordLayout | None = None
        self._tallies: TallyLayout | None = None
        self._table: Memo | None = None
        self._dead: Memo | None = None
        self._one: OneWord | bool | None = None  # False: the cover does not suit it
        self._one_tallies: OneTallies | bool | None = None  # False: the tallies do not
        self._one_tally_layout: TallyLayout | None = None
        self._chosen: dict[tuple[int, bool, bool, bool], str] = {}  # see chosen()
        self._solid: bool | None = None  # whether the cover is a solid
        self._solid_links: links.Links | None = None  # a solid's dancing links
        self._solid_bits: bit_cover.Masks | None = None  # ... or its options as bits
        self._reach: ReachLayout | bool | None = None  # likewise, for reach questions
        self._reached: Memo | None = None
        self._settled: Memo | None = None  # the reach search's states settled for good
        # Each reach search marks its table entries with a number of its own, from this.
        self._reach_calls = of([1], "Q")
        self._reach_regions: dict[tuple[int, ...], ReachRegions] = {}
        self._wanted = WantedLists()  # the last few lists the reach search was asked

    def twin(self) -> Searches:
        """Another :class:`Searches` of the same cover and sizes that shares the read-only
        layouts made so far (the compiled cover, the word, one-word, tally and solid
        layouts, the choices) and owns tables of its own, empty: so two threads may run
        counts at once, one on each (the kernels only read the layouts). What neither
        had made yet, each makes for itself."""
        other = Searches(self.cover, tally_items=self.tally_items,
                         table_slots=self.table_slots, arena=self.arena,
                         dead_slots=self.dead_slots, word_kernel=self.use_words,
                         one_word=self.use_one_word, solids=self.use_links)
        other.use_one_word = self.use_one_word
        other.share(self)
        return other

    def share(self, other: Searches) -> None:
        """Take the read-only layouts and choices ``other`` (of the same cover and sizes)
        has made that this one has not: a twin made before ``other``'s first question
        catches up before its own."""
        for name in ("_compiled", "_words", "_tallies", "_one", "_one_tallies",
                     "_one_tally_layout", "_solid", "_solid_links", "_solid_bits"):
            if getattr(self, name) is None:
                setattr(self, name, getattr(other, name))
        self._chosen = {**other._chosen, **self._chosen}

    @property
    def compiled(self) -> CompiledCover:
        """The cover laid out for the kernels (compiled on first use)."""
        if self._compiled is None:
            self._compiled = compile_cover(self.cover)
        return self._compiled

    def tables(self) -> list[Memo]:
        """The tables made so far (to stop the searches that fill them)."""
        return [t for t in (self._table, self._dead, self._reached, self._settled)
                if t is not None]

    def count_stats(self) -> memoryview:
        """The table of sub-board counts' figures (zeros before the first count)."""
        return self._table.stats if self._table is not None else zeros(STATS)

    # -- the calls ----------------------------------------------------------------------

    def offers(self, *, solids: bool = True, words: bool = True) -> Offers:
        """What the cover's layouts offer the core's choice of search (``solids``: whether
        a solid may be counted by its most constrained item first; without ``words`` the
        two-word layout is not made, and not offered)."""
        one = self._one_word_layout()
        if self._solid is None:
            self._solid = links.suits(self.cover)
        solid = solids and self.use_links and self._solid
        return Offers(one_word=one is not None, slack=one is not None and bool(one.slack),
                      tallies=bool(self.tally_items),
                      one_word_tallies=one is not None and self._one_word_tallies() is not None,
                      two_words=words and self._word_layout(None) is not None,
                      links=solid, bits=solid and bit_cover.fits(self.cover))

    def chosen(self, question: int = TALLY) -> str:
        """The search the core chooses for ``question`` (``kernels/choice.py``'s
        :data:`TALLY`, :data:`EXISTS` or :data:`SOLUTIONS`) on this cover, named as its
        entry point. Kept for the switches it was asked with: what the layouts offer
        does not change once they are made."""
        key = (question, self.use_words, self.use_one_word, self.use_links)
        if key not in self._chosen:
            # The two-word layout costs the cover's compilation: it is made only when the
            # core's choice turns on whether it is offered.
            offers = self.offers(words=False)
            search = choose(question, offers)
            if choose(question, replace(offers, two_words=True)) != search:
                search = choose(question, self.offers())
            self._chosen[key] = search
        return self._chosen[key]

    def tally_call(self, tasks: Sequence[Sequence[int]], regions: Regions | None) -> Call:
        """The call that tallies each task (``regions``: the sizes the pieces left fill,
        without the slack items' holes). A plain count's answers are a buffer of one
        count a task (``layouts/buffers.py``: no numpy)."""
        arr = task_array(tasks)
        search = self.chosen(TALLY)
        if search == "tally_one_word":
            layout_one, tallies, decode = self._one_word_tally(regions)
            table = self._one_word_table(True)
            out = zeros((len(tasks), int(tallies.length[-1])))
            masks = zeros(len(tasks))
            return Call(tally_one_word, (arr, layout_one, tallies, table.kernel,
                                         self.table_slots > 0, out, masks, table.stop_flag),
                        table, out, masks, decode)
        if search in ("bit_cover_count", "links_count"):
            table = self._solid_table()
            counts = zeros(len(tasks))
            on_bits = search == "bit_cover_count"
            return Call(links.count_tasks, (arr, None if on_bits else self._links(),
                                            self._bits() if on_bits else None, counts,
                                            table.stats), table, counts)
        regions = self._slack_regions(regions, tasks)
        if search == "count_one_word":
            one = self._one_word(regions)
            table = self._one_word_table(False)
            counts = zeros(len(tasks))
            return Call(count_one_word, (arr, one, table.kernel, self.table_slots > 0,
                                         counts, table.stop_flag), table, counts)
        layout, table = self._count_table()
        out = zeros((len(tasks), int(layout.length[-1])))
        masks = zeros(len(tasks))
        if search == "tally_prefixes_two_words":
            return Call(tally_prefixes_words, (arr, self._word_layout(regions), layout.kernel,
                                               table.kernel, out, masks, table.stop_flag),
                        table, out, masks, layout)
        return Call(tally_prefixes_kernel, (arr, self._kernel_layout(regions), layout.kernel,
                                            table.kernel, out, masks, table.stop_flag),
                    table, out, masks, layout)

    def exists_call(self, tasks: Sequence[Sequence[int]], regions: Regions | None, *,
                    first_failure: bool, remember: bool) -> Call:
        """The call that decides, for each task, whether some solution contains it (``out``:
        1, 0, or -1 when not searched); ``remember`` keeps the dead states found."""
        import numpy as np

        arr = task_array(tasks)
        out = np.full(len(tasks), -1, dtype=np.int64)
        regions = self._slack_regions(regions, tasks)
        if remember:
            if self._dead is None:
                self._dead = Memo(self._table_width(), slots=self.dead_slots)
            table = self._dead
        else:
            table = Memo(self._table_width(), slots=16)
        stop = table.stop_flag
        if self.chosen(EXISTS) == "exists_two_words":
            return Call(exists_words, (arr, self._word_layout(regions), table.kernel, remember,
                                       out, first_failure, stop), table, out)
        return Call(exists_kernel, (arr, self._kernel_layout(regions), table.kernel, remember,
                                    out, first_failure, stop), table, out)

    def stream(self, forced: Sequence[int], batch: int) -> Stream | None:
        """The stream of the solutions that contain the ``forced`` options, ``batch`` at
        most a call (None when the options do not fit together)."""
        assert self.chosen(SOLUTIONS) == "search_n_words"
        return Stream.of(self.compiled, forced, batch)

    def split(self, task: tuple[int, ...]) -> list[tuple[int, ...]]:
        """``task`` cut into the disjoint tasks that together make it: one per option the
        counting search would try next below it (the most constrained item's for a solid,
        the first item left open's for the others). A task that cannot be cut (nothing
        left open, or no option fits) stays whole."""

        search = self.chosen(TALLY)
        if search == "bit_cover_count":
            parts = bit_cover.root_tasks(self.cover, task)
        elif search == "links_count":
            parts = links.root_tasks(self._links(), task)
        else:
            # A one-word count is cut on its own layout (the same step: the lowest empty
            # bit is the first item left open), so it never compiles the general one.
            options = (split_one_word(of(task), self._one_word(None))
                       if search == "count_one_word" else None)
            if options is None:
                options = split_kernel(self.compiled.kernel, of(task))
            parts = [(*task, o) for o in options]
        return parts or [task]

    @property
    def reaches(self) -> bool:
        """Whether reach questions suit the cover: a calendar's sweep cover (one to three
        slack items) on a square board of at most 64 cells, pieces used once."""
        if self._reach is None:
            layout = reach_layout(self.cover) if self.use_one_word else None
            self._reach = False if layout is None else layout
        return isinstance(self._reach, ReachLayout)

    @property
    def reach_left_open(self) -> frozenset[int]:
        """The holes the reach search best leaves open (see the session's)."""
        return left_open_holes(self.cover, self._reach if self.reaches else None)

    def reach_call(self, forced: Sequence[int], held: Sequence[Sequence[int]],
                   wanted: Sequence[Sequence[int]], starts: np.ndarray,
                   areas: Sequence[int], first_failure: bool) -> Call:
        """The reach search of each task (``held[t]`` forced besides ``forced``, wanting
        ``wanted[starts[t]:starts[t + 1]]``); ``out``: for each wanted combination 1, 0, or
        -1 when not searched. Each call made marks its table entries with a number of its
        own."""
        import numpy as np

        layout, regions, index, bit, table, settled = self._reach_parts(wanted, areas)
        found = np.full(len(wanted), -1, dtype=np.int64)
        mark = np.uint64(self._reach_calls[0] + 1)
        self._reach_calls[0] += len(held) + 1
        return Call(reach_kernel, (np.asarray(task_array([forced])).reshape(-1),
                                   task_array(list(held) or [()]), starts, layout, regions,
                                   table.kernel, settled.kernel, mark, index, bit, found,
                                   first_failure, table.stop_flag), table, found)

    def reach_dates(self, holes: Sequence[Sequence[int]]) -> ReachDates:
        """Dates (each its holes) as :meth:`design_call` asks them (only when
        :attr:`reaches`)."""
        layout = self._reach
        assert isinstance(layout, ReachLayout)
        return reach_dates(layout, holes, int(layout.last_group))

    def design_call(self, dates: ReachDates, order: np.ndarray, front: np.ndarray,
                    late: np.ndarray, sets: Sequence[Sequence[int]], areas: Sequence[Sequence[int]],
                    learning: bool) -> Call:
        """The call that decides each set (``sets[s]``: its forced options, ``areas[s]``
        its pieces' areas) date by date (``design_kernel``); ``out[s]``: the first date of
        ``order`` it fails, ``len(order)`` when none."""
        import numpy as np

        shapes: dict[tuple[int, ...], int] = {}
        shape = np.array([shapes.setdefault(tuple(sorted(int(a) for a in set_areas)),
                                             len(shapes)) for set_areas in areas],
                         dtype=np.int64)
        regions = [self._reach_parts((), key)[1] for key in shapes]
        layout, _, _, _, table, settled = self._reach_parts((), ())
        fills = np.ascontiguousarray(np.stack([r.fill for r in regions])) if regions else \
            np.zeros((0, len(layout.group_cells) + 1, int(layout.n_cells) + 1), dtype=np.bool_)
        limits = np.array([int(r.limit) for r in regions], dtype=np.uint64)
        failure = np.full(len(sets), -1, dtype=np.int64)
        decided = np.zeros(1, dtype=np.int64)
        return Call(design_kernel, (layout, fills, limits, table.kernel, settled.kernel,
                                    self._reach_calls, dates, order, front, late,
                                    task_array(sets),
                                    shape, learning, failure, decided, table.stop_flag),
                    table, failure)

    def browser_plan(self) -> dict[str, tuple[str, dict[str, tuple]]]:
        """For each question the browser's engine answers (``tally``, ``exists``,
        ``solutions``), the core's search that answers it here (named as the native
        module's function, chosen by the core as for :meth:`tally_call`,
        :meth:`exists_call` and :meth:`stream`; no regions, no solids: the browser has no
        links) and the layouts it reads."""
        offers = self.offers(solids=False)
        plan: dict[str, tuple[str, dict[str, tuple]]] = {}
        for question, ask in (("tally", TALLY), ("exists", EXISTS), ("solutions", SOLUTIONS)):
            search = choose(ask, offers)
            layouts: dict[str, tuple]
            if search == "tally_one_word":
                one, tallies, _ = self._one_word_tally(None)
                layouts = {"layout": one, "tallies": tallies}
            elif search == "count_one_word":
                layouts = {"layout": self._one_word(None)}
            elif search.endswith("two_words"):
                words = self._word_layout(None)
                assert words is not None
                layouts = {"layout": words}
            else:
                layouts = {"layout": self.compiled.kernel}
            if search.startswith("tally_prefixes"):
                layouts["tallies"] = self._tally_layout().kernel
            plan[question] = (search, layouts)
        return plan

    # -- layouts and tables -------------------------------------------------------------

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
            cells = sum(item.kind is ItemKind.CELL for item in self.cover.items)
            first = TALLY_FIRST_LIVE if tallies and cells >= LARGE_TALLY_CELLS else 0
            self._table = Memo(2, max(16, min(self.table_slots, most)),
                               self.arena if tallies else None, first_live=first)
        return self._table

    def _table_width(self) -> int:
        """The words of a table's key rows: the word kernel keeps each value in its row."""
        n_words = self.compiled.n_words
        return n_words if self._word_layout(None) is None else table_words(n_words)

    def _one_word(self, regions: Regions | None) -> OneWord:
        """The one-word kernel's view of the cover for plain counts (the core chose it: the
        layout suits, no tallies, no slack items), its region sizes replaced by
        ``regions``."""
        one = self._one_word_layout()
        assert one is not None
        if regions is None:
            return one
        return one._replace(fillable=regions[0], region_limit=regions[1],
                            isolated_dead=bool(regions[1] > 1 and not regions[0][1]))

    def _one_word_layout(self) -> OneWord | None:
        """The one-word layout (None when it does not suit: more than 64 cells or pieces,
        pieces in copies, other items or grids)."""
        if self._one is None:
            one = one_word_layout(self.cover) if self.use_one_word else None
            self._one = False if one is None else one
        return self._one if isinstance(self._one, OneWord) else None

    def _one_word_tallies(self) -> OneTallies | None:
        """The one-word tally kernel's tallies of the tally items (none: plain counts), or
        None when it cannot tally them (the core's answer: a tally item that is a cell or
        may be left out). Only when the one-word layout suits."""
        one = self._one_word_layout()
        assert one is not None
        if self._one_tallies is None:
            layout = self._tally_layout() if self.tally_items else None
            tallies = one_word_tallies(self.cover, self.tally_items,
                                       None if layout is None else layout.kernel,
                                       int(one.optional))
            self._one_tallies = False if tallies is None else tallies
            self._one_tally_layout = layout
        return self._one_tallies if isinstance(self._one_tallies, OneTallies) else None

    def _one_word_tally(self, regions: Regions | None
                        ) -> tuple[OneWord, OneTallies, TallyLayout | None]:
        """The one-word tally kernel's view of the cover (the core chose it): the layout
        with the region sizes of the pieces alone (``regions``, else the cover's pieces),
        the tallies, and the tally layout to decode them with (None: no tally items)."""
        one = self._one_word_layout()
        tallies = self._one_word_tallies()
        assert one is not None and tallies is not None
        if regions is None:
            areas = [int(a) for p, a in enumerate(one.areas)
                     if a and not int(one.slack) >> p & 1]
            regions = region_sizes(areas, sum(one.areas))
        L = one._replace(fillable=regions[0], region_limit=regions[1],
                         isolated_dead=bool(regions[1] > 1 and not regions[0][1]))
        return L, tallies, self._one_tally_layout

    def _solid_table(self) -> Memo:
        """A solid's counts keep no sub-boards: a table of 16 slots for the figures and
        the stop flag."""
        if self._table is None:
            self._table = Memo(1, slots=16)
        return self._table

    def _links(self) -> links.Links:
        if self._solid_links is None:
            self._solid_links = links.links(self.cover)
        return self._solid_links

    def _bits(self) -> bit_cover.Masks:
        if self._solid_bits is None:
            self._solid_bits = bit_cover.masks(self.cover)
        return self._solid_bits

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
        fill = [k for k, f in enumerate(fillable) if f]
        more = [False] * (len(fillable) + ones)
        for k in range(ones + 1):
            for j in fill:
                more[k + j] = True
        gaps = [k for k in range(1, limit) if not more[k]]
        return of(more, "?"), (max(gaps) + 1 if gaps else 0)

    def _kernel_layout(self, regions: Regions | None) -> Layout:
        """The kernels' view of the cover, its region sizes replaced by ``regions``."""
        if regions is None:
            return self.compiled.kernel
        return self.compiled.kernel._replace(fillable=regions[0], region_limit=regions[1])

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
            self._settled = Memo(3, slots=SETTLED_SLOTS, arena=SETTLED_SLOTS // 8)
        encoded = self._wanted.encoded(layout, wanted)
        return (layout, self._reach_regions[shape], *encoded, self._reached, self._settled)
