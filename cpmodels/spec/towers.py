"""The ``towers`` kind: tower colours, their points and what their neighbours must be."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, PositiveInt, field_validator, model_validator

from cpmodels.spec.base import MAX_BOARD_SIDE, Name, SpecFieldError, StrictModel
from cpmodels.spec.kinds import (
    MAX_CODES,
    MAX_TOWER_CHOICES,
    ColourKind,
    TowersKind,
    check_tower_choices,
)

__all__ = ["MAX_CODES", "MAX_TOWER_CHOICES", "Colour", "TowersSpec", "check_tower_choices"]

class Colour(ColourKind, StrictModel):
    """A tower colour: its points and the colours it needs among its orthogonal neighbours."""

    name: Name
    letter: str = Field(min_length=1, max_length=1)
    points: int = Field(ge=-10**6, le=10**6)
    needs: list[Name] = Field(default_factory=list)


class TowersSpec(TowersKind, StrictModel):
    """Fill an R x C grid with towers to maximise the total score."""

    kind: Literal["towers"]
    name: Name
    description: str = ""
    rows: PositiveInt = Field(5, le=MAX_BOARD_SIDE)
    cols: PositiveInt = Field(5, le=MAX_BOARD_SIDE)
    colours: list[Colour] = Field(min_length=1, max_length=10_000)
    allow_empty: bool = Field(False, description="cells may stay empty (0 points)")
    empty_letter: str = Field(".", min_length=1, max_length=1)
    rules: Literal["always", "when-built"] = Field(
        "always", description="always: every tower's needs hold in the final city; when-built "
        "(the game's rule): a tower's needs are checked when it is built, and a new tower may "
        "replace an old one")
    fixed: list[str] | None = Field(
        None, description="a partly built city: one string per row, a colour letter (or the "
        "empty letter) for a cell already built, ? for a free cell")

    @model_validator(mode="after")
    def _check_size(self) -> TowersSpec:
        why = check_tower_choices(self.rows, self.cols, len(self.colours) + self.allow_empty)
        if why is not None:
            raise SpecFieldError(("colours",), why)
        return self

    @model_validator(mode="after")
    def _check_fixed(self) -> TowersSpec:
        if self.fixed is None:
            return self
        if len(self.fixed) != self.rows or any(len(row) != self.cols for row in self.fixed):
            raise SpecFieldError(("fixed",), f"must be {self.rows} strings of {self.cols} "
                                 f"characters (the board is {self.rows}x{self.cols})")
        letters = {c.letter for c in self.colours} | {"?"}
        if self.allow_empty:
            letters.add(self.empty_letter)
        for r, row in enumerate(self.fixed):
            for c, ch in enumerate(row):
                if ch not in letters:
                    raise SpecFieldError(("fixed", r), f"{ch!r} at column {c} is not a colour "
                                         f"letter, '?'" + (" or the empty letter"
                                                          if self.allow_empty else ""))
        return self

    @field_validator("colours")
    @classmethod
    def _check_colours(cls, colours: list[Colour]) -> list[Colour]:
        names = [c.name for c in colours]
        letters = [c.letter for c in colours]
        for i, colour in enumerate(colours):
            if names.index(colour.name) != i:
                raise ValueError(f"two colours are named {colour.name!r}")
            if letters.index(colour.letter) != i:
                raise ValueError(f"two colours are drawn with letter {colour.letter!r}")
            for need in colour.needs:
                if need not in names:
                    raise ValueError(f"{colour.name} needs {need!r}, which is not a colour "
                                     f"(colours: {', '.join(names)})")
                if need == colour.name:
                    raise ValueError(f"{colour.name} cannot need itself")
            if len(set(colour.needs)) != len(colour.needs):
                raise ValueError(f"{colour.name} lists a needed colour twice")
            if len(colour.needs) > 4:
                raise ValueError(f"{colour.name} needs {len(colour.needs)} colours but a cell "
                                 "has at most 4 neighbours")
        return colours
