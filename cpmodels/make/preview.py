"""Preview pictures (PNG) of the sheets and the tray, drawn with matplotlib."""

from __future__ import annotations

import io
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import PathPatch
from matplotlib.path import Path as MplPath

from cpmodels.files import write_atomic
from cpmodels.make.shapes import Flat, polygons
from cpmodels.make.sheets import Sheet

DPI = 100
PX_PER_MM = 2.0
MAX_PIXELS = 4_000_000  # a preview's budget: a larger sheet or tray is drawn at a smaller scale


def _patch(shape: Flat | None, **style) -> list[PathPatch]:
    out = []
    for poly in polygons(shape) if shape is not None else []:
        vertices, codes = [], []
        for ring in (poly.exterior, *poly.interiors):
            pts = list(ring.coords)
            vertices += pts
            codes += [MplPath.MOVETO] + [MplPath.LINETO] * (len(pts) - 2) + [MplPath.CLOSEPOLY]
        out.append(PathPatch(MplPath(vertices, codes), **style))
    return out


def _save(fig: Figure, path: Path) -> None:
    """The figure as a PNG at ``path``, through the package's one writer."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    write_atomic(path, buffer.getvalue())


def _figure(width: float, height: float) -> tuple[Figure, Axes]:
    """A figure of ``width`` x ``height`` mm: :data:`PX_PER_MM`, or fewer pixels per mm
    where that would take more than :data:`MAX_PIXELS`."""
    px_per_mm = min(PX_PER_MM, (MAX_PIXELS / max(width * height, 1e-9)) ** 0.5)
    scale = px_per_mm / DPI
    fig = Figure(figsize=(max(width * scale, 1), max(height * scale, 1)), dpi=DPI)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)  # y down, as on the sheet
    ax.set_aspect("equal")
    ax.axis("off")
    return fig, ax


def sheet_png(sheet: Sheet, path: Path) -> None:
    """A sheet: the material, the parts' cut lines in red, the engraving in black."""
    w, h = sheet.size
    fig, ax = _figure(w, h)
    ax.add_patch(PathPatch(MplPath([(0, 0), (w, 0), (w, h), (0, h), (0, 0)]),
                           facecolor="#f3e9d8", edgecolor="#999999"))
    for part in sheet.parts:
        for patch in _patch(part.moved(part.cut), facecolor="#e6d3b3", edgecolor="#ff0000",
                            linewidth=0.8):
            ax.add_patch(patch)
        for patch in _patch(part.moved(part.engrave), facecolor="#000000", edgecolor="none"):
            ax.add_patch(patch)
    _save(fig, path)


def tray_png(outer: Flat, cavity: Flat, labels: Flat | None, path: Path) -> None:
    """The tray from above: its rim, the cavity and the engraved labels."""
    x0, y0, x1, y1 = outer.bounds
    fig, ax = _figure(x1 - x0 + 10, y1 - y0 + 10)
    ax.set_xlim(x0 - 5, x1 + 5)
    ax.set_ylim(y1 + 5, y0 - 5)
    for shape, colour in ((outer, "#8c6d46"), (cavity, "#e6d3b3"), (labels, "#3b2a16")):
        for patch in _patch(shape, facecolor=colour, edgecolor="none"):
            ax.add_patch(patch)
    _save(fig, path)
