"""The catalogue of bundled specs known valid (specs/validated.json, cpmodels.spec.validated):
current, and trusted only for a bundled file whose bytes and validating modules are as
recorded; anything else is validated in full, with the same messages."""

from __future__ import annotations

import datetime as dt
import json
import shutil

import pytest
from conftest import SPECS
from pydantic import BaseModel

from cpmodels.errors import SpecError
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import bundled, kinds, load_spec, loading, read_spec, validated


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


def test_a_bundled_spec_grown_huge_is_not_read_whole_to_be_known(bundled_copy, run_cli):
    """A bundled spec's file grown past a spec's size (here 4 GB, sparse) is read no further
    than a spec's size to be looked up (not held in memory whole), and is refused as any
    spec that large is."""
    import tracemalloc

    huge = bundled_copy / "calendar_day.yaml"
    with huge.open("r+b") as handle:
        handle.truncate(4 << 30)
    tracemalloc.start()
    try:
        assert validated.known_valid(huge) is None
        assert validated.known_spec(huge, records=True) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * bundled.MAX_SPEC_BYTES
    code, out, err = run_cli("count", huge, "--date", "2024-03-05")
    assert code == 2 and out == "" and err.startswith(f"error: {huge}: it is 4,294,967,296")


def test_a_catalogue_that_does_not_read_is_no_catalogue(bundled_copy):
    (bundled_copy / validated.CATALOGUE).write_text("{not json")
    assert validated.known_valid(bundled_copy / "calendar_week.yaml") is None
    (bundled_copy / validated.CATALOGUE).write_text('["a list"]')
    assert validated.known_valid(bundled_copy / "calendar_week.yaml") is None


@pytest.mark.parametrize("argv", [("specs",), ("validate", "calendar_week", "calendar_day",
                                                "pentominoes_6x10")])
def test_a_command_that_asks_of_many_specs_reads_the_catalogue_once(monkeypatch, run_cli,
                                                                     argv):
    """Reading the catalogue hashes the validating modules: a listing, or ``validate`` of
    several bundled specs, does it once, not once a spec."""
    digests = []
    digest = validated.models_digest
    monkeypatch.setattr(validated, "models_digest", lambda: digests.append(1) or digest())
    code, out, err = run_cli(*argv)
    assert code == 0 and err == ""
    assert len(out.splitlines()) == (len(bundled.bundled_specs()) if argv == ("specs",)
                                     else len(argv) - 1)
    assert len(digests) == 1


def _alike(built, validated_, same_class) -> None:
    """``built`` holds ``validated_``'s value, model for model: ``same_class`` checks each
    model's counterpart, then every field by the model's names, dicts in their order, lists
    item for item, and every other value equal and of its type."""
    if isinstance(validated_, BaseModel):
        same_class(built, validated_)
        for name in type(validated_).model_fields:
            _alike(getattr(built, name), getattr(validated_, name), same_class)
    elif isinstance(validated_, dict):
        assert type(built) is dict and list(built) == list(validated_)
        for key, value in validated_.items():
            _alike(built[key], value, same_class)
    elif isinstance(validated_, list):
        assert type(built) is list and len(built) == len(validated_)
        for a, b in zip(built, validated_):
            _alike(a, b, same_class)
    else:
        assert type(built) is type(validated_) and built == validated_


def _same_model(built, validated_) -> None:
    assert type(built) is type(validated_)
    assert built.model_fields_set == validated_.model_fields_set


def _same(built, validated_):
    """The same value, model for model: class, fields the file gave, every field's value
    (and its type: a list stays a list, a mapping keeps its order)."""
    _alike(built, validated_, _same_model)


@pytest.mark.parametrize("name", [name for name, path in bundled.bundled_specs().items()
                                  if "designs" not in path.parts])
def test_a_recorded_spec_is_the_spec_its_validation_makes(name):
    """A bundled spec built from its record is the model validating its file makes: equal,
    field for field, and it behaves the same (its puzzle compiles to the same cover)."""
    path = bundled.bundled_specs()[name]
    built, full = validated.known_spec(path), loading.load_spec(path)
    assert built is not None
    _same(built, full)
    assert built == full
    assert built.model_dump_json(by_alias=True) == full.model_dump_json(by_alias=True)
    assert load_spec(name) == full and type(load_spec(name)) is type(full)
    if full.kind != "towers":
        query = Query.of(full, date=dt.date(2026, 6, 7)) if full.kind == "calendar" \
            else Query.of(full)
        again = Query.of(built, date=dt.date(2026, 6, 7)) if full.kind == "calendar" \
            else Query.of(built)
        one, other = packing_instance(query).cover, packing_instance(again).cover
        assert one.placements == other.placements and one.items == other.items


