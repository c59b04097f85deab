"""The engine core built for WebAssembly (``engine.wasm``, made by the install when clang and
wasm-ld are found) loaded by ``engine.js`` in headless Chromium: on the same covers it
answers every count, tally, existence question and first solution exactly as the native
module does."""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from collections import namedtuple
from functools import partial
from importlib import resources
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, SPECS, early_call
from test_grids import HEX_CALENDAR as HEX  # a hex weekday calendar

from cpmodels._core import interface
from cpmodels.backends.engine import EngineSession
from cpmodels.backends.engine.kernels.choice import (
    EXISTS,
    OFFER_BITS,
    SOLUTIONS,
    TALLY,
    Offers,
    choose,
)
from cpmodels.backends.engine.layouts.browser import plain
from cpmodels.cover import PieceKind, check_placement_count
from cpmodels.errors import TooLargeError
from cpmodels.geometry import orientations, placements
from cpmodels.grids import grid
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec
from cpmodels.sweep import scan_fixed_groups, sweep_cover, sweep_plan

ORIGIN = "http://engine.test"  # served by page.route: nothing leaves the browser
ENGINE = resources.files("cpmodels.web").joinpath("static/engine")
BUDGET_KB = 200  # engine.wasm, gzip-compressed

TRIANGLE = """\
kind: calendar
name: triangle_calendar
grid: triangle
board:
  - "A . . . . . . . ."
  - ". . . . . . . . B"
  - ". . C . . . . . ."
groups:
  g: [A, B, C]
pieces:
  - {name: T, count: 3, cells: [[0, 0], [0, 1], [0, 2]]}
  - {name: Q, cells: [[0, 0], [0, 1], [0, 2], [0, 3]]}
  - {name: H, cells: [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]}
  - {name: L, cells: [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0]]}
  - {name: D, cells: [[0, 0], [0, 1]]}
"""



def _needs_clang() -> None:
    """Fail or skip, once, when engine.wasm was not built: skip only when clang and lld
    cannot be had here (unless CPMODELS_E2E=require)."""
    tools = shutil.which("clang") and (shutil.which("wasm-ld") or shutil.which("wasm-ld-14"))
    if tools or os.environ.get("CPMODELS_E2E") == "require":
        pytest.fail("engine.wasm is not installed: install the package again with clang and "
                    "lld on the machine (pip install -e .)")
    pytest.skip("clang and lld are not installed (apt-get install clang lld)")


@pytest.fixture(scope="module")
def wasm() -> bytes:
    built = ENGINE.joinpath("engine.wasm")
    if not built.is_file():
        _needs_clang()
    return built.read_bytes()


@pytest.fixture(scope="module")
def page(browser, wasm):
    """A blank page of ORIGIN that serves engine.js and engine.wasm."""
    files = {"/engine.js": (ENGINE.joinpath("engine.js").read_bytes(), "text/javascript"),
             "/engine.wasm": (wasm, "application/wasm"),
             "/": (b"<!doctype html><title>engine</title>", "text/html")}
    page = browser.new_page()
    page.route(f"{ORIGIN}/**", lambda route: route.fulfill(
        status=200 if route.request.url[len(ORIGIN):] in files else 404,
        body=files.get(route.request.url[len(ORIGIN):], (b"", "text/plain"))[0],
        content_type=files.get(route.request.url[len(ORIGIN):], (b"", "text/plain"))[1]))
    page.goto(f"{ORIGIN}/")
    yield page
    page.close()


# What the page runs: the engine loaded, the plan's cover loaded, each question asked;
# BigInts come back as strings.
ASK = """async ({plan, tasks, exists, forced}) => {
  const before = new Set(Object.keys(window));
  const { loadEngine, decodePlan } = await import("./engine.js");
  const engine = await loadEngine("./engine.wasm");
  const cover = engine.load(decodePlan(plan), { tableSlots: 1 << 14 });
  const tally = cover.tally(tasks);
  const answers = {
    rows: tally.rows.map((row) => Array.from(row, String)),
    masks: tally.masks,
    counts: cover.count(tasks).map(String),
    exists: cover.exists(exists),
    existsFirstFailure: cover.exists(exists, { firstFailure: true, remember: false }),
    first: forced.map((f) => cover.firstSolution(f)),
    split: forced.map((f) => cover.split(f)),
    used: engine.size.used,
  };
  cover.release();
  answers.released = engine.size.used;
  answers.globals = Object.keys(window).filter((name) => !before.has(name));
  return answers;
}"""


def _spec(tmp_path: Path, text: str):
    path = tmp_path / "calendar.yaml"
    path.write_text(text)
    return load_spec(path)


def _compare(page, session: EngineSession, tasks: list[tuple[int, ...]], *,
             kernels: tuple[str, str]) -> None:
    """Every answer of the browser's engine on the session's cover equals the native
    one's: each task's count vector and its uncovered tally items as the core writes them,
    its count, whether it has a solution, the first solution of each task and its next
    branching step (the plan's searches for tallies and existence are ``kernels``)."""
    plan = session.browser_plan()
    assert (plan["tally"]["kernel"], plan["exists"]["kernel"]) == kernels
    call = session.searches.tally_call(tasks, None)
    call.kernel(*call.args)
    natively = session.exists(tasks)
    got = page.evaluate(ASK, {"plan": json.loads(json.dumps(plan)), "tasks": tasks,
                              "exists": tasks, "forced": tasks})
    out = np.asarray(call.out).reshape(len(tasks), -1)  # (a plain count's: one a task)
    width = out.shape[1]
    assert [[int(x) for x in row[:width]] for row in got["rows"]] == out.tolist()
    if call.masks is not None:
        assert got["masks"] == call.masks.tolist()
    assert [int(n) for n in got["counts"]] == [session.count(t) for t in tasks]
    assert got["exists"] == natively
    first_false = next((k for k, x in enumerate(natively) if not x), len(tasks))
    assert got["existsFirstFailure"] == [*natively[:first_false + 1],
                                         *[None] * (len(tasks) - first_false - 1)]
    assert got["first"] == [session.first_solution(t) for t in tasks]
    # each task's next branching step: the tasks it is cut into (one that cannot be cut
    # stays whole)
    assert [[[*t, o] for o in options] or [list(t)] for t, options in zip(tasks, got["split"])
            ] == [[list(part) for part in session.split(t)] for t in tasks]
    assert any(int(n) for n in got["counts"]), "a comparison of nothing but zeros"
    assert got["released"] == 0 < got["used"]
    assert got["globals"] == []


