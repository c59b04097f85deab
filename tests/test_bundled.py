"""The bundled specs by name: from any directory, a path winning over a name, listed by
``cpmodels specs``, taken by the Python API."""

from __future__ import annotations

import json

import pytest
from conftest import SPECS

from cpmodels import api
from cpmodels.errors import SpecError
from cpmodels.spec import load_spec
from cpmodels.spec.bundled import bundled_specs, spec_path


def test_every_spec_file_is_bundled_under_its_name():
    files = {p.stem: p for p in SPECS.rglob("*.yaml")}
    assert {name: path.resolve() for name, path in bundled_specs().items()} == {
        name: path.resolve() for name, path in files.items()}


@pytest.mark.parametrize("given", ["calendar_week", "calendar_week.yaml"])
def test_a_name_loads_the_bundled_spec_from_anywhere(given, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_spec(given).name == "calendar_week"


def test_a_path_wins_over_a_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "calendar_week").write_text((SPECS / "calendar_day.yaml").read_text())
    assert load_spec("calendar_week").name == "calendar_day"
    assert spec_path("calendar_week") == tmp_path.joinpath("calendar_week").relative_to(
        tmp_path)


@pytest.mark.parametrize("given", ["no_such_spec", "specs/no_such.yaml", "../calendar_week",
                                   "designs/apad_rectangle_pentominoes"])
def test_an_unknown_name_or_path_says_how_to_find_the_names(given, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SpecError, match="no such file, and no bundled spec of that name"):
        load_spec(given)


def test_cli_by_name_and_the_list(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli("count", "calendar_day", "--labels", "Oct", "6")
    assert code == 0 and "7 solutions" in out
    code, out, _ = run_cli("specs")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["calendar_day", "calendar"]
    assert any(line.split()[:2] == ["apad_rectangle_pentominoes", "design"] for line in lines)
    code, out, _ = run_cli("specs", "--format", "json")
    listed = json.loads(out)
    assert {s["name"] for s in listed} == set(bundled_specs())
    assert all(s["description"] and "\n" not in s["description"] for s in listed)
    code, out, err = run_cli("design", "apad_rectangle_pentominoes", "--no-counts",
                             "--jobs", "1")
    assert code == 0 and "error" not in err
    assert "792 candidate sets, 37 solve every required combination" in out
    code, _, err = run_cli("solve", "nope")
    assert code == 2 and "cpmodels specs" in err


def test_the_api_takes_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert api.solve("calendar_week", labels=["Jun", "7", "Tue"]).result.status == "solved"
    assert api.count("calendar_day", date="2024-10-06").count == 7
    assert api.towers(size=(3, 3)).result.status == "solved"
    assert set(api.bundled()) == set(bundled_specs())


DESIGNS = sorted(name for name, path in bundled_specs().items() if path.parent.name == "designs")


@pytest.mark.parametrize("name", DESIGNS)
def test_every_bundled_design_runs_by_name_from_an_empty_directory(name, run_cli, tmp_path,
                                                                     monkeypatch):
    """Its board is found beside the bundled design file, not beside the argument."""
    from cpmodels.design import Design, load_board
    from cpmodels.spec.loading import load_design

    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("validate", name)
    assert code == 0 and err == "" and f"(design '{name}')" in out
    spec = load_design(name)
    design = Design(spec, load_board(spec, name), with_counts=False)
    first = next(design.candidates())
    verdict = design.decide(first)
    assert verdict.pieces == design.names(first)
    assert list(tmp_path.iterdir()) == []
