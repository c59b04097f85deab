"""Hostile specs, huge inputs, time limits, Ctrl-C and parallel runs: clean errors, nothing lost."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from checker import brute_force_count, check_packing, variants_of
from conftest import ROOT, SPECS, cpu_after_signal, cpu_seconds
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cpmodels import sweep
from cpmodels.backends import BACKENDS, engine, iter_cover_solutions, solve_cover
from cpmodels.cover import packing_cover
from cpmodels.errors import CpmodelsError, SpecError, TooLargeError
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.render import packing_payload
from cpmodels.spec import load_spec, parse_spec

BAD_SPECS = sorted((Path(__file__).parent / "bad_specs").glob("*.yaml"))


def _expected(path: Path) -> str:
    first = path.read_bytes().split(b"\n", 1)[0].decode()
    assert first.startswith("# expect: "), f"{path.name} has no '# expect:' line"
    return first.removeprefix("# expect: ")


def test_the_corpus_is_large():
    assert len(BAD_SPECS) >= 30


@pytest.mark.parametrize("path", BAD_SPECS, ids=[p.stem for p in BAD_SPECS])
def test_bad_spec_corpus(run_cli, path):
    code, out, err = run_cli("validate", path)
    assert code == 2 and out == ""
    first = err.splitlines()[0]
    assert first.startswith(f"error: {path}"), first
    assert _expected(path) in first, first
    assert "Traceback" not in err
    # Every command that reads the spec says the same (solve and count read a bundled
    # spec as its record, and a user's spec validated in full).
    for command in ("solve", "count"):
        code, _, err = run_cli(command, path)
        assert code == 2 and err.splitlines()[0] == first, command


def test_unicode_names_are_welcome(run_cli, tmp_path):
    path = tmp_path / "日历.yaml"
    path.write_text('kind: packing\nname: 小盒子\nboard: ["...", "..."]\npieces:\n'
                    "  - {name: 甲, shape: '##/#.'}\n  - {name: 乙, shape: '#./##'}\n",
                    encoding="utf-8")
    code, out, _ = run_cli("solve", path, "--format", "json")
    assert code == 0 and json.loads(out)["spec"] == "小盒子"


# --- resource limits -----------------------------------------------------------------

def test_too_many_placements_are_refused_up_front(run_cli, tmp_path):
    rows = ["." * 200] * 200
    pieces = {"X": ".#./###/.#.", "U": "#.#/###", "V": "#../#../###", "L": "#.../####",
              "P": "##/##/#.", "F": ".##/##./.#.", "T": "###/.#./.#.", "I": "#####"}
    text = "kind: packing\nname: huge\nboard:\n" + "".join(f'  - "{r}"\n' for r in rows)
    text += "pieces:\n" + "".join(f'  - {{name: {n}, shape: "{s}", count: 1000}}\n'
                                  for n, s in pieces.items())
    path = tmp_path / "huge.yaml"
    path.write_text(text)
    start = cpu_seconds()
    code, _, err = run_cli("solve", path)
    assert code == 2 and cpu_seconds() - start < 10
    assert "up to 1,560,000 placements (39 piece orientations x 40,000 cells)" in err
    assert "the limit is 500,000" in err


def test_engine_refuses_a_cover_beyond_its_memory(monkeypatch):
    # On the triangle grid: square boards of up to 64 cells count on the one-word kernel,
    # which lays out no bitsets.
    instance = packing_instance(Query.of(load_spec(SPECS / "hexiamonds_rhombus.yaml")))
    monkeypatch.setattr(engine.layouts.cover, "MAX_MASK_BYTES", 1000)
    with pytest.raises(TooLargeError, match=r"1,845 options x 84 items .* Try --backend"):
        engine.EngineSession(instance.cover).count()


def test_wide_boards_get_a_smaller_memo():
    memo = engine.kernels.memo.Memo(n_words=4096)
    assert memo.keys.nbytes <= engine.kernels.memo.MAX_MEMO_KEY_BYTES


# --- time limits ---------------------------------------------------------------------

def _placements(path: Path) -> list:
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["cpmodels"] == "enumerate solutions"
    return [json.loads(line)["placements"] for line in lines[1:]]


@pytest.mark.parametrize("backend", ["engine", "sat"])
def test_enumerate_time_limit_keeps_lines_and_resumes_in_order(run_cli, tmp_path, backend):
    out = tmp_path / "box.jsonl"
    spec = SPECS / "pentominoes_8x8_square.yaml"
    # A limit long enough for some lines (set-up takes longer on a busy machine: the limit
    # doubles until a run keeps some), far too short for all of them.
    for limit in (1.5, 3, 6, 12):
        code, _, err = run_cli("enumerate", spec, "--out", out, "--time-limit", str(limit),
                               "--backend", backend)
        assert code == 3 and f"stopped by the time limit ({limit:g} s)" in err
        first = _placements(out) if out.exists() else []
        if first:
            break
    assert first, f"nothing was written in {limit} s"
    assert "--resume" in err
    with out.open("a") as handle:
        handle.write('{"spec": "cut sho')  # a line a killed run could leave
    code, text, _ = run_cli("enumerate", spec, "--out", out, "--resume", "--backend", backend,
                            "--limit", str(len(first) + 5))
    assert code == 0 and f"{len(first) + 5} solutions written" in text
    again = tmp_path / "again.jsonl"
    run_cli("enumerate", spec, "--out", again, "--limit", str(len(first) + 5),
            "--backend", backend)
    assert _placements(out) == _placements(again)


def test_sweep_time_limit_then_resume_gives_the_full_totals(run_cli, tmp_path):
    out = tmp_path / "week.csv"
    spec = SPECS / "calendar_week.yaml"
    # The sweep with the pieces turned over takes seconds of search on one core, however
    # quiet the machine: the limit stops it part way.
    code, _, err = run_cli("sweep", spec, "--out", out, "--time-limit", "1", "--jobs", "1")
    assert code == 3 and "--resume" in err
    code, text, _ = run_cli("sweep", spec, "--out", out, "--resume", "--format", "json")
    summary = json.loads(text)
    assert code == 0 and summary["combinations"] == 2604 and summary["total"] == 4_937_780


@pytest.mark.parametrize("argv", [
    ["prove", SPECS / "pentominoes_8x8_square.yaml"],
    ["solve", SPECS / "pentominoes_8x8_square.yaml", "--backend", "sat"],
    ["count", SPECS / "pentominoes_8x8_square.yaml"],
])
def test_every_command_honours_its_time_limit(run_cli, argv):
    """The command stops at its limit, by itself or, where a step it cannot interrupt
    outlasts the limit on a busy machine, by the program's backstop (the limit and five
    seconds more, as the step ends): status 3 and the one line that says so. The modules a
    command loads are loaded first: the limit counts the command's work, not the first
    import of its solvers."""
    import cpmodels.proving  # noqa: F401  (the solvers each command loads)
    from cpmodels.backends import cpsat, engine  # noqa: F401

    start = time.perf_counter()
    code, out, err = run_cli(*argv, "--time-limit", "0.3")
    took = time.perf_counter() - start
    said = f"status {code} after {took:.2f} s; stdout {out[-300:]!r}; stderr {err[-300:]!r}"
    assert code == 3, said
    assert ("stopped at the time limit" in out + err
            or "stopped by the time limit (0.3 s) without an answer" in err), said
    assert took < 60, f"the command did not stop: {said}"


# --- Ctrl-C --------------------------------------------------------------------------

def _interrupt_when(cmd: list[str], ready, out: Path) -> tuple[subprocess.CompletedProcess,
                                                                  float]:
    """Run ``cmd``, Ctrl-C it once ``ready(out)``, and return what it did with the processor
    seconds it (and its worker processes) used after the Ctrl-C: work, which a busy machine
    does not stretch as it stretches wall time. Over a second of it fails at once."""
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 120  # a hang guard
    while time.monotonic() < deadline and proc.poll() is None and not ready(out):
        time.sleep(0.02)
    assert proc.poll() is None and ready(out), "not ready to be interrupted in 120 s"
    used, stdout, stderr = cpu_after_signal(proc, signal.SIGINT, most=1.0)
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr), used


def _said(done: subprocess.CompletedProcess, used: float) -> str:
    """What an interrupted command did, for a failed check to say."""
    return (f"status {done.returncode} after {used:.2f} processor seconds after Ctrl-C; "
            f"stderr {done.stderr[-500:]!r}")


def test_ctrl_c_stops_enumerate_within_a_second_and_keeps_whole_lines(tmp_path):
    out = tmp_path / "box.jsonl"
    cmd = [sys.executable, "-m", "cpmodels", "enumerate",
           str(SPECS / "pentominoes_8x8_square.yaml"), "--out", str(out), "--backend", "sat"]
    done, used = _interrupt_when(cmd, lambda p: p.exists() and p.stat().st_size > 5000, out)
    said = _said(done, used)
    assert done.returncode == 130 and used < 1.0, said
    assert "--resume" in done.stderr and "Traceback" not in done.stderr, said
    text = out.read_text()
    assert text.endswith("\n")
    assert all(json.loads(line)["status"] == "solved" for line in text.splitlines()[1:])


def test_ctrl_c_stops_a_sweep_within_a_second_and_keeps_whole_rows(tmp_path):
    out = tmp_path / "week.csv"
    cmd = [sys.executable, "-m", "cpmodels", "sweep", str(SPECS / "calendar_week.yaml"),
           "--out", str(out), "--jobs", "1"]
    done, used = _interrupt_when(cmd, lambda p: p.exists() and p.stat().st_size > 0, out)
    said = _said(done, used)
    assert done.returncode == 130 and used < 1.0, said
    assert "--resume" in done.stderr, said
    lines = out.read_text().splitlines()
    assert lines[0].startswith("# cpmodels sweep rows, question ")
    assert lines[1] == "month,day,weekday,real_date,count"
    assert all(len(line.split(",")) == 5 for line in lines[1:])


# --- parallel runs -------------------------------------------------------------------

def test_parallel_sweep_rows_equal_serial_rows(tmp_path, monkeypatch):
    spec = load_spec(SPECS / "calendar_day.yaml")
    serial, parallel = tmp_path / "serial.csv", tmp_path / "parallel.csv"
    sweep.run_sweep(spec, serial, jobs=1)
    # hand every task after the second out
    monkeypatch.setattr(engine.placement.scheduling, "TALLY_FORK_AFTER", 0.0)
    monkeypatch.setattr(engine.placement.scheduling, "TALLY_FORK_REST", 0.0)
    stats: dict[str, int] = {}
    plan = sweep.TallyPlan.of(spec)
    session = plan.session()
    tasks = [plan.holes(t) for t in plan.tasks()]
    tallies = list(engine.tally_tasks(session, tasks, jobs=2, stats=stats))
    assert tallies == [session.tally(task) for task in tasks] and stats["nodes"] > 0
    sweep.run_sweep(spec, parallel, jobs=2)
    assert parallel.read_text() == serial.read_text()


def test_parallel_count_equals_serial_count(monkeypatch):
    cover = packing_instance(Query.of(load_spec(SPECS / "calendar_week.yaml"),
                             labels=["Jun", "7", "Tue"])).cover
    serial = engine.count(cover, jobs=1)
    monkeypatch.setattr(engine.placement.scheduling, "COUNT_FORK_AFTER", 0.0)
    monkeypatch.setattr(engine.placement.scheduling, "COUNT_THREADS", 1)  # workers, not threads
    assert engine.count(cover, jobs=2) == serial == 10374


# --- property tests ------------------------------------------------------------------

STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))


@st.composite
def polyomino(draw) -> list[str]:
    """A connected shape of 1 to 5 squares, grown one square at a time."""
    cells = {(0, 0)}
    for _ in range(draw(st.integers(0, 4))):
        r, c = draw(st.sampled_from(sorted(cells)))
        dr, dc = draw(st.sampled_from(STEPS))
        cells.add((r + dr, c + dc))
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    rows = 1 + max(r for r, _ in cells) - r0
    cols = 1 + max(c for _, c in cells) - c0
    return ["".join("#" if (r + r0, c + c0) in cells else "." for c in range(cols))
            for r in range(rows)]


@st.composite
def packing_problem(draw) -> tuple[str, list[str], dict[str, list[str]], bool]:
    """(spec text, board rows, pieces, flip): a board with as many cells as the pieces."""
    pieces = {f"p{k}": draw(polyomino()) for k in range(draw(st.integers(1, 4)))}
    area = sum(row.count("#") for shape in pieces.values() for row in shape)
    cols = draw(st.integers(2, 5))
    rows = max(2, -(-area // cols))
    spots = [(r, c) for r in range(rows) for c in range(cols)]
    walls = set(draw(st.permutations(spots))[: rows * cols - area])
    board = ["".join("#" if (r, c) in walls else "." for c in range(cols)) for r in range(rows)]
    flip = draw(st.booleans())
    text = (f"kind: packing\nname: random\nflip: {str(flip).lower()}\nboard:\n"
            + "".join(f'  - "{row}"\n' for row in board) + "pieces:\n"
            + "".join(f'  - {{name: {n}, shape: "{"/".join(s)}"}}\n' for n, s in pieces.items()))
    return text, board, pieces, flip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packing_problem())
def test_backends_agree_on_random_packings(problem):
    text, board, pieces, flip = problem
    try:
        spec = parse_spec(text, "random.yaml")
    except CpmodelsError as exc:  # a piece that fits nowhere, say: refused cleanly
        assert "fits nowhere" in str(exc) or "cells" in str(exc), str(exc)
        return
    instance = packing_instance(Query.of(spec))
    cover = instance.cover
    cells = {(r, c) for r, row in enumerate(board) for c, ch in enumerate(row) if ch == "."}
    expected = brute_force_count(cells, {n: variants_of(s, flip=flip) for n, s in pieces.items()})
    counts = {backend: sum(1 for _ in iter_cover_solutions(backend, cover))
              for backend in BACKENDS}
    assert counts == dict.fromkeys(BACKENDS, expected)
    assert engine.count(cover) == expected
    with tempfile.TemporaryDirectory() as folder:
        spec_path = Path(folder) / "random.yaml"
        spec_path.write_text(text)
        for backend in BACKENDS:
            result = solve_cover(backend, cover)
            assert result.status == ("solved" if expected else "unsolvable"), backend
            if expected:
                check_packing(spec_path, packing_payload(instance, result))
        for chosen in iter_cover_solutions("engine", cover):
            check_packing(spec_path, packing_payload(instance, solve_result(chosen)))


def solve_result(chosen: list[int]):
    from cpmodels.backends.result import CoverResult

    return CoverResult("solved", "engine", 0.0, sorted(chosen))


GOOD = (SPECS / "calendar_day.yaml").read_text()
NOISE = ":-[]{}#&*!|>'\"\t\n ,.0123456789abcXYZ日\u3000\x00"


@st.composite
def mutated_spec(draw) -> str:
    """A good spec with a few random cuts, insertions and swaps."""
    text = GOOD
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["cut", "insert", "swap"]))
        if action == "cut":
            text = text[:at] + text[at + draw(st.integers(1, 40)):]
        elif action == "insert":
            noise = st.text(st.sampled_from(list(NOISE)), max_size=8)
            text = text[:at] + draw(noise) + text[at:]
        else:
            lines = text.split("\n")
            i = draw(st.integers(0, len(lines) - 1))
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
    return text


@settings(max_examples=300, deadline=None)
@given(st.one_of(mutated_spec(), st.text(max_size=300)))
def test_spec_loading_fails_only_cleanly(text):
    try:
        spec = parse_spec(text, "fuzz.yaml")
    except CpmodelsError as exc:
        message = str(exc)
        assert message.startswith("fuzz.yaml") and "Traceback" not in message
        return
    # What loads must also compile, or be refused cleanly.
    with contextlib.suppress(CpmodelsError):
        packing_cover(spec.cells, spec.piece_kinds())


def test_ctrl_c_after_a_cp_sat_search_reaches_python():
    """CP-SAT leaves a Ctrl-C handler of its own after a solve, which would end the process
    without a word at the next Ctrl-C: after ``run_solver`` Ctrl-C is Python's again."""
    import os

    from ortools.sat.python import cp_model

    from cpmodels.cpsat_runtime import run_solver

    model = cp_model.CpModel()
    x = model.new_int_var(0, 10, "x")
    model.maximize(x)
    assert run_solver(cp_model.CpSolver(), model) == cp_model.OPTIMAL
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1.0)


