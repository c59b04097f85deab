"""The wheel works outside the checkout: built here, installed into a fresh virtual
environment, run read-only from a temporary directory (bundled specs by name, the engine's
compiled core)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from functools import partial
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, SERVING, early_call, said_port, stop_process

from cpmodels import __version__


def build_and_install(scratch: Path) -> None:
    """The wheel of the checkout, built as ``pip wheel .`` builds it, into ``scratch/wheel``,
    and installed into a fresh venv, ``scratch/venv``, whose dependencies are borrowed from
    this environment (a .pth line, read after the venv's own packages, so the wheel's
    cpmodels is the one imported, not the checkout's). Its build folder is the checkout's
    own (pyproject.toml's ``build-dir``, where ``pip install -e .`` builds too), so the core
    is compiled only when its sources changed since; two runs at once take turns
    (``build/wheel.lock``). The wheel alone is written outside ``build/``. Started with the
    session (the tests' early command): the second processor builds while the suite runs."""
    out = scratch / "wheel"
    lock = ROOT / "build" / "wheel.lock"
    lock.parent.mkdir(exist_ok=True)
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                        "--no-build-isolation", "-q", "-w", str(out), str(ROOT)], check=True,
                       timeout=600)
    (wheel,) = out.glob("cpmodels-*.whl")
    venv = scratch / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-deps", "--no-index", str(wheel)], check=True, timeout=300)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig."
                                "get_paths()['purelib'])"], capture_output=True, text=True,
                               check=True).stdout.strip())
    (site / "borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")


pytestmark = pytest.mark.early.with_args(partial(early_call, "test_wheel", "build_and_install"))


@pytest.fixture
def wheel(early) -> Path:
    """The wheel :func:`build_and_install` built."""
    assert early.returncode == 0, early.stdout + early.stderr
    (found,) = (early.scratch / "wheel").glob("cpmodels-*.whl")
    return found


@pytest.fixture
def installed(early) -> Path:
    """The fresh venv :func:`build_and_install` installed the wheel into."""
    assert early.returncode == 0, early.stdout + early.stderr
    return early.scratch / "venv"


def test_the_wheel_carries_the_specs_and_the_type_marker(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    specs = {p.relative_to(ROOT / "specs").as_posix() for p in (ROOT / "specs").rglob("*.yaml")}
    assert {f"cpmodels/bundled_specs/{s}" for s in specs} <= names
    assert "cpmodels/py.typed" in names and "cpmodels/web/static/play.js" in names
    assert "cpmodels/web/static/engine/engine.js" in names
    assert "cpmodels/web/static/notebook/widget.js" in names  # the notebook widget's front end
    # what cpmodels site writes beside the pages: the service worker's template, the icon
    assert {"cpmodels/web/static/site/sw.js", "cpmodels/web/static/site/icon.svg"} <= names
    if shutil.which("clang") and shutil.which("wasm-ld"):  # the build makes it with them
        assert "cpmodels/web/static/engine/engine.wasm" in names
    assert not any(n.startswith(("specs/", "tests/")) for n in names)
    assert wheel.name.startswith(f"cpmodels-{__version__}-")


def _read_only(venv: Path, argv: list[str]) -> list[str]:
    """``argv`` run with the venv mounted read-only (root: a private mount namespace),
    or with its files' write permission taken away (any other user)."""
    if os.geteuid() != 0:
        subprocess.run(["chmod", "-R", "a-w", str(venv)], check=True)
        return argv
    if shutil.which("unshare") is None:
        pytest.skip("unshare is needed to mount the install read-only as root")
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    return ["unshare", "--mount", "sh", "-c", script, str(venv), *argv]


def test_commands_from_a_read_only_install(installed, tmp_path):
    work = tmp_path / "elsewhere"
    work.mkdir()
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    cli = str(installed / "bin" / "cpmodels")
    # a home that cannot be written: nothing is cached or compiled at run time
    env = {"PATH": os.environ["PATH"], "HOME": str(installed / "nohome"),
           "TMPDIR": str(scratch), "LANG": "C.UTF-8"}

    def run(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        return subprocess.run(_read_only(installed, list(args)), cwd=work, env=env,
                              capture_output=True, text=True, timeout=timeout)

    probe = run(sys.executable, "-c", "print(1)")
    if probe.returncode != 0:
        pytest.skip(f"cannot mount the install read-only here: {probe.stderr.strip()}")

    version = run(cli, "--version")
    assert version.returncode == 0 and version.stdout.strip() == f"cpmodels {__version__}"
    where = run(str(installed / "bin" / "python"), "-c",
                "import cpmodels.api, cpmodels; print(cpmodels.__file__); "
                "print(cpmodels.api.count('calendar_day', date='2024-10-06').count)")
    assert where.returncode == 0, where.stderr
    location, count = where.stdout.split()
    assert location.startswith(str(installed)) and count == "7"
    listed = run(cli, "specs", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    names = {s["name"] for s in json.loads(listed.stdout)}
    assert {"calendar_week", "pentominoes_6x10", "towers", "soma"} <= names
    solved = run(cli, "solve", "calendar_week", "--labels", "Jun", "7", "Tue", "--format",
                 "json")
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout)["status"] == "solved"
    counted = run(cli, "count", "calendar_day", "--date", "2024-10-06", "--format", "json")
    assert counted.returncode == 0, counted.stderr
    assert json.loads(counted.stdout)["count"] == 7
    missing = run(cli, "solve", "no_such_spec")
    assert missing.returncode == 2 and "cpmodels specs" in missing.stderr


def test_serve_from_the_install(installed, tmp_path):
    """``serve`` with no argument offers the bundled calendars, from any directory."""
    process = subprocess.Popen([str(installed / "bin" / "cpmodels"), "serve", "--port", "0"],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        port = said_port(process, SERVING)
        deadline = time.time() + 120
        while True:
            try:
                specs = httpx.get(f"http://127.0.0.1:{port}/api/specs", timeout=5).json()
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                assert time.time() < deadline, "the server did not start"
                time.sleep(0.2)
        assert [s["name"] for s in specs["specs"]] == ["calendar_week", "calendar_day",
                                                      "calendar_week_11"]
    finally:
        stop_process(process)
