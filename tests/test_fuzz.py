"""A short run of every fuzz target of the core (benchmarks/fuzz.py: libFuzzer with
AddressSanitizer and UndefinedBehaviorSanitizer over each entry point that reads outside
data, seeded with what the package hands the core on the bundled and hostile specs):
a second each, no finding. The long run is the benchmark itself (``--seconds 600``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from conftest import ROOT

FUZZ = ROOT / "benchmarks" / "fuzz.py"


def _fuzz_module():
    """benchmarks/fuzz.py as a module (its dataclass needs it in sys.modules)."""
    spec = importlib.util.spec_from_file_location("benchmark_fuzz", FUZZ)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("benchmark_fuzz", module)
    spec.loader.exec_module(module)
    return module


def _fuzz_command(scratch: Path) -> list[str]:
    return [sys.executable, str(FUZZ), "--seconds", "1", "--crashes", str(scratch / "crashes")]


@pytest.mark.early.with_args(_fuzz_command)
def test_every_fuzz_target_runs_without_a_finding(early):
    """Each target built, seeded and run for a second: one line each with its
    executions and coverage, and a last line counting no finding (started with the
    session)."""
    fuzz = _fuzz_module()
    clang, why = fuzz.fuzzer_compiler()
    if clang is None:
        pytest.skip(why)
    done = early
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    names = fuzz.targets()
    assert len(names) >= 10
    assert [line.split(":")[0] for line in lines[:-1]] == names
    for line in lines[:-1]:
        executions = int(line.split(": ")[1].split(" executions")[0].replace(",", ""))
        assert executions > 0 and "cov: " in line and line.endswith(" 0 findings"), line
    assert lines[-1].endswith(" 0 findings"), lines[-1]