def test_ctrl_c_after_a_packing_search_on_cp_sat_reaches_python():
    """The packing backend runs its model proto without ``cp_model``: its searches leave
    Ctrl-C to Python alike."""
    from cpmodels.backends import cpsat

    spec = parse_spec('kind: packing\nname: tiny\nboard: ["....", "...."]\npieces:\n'
                      '  - {name: L, shape: "###/#.."}\n  - {name: O, shape: "#../###"}\n')
    cover = packing_cover(spec.cells, spec.piece_kinds())
    assert cpsat.solve(cover).status == "solved"
    assert sum(1 for _ in cpsat.iter_solutions(cover)) >= 1
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1.0)


def test_a_cp_sat_search_stopped_before_it_starts_does_not_run():
    """``Search.stop`` holds from the moment the search is made: a stop that comes before
    the search starts (a consumer gone, Ctrl-C at once) is not lost."""
    from cpmodels.backends import cpsat
    from cpmodels.cpsat_runtime import UNKNOWN, Search, sat_parameters

    spec = load_spec(SPECS / "pentominoes_8x8_square.yaml")  # minutes to enumerate
    model = cpsat.cover_model(packing_cover(spec.cells, spec.piece_kinds()))
    parameters = sat_parameters(workers=1)
    parameters.enumerate_all_solutions = True
    search = Search(parameters)
    search.stop()
    response = search.run(model)
    # What the search did, by its own count (not the clock, which a busy machine stretches).
    did = (f"status {response.status}, {response.num_branches} branches, "
           f"{response.num_conflicts} conflicts, {response.deterministic_time} s deterministic")
    assert response.status == UNKNOWN, did
    assert response.num_branches == response.num_conflicts == 0, did
    assert response.deterministic_time == 0, did


