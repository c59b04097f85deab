"""Seeds for the engine core's fuzz targets (benchmarks/fuzz.py), written rather than kept.

The package itself is run on the bundled specs (their sweep covers, placements, play
layouts, cover layouts, counts), on the hostile specs of ``tests/bad_specs`` as far as they
get, on a small proof and a small split search, with the core's module watched: every call
it makes of an entry point is recorded, then written in the fuzz targets' encoding
(``cpmodels/_core/fuzz/bytes.hpp``: a number is one byte for -64 .. 183, else 0xF8 and eight
bytes). Hostile variants of each (coordinates past the limits, runs that go back, copies
out of order) are added. ``seed_folders(folder, names)`` writes each target's seeds to
``folder/NAME`` once for a given version of this file and of the specs.
"""

from __future__ import annotations

import hashlib
import itertools
import shutil
import struct
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"
BAD_SPECS = ROOT / "tests" / "bad_specs"
GRIDS = ["square", "triangle", "hex", "cube"]
WIDE = 0xF8


class Words:
    """Numbers written as the fuzz targets read them (bytes.hpp's Bytes)."""

    def __init__(self) -> None:
        self.out = bytearray()

    def number(self, v: int) -> None:
        if -64 <= v <= 183 and v + 64 != WIDE:
            self.out.append(v + 64)
        else:
            self.out.append(WIDE)
            self.out += struct.pack("<q", max(-(1 << 63), min(v, (1 << 63) - 1)))

    def count(self, v: int) -> None:
        self.number(v)

    def within(self, v: int, low: int) -> None:
        self.number(v - low)

    def numbers(self, values: Sequence[int]) -> None:
        for v in values:
            self.number(int(v))

    def runs(self, lengths: Sequence[int]) -> None:
        """Well-formed runs (bytes.hpp's any_runs, its mode 0)."""
        self.number(0)
        for n in lengths:
            self.number(int(n))

    def raw_runs(self, starts: Sequence[int], total: int) -> None:
        """Runs as a hostile caller sends them (any_runs' other mode), then their total."""
        self.number(1)
        self.numbers(starts)
        self.number(total)

    def bytes(self) -> bytes:
        return bytes(self.out)


def _flat(cells: Sequence[Sequence[int]]) -> list[int]:
    return [int(x) for cell in cells for x in cell]


# --- the calls the package makes, recorded ------------------------------------------------

RECORDED = ("sweep_cover", "orientations", "placements", "play_layout", "cover_layout_sizes",
            "one_word_layout_sizes", "tally_layout_sizes", "region_sizes", "drup_check",
            "CnfIncidence", "option_symmetries")


