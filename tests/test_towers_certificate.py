"""Towers certificates: written from the programme, checked without it, forgeries rejected."""

from __future__ import annotations

import contextlib
import io
import json
import time
import zipfile
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from checker import check_towers
from conftest import SPECS, early_call, figures_of, write_figures

from cpmodels.cli import main
from cpmodels.spec import load_spec
from cpmodels.towers import model as towers_model
from cpmodels.towers import programme
from cpmodels.towers.certificate import CertificateWriter, check_certificate
from cpmodels.towers.problem import towers_problem

# A 7x7 board scoring 1,570, the proved optimum (puzzles README); checked by check_towers.
BOARD_7X7 = ["BRGBGRB", "GWYRWYG", "RBBGBBR", "GYWRWYG", "BRGBGRB", "GWYBYWG", "RBRGRBR"]


def _problem(rows, cols, spec=SPECS / "towers.yaml"):
    return towers_problem(load_spec(spec), rows, cols)


def _writer(path, problem):
    return CertificateWriter(path, problem, programme.key_layout(problem))


def _certify(path, problem, claim, board, incumbent=None):
    """Run the programme into a certificate at ``path`` claiming ``claim`` with ``board``."""
    writer = _writer(path, problem)
    programme.solve_dp(problem, incumbent=incumbent, layer_sink=writer.layer)
    writer.finish(claim, board)
    return path