def test_a_layout_as_plain_data():
    """Arrays go as their little-endian bytes with dtype and shape, numbers past 2**53 as
    decimal strings (JSON numbers lose them); other arrays and values are refused."""
    Pair = namedtuple("Pair", ["a", "n", "big", "flag"])
    masks = np.array([[1, 2**64 - 1], [0, 5]], dtype=np.uint64)
    got = plain(Pair(masks, np.int64(-3), np.uint64(2**63 + 1), np.bool_(True)))
    assert got["a"]["dtype"] == "uint64" and got["a"]["shape"] == [2, 2]
    back = np.frombuffer(base64.b64decode(got["a"]["base64"]), dtype="<u8").reshape(2, 2)
    assert np.array_equal(back, masks)
    assert (got["n"], got["big"], got["flag"]) == (-3, str(2**63 + 1), True)
    for bad in (np.zeros(2, np.int32), np.zeros(2), "text", None):
        with pytest.raises(ValueError, match=r"^a: "):
            plain(Pair(bad, 0, 0, False))


def _leb(data: bytes, at: int) -> tuple[int, int]:
    """An unsigned LEB128 number at ``at``, and where it ends."""
    value = shift = 0
    while True:
        byte = data[at]
        value, at, shift = value | (byte & 0x7F) << shift, at + 1, shift + 7
        if byte < 0x80:
            return value, at


def _sections(wasm: bytes) -> list[tuple[int, bytes]]:
    """A WebAssembly module's sections: (id, contents), in order."""
    found, at = [], 8
    while at < len(wasm):
        size, body = _leb(wasm, at + 1)
        found.append((wasm[at], wasm[body:body + size]))
        at = body + size
    return found


def _exports(wasm: bytes) -> dict[str, int]:
    """A module's exports: name -> kind (0 function, 2 memory, 3 global)."""
    found = {}
    for section, body in _sections(wasm):
        if section == 7:
            count, at = _leb(body, 0)
            for _ in range(count):
                length, at = _leb(body, at)
                name, kind = body[at:at + length].decode(), body[at + length]
                found[name], at = kind, _leb(body, at + length + 1)[1]
    return found


NO_CMAKE = "cmake is not installed (pip install -e '.[test]')"


def _cmake() -> str | None:
    beside = Path(sys.executable).with_name("cmake")  # the test extra's
    return str(beside) if beside.exists() else shutil.which("cmake")


def _configure(tmp_path: Path, *defines: str) -> subprocess.CompletedProcess:
    """The WebAssembly build's CMake file configured alone (in a project of its own)."""
    cmake = _cmake()
    if cmake is None:
        pytest.skip(NO_CMAKE)
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.15)\nproject(probe NONE)\n"
        f'include("{(ROOT / "cpmodels/_core/wasm/engine.cmake").as_posix()}")\n')
    return subprocess.run([cmake, "-S", str(tmp_path), "-B", str(tmp_path / "build"),
                           *defines], capture_output=True, text=True, timeout=120)


def build_alone(scratch: Path) -> None:
    """engine.wasm built from the sources by the package's CMake file alone, configured
    and built in ``scratch/build``: what the configure step said in ``scratch/configured``,
    what the build said on this process's output, its status the build's (:data:`NO_CMAKE`
    said, and nothing built, without cmake). Started with the session (the test's early
    command)."""
    if _cmake() is None:
        print(NO_CMAKE)
        return
    configured = _configure(scratch)
    (scratch / "configured").write_text(configured.stdout + configured.stderr)
    built = subprocess.run([configured.args[0], "--build", str(scratch / "build"), "--target",
                            "engine_wasm"], capture_output=True, text=True, timeout=300)
    print(built.stdout, built.stderr, sep="\n", flush=True)
    sys.exit(built.returncode)


def test_the_build_says_when_it_skips_the_wasm(tmp_path):
    off = _configure(tmp_path / "off", "-DCPMODELS_WASM=OFF")
    assert off.returncode == 0 and "engine.wasm skipped: CPMODELS_WASM is off" in off.stdout
    no_wasm = _configure(tmp_path / "false", "-DCPMODELS_WASM_CLANG=/bin/false",
                         "-DCPMODELS_WASM_LD=/bin/false")
    assert no_wasm.returncode == 0
    assert "engine.wasm skipped: /bin/false does not target wasm32" in no_wasm.stdout


