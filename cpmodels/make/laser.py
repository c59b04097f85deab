"""Sheets written for laser cutters: SVG (written by the engine core, ``sheets.py``) and DXF,
in millimetres.

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

import ezdxf

from cpmodels.files import write_atomic
from cpmodels.make.shapes import polygons
from cpmodels.make.sheets import Sheet


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
