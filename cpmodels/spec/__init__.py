"""Spec models and loading: YAML files validated by pydantic."""

from cpmodels.spec.loading import json_schema, load_spec, parse_spec, validate_data
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

__all__ = [
    "CalendarSpec", "Colour", "PackingLike", "PackingSpec", "Piece", "Spec", "Target",
    "TowersSpec", "json_schema", "load_spec", "parse_spec", "validate_data",
]
