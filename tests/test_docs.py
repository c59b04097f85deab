"""The documentation site builds in strict mode (a broken link or a missing page fails), and
the public API it documents has a docstring everywhere."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

import pytest
from conftest import ROOT

from cpmodels import api, spec


def test_the_site_builds_strictly(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d",
                             str(tmp_path / "site")], cwd=ROOT, capture_output=True,
                            text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    cli = (tmp_path / "site" / "cli" / "index.html").read_text()
    for command in ("solve", "count", "sweep", "serve", "design", "specs", "verify"):
        assert f"cpmodels {command}" in cli  # generated from the parser
    assert "cpmodels.api.solve" in (tmp_path / "site" / "api" / "index.html").read_text()
    assert "POST /api/check" in (tmp_path / "site" / "web" / "index.html").read_text() or \
        "/api/check" in (tmp_path / "site" / "web" / "index.html").read_text()


@pytest.mark.parametrize("module", [api, spec], ids=["api", "spec"])
def test_every_public_name_has_a_docstring(module):
    missing = []
    for name in module.__all__:
        obj = getattr(module, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if not (inspect.getdoc(obj) or "").strip():
            missing.append(name)
        if inspect.isclass(obj):
            for member, value in vars(obj).items():
                if (not member.startswith("_") and inspect.isfunction(value)
                        and not (inspect.getdoc(value) or "").strip()):
                    missing.append(f"{name}.{member}")
    assert missing == []
