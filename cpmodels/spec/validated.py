"""The bundled specs known to be valid, read without validating them again.

``validated.json`` beside the bundled specs (``specs/`` in a checkout, a copy in the wheel)
holds, for each bundled spec and design, what a listing and ``validate`` say of it (its
kind, name and description's first line), the SHA-256 of its bytes and, for a spec, the
spec as its model validated it (every field's value, and which fields the file gave), all
under the SHA-256 of the modules that validate specs (this package, the piece pools, the
geometry, the errors). An entry counts only for a file in the bundled folder whose bytes
and whose validating modules hash as recorded: an edited spec, or a spec read under
changed models, is validated in full as any other, and a user's spec always is.

:func:`load_spec` builds a known spec's model from its recorded fields without YAML and
without validating (``model_construct``: the same model, field for field, as validation
made), so a command that reads a bundled spec starts without parsing or checking it.
``python -m cpmodels.spec.validated`` writes the file again (after every validation in
full); the tests check it is current and that each recorded spec equals the validated one.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from cpmodels.spec.bundled import MAX_SPEC_BYTES, bundled_dir, bundled_specs, spec_path

if TYPE_CHECKING:
    from pydantic import BaseModel

    from cpmodels.spec.kinds import CalendarKind, PackingKind, TowersKind
    from cpmodels.spec.models import Spec

CATALOGUE = "validated.json"
PACKAGE = Path(__file__).resolve().parents[1]
#: The modules whose code decides whether a spec is valid, and what it validates to.
VALIDATORS = ("spec/*.py", "pools.py", "errors.py", "grids.py", "files.py", "geometry.py",
              "cover.py")
#: The models a recorded spec is made of (``cpmodels.spec.models``' names).
MODELS = ("PackingSpec", "CalendarSpec", "TowersSpec", "Piece", "Target", "Colour")


def models_digest() -> str:
    """The SHA-256 of the modules that validate specs (:data:`VALIDATORS`)."""
    digest = hashlib.sha256()
    for pattern in VALIDATORS:
        for path in sorted(PACKAGE.glob(pattern)):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


class Catalogue:
    """The catalogue as read once (:func:`read_catalogue`): the bundled folder and its
    entries, or none when there is no catalogue made by the validating modules as they
    are now. Reading it hashes those modules, so a command that asks of many specs reads
    it once."""

    __slots__ = ("entries", "folder")

    def __init__(self, folder: Path | None = None,
                 entries: dict[str, Any] | None = None) -> None:
        self.folder = folder
        self.entries = entries or {}

    def entry(self, path: str | Path) -> dict[str, Any] | None:
        """The entry for the spec at ``path``, when it is a bundled spec whose bytes are as
        recorded; else None."""
        if self.folder is None:
            return None
        try:
            resolved = Path(path).resolve()
            entry = self.entries.get(resolved.relative_to(self.folder).as_posix())
            if not isinstance(entry, dict) or not resolved.is_file():
                return None
            with resolved.open("rb") as handle:  # (a spec's size at most, and one byte:
                data = handle.read(MAX_SPEC_BYTES + 1)  # a larger file hashes as no spec)
        except (OSError, ValueError):  # (ValueError: a file outside the bundled folder)
            return None
        return entry if entry.get("sha256") == hashlib.sha256(data).hexdigest() else None


def read_catalogue() -> Catalogue:
    """The bundled folder's catalogue, when it has one made by the validating modules as
    they are now (else an empty one, which knows no spec)."""
    folder = bundled_dir()
    if folder is None:
        return Catalogue()
    try:
        read = json.loads((folder / CATALOGUE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Catalogue()
    if not isinstance(read, dict) or read.get("models") != models_digest():
        return Catalogue()
    entries = read.get("specs")
    return Catalogue(folder.resolve(), entries) if isinstance(entries, dict) else Catalogue()


def known_valid(path: str | Path, catalogue: Catalogue | None = None) -> dict[str, str] | None:
    """What the catalogue (default: read now) says of the spec at ``path`` (``kind``,
    ``name``, ``description``), when it is a bundled spec validated as it is now; else
    None (it must be validated)."""
    entry = (read_catalogue() if catalogue is None else catalogue).entry(path)
    if entry is None:
        return None
    return {key: str(entry[key]) for key in ("kind", "name", "description")}


def recorded(value: Any) -> Any:
    """A validated model's value as JSON: a model as its class's name, the fields the file
    gave and every field's value; a mapping as its pairs in order (``{"dict": [[key,
    value], ...]}``: the catalogue's keys are sorted, a calendar's groups are not)."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        if type(value).__name__ not in MODELS:
            raise TypeError(f"no recorded form for a {type(value).__name__}")
        return {"model": type(value).__name__, "set": sorted(value.model_fields_set),
                "fields": {name: recorded(getattr(value, name))
                           for name in type(value).model_fields}}
    if isinstance(value, list):
        return [recorded(item) for item in value]
    if isinstance(value, dict):
        return {"dict": [[key, recorded(item)] for key, item in value.items()]}
    if value is None or isinstance(value, (str, int, bool)):
        return value
    raise TypeError(f"no recorded form for a {type(value).__name__}")