def test_every_recorded_model_has_its_record():
    assert set(kinds.KNOWN) == set(validated.MODELS)
    record = kinds.KnownPiece(name="I", shape=["##"], coords=None, layers=None, count=1,
                              rotate=None, flip=None, letter=None)
    with pytest.raises(AttributeError):
        record.name = "J"  # a record is read-only, as a model is frozen
    assert record.area == 2 and record.cells == frozenset({(0, 0), (0, 1)})


def _record_of(record, validated_) -> None:
    assert type(record) is kinds.KNOWN[type(validated_).__name__]
    assert isinstance(validated_, type(record).__mro__[2])  # (the kind both are)


def _same_record(record, validated_):
    """A record is the model's value as :func:`_same` says, its class the record of the
    model's kind (``cpmodels.spec.kinds``): every field, by the model's names."""
    _alike(record, validated_, _record_of)


@pytest.mark.parametrize("name", [name for name, path in bundled.bundled_specs().items()
                                  if "designs" not in path.parts])
def test_a_specs_record_means_what_its_model_means(name):
    """``read_spec`` of a bundled spec known valid is its record (no pydantic): the fields
    its validation made, and the same meanings: cells, pieces' orientations, letters,
    targets, dates and labels, and each of its puzzles compiles to the same cover."""
    path = bundled.bundled_specs()[name]
    record, full = read_spec(name), loading.load_spec(path)
    _same_record(record, full)
    if full.kind == "towers":
        from cpmodels.towers.problem import towers_problem

        assert towers_problem(record) == towers_problem(full)
        return
    assert record.piece_kinds() == full.piece_kinds()
    assert record.piece_kinds(face_up=True) == full.piece_kinds(face_up=True)
    assert record.letters() == full.letters() and record.can_flip == full.can_flip
    assert record.cells == full.cells and record.geometry == full.geometry
    if full.kind == "calendar":
        assert record.label_cells == full.label_cells
        assert record.label_combinations() == full.label_combinations()
        queries = [{"labels": list(labels)} for labels in full.label_combinations()[:3]]
        if full.has_dates:
            queries.append({"date": dt.date(2026, 2, 28)})
            assert record.real_date(["Feb", "30", *full.label_combinations()[0][2:]]) is None
    else:
        assert [(t.name, t.cells) for t in record.all_targets()] == \
            [(t.name, t.cells) for t in full.all_targets()]
        queries = [{"target": t.name} for t in full.all_targets()]
    for asked in queries:
        one = packing_instance(Query.of(full, **asked)).cover
        other = packing_instance(Query.of(record, **asked)).cover
        assert one.placements == other.placements and one.items == other.items


def test_a_spec_the_catalogue_does_not_vouch_for_is_validated_with_its_messages(
        bundled_copy, monkeypatch):
    """An edited bundled spec, or every spec under changed models, is read and validated
    in full: the same errors as the loader's, and a valid one the same model."""
    edited = bundled_copy / "pentominoes_6x10.yaml"
    edited.write_text(edited.read_text().replace("kind: packing", "kind: packng"))
    assert validated.known_spec(edited) is None
    assert validated.known_spec(edited, records=True) is None
    with pytest.raises(SpecError) as read:
        load_spec(edited)
    with pytest.raises(SpecError) as in_full:
        loading.load_spec(edited)
    assert str(read.value) == str(in_full.value)
    assert "'kind' must be one of" in str(read.value)
    week = bundled_copy / "calendar_week.yaml"
    assert validated.known_spec(week) is not None
    monkeypatch.setattr(validated, "models_digest", lambda: "other models")
    assert validated.known_spec(week) is None
    assert validated.known_spec(week, records=True) is None
    assert load_spec(week) == loading.load_spec(week)


def test_a_record_not_as_written_is_no_record(bundled_copy):
    """A record naming no spec model, or of a shape this module does not write, is
    ignored: the spec is validated in full."""
    catalogue = bundled_copy / validated.CATALOGUE
    read = json.loads(catalogue.read_text())
    read["specs"]["calendar_week.yaml"]["spec"]["model"] = "BaseModel"
    read["specs"]["calendar_day.yaml"]["spec"]["fields"] = ["not", "fields"]
    catalogue.write_text(json.dumps(read))
    assert validated.known_spec(bundled_copy / "calendar_week.yaml") is None
    assert validated.known_spec(bundled_copy / "calendar_day.yaml") is None
    assert load_spec(bundled_copy / "calendar_day.yaml").name == "calendar_day"