@pytest.mark.early.with_args(partial(early_call, "test_wasm", "build_alone"))
def test_the_build_exports_the_entry_points_alone(early, wasm):
    """engine.wasm built from the sources by the package's CMake file: it exports every
    function entry.h declares, its memory and where the free memory starts, nothing else;
    it imports nothing (memcpy and its kin are inside). The build starts with the session."""
    if early.stdout.strip() == NO_CMAKE:
        pytest.skip(NO_CMAKE)
    said = early.scratch / "configured"
    assert said.is_file(), early.stdout + early.stderr
    assert "engine.wasm built with" in said.read_text(), said.read_text()
    assert early.returncode == 0, early.stdout + early.stderr
    fresh = (early.scratch / "build" / "engine.wasm").read_bytes()
    entry_h = ROOT / "cpmodels/_core/include/cpcore/entry.h"
    declared = set(re.findall(r"\b(cpcore_\w+)\(", entry_h.read_text()))
    declared -= interface.read(entry_h).native  # the native module's alone
    assert len(declared) > 15 and "cpcore_option_symmetries" not in declared
    expected = {name: 0 for name in declared} | {"memory": 2, "__heap_base": 3}
    assert _exports(fresh) == _exports(wasm) == expected
    assert 2 not in [section for section, _ in _sections(fresh)]  # no imports


def test_the_wasm_is_small(wasm):
    assert wasm[:4] == b"\0asm"
    assert len(gzip.compress(wasm, 9)) <= BUDGET_KB * 1024


@pytest.mark.parametrize("labels", [["Jun", "7", "Tue"], ["Jan", "1", "Mon"],
                                    ["Dec", "31", "Sun"]])
def test_calendar_week_dates(page, labels):
    cover = packing_instance(Query.of(load_spec(SPECS / "calendar_week.yaml"),
                                      labels=labels)).cover
    session = EngineSession(cover)
    _compare(page, session, [(), *session.branches()],
             kernels=("count_one_word", "exists_two_words"))


def test_calendar_week_tallied_by_weekday(page):
    """A sweep's cover (slack items), the weekdays tallied with month and day forced."""
    spec = load_spec(SPECS / "calendar_week.yaml")
    cover, slack = sweep_cover(spec)
    hole = {cover.items[option[0]].cell: o for o, option in enumerate(cover.options)
            if len(option) == 2 and option[1] in slack}
    holes = [hole[spec.label_cells[label]] for label in ("Mar", "14", "Feb", "29")]
    _compare(page, EngineSession(cover, tally_items=(slack[2],)),
             [(holes[0], holes[1]), (holes[2], holes[3])],
             kernels=("tally_one_word", "exists_two_words"))


# A one-word board whose tally has 27 units (21 label groups of two, one a column, and 6
# straight pieces of 1 to 6 cells): too many for rows of two words, so the browser's tally
# keeps rows of three in its one search of both widths (choice.hpp's TALLY_ONE_SEARCH), as
# the native tally does in its search of rows of three.
MANY_UNITS = ("kind: calendar\nname: many_units\nboard:\n"
              f'  - "{" ".join(f"a{i}" for i in range(21))}"\n'
              f'  - "{" ".join(f"b{i}" for i in range(21))}"\n'
              "groups:\n" + "".join(f"  g{i}: [a{i}, b{i}]\n" for i in range(21)) +
              "pieces:\n" + "".join(f"  - {{name: I{k}, cells: {[[0, j] for j in range(k)]}}}\n"
                                    for k in range(1, 7)))


def test_a_tally_of_too_many_units_for_rows_of_two(page, tmp_path):
    cover, slack = sweep_cover(_spec(tmp_path, MANY_UNITS))
    session = EngineSession(cover, tally_items=(slack[-1],))
    layout, _, _ = session.searches._one_word_tally(None)
    units = int(layout.all_pieces) | int(layout.slack) | int(np.bitwise_or.reduce(
        layout.opt_piece))
    assert units.bit_length() == 27 > 24
    _compare(page, session, [(), *session.branches()],
             kernels=("tally_one_word", "exists_two_words"))


def test_a_triangle_calendar(page, tmp_path):
    cover, slack = sweep_cover(_spec(tmp_path, TRIANGLE))
    session = EngineSession(cover, tally_items=tuple(slack))
    _compare(page, session, [(), *session.branches()],
             kernels=("tally_prefixes_two_words", "exists_two_words"))


def test_a_hex_calendar(page, tmp_path):
    spec = _spec(tmp_path, HEX)
    cover, slack = sweep_cover(spec)
    session = EngineSession(cover, tally_items=tuple(slack))
    _compare(page, session, [(), *session.branches()],
             kernels=("tally_prefixes_two_words", "exists_two_words"))
    one_day = EngineSession(packing_instance(Query.of(spec, labels=["Wed"])).cover)
    _compare(page, one_day, [(), *one_day.branches()],
             kernels=("tally_prefixes_two_words", "exists_two_words"))


# The browser's orientations and placements of each piece on a board, and one refusal.
PLACE = """async ({grid, pieces, board}) => {
  const { loadEngine } = await import("./engine.js");
  const engine = await loadEngine("./engine.wasm");
  const found = pieces.map(({cells, rotate, flip}) => {
    const shapes = engine.orientations(grid, cells, { rotate, flip });
    return { shapes, placed: engine.placements(grid, shapes, board) };
  });
  const refused = [
    () => engine.placements(grid, [[[2 ** 31, 0]]], board),
    () => engine.placements(grid, [[[0, 0]]], [[0.5, 0]]),
    () => engine.placements(grid, [[[0, 0, 0]]], board),
    () => engine.placements(grid, [[]], board),
    () => engine.placements(grid, "shapes", board),
    () => engine.placements(grid, [[[0, 0]]], board, { limit: -1 }),
    () => engine.placements("octagon", [[[0, 0]]], board),
    () => engine.orientations(grid, [["0", 0]]),
  ].map((call) => {
    try {
      call();
      return "accepted";
    } catch (e) {
      return e instanceof RangeError ? e.message : String(e);
    }
  });
  return { found, refused, used: engine.size.used };
}"""


