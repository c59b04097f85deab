"""The counting engine against the reference figures, CP-SAT and a brute-force counter."""

from __future__ import annotations

import csv
import itertools
import json
import math
import re
import signal
import subprocess
import sys
import threading
import time

import pytest
from checker import SMALL_BOARDS, brute_force_count, check_packing, variants_of
from conftest import ROOT, SPECS, ProcessTree, cpu_after_signal, cpu_seconds

from cpmodels.backends import cpsat, engine
from cpmodels.counting import count_instance
from cpmodels.cover import Item, PieceKind, packing_cover
from cpmodels.errors import OutOfTime
from cpmodels.geometry import Placement, orientations, parse_drawing
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec


@pytest.mark.parametrize(("cells", "pieces"), SMALL_BOARDS)
def test_engine_agrees_with_cpsat_and_brute_force(cells, pieces):
    shapes = {name: variants_of(rows) for name, rows in pieces.items()}
    kinds = [PieceKind(name, tuple(s), 1) for name, s in shapes.items()]
    cover = packing_cover(cells, kinds)
    expected = brute_force_count(cells, shapes)
    counted = engine.count(cover)
    streamed = list(engine.iter_solutions(cover, batch=3))
    by_cpsat = {tuple(sorted(s)) for s in cpsat.iter_solutions(cover)}
    assert counted == len(streamed) == len(by_cpsat) == expected
    assert {tuple(sorted(s)) for s in streamed} == by_cpsat
    assert all(cover.is_solution(s) for s in streamed)
    assert (engine.solve(cover).status == "solved") == (expected > 0)


def test_multiplicities_and_secondary_items():
    # Two copies of the L tetromino fill a 2x4 box in 2 ways (not 2 x 2!).
    l4 = tuple(orientations(parse_drawing(["###", "#.."])))
    cover = packing_cover({(r, c) for r in range(2) for c in range(4)},
                          [PieceKind("L", l4, 2)])
    assert engine.count(cover) == 2 == len(list(engine.iter_solutions(cover)))
    assert len(list(cpsat.iter_solutions(cover))) == 2
    # A secondary item shared by two options forbids choosing both.
    cover.items.append(Item("x", 0, 1))
    for j in range(len(cover.options)):
        if cover.placements[j].cells[0] == (0, 0):
            cover.options[j] = (*cover.options[j], len(cover.items) - 1)
    assert engine.count(cover) == len(list(cpsat.iter_solutions(cover)))


def test_boards_wider_than_64_cells():
    # 3x30 and 10x12 boards need several words of bits.
    bar = tuple(orientations(parse_drawing(["###"])))
    cover = packing_cover({(r, c) for r in range(3) for c in range(30)},
                          [PieceKind("I3", bar, 30)])
    n = engine.count(cover)
    assert n == len(list(cpsat.iter_solutions(cover)))
    domino = tuple(orientations(parse_drawing(["##"])))
    cover = packing_cover({(r, c) for r in range(10) for c in range(12)},
                          [PieceKind("D", domino, 60)])
    # Domino tilings of a 10x12 board, by Kasteleyn's product formula.
    kasteleyn = 1.0
    for j in range(1, 6):
        for k in range(1, 7):
            kasteleyn *= 4 * math.cos(math.pi * j / 11) ** 2 + 4 * math.cos(math.pi * k / 13) ** 2
    assert engine.count(cover) == round(kasteleyn) == 65743732590821


@pytest.mark.parametrize(("spec", "labels", "expected"), [
    ("calendar_week.yaml", ["Apr", "6", "Mon"], 97),
    ("calendar_week.yaml", ["Jun", "7", "Tue"], 10374),
    ("calendar_day.yaml", ["Oct", "6"], 7),
    ("calendar_day.yaml", ["Jan", "25"], 216),
    ("calendar_day.yaml", ["Jan", "3"], 47),
    ("calendar_week_11.yaml", ["Jan", "1", "Mon"], 119836),
])
def test_reference_counts(run_cli, spec, labels, expected):
    code, out, _ = run_cli("count", SPECS / spec, "--labels", *labels, "--format", "json")
    payload = json.loads(out)
    assert code == 0
    assert payload["count"] == expected
    assert payload["labels"] == labels and payload["backend"] == "engine"
    assert payload["distinct"] is False


