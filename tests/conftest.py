from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cpmodels.cli import main

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"


@pytest.fixture
def run_cli(capsys):
    """Run the CLI in-process; return (exit status, stdout, stderr)."""

    def run(*argv: str) -> tuple[int, str, str]:
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def solve_json(run_cli):
    """``solve ... --format json`` parsed, with its exit status."""

    def run(*argv: str) -> tuple[int, dict]:
        code, out, err = run_cli("solve", *argv, "--format", "json")
        assert out, err
        return code, json.loads(out)

    return run


def stop_process(process: subprocess.Popen) -> None:
    """Stop a process a test started: terminate, then kill if it lingers."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