@pytest.mark.parametrize("text", [TRIANGLE, HEX], ids=["triangle", "hex"])
def test_the_browsers_placements_are_the_native_ones(page, tmp_path, text):
    """engine.js's orientations and placements of each piece of a triangle and a hex
    calendar on its board equal the package's (the same core, natively), order included."""
    spec = _spec(tmp_path, text)
    board = sorted(spec.cells)
    kinds = spec.piece_kinds()
    pieces = [{"cells": [list(c) for c in piece.cells],
               "rotate": spec.rotate if piece.rotate is None else piece.rotate,
               "flip": spec.flip if piece.flip is None else piece.flip} for piece in spec.pieces]
    got = page.evaluate(PLACE, {"grid": spec.grid, "pieces": pieces,
                                "board": [list(c) for c in board]})
    assert len(got["found"]) == len(kinds)
    for kind, found in zip(kinds, got["found"]):
        assert [frozenset(map(tuple, shape)) for shape in found["shapes"]] == \
            list(kind.orientations)
        expected = [(s, placed.cells) for s, shape in enumerate(kind.orientations)
                    for placed in placements(kind.name, [shape], board, spec.geometry)]
        assert [(p["shape"], tuple(board[i] for i in p["cells"])) for p in found["placed"]] \
            == expected
        assert expected
    assert [message.split(":")[0] for message in got["refused"]] == [
        "a shape", "the board", "a shape", "a shape has no cells", "shapes", "limit",
        "octagon", "the shape"]
    assert "2**30" in got["refused"][0] and got["used"] == 0


# The browser's sweep cover of a calendar, face up and not, and its refusals.
SWEEP = """async ({grid, cells, pieces, groups}) => {
  const { loadEngine } = await import("./engine.js");
  const engine = await loadEngine("./engine.wasm");
  const covers = [false, true].map((faceUp) =>
    engine.sweepCover({ grid, cells, pieces, groups, faceUp }));
  const wide = [];
  for (let r = 0; r < 100; ++r) for (let c = 0; c < 100; ++c) wide.push([r, c]);
  const f = { cells: [[0, 1], [0, 2], [1, 0], [1, 1], [2, 1]] };
  const refused = [
    () => engine.sweepCover({ grid, cells, pieces, groups: [[[500, 500]]] }),
    () => engine.sweepCover({ grid, cells, pieces, groups: [[]] }),
    () => engine.sweepCover({ grid, cells, pieces: [{ cells: [[0, 0]], count: 1, low: 2 }] }),
    () => engine.sweepCover({ grid, cells, pieces: [{ cells: [[0, 0]], count: -1 }] }),
    () => engine.sweepCover({ grid, cells, pieces: [null] }),
    () => engine.sweepCover({ grid, cells, pieces: "pieces" }),
    () => engine.sweepCover({ grid, cells, pieces, groups: [[[0.5, 0]]] }),
    () => engine.sweepCover({ grid: "square", cells: wide, pieces: new Array(8).fill(f) }),
  ].map((call) => {
    try {
      call();
      return "accepted";
    } catch (e) {
      return e instanceof RangeError ? e.message : String(e);
    }
  });
  return { covers, refused, used: engine.size.used };
}"""


@pytest.mark.parametrize("text", [TRIANGLE, HEX], ids=["triangle", "hex"])
def test_the_browsers_sweep_cover_is_the_native_one(page, tmp_path, text):
    """engine.js's sweep cover of a triangle and a hex calendar, face up and not, equals the
    package's: items, options, their kinds and owners, and the groups a sweep fixes."""
    spec = _spec(tmp_path, text)
    board = sorted(spec.cells)
    pieces = [{"cells": [list(c) for c in piece.cells], "count": piece.high, "low": piece.low,
               "rotate": spec.rotate if piece.rotate is None else piece.rotate,
               "flip": spec.flip if piece.flip is None else piece.flip}
              for piece in spec.pieces]
    groups = [[list(spec.label_cells[label]) for label in labels]
              for labels in spec.groups.values()]
    got = page.evaluate(SWEEP, {"grid": spec.grid, "cells": [list(c) for c in board],
                                "pieces": pieces, "groups": groups})
    names = ([p.name for p in spec.pieces], list(spec.groups))
    for face_up, made in zip((False, True), got["covers"]):
        cover, slack = sweep_cover(spec, face_up=face_up)
        items = made["items"]
        assert items["kind"] == [int(it.kind) for it in cover.items]
        assert list(zip(items["low"], items["high"])) == [(it.low, it.high)
                                                          for it in cover.items]
        assert [board[k] if k >= 0 else None for k in items["cell"]] == \
            [it.cell for it in cover.items]
        start, entries = made["options"]["start"], made["options"]["items"]
        assert [tuple(entries[a:b]) for a, b in pairwise(start)] == cover.options
        assert made["optionKind"] == [int(p.kind) for p in cover.placements]
        assert [names[kind][owner] for kind, owner in
                zip(made["optionKind"], made["optionOwner"])] == [p.piece for p in
                                                                  cover.placements]
        assert tuple(names[1][k] for k in made["fixed"]) == scan_fixed_groups(spec)
        assert slack and len(cover.options) > len(board)
    turned, face_up = (sweep_cover(spec, face_up=up)[0].options for up in (False, True))
    assert (got["covers"][0] == got["covers"][1]) == (turned == face_up)
    too_large = [PieceKind("f", tuple(orientations([(0, 1), (0, 2), (1, 0), (1, 1), (2, 1)])))]
    with pytest.raises(TooLargeError) as refused:
        check_placement_count(100 * 100, too_large * 8)
    assert [message.split(":")[0] for message in got["refused"]] == [
        "a label's cell is not on the board", "a label group has no labels", "pieces",
        "pieces", "pieces", "pieces", "a group", "the problem is too large"]
    assert got["refused"][-1] == str(refused.value) and got["used"] == 0