@contextmanager
def recording() -> Iterator[dict[str, list[tuple[Any, ...]]]]:
    """The core module's entry points watched: each call's arguments kept by name."""
    import cpmodels._native as native

    calls: dict[str, list[tuple[Any, ...]]] = {name: [] for name in RECORDED}
    calls["step"] = []
    originals = {name: getattr(native, name) for name in RECORDED}

    def watch(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            calls[name].append(tuple(np.array(a, copy=True) if isinstance(a, np.ndarray)
                                     else a for a in args))
            made = real(*args)
            if name == "CnfIncidence":
                return _Steps(made, args, calls["step"])
            return made
        return call

    for name, real in originals.items():
        setattr(native, name, watch(name, real))
    try:
        yield calls
    finally:
        for name, real in originals.items():
            setattr(native, name, real)


class _Steps:
    """A split search's incidence whose steps are recorded with it."""

    def __init__(self, real: Any, made: tuple[Any, ...], steps: list[tuple[Any, ...]]) -> None:
        self.real, self.made, self.steps = real, made, steps

    def step(self, lits: np.ndarray, out: np.ndarray) -> Any:
        self.steps.append((self.made, np.array(lits, copy=True)))
        return self.real.step(lits, out)


def _run_package(calls: dict[str, list[tuple[Any, ...]]]) -> None:
    """The package's work on the bundled and hostile specs, a proof and a split search."""
    from cpmodels.backends.engine import EngineSession
    from cpmodels.backends.engine.layouts.cover import compile_cover, one_word_layout
    from cpmodels.backends.engine.layouts.regions import region_sizes as regions
    from cpmodels.backends.engine.layouts.tally import tally_layout
    from cpmodels.cover import PieceKind, packing_cover
    from cpmodels.drup import check_drup
    from cpmodels.geometry import orientations
    from cpmodels.instance import packing_instance
    from cpmodels.query import Query
    from cpmodels.spec import CalendarSpec, load_spec
    from cpmodels.sweep import sweep_cover
    from cpmodels.symmetry import problem_symmetry
    from cpmodels.web.play import board_layout

    def covers(spec: Any) -> list[Any]:
        made = []
        if isinstance(spec, CalendarSpec):
            cover, slack = sweep_cover(spec)
            made.append((cover, slack[:3]))
        with suppress(Exception):
            made.append((packing_instance(Query.of(spec)).cover, []))
        return made

    def lay_out(spec: Any) -> None:
        for cover, items in covers(spec):
            cc = compile_cover(cover)
            with suppress(Exception):
                tally_layout(cc, items)
            one_word_layout(cover)

    def symmetries(spec: Any) -> None:
        instance = packing_instance(Query.of(spec))
        problem_symmetry(instance.cover, instance.cells, instance.cell_labels())

    for path in sorted(SPECS.glob("*.yaml")) + sorted(BAD_SPECS.glob("*.yaml")):
        try:
            spec = load_spec(path)
        except Exception:
            continue
        for step in (lay_out, board_layout, symmetries):
            with suppress(Exception):
                step(spec)
    # Small covers counted whole (the packing target's seeds): dominoes and trominoes.
    domino = tuple(orientations([(0, 0), (0, 1)]))
    ell = tuple(orientations([(0, 0), (1, 0), (1, 1)]))
    for cells, pieces in (([(r, c) for r in range(2) for c in range(3)],
                           [PieceKind("d", domino, 3)]),
                          ([(r, c) for r in range(3) for c in range(4)],
                           [PieceKind("l", ell, 4, 2), PieceKind("d", domino, 2, 0)]),
                          ([(0, 0), (0, 1), (1, 1), (1, 2), (2, 2)],
                           [PieceKind("d", domino, 2), PieceKind("l", ell, 1, 0)])):
        session = EngineSession(packing_cover(cells, pieces))
        session.count()
    # Region sizes of a few calendars' and boxes' pieces.
    for areas, total in (([4, 4, 5, 5, 5, 5, 5, 5], 43), ([5] * 12, 60), ([5] * 13 + [4], 64),
                         ([3, 3, 4, 6], 16), ([6] * 8, 48), ([1], 0), ([7, 11], 200)):
        regions(areas, total)
    # A proof that holds, one that does not, one that takes a clause again.
    square = [[1, 2], [1, -2], [-1, 2], [-1, -2]]
    for proof in (["1 0", "0"], ["1 0", "d 1 2 0", "0"], ["2 0", "0"], ["1 0", "1 0", "0"]):
        check_drup(square, proof)
    check_drup([[1, 2, 3], [-1, 2], [-2, 3], [-3], [1, -2]], ["2 0", "3 0", "0"])
    _split_search()


def _split_search() -> None:
    """A split search's steps on a small cover (backends/cnf.py)."""
    from cpmodels.backends import cnf
    from cpmodels.cover import PieceKind, packing_cover
    from cpmodels.geometry import orientations

    domino = tuple(orientations([(0, 0), (0, 1)]))
    cover = packing_cover([(r, c) for r in range(2) for c in range(3)],
                          [PieceKind("d", domino, 3)])
    inc = cnf._Incidence(cover)
    out = np.empty(max(inc.n_options, 1), dtype=np.int64)
    for lits in ([], [1], [-1, -2], [1, 2, 3], [-(10**12), 5]):
        inc._native.step(np.array(lits, dtype=np.int64), out)


# --- each target's encoding ---------------------------------------------------------------

def _sweep_cover(args: tuple[Any, ...]) -> bytes:
    grid, board, pieces, groups, max_placements, *rest = args
    left_out = set(rest[0]) if rest else set()  # (the pieces a design may leave out)
    dim = 3 if grid == 3 else 2
    w = Words()
    w.within(grid, -1)
    w.count(len(board))
    w.numbers(_flat(board))
    shapes = [shape for orients, _, _ in pieces for shape in orients]
    w.count(len(shapes))
    w.runs([len(shape) for shape in shapes])
    w.numbers([x for shape in shapes for x in _flat(sorted(shape))])
    w.count(len(pieces))
    w.runs([len(orients) for orients, _, _ in pieces])
    w.numbers([int(v) for _, low, high in pieces for v in (low, high)])
    w.count(1 if left_out else 0)
    for p in range(len(pieces)) if left_out else ():
        w.count(1 if p in left_out else 0)
    w.count(len(groups))
    w.runs([len(g) for g in groups])
    w.numbers([x for g in groups for x in _flat(g)])
    w.number(min(int(max_placements), (1 << 63) - 1))
    w.count(0)
    assert dim in (2, 3)
    return w.bytes()


def _placements(args: tuple[Any, ...], shape: Sequence[Any] = ()) -> bytes:
    grid, shapes, board, limit = args
    w = Words()
    w.within(grid, -1)
    one = sorted(shape or (shapes[0] if shapes else []))
    w.count(len(one))
    w.numbers(_flat(one))
    w.count(1)
    w.count(1)
    w.count(len(shapes))
    w.runs([len(s) for s in shapes])
    w.numbers([x for s in shapes for x in _flat(sorted(s))])
    w.count(len(board))
    w.numbers(_flat(board))
    w.number(min(int(limit), (1 << 63) - 1))
    w.count(0)
    return w.bytes()


def _play_layout(args: tuple[Any, ...]) -> bytes:
    grid, board, pieces = args
    w = Words()
    w.within(grid, -1)
    w.count(len(board))
    w.numbers(_flat(board))
    w.count(len(pieces))
    w.runs([len(list(cells)) for cells, _, _ in pieces])
    w.numbers([x for cells, _, _ in pieces for x in _flat(list(cells))])
    w.numbers([int(bool(v)) for _, rotate, flip in pieces for v in (rotate, flip)])
    w.count(0)
    return w.bytes()


# fuzz/cut.cpp's usual sizes, by index: make's defaults (cell 20, kerf 0.15, clearance 0.2,
# sheet 600 x 400, border 10, gap 3, margin 5).
CUT_SIZES = [7, 1, 2, 9, 8, 6, 4, 5]


def _cut() -> list[bytes]:
    """make's sheets of the bundled plane calendars and packings, nothing engraved, and each
    again with one engraved triangle on every part."""
    from cpmodels.spec import load_spec

    out = []
    for name in ("calendar_day", "calendar_week", "hexiamonds_rhombus", "polyhexes"):
        spec = load_spec(name)
        cells = spec.cells if hasattr(spec, "cell_labels") else next(
            iter(spec.all_targets())).cells
        pieces = [(sorted(p.cells), p.high, p.name.encode()) for p in spec.pieces]
        for engraved in (0, 1):
            w = Words()
            w.within(GRIDS.index(spec.grid), -1)
            w.count(len(cells))
            w.numbers(_flat(sorted(cells)))
            w.count(len(pieces))
            w.runs([len(c) for c, _, _ in pieces])
            w.numbers([x for c, _, _ in pieces for x in _flat(c)])
            w.numbers([n + 1 for _, n, _ in pieces])  # within(-1, 4)
            w.runs([len(n) for _, _, n in pieces])
            w.numbers([b for _, _, n in pieces for b in n])
            w.numbers([k + 1 for k in CUT_SIZES])  # within(-1, 9)
            w.count(1)  # a well formed engraving
            for _ in range(len(pieces) + 1):
                w.count(engraved)
                if engraved:
                    w.count(0)  # one ring
                    w.count(0)  # of three points
                    w.numbers([0, 0, 8, 0, 0, 8])
            w.count(0)
            out.append(w.bytes())
    return out


def _engrave() -> list[bytes]:
    """make's engraving of the bundled plane calendars and packings (their labels and
    names), in a glyph table of their characters (DejaVu Sans Bold) given as words, and
    again with the table made from the input."""
    from cpmodels.make.glyphs import table
    from cpmodels.make.shapes import FONT
    from cpmodels.spec import load_spec

    out = []
    for name in ("calendar_day", "calendar_week", "hexiamonds_rhombus", "polyhexes"):
        spec = load_spec(name)
        labels = [(c, [ord(ch) for ch in t]) for c, t in getattr(spec, "cell_labels", {}).items()]
        pieces = [(sorted(p.cells), [ord(ch) for ch in p.name]) for p in spec.pieces]
        chars = {chr(c) for _, t in [*labels, *pieces] for c in t}
        glyphs = np.frombuffer(table(chars, FONT), dtype=np.int64)
        for given in (True, False):
            w = Words()
            w.within(GRIDS.index(spec.grid), -1)
            w.count(len(labels))
            w.numbers([x for c, _ in labels for x in c])
            w.runs([len(t) for _, t in labels])
            w.numbers([b for _, t in labels for b in t])
            w.count(len(pieces))
            w.runs([len(c) for c, _ in pieces])
            w.numbers([x for c, _ in pieces for x in _flat(c)])
            w.runs([len(n) for _, n in pieces])
            w.numbers([b for _, n in pieces for b in n])
            w.numbers([6, 1, 2, 1, 1, 1, 1, 1])  # cell 20, kerf 0, clearance 0.2, others 0
            if given:
                w.count(0)
                w.count(len(glyphs))
                w.numbers(glyphs.tolist())
            else:
                w.count(1)
            w.count(0)
            out.append(w.bytes())
    return out


def _cover(w: Words, arrays: dict[str, np.ndarray]) -> None:
    """A cover's flat arrays (cover.hpp's read_cover)."""
    low, high = arrays["low"].tolist(), arrays["high"].tolist()
    n_items, n_cells = len(low), len(arrays["cell_nb_start"]) - 1
    w.count(n_items)
    w.count(n_cells)
    for lo, hi in zip(low, high):
        if (lo, hi) == (1, 1):
            w.count(0)
        elif (lo, hi) == (0, 1):
            w.count(1)
        elif 0 <= lo <= 3 and 0 <= hi - lo <= 3:
            w.count(2)
            w.number(lo)
            w.number(hi - lo)
        else:
            w.count(3)
            w.number(lo)
            w.number(hi)
    w.numbers([x + 2 for x in arrays["item_cell"].tolist()])
    w.runs(np.diff(arrays["cell_nb_start"]).tolist())
    w.numbers([x + 2 for x in arrays["cell_nbs"].tolist()])
    w.count(len(arrays["opt_start"]) - 1)
    w.runs(np.diff(arrays["opt_start"]).tolist())
    w.numbers([x + 1 for x in arrays["opt_items"].tolist()])


def _cover_layout(args: tuple[Any, ...], tally: Sequence[int] = ()) -> bytes:
    w = Words()
    _cover(w, args[0])
    w.count(len(tally))
    w.numbers([int(x) + 1 for x in tally])
    w.count(0)
    return w.bytes()


def _one_word_cover(w: Words, args: tuple[Any, ...]) -> None:
    """A cover as the one-word layout is asked it (one_word_layout.cpp's reading)."""
    arrays, cell_xy, item_kind, option_kind, flips = args
    _cover(w, arrays)
    w.numbers(np.asarray(cell_xy).reshape(-1).tolist())
    w.numbers([int(k) + 1 for k in item_kind])
    w.count(1 if len(option_kind) else 0)
    kinds = list(option_kind) if len(option_kind) else [0] * (len(arrays["opt_start"]) - 1)
    w.numbers([int(k) + 1 for k in kinds])
    w.count(int(flips) & 3)


def _one_word_layout(args: tuple[Any, ...]) -> bytes:
    w = Words()
    _one_word_cover(w, args)
    w.count(0)
    return w.bytes()


def _one_word(args: tuple[Any, ...], tally: Sequence[int] = (),
              rows: Sequence[Sequence[int]] = ()) -> bytes:
    """The one-word searches' target: the cover as the package makes it (not one the target
    draws), its tally items, and rows of forced options after the empty one."""
    w = Words()
    w.count(0)
    _one_word_cover(w, args)
    w.count(len(tally))
    w.numbers([int(i) for i in tally])
    width = max([1, *(len(row) for row in rows)])
    w.count(len(rows))
    w.count(width - 1)
    for row in rows:
        w.numbers([int(o) + 1 for o in row] + [0] * (width - len(row)))
    for v in (1, 2, 8, 2, 8, 2, 8):  # a table, and each search's table and arena sizes
        w.count(v)
    return w.bytes()


def _one_word_calendars() -> list[bytes]:
    """The one-word searches' seeds from each bundled calendar (a board of at most 64
    cells): its sweep cover cut down to a solution's options, every label's and a few more
    of each piece's, tallied by its first two label groups, with the solution's date and its
    first piece forced."""
    from cpmodels.backends.engine import EngineSession
    from cpmodels.backends.engine.layouts.cover import one_word_layout
    from cpmodels.cover import ExactCover, ItemKind
    from cpmodels.spec import CalendarSpec, load_spec
    from cpmodels.sweep import sweep_cover

    found = []
    for path in sorted(SPECS.glob("*.yaml")):
        spec = load_spec(path)
        if not isinstance(spec, CalendarSpec):
            continue
        cover, slack = sweep_cover(spec)
        solution = EngineSession(cover).first_solution()
        if solution is None:
            continue
        kinds = [it.kind for it in cover.items]
        owner = [next(i for i in option if kinds[i] is not ItemKind.CELL)
                 for option in cover.options]
        by_owner: dict[int, list[int]] = {}
        for j, i in enumerate(owner):
            by_owner.setdefault(i, []).append(j)
        for extra in (0, 1, 3):
            kept = set(solution)
            for i, options in by_owner.items():
                if kinds[i] is ItemKind.SLACK:
                    kept |= set(options)
                elif extra:
                    kept |= set(options[::max(1, len(options) // extra)][:extra])
            chosen = sorted(kept)
            index = {j: k for k, j in enumerate(chosen)}
            typed = len(cover.placements) == len(cover.options)
            part = ExactCover(items=cover.items, options=[cover.options[j] for j in chosen],
                              placements=[cover.placements[j] for j in chosen] if typed else [],
                              grid=cover.grid)
            with recording() as calls:
                if one_word_layout(part) is None:
                    continue
            date = [index[j] for j in solution if kinds[owner[j]] is ItemKind.SLACK]
            piece = [index[j] for j in solution if kinds[owner[j]] is ItemKind.PIECE][:1]
            found.append(_one_word(calls["one_word_layout_sizes"][0], slack[:2],
                                   [date[:3], piece]))
    return found


def _packing(args: tuple[Any, ...]) -> bytes:
    arrays = args[0]
    w = Words()
    _cover(w, arrays)
    w.count(0)  # no tally items
    n_options = len(arrays["opt_start"]) - 1
    w.count(1)  # two rows of prefixes, two wide: the empty one and options 0, 1
    w.count(2)
    w.numbers([0 + 3, min(1, n_options - 1) + 3])
    for v in (2, 8, 0, 5, 1, 1, 3):  # the tables' sizes, use_table, out rows
        w.count(v)
    return w.bytes()


def _region_sizes(args: tuple[Any, ...]) -> bytes:
    areas, total, _ = args
    w = Words()
    w.count(len(areas))
    w.numbers([int(a) for a in np.asarray(areas).reshape(-1)])
    w.count(0)
    w.numbers([1] * len(areas))
    w.count(int(total))
    w.count(len(areas) % 4)  # the holes cpcore_reach_fills adds
    return w.bytes()


def _option_symmetries(args: tuple[Any, ...]) -> bytes | None:
    """A call of cpcore_option_symmetries in the target's words (well formed: the maps as
    the swaps that make them), or None when it is past the target's bounds."""
    n_cells, n_maps, item_cell, options, opt_piece, placed, bounds, once, maps = \
        [list(a) if not isinstance(a, int) else a for a in args]
    opt_start = list(itertools.accumulate(map(len, options), initial=0))
    opt_items = [i for option in options for i in option]
    n_items, n_options, n_pieces = len(item_cell), len(opt_piece), len(bounds)
    if (n_cells > 128 or n_items > 256 or n_options > 4096 or len(opt_items) > 1 << 15
            or n_pieces > 40 or n_maps > 48
            or any(b - a > 8 for a, b in itertools.pairwise(opt_start))):
        return None
    w = Words()
    w.number(0)
    w.count(n_cells)
    w.count(n_items)
    for c in item_cell:
        w.within(c, -1)
    w.count(n_options)
    for a, b in itertools.pairwise(opt_start):
        w.count(b - a)
    for i in opt_items:
        w.within(i, 0)
    w.count(n_pieces)
    for p in opt_piece:
        w.within(p, 0)
    for flag in placed:
        w.count(flag)
    for b in bounds:
        w.within(min(b, 2), 0)
    for flag in once:
        w.count(flag)
    w.count(n_maps)
    for g in range(1, n_maps):
        target = maps[g * n_cells:(g + 1) * n_cells]
        w.count(1)
        current = list(range(n_cells))
        where = list(range(n_cells))
        for c in range(n_cells - 1, 0, -1):
            j = where[target[c]]
            w.count(j)
            current[c], current[j] = current[j], current[c]
            where[current[c]], where[current[j]] = c, j
    w.count(1)
    return w.bytes()


def _drup(args: tuple[Any, ...]) -> bytes:
    n_vars, n_formula, lits, start, length, kind, clause, units, n_units_formula = args[:9]
    w = Words()
    w.within(n_vars, 1)
    w.number(len(start))
    w.number(n_formula)
    lits = [int(x) for x in lits]
    w.count(len(lits))
    for x in lits:
        w.within(abs(x), 1)
        w.count(1 if x < 0 else 0)
    for s, n in zip(start.tolist(), length.tolist()):
        w.number(s)
        w.number(n)
    w.number(len(kind))
    for k, c in zip(kind.tolist(), clause.tolist()):
        w.number(k)
        w.within(c, -1 if k == 1 else 0)
    listed = set(units[:n_units_formula].tolist())
    for c, n in enumerate(length.tolist()):
        if n == 1:
            w.count(1 if c in listed else 0)
    w.count(0)
    return w.bytes()


def _cnf(made: tuple[Any, ...], lits: np.ndarray) -> bytes:
    opt_start, opt_items, item_start, item_opts, low = (np.asarray(a) for a in made)
    w = Words()
    w.count(len(opt_start) - 1)
    w.count(len(low))
    w.numbers(np.diff(opt_start).tolist())
    w.numbers(opt_items.tolist())
    w.numbers(np.diff(item_start).tolist())
    w.numbers(item_opts.tolist())
    w.numbers(low.tolist())
    w.count(len(lits))
    w.numbers(lits.tolist())
    return w.bytes()


def _towers() -> list[bytes]:
    """A few cells of small boards: colours, needs, scores and layers."""
    found = []
    for codes, colour_bits, cols, rows, needs in ((3, 2, 3, 3, [0, 1, 3]),
                                                   (4, 3, 4, 2, [0, 1, 3, 7]),
                                                   (5, 3, 2, 4, [0, 1, 2, 4, 8])):
        w = Words()
        w.count(0)
        w.within(codes, 1)
        w.within(colour_bits, 1)
        w.count(0)  # none: the least the colour bits allow
        w.within(cols, 1)
        w.within(rows, 1)
        w.number(rows // 2)
        w.number(cols // 2)
        w.numbers(needs)
        none = (1 << colour_bits) - 1
        w.numbers([(k * 7 + 3) % 11 - 2 for k in range((none + 1) ** 2 * codes)])
        w.number(-1)  # every colour allowed
        w.number(0)
        w.count(4)
        for key in (0, 5, 1 << 9, 77):
            w.count(1)
            w.number(key)
        w.numbers([0, 3, -2, 9])
        w.count(2)
        w.count(0)
        found.append(w.bytes())
    return found


# --- hostile variants ---------------------------------------------------------------------

def _hostile_sweep() -> list[bytes]:
    """Covers asked with what the bindings refuse or the core must refuse itself."""
    board = [(r, c) for r in range(3) for c in range(4)]
    piece = [((frozenset({(0, 0), (0, 1)}),), 1, 1)]
    cases = [(0, board, piece, [[(0, 0), (1, 1)]], 1 << 20),
             (0, [*board, (1 << 40, 0)], piece, [], 1 << 20),
             (0, board, [((frozenset({(0, 0), (0, 1)}),), 3, 1)], [], 1 << 20),
             (0, board, [((frozenset({(0, 0), (0, 1)}),), -1, 1 << 40)], [], 1 << 20),
             (0, board, piece, [[(9, 9)]], 1 << 20),
             (0, board, piece, [[]], 1 << 20),
             (7, board, piece, [], 1 << 20),
             (0, board, piece, [], 3),
             (0, board, [*piece, ((frozenset({(0, 0)}),), 1, 1)], [], 1 << 20, [1]),
             (3, [(0, 0, 0), (0, 0, 1), (0, 1, 0)], [((frozenset({(0, 0, 0), (0, 0, 1)}),), 1, 1)],
              [], 1 << 20)]
    found = [_sweep_cover(case) for case in cases]
    w = Words()  # runs that go back
    w.within(0, -1)
    w.count(2)
    w.numbers([0, 0, 0, 1])
    w.count(2)
    w.raw_runs([0, 3, 1], 3)
    w.numbers([0, 0, 0, 1, 1, 0])
    found.append(w.bytes())
    return found


def _hostile_cover() -> list[bytes]:
    """Covers whose runs, indices and bounds do not read."""
    base = {"low": np.array([1, 1, 0, 2]), "high": np.array([1, 1, 1, 5]),
            "item_cell": np.array([0, 1, -1, -1]), "cell_nb_start": np.array([0, 1, 2]),
            "cell_nbs": np.array([1, 0]), "opt_start": np.array([0, 2, 4, 5]),
            "opt_items": np.array([0, 3, 1, 3, 2])}
    found = [_cover_layout((base,), [0, 1]), _cover_layout((base,), [0, 0]),
             _cover_layout((base,), [3])]
    for change in ({"opt_items": np.array([0, 0, 1, 3, 2])},
                   {"high": np.array([1, 1, 1, 1 << 40])},
                   {"low": np.array([1, 1, 0, -2])},
                   {"cell_nbs": np.array([1, 5])}):
        found.append(_cover_layout(({**base, **change},), [0]))
    return found


# --- the folders ----------------------------------------------------------------------------

def seeds() -> dict[str, list[bytes]]:
    """Every target's seeds."""
    with recording() as calls:
        _run_package(calls)
    made: dict[str, list[bytes]] = {
        "sweep_cover": [_sweep_cover(a) for a in calls["sweep_cover"]] + _hostile_sweep(),
        "placements": [_placements(a) for a in calls["placements"][:200]]
        + [_placements((g, [[(0, 0), (0, 1)]], [(0, 0), (0, 1), (1, 0)], 1 << 62),
                       [(0, 0), (1 << 31, 0)]) for g in range(4) if g != 3],
        "play_layout": [_play_layout(a) for a in calls["play_layout"]],
        "cover_layout": [_cover_layout(a) for a in calls["cover_layout_sizes"]]
        + [_cover_layout((a[0],), a[2].tolist()) for a in calls["tally_layout_sizes"]]
        + _hostile_cover(),
        "one_word_layout": [_one_word_layout(a) for a in calls["one_word_layout_sizes"]],
        "one_word": [_one_word(a) for a in calls["one_word_layout_sizes"]
                     if len(a[0]["low"]) <= 128 and len(a[0]["opt_start"]) <= 513]
        + _one_word_calendars(),
        "packing": [_packing(a) for a in calls["cover_layout_sizes"]
                    if len(a[0]["low"]) <= 20 and len(a[0]["opt_start"]) <= 41],
        "region_sizes": [_region_sizes(a) for a in calls["region_sizes"]],
        "option_symmetries": [w for w in map(_option_symmetries, calls["option_symmetries"])
                              if w is not None],
        "drup": [_drup(a) for a in calls["drup_check"]],
        "cnf": [_cnf(made, lits) for made, lits in calls["step"]],
        "towers": _towers(),
        "cut": _cut(),
        "engrave": _engrave(),
    }
    return made


def seed_folders(folder: Path, names: Sequence[str]) -> dict[str, Path]:
    """Each named target's seed folder, written once for this file and these specs."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    for path in sorted([*SPECS.glob("*.yaml"), *BAD_SPECS.glob("*.yaml")]):
        digest.update(path.read_bytes())
    stamp = folder / "version"
    if not (stamp.exists() and stamp.read_text() == digest.hexdigest()):
        shutil.rmtree(folder, ignore_errors=True)
        for name, found in seeds().items():
            target = folder / name
            target.mkdir(parents=True, exist_ok=True)
            for data in dict.fromkeys(found):
                (target / hashlib.sha1(data).hexdigest()).write_bytes(data)
        stamp.write_text(digest.hexdigest())
    return {name: folder / name for name in names if (folder / name).is_dir()}
