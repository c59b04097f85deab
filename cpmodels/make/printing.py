"""Solids for 3-D printing: pieces and a tray, closed and manifold (manifold3d), written as
STL and 3MF by trimesh.

Flat pieces are their outlines extruded ``thickness`` millimetres. The tray is the board's
frame as a block with the board's cells cut out ``thickness`` deep above a floor, and the
labels engraved in that floor. Solid pieces (the cube grid) are unions of cubes. The play a
piece needs (``clearance``) is taken off the pieces: half of it on every side, as an exact
mitred offset (for cubes: the cells around the piece, each grown by half the clearance,
taken away from its box). Drawings are y down; solids are y up, so y is turned over on the
way and nothing comes out mirrored.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import trimesh
from manifold3d import CrossSection, FillRule, Manifold

from cpmodels.files import write_atomic
from cpmodels.make.shapes import Flat, polygons

ENGRAVE_DEPTH = 0.6  # millimetres of a label cut into the tray's floor


def _section(shape: Flat) -> CrossSection:
    rings = []
    for poly in polygons(shape):
        for ring in (poly.exterior, *poly.interiors):
            rings.append(np.array([(x, -y) for x, y in list(ring.coords)[:-1]]))
    return CrossSection(rings, FillRule.EvenOdd)


def extrude(shape: Flat, height: float, base: float = 0.0) -> Manifold:
    """``shape`` (a drawing, y down) as a prism from ``base`` to ``base + height``."""
    return _section(shape).extrude(height).translate((0.0, 0.0, base))


def tray(frame: Flat, cavity: Flat, labels: Flat | None, *, floor: float,
         depth: float) -> Manifold:
    """A block of ``frame`` ``floor + depth`` tall with ``cavity`` cut ``depth`` deep and the
    labels engraved in the cavity's floor."""
    solid = extrude(frame, floor + depth) - extrude(cavity, depth + 1.0, floor)
    if labels is not None and not labels.is_empty:
        solid = solid - extrude(labels, ENGRAVE_DEPTH + 1.0, floor - ENGRAVE_DEPTH)
    return solid


def polycube(cells: Iterable[tuple[int, ...]], cell: float, inset: float) -> Manifold:
    """The union of the cells' cubes, ``inset`` millimetres taken off every outer face: the
    box around the piece less every other cell of the box and its shell, each cube grown by
    ``inset`` (the exact mitred erosion of the piece)."""
    cells = set(cells)
    lo = np.min(list(cells), axis=0)
    hi = np.max(list(cells), axis=0) + 1
    box = Manifold.cube(tuple(float(v) for v in (hi - lo) * cell)).translate(
        tuple(float(v) for v in lo * cell))
    if inset <= 0:
        return Manifold.batch_boolean(
            [Manifold.cube((cell, cell, cell)).translate(tuple(float(v * cell) for v in c))
             for c in cells], _union())
    grown = []
    side = cell + 2 * inset
    for x in range(lo[0] - 1, hi[0] + 1):
        for y in range(lo[1] - 1, hi[1] + 1):
            for z in range(lo[2] - 1, hi[2] + 1):
                if (x, y, z) not in cells:
                    grown.append(Manifold.cube((side, side, side)).translate(
                        (x * cell - inset, y * cell - inset, z * cell - inset)))
    return box - Manifold.batch_boolean(grown, _union())


def _union():
    from manifold3d import OpType

    return OpType.Add


def mesh(solid: Manifold) -> trimesh.Trimesh:
    """The solid as a triangle mesh (trimesh), vertices merged."""
    out = solid.to_mesh()
    vertices = np.asarray(out.vert_properties)[:, :3]
    return trimesh.Trimesh(vertices=vertices, faces=np.asarray(out.tri_verts), process=True)


def write_solid(solid: Manifold, path: Path) -> trimesh.Trimesh:
    """Write the solid as STL or 3MF (by the file's extension); the mesh written."""
    shape = mesh(solid)
    data = shape.export(file_type=path.suffix.lower().lstrip("."))
    assert isinstance(data, (bytes, str))  # a file format's text or bytes
    write_atomic(path, data)
    return shape


def write_3mf(named: list[tuple[str, trimesh.Trimesh]], path: Path, gap: float = 5.0) -> None:
    """Every solid in one 3MF, each an object named as its file, side by side on the plate
    (a slicer opens them all at once)."""
    scene = trimesh.Scene()
    x = 0.0
    for name, shape in named:
        (x0, y0, z0), (x1, _, _) = shape.bounds
        placed = shape.copy()
        placed.apply_translation((x - x0, -y0, -z0))
        scene.add_geometry(placed, node_name=name, geom_name=name)
        x += x1 - x0 + gap
    write_atomic(path, scene.export(file_type="3mf"))
