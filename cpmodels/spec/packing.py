"""The ``packing`` kind: a board (drawn, by coordinates, a box or layers) and its targets."""

from __future__ import annotations

from typing import Any, Literal, cast

from pydantic import Field, field_validator, model_validator

from cpmodels.grids import Grid
from cpmodels.spec import base
from cpmodels.spec.kinds import BoardShape, PackingKind, TargetShape
from cpmodels.spec.pieces import (
    PieceSetSpec,
    _area_check,
    _board_rows,
    _check_form,
    _check_rectangular,
    _fit_check,
)


class BoardFields(BoardShape, base.StrictModel):
    """The ways to give a packing board: a drawing (square grid), coordinates (any grid), a
    box or layers of drawings (cube grid). Exactly one is given."""

    board: list[str] | None = Field(None,
                                    description="rows, '.' = cell, '#' = wall (square grid)")
    coords: list[list[int]] | None = Field(
        None, alias="cells", description="the board's cells as coordinates in the spec's grid")
    box: list[int] | None = Field(None, description="[X, Y, Z]: a box of cubes (cube grid)")
    layers: list[list[str]] | None = Field(
        None, description="square drawings of the board's layers, bottom first, "
                          "'.' = cell, '#' = wall (cube grid)")

    _normalize_board = field_validator("board", mode="before")(_board_rows)
    _normalize_layers = field_validator("layers", mode="before")(base._layers)

    @field_validator("board")
    @classmethod
    def _check_board(cls, rows: list[str] | None) -> list[str] | None:
        if rows is None:
            return None
        base._check_characters(rows, ".#", "draw cells with '.' and walls with '#'")
        _check_rectangular([len(r) for r in rows], "character")
        if "." not in "".join(rows):
            raise ValueError("the board has no cells; draw them with '.'")
        return rows

    @field_validator("coords")
    @classmethod
    def _check_coords(cls, cells: list[list[int]] | None) -> list[list[int]] | None:
        return None if cells is None else base._check_coordinates(cells, base.MAX_CELLS)

    @field_validator("box")
    @classmethod
    def _check_box(cls, box: list[int] | None) -> list[int] | None:
        if box is None:
            return None
        if len(box) != 3 or not all(1 <= side <= base.MAX_BOARD_SIDE for side in box):
            raise ValueError(f"a box is [X, Y, Z], each side 1 to {base.MAX_BOARD_SIDE}")
        if box[0] * box[1] * box[2] > base.MAX_CELLS:
            raise ValueError(f"a box of {box[0] * box[1] * box[2]:,} cells; at most "
                             f"{base.MAX_CELLS:,}")
        return box

    @field_validator("layers")
    @classmethod
    def _check_board_layers(cls, layers: list[list[str]] | None) -> list[list[str]] | None:
        if layers is None:
            return None
        for z, rows in enumerate(layers):
            try:
                _check_rectangular([len(r) for r in rows], "character")
            except ValueError as exc:
                raise ValueError(f"layer {z}: {exc}") from None
        return base._check_layers(layers, ".", (".", "#", "cells with '.' and walls with '#'"))

    def check_grid(self, geo: Grid, path: tuple[str | int, ...]) -> None:
        """The board is given in a form the grid allows, with cells of its arity."""
        form = self.given()[0]
        _check_form(form, self.cells, geo, (*path, form), "board")


class Target(TargetShape, BoardFields):
    """One of several boards that the same piece set must fill, one at a time."""

    name: base.Name

    @model_validator(mode="after")
    def _one_board(self) -> Target:
        if len(self.given()) != 1:
            raise ValueError("give the target's board as one of 'board' (a drawing), 'cells' "
                             "(coordinates), 'box' or 'layers' (cube grid)")
        return self


class PackingSpec(PackingKind, PieceSetSpec, BoardFields):
    """Fill a board (or each of several target boards) with every piece exactly as counted."""

    kind: Literal["packing"]
    targets: list[Target] | None = Field(None, min_length=1,
                                         description="several boards to fill one at a time")

    @model_validator(mode="after")
    def _check_targets(self) -> PackingSpec:
        given = self.given()
        if len(given) > 1 or bool(given) == (self.targets is not None):
            raise base.SpecFieldError((given[-1] if given else "board",),
                                 "give the board as one of 'board' (a drawing), 'cells', "
                                 "'box' or 'layers', or give 'targets'; not both and not "
                                 "neither")
        self._check_piece_grid()
        names: set[str] = set()
        for i, target in enumerate(cast("list[Target]", self.all_targets())):
            if target.name in names:
                raise base.SpecFieldError(("targets", i, "name"),
                                     f"two targets are named {target.name!r}")
            names.add(target.name)
            path: tuple[str | int, ...] = () if self.targets is None else ("targets", i)
            target.check_grid(self.geometry, path)
            _area_check(self, len(target.cells), 0, path or (given[0],))
            _fit_check(self, target.cells,
                       f"target {target.name!r}" if self.targets else "the board")
        return self

    def _board_target(self, fields: dict[str, Any]) -> Target:
        return Target.model_validate(fields)