def test_pentominoes_6x10_prefixes(page):
    """Each branch of the 6x10 rectangle with a second piece forced below it."""
    cover = packing_instance(Query.of(load_spec(SPECS / "pentominoes_6x10.yaml"))).cover
    session = EngineSession(cover)
    tasks = [part for task in session.branches()[:3] for part in session.split(task)[:2]]
    _compare(page, session, tasks, kernels=("count_one_word", "exists_two_words"))


def test_wide_covers_take_the_general_search(page):
    """A board past two words (the 8x8 box's 64 cells and 12 pieces) counts on the N-word
    state: a few forced pieces keep it small."""
    cover = packing_instance(Query.of(load_spec(SPECS / "pentominoes_8x8_centre.yaml"))).cover
    session = EngineSession(cover, word_kernel=False)
    first = session.first_solution()
    assert first is not None
    tasks = [tuple(first[:2]), tuple(first[:3]),
             *(part for task in session.branches()[:2] for part in session.split(task)[:2])]
    _compare(page, session, tasks, kernels=("tally_prefixes_n_words", "exists_n_words"))


# Each hostile input the page hands engine.js: refused with a RangeError before the core
# runs, the engine's memory given back as it was.
REFUSE = """async (plan) => {
  const { loadEngine, decodePlan } = await import("./engine.js");
  const engine = await loadEngine("./engine.wasm");
  const good = () => decodePlan(plan);
  const refused = [];
  const attempt = (what, run) => {
    const used = engine.size.used;
    try {
      run();
      refused.push([what, "accepted"]);
    } catch (e) {
      refused.push([what, e instanceof RangeError ? e.message : String(e),
                    engine.size.used === used]);
    }
  };
  const cut = (p, question, field) => {
    const a = p[question].layout[field];
    p[question].layout[field] = a.subarray(0, a.length - 1);
    return p;
  };
  const loaded = engine.load(good());
  attempt("option past the cover", () => loaded.count([[1e6]]));
  attempt("option below -1", () => loaded.tally([[-2]]));
  attempt("option not a number", () => loaded.exists([["3"]]));
  attempt("row not an array", () => loaded.exists([5]));
  attempt("forced not an array", () => loaded.firstSolution(7));
  attempt("too many prefixes", () => loaded.count(new Array(1 << 25)));
  loaded.release();
  attempt("start cut short", () => engine.load(cut(good(), "tally", "start")));
  attempt("anchor_start cut short", () => engine.load(cut(good(), "exists", "anchor_start")));
  attempt("wrong array type", () => {
    const p = good();
    p.tally.layout.masks = new Int32Array(4);
    engine.load(p);
  });
  attempt("a 1-d opt_mask", () => {
    const p = good();
    p.solutions.layout.opt_mask = p.solutions.layout.opt_mask.data;
    engine.load(p);
  });
  attempt("unknown search", () => {
    const p = good();
    p.tally.kernel = "count_everything";
    engine.load(p);
  });
  attempt("region limit past its sizes", () => {
    const p = good();
    p.exists.layout.region_limit = 1e9;
    engine.load(p);
  });
  attempt("a word past 64 bits", () => {
    const p = good();
    p.tally.layout.covered = "18446744073709551616";
    engine.load(p);
  });
  attempt("a word below zero", () => {
    const p = good();
    p.tally.layout.first = -1;
    engine.load(p);
  });
  attempt("shape not the length", () => {
    const p = structuredClone(plan);
    p.tally.layout.avail.shape = [63];
    decodePlan(p);
  });
  attempt("base64 not valid", () => {
    const p = structuredClone(plan);
    p.tally.layout.masks.base64 = "*";
    decodePlan(p);
  });
  attempt("table slots", () => engine.load(good(), { tableSlots: 1000 }));
  attempt("arena", () => engine.load(good(), { arena: 2 ** 40 }));
  attempt("no plan", () => engine.load(null));
  const cover = engine.load(good(), { arena: 1 << 12 });  // (an arena of its own size)
  const count = cover.count([[]]).map(String);
  cover.release();
  return { refused, count, used: engine.size.used };
}"""


def test_engine_js_refuses_what_does_not_fit(page):
    """Arrays of the wrong type or length, options out of range and unknown searches are
    refused with one message each; the engine stays usable."""
    session = EngineSession(packing_instance(Query.of(load_spec(SPECS / "calendar_day.yaml"),
                                                      labels=["Oct", "6"])).cover)
    got = page.evaluate(REFUSE, json.loads(json.dumps(session.browser_plan())))
    assert len(got["refused"]) == 19
    for what, message, *kept in got["refused"]:
        assert message != "accepted", what
        assert kept == [True], f"{what}: {message}"
    assert got["count"] == [str(session.count())] and got["used"] == 0


# A module worker that loads engine.js and counts the plan's cover: the engine needs no page.
IN_A_WORKER = """async (plan) => {
  const code = `
    import { loadEngine, decodePlan } from "${location.origin}/engine.js";
    onmessage = async (event) => {
      const engine = await loadEngine("${location.origin}/engine.wasm");
      const cover = engine.load(decodePlan(event.data));
      postMessage(cover.count([[]]).map(String));
    };`;
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  const worker = new Worker(url, { type: "module" });
  const answer = new Promise((resolve, reject) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.onerror = (event) => reject(new Error(event.message || "the worker failed"));
  });
  worker.postMessage(plan);
  try {
    return await answer;
  } finally {
    worker.terminate();
    URL.revokeObjectURL(url);
  }
}"""


