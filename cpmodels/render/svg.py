"""Scenes as SVG: a self-contained document, one ``<path>`` per piece outline."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

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


def _px(x: float, y: float) -> tuple[float, float]:
    """Pixel position of the grid point (x, y) = (column, row)."""
    return MARGIN_PX + x * CELL_PX, MARGIN_PX + TITLE_PX + y * CELL_PX


def _xy(x: float, y: float) -> str:
    px, py = _px(x, y)
    return f"{px:g},{py:g}"


def _square(r: int, c: int, css: str, fill: str, extra: str = "") -> str:
    x, y = _px(c, r)
    return (f'<rect class="{css}" x="{x:g}" y="{y:g}" width="{CELL_PX}" height="{CELL_PX}" '
            f'fill="{fill}"{extra}/>')


def _path(loops: list[Loop]) -> str:
    return " ".join("M" + " L".join(_xy(*p) for p in loop) + " Z" for loop in loops)


def _text(x: float, y: float, text: str, css: str, size: int, weight: str = "normal",
          ink: str = INK) -> str:
    px, py = _px(x, y)
    return (f'<text class="{css}" x="{px:g}" y="{py:g}" font-size="{size}" '
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
    for r, c in scene.walls:
        out.append(_square(r, c, "wall", WALL))
    if scene.board:
        out.append(f'<path class="board" d="{_path(scene.board)}" fill="{BOARD}" '
                   'fill-rule="evenodd" stroke="none"/>')
    for (r, c), colour in scene.fills.items():
        out.append(_square(r, c, "cell", colour, f' stroke="{INK}" stroke-width="1"'))
    for shape in scene.shapes:
        out.append(f'<path class="piece" data-piece={quoteattr(shape.name)} '
                   f'd="{_path(shape.loops)}" fill="{shape.colour}" fill-rule="evenodd" '
                   f'stroke="{INK}" stroke-width="2.5" stroke-linejoin="round">'
                   f"<title>{escape(shape.name)}</title></path>")
    for (r, c), text in scene.texts.items():
        css = "tower" if (r, c) in scene.fills else "label"
        size = 15 if len(text) < 3 else 12
        out.append(_text(c + 0.5, r + 0.5, text, css, size,
                         "bold" if css == "tower" else "normal", scene.ink((r, c))))
    if scene.board:
        out.append(f'<path class="walls" d="{_path(scene.board)}" fill="none" '
                   f'stroke="{INK}" stroke-width="4" stroke-linejoin="round"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
