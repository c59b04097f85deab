"""Every notebook under notebooks/ runs top to bottom in a fresh kernel, without an error."""

from __future__ import annotations

import json

import nbclient
import nbformat
import pytest
from conftest import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 4


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_valid_as_stored(path):
    """Valid nbformat as written on disk, every cell with an id (newer nbformat requires one)."""
    raw = json.loads(path.read_text())
    assert [i for i, cell in enumerate(raw["cells"]) if "id" not in cell] == []
    nbformat.validate(nbformat.from_dict(raw))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path):
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError, naming the cell, on any error
    outputs = [out for cell in notebook.cells if cell.cell_type == "code"
               for out in cell.get("outputs", [])]
    assert not [out for out in outputs if out.get("output_type") == "error"]
    pictures = [out for out in outputs if out.get("output_type") in
                ("display_data", "execute_result")
                and {"image/svg+xml", "image/png"} & set(out.get("data", {}))]
    assert pictures, f"{path.name} draws nothing"