def test_a_worker_runs_the_engine(page):
    session = EngineSession(packing_instance(Query.of(load_spec(SPECS / "calendar_day.yaml"),
                                                      labels=["Oct", "6"])).cover)
    got = page.evaluate(IN_A_WORKER, json.loads(json.dumps(session.browser_plan())))
    assert got == [str(session.count())] == ["7"]


# A cover laid out in the page by the core (engine.coverPlan): its layouts as plain data
# (arrays as their shape and base64 bytes) and its tallies.
LAY_OUT = """async ({cover, tasks}) => {
  const { loadEngine } = await import("./engine.js");
  const engine = await loadEngine("./engine.wasm");
  const plan = engine.coverPlan(cover);
  const plainly = (layout) => Object.fromEntries(Object.entries(layout).map(([name, v]) => {
    if (typeof v !== "object") return [name, v];
    const data = v.data || v;
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    return [name, { shape: v.shape || [data.length],
                    base64: btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join("")) }];
  }));
  const loaded = engine.load(plan);
  const tally = loaded.tally(tasks);
  const refused = [];
  for (const bad of [{ ...cover, options: [[0, 0]] }, { ...cover, tally: [-1] },
                     { ...cover, low: cover.low.slice(1) }, { ...cover, options: [[1e9]] },
                     null, { ...cover, options: [[0.5]] }]) {
    try { engine.coverPlan(bad); refused.push("laid out"); }
    catch (e) { refused.push(`${e.name}: ${e.message}`); }
  }
  return { layout: plainly(plan.tally.layout), tallies: plainly(plan.tally.tallies),
           kernels: [plan.tally.kernel, plan.exists.kernel],
           rows: tally.rows.map((row) => Array.from(row, String)), masks: tally.masks,
           refused };
}"""


def test_a_cover_laid_out_in_the_browser(page, tmp_path):
    """A triangle calendar's sweep cover, made into plain arrays, laid out by the core in the
    page: the same layouts as natively, byte for byte, and the same tallies; a cover that
    does not fit refused in one line."""
    cover, slack = sweep_cover(_spec(tmp_path, TRIANGLE))
    session = EngineSession(cover, tally_items=tuple(slack), word_kernel=False)
    cells = list(dict.fromkeys(it.cell for it in cover.items if it.cell is not None))
    at = {cell: k for k, cell in enumerate(cells)}
    neighbours = grid(cover.grid).neighbours
    plain_cover = {"low": [it.low for it in cover.items], "high": [it.high for it in cover.items],
                   "cell": [-1 if it.cell is None else at[it.cell] for it in cover.items],
                   "neighbours": [[at.get(nb, -1) for nb in neighbours(c)] for c in cells],
                   "options": [list(o) for o in cover.options], "tally": list(slack)}
    tasks = [(), *session.branches()]
    got = page.evaluate(LAY_OUT, {"cover": plain_cover, "tasks": tasks})
    want = session.browser_plan()["tally"]
    assert got["kernels"] == ["tally_prefixes_n_words", "exists_n_words"] == [
        want["kernel"], session.browser_plan()["exists"]["kernel"]]
    for name, layout in (("layout", want["layout"]), ("tallies", want["tallies"])):
        assert set(got[name]) == set(layout)
        for field, value in layout.items():
            expected = ({"shape": value["shape"], "base64": value["base64"]}
                        if isinstance(value, dict) else value)
            assert got[name][field] == expected, f"{name}.{field}"
    call = session.searches.tally_call(tasks, None)
    call.kernel(*call.args)
    width = call.out.shape[1]
    assert [[int(x) for x in row[:width]] for row in got["rows"]] == call.out.tolist()
    assert got["masks"] == call.masks.tolist() and sum(map(sum, call.out.tolist())) > 0
    assert got["refused"] == ["RangeError: an option lists an item twice",
                              "RangeError: tally item -1 is not an exact-one item",
                              "RangeError: low, high and cell: one entry an item each",
                              "RangeError: an option names an item the cover does not have",
                              "RangeError: the cover: expected an object",
                              "RangeError: options: expected whole numbers"]


# The engine loaded in the page, and a layout made plain data as browser_plan writes it.
ENGINE_AND_PLAINLY = """  const { loadEngine } = await import("./engine.js");
  const engine = await loadEngine("./engine.wasm");
  const plainly = (layout) => Object.fromEntries(Object.entries(layout).map(([name, v]) => {
    if (typeof v !== "object") return [name, v];
    const data = v.data || v;
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    return [name, { shape: v.shape || [data.length],
                    base64: btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join("")) }];
  }));
"""

# The weekday sweep cover laid out in the page with what the one-word kernel reads (its
# cells' coordinates, its items' and options' kinds): its plan, and its tallies by the
# one-word kernel and by the general kernel.
LAY_OUT_ONE_WORD = """async ({cover, tasks}) => {
""" + ENGINE_AND_PLAINLY + """  const tallied = (plan) => {
    const tally = engine.load(plan).tally(tasks);
    return { rows: tally.rows.map((row) => Array.from(row, String)), masks: tally.masks };
  };
  const plan = engine.coverPlan(cover);
  const { grid: _grid, xy: _xy, kinds: _kinds, optionKinds: _o, ...general } = cover;
  const generalPlan = engine.coverPlan(general);
  const refused = [];
  for (const bad of [{ ...cover, xy: cover.xy.slice(1) }, { ...cover, xy: [[0, 0, 0]] },
                     { ...cover, kinds: [1] }, { ...cover, optionKinds: [0] },
                     { ...cover, xy: cover.xy.map(() => [2 ** 40, 0]) }]) {
    try { engine.coverPlan(bad); refused.push("laid out"); }
    catch (e) { refused.push(`${e.name}: ${e.message}`); }
  }
  return { kernels: [plan.tally.kernel, generalPlan.tally.kernel,
                     engine.coverPlan({ ...cover, grid: "hex" }).tally.kernel],
           layout: plainly(plan.tally.layout), tallies: plainly(plan.tally.tallies),
           oneWord: tallied(plan), general: tallied(generalPlan), refused };
}"""


