"""Scenes as PNG, drawn with matplotlib (Agg) at exactly :attr:`Scene.size_px` pixels."""

from __future__ import annotations

import io

from matplotlib.figure import Figure
from matplotlib.patches import PathPatch
from matplotlib.path import Path as MplPath

from cpmodels.render.scene import BOARD, INK, MARGIN_PX, TITLE_PX, WALL, Loop, Scene

DPI = 100


def _mpl_path(scene: Scene, loops: list[Loop]) -> MplPath:
    """Loops in drawing units as one matplotlib path in pixels."""
    vertices: list[tuple[float, float]] = []
    codes: list[int] = []
    for loop in loops:
        vertices += [scene.px(p) for p in (*loop, loop[0])]
        codes += [int(MplPath.MOVETO), *[int(MplPath.LINETO)] * (len(loop) - 1),
                  int(MplPath.CLOSEPOLY)]
    return MplPath(vertices, codes)


def scene_figure(scene: Scene) -> Figure:
    """A figure of the scene in pixels (y down), sized to :attr:`Scene.size_px`."""
    width, height = scene.size_px
    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.set_axis_off()
    lw = 72 / DPI  # points per pixel

    def cell(c: tuple[int, ...]) -> MplPath:
        return _mpl_path(scene, [scene.drawing.corners(c)])

    for c in scene.walls:
        ax.add_patch(PathPatch(cell(c), facecolor=WALL, edgecolor="none"))
    if scene.board:
        ax.add_patch(PathPatch(_mpl_path(scene, scene.board), facecolor=BOARD,
                               edgecolor="none"))
    for c, colour in scene.fills.items():
        ax.add_patch(PathPatch(cell(c), facecolor=colour, edgecolor=INK, lw=1 * lw))
    for shape in scene.shapes:
        ax.add_patch(PathPatch(_mpl_path(scene, shape.loops), facecolor=shape.colour,
                               edgecolor=INK, lw=2.5 * lw, joinstyle="round", gid=shape.name))
    for face in scene.faces:
        ax.add_patch(PathPatch(_mpl_path(scene, [face.loop]), facecolor=face.colour,
                               edgecolor=INK, lw=1 * lw, joinstyle="round"))
    for c, text in scene.texts.items():
        tower = c in scene.fills
        x, y = scene.px(scene.drawing.centre(c))
        ax.text(x, y, text, ha="center", va="center", color=scene.ink(c),
                fontsize=(15 if len(text) < 3 else 12) * lw,
                fontweight="bold" if tower else "normal")
    for point, text in scene.captions:
        x, y = scene.px(point)
        ax.text(x, y, text, ha="center", va="center", color=INK, fontsize=12 * lw)
    if scene.board:
        ax.add_patch(PathPatch(_mpl_path(scene, scene.board), facecolor="none", edgecolor=INK,
                               lw=4 * lw, joinstyle="round"))
    ax.text(MARGIN_PX, MARGIN_PX + TITLE_PX / 2, scene.title, ha="left", va="center",
            color=INK, fontsize=15 * lw)
    return fig


def figure_bytes(fig: Figure, fmt: str = "png") -> bytes:
    """A figure at its own size as PNG (or another format matplotlib writes, such as svg)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, dpi=DPI, facecolor="white")
    return buffer.getvalue()


def scene_png(scene: Scene) -> bytes:
    """The scene as PNG bytes, :attr:`Scene.size_px` pixels."""
    return figure_bytes(scene_figure(scene))