def _rewrite(source, target, change):
    """Copy a certificate, passing each entry's name and bytes through ``change``."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            data = change(name, old.read(name))
            if data is not None:
                new.writestr(name, data)
    return target


def _with_header(source, target, **fields):
    def change(name, data):
        if name != "header.json":
            return data
        return json.dumps({**json.loads(data), **fields}).encode()
    return _rewrite(source, target, change)


def _array_bytes(array):
    import io
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array)
    return buffer.getvalue()


def _layer(path, t):
    with zipfile.ZipFile(path) as archive:
        deltas = np.lib.format.read_array(archive.open(f"layers/{t}.keys.npy"))
        scores = np.lib.format.read_array(archive.open(f"layers/{t}.scores.npy"))
    return np.cumsum(deltas, dtype=np.uint64), scores


def _with_layer(source, target, t, keys, scores):
    def change(name, data):
        if name == f"layers/{t}.keys.npy":
            return _array_bytes(np.diff(keys, prepend=np.uint64(0)))
        if name == f"layers/{t}.scores.npy":
            return _array_bytes(scores)
        return data
    return _rewrite(source, target, change)


@pytest.mark.parametrize("size, optimum", [((5, 5), 730), ((6, 6), 1130)])
def test_the_solver_s_certificates_check(tmp_path, size, optimum):
    problem = _problem(*size)
    if size == (7, 7):  # CP-SAT's part takes 14 s: the board is given, the programme proves
        assert check_towers(BOARD_7X7, 7, 7) == optimum
        path = _certify(tmp_path / "c", problem, optimum, BOARD_7X7, incumbent=optimum)
    else:
        writer = _writer(tmp_path / "c", problem)
        result = towers_model.solve(problem, layer_sink=writer.layer)
        assert result.optimal and writer.complete
        writer.finish(result.score, result.grid)
        path = tmp_path / "c"
    check = check_certificate(path, problem)
    assert check.ok, check.message
    assert check.optimum == optimum and check.layers == size[0] * size[1] + 1
    assert (check.bounded > 0) == (size == (7, 7))  # the half-turn bound pruned 7x7
    assert not (tmp_path / "c.tmp").exists()


def test_a_claim_below_the_optimum_is_rejected(tmp_path):
    problem = _problem(5, 5)
    best = towers_model.solve(problem).grid
    _, board_720, _ = towers_model._search(problem, time.perf_counter() + 30, None,
                                           target=720, ceiling=720)
    assert problem.score(board_720) == 720 and not problem.violations(board_720)
    # The programme run against 720 finds 730 in its last layer.
    low = _certify(tmp_path / "low", problem, 720, board_720, incumbent=720)
    check = check_certificate(low, problem)
    assert not check.ok and "scoring 730, more than the 720" in check.message
    # The programme's pruning against 730 does not hold against a claim of 720.
    pruned = _certify(tmp_path / "pruned", problem, 730, best, incumbent=730)
    assert check_certificate(pruned, problem).ok
    forged = _with_header(pruned, tmp_path / "forged", optimum=720, board=board_720)
    check = check_certificate(forged, problem)
    assert not check.ok and "beats the claim" in check.message
    # A board that does not score the claim, or breaks a rule.
    check = check_certificate(_with_header(pruned, tmp_path / "f2", optimum=740), problem)
    assert not check.ok and "scores 730, not the 740" in check.message
    bad = ["W" + best[0][1:], *best[1:]]
    check = check_certificate(_with_header(pruned, tmp_path / "f3", board=bad), problem)
    assert not check.ok and "breaks a rule" in check.message


def test_a_missing_state_or_a_lowered_score_is_caught(tmp_path):
    problem = _problem(4, 5)
    grid = towers_model.solve(problem).grid
    full = _certify(tmp_path / "full", problem, problem.score(grid), grid)
    assert check_certificate(full, problem).ok
    rng = np.random.default_rng(7)
    # Layers of the first half: no bound can stand in for a state there. (In the second
    # half a state that cannot beat the claim may be missing: the half-turn bound covers
    # it, as it covers the programme's pruning.)
    for t in (3, 7, 10):
        keys, scores = _layer(full, t)
        drop = int(rng.integers(len(keys)))
        thinner = _with_layer(full, tmp_path / f"drop{t}", t, np.delete(keys, drop),
                              np.delete(scores, drop))
        check = check_certificate(thinner, problem)
        assert not check.ok and f"which layer {t} does not hold" in check.message
        top = int(np.argmax(scores))
        lower = scores.copy()
        lower[top] -= 10
        check = check_certificate(_with_layer(full, tmp_path / f"low{t}", t, keys, lower),
                                  problem)
        assert not check.ok and f"which layer {t} does not hold" in check.message


def test_the_certificate_must_match_the_puzzle(tmp_path):
    problem = _problem(4, 4)
    grid = towers_model.solve(problem).grid
    path = _certify(tmp_path / "c", problem, problem.score(grid), grid)
    check = check_certificate(path, _problem(4, 5))
    assert not check.ok and "for a 4x4 board, not 4x5" in check.message
    other = towers_problem(_spec(tmp_path, points=15), 4, 4)
    check = check_certificate(path, other)
    assert not check.ok and "another puzzle" in check.message


def _spec(tmp_path, points=10, fixed=None, allow_empty=False, rows=4, cols=4):
    lines = [f"kind: towers\nname: t\nrows: {rows}\ncols: {cols}",
             f"allow_empty: {str(allow_empty).lower()}", "colours:",
             f"  - {{name: Blue, letter: B, points: {points}}}",
             "  - {name: Red, letter: R, points: 20, needs: [Blue]}",
             "  - {name: Green, letter: G, points: 30, needs: [Red, Blue]}",
             "  - {name: Yellow, letter: Y, points: 40, needs: [Green, Red, Blue]}",
             "  - {name: White, letter: W, points: 100, needs: [Yellow, Green, Red, Blue]}"]
    if fixed:
        lines.append(f"fixed: {json.dumps(fixed)}")
    path = tmp_path / "spec.yaml"
    path.write_text("\n".join(lines) + "\n")
    return load_spec(path)


@pytest.mark.parametrize("fixed, allow_empty, rows, cols", [
    (["????.", "??W??", "?????"], True, 3, 5),  # turned: placed along the 3 rows' columns
    (["????", "?G??", "????", "??.?", "????"], True, 5, 4),
    (None, True, 3, 6),
])
def test_built_cells_empty_cells_and_turned_boards(tmp_path, fixed, allow_empty, rows, cols):
    problem = towers_problem(_spec(tmp_path, fixed=fixed, allow_empty=allow_empty, rows=rows,
                                   cols=cols))
    writer = _writer(tmp_path / "c", problem)
    result = towers_model.solve(problem, layer_sink=writer.layer)
    assert result.optimal
    writer.finish(result.score, result.grid)
    check = check_certificate(tmp_path / "c", problem)
    assert check.ok, check.message
    assert check.optimum == towers_model.solve(problem, use_dp=False).score


def test_a_puzzle_with_no_legal_board(tmp_path):
    # White needs four colours; a corner has two neighbours.
    problem = towers_problem(_spec(tmp_path, fixed=["W???", "????", "????", "????"]))
    writer = _writer(tmp_path / "c", problem)
    result = towers_model.solve(problem, layer_sink=writer.layer)
    assert result.status == "unsolvable" and writer.complete
    writer.finish(None, None)
    check = check_certificate(tmp_path / "c", problem)
    assert check.ok and check.optimum is None and check.message == "no legal board"


@pytest.mark.parametrize("damage, message", [
    ("not a zip", "not a towers certificate"),
    ("no header", "no header.json"),
    ("no layer", "layers/2.keys.npy is missing"),
    ("duplicate", "lists a state twice"),
    ("version", "version 9"),
    ("layout", "key layout"),
    ("no turned", "the header lacks 'turned'"),
])
def test_damaged_certificates_are_rejected_cleanly(tmp_path, damage, message):
    problem = _problem(3, 3)
    grid = towers_model.solve(problem).grid
    good = _certify(tmp_path / "good", problem, problem.score(grid), grid)
    bad = tmp_path / "bad"
    if damage == "not a zip":
        bad.write_text("hello")
    elif damage == "no header":
        _rewrite(good, bad, lambda name, data: None if name == "header.json" else data)
    elif damage == "no layer":
        _rewrite(good, bad, lambda name, data: None if name.startswith("layers/2.") else data)
    elif damage == "duplicate":
        keys, scores = _layer(good, 4)
        _with_layer(good, bad, 4, np.repeat(keys, 2), np.repeat(scores, 2))
    elif damage == "version":
        _with_header(good, bad, version=9)
    elif damage == "layout":
        _with_header(good, bad, cell_bits=40)
    else:
        def drop_turned(name, data):
            if name != "header.json":
                return data
            header = json.loads(data)
            del header["turned"]
            return json.dumps(header).encode()
        _rewrite(good, bad, drop_turned)
    check = check_certificate(bad, problem)
    assert not check.ok and message in check.message


def test_the_command_line_writes_checks_and_verifies(tmp_path, capsys):
    spec = str(SPECS / "towers.yaml")
    proof = tmp_path / "5x5.cert"
    assert main(["solve", spec, "--proof", str(proof), "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["score"] == 730 and answer["proof_checked"] and answer["optimal"]
    assert main(["verify", spec, "--proof", str(proof)]) == 0
    assert "towers 5x5: optimum 730 proved (certificate checked" in capsys.readouterr().out
    assert main(["verify", spec, "--proof", str(proof), "--size", "4x4"]) == 3
    assert "for a 5x5 board, not 4x4" in capsys.readouterr().out
    # Errors: one line, no traceback.
    assert main(["solve", spec, "--size", "9x9", "--proof", str(tmp_path / "x")]) == 2
    assert "give --time-limit" in capsys.readouterr().err
    assert main(["solve", str(SPECS / "sixpack.yaml"), "--proof", str(tmp_path / "x")]) == 2
    assert "prove --proof" in capsys.readouterr().err
    assert main(["verify", str(SPECS / "sixpack.yaml"), "--proof", str(proof)]) == 2
    assert main(["verify", spec, "--proof", str(tmp_path / "none")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["solve", spec, "--proof", str(tmp_path / "no" / "dir" / "x")]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_no_certificate_without_a_proof(tmp_path, capsys):
    proof = tmp_path / "8x8.cert"
    code = main(["solve", str(SPECS / "towers.yaml"), "--size", "8x8", "--time-limit", "3",
                 "--proof", str(proof)])
    assert code == 3 and "no certificate written" in capsys.readouterr().out
    assert not proof.exists() and not (tmp_path / "8x8.cert.tmp").exists()



def test_certificates_written_and_checked_from_threads_at_once(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    sizes = {(4, 4): 440, (5, 5): 730, (4, 5): None, (3, 6): None}
    alone = {size: towers_model.solve(_problem(*size)).score for size in sizes}

    def certify(job):
        run, size = job
        problem = _problem(*size)
        path = tmp_path / f"{size[0]}x{size[1]}-{run}"
        writer = _writer(path, problem)
        result = towers_model.solve(problem, layer_sink=writer.layer)
        writer.finish(result.score, result.grid)
        return size, result.score, check_certificate(path, problem)

    jobs = [(run, size) for run in range(2) for size in sizes]
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(certify, jobs))
    assert len(answers) == 8
    for size, score, check in answers:
        assert check.ok and score == check.optimum == alone[size]
        assert sizes[size] in (None, score)


def _replace_member(source, target, name: str, data: bytes) -> None:
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            new.writestr(item, data if item.filename == name else old.read(item.filename))


@pytest.fixture(scope="module")
def priced_5x5(tmp_path_factory):
    from cpmodels.towers.proof import bound_with_certificate

    path = tmp_path_factory.mktemp("priced") / "5x5.bound"
    problem = towers_problem(load_spec(SPECS / "towers.yaml"), 5, 5)
    return problem, path, bound_with_certificate(problem, path, cut=3, steps=20, target=730)


def test_a_priced_bound_is_certified_and_verified(priced_5x5, capsys):
    from cpmodels.towers import bounds

    problem, path, proved = priced_5x5
    free = bounds.band_bound(problem, 3, False, True) + bounds.band_bound(problem, 2, True, False)
    assert proved.check.ok and 730 <= proved.bound < free and proved.check.bound == proved.bound
    assert main(["verify", str(SPECS / "towers.yaml"), "--proof", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"no board scores more than {proved.bound}, proved" in out



def test_prices_found_before_are_certified_in_one_step(priced_5x5, tmp_path):
    from cpmodels.towers.proof import bound_with_certificate

    problem, path, proved = priced_5x5
    with zipfile.ZipFile(path) as archive:
        claim = json.loads(archive.read("claim.json"))
    again = tmp_path / "again.bound"
    redone = bound_with_certificate(problem, again, cut=claim["cut"], steps=1,
                                    start=np.array(claim["prices"]), scale=claim["scale"])
    assert redone.steps == 1 and redone.check.ok and redone.bound == proved.bound

@pytest.mark.parametrize(("fields", "message"), [
    ({"version": True}, "version True"),
    ({"version": 1.0}, "version 1.0"),
    ({"format": True}, "not a towers certificate"),
    ({"rows": 3.0}, "3.0x3 board"),
])
def test_a_header_number_of_another_kind_is_refused(tmp_path, fields, message):
    # ``true`` and ``1.0`` equal 1 in Python; a header holding them is not version 1.
    problem = _problem(3, 3)
    grid = towers_model.solve(problem).grid
    good = _certify(tmp_path / "good", problem, problem.score(grid), grid)
    check = check_certificate(_with_header(good, tmp_path / "bad", **fields), problem)
    assert not check.ok and message in check.message


def test_a_colour_s_points_as_a_float_is_another_puzzle(tmp_path):
    problem = _problem(3, 3)
    grid = towers_model.solve(problem).grid
    good = _certify(tmp_path / "good", problem, problem.score(grid), grid)
    with zipfile.ZipFile(good) as archive:
        colours = json.loads(archive.read("header.json"))["colours"]
    colours[0]["points"] = float(colours[0]["points"])
    check = check_certificate(_with_header(good, tmp_path / "bad", colours=colours), problem)
    assert not check.ok and "another puzzle" in check.message


def test_a_priced_claim_s_size_as_true_is_refused(priced_5x5, tmp_path):
    from cpmodels.towers.certificate import check_priced_bound

    problem, path, _ = priced_5x5
    bad = tmp_path / "bad.bound"
    _forged_claim(path, bad, lambda c: c.update(format=True))
    assert not check_priced_bound(bad, problem).ok
    _forged_claim(path, bad, lambda c: c.update(cols=5.0))
    check = check_priced_bound(bad, problem)
    assert not check.ok and "5x5.0 board" in check.message


def _nudge_a_used_price(prices) -> None:
    """One price of a corner the bands see (column 1 has a left neighbour) moved by one."""
    prices[1][0][0][0] += 1


def _forged_claim(path, target, change) -> None:
    with zipfile.ZipFile(path) as archive:
        claim = json.loads(archive.read("claim.json"))
    change(claim)
    _replace_member(path, target, "claim.json", json.dumps(claim).encode())


@pytest.mark.parametrize(("change", "message"), [
    (lambda c: c.update(bound=c["bound"] - 10), "the bands prove"),
    (lambda c: _nudge_a_used_price(c["prices"]), "other prices"),
    (lambda c: c.update(prices=c["prices"][1:]), "do not fit"),
    (lambda c: c.pop("prices"), "do not fit"),
    (lambda c: c.update(cut=1), "other prices or rows"),
    (lambda c: c.update(rows=6), "6x5 board, not 5x5"),
    (lambda c: c.update(scale=0), "do not fit"),
    (lambda c: c.update(scale=c["scale"] // 10), "other prices or rows"),
])
def test_a_forged_priced_claim_is_rejected(priced_5x5, tmp_path, change, message):
    from cpmodels.towers.certificate import check_priced_bound

    problem, path, _ = priced_5x5
    bad = tmp_path / "bad.bound"
    _forged_claim(path, bad, change)
    check = check_priced_bound(bad, problem)
    assert not check.ok and message in check.message


def test_a_forged_band_certificate_is_rejected(priced_5x5, tmp_path):
    from cpmodels.towers.certificate import check_priced_bound

    problem, path, _ = priced_5x5
    with zipfile.ZipFile(path) as archive:
        band = archive.read("top.cert")
    # The band's own claim lowered: its last layer holds a better band board.
    inner = tmp_path / "top.cert"
    inner.write_bytes(band)
    lowered = tmp_path / "lowered.cert"

    def lower(header: bytes) -> bytes:
        data = json.loads(header)
        data["bound"] -= 1
        return json.dumps(data).encode()

    with zipfile.ZipFile(inner) as old:
        _replace_member(inner, lowered, "header.json", lower(old.read("header.json")))
    bad = tmp_path / "bad.bound"
    _replace_member(path, bad, "top.cert", lowered.read_bytes())
    check = check_priced_bound(bad, problem)
    assert not check.ok and "top.cert" in check.message and "more than" in check.message
    # A damaged file is refused with the reason, never a traceback.
    junk = tmp_path / "junk.bound"
    _replace_member(path, junk, "bottom.cert", b"not a zip")
    assert not check_priced_bound(junk, problem).ok


def _priced_solve(scratch: Path) -> dict[str, Any]:
    """A short ``solve --proof`` of the 9x9 board, its prices in hundredths, with what it
    asked the pricing (the keywords of each call), then ``verify`` of its proof: each
    command's status and JSON answer."""
    from cpmodels.towers import bounds

    real, asked = bounds.lagrangian_bound, []

    def priced(*args, **kwargs):
        asked.append({k: kwargs.get(k) for k in ("steps", "method", "scale", "stop_at", "target")})
        return real(*args, **kwargs)

    proof = scratch / "9x9.bound"
    spec = str(SPECS / "towers.yaml")
    said = []
    bounds.lagrangian_bound = priced
    try:
        for argv in (["solve", spec, "--size", "9x9", "--time-limit", "2", "--proof",
                      str(proof), "--price-steps", "3", "--price-method", "bundle",
                      "--price-scale", "100", "--format", "json"],
                     ["verify", spec, "--proof", str(proof), "--format", "json"]):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = main(argv)
            said.append([code, json.loads(out.getvalue())])
    finally:
        bounds.lagrangian_bound = real
    return {"solved": said[0], "verified": said[1], "asked": asked}