# --- hostile output files --------------------------------------------------------------

def _hostile(place: Path, kind: str) -> Path:
    """Something at ``place`` that no output may replace or write through."""
    if kind == "fifo":
        os.mkfifo(place)
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(place))
        server.close()
    elif kind == "device":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(place, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # as /dev/null is
    elif kind == "link":
        victim = place.with_name("victim.txt")
        victim.write_text("keep me")
        place.symlink_to(victim)
    elif kind == "dangling link":
        place.symlink_to(place.with_name("made-through-a-link"))
    elif kind == "directory":
        place.mkdir()
        (place / "inside.txt").write_text("keep me")
    else:
        place.write_text("keep me")
        place.chmod(0o444)
    return place


def _snapshot(folder: Path) -> dict[str, tuple]:
    seen = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        body = (os.readlink(path) if path.is_symlink() else path.read_bytes()
                if stat.S_ISREG(info.st_mode) else None)
        seen[str(path)] = (info.st_mode, info.st_ino, body)
    return seen


HOSTILE_KINDS = ["fifo", "socket", "device", "link", "dangling link", "directory", "read-only"]
DAY = str(SPECS / "calendar_day.yaml")
WRITERS = {
    "export": lambda t: ["export", DAY, "--date", "2026-03-04", "--format", "dimacs",
                         "--out", t],
    "export mzn's data": lambda t: ["export", DAY, "--date", "2026-03-04", "--out",
                                    str(Path(t).with_suffix(".mzn"))],
    "solve svg": lambda t: ["solve", DAY, "--date", "2026-03-04", "--format", "svg", "--out", t],
    "enumerate": lambda t: ["enumerate", DAY, "--date", "2026-03-04", "--limit", "1",
                            "--out", t],
    "enumerate --resume": lambda t: ["enumerate", DAY, "--date", "2026-03-04", "--limit", "1",
                                     "--out", t, "--resume"],
    "sweep": lambda t: ["sweep", DAY, "--out", t],
    "sweep --resume": lambda t: ["sweep", DAY, "--out", t, "--resume"],
    "sweep --plot": lambda t: ["sweep", str(SPECS / "calendar_week.yaml"), "--out",
                               str(Path(t).with_name("rows.csv")), "--plot", t],
    "design": lambda t: ["design", str(SPECS / "designs" / "apad_rectangle_pentominoes.yaml"),
                         "--out", t],
    "design --resume": lambda t: ["design", str(SPECS / "designs" /
                                                "apad_rectangle_pentominoes.yaml"),
                                  "--out", t, "--resume"],
    "prove --proof": lambda t: ["prove", DAY, "--date", "2026-03-04", "--proof", t],
    "towers --proof": lambda t: ["solve", str(SPECS / "towers.yaml"), "--size", "3x3",
                                 "--proof", t],
    "towers --price-save": lambda t: ["solve", str(SPECS / "towers.yaml"), "--size", "3x3",
                                      "--time-limit", "5", "--priced-bound", "--proof",
                                      str(Path(t).with_name("c.cert")), "--price-save", t],
    "make": lambda t: ["make", DAY, "--out", t],
}


@pytest.mark.parametrize("kind", HOSTILE_KINDS)
@pytest.mark.parametrize("writer", list(WRITERS))
def test_no_output_replaces_or_writes_through_what_is_not_a_regular_file(run_cli, writer,
                                                                        kind):
    with tempfile.TemporaryDirectory(dir="/tmp") as scratch:  # short: a socket's path
        folder = Path(scratch)
        target = folder / ("model.dzn" if writer == "export mzn's data" else "out.svg")
        if writer == "make" and kind == "directory":
            pytest.skip("make writes a directory: an empty one is its to fill")
        _hostile(target, kind)
        before = _snapshot(folder)
        code, _, err = run_cli(*WRITERS[writer](str(target)))
        said = err.splitlines()
        assert code == 2 and "Traceback" not in err
        assert len(said) == 1 and said[0].startswith(f"error: cannot write {target}"), err
        assert _snapshot(folder) == before


def test_writing_replaces_a_regular_file_whole_and_keeps_its_mode(run_cli, tmp_path):
    out = tmp_path / "model.cnf"
    out.write_text("old")
    out.chmod(0o600)
    code, _, _ = run_cli("export", DAY, "--date", "2026-03-04", "--out", out)
    assert code == 0 and out.read_text().startswith("c ") and stat.S_IMODE(
        out.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["model.cnf"]  # no temporary file left


# --- standard output that cannot be written ---------------------------------------------

def _cpmodels(*argv: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cpmodels", *argv], cwd=ROOT,
                          stderr=subprocess.PIPE, text=True, timeout=120, check=False,
                          **kwargs)


@pytest.mark.parametrize("argv", [
    ["export", DAY, "--date", "2026-03-04", "--format", "dimacs", "--out", "-"],
    ["solve", DAY, "--date", "2026-03-04", "--format", "svg"],
    ["solve", DAY, "--date", "2026-03-04"],
    ["schema"],
])
def test_a_full_standard_output_is_one_line_and_exit_2(argv):
    with open("/dev/full", "w") as full:
        done = _cpmodels(*argv, stdout=full)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == ("error: cannot write to standard output: No space left "
                                   "on device")


def test_a_closed_standard_output_is_one_line_and_exit_2():
    done = _cpmodels("solve", DAY, "--date", "2026-03-04", stdout=subprocess.DEVNULL,
                     preexec_fn=lambda: os.close(1))
    assert done.returncode == 2
    assert done.stderr.strip() == "error: cannot write to standard output: it is closed"


def test_a_reader_that_goes_away_ends_the_run_quietly():
    proc = subprocess.Popen([sys.executable, "-m", "cpmodels", "export", DAY, "--date",
                             "2026-03-04", "--format", "dimacs", "--out", "-"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and len(proc.stdout.read(10)) == 10
    proc.stdout.close()  # as `| head -c 10` does
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and err == b""


# --- hostile input files -----------------------------------------------------------------

def _bounded(seconds: float, run, *argv: str) -> tuple[int, str, str]:
    """``run(*argv)`` in a thread, failing (not hanging) when it blocks for ``seconds``."""
    done: list[tuple[int, str, str]] = []
    worker = threading.Thread(target=lambda: done.append(run(*argv)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert done, f"{argv[0]} blocked reading {argv}"
    return done[0]


DESIGN = str(SPECS / "designs" / "apad_rectangle_pentominoes.yaml")
READERS = {
    "validate": lambda f: ["validate", f],
    "solve": lambda f: ["solve", f],
    "make": lambda f: ["make", f, "--out", str(Path(f).with_name("made"))],
    "design": lambda f: ["design", f],
    "make --verdicts": lambda f: ["make", DESIGN, "--set", "1", "--verdicts", f, "--out",
                                  str(Path(f).with_name("made"))],
    "verify --proof": lambda f: ["verify", str(SPECS / "towers.yaml"), "--proof", f],
    "solve --price-from": lambda f: ["solve", str(SPECS / "towers.yaml"), "--size", "3x3",
                                     "--time-limit", "5", "--priced-bound", "--proof",
                                     str(Path(f).with_name("c.cert")), "--price-from", f,
                                     "--price-save", str(Path(f).with_name("saved"))],
    "decode --model": lambda f: ["decode", DAY, "--date", "2026-03-04", "--format", "lp",
                                 "--model", f],
}


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
@pytest.mark.parametrize("reader", list(READERS))
def test_an_input_that_is_not_a_regular_file_is_refused_without_waiting(run_cli, tmp_path,
                                                                        reader, kind):
    place = _hostile(tmp_path / "input.yaml", kind)
    code, _, err = _bounded(60, run_cli, *READERS[reader](str(place)))
    assert code == 2 and "Traceback" not in err
    assert "not a file" in err and str(place) in err, err


def test_an_input_over_its_size_limit_is_refused_before_it_is_read(run_cli, tmp_path):
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as handle:  # sparse: no disk taken
        handle.truncate(5_000_000_000)
    for argv in (["validate", huge], ["make", DESIGN, "--set", "1", "--verdicts", huge,
                                      "--out", tmp_path / "made"]):
        start = cpu_seconds()
        code, _, err = run_cli(*argv)
        assert code == 2 and "5,000,000,000 bytes" in err and "at most" in err
        assert cpu_seconds() - start < 5


def test_the_package_yaml_reader_bounds_numbers():
    for value, fragment in [("9" * 5000, "has 5,000 characters"), (".inf", "not a finite"),
                            (".NaN", "not a finite"), ("1.0e+999", "not a finite"),
                            ("0x" + "f" * 30, "is too large")]:
        with pytest.raises(SpecError, match=fragment) as failed:
            parse_spec(f"kind: packing\nname: t\nboard: ['..']\npieces:\n"
                       f"  - {{name: A, shape: '##', count: {value}}}\n", "t.yaml")
        assert failed.value.field == "pieces[0].count" and failed.value.line == 5


def test_a_sweep_resumes_past_rows_whose_numbers_do_not_read(run_cli, tmp_path):
    out = tmp_path / "day.csv"
    assert run_cli("sweep", DAY, "--out", out)[0] == 0
    rows = out.read_text().splitlines()
    month, day, real, _ = rows[2].split(",")
    rows[2] = f"{month},{day},{real},{'9' * 5000}"  # past Python's digit limit
    rows[3] = rows[3].rsplit(",", 1)[0] + ",\u00b2"  # a digit to isdigit, not to int
    out.write_text("\n".join(rows) + "\n")
    code, _, err = run_cli("sweep", DAY, "--out", out, "--resume", "--format", "json")
    assert code == 0 and "Traceback" not in err
    again = tmp_path / "again.csv"
    run_cli("sweep", DAY, "--out", again)
    # The two rows were counted again, in their places.
    assert out.read_text() == again.read_text()


def test_enumerate_resumes_only_its_own_solutions(run_cli, tmp_path):
    out = tmp_path / "sols.jsonl"
    code, text, _ = run_cli("enumerate", DAY, "--date", "2026-03-04", "--limit", "1", "--out",
                            tmp_path / "new.jsonl", "--resume")  # nothing to resume yet
    assert code == 0 and "1 solutions written" in text
    assert run_cli("enumerate", DAY, "--date", "2026-03-04", "--limit", "2", "--out", out)[0] == 0
    for argv, junk, said in [
            (["--date", "2026-03-05"], None, "answers another question"),  # another date's
            (["--date", "2026-03-04"], '{"spec": 1}\n', "is not a solution of this puzzle"),
            (["--date", "2026-03-04"], "[" * 100_000 + "\n", "is not a solution of this")]:
        if junk is not None:
            out.write_text("".join(out.read_text().splitlines(keepends=True)[:2]) + junk)
        before = out.read_bytes()
        code, _, err = run_cli("enumerate", DAY, *argv, "--limit", "3", "--out", out,
                               "--resume")
        assert code == 2 and said in err, err
        assert out.read_bytes() == before


@pytest.mark.parametrize("kind", ["link", "read-only", "fifo"])
def test_a_sweeps_proof_folder_must_be_a_real_directory(run_cli, tmp_path, kind):
    out = tmp_path / "day.csv"
    folder = _hostile(tmp_path / "day.csv.proofs", kind)
    before = _snapshot(tmp_path)
    code, _, err = run_cli("sweep", DAY, "--out", out, "--prove")
    what = {"link": "a symbolic link", "fifo": "a FIFO", "read-only": "a file"}[kind]
    assert code == 2
    assert err.strip() == f"error: cannot write {folder}: it is {what}, not a directory"
    assert _snapshot(tmp_path) == before


def _ctrl_c_after(monkeypatch, module, name: str) -> None:
    """``module.name`` made to be followed by a Ctrl-C (a SIGINT to this process, acted on
    at once unless held): one that comes as what it made is handed to its owner."""
    made = getattr(module, name)

    def then_ctrl_c(*args, **kwargs):
        out = made(*args, **kwargs)
        signal.raise_signal(signal.SIGINT)
        return out

    monkeypatch.setattr(module, name, then_ctrl_c)


def test_a_ctrl_c_as_a_temporary_file_is_made_leaves_none_behind(monkeypatch, tmp_path):
    """A whole file, a zip archive, a towers certificate, a folder: each writer's
    temporary file or folder is removed however soon a Ctrl-C comes after it is made."""
    from cpmodels import files
    from cpmodels.spec import load_spec
    from cpmodels.towers import certificate, towers_problem
    from cpmodels.towers.proof import solve_with_certificate

    _ctrl_c_after(monkeypatch, files, "temp_beside")
    _ctrl_c_after(monkeypatch, certificate, "temp_beside")
    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 3, 3)
    writes = [lambda: files.write_atomic(tmp_path / "out.txt", "kept"),
              lambda: files.zip_in_place(tmp_path / "out.zip").__enter__(),
              lambda: solve_with_certificate(problem, tmp_path / "out.cert")]
    for write in writes:
        with pytest.raises(KeyboardInterrupt):
            write()
        assert sorted(p.name for p in tmp_path.iterdir()) == []
    with monkeypatch.context() as patched:  # a folder filled, then renamed into place
        _ctrl_c_after(patched, files.tempfile, "mkdtemp")
        with pytest.raises(KeyboardInterrupt), files.directory_in_place(tmp_path / "made"):
            pass
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_ctrl_c_as_a_model_file_is_written_leaves_none_of_its_files(monkeypatch, tmp_path):
    """A MiniZinc model is its model and its data, both written or neither: a Ctrl-C just
    as the first is in place removes it."""
    from cpmodels import api, export

    _ctrl_c_after(monkeypatch, export, "write_atomic")
    with pytest.raises(KeyboardInterrupt):
        api.export("calendar_day", tmp_path / "day.mzn", format="mzn", labels=["Oct", "6"])
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    assert sorted(p.name for p in api.export("calendar_day", tmp_path / "day.mzn",
                                             format="mzn", labels=["Oct", "6"])) == \
        ["day.dzn", "day.mzn"]


def test_a_ctrl_c_as_a_site_run_takes_its_lock_lets_it_go(monkeypatch, tmp_path):
    """A site run stopped by a Ctrl-C just as it has locked the folder lets the lock go
    and removes its file: a later run in the same process writes there."""
    from cpmodels.web import site

    _ctrl_c_after(monkeypatch, site, "_lock")
    with pytest.raises(KeyboardInterrupt), site._locked(tmp_path):
        pass
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    with site._locked(tmp_path):
        assert [p.name for p in tmp_path.iterdir()] == [site.LOCK_FILE]
    assert list(tmp_path.iterdir()) == []
