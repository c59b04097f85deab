"""The documentation site builds in strict mode (a broken link or a missing page fails), and
the public API it documents has a docstring everywhere."""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from cpmodels import api, spec


def _jupyter_path() -> str:
    """Where nbconvert's templates are (the notebooks' pages are made with them): under the
    prefix of the environment that installed nbconvert, which is not this interpreter's
    when that environment's packages are shared with it."""
    import nbconvert

    shared = Path(nbconvert.__file__).resolve().parents[4] / "share" / "jupyter"
    return os.pathsep.join(p for p in (os.environ.get("JUPYTER_PATH", ""), str(shared)) if p)


def _site_build(scratch: Path) -> list[str]:
    """``mkdocs build --strict`` into ``scratch/site``."""
    return ["env", "NO_MKDOCS_2_WARNING=1", f"JUPYTER_PATH={_jupyter_path()}",
            sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(scratch / "site")]


@pytest.mark.early.with_args(_site_build)
def test_the_site_builds_strictly(early):
    """The documentation site builds with no warning (the build starts with the session)."""
    result = early
    assert result.returncode == 0, result.stdout + result.stderr
    site = early.scratch / "site"
    cli = (site / "cli" / "index.html").read_text()
    for command in ("solve", "count", "sweep", "serve", "design", "specs", "verify"):
        assert f"cpmodels {command}" in cli  # generated from the parser
    assert "cpmodels.api.solve" in (site / "api" / "index.html").read_text()
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):  # with their outputs
        page = (site / "notebooks" / notebook.stem / "index.html").read_text()
        assert "<svg" in page or "data:image/png" in page, notebook.name
        # a widget shows its result's picture here, not its line of text
        assert "Widget calendar" not in page, notebook.name
    assert "POST /api/check" in (site / "web" / "index.html").read_text() or \
        "/api/check" in (site / "web" / "index.html").read_text()


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
