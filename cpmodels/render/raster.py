"""Scenes as PNG, drawn with matplotlib (Agg) at exactly :attr:`Scene.size_px` pixels."""

from __future__ import annotations

import io

from matplotlib.figure import Figure
from matplotlib.patches import PathPatch, Rectangle
from matplotlib.path import Path as MplPath

from cpmodels.render.scene import (
    BOARD,
    CELL_PX,
    INK,
    MARGIN_PX,
    TITLE_PX,
    WALL,
    Loop,
    Scene,
)

DPI = 100


def _mpl_path(loops: list[Loop]) -> MplPath:
    vertices: list[tuple[float, float]] = []
    codes: list[int] = []
    for loop in loops:
        vertices += [*loop, loop[0]]
        codes += [MplPath.MOVETO] + [MplPath.LINETO] * (len(loop) - 1) + [MplPath.CLOSEPOLY]
    return MplPath(vertices, codes)


def scene_figure(scene: Scene) -> Figure:
    """A figure of the scene in grid units (y down), sized to :attr:`Scene.size_px`."""
    width, height = scene.size_px
    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    ax = fig.add_axes((0, 0, 1, 1))
    m, t = MARGIN_PX / CELL_PX, TITLE_PX / CELL_PX
    ax.set_xlim(-m, width / CELL_PX - m)  # one cell is CELL_PX pixels either way
    ax.set_ylim(height / CELL_PX - m - t, -m - t)
    ax.set_axis_off()
    lw = 72 / DPI  # points per pixel
    for r, c in scene.walls:
        ax.add_patch(Rectangle((c, r), 1, 1, facecolor=WALL, edgecolor="none"))
    if scene.board:
        ax.add_patch(PathPatch(_mpl_path(scene.board), facecolor=BOARD, edgecolor="none"))
    for (r, c), colour in scene.fills.items():
        ax.add_patch(Rectangle((c, r), 1, 1, facecolor=colour, edgecolor=INK, lw=1 * lw))
    for shape in scene.shapes:
        ax.add_patch(PathPatch(_mpl_path(shape.loops), facecolor=shape.colour, edgecolor=INK,
                               lw=2.5 * lw, joinstyle="round", gid=shape.name))
    for (r, c), text in scene.texts.items():
        tower = (r, c) in scene.fills
        ax.text(c + 0.5, r + 0.5, text, ha="center", va="center", color=scene.ink((r, c)),
                fontsize=(15 if len(text) < 3 else 12) * lw,
                fontweight="bold" if tower else "normal")
    if scene.board:
        ax.add_patch(PathPatch(_mpl_path(scene.board), facecolor="none", edgecolor=INK,
                               lw=4 * lw, joinstyle="round"))
    ax.text(0, -m - t / 2, scene.title, ha="left", va="center", color=INK,
            fontsize=15 * lw)
    return fig


def figure_bytes(fig: Figure, fmt: str = "png") -> bytes:
    """A figure at its own size as PNG (or another format matplotlib writes, such as svg)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, dpi=DPI, facecolor="white")
    return buffer.getvalue()


def scene_png(scene: Scene) -> bytes:
    """The scene as PNG bytes, :attr:`Scene.size_px` pixels."""
    return figure_bytes(scene_figure(scene))
