"""What to solve: a :class:`~cpmodels.query.Query` compiled to its exact cover."""

from __future__ import annotations

from dataclasses import dataclass

from cpmodels.cover import ExactCover, packing_cover
from cpmodels.geometry import Cell
from cpmodels.query import Query
from cpmodels.spec.kinds import CalendarKind, PackingKind


@dataclass
class PackingInstance:
    """One concrete packing problem: the cells to fill, the pieces, and its exact cover."""

    query: Query
    uncovered: tuple[Cell, ...]  # a calendar's cells left open (the labels asked for)
    cells: frozenset[Cell]  # the cells to fill
    cover: ExactCover

    @property
    def spec(self) -> PackingKind | CalendarKind:
        return self.query.spec

    @property
    def name(self) -> str:
        return self.query.spec.name

    @property
    def target(self) -> str:
        return self.query.target

    @property
    def labels(self) -> tuple[str, ...]:
        return self.query.labels

    @property
    def face_up(self) -> bool:
        return self.query.face_up

    @property
    def board_cells(self) -> frozenset[Cell]:
        """Every non-wall cell of the drawing, the uncovered ones included."""
        return self.cells | frozenset(self.uncovered)

    def cell_labels(self) -> dict[Cell, str]:
        """Label drawn on each labelled cell (calendar specs), for rendering."""
        return self.spec.cell_labels if isinstance(self.spec, CalendarKind) else {}


def packing_instance(query: Query) -> PackingInstance:
    """Compile a query into its exact cover: the cells to fill and the pieces' placements."""
    spec = query.spec
    if isinstance(spec, CalendarKind):
        uncovered = tuple(spec.label_cells[label] for label in query.labels)
        cells = spec.cells - frozenset(uncovered)
    else:
        uncovered = ()
        cells = next(t.cells for t in spec.all_targets() if t.name == query.target)
    kinds = spec.piece_kinds(face_up=query.face_up)
    return PackingInstance(query, uncovered, cells, packing_cover(cells, kinds, spec.geometry))