@pytest.mark.parametrize(("target", "distinct", "raw"), [
    ("6x10", 2339, 9356), ("5x12", 1010, 4040), ("4x15", 368, 1472), ("3x20", 2, 8),
])
def test_pentomino_rectangles(target, distinct, raw):
    instance = packing_instance(Query.of(load_spec(SPECS / "pentominoes_6x10.yaml"), target=target))
    assert count_instance(instance, distinct=True).count == distinct
    if raw < 5000:
        assert count_instance(instance).count == raw


def test_scott_centre_hole_distinct_and_raw(run_cli):
    code, out, _ = run_cli("count", SPECS / "pentominoes_8x8_centre.yaml", "--distinct",
                           "--format", "json")
    payload = json.loads(out)
    assert code == 0 and payload["count"] == 65 and payload["symmetries"] == 8
    code, out, _ = run_cli("count", SPECS / "pentominoes_8x8_centre.yaml")
    assert "520 solutions" in out


def test_distinct_without_an_asymmetric_piece_uses_canonical_forms():
    # Only symmetric pieces (I and O tetrominoes) in a 4x4 box: canonical_solution-form counting.
    spec_pieces = [PieceKind("I", tuple(orientations(parse_drawing(["####"]))), 2),
                   PieceKind("O", tuple(orientations(parse_drawing(["##", "##"]))), 2)]
    from cpmodels.symmetry import canonical_solution, held_piece, problem_symmetries

    cells = frozenset((r, c) for r in range(4) for c in range(4))
    cover = packing_cover(cells, spec_pieces)
    syms = problem_symmetries(cover, cells)
    assert len(syms) == 8 and held_piece(cover, syms) is None
    raw = [cover.decode(s) for s in engine.iter_solutions(cover)]
    assert len(raw) == len(list(cpsat.iter_solutions(cover)))
    classes = {canonical_solution(s, syms) for s in raw}
    # Two I's side by side with the two O's in the other half (1 class), or the I's
    # apart with the O's stacked between them (1 class).
    assert len(classes) == 2


@pytest.mark.parametrize("name", ["pentominoes_6x10", "pentominoes_8x8_centre", "soma",
                                  "hexiamonds_rhombus", "polyhexes", "sixpack"])
def test_symmetries_map_each_placement_as_its_image_says(name):
    """The symmetries and option permutations (found for all placements at once, by their
    cell sets, by the engine core) agree with each placement's image taken one by one and
    with Python's as they were found before (``symmetry_oracle.py``): every symmetry found maps each
    placement onto a placement, and a board map that is left out does not."""
    import symmetry_oracle

    from cpmodels.geometry import board_symmetries
    from cpmodels.grids import grid
    from cpmodels.symmetry import Symmetry, option_permutations, problem_symmetries

    instance = packing_instance(Query.of(load_spec(SPECS / f"{name}.yaml")))
    cover = instance.cover
    symmetries = problem_symmetries(cover, instance.cells)
    assert symmetries == symmetry_oracle.problem_symmetries(cover, instance.cells)
    index = {p: j for j, p in enumerate(cover.placements)}
    expected = [[index[sym.image(p)] for p in cover.placements] for sym in symmetries]
    assert option_permutations(cover, symmetries) == expected
    assert symmetry_oracle.option_permutations(cover, symmetries) == expected
    found = [sym.cells for sym in symmetries]
    for cell_map in board_symmetries(instance.cells, None, grid(cover.grid)):
        if cell_map in found:
            continue
        # left out: with each piece kept, some placement's image is no placement
        assert any(Symmetry(cell_map).image(p) not in index for p in cover.placements)


