"""The lean core: without the web, make and cluster extras the package still models,
solves, counts, sweeps and exports, and the commands that need an extra say which
``pip install`` line brings it (exit 2) before doing any work."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from conftest import ROOT

from cpmodels.extras import EXTRAS

# Every module of the three extras made unimportable (a None in sys.modules stops an
# import), then commands run in this one process, each with its output captured.
RUNNER = """
import contextlib, io, json, sys
for name in {blocked!r}:
    sys.modules[name] = None
from cpmodels.cli import main
answers = []
for argv in {commands!r}:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    answers.append({{"argv": argv, "code": code, "out": out.getvalue(), "err": err.getvalue()}})
import cpmodels.api as api
try:
    api.make("calendar_day", "{out}/made")
    answers.append({{"api_make": "no error"}})
except Exception as exc:
    answers.append({{"api_make": type(exc).__name__ + ": " + str(exc)}})
loaded = sorted(n for n in sys.modules if n.split(".")[0] in {blocked!r} and sys.modules[n])
print(json.dumps({{"answers": answers, "loaded": loaded}}))
"""


def test_the_core_works_without_the_extras_and_names_them_when_needed(tmp_path):
    blocked = sorted({m for modules in EXTRAS.values() for m in modules})
    commands = [
        ["solve", "calendar_week", "--labels", "Jun", "7", "Tue", "--format", "json"],
        ["count", "calendar_day", "--date", "2024-10-06", "--format", "json", "--quiet"],
        ["sweep", "calendar_day", "--out", str(tmp_path / "day.csv"), "--quiet"],
        ["export", "calendar_day", "--date", "2024-10-06", "--out", str(tmp_path / "d.cnf")],
        ["serve", "--port", "1"],
        ["site", str(tmp_path / "site")],
        ["make", "calendar_day", "--out", str(tmp_path / "parts")],
        ["count", "calendar_day", "--date", "2024-10-06", "--cluster", "local:1"],
    ]
    script = RUNNER.format(blocked=blocked, commands=commands, out=tmp_path)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    solve, count, sweep, export, serve, site, make, cluster, api_make = report["answers"]
    assert solve["code"] == 0 and json.loads(solve["out"])["status"] == "solved"
    assert count["code"] == 0 and json.loads(count["out"])["count"] == 7
    assert sweep["code"] == 0
    assert len((tmp_path / "day.csv").read_text().splitlines()) == 2 + 12 * 31
    assert export["code"] == 0 and (tmp_path / "d.cnf").read_text().startswith("c ")
    for answer, extra in ((serve, "web"), (site, "web"), (make, "make"),
                          (cluster, "cluster")):
        assert answer["code"] == 2, answer
        assert f"pip install 'cpmodels[{extra}]'" in answer["err"], answer
        assert len(answer["err"].strip().splitlines()) == 1, answer["err"]
    assert not (tmp_path / "parts").exists() and not (tmp_path / "site").exists()
    assert "MissingExtra" in api_make["api_make"] and "cpmodels[make]" in api_make["api_make"]
    assert report["loaded"] == []


def test_the_extras_declared_are_the_ones_the_package_checks():
    tomllib = pytest.importorskip("tomllib", reason="tomllib comes with Python 3.11")
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = declared["optional-dependencies"]
    for extra, modules in EXTRAS.items():
        names = {re.split(r"[<>=!~\[ ]", requirement)[0].lower()
                 for requirement in extras[extra]}
        assert names == set(modules), extra
        core = {re.split(r"[<>=!~\[ ]", r)[0].lower() for r in declared["dependencies"]}
        assert not core & set(modules), f"{extra}'s modules are in the core dependencies"
    assert "cpmodels[all]" in extras["test"]
    assert set(EXTRAS) <= set(re.search(r"\[(.*)\]", extras["all"][0]).group(1).split(","))