def rebuilt(data: Any, *, records: bool = False) -> Any:
    """The value :func:`recorded` wrote, built again: models without validating (the data
    is what their validation made), or with ``records`` the records of
    :mod:`cpmodels.spec.kinds` (no pydantic loaded)."""
    if isinstance(data, list):
        return [rebuilt(item, records=records) for item in data]
    if not isinstance(data, dict):
        return data
    if set(data) == {"dict"}:
        return {key: rebuilt(item, records=records) for key, item in data["dict"]}
    if data["model"] not in MODELS:
        raise ValueError(f"no model named {data['model']!r}")
    fields = {name: rebuilt(value, records=records) for name, value in data["fields"].items()}
    if records:
        from cpmodels.spec.kinds import KNOWN

        return KNOWN[data["model"]](**fields)
    from cpmodels.spec import models

    model: type[BaseModel] = getattr(models, data["model"])
    return model.model_construct(set(data["set"]), **fields)


def known_spec(path: str | Path, *, records: bool = False) -> Any:
    """The bundled spec at ``path`` built from its recorded fields (its model, or with
    ``records`` its record, :mod:`cpmodels.spec.kinds`), when the catalogue knows it valid
    as it is now; else None (it must be validated)."""
    entry = read_catalogue().entry(path)
    if entry is None or "spec" not in entry:
        return None
    try:
        spec = rebuilt(entry["spec"], records=records)
        name = entry["spec"]["model"]
    except (KeyError, TypeError, ValueError, AttributeError):  # not as this module writes
        return None
    if records:
        from cpmodels.spec.kinds import KNOWN

        return spec if type(spec) is KNOWN[name] else None
    return spec if type(spec).__name__ == name else None


def load_spec(path: str | Path) -> Spec:
    """Read a spec file, or the bundled spec of that name (``calendar_week``): a bundled
    spec the catalogue knows valid is built from its record; any other is read and
    validated in full (:func:`cpmodels.spec.loading.load_spec`, its errors
    :class:`~cpmodels.errors.SpecError`)."""
    known = known_spec(spec_path(path))
    if known is not None:
        return cast("Spec", known)
    from cpmodels.spec.loading import load_spec as validated_in_full

    return validated_in_full(path)


def read_spec(path: str | Path) -> PackingKind | CalendarKind | TowersKind:
    """A spec to search, read as :func:`load_spec` reads it but a bundled spec known valid
    built as its record (:mod:`cpmodels.spec.kinds`: the same fields and meanings, and no
    pydantic loaded): for a caller that reads a spec's fields and meanings, not its
    model's methods (a copy, its JSON, its schema)."""
    known = known_spec(spec_path(path), records=True)
    if known is not None:
        return cast("PackingKind | CalendarKind | TowersKind", known)
    from cpmodels.spec.loading import load_spec as validated_in_full

    return validated_in_full(path)


def validated_entries() -> dict[str, Any]:
    """The catalogue of the bundled specs as they are, each validated in full now."""
    from cpmodels.spec.loading import is_design, load_design
    from cpmodels.spec.loading import load_spec as validated_in_full

    folder = bundled_dir()
    specs = {}
    for path in bundled_specs().values():
        design = is_design(path)
        spec = load_design(path) if design else validated_in_full(path)
        description = spec.description.strip()
        assert folder is not None  # (it holds the specs found)
        entry = {"sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "kind": spec.kind,
                 "name": spec.name,
                 "description": description.splitlines()[0] if description else ""}
        if not design:
            entry["spec"] = recorded(spec)
        specs[path.relative_to(folder).as_posix()] = entry
    return {"models": models_digest(), "specs": specs}


def write_catalogue() -> Path:
    """Validate every bundled spec and write the catalogue beside them."""
    folder = bundled_dir()
    if folder is None:
        raise FileNotFoundError("no bundled specs were found")
    target = folder / CATALOGUE
    target.write_text(json.dumps(validated_entries(), indent=1, sort_keys=True) + "\n",
                      encoding="utf-8")
    return target


if __name__ == "__main__":
    print(write_catalogue())
