"""Scenes as SVG: a self-contained document, one ``<path>`` per piece outline."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from cpmodels.geometry import Cell
from cpmodels.render.scene import BOARD, INK, MARGIN_PX, TITLE_PX, WALL, Loop, Point, Scene


def _xy(scene: Scene, point: Point) -> str:
    px, py = scene.px(point)
    return f"{px:.6g},{py:.6g}"


def _cell(scene: Scene, cell: Cell, css: str, fill: str, extra: str = "") -> str:
    """One cell: a ``<rect>`` on the square grid, else a ``<polygon>``."""
    corners = scene.drawing.corners(cell)
    if scene.drawing.name == "square":
        (x, y), (x1, y1) = scene.px(corners[0]), scene.px(corners[2])
        return (f'<rect class="{css}" x="{x:g}" y="{y:g}" width="{x1 - x:g}" '
                f'height="{y1 - y:g}" fill="{fill}"{extra}/>')
    points = " ".join(_xy(scene, pt) for pt in corners)
    return f'<polygon class="{css}" points="{points}" fill="{fill}"{extra}/>'


def _path(scene: Scene, loops: list[Loop]) -> str:
    return " ".join("M" + " L".join(_xy(scene, p) for p in loop) + " Z" for loop in loops)


def _text(scene: Scene, point: Point, text: str, css: str, size: int,
          weight: str = "normal", ink: str = INK) -> str:
    px, py = scene.px(point)
    return (f'<text class="{css}" x="{px:.6g}" y="{py:.6g}" font-size="{size}" '
            f'font-weight="{weight}" text-anchor="middle" dominant-baseline="central" '
            f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" fill="{ink}">'
            f"{escape(text)}</text>")


def scene_svg(scene: Scene) -> str:
    """The scene as an SVG document (width and height in pixels, as :attr:`Scene.size_px`)."""
    width, height = scene.size_px
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">',
        f"<title>{escape(scene.title)}</title>",
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text class="title" x="{MARGIN_PX}" y="{MARGIN_PX + TITLE_PX / 2:g}" font-size="15" '
        f'dominant-baseline="central" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" '
        f'fill="{INK}">{escape(scene.title)}</text>',
    ]
    for cell in scene.walls:
        out.append(_cell(scene, cell, "wall", WALL))
    if scene.board:
        out.append(f'<path class="board" d="{_path(scene, scene.board)}" fill="{BOARD}" '
                   'fill-rule="evenodd" stroke="none"/>')
    for cell, colour in scene.fills.items():
        out.append(_cell(scene, cell, "cell", colour, f' stroke="{INK}" stroke-width="1"'))
    for shape in scene.shapes:
        out.append(f'<path class="piece" data-piece={quoteattr(shape.name)} '
                   f'd="{_path(scene, shape.loops)}" fill="{shape.colour}" fill-rule="evenodd" '
                   f'stroke="{INK}" stroke-width="2.5" stroke-linejoin="round">'
                   f"<title>{escape(shape.name)}</title></path>")
    for face in scene.faces:
        out.append(f'<path class="face" data-piece={quoteattr(face.piece)} '
                   f'd="{_path(scene, [face.loop])}" fill="{face.colour}" stroke="{INK}" '
                   'stroke-width="1" stroke-linejoin="round"/>')
    for cell, text in scene.texts.items():
        css = "tower" if cell in scene.fills else "label"
        size = 15 if len(text) < 3 else 12
        out.append(_text(scene, scene.drawing.centre(cell), text, css, size,
                         "bold" if css == "tower" else "normal", scene.ink(cell)))
    for point, text in scene.captions:
        out.append(_text(scene, point, text, "caption", 12))
    if scene.board:
        out.append(f'<path class="walls" d="{_path(scene, scene.board)}" fill="none" '
                   f'stroke="{INK}" stroke-width="4" stroke-linejoin="round"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