def figures(scratch: Path) -> None:
    """The priced solve's figures, in ``scratch``. Started with the session (the test's
    early command): the second processor solves while the suite runs."""
    scratch.mkdir(parents=True, exist_ok=True)
    write_figures({"priced": partial(_priced_solve, scratch)}, scratch)


@pytest.mark.early.with_args(partial(early_call, "test_towers_certificate", "figures"))
def test_past_8_wide_solve_certifies_a_priced_bound(early):
    found = figures_of(early, "priced")
    code, answer = found["solved"]
    assert code == 0  # a short run, its prices in hundredths
    assert answer["proof_checked"] and answer["bound"] == answer["proof_bound"] <= 2970
    assert answer["score"] <= answer["bound"]
    [kwargs] = found["asked"]
    assert (kwargs["steps"], kwargs["method"], kwargs["scale"]) == (3, "bundle", 100)
    assert kwargs["stop_at"] == kwargs["target"] == answer["score"]
    code, verified = found["verified"]
    assert code == 0
    assert verified["bound"] == answer["bound"]


def test_ctrl_c_while_the_bound_is_priced_keeps_the_board(tmp_path, capsys, monkeypatch):
    from cpmodels.towers import bounds

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(bounds, "lagrangian_bound", interrupted)
    proof = tmp_path / "9x9.bound"
    spec = str(SPECS / "towers.yaml")
    assert main(["solve", spec, "--size", "9x9", "--time-limit", "5", "--proof", str(proof),
                 "--format", "json"]) == 130
    answer = json.loads(capsys.readouterr().out)
    assert answer["score"] > 0 and answer["proof"] is None and not proof.exists()
    assert not list(tmp_path.iterdir())
    assert check_towers(answer["grid"], 9, 9) == answer["score"]  # checked by the rules


