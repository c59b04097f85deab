"""The bundled specs known to be valid, read without validating them again.

``validated.json`` beside the bundled specs (``specs/`` in a checkout, a copy in the wheel)
holds, for each bundled spec and design, what a listing and ``validate`` say of it (its
kind, name and description's first line) and the SHA-256 of its bytes, all under
the SHA-256 of the modules that validate specs (this package, the piece pools, the
errors). An entry counts only for a file in the bundled folder whose bytes and whose
validating modules hash as recorded: an edited spec, or a spec read under changed models,
is validated in full as any other, and a user's spec always is. ``python -m
cpmodels.spec.validated`` writes the file again (after every validation in full); the
tests check it is current.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from cpmodels.spec.bundled import bundled_dir, bundled_specs

CATALOGUE = "validated.json"
PACKAGE = Path(__file__).resolve().parents[1]
#: The modules whose code decides whether a spec is valid.
VALIDATORS = ("spec/*.py", "pools.py", "errors.py", "grids.py", "files.py")


def models_digest() -> str:
    """The SHA-256 of the modules that validate specs (:data:`VALIDATORS`)."""
    digest = hashlib.sha256()
    for pattern in VALIDATORS:
        for path in sorted(PACKAGE.glob(pattern)):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _catalogue() -> tuple[Path, dict[str, Any]] | None:
    """The bundled folder and its catalogue's entries, when it has one made by the
    validating modules as they are now."""
    folder = bundled_dir()
    if folder is None:
        return None
    try:
        read = json.loads((folder / CATALOGUE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(read, dict) or read.get("models") != models_digest():
        return None
    entries = read.get("specs")
    return (folder.resolve(), entries) if isinstance(entries, dict) else None


def known_valid(path: str | Path) -> dict[str, str] | None:
    """What the catalogue says of the spec at ``path`` (``kind``, ``name``,
    ``description``), when it is a bundled spec validated as it is now; else None (it
    must be validated)."""
    found = _catalogue()
    if found is None:
        return None
    folder, entries = found
    try:
        resolved = Path(path).resolve()
        entry = entries.get(resolved.relative_to(folder).as_posix())
        if not isinstance(entry, dict) or not resolved.is_file():
            return None
        data = resolved.read_bytes()
    except (OSError, ValueError):  # (ValueError: a file outside the bundled folder)
        return None
    if entry.get("sha256") != hashlib.sha256(data).hexdigest():
        return None
    return {key: str(entry[key]) for key in ("kind", "name", "description")}


def validated_entries() -> dict[str, Any]:
    """The catalogue of the bundled specs as they are, each validated in full now."""
    from cpmodels.spec.loading import is_design, load_design, load_spec

    folder = bundled_dir()
    specs = {}
    for path in bundled_specs().values():
        spec = load_design(path) if is_design(path) else load_spec(path)
        description = spec.description.strip()
        assert folder is not None  # (it holds the specs found)
        specs[path.relative_to(folder).as_posix()] = {
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "kind": spec.kind,
            "name": spec.name,
            "description": description.splitlines()[0] if description else ""}
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