def test_face_up_pieces_break_reflection_symmetry():
    from cpmodels.symmetry import problem_symmetries

    spec = load_spec(SPECS / "pentominoes_8x8_square.yaml")
    up = packing_instance(Query.of(spec, face_up=True))
    assert len(problem_symmetries(up.cover, up.cells)) == 4
    free = packing_instance(Query.of(spec))
    assert len(problem_symmetries(free.cover, free.cells)) == 8


def test_enumerate_writes_checked_solutions(run_cli, tmp_path):
    out = tmp_path / "sols.jsonl"
    code, text, _ = run_cli("enumerate", SPECS / "calendar_day.yaml", "--labels", "Oct", "6",
                            "--out", out)
    assert code == 0 and "7 solutions" in text
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + 7 and json.loads(lines[0])["cpmodels"] == "enumerate solutions"
    seen = set()
    for line in lines[1:]:
        payload = json.loads(line)
        check_packing(SPECS / "calendar_day.yaml", payload)
        seen.add(json.dumps(payload["placements"]))
    assert len(seen) == 7
    code, text, _ = run_cli("enumerate", SPECS / "pentominoes_6x10.yaml", "--out", out,
                            "--limit", "3")
    assert code == 0 and len(out.read_text().splitlines()) == 1 + 3


def _sweep_rows(path):
    """A sweep file's column line and rows, after its question line."""
    with path.open() as handle:
        assert handle.readline().startswith("# cpmodels sweep rows, question ")
        return list(csv.reader(handle))


def test_calendar_day_sweep_figures(run_cli, tmp_path):
    out = tmp_path / "day.csv"
    code, text, _ = run_cli("sweep", SPECS / "calendar_day.yaml", "--out", out, "--format",
                            "json")
    summary = json.loads(text)
    assert code == 0
    assert summary["combinations"] == 372
    assert summary["total"] == 25061 and summary["real_total"] == 24405
    assert summary["fewest"] == {"labels": ["Oct", "6"], "count": 7}
    assert summary["most"] == {"labels": ["Jan", "25"], "count": 216}
    assert summary["unsolvable"] == []
    rows = _sweep_rows(out)
    assert rows[0] == ["month", "day", "real_date", "count"]
    assert rows[1:5] == [["Jan", "1", "true", "64"], ["Jan", "2", "true", "109"],
                         ["Jan", "3", "true", "47"], ["Jan", "4", "true", "103"]]
    assert _sweep_rows(out)[1 + 31 + 29][:3] == ["Feb", "30", "false"]
    # One worker gives the same rows in the same order.
    serial = tmp_path / "serial.csv"
    run_cli("sweep", SPECS / "calendar_day.yaml", "--out", serial, "--jobs", "1")
    assert serial.read_text() == out.read_text()


