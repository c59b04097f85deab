"""The code base stays ruff clean and type-checks with mypy (both come with the test extra)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean():
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.fail("ruff is not installed; install the test extra: pip install -e '.[test]'")
    result = subprocess.run([ruff, "check", "."], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_clean():
    """The package type-checks (settings in pyproject.toml: the pydantic plugin, Python 3.10)."""
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success" in result.stdout
