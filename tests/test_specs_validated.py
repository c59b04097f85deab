"""The catalogue of bundled specs known valid (specs/validated.json, cpmodels.spec.validated):
current, and trusted only for a bundled file whose bytes and validating modules are as
recorded; anything else is validated in full, with the same messages."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import SPECS

from cpmodels.spec import bundled, validated


def test_the_catalogue_is_current():
    """Every bundled spec and design validated in full now says what the catalogue says
    (write it again with ``python -m cpmodels.spec.validated``)."""
    written = json.loads((SPECS / validated.CATALOGUE).read_text(encoding="utf-8"))
    assert written == validated.validated_entries(), (
        "specs/validated.json is stale: python -m cpmodels.spec.validated")


def test_a_bundled_spec_as_recorded_is_known_valid():
    known = validated.known_valid(SPECS / "calendar_week.yaml")
    assert known is not None and known["kind"] == "calendar"
    assert known["name"] == "calendar_week"
    assert validated.known_valid(SPECS / "designs" / "apad_rectangle_pentominoes.yaml")


@pytest.fixture
def bundled_copy(tmp_path, monkeypatch):
    """A bundled folder of its own: the specs and the catalogue copied."""
    folder = tmp_path / "specs"
    shutil.copytree(SPECS, folder)
    monkeypatch.setattr(bundled, "bundled_dir", lambda: folder)
    monkeypatch.setattr(validated, "bundled_dir", lambda: folder)
    return folder


def test_an_edited_spec_a_copy_elsewhere_or_new_models_are_validated_in_full(
        bundled_copy, tmp_path, monkeypatch, run_cli):
    assert validated.known_valid(bundled_copy / "calendar_week.yaml") is not None
    elsewhere = tmp_path / "calendar_week.yaml"
    shutil.copy(bundled_copy / "calendar_week.yaml", elsewhere)
    assert validated.known_valid(elsewhere) is None  # a user's spec
    edited = bundled_copy / "calendar_day.yaml"
    edited.write_text(edited.read_text() + "\n")
    assert validated.known_valid(edited) is None
    assert validated.known_valid(bundled_copy / "not_there.yaml") is None
    # An edit that breaks it is told as for any spec.
    edited.write_text(edited.read_text().replace("kind: calendar", "kind: calendr"))
    code, out, err = run_cli("validate", edited)
    assert code == 2 and out == "" and err.startswith(f"error: {edited}")
    monkeypatch.setattr(validated, "models_digest", lambda: "other models")
    assert validated.known_valid(bundled_copy / "calendar_week.yaml") is None


def test_a_catalogue_that_does_not_read_is_no_catalogue(bundled_copy):
    (bundled_copy / validated.CATALOGUE).write_text("{not json")
    assert validated.known_valid(bundled_copy / "calendar_week.yaml") is None
    (bundled_copy / validated.CATALOGUE).write_text('["a list"]')
    assert validated.known_valid(bundled_copy / "calendar_week.yaml") is None
