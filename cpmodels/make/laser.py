"""Sheets written for laser cutters: SVG and DXF, in millimetres.

Cutting and engraving are told apart as laser software reads them. In SVG, cut lines are
hairline red strokes with no fill (``#ff0000``, 0.01 mm) in a layer named ``cut``, and
engraving is black fill with no stroke in a layer named ``engrave``; the document is
``W mm`` x ``H mm`` with one user unit a millimetre. In DXF (``$INSUNITS`` 4,
millimetres), cut lines are on layer ``CUT`` (red) and engraving on layer ``ENGRAVE``
(blue). Every outline is one closed path: one ``<path>`` ending in ``Z`` (an engraved glyph
keeps its holes in the same path, filled even-odd), one closed LWPOLYLINE.
"""

from __future__ import annotations

import io
from pathlib import Path
from xml.sax.saxutils import quoteattr

import ezdxf

from cpmodels.files import write_atomic
from cpmodels.make.shapes import polygons
from cpmodels.make.sheets import Sheet

CUT_STROKE = "#ff0000"
ENGRAVE_FILL = "#000000"


def _ring(coords) -> str:
    pts = list(coords)[:-1]  # shapely repeats the first point last
    return "M " + " L ".join(f"{x:.4f} {y:.4f}" for x, y in pts) + " Z"


def sheet_svg(sheet: Sheet) -> str:
    """One sheet as SVG text."""
    w, h = sheet.size
    cuts, engraving = [], []
    for part in sheet.parts:
        title = quoteattr(part.name)
        for poly in polygons(part.moved(part.cut)):
            for ring in (poly.exterior, *poly.interiors):
                cuts.append(f'    <path data-part={title} d="{_ring(ring.coords)}"/>')
        for poly in polygons(part.moved(part.engrave)):
            d = " ".join(_ring(r.coords) for r in (poly.exterior, *poly.interiors))
            engraving.append(f'    <path data-part={title} d="{d}"/>')
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" '
        f'xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" '
        f'width="{w:g}mm" height="{h:g}mm" viewBox="0 0 {w:g} {h:g}">',
        f'  <g id="engrave" inkscape:groupmode="layer" inkscape:label="engrave" '
        f'fill="{ENGRAVE_FILL}" fill-rule="evenodd" stroke="none">',
        *engraving,
        "  </g>",
        f'  <g id="cut" inkscape:groupmode="layer" inkscape:label="cut" fill="none" '
        f'stroke="{CUT_STROKE}" stroke-width="0.01">',
        *cuts,
        "  </g>",
        "</svg>",
        "",
    ])


def write_dxf(sheet: Sheet, path: Path) -> None:
    """One sheet as a DXF file: y up, as CAD draws it (the sheet's top edge at y = H)."""
    doc = ezdxf.new("R2010", setup=False)
    doc.units = ezdxf.units.MM
    doc.header["$INSUNITS"] = 4
    doc.layers.add("CUT", color=1)
    doc.layers.add("ENGRAVE", color=5)
    space = doc.modelspace()
    height = sheet.size[1]

    def add(shape, layer: str) -> None:
        for poly in polygons(shape):
            for ring in (poly.exterior, *poly.interiors):
                points = [(x, height - y) for x, y in list(ring.coords)[:-1]]
                space.add_lwpolyline(points, close=True, dxfattribs={"layer": layer})

    for part in sheet.parts:
        add(part.moved(part.cut), "CUT")
        add(part.moved(part.engrave), "ENGRAVE")
    text = io.StringIO()
    doc.write(text)
    write_atomic(path, text.getvalue().encode(doc.output_encoding))
