"""Every size is bounded where it is read: --jobs, a design's pools, a certificate's header
and claim and members, numbers in JSON, a towers spec's colours; a bound is printed only
when one was proved; Ctrl-C at any moment of start-up is status 130 and one line."""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, SPECS

from cpmodels.cli import build_parser, main
from cpmodels.errors import InputError

MEMORY_CAP = 1 << 30  # bytes of address space a hostile input's run may take


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _cli_limited(*argv: object, timeout: float = 120) -> subprocess.CompletedProcess:
    """The command line in a process of its own with at most :data:`MEMORY_CAP` of memory."""
    return subprocess.run([sys.executable, "-m", "cpmodels", *map(str, argv)],
                          preexec_fn=_limited, capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr and len(lines) >= 1, stderr
    return lines[-1]


# The engine's tables fit what the process may map: smaller, never a traceback.

@pytest.mark.parametrize("argv", [
    ["sweep", "calendar_day", "--out", "{tmp}/rows.csv", "--jobs", "1"],
    ["sweep", "calendar_day", "--out", "{tmp}/rows.csv", "--jobs", "2"],
    ["count", "calendar_day", "--date", "2026-01-25"],
    ["design", "specs/designs/apad_rectangle_pentominoes.yaml", "--best", "1"]])
def test_engine_runs_under_an_address_space_limit(tmp_path, argv):
    done = _cli_limited(*[a.format(tmp=tmp_path) for a in argv])
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    if argv[0] == "sweep":  # every row, as a run without the limit counts them
        assert main(["sweep", "calendar_day", "--out", str(tmp_path / "free.csv")]) == 0
        assert (tmp_path / "rows.csv").read_text() == (tmp_path / "free.csv").read_text()


def test_too_little_memory_for_any_table_is_one_line():
    code = ("import resource, sys\n"
            "from cpmodels.backends.engine.kernels.memo import Memo\n"
            "from cpmodels.errors import TooLargeError\n"
            "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
            "memo = Memo(3, slots=1 << 24, arena=1 << 28)\n"
            "print(len(memo.values), len(memo.arena))\n"
            "try:\n"
            "    Memo(1 << 20, slots=1 << 24)\n"
            "except TooLargeError as exc:\n"
            "    print('refused:', exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    slots, arena = map(int, done.stdout.splitlines()[0].split())
    assert slots < 1 << 24 and arena < 1 << 28 and slots * 4 <= arena  # smaller, arena first
    assert done.stdout.splitlines()[1].startswith("refused: not enough memory")


@pytest.mark.parametrize("failure", [MemoryError(), RuntimeError("can't start new thread")])
def test_memory_running_out_elsewhere_is_one_line(failure, capsys, monkeypatch):
    from cpmodels.cli import execute

    def handler(args):
        raise failure

    args = build_parser().parse_args(["validate", "calendar_day"])
    monkeypatch.setattr(args, "handler", handler)
    assert execute(args) == 2
    err = capsys.readouterr().err
    assert err == "error: not enough memory for this run (the process may map too little)\n"


def test_another_runtime_error_is_not_taken_for_memory(monkeypatch):
    from cpmodels.cli import execute

    def handler(args):
        raise RuntimeError("something else")

    args = build_parser().parse_args(["validate", "calendar_day"])
    monkeypatch.setattr(args, "handler", handler)
    with pytest.raises(RuntimeError, match="something else"):
        execute(args)


# --jobs: bounded where it is parsed, and never more processes than cores.

@pytest.mark.parametrize("command", [["sweep", "calendar_day", "--out", "x.csv"],
                                     ["design", "d.yaml"], ["make", "d.yaml", "--out", "d"]])
@pytest.mark.parametrize("jobs", ["0", "-1", "99999999999999999999", "1.5", "nan", "two", "",
                                  "1e3", "4097", "True", "\u00b2", "\u0663", "1" * 5000])
def test_a_bad_jobs_is_refused_where_it_is_parsed(command, jobs, capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args([*command, "--jobs", jobs])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "--jobs" in err and len(err) < 200


def test_more_jobs_than_cores_is_the_cores_said_once(capsys):
    from cpmodels.backends.engine import workers_for

    cores = len(os.sched_getaffinity(0))
    args = build_parser().parse_args(["design", "d.yaml", "--jobs", "4096"])
    assert args.jobs == cores
    assert f"--jobs 4096: this machine has {cores} core" in capsys.readouterr().err
    assert workers_for(4096) == workers_for(None) == cores and workers_for(1) == 1


BAD_JOBS = [0, -1, 1.5, True, False, "2", "3", float("nan"), 10**9, 4097, [2], "two"]


@pytest.mark.parametrize("jobs", BAD_JOBS)
def test_a_bad_jobs_is_one_line_from_every_api_function(jobs):
    from cpmodels import api
    from cpmodels.backends.engine import workers_for
    from cpmodels.design import working_set

    design = ROOT / "specs" / "designs" / "apad_rectangle_pentominoes.yaml"
    calls = [lambda: workers_for(jobs), lambda: api.sweep("calendar_day", jobs=jobs),
             lambda: api.design(design, jobs=jobs, counts=False),
             lambda: api.design(design, jobs=jobs, best=1),
             lambda: working_set(design, 1, jobs=jobs)]
    messages = set()
    for call in calls:  # refused at once: nothing is counted or decided first
        with pytest.raises(InputError) as refused:
            call()
        messages.add(str(refused.value))
    assert len(messages) == 1
    assert "is not a number of worker processes: give a whole number from 1 to 4,096" \
        in messages.pop()


def test_the_command_line_and_the_api_say_the_same_of_a_bad_jobs(capsys):
    from cpmodels import api

    with pytest.raises(SystemExit):
        build_parser().parse_args(["sweep", "calendar_day", "--jobs", "0"])
    with pytest.raises(InputError) as refused:
        api.sweep("calendar_day", jobs=0)
    said = "is not a number of worker processes: give a whole number from 1 to 4,096"
    assert said in capsys.readouterr().err and said in str(refused.value)


def test_more_jobs_than_cores_is_the_cores_from_the_api_too():
    from cpmodels.workers import worker_count

    cores = len(os.sched_getaffinity(0))
    assert worker_count(4096) == cores and worker_count(1) == 1 and worker_count(None) is None


@pytest.mark.parametrize(("command", "option"), [
    (["design", "d.yaml"], "--best"), (["make", "d.yaml", "--out", "d"], "--set"),
    (["enumerate", "calendar_day", "--out", "x.jsonl"], "--limit")])
@pytest.mark.parametrize("value", ["0", "-1", "99999999999999999999", "1e3", "nan", "1" * 5000])
def test_counts_and_ranks_are_bounded_where_they_are_parsed(command, option, value, capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args([*command, option, value])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and option in err and len(err.strip().splitlines()) == 1
    assert len(err) < 200


class _Pid:
    """A runner whose results say which process ran each unit."""

    def run(self, unit: tuple[int, ...]) -> int:
        return os.getpid()


def test_the_most_jobs_start_one_process_per_core_at_most():
    from cpmodels.backends.engine import run_units

    found = dict(run_units(_Pid(), [(k,) for k in range(40)], jobs=4096))
    assert sorted(found) == list(range(40))
    assert 1 <= len(set(found.values())) <= len(os.sched_getaffinity(0))


def test_a_local_cluster_of_256_workers_is_one_per_core():
    pytest.importorskip("distributed")
    from cpmodels.backends.engine import connect

    cluster = connect("local:256")
    try:
        assert cluster.workers == len(os.sched_getaffinity(0))
    finally:
        cluster.close()


# A design's candidate sets: counted from the draws, refused before any is made.

HUGE_POOL = f"""\
kind: design
name: every_hexomino
board: {SPECS / "calendar_day.yaml"}
choose:
  - {{pool: hexominoes, count: [0, 35]}}
"""


def test_a_huge_pool_is_refused_before_any_set_is_made(tmp_path):
    from cpmodels import api
    from cpmodels.design import Design, load_board
    from cpmodels.spec.loading import load_design

    path = tmp_path / "huge.yaml"
    path.write_text(HUGE_POOL)
    spec = load_design(path)
    with pytest.raises(InputError, match="34,359,738,368 sets"):
        Design(spec, load_board(spec, path))
    for best in (1, None):  # the API, with and without best
        with pytest.raises(InputError, match="the limit is 10,000,000"):
            api.design(path, best=best)


@pytest.mark.parametrize("best", [["--best", "1"], []])
def test_a_huge_pool_is_one_line_from_the_command_line(tmp_path, best):
    path = tmp_path / "huge.yaml"
    path.write_text(HUGE_POOL)
    done = _cli_limited("design", path, *best, "--jobs", "1", timeout=90)
    assert done.returncode == 2
    assert "34,359,738,368 sets before the area check" in _one_line(done.stderr)


# Certificates: numbers checked before anything is made, members never inflated whole.

@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    """A 3x3 optimum's certificate and a 4x4 priced bound's, both checked good."""
    from cpmodels.spec import load_spec
    from cpmodels.towers import programme
    from cpmodels.towers.certificate import CertificateWriter
    from cpmodels.towers.problem import towers_problem
    from cpmodels.towers.proof import bound_with_certificate

    where = tmp_path_factory.mktemp("certificates")
    spec = load_spec(SPECS / "towers.yaml")
    small = towers_problem(spec, 3, 3)
    writer = CertificateWriter(where / "3x3.cert", small, programme.key_layout(small))
    programme.solve_dp(small, layer_sink=writer.layer)
    writer.finish(200, ["RYB", "BGR", "RYB"])
    wide = towers_problem(spec, 4, 4)
    priced = bound_with_certificate(wide, where / "4x4.bound", cut=2, steps=2)
    assert priced.check.ok
    return where / "3x3.cert", where / "4x4.bound"


def _copy(source: Path, target: Path, change) -> Path:
    """``source`` as a zip again, each member's bytes through ``change(name, data)``,
    stored as it was (compressed or not)."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            new.writestr(item, change(item.filename, old.read(item.filename)))
    return target


def _json_edit(name: str, **fields: str):
    """A ``change`` that sets ``fields`` (raw JSON text) in the JSON member ``name``."""
    def change(member: str, data: bytes) -> bytes:
        if member != name:
            return data
        text = json.dumps(json.loads(data))
        for field, raw in fields.items():
            text, n = re.subn(rf'"{field}": (-?[0-9]+|null|true|false|"[^"]*")',
                              f'"{field}": {raw}', text)
            assert n == 1, field
        return text.encode()
    return change


HOSTILE = ["Infinity", "-Infinity", "NaN", "1e400", "1e30", "10" + "0" * 30, "-1", "0",
           "2.5", "true", '"8"', "null", "9223372036854775807"]


@pytest.mark.parametrize("field", ["layers", "cell_bits", "colour_bits", "optimum"])
@pytest.mark.parametrize("value", HOSTILE)
def test_a_certificate_header_s_numbers_are_checked(certificates, tmp_path, capsys, field,
                                                    value):
    good, _ = certificates
    bad = _copy(good, tmp_path / "bad.cert", _json_edit("header.json", **{field: value}))
    code = main(["verify", str(SPECS / "towers.yaml"), "--proof", str(bad)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if field == "optimum" and value == "null":
        assert code == 3 and "a board is given with no optimum" in out
    else:
        assert code in (2, 3) and ("rejected" in out or err.startswith("error: ")), (out, err)
        assert "proved" not in out


@pytest.mark.parametrize("field", ["cut", "scale", "bound", "version"])
@pytest.mark.parametrize("value", HOSTILE)
def test_a_priced_claim_s_numbers_are_checked(certificates, tmp_path, capsys, field, value):
    _, good = certificates
    bad = _copy(good, tmp_path / "bad.bound", _json_edit("claim.json", **{field: value}))
    code = main(["verify", str(SPECS / "towers.yaml"), "--proof", str(bad)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "proved" not in out
    assert code in (2, 3) and ("rejected" in out or err.startswith("error: ")), (out, err)


@pytest.mark.parametrize("version", ["1", "3", "-3", "2.0"])
def test_a_priced_claim_of_another_version_is_refused(certificates, tmp_path, capsys,
                                                      version):
    _, good = certificates
    bad = _copy(good, tmp_path / "bad.bound", _json_edit("claim.json", version=version))
    code = main(["verify", str(SPECS / "towers.yaml"), "--proof", str(bad)])
    out, err = capsys.readouterr()
    assert code == 2 and "proved" not in out
    assert err.startswith("error: ") and "of version" in err, err


@pytest.mark.parametrize("price", ["Infinity", "NaN", "1e30", "1" + "0" * 25, "0.5", "true",
                                   '"1"', "null", "[]", "2251799813685249"])
def test_a_priced_claim_s_prices_are_checked(certificates, tmp_path, capsys, price):
    _, good = certificates

    def change(name: str, data: bytes) -> bytes:
        if name != "claim.json":
            return data
        text = json.dumps(json.loads(data))
        return re.sub(r'"prices": \[\[\[\[-?[0-9]+', f'"prices": [[[[{price}', text).encode()

    bad = _copy(good, tmp_path / "bad.bound", change)
    code = main(["verify", str(SPECS / "towers.yaml"), "--proof", str(bad)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "proved" not in out
    assert code in (2, 3) and ("rejected" in out or err.startswith("error: ")), (out, err)


def test_a_layer_score_that_would_overflow_is_rejected(certificates, tmp_path):
    """Scores near 2**63 would wrap round when points are added and pass for small ones."""
    from cpmodels.spec import load_spec
    from cpmodels.towers.certificate import check_certificate
    from cpmodels.towers.problem import towers_problem

    good, _ = certificates

    def change(name: str, data: bytes) -> bytes:
        if name != "layers/0.scores.npy":
            return data
        import io
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, np.array([2**63 - 5], dtype=np.int64))
        return buffer.getvalue()

    bad = _copy(good, tmp_path / "bad.cert", change)
    check = check_certificate(bad, towers_problem(load_spec(SPECS / "towers.yaml"), 3, 3))
    assert not check.ok and "holds a score beyond" in check.message


def test_a_colour_bits_of_1e10_is_refused_in_bounded_memory(certificates, tmp_path):
    good, _ = certificates
    bad = _copy(good, tmp_path / "bad.cert", _json_edit("header.json", colour_bits="1e10"))
    done = _cli_limited("verify", SPECS / "towers.yaml", "--proof", bad, timeout=60)
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert "colour_bits is 10000000000.0; it must be a whole number from 1 to 64" in done.stdout


def _zeros_layer(target: zipfile.ZipFile, name: str, size: int) -> None:
    """A ``.npy`` member of ``size`` bytes of zeros, compressed to almost nothing."""
    header = {"descr": "<u8", "fortran_order": False, "shape": (size // 8,)}
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    with target.open(info, "w", force_zip64=True) as out:
        np.lib.format.write_array_header_1_0(out, header)
        chunk = bytes(1 << 20)
        for _ in range(size >> 20):
            out.write(chunk)


@pytest.mark.parametrize("outer", ["stored", "deflated"])
def test_an_inflating_band_certificate_is_refused_in_bounded_memory(certificates, tmp_path,
                                                                    outer):
    """A priced bound whose band certificate (or a layer of it) inflates to 600 MB of
    zeros: the band is never inflated whole, the layer is refused before it is made."""
    _, good = certificates
    inner = tmp_path / "top.cert"
    with zipfile.ZipFile(good) as archive:
        (tmp_path / "real.cert").write_bytes(archive.read("top.cert"))
    with zipfile.ZipFile(tmp_path / "real.cert") as real, \
            zipfile.ZipFile(inner, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("header.json", real.read("header.json"))
        _zeros_layer(out, "layers/0.keys.npy", 600 << 20)
        for name in real.namelist():
            if name not in ("header.json", "layers/0.keys.npy"):
                out.writestr(name, real.read(name))
    bad = tmp_path / "bad.bound"
    method = zipfile.ZIP_STORED if outer == "stored" else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(good) as old, zipfile.ZipFile(bad, "w", method) as new:
        for name in old.namelist():
            new.writestr(name, inner.read_bytes() if name == "top.cert" else old.read(name))
    assert bad.stat().st_size < 5 << 20
    done = _cli_limited("verify", SPECS / "towers.yaml", "--proof", bad, timeout=60)
    assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "certificate rejected" in done.stdout
    assert ("at most 536,870,912 are read" if outer == "stored" else "is compressed") \
        in done.stdout


# Numbers in JSON: finite, 64-bit integers at most, wherever the package reads JSON.

@pytest.mark.parametrize("text", ["[Infinity]", "[-Infinity]", "[NaN]", "[1e400]", "[-1e999]",
                                  "[9223372036854775808]", "[" + "9" * 5000 + "]",
                                  "[" + "1" * 100 + ".5]"])
def test_json_numbers_out_of_range_are_refused(text):
    from cpmodels.files import load_json
    from cpmodels.web.limits import parse_json

    with pytest.raises(json.JSONDecodeError, match="number out of range"):
        load_json(text, "the line")
    with pytest.raises(InputError, match="number out of range"):
        parse_json(text.encode())
    assert load_json("[1.5, -9223372036854775807, 0]", "x") == [1.5, -(2**63 - 1), 0]


def test_a_resumed_design_line_with_infinity_is_one_line(tmp_path, capsys):
    from cpmodels.design.verdicts import verdict_lines
    from cpmodels.questions import question_of

    question = question_of("design verdicts", "a design", {"board": "any"})
    out = tmp_path / "v.jsonl"
    out.write_text(question.json_line() + '\n{"pieces": ["A"], "works": true, "min": Infinity}\n')
    with pytest.raises(InputError, match="line 2 is no design verdict"):
        verdict_lines(out, question)


# Towers colours: what the programme and the CP-SAT model take, checked as the spec loads.

def _towers(tmp_path: Path, colours: int, size: int = 3, empty: bool = False) -> Path:
    lines = ["kind: towers", f"name: c{colours}", f"rows: {size}", f"cols: {size}",
             f"allow_empty: {str(empty).lower()}", "colours:"]
    lines += [f"  - {{name: C{k}, letter: '{chr(0x100 + k)}', points: {k + 1}}}"
              for k in range(colours)]
    path = tmp_path / f"c{colours}.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("colours", [20, 40, 58])
def test_towers_of_many_colours_solve_past_the_programme_s_width(tmp_path, capsys, colours):
    path = _towers(tmp_path, colours)
    assert main(["solve", str(path), "--time-limit", "20", "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["score"] == 9 * colours and answer["optimal"]  # every cell the top colour


@pytest.mark.parametrize(("colours", "empty", "size", "fragment"), [
    (59, False, 3, "59 colours: the exact programme holds at most 58"),
    (58, True, 3, "59 colours: the exact programme holds at most 58"),
    (1000, False, 3, "1000 colours"),
    (20, False, 200, "800,000 choices of a colour for a cell"),
])
def test_too_many_colours_are_one_line_from_validate_and_solve(tmp_path, capsys, colours,
                                                               empty, size, fragment):
    path = _towers(tmp_path, colours, size, empty)
    for command in (["validate", path], ["solve", path, "--time-limit", "1"]):
        code = main([str(a) for a in command])
        err = capsys.readouterr().err
        assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1, err


def test_a_size_past_the_model_is_refused_for_a_spec_that_loads(tmp_path, capsys):
    path = _towers(tmp_path, 20, 3)
    assert main(["solve", str(path), "--size", "200x200", "--time-limit", "1"]) == 2
    assert "800,000 choices" in capsys.readouterr().err


# A bound is printed only when one was proved.

def test_cp_sat_stopped_before_it_loads_the_model_gives_no_bound():
    from cpmodels.spec import load_spec
    from cpmodels.towers.model import _search
    from cpmodels.towers.problem import towers_problem

    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 40, 40)
    _, grid, bound = _search(problem, 0.001, 1)
    all_blue = 40 * 40 * 10  # a legal board: no bound is below it
    assert grid or bound is None or bound >= all_blue


def test_an_unknown_towers_answer_says_it_has_no_bound(capsys):
    spec = str(SPECS / "towers.yaml")
    code = main(["solve", spec, "--size", "40x40", "--time-limit", "0.01", "--format",
                 "json"])
    answer = json.loads(capsys.readouterr().out)
    all_blue = 40 * 40 * 10
    assert answer["bound"] is None or answer["bound"] >= all_blue
    if code == 3:  # no board in the time (the usual case): no bound either
        assert main(["solve", spec, "--size", "40x40", "--time-limit", "0.01"]) == 3
        out = capsys.readouterr().out
        assert "(bound" not in out or "(bound 0)" not in out


def test_results_with_no_bound_say_so_in_text_json_pictures_and_repr():
    from cpmodels import api
    from cpmodels.render import towers_payload, towers_text
    from cpmodels.render.pictures import towers_picture
    from cpmodels.spec import load_spec
    from cpmodels.towers.problem import towers_problem
    from cpmodels.towers.result import TowersResult

    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 3, 3)
    found = TowersResult("solved", 1.0, ["BBB"] * 3, 90, False, None)
    unknown = TowersResult("unknown", 1.0)
    assert "no bound known" in towers_text(problem, found)
    assert "bound" not in towers_text(problem, unknown).replace("no bound", "")
    assert towers_payload(problem, found)["bound"] is None
    assert "bound" not in towers_picture(problem, found).title
    assert repr(api.TowersSolution(problem, found)).endswith("score 90, no bound>")


# Ctrl-C at any moment of start-up: status 130, one line, no traceback anywhere.

def _first_line_of_ours(stream, ready: threading.Event, lines: list[str]) -> None:
    """Read the child's stderr; ``ready`` once it has loaded a module of the package past
    the package itself (the interpreter's own start-up is over: from then on every
    moment is the program's)."""
    for raw in iter(stream.readline, b""):
        line = raw.decode(errors="replace")
        if line.startswith("import time:"):
            if re.search(r"\|\s+cpmodels\.", line):
                ready.set()
        else:
            lines.append(line)
    ready.set()


def _interrupted(argv: list[str], delay: float, cwd: Path) -> tuple[int | None, str, bool]:
    process = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "cpmodels", *argv],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    ready, lines = threading.Event(), []
    reader = threading.Thread(target=_first_line_of_ours, args=(process.stderr, ready, lines),
                              daemon=True)
    reader.start()
    assert ready.wait(60)
    time.sleep(delay)
    finished_first = process.poll() is not None
    if not finished_first:
        process.send_signal(signal.SIGINT)
    code = process.wait(60)
    reader.join(10)
    return code, "".join(lines), finished_first


@pytest.mark.parametrize("argv", [
    ["sweep", "calendar_week", "--out", "week.csv", "--jobs", "2", "--quiet"],
    ["count", "calendar_week", "--date", "2024-06-07"],
    ["design", str(SPECS / "designs" / "apad_rectangle_pentominoes.yaml"), "--jobs", "2",
     "--quiet"],
    ["solve", "towers", "--size", "8x8"],
])
def test_ctrl_c_at_any_moment_of_start_up_is_130_and_one_line(tmp_path, argv):
    for delay in (0.0, 0.02, 0.05, 0.1, 0.15, 0.25, 0.4, 0.6, 0.9, 1.3):
        code, err, finished_first = _interrupted(argv, delay, tmp_path)
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, (delay, err)
        if finished_first or code == 0:  # done before the Ctrl-C, or as it left
            assert code == 0, (delay, err)
            break
        assert code == 130, (delay, code, err)
        assert len(err.strip().splitlines()) == 1, (delay, err)


# A signal whose handler raises, arriving while compiled code runs in the main thread (the
# towers programme's steps), or in the engine's search threads.
_SIGNALLED = """
import os, random, signal, sys, threading
from cpmodels.interrupt import interrupt_or_leave, time_limit
if sys.argv[1] == "towers":
    from cpmodels.spec import load_spec
    from cpmodels.towers.bounds import band_bound
    from cpmodels.towers.problem import towers_problem
    problem = towers_problem(load_spec("towers"), 9, 9)
    work = lambda: band_bound(problem, 3, True, True)
else:
    from cpmodels import api
    work = lambda: api.count("calendar_day", date="2026-01-25")
work()  # compiled and warm
signal.signal(signal.SIGINT, interrupt_or_leave)
main, seen = threading.main_thread().ident, []
for k in range(15):
    delay = random.uniform(0.0, 0.2)
    try:
        if sys.argv[2] == "ctrl-c":
            threading.Timer(delay, signal.pthread_kill, (main, signal.SIGINT)).start()
            while True:
                work()
        else:
            with time_limit(delay):
                while True:
                    work()
    except BaseException as exc:
        seen.append(type(exc).__name__)
    for thread in threading.enumerate():  # the backstop: this run goes on after each
        if isinstance(thread, threading.Timer):
            thread.cancel()
print(" ".join(seen))
sys.stdout.flush()
os._exit(0)
"""


@pytest.mark.parametrize("work", ["towers", "engine"])
@pytest.mark.parametrize(("signalled", "raised"), [("ctrl-c", "KeyboardInterrupt"),
                                                   ("time limit", "TimeLimitReached")])
def test_a_signal_inside_compiled_code_is_the_interrupt_it_says(work, signalled, raised):
    """Each Ctrl-C (or time limit) at random moments of compiled work is the interrupt
    itself, never a ``SystemError`` of the compiled function it came in."""
    done = subprocess.run([sys.executable, "-c", _SIGNALLED, work, signalled],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [raised] * 15, done.stdout


_LOADING = """
import os, signal, sys, time
from cpmodels.interrupt import interrupt_or_leave
sys.path.insert(0, sys.argv[1])
signal.signal(signal.SIGINT, interrupt_or_leave)
try:
    import slow_to_load
    time.sleep(5)  # the command's work after the load
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted after the load:", sys.modules["slow_to_load"].LOADED)
sys.stdout.flush()
os._exit(0)
"""


def test_a_ctrl_c_while_a_module_loads_is_raised_once_it_has_loaded(tmp_path):
    """A command that loads a module after it has begun (a table's first use) and gets
    Ctrl-C meanwhile stops as after any Ctrl-C, saying how to resume: the interrupt is
    raised as the load ends, not lost in the import machinery nor ending the process."""
    (tmp_path / "slow_to_load.py").write_text(
        "import os, signal, time\nos.kill(os.getpid(), signal.SIGINT)\n"
        "time.sleep(0.2)\nLOADED = True\n")
    done = subprocess.run([sys.executable, "-c", _LOADING, str(tmp_path)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "interrupted after the load: True", done.stdout + done.stderr


def _system_error_from(cause):
    def handler(args):
        try:
            raise cause
        except BaseException as exc:
            raise SystemError("<built-in method of a solver> returned a result with an "
                              "exception set") from exc
    return handler


@pytest.mark.parametrize(("cause", "code", "said"), [
    (KeyboardInterrupt(), 130, "interrupted\n"),
    ("time limit", 3, "stopped by the time limit (2 s) without an answer\n")])
def test_a_system_error_from_an_interrupt_is_that_interrupt(cause, code, said, capsys,
                                                             monkeypatch):
    from cpmodels.cli import execute
    from cpmodels.interrupt import TimeLimitReached

    args = build_parser().parse_args(["validate", "calendar_day"])
    args.time_limit = 2.0
    if cause == "time limit":
        cause = TimeLimitReached("stopped by the time limit (2 s)")
    monkeypatch.setattr(args, "handler", _system_error_from(cause))
    assert execute(args) == code and capsys.readouterr().err == said
    monkeypatch.setattr(args, "handler", _system_error_from(ValueError("other")))
    with pytest.raises(SystemError):  # any other is no interrupt
        execute(args)


def test_ctrl_c_in_a_towers_solve_is_130_and_one_line(tmp_path):
    """The command line, Ctrl-C at several moments of a solve whose bound is worked out
    by the programme in the main thread."""
    for delay in (0.3, 0.8, 1.5):
        code, err, finished_first = _interrupted(
            ["solve", "towers", "--size", "12x12", "--time-limit", "30"], delay, tmp_path)
        assert not finished_first and code == 130, (delay, code, err)
        assert err.strip() == "interrupted", (delay, err)


def test_ctrl_c_as_the_workers_start_is_130_and_one_line(tmp_path):
    """Ctrl-C the moment a design's first worker process appears (the second is being
    forked): the workers start with it held, so none of them prints a traceback."""
    design = SPECS / "designs" / "apad_rectangle_pentominoes.yaml"
    process = subprocess.Popen([sys.executable, "-m", "cpmodels", "design", str(design),
                                "--jobs", "2", "--quiet"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, cwd=tmp_path)
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    deadline = time.monotonic() + 120
    while process.poll() is None and time.monotonic() < deadline:
        if children.read_text().split():
            break
        time.sleep(0.002)
    if len(os.sched_getaffinity(0)) < 2 or process.poll() is not None:
        process.kill()
        pytest.skip("no worker process started here")
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and err.decode().strip() == "interrupted", err


def test_a_priced_claim_whose_bands_could_not_be_listed_is_refused_first(tmp_path):
    """A claim of the right shape for a 100x100 board of 16 colours: its bands would hold
    23.6 million scores each (gigabytes as lists), more than any band's header can list."""
    from cpmodels.spec import load_spec
    from cpmodels.towers.certificate import PRICED_FORMAT, header_problem
    from cpmodels.towers.problem import towers_problem

    spec = _towers(tmp_path, 16, 5)
    problem = towers_problem(load_spec(spec), 100, 100)
    n = problem.codes
    claim = {"format": PRICED_FORMAT, "version": 2, "puzzle": problem.name,
             **header_problem(problem), "cut": 50, "scale": 10, "bound": 0,
             "prices": np.zeros((100, n, n + 1, n), dtype=int).tolist()}
    bad = tmp_path / "big.bound"
    with zipfile.ZipFile(bad, "w") as archive:
        archive.writestr("claim.json", json.dumps(claim))
    done = _cli_limited("verify", spec, "--proof", bad, "--size", "100x100", timeout=60)
    assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "23,582,400 scores, more than a band's header holds" in done.stdout
