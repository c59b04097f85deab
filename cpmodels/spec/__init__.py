"""Spec models and loading: YAML files validated by pydantic.

The names below load their modules on first use, so that what needs only a part of the
package (``bundled``: where the bundled specs are; ``validated``: which of them are known
valid) starts without pydantic. ``load_spec`` builds a bundled spec known valid from its
record (:mod:`cpmodels.spec.validated`) and validates any other in full
(:func:`cpmodels.spec.loading.load_spec`); ``read_spec`` reads as it does, but builds a
bundled spec known valid as a record without pydantic (:mod:`cpmodels.spec.kinds`), for
the commands that only search a spec."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cpmodels.spec.loading import json_schema, parse_spec, validate_data
    from cpmodels.spec.models import (
        CalendarSpec,
        Colour,
        PackingLike,
        PackingSpec,
        Piece,
        Spec,
        Target,
        TowersSpec,
    )
    from cpmodels.spec.validated import load_spec, read_spec

__all__ = [
    "CalendarSpec", "Colour", "PackingLike", "PackingSpec", "Piece", "Spec", "Target",
    "TowersSpec", "json_schema", "load_spec", "parse_spec", "read_spec", "validate_data",
]

_LOADING = frozenset({"json_schema", "parse_spec", "validate_data"})


def __getattr__(name: str) -> Any:
    """``cpmodels.spec.NAME`` of :data:`__all__`, from its module (loaded now)."""
    if name not in __all__:
        raise AttributeError(f"module 'cpmodels.spec' has no attribute {name!r}")
    module = importlib.import_module(
        "cpmodels.spec.loading" if name in _LOADING else
        "cpmodels.spec.validated" if name in ("load_spec", "read_spec") else
        "cpmodels.spec.models")
    return getattr(module, name)