def test_a_weekday_sweep_laid_out_for_the_one_word_kernel_in_the_browser(page):
    """calendar_week's sweep cover, as plain arrays with its cells' coordinates and its
    kinds: the one-word tally plan browser_plan gives natively, array for array, and the
    same tallies as natively and as the general kernel's; without the coordinates or on
    another grid the general plan; bad coordinates and kinds refused in one line."""
    plan = sweep_plan(load_spec(SPECS / "calendar_week.yaml"))
    cover = plan.cover
    session = EngineSession(cover, tally_items=tuple(plan.tally_items))
    plain_cover = _plain_cover(cover, plan.tally_items)
    solution = session.first_solution()
    tasks = [solution[:4], solution[:6]]  # a few seconds a kernel in the browser
    got = page.evaluate(LAY_OUT_ONE_WORD, {"cover": plain_cover, "tasks": tasks})
    want = session.browser_plan()["tally"]
    assert got["kernels"] == [want["kernel"], "tally_prefixes_n_words",
                              "tally_prefixes_n_words"] and want["kernel"] == "tally_one_word"
    for name in ("layout", "tallies"):
        assert set(got[name]) == set(want[name])
        for field, value in want[name].items():
            expected = ({"shape": value["shape"], "base64": value["base64"]}
                        if isinstance(value, dict) else value)
            assert got[name][field] == expected, f"{name}.{field}"
    call = session.searches.tally_call(tasks, None)
    call.kernel(*call.args)
    width = call.out.shape[1]
    for kernel in ("oneWord", "general"):
        assert [[int(x) for x in row[:width]] for row in got[kernel]["rows"]] == (
            call.out.tolist()), kernel
    assert got["oneWord"]["masks"] == call.masks.tolist() and sum(map(sum, call.out.tolist())) > 0
    assert got["refused"] == ["RangeError: xy: two coordinates a cell each",
                              "RangeError: xy: two coordinates a cell each",
                              "RangeError: kinds: one an item",
                              "RangeError: optionKinds: one an option, or none",
                              "RangeError: xy: a coordinate is too large"]


# The core's choice of search asked in the page: every question with every combination of
# offers, and the numbers engine.js passes for them.
CHOICE = """async () => {
  const { loadEngine } = await import("./engine.js");
  const engine = await loadEngine("./engine.wasm");
  const { ask: ASK, offers: OFFERS } = engine;
  const names = Object.keys(OFFERS);
  const chosen = [];
  for (const question of Object.keys(ASK))
    for (let word = 0; word < 2 ** names.length; ++word)
      chosen.push(engine.chooseSearch(question,
        Object.fromEntries(names.map((name, k) => [name, (word >> k & 1) === 1]))));
  let refused = null;
  try { engine.chooseSearch("tally", { wings: true }); } catch (e) { refused = e.message; }
  return { ASK, OFFERS, chosen, refused };
}"""


def test_the_browser_asks_the_cores_choice_of_search(page):
    """engine.js takes the questions and offers from engine.wasm's description of entry.h
    (the numbers the module's is read for too), and the core in engine.wasm chooses as the
    native module does, for every question and offer."""
    got = page.evaluate(CHOICE)
    assert got["ASK"] == {"tally": TALLY, "exists": EXISTS, "solutions": SOLUTIONS}
    assert got["OFFERS"] == dict(OFFER_BITS)
    names = list(got["OFFERS"])
    want = [choose(got["ASK"][question],
                   Offers(**{name: bool(word >> k & 1) for k, name in enumerate(names)}))
            for question in got["ASK"] for word in range(2 ** len(names))]
    assert got["chosen"] == want and "count_one_word" in want and "links_count" in want
    assert got["refused"] == "wings: not something a cover offers"


def _plain_cover(cover, tally=()) -> dict:
    """A cover as the page hands it to engine.coverPlan, with what the one-word layout
    reads (its cells' coordinates, its items' and options' kinds)."""
    cells = list(dict.fromkeys(it.cell for it in cover.items if it.cell is not None))
    at = {cell: k for k, cell in enumerate(cells)}
    neighbours = grid(cover.grid).neighbours
    return {"low": [it.low for it in cover.items], "high": [it.high for it in cover.items],
            "cell": [-1 if it.cell is None else at[it.cell] for it in cover.items],
            "neighbours": [[at.get(nb, -1) for nb in neighbours(c)] for c in cells],
            "options": [list(o) for o in cover.options], "tally": list(tally),
            "grid": cover.grid, "xy": [list(c) for c in cells],
            "kinds": [int(it.kind) for it in cover.items],
            "optionKinds": [int(p.kind) for p in cover.placements]}


PLAIN_COUNT = """async ({cover}) => {
""" + ENGINE_AND_PLAINLY + """  const plan = engine.coverPlan(cover);
  return { kernels: [plan.tally.kernel, plan.exists.kernel, plan.solutions.kernel],
           layout: plainly(plan.tally.layout),
           count: String(engine.load(plan).count([[]])[0]) };
}"""


