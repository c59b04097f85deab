"""The design file: which piece sets to try on a calendar board, and what they must do.

```yaml
kind: design
name: apad_pentomino_sets
board: calendar_day.yaml     # a calendar spec, relative to this file (its pieces are ignored)
fixed:                       # pieces in every candidate set (as a spec's pieces)
  - {name: O6, shape: "###/###"}
choose:                      # the rest, drawn from pools: how many distinct pieces of each
  - {pool: pentominoes, count: 7}
require: real-dates          # or all-combinations
face_up: false               # true: every required date with the pieces face up as well
```
"""

from __future__ import annotations

import difflib
from typing import Annotated, Literal

from pydantic import Discriminator, Field, Tag, field_validator, model_validator

from cpmodels.geometry import render_shape
from cpmodels.pools import POOLS, canonical_shape, pool
from cpmodels.spec.base import Name, StrictModel
from cpmodels.spec.pieces import Piece

MAX_DRAW = 50  # pieces one draw may take


def _fixed_counts(pieces: list[Piece]) -> None:
    """A design's pieces each have one count: which pieces a set holds is the design's
    question, asked by its draws."""
    for p in pieces:
        if not isinstance(p.count, int):
            raise ValueError(f"piece {p.name!r} has a count range; in a design every piece "
                             "has one count (draw optional pieces with a pool's count range)")


class Draw(StrictModel):
    """Pieces drawn from one pool: ``count`` distinct ones (a number or ``[min, max]``)."""

    # A name or a list, told apart before either is read: a list's problems are its own,
    # not also a name's.
    pool: Annotated[
        Annotated[Literal["monominoes", "dominoes", "trominoes", "tetrominoes", "pentominoes",
                          "hexominoes"], Tag("name")] | Annotated[list[Piece], Tag("list")],
        Discriminator(lambda pool: "name" if isinstance(pool, str) else "list")] = Field(
        description=f"a pool name ({', '.join(POOLS)}) or a list of pieces")
    count: int | list[int] = Field(description="how many pieces: a number or [min, max]")

    @field_validator("pool", mode="before")
    @classmethod
    def _pool_form(cls, pool: object) -> object:
        if isinstance(pool, str):
            if pool not in POOLS:
                hint = difflib.get_close_matches(pool, list(POOLS), n=1)
                raise ValueError(f"no pool named {pool!r}"
                                 + (f"; did you mean {hint[0]!r}?" if hint else "")
                                 + f" (pools: {', '.join(POOLS)})")
        elif not isinstance(pool, list):
            raise ValueError(f"give a pool name ({', '.join(POOLS)}) or a list of pieces")
        return pool

    @field_validator("count")
    @classmethod
    def _check_count(cls, count: int | list[int]) -> int | list[int]:
        low, high = (count, count) if isinstance(count, int) else (
            tuple(count) if len(count) == 2 else (None, None))
        if low is None or high is None:
            raise ValueError("a range is two numbers, [min, max]")
        if not 0 <= low <= high <= MAX_DRAW:
            raise ValueError(f"counts run from 0 to {MAX_DRAW}, min first")
        return count

    @model_validator(mode="after")
    def _check_pool(self) -> Draw:
        if isinstance(self.pool, list):
            names = [p.name for p in self.pool]
            if len(set(names)) != len(names):
                raise ValueError("two pieces of the pool share a name")
            if not self.pool:
                raise ValueError("the pool lists no pieces")
            _fixed_counts(self.pool)
            for p in self.pool:
                if p.count != 1:
                    raise ValueError(
                        f"piece {p.name!r} has {p.count} copies; a pool's pieces are drawn "
                        "one at a time (give copies to fixed pieces)")
        size = len(self.pool) if isinstance(self.pool, list) else len(pool(self.pool))
        what = "the pool lists" if isinstance(self.pool, list) else f"{self.pool} has"
        if self.counts.start > size:
            raise ValueError(f"count asks for {self.counts.start} distinct pieces, but "
                             f"{what} {size}")
        return self

    @property
    def pieces(self) -> list[Piece]:
        """The pool's pieces: those it lists, or a named pool's."""
        if isinstance(self.pool, list):
            return list(self.pool)
        return [Piece(name=n, shape=render_shape(s)) for n, s in pool(self.pool)]

    @property
    def counts(self) -> range:
        """The numbers of pieces this draw may take."""
        low, high = (self.count, self.count) if isinstance(self.count, int) else self.count
        return range(low, high + 1)


class DesignSpec(StrictModel):
    """Which piece sets to try on a calendar board, and which dates each must solve."""

    kind: Literal["design"]
    name: Name
    description: str = ""
    board: str = Field(min_length=1, max_length=400,
                       description="path of a calendar spec, relative to this file")
    fixed: list[Piece] = Field(default_factory=list, max_length=50)
    choose: list[Draw] = Field(min_length=1, max_length=10)
    require: Literal["real-dates", "all-combinations"] = "real-dates"
    face_up: bool = Field(False, description="also require every date with pieces face up")

    @field_validator("fixed")
    @classmethod
    def _unique_fixed(cls, fixed: list[Piece]) -> list[Piece]:
        names = [p.name for p in fixed]
        if len(set(names)) != len(names):
            raise ValueError("two fixed pieces share a name")
        _fixed_counts(fixed)
        return fixed

    @model_validator(mode="after")
    def _one_piece_a_name(self) -> DesignSpec:
        """A name is one piece wherever it is given (fixed, or in any pool): the same
        shape, turns and copies. The same piece offered by two draws is one piece."""
        seen: dict[str, tuple[tuple, str]] = {}
        places = [("fixed", self.fixed)] + [
            (f"choose[{k}]", draw.pieces) for k, draw in enumerate(self.choose)]
        for where, pieces in places:
            for p in pieces:
                key = (canonical_shape(p.cells, flip=p.flip is not False), p.flip, p.rotate,
                       p.count)
                first = seen.setdefault(p.name, (key, where))
                if first[0] != key:
                    raise ValueError(
                        f"two different pieces are named {p.name!r} ({first[1]} and {where}); "
                        "a name is one piece in a design")
        return self
