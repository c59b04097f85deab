"""The specs that ship with cpmodels, found by name from anywhere.

The repository's top-level ``specs/`` is their one source. A wheel carries a copy in
``cpmodels/bundled_specs/`` (put there by the build, see ``setup.py``); a checkout or an
editable install reads ``specs/`` itself. A spec's name is its file name without ``.yaml``
(``calendar_week``; a design under ``designs/`` by its own name too). A path that exists
always wins over a name.
"""

from __future__ import annotations

from pathlib import Path

PACKAGED = "bundled_specs"  # the folder inside the installed package
MAX_SPEC_BYTES = 1_000_000  # a spec or design file's size at most


def bundled_dir() -> Path | None:
    """Where the bundled specs are: inside the installed package, else the checkout's
    ``specs/`` (None when neither exists)."""
    inside = Path(__file__).resolve().parents[1] / PACKAGED
    if inside.is_dir():
        return inside
    checkout = Path(__file__).resolve().parents[2] / "specs"
    return checkout if (checkout / "calendar_week.yaml").is_file() else None


def bundled_specs() -> dict[str, Path]:
    """Every bundled spec and design by name, in name order (top level first)."""
    folder = bundled_dir()
    if folder is None:
        return {}
    found: dict[str, Path] = {}
    for path in sorted(folder.glob("*.yaml")) + sorted(folder.glob("*/*.yaml")):
        found.setdefault(path.stem, path)
    return found


def spec_path(path_or_name: str | Path) -> Path:
    """The file a spec argument means: the path when it exists, else the bundled spec of
    that name (``calendar_week`` or ``calendar_week.yaml``), else the path as given (for
    the loader to say it does not exist)."""
    path = Path(path_or_name)
    if path.exists() or len(path.parts) != 1:
        return path
    name = path.name[:-len(".yaml")] if path.name.endswith(".yaml") else path.name
    return bundled_specs().get(name, path)
