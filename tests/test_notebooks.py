"""Every notebook under notebooks/ is stored executed, and a fresh run in a fresh kernel
shows what it stores (notebooks/run.py writes them again)."""

from __future__ import annotations

import importlib.util
import json
import re
from functools import partial
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, early_call

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 4


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_valid_as_stored(path):
    """Valid nbformat as written on disk, every cell with an id (newer nbformat requires one)."""
    raw = json.loads(path.read_text())
    assert [i for i, cell in enumerate(raw["cells"]) if "id" not in cell] == []
    nbformat.validate(nbformat.from_dict(raw))


def _runner():
    """notebooks/run.py, the tool that executes the notebooks and stores their outputs."""
    spec = importlib.util.spec_from_file_location("notebooks_run", ROOT / "notebooks" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_executed(path):
    """Every code cell ran, in order, and every one that makes something shows it."""
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1)), (
        f"{path.name} is not stored executed top to bottom: python notebooks/run.py {path.stem}")
    silent = [cell.source.splitlines()[0] for cell in code if not cell.outputs]
    assert silent == [], f"{path.name}: cells that show nothing"
    outputs = [out for cell in code for out in cell.outputs]
    pictures = [out for out in outputs if {"image/svg+xml", "image/png"} & set(out.get("data", {}))]
    assert pictures, f"{path.name} draws nothing"


def fresh_runs(scratch: Path) -> None:
    """Every notebook run as notebooks/run.py runs them: each in a fresh kernel of its own,
    two side by side (one's kernel starting while the other computes); each one's run
    written to ``scratch/NAME.ipynb``, or the error that stopped it (CellExecutionError,
    naming the cell) to ``scratch/NAME.error``. Started with the session (the tests' early
    command): the second processor runs the kernels while the suite runs."""
    scratch.mkdir(parents=True, exist_ok=True)
    for path, fresh in zip(NOTEBOOKS, _runner().execute_all(NOTEBOOKS)):
        if isinstance(fresh, Exception):
            (scratch / f"{path.stem}.error").write_text(f"{type(fresh).__name__}: {fresh}")
        else:
            nbformat.write(fresh, scratch / f"{path.stem}.ipynb")


@pytest.mark.early.with_args(partial(early_call, "test_notebooks", "fresh_runs"))
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_outputs_are_as_stored(path, early):
    """A fresh run in a fresh kernel shows what the notebook stores: the same text (counts,
    totals, verdicts; times aside) and the same pictures (SVG compared, PNG present)."""
    assert early.returncode == 0, early.stdout + early.stderr
    error = early.scratch / f"{path.stem}.error"
    if error.exists():
        pytest.fail(error.read_text(), pytrace=False)
    fresh = nbformat.read(early.scratch / f"{path.stem}.ipynb", as_version=4)
    assert not [out for cell in fresh.cells if cell.cell_type == "code"
                for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    found = _runner().differences(nbformat.read(path, as_version=4), fresh)
    assert found == [], f"python notebooks/run.py {path.stem} stores a fresh run: {found}"


def test_the_check_sees_a_count_changed(tmp_path):
    """The comparison is not blind: a stored count changed by one, or a cell gone, is a
    difference."""
    run = _runner()
    stored = nbformat.read(NOTEBOOKS[0], as_version=4)
    changed = nbformat.read(NOTEBOOKS[0], as_version=4)
    cell = next(c for c in changed.cells if c.cell_type == "code" and any(
        o.get("name") == "stdout" and re.search(r"\d", o["text"]) for o in c.outputs))
    out = next(o for o in cell.outputs if o.get("name") == "stdout")
    out["text"] = re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), out["text"], count=1)
    assert run.differences(stored, stored) == []
    assert len(run.differences(stored, changed)) == 1
    shorter = nbformat.read(NOTEBOOKS[0], as_version=4)
    last = max(k for k, c in enumerate(shorter.cells) if c.cell_type == "code")
    del shorter.cells[last]
    assert any("code cells stored" in line for line in run.differences(stored, shorter))