def test_a_dates_cover_laid_out_in_the_browser_is_counted_as_natively(page):
    """A calendar date's cover (no slack items, nothing tallied) laid out in the page: the
    core chooses the one-word count kernel there as natively, on the same layout, array
    for array; existence takes the N-word search (the page lays out no two words)."""
    cover = packing_instance(Query.of(load_spec(SPECS / "calendar_day.yaml"),
                                      labels=["Oct", "6"])).cover
    session = EngineSession(cover)
    want = session.browser_plan()["tally"]
    got = page.evaluate(PLAIN_COUNT, {"cover": _plain_cover(cover)})
    assert got["kernels"] == [want["kernel"], "exists_n_words", "search_n_words"]
    assert want["kernel"] == "count_one_word" and got["count"] == "7"
    assert set(got["layout"]) == set(want["layout"])
    for field, value in want["layout"].items():
        expected = ({"shape": value["shape"], "base64": value["base64"]}
                    if isinstance(value, dict) else value)
        assert got["layout"][field] == expected, field


# --- play mode's layout made in the browser -------------------------------------------------

PLAY_LAYOUT = """async ({layouts}) => {
  const { loadEngine } = await import("./engine.js");
  const engine = await loadEngine("./engine.wasm");
  const made = layouts.map((input) => engine.playLayout(input));
  const one = { grid: "hex", cells: [[0, 0]], pieces: [{ cells: [[0, 0]] }] };
  const refused = [
    () => engine.playLayout({ ...one, cells: [] }),
    () => engine.playLayout({ ...one, grid: "cube" }),
    () => engine.playLayout({ ...one, grid: "octagon" }),
    () => engine.playLayout({ ...one, cells: [[0, 2 ** 20 + 1]] }),
    () => engine.playLayout({ ...one, cells: [[0, 2 ** 31]] }),
    () => engine.playLayout({ ...one, pieces: [{ cells: [] }] }),
    () => engine.playLayout({ ...one, pieces: [null] }),
    () => engine.playLayout({ ...one, pieces: [{ cells: [[0.5, 0]] }] }),
  ].map((call) => {
    try {
      call();
      return "accepted";
    } catch (e) {
      return e instanceof RangeError ? e.message : String(e);
    }
  });
  return { made, refused, used: engine.size.used };
}"""


def _near(got, want, path="layout"):
    """got equals want, numbers within 0.01 (pixels rounded to hundredths on each side)."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), path
        for key in want:
            _near(got[key], want[key], f"{path}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), path
        for k, (a, b) in enumerate(zip(got, want)):
            _near(a, b, f"{path}[{k}]")
    elif isinstance(want, float):
        assert abs(got - want) <= 0.01 + 1e-9, path
    else:
        assert got == want, path


def test_the_browsers_play_layout_is_the_native_one(page, tmp_path):
    """engine.js's playLayout of a square, a triangle and a hex calendar (pieces free to turn
    over, and a spec kept face up) is the server's api/layout JSON, key for key, pixels
    within 0.01; what does not fit is refused in words."""
    from cpmodels.web.play import board_layout

    specs = [load_spec(SPECS / "calendar_day.yaml"), _spec(tmp_path, TRIANGLE),
             _spec(tmp_path, HEX)]
    specs.append(specs[1].model_copy(update={"flip": False}))
    inputs = []
    for spec in specs:
        laid = board_layout(spec)
        inputs.append({"spec": spec.name, "grid": spec.grid,
                       "cells": [list(c) for c in spec.cells],
                       "labels": {label: list(cell) for label, cell in spec.label_cells.items()},
                       "pieces": [{"name": p["name"], "letter": p["letter"],
                                   "colour": p["colour"], "count": p["count"], "low": p["low"],
                                   "cells": [list(c) for c in piece.cells],
                                   "rotate": spec.rotate if piece.rotate is None else piece.rotate,
                                   "flip": spec.flip if piece.flip is None else piece.flip}
                                  for p, piece in zip(laid["pieces"], spec.pieces)]})
    got = page.evaluate(PLAY_LAYOUT, {"layouts": inputs})
    for spec, made in zip(specs, got["made"]):
        _near(made, board_layout(spec), spec.name)
    assert got["refused"] == [
        "the board has no cells", "play mode draws the plane grids, not cubes",
        "octagon: not a grid (square, triangle, hex or cube)",
        "a cell's coordinate is too large for play mode (more than 2**20 from 0)",
        "the board: a coordinate is not a whole number within 2**30 of 0",
        "a shape has no cells", "pieces: a piece is an object",
        "a piece: a coordinate is not a whole number within 2**30 of 0"]
    assert got["used"] == 0


# Memory taken, written over, given back and taken again, and memory grown: each reads zeros.
ALLOC_ZEROS = """async () => {
  const { loadEngine } = await import("./engine.js");
  const engine = await loadEngine("./engine.wasm");
  const mark = engine.top;
  const bytes = 1 << 20;
  const first = engine.alloc(bytes);
  engine.view(Uint8Array, first, bytes).fill(7);
  engine.release(mark);
  const again = engine.alloc(bytes + 64);
  const reused = engine.view(Uint8Array, again, bytes + 64).every((b) => b === 0);
  const had = engine.size.memory;
  const grown = engine.alloc(had);
  return { same: again === first, reused, grew: engine.size.memory > had,
           fresh: engine.view(Uint8Array, grown, had).every((b) => b === 0) };
}"""


def test_memory_taken_again_or_grown_reads_zeros(page):
    """engine.js clears only the memory it had before (memory grown is zeros, and left
    untouched until a search writes it): memory given back and taken again reads zeros,
    and so does memory grown."""
    got = page.evaluate(ALLOC_ZEROS)
    assert got == {"same": True, "reused": True, "grew": True, "fresh": True}
