"""The code base stays ruff clean and type-checks with mypy (both come with the test extra)."""

from __future__ import annotations

import re
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


@pytest.mark.early.with_args(lambda scratch: [sys.executable, "-m", "mypy"])
def test_mypy_clean(early):
    """The package type-checks (settings in pyproject.toml: the pydantic plugin, Python 3.10;
    the check starts with the session)."""
    result = early
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success" in result.stdout


def test_no_browser_wait_is_on_a_promise():
    """A page function handed to Playwright's ``wait_for_function`` returning a promise (an
    async function, an import, a fetch) returns at once: a promise is truthy, never awaited.
    Such a wait goes through ``conftest.wait_until``, which awaits it."""
    found = []
    for path in sorted((ROOT / "tests").glob("*.py")) + sorted((ROOT / "benchmarks").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for call in re.finditer(r"wait_for_function\(", text):
            argument = _call_argument(text, call.end())
            if re.search(r"\basync\b|\bawait\b|\.then\(|\bimport\(|\bfetch\(", argument):
                found.append(f"{path.name}:{text.count(chr(10), 0, call.start()) + 1}")
    assert not found, found


def _call_argument(text: str, start: int) -> str:
    """The text of a call's arguments, from just after its opening parenthesis."""
    depth = 1
    for end in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        if depth == 0:
            return text[start:end]
    return text[start:]