def test_sweep_resume_after_interrupt(tmp_path):
    out = tmp_path / "day.csv"
    cmd = [sys.executable, "-m", "cpmodels", "sweep", str(SPECS / "calendar_day.yaml"),
           "--out", str(out), "--jobs", "1"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline:
        if out.exists() and len(out.read_text().splitlines()) > 41:
            break
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    kept = _sweep_rows(out)
    assert 1 < len(kept) < 373, "the run was not interrupted part way"
    # A half-written last line (as a kill can leave) is ignored and counted again.
    with out.open("a") as handle:
        handle.write("Dec,3")
    done = subprocess.run([*cmd, "--resume", "--format", "json"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    summary = json.loads(done.stdout)
    assert summary["combinations"] == 372 and summary["total"] == 25061
    rows = _sweep_rows(out)
    labels = [tuple(r[:2]) for r in rows[1:] if len(r) == 4]
    assert len(labels) == len(set(labels)) == 372


def test_sweep_refuses_other_kinds(run_cli, tmp_path):
    code, _, err = run_cli("sweep", SPECS / "sixpack.yaml", "--out", tmp_path / "x.csv")
    assert code == 2 and "calendar spec" in err


def test_tallied_counts_match_brute_force_per_combination():
    # A 3x5 box, two 5-cell pieces, and two holes: one in the left half, one in the right.
    # One tallied search must give every hole combination's count.
    board = {(r, c) for r in range(3) for c in range(5)}
    shapes = {"L": variants_of("####/#..."), "P": variants_of("##/##/#.")}
    cover = packing_cover(board, [PieceKind(n, tuple(s), 1) for n, s in shapes.items()])
    halves = {"left": sorted(rc for rc in board if rc[1] < 2),
              "right": sorted(rc for rc in board if rc[1] >= 2)}
    # The five holes: left, right, and three more anywhere (an item covered 3 times).
    cell_item = {it.cell: i for i, it in enumerate(cover.items) if it.cell is not None}
    tally_items = []
    for name, cells in [*halves.items(), ("any", sorted(board))]:
        item = len(cover.items)
        cover.items.append(Item(name, 3, 3) if name == "any" else Item(name))
        if name != "any":
            tally_items.append(item)
        for rc in cells:
            cover.options.append((cell_item[rc], item))
            cover.placements.append(Placement(name, (rc,)))
    both = engine.EngineSession(cover, tally_items=tally_items)
    tallied = both.tally()
    right_only = engine.EngineSession(cover, tally_items=tally_items[1:])
    left_options = [o for o, option in enumerate(cover.options) if tally_items[0] in option]
    left_first = right_only.tally_many([[o] for o in left_options])
    assert sum(tallied.values()) == engine.count(cover) > 0
    for (a, b), n in tallied.items():
        assert left_first[left_options.index(a)][(b,)] == n
    right_options = [o for o, option in enumerate(cover.options) if tally_items[1] in option]
    for a in left_options:
        for b in right_options:
            holes = {cover.placements[a].cells[0], cover.placements[b].cells[0]}
            expected = sum(brute_force_count(board - holes - set(extra), shapes)
                           for extra in itertools.combinations(sorted(board - holes), 3))
            assert tallied.get((a, b), 0) == expected



def test_ctrl_c_stops_a_long_count_at_once(tmp_path):
    """Ctrl-C ends the command with status 130 and one line, having done next to no work
    after it: processor time, not wall time, so a busy machine's slow exit is no failure
    while a search that went on counting (one that held the interpreter, or ran on until
    the program's backstop) is."""
    cmd = [sys.executable, "-m", "cpmodels", "count"]
    # Warm the compiled engine first, so the signal does not land during compilation; what
    # that whole run took tells when the long count below is past its start.
    before = cpu_seconds()
    subprocess.run([*cmd, str(SPECS / "solid_pentominoes.yaml"), "--target", "box_2x3x10"],
                   cwd=ROOT, check=True, capture_output=True)
    started = cpu_seconds() - before + 1.0
    # The 3x4x5 box of solid pentominoes, each piece used 0 or 1 times: no piece to hold,
    # no piece to branch on, minutes of counting on two cores.
    text = (SPECS / "solid_pentominoes.yaml").read_text()
    optional = re.sub(r"^(  - \{name: \w, layers: .*)\}$", r"\1, count: [0, 1]}", text,
                      flags=re.M)
    assert optional.count("count: [0, 1]") == 12
    (tmp_path / "optional.yaml").write_text(optional)
    proc = subprocess.Popen([*cmd, str(tmp_path / "optional.yaml"), "--target",
                             "box_3x4x5"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    tree = ProcessTree(proc.pid)
    deadline = time.monotonic() + 120  # a hang guard: the wait is for processor time
    while proc.poll() is None and time.monotonic() < deadline and tree.sample() < started:
        time.sleep(0.02)
    assert proc.poll() is None, "the count finished before it could be interrupted"
    assert tree.sample() >= started, "the count did not start in 120 s"
    after, _, err = cpu_after_signal(proc, signal.SIGINT, most=0.5)
    assert proc.returncode == 130 and err.strip() == "interrupted", err
    assert after < 0.5, f"{after:.2f} processor seconds after Ctrl-C"


def test_a_stopped_count_ends_within_a_moment_of_work():
    """The engine looks at its stop flag every few thousand nodes: a count stopped from
    another thread returns having used next to no processor time since (this process's,
    every thread's), however long a busy machine makes it take."""
    session = engine.EngineSession(packing_instance(Query.of(
        load_spec(SPECS / "pentominoes_8x8_square.yaml"))).cover)
    outcome: list = []

    def count() -> None:
        try:
            outcome.append(session.count())
        except OutOfTime as exc:
            outcome.append(exc)

    worker = threading.Thread(target=count)
    start = time.process_time()
    worker.start()
    deadline = time.monotonic() + 120  # a hang guard: the wait is for processor time
    while worker.is_alive() and time.process_time() - start < 1.0:
        assert time.monotonic() < deadline, "the count did not start in 120 s"
        time.sleep(0.01)
    assert worker.is_alive(), "the count finished before it could be stopped"
    stopped = time.process_time()
    session.stop()
    while worker.is_alive():
        used = time.process_time() - stopped
        assert used < 0.3, f"still counting {used:.2f} processor seconds after the stop"
        worker.join(0.01)
    assert isinstance(outcome[0], OutOfTime)


@pytest.mark.parametrize("target", ["4x15", "3x20"])
def test_a_raw_count_on_a_symmetric_board_is_the_sum_over_the_orbits(target):
    """The engine places the held piece first, one placement per orbit, and weighs each
    count by its orbit's size: the same raw count as counting the whole cover, and as
    CP-SAT's enumeration on the smallest board."""
    from cpmodels.backends import count_cover
    from cpmodels.symmetry import held_piece, problem_symmetries

    instance = packing_instance(Query.of(load_spec(SPECS / "pentominoes_6x10.yaml"),
                                         target=target))
    syms = problem_symmetries(instance.cover, instance.cells)
    held = held_piece(instance.cover, syms)
    assert held is not None and held.piece == "X" and len(syms) == 4
    whole = count_cover("engine", instance.cover)
    by_orbit = sum(orbit.size * count_cover("engine", instance.cover, forced=task)
                   for orbit, task in zip(held.orbits, held.tasks))
    assert count_instance(instance).count == whole == by_orbit
    if target == "3x20":
        assert whole == sum(1 for _ in cpsat.iter_solutions(instance.cover)) == 8


def test_no_piece_to_hold_with_only_symmetric_pieces_in_copies():
    """Only pieces with copies: nothing to place first, the raw count is the whole cover's."""
    from cpmodels.symmetry import held_piece, problem_symmetries

    pieces = [PieceKind("I", tuple(orientations(parse_drawing(["####"]))), 2),
              PieceKind("O", tuple(orientations(parse_drawing(["##", "##"]))), 2)]
    cells = frozenset((r, c) for r in range(4) for c in range(4))
    cover = packing_cover(cells, pieces)
    assert held_piece(cover, problem_symmetries(cover, cells)) is None
    from types import SimpleNamespace

    from cpmodels.instance import PackingInstance

    square = PackingInstance(SimpleNamespace(spec=None), (), cells, cover)  # type: ignore[arg-type]
    assert count_instance(square).count == engine.count(cover)


# Pieces that sit on a board's axes and diagonals (fixed by a symmetry) and pieces that
# never are, for random symmetric boards.
POOL = {
    "X": [".#.", "###", ".#."], "T4": ["###", ".#."], "I3": ["###"], "O": ["##", "##"],
    "L4": ["###", "#.."], "V3": ["#.", "##"], "I2": ["##"], "P": ["##", "##", "#."],
    "Z4": ["##.", ".##"], "U": ["#.#", "###"], "T5": ["###", ".#.", ".#."], "I1": ["#"],
}


def _symmetric_boards():
    """Boards with 2, 4 or 8 symmetries, some with a hole at the centre."""
    def box(rows, cols, hole=()):
        return frozenset((r, c) for r in range(rows) for c in range(cols)) - set(hole)
    return [box(4, 4), box(5, 5, [(2, 2)]), box(3, 5), box(4, 6), box(6, 6, [(2, 2), (2, 3),
            (3, 2), (3, 3)]), box(5, 5), box(3, 7, [(1, 3)]), box(4, 5),
            frozenset({(r, c) for r in range(5) for c in range(5) if abs(r - 2) + abs(c - 2) <= 3})]


def _random_cases(n: int, seed: int = 41):
    """``n`` (board, pieces) pairs: pieces of the pool, one of them at times in two copies,
    whose areas add up to the board's."""
    import random

    rng = random.Random(seed)
    areas = {name: sum(row.count("#") for row in rows) for name, rows in POOL.items()}
    boards = _symmetric_boards()
    cases = []
    while len(cases) < n:
        cells = rng.choice(boards)
        names = rng.sample(sorted(POOL), rng.randint(3, 6))
        copies = {name: 1 for name in names}
        if rng.random() < 0.3:
            copies[names[0]] = 2
        total = sum(areas[name] * k for name, k in copies.items())
        if total > len(cells) or len(cells) - total > (3 if len(cases) % 2 else 0):
            continue  # every other case without monominoes (no piece in copies)
        copies["I1"] = copies.get("I1", 0) + len(cells) - total  # monominoes make up the rest
        if copies["I1"] == 0:
            del copies["I1"]
        kinds = [PieceKind(name, tuple(orientations(parse_drawing(POOL[name]))), k)
                 for name, k in copies.items()]
        cover = packing_cover(cells, kinds)
        if 0 < engine.count(cover) < 4000:
            cases.append((cells, cover))
    return cases


def test_held_piece_counts_equal_whole_counts_on_random_symmetric_boards():
    """Raw counts summed over the held piece's orbits, and classes counted with the
    representatives some symmetries fix (Burnside over their stabilisers, or canonical
    forms when a piece has copies), against the whole cover's count, CP-SAT's enumeration
    and canonical forms of every solution."""
    from types import SimpleNamespace

    from cpmodels.instance import PackingInstance
    from cpmodels.symmetry import count_classes, held_piece, option_permutations, problem_symmetries

    fixed_seen = {False: 0, True: 0}  # by whether some piece has copies
    for cells, cover in _random_cases(14):
        instance = PackingInstance(SimpleNamespace(spec=None), (), cells, cover)  # type: ignore[arg-type]
        syms = problem_symmetries(cover, cells)
        held = held_piece(cover, syms)
        if held is not None and any(orbit.fixers for orbit in held.orbits):
            fixed_seen[any(item.high > 1 for item in cover.items)] += 1
        every = list(engine.iter_solutions(cover))
        classes = count_classes(every, option_permutations(cover, syms))
        assert count_instance(instance).count == len(every) == engine.count(cover)
        assert count_instance(instance, distinct=True).count == classes
        if len(every) < 300:
            assert len(every) == sum(1 for _ in cpsat.iter_solutions(cover))
            assert count_instance(instance, distinct=True, backend="sat").count == classes
    # Representatives on an axis or a diagonal were exercised, both ways.
    assert fixed_seen[False] >= 2 and fixed_seen[True] >= 2


def test_the_most_constrained_piece_is_held_with_fixed_placements():
    """8x8 with the centre hole: X, whose placements on the diagonals a reflection fixes,
    in 4 orbits (2 of them fixed); 65 classes and 520 raw."""
    from cpmodels.symmetry import held_piece, problem_symmetries

    instance = packing_instance(Query.of(load_spec(SPECS / "pentominoes_8x8_centre.yaml")))
    held = held_piece(instance.cover, problem_symmetries(instance.cover, instance.cells))
    assert held is not None and held.piece == "X"
    assert sorted(len(orbit.fixers) for orbit in held.orbits) == [0, 0, 1, 1]
    assert sum(orbit.size for orbit in held.orbits) == sum(
        1 for p in instance.cover.placements if p.piece == "X")
    assert count_instance(instance, distinct=True).count == 65
    assert count_instance(instance).count == 520


@pytest.mark.parametrize(("name", "distinct", "expected"), [
    ("pentominoes_6x10", True, 2339), ("pentominoes_8x8_centre", True, 65),
    ("pentominoes_8x8_centre", False, 520)])
def test_a_count_that_fits_one_core_starts_no_workers(monkeypatch, name, distinct, expected):
    from cpmodels.backends.engine.placement import scheduling

    def no_workers(*args, **kwargs):
        raise AssertionError("a small count started worker processes")

    monkeypatch.setattr(scheduling, "run_units", no_workers)
    instance = packing_instance(Query.of(load_spec(SPECS / f"{name}.yaml")))
    assert count_instance(instance, distinct=distinct).count == expected


@pytest.mark.parametrize("name", ["calendar_day.yaml", "calendar_week.yaml"])
def test_the_tally_plan_reaches_every_combination_once_in_sweep_order(name):
    from cpmodels.geometry import OptionKind
    from cpmodels.sweep import TallyPlan

    spec = load_spec(SPECS / name)
    plan = TallyPlan.of(spec)
    reached = [labels for task in plan.tasks() for labels, count in plan.rows(task, {})]
    assert reached == spec.label_combinations()
    assert len(plan.tally_items) == len(spec.groups) - plan.n_fixed >= 1
    labels = reached[len(reached) // 2]
    for option, label in zip(plan.holes(labels), labels):
        placement = plan.cover.placements[option]
        assert placement.kind is OptionKind.SLACK
        assert placement.cells == (spec.label_cells[label],)


def _day_first():
    """calendar_day with its groups the other way round (day, then month)."""
    import yaml

    from cpmodels.spec import parse_spec

    data = yaml.safe_load((SPECS / "calendar_day.yaml").read_text())
    data["groups"] = {"day": data["groups"]["day"], "month": data["groups"]["month"]}
    return parse_spec(yaml.safe_dump(data, sort_keys=False), "day_first")


@pytest.mark.parametrize("name, fixed", [("calendar_day.yaml", "month"),
                                         ("calendar_week.yaml", "month"),
                                         ("calendar_week_11.yaml", "weekday")])
def test_a_sweep_fixes_the_group_whose_cells_the_search_passes_first(name, fixed):
    """calendar_week's months fill its top rows; calendar_week_11 is scanned column by
    column and its weekdays fill the first four columns (its months the last four)."""
    from cpmodels.sweep import MAX_TALLY, scan_fixed_groups

    spec = load_spec(SPECS / name)
    assert scan_fixed_groups(spec) == (fixed,)
    assert len(spec.label_combinations()) // len(spec.groups[fixed]) <= MAX_TALLY


def test_a_plan_that_fixes_a_later_group_counts_every_combination_the_same():
    """Fixing the days of calendar_day (tallying the months) gives every combination the
    count of the plan that fixes the months; rows come task by task, each once."""
    from cpmodels.sweep import TallyPlan

    spec = load_spec(SPECS / "calendar_day.yaml")
    by_month = TallyPlan.of(spec)
    by_day = TallyPlan.of(spec, fixed=["day"])
    assert (by_month.fixed_groups, by_day.fixed_groups) == (["month"], ["day"])
    assert by_month.in_sweep_order and not by_day.in_sweep_order
    assert by_day.preview_tasks() == [("1", "Jan")]  # a task's first combination
    expected = {labels: n for task in by_month.tasks() for labels, n in by_month.rows(
        task, by_month.session().tally(by_month.task_holes(task)))}
    session = by_day.session()
    got = [row for task in by_day.tasks()
           for row in by_day.rows(task, session.tally(by_day.task_holes(task)))]
    assert len(got) == len(expected) == 372
    assert dict(got) == expected and sum(expected.values()) == 25_061
    assert [labels[1] for labels, _ in got[:12]] == ["1"] * 12  # a task: one day
    with pytest.raises(ValueError):
        TallyPlan.of(spec, fixed=["weekday"])


def test_a_sweep_whose_tasks_fix_a_later_group_writes_its_rows_in_sweep_order(tmp_path):
    """With the day group first, the sweep still fixes the months (their cells come first):
    each task's rows are spread over the file, which ends in sweep order, with the counts
    of the usual sweep; a run resumed from rows kept in task order ends the same."""
    from cpmodels.sweep import run_sweep, scan_fixed_groups

    spec = _day_first()
    assert list(spec.groups) == ["day", "month"]
    assert scan_fixed_groups(spec) == ("month",)
    usual = run_sweep(load_spec(SPECS / "calendar_day.yaml"), None, jobs=1)
    out = tmp_path / "day_first.csv"
    summary = run_sweep(spec, out, jobs=1)
    question, *lines = out.read_text().splitlines()
    assert lines[0] == "day,month,real_date,count"
    assert [tuple(line.split(",")[:2]) for line in lines[1:]] == spec.label_combinations()
    assert {(d, m): row.count for (d, m), row in summary.rows.items()} == {
        (d, m): row.count for (m, d), row in usual.rows.items()}
    assert summary.total == 25_061
    # Keep the rows of two tasks (months), in the order a run of those tasks wrote them.
    tasks = ["Jan", "Feb"]
    kept = [line for line in lines[1:] if line.split(",")[1] in tasks]
    kept.sort(key=lambda line: tasks.index(line.split(",")[1]))
    out.write_text("\n".join([question, lines[0], *kept]) + "\n")
    again = run_sweep(spec, out, jobs=1, resume=True)
    assert out.read_text().splitlines() == [question, *lines] and again.total == 25_061


def test_a_stream_previews_the_first_task_and_sends_each_row_once():
    """The editor's counts stream: the first session starts with a preview (the first task
    with every other group's first label fixed: one combination, its row at once), whose
    row its task brings again; each combination is sent once, with the sweep's count."""
    from cpmodels.sweep import TallyPlan
    from cpmodels.web.board import BoardCounts

    spec = load_spec(SPECS / "calendar_day.yaml")
    plan = TallyPlan.of(spec)
    assert plan.preview_tasks() == [plan.tasks()[0] + (spec.groups[plan.free_groups[0]][0],)]
    preview_rows = plan.rows(plan.preview_tasks()[0], plan.session().tally(
        plan.task_holes(plan.preview_tasks()[0])))
    first_rows = dict(plan.rows(plan.tasks()[0], plan.session().tally(
        plan.holes(plan.tasks()[0]))))
    assert preview_rows and all(first_rows[labels] == n for labels, n in preview_rows)
    rows = list(BoardCounts(spec, threads=2).rows())
    summary, rows = rows[-1], rows[:-1]
    assert sorted(tuple(r["labels"]) for r in rows) == sorted(spec.label_combinations())
    assert summary["combinations"] == len(rows) == 372
    assert sum(r["count"] for r in rows) == 25_061  # the sweep's total (README)


@pytest.mark.parametrize("backend", ["engine", "cpsat", "sat"])
@pytest.mark.parametrize("grid", ["square", "triangle", "hex"])
def test_a_date_that_leaves_nothing_to_cover_has_one_solution(tmp_path, backend, grid):
    """Labels that uncover the whole board leave one solution (no piece placed), counted
    plainly and up to symmetry, on every grid and backend: the empty board's symmetries
    are every symmetry, not an error."""
    from cpmodels import api

    spec = tmp_path / "empty.yaml"
    spec.write_text(f"kind: calendar\nname: empty\ngrid: {grid}\nboard:\n  - \"A B\"\n"
                    "groups:\n  g: [A]\n  h: [B]\n"
                    "pieces:\n  - {name: M, cells: [[0, 0]], count: [0, 1]}\n")
    for distinct in (False, True):
        result = api.count(str(spec), labels=["A", "B"], distinct=distinct, backend=backend)
        assert result.count == 1