def _npy_header_claiming(shape: tuple[int, ...]) -> bytes:
    import io
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": "<u8", "fortran_order": False,
                                                  "shape": shape})
    return buffer.getvalue() + b"\0" * 64


@pytest.mark.parametrize(("change", "fragment"), [
    (lambda n, d: b"[" * 100_000 + b"]" * 100_000 if n == "header.json" else d,
     "not a towers certificate"),
    (lambda n, d: b'{"rows": ' + b"9" * 5000 + b"}" if n == "header.json" else d,
     "not a towers certificate"),
    (lambda n, d: b" " * 20_000_000 + d if n == "header.json" else d,
     "not a towers certificate"),
    (lambda n, d: _npy_header_claiming((10**12,)) if n == "layers/0.keys.npy" else d,
     "holds less data than its shape (1000000000000,) needs"),
    (lambda n, d: json.dumps({**json.loads(d), "rows": 10**9}).encode()
     if n == "header.json" else d, "rows and columns must be 1 to 200"),
    (lambda n, d: json.dumps({**json.loads(d), "rows": 10**100}).encode()
     if n == "header.json" else d, "header.json holds a number out of range"),
])
def test_a_hostile_certificate_gets_one_line_in_bounded_memory(tmp_path, capsys, change,
                                                               fragment):
    import resource

    problem = _problem(3, 3)
    good = _certify(tmp_path / "good.cert", problem, 200, ["RYB", "BGR", "RYB"])
    bad = _rewrite(good, tmp_path / "bad.cert", change)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code = main(["verify", str(SPECS / "towers.yaml"), "--proof", str(bad)])
    err = capsys.readouterr()
    assert code in (2, 3) and fragment in err.out + err.err and "Traceback" not in err.err
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 100, f"reading the certificate took {grown_mb:.0f} MB"
