"""The towers pricing over several runs: its whole state saved as it goes and on Ctrl-C,
continued to the same bound and prices as a run never stopped, hostile states refused in
one line, and its log line. Small boards (5x5 and 6x6, steps of milliseconds), through
``lagrangian_bound`` and through ``solve --proof --priced-bound``."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from conftest import ROOT, SPECS

from cpmodels.errors import InputError
from cpmodels.spec import load_spec
from cpmodels.towers import bounds, towers_problem
from cpmodels.towers.pricing import MAX_STATE_BYTES, StepLog, load_state

SPEC = SPECS / "towers.yaml"


def _problem(n: int):
    return towers_problem(load_spec(SPEC), n, n)


def _stopped_at(k: int):
    """An ``on_step`` that stops the pricing as Ctrl-C would, once step ``k`` is done."""
    def on_step(step: int, value: float) -> None:
        if step == k - 1:
            raise KeyboardInterrupt
    return on_step


@pytest.mark.parametrize(("n", "cut", "method", "scale", "steps", "k"), [
    (5, 3, "polyak", 10, 40, 13),
    (5, 3, "bundle", 100, 60, 9),  # stopped among Polyak's steps, continued into the bundle
    (5, 3, "bundle", 100, 60, 33),  # stopped in the bundle
    (6, 3, "bundle", 10, 24, 17),
])
def test_a_pricing_stopped_and_continued_ends_as_one_never_stopped(tmp_path, n, cut, method,
                                                                   scale, steps, k):
    problem = _problem(n)
    asked = dict(steps=steps, method=method, scale=scale, target=730 if n == 5 else 1130)
    whole = bounds.lagrangian_bound(problem, cut, **asked)
    state = tmp_path / "state.json"
    with pytest.raises(KeyboardInterrupt):
        bounds.lagrangian_bound(problem, cut, **asked, save=state, on_step=_stopped_at(k))
    saved = load_state(state, problem)
    assert len(saved.values) == k and saved.values[0] == round(whole.steps[0] * scale)
    rest = bounds.lagrangian_bound(problem, cut, **asked, resume=saved, save=state)
    assert rest.bound == whole.bound and rest.steps == whole.steps
    assert np.array_equal(rest.prices, whole.prices)
    # Saved again at its end: continued once more, nothing is left to do.
    again = bounds.lagrangian_bound(problem, cut, **asked, resume=load_state(state, problem))
    assert again.steps == whole.steps and np.array_equal(again.prices, whole.prices)


def test_a_state_of_another_pricing_is_refused_naming_what_differs(tmp_path):
    problem = _problem(5)
    state = tmp_path / "state.json"
    bounds.lagrangian_bound(problem, 3, steps=3, method="bundle", scale=100, target=730,
                            save=state)
    saved = load_state(state, problem)
    same = dict(steps=6, method="bundle", scale=100, target=730)
    for change, words in [({"scale": 10}, "price scale (--price-scale) 100; this run asks "
                           "for 10"),
                          ({"method": "polyak"}, "method (--price-method) bundle"),
                          ({"target": 720}, "aim under 730"),
                          ({"box": 1}, "first box 10.0")]:
        with pytest.raises(InputError, match=re.escape(words)):
            bounds.lagrangian_bound(problem, 3, **{**same, **change}, resume=saved)
    with pytest.raises(InputError, match="saved with the cut"):
        bounds.lagrangian_bound(problem, 2, **same, resume=saved)
    with pytest.raises(InputError, match="for a 5x5 board, not 6x6"):
        load_state(state, _problem(6))  # another board: the prices' shape differs too
    with pytest.raises(ValueError, match="not both"):
        bounds.lagrangian_bound(problem, 3, **same, resume=saved, start=saved.prices)


def _cli(*argv: str) -> list[str]:
    return [sys.executable, "-m", "cpmodels", "solve", str(SPEC), "--size", "5x5",
            "--time-limit", "5", "--priced-bound", *argv]


def test_ctrl_c_keeps_the_pricing_and_price_from_goes_on_with_it(tmp_path):
    """A real SIGINT to the command while it prices (once its first log line is out): the
    board is printed, the state kept; --price-from goes on to the bound and prices of one
    pricing never stopped."""
    proof, state = tmp_path / "5x5.bound", tmp_path / "5x5.pricing"
    process = subprocess.Popen(_cli("--proof", str(proof), "--price-save", str(state),
                                    "--price-steps", "100000", "--format", "json"),
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        first = process.stderr.readline()
        assert first.startswith("pricing step 1/100,000: bound "), first
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    answer = json.loads(out)
    assert answer["score"] == 730 and answer["proof"] is None and not proof.exists()
    assert answer["pricing_state"] == str(state)
    problem = _problem(5)
    done = len(load_state(state, problem).values)
    assert done >= 1
    total = done + 5
    again = subprocess.run(_cli("--proof", str(proof), "--price-from", str(state),
                                "--price-steps", str(total), "--format", "json", "--quiet"),
                           cwd=tmp_path, capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert again.returncode == 0, again.stderr
    assert again.stderr == ""  # --quiet: no log line
    whole = bounds.lagrangian_bound(problem, 3, steps=total, target=730, stop_at=730)
    with zipfile.ZipFile(proof) as archive:
        claim = json.loads(archive.read("claim.json"))
    assert json.loads(again.stdout)["proof_bound"] == claim["bound"] == whole.bound
    assert np.array_equal(np.array(claim["prices"]), whole.prices)
    assert len(load_state(state, problem).values) == total  # saved back where it came from


def _good_state(tmp_path) -> dict:
    state = tmp_path / "good.json"
    bounds.lagrangian_bound(_problem(5), 3, steps=20, method="bundle", scale=10, target=730,
                            save=state)
    return json.loads(state.read_text())


def _hostile_states(tmp_path) -> list[tuple[str, object, str]]:
    """(name, what the file holds: text, bytes or a way to make it, words of the refusal)."""
    good = _good_state(tmp_path)
    text = json.dumps(good, separators=(",", ":"))

    def changed(**fields: object) -> str:
        return json.dumps({**good, **fields})

    cut = good["cuts"][-1]
    six = tmp_path / "six.json"
    bounds.lagrangian_bound(_problem(6), 3, steps=2, save=six)
    return [
        ("truncated", text[:len(text) // 2], "is not a pricing state"),
        ("not JSON", "prices: [1, 2]", "is not a pricing state"),
        ("not UTF-8", b"\xff\xfe{}", "is not a pricing state"),
        ("empty", "", "is not a pricing state"),
        ("a list", "[1, 2, 3]", "format is not"),
        ("another version", changed(version=9), "version 9"),
        ("another board", six.read_text(), "for a 6x6 board, not 5x5"),
        ("another scale", changed(scale=100), "price scale (--price-scale) 100"),
        ("another method", changed(method="polyak"), "method (--price-method) polyak"),
        ("huge prices", changed(prices=[0] * 1_000_000), "prices is not a list of"),
        ("too many steps", changed(values=[1] * 100_001, cuts=[cut] * 100_001),
         "at most 100,000"),
        ("a cut per step missing", changed(cuts=good["cuts"][:-1]), "one cut a step"),
        ("a price too large", changed(prices=[10**13, *good["prices"][1:]]), "prices holds"),
        ("an integer past 64 bits", text.replace('"cut":3', '"cut":' + "9" * 40),
         "out of range"),
        ("NaN", text.replace('"theta":', '"theta":NaN,"x":'), "not a finite number"),
        ("1e400", changed(box=None, first_box=1e400) .replace("Infinity", "1e400"),
         "out of range"),
        ("a bool for a number", changed(level=True), "level is not a whole number"),
        ("a corner out of the board", changed(cuts=[[[5000], [1], 0, [], [], 0],
                                                    *good["cuts"][1:]]), "cut 0"),
        ("corners out of order", changed(cuts=[[[9, 3], [1, 1], 0, [], [], 0],
                                                 *good["cuts"][1:]]), "in order"),
        ("a negative count", changed(cuts=[[[3], [-1], 0, [], [], 0], *good["cuts"][1:]]),
         "cut 0"),
        ("an unknown phase", changed(phase="newton"), "phase is not one of"),
        ("a bundle without its centre", changed(centre=None), "centre is not"),
        ("theta zero", changed(theta=0), "above 0"),
        ("nested deep", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("a huge name", changed(puzzle={**good["puzzle"], "name": "x" * 1_000_000}),
         "for the puzzle 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..., not 'towers'"),
        ("a list for the rows", changed(puzzle={**good["puzzle"], "rows": [5] * 1000}),
         "is for another board, not 5x5"),
    ]


def test_hostile_state_files_are_one_line_and_exit_2(tmp_path, run_cli):
    proof = tmp_path / "5x5.bound"
    asked = ("solve", SPEC, "--size", "5x5", "--time-limit", "5", "--proof", proof,
             "--priced-bound", "--price-method", "bundle", "--price-steps", "30")
    for name, held, words in _hostile_states(tmp_path):
        state = tmp_path / "hostile.json"
        if isinstance(held, bytes):
            state.write_bytes(held)
        else:
            state.write_text(held)
        code, out, err = run_cli(*asked, "--price-from", state)
        assert code == 2 and out == "", name
        assert err.count("\n") == 1 and "Traceback" not in err, (name, err)
        assert words in err, (name, err)
        assert not proof.exists()
    # Not a regular file, a link, or past the size limit: refused before it is read.
    folder = tmp_path / "folder"
    folder.mkdir()
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "good.json")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:
        handle.truncate(MAX_STATE_BYTES + 1)  # sparse: nothing written
    for path, words in [(folder, "a directory"), (link, "a symbolic link"),
                        (fifo, "a FIFO"), (tmp_path / "missing.json", "no such file")]:
        code, out, err = run_cli(*asked, "--price-from", path)
        assert code == 2 and err.count("\n") == 1 and words in err, (path, err)
    code, out, err = run_cli(*asked, "--price-from", huge, "--price-save",
                             tmp_path / "elsewhere.json")
    assert code == 2 and err.count("\n") == 1 and "at most 64,000,000 bytes" in err, err
    for path in (folder, link, fifo):  # where the state would be saved
        code, out, err = run_cli(*asked, "--price-save", path)
        assert code == 2 and err.count("\n") == 1, (path, err)


def test_the_pricing_options_need_a_priced_bound(run_cli, tmp_path):
    state = tmp_path / "state.json"
    for argv, words in [(("--price-from", state), "--price-from goes with --proof"),
                        (("--price-save", state), "--price-save goes with --proof"),
                        (("--cluster", "local:2"), "--cluster goes with --proof"),
                        (("--priced-bound",), "--priced-bound goes with --proof"),
                        (("--proof", tmp_path / "c", "--price-save", state),
                         "are for a priced bound")]:
        code, _, err = run_cli("solve", SPEC, "--size", "4x4", "--time-limit", "5", *argv)
        assert code == 2 and err.count("\n") == 1 and words in err, (argv, err)
    assert not state.exists()


def test_the_log_line_says_the_step_the_bound_the_board_and_the_step_size():
    lines: list[str] = []
    problem = _problem(5)
    log = StepLog(lines.append, 12, 730, every=0)
    priced = bounds.lagrangian_bound(problem, 3, steps=12, method="bundle", scale=100,
                                     target=730, on_state=log)
    assert len(lines) == 12
    shape = re.compile(r"pricing step (\d+)/12: bound ([\d,]+\.\d\d) \(best board 730\), "
                       r"(Polyak theta [\d.e-]+|bundle box [\d,.]+ points), [\d.]+ s a step")
    found = [shape.fullmatch(line) for line in lines]
    assert all(found), lines
    assert [int(m[1]) for m in found] == list(range(1, 13))  # type: ignore[index]
    bounds_said = [float(m[2].replace(",", "")) for m in found]  # type: ignore[index]
    assert bounds_said == [min(priced.steps[:k + 1]) for k in range(12)]
    assert "Polyak theta 1," in lines[0] and "bundle box" in lines[-1]
    quiet = StepLog(lines.append, 12, None)  # every 15 s: the first step alone here
    lines.clear()
    bounds.lagrangian_bound(problem, 3, steps=5, on_state=quiet)
    assert len(lines) == 1 and "best board" not in lines[0]
