"""Make a puzzle: cut files for a laser and solids for a 3-D printer.

:func:`make` writes, into a directory that is whole or absent afterwards:

* ``sheet-N.svg`` and ``sheet-N.dxf``: every piece (as many as the spec uses at most), the
  board's frame with its cavity, and a base plate with the labels engraved, laid out on
  sheets (``laser.py`` says how cut and engraving are told apart; ``sheets.py`` how parts
  are laid out). The kerf is added outwards on every cut line of a part and inwards on a
  hole's, so parts come out at their nominal size; the clearance is taken off the pieces,
  half on every side. ``sheet-N.png`` previews each sheet.
* ``piece-NAME.stl`` and ``tray.stl`` (``printing.py``): closed manifold solids, the tray
  with its cavity and the labels engraved in its floor; ``tray.png`` previews it;
  ``puzzle.3mf`` holds them all, one object each.
* ``manifest.json``: each file with what it holds (piece, cells, area in mm², volume in
  mm³, sheet).

The cube grid has no flat parts: its pieces and tray are printed only.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from cpmodels import __version__
from cpmodels.errors import InputError, OptionError
from cpmodels.extras import require
from cpmodels.files import directory_in_place, write_atomic
from cpmodels.geometry import Cell
from cpmodels.spec.models import CalendarSpec, PackingLike, Spec, TowersSpec

FLOOR = 2.0  # millimetres under the tray's cavity


@dataclass(frozen=True)
class MakeOptions:
    """Sizes in millimetres: a cell's side, the laser's kerf, the play a piece needs, the
    sheet (width, height), the thickness of pieces and tray walls above the floor, and the
    frame's border around the cavity (default: half a cell)."""

    cell: float = 20.0
    kerf: float = 0.15
    clearance: float = 0.2
    sheet: tuple[float, float] = (600.0, 400.0)
    thickness: float = 4.0
    border: float | None = None
    gap: float = 3.0
    margin: float = 5.0
    font: str | None = None  # a TTF or OTF file for the labels (default: DejaVu Sans Bold)

    def check(self) -> None:
        """One clear line for each size that cannot make parts (:class:`OptionError`)."""
        if not 1.0 <= self.cell <= 500.0:
            _refuse("--cell", f"{self.cell:g}", "a cell must be 1 to 500 mm")
        if not 0.0 <= self.kerf < self.cell / 2:
            _refuse("--kerf", f"{self.kerf:g}", f"the kerf must be at least 0 and less than "
                    f"half a cell ({self.cell / 2:g} mm)")
        if not 0.0 <= self.clearance < self.cell / 4:
            _refuse("--clearance", f"{self.clearance:g}", f"the clearance must be at least 0 "
                    f"and less than a quarter of a cell ({self.cell / 4:g} mm)")
        if not 0.2 <= self.thickness <= 200.0:
            _refuse("--thickness", f"{self.thickness:g}",
                    "the thickness must be 0.2 to 200 mm")
        w, h = self.sheet
        if not (1.0 <= w <= 10_000.0 and 1.0 <= h <= 10_000.0):
            _refuse("--sheet", f"{w:g}x{h:g}", "a sheet's sides must be 1 to 10,000 mm")
        if self.border is not None and not 0.0 < self.border <= 10 * self.cell:
            _refuse("--border", f"{self.border:g}",
                    "the border must be more than 0 and at most ten cells")
        if not 0.0 <= self.gap <= 1000.0:
            _refuse("gap", f"{self.gap:g}", "the gap between parts must be 0 to 1000 mm")
        if not 0.0 <= self.margin < min(w, h) / 2:
            _refuse("margin", f"{self.margin:g}", f"the sheet's margin must be at least 0 "
                    f"and less than half its shorter side ({min(w, h) / 2:g} mm)")

    @property
    def frame_border(self) -> float:
        return self.cell / 2 if self.border is None else self.border


def _refuse(option: str, value: str, rule: str) -> NoReturn:
    """An :class:`OptionError`: ``option`` (as the command line spells it) is ``value``,
    against ``rule``."""
    raise OptionError(f"{option} {value}: {rule}", rule=rule, value=value)


def sheet_size(text: str) -> tuple[float, float]:
    """``WxH`` in millimetres (``600x400``), as ``--sheet`` takes it."""
    try:
        w, h = (float(v) for v in text.lower().split("x"))
    except ValueError:
        raise OptionError(f"sheet {text!r} is not WxH in millimetres (e.g. 600x400)",
                          rule="a sheet's size is its width and height in millimetres, "
                               "written WIDTHxHEIGHT such as 600x400",
                          value=repr(text[:40])) from None
    return w, h


@dataclass
class MakeReport:
    """What :func:`make` wrote: the directory, the manifest, and the files by kind."""

    directory: Path
    manifest: dict[str, Any]
    sheets: list[str] = field(default_factory=list)
    solids: list[str] = field(default_factory=list)

    def previews(self) -> list[Path]:
        """The preview pictures written: each sheet's and the tray's PNG."""
        return [self.directory / name for f in self.manifest.get("files", [])
                for name in (f["file"], *f.get("also", ())) if name.endswith(".png")]

    def __str__(self) -> str:
        sheets = sum(name.endswith(".svg") for name in self.sheets)
        return (f"{self.manifest.get('puzzle', '')} made in {self.directory}: {sheets} cut "
                f"sheet{'s' * (sheets != 1)} (SVG, DXF), {len(self.solids)} solids to print, "
                "manifest.json")

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, str]:
        """The previews side by side (as a notebook shows them), and the line of text."""
        import base64
        from html import escape

        shown = "".join(
            f'<figure style="display:inline-block;margin:4px;vertical-align:top">'
            f'<img style="max-width:420px" alt="{escape(path.name)}" src="data:image/png;'
            f'base64,{base64.b64encode(path.read_bytes()).decode()}">'
            f"<figcaption>{escape(path.name)}</figcaption></figure>"
            for path in self.previews() if path.exists())
        return {"text/html": f"<p>{escape(str(self))}</p>{shown}", "text/plain": str(self)}


def _board(spec: PackingLike, target: str | None) -> tuple[frozenset[Cell], dict[Cell, str]]:
    """The cells of the cavity and the labels on them."""
    if isinstance(spec, CalendarSpec):
        return spec.cells, spec.cell_labels
    targets = list(spec.all_targets())
    if target is None:
        return targets[0].cells, {}
    for t in targets:
        if t.name == target:
            return t.cells, {}
    raise InputError(f"{spec.name} has no target {target!r}; it has "
                     + ", ".join(t.name for t in targets))


def make(spec: Spec, out: Path, options: MakeOptions | None = None, *,
         target: str | None = None) -> MakeReport:
    """Write the cut files, the solids and the manifest of ``spec`` into ``out``."""
    if isinstance(spec, TowersSpec):
        raise InputError("make is for packing and calendar specs; a towers grid has no "
                         "pieces to cut")
    require("make", "cpmodels make")
    from shapely.geometry import box
    from shapely.ops import unary_union

    from cpmodels.make import laser, printing, sheets
    from cpmodels.make.preview import sheet_png, tray_png
    from cpmodels.make.shapes import Sheetwork, engraving_font, offset

    options = options or MakeOptions()
    options.check()
    cells, labels = _board(spec, target)
    font = engraving_font([*labels.values(), *(p.name for p in spec.pieces)], options.font)
    pieces = [(p.name, tuple(sorted(p.cells)), p.high) for p in spec.pieces]
    report = MakeReport(Path(out), {})
    manifest: dict[str, Any] = {
        "made_by": f"cpmodels {__version__}", "puzzle": spec.name, "grid": spec.grid,
        "options": {**asdict(options), "border": options.frame_border},
        "font": font.get_name(), "files": []}
    files: list[dict[str, Any]] = manifest["files"]
    inset = options.clearance / 2
    printed: list[tuple[str, Any]] = []  # (name, mesh) of every solid, for the 3MF
    with directory_in_place(Path(out)) as scratch:
        if spec.grid == "cube":
            footprint = {(x, y) for x, y, _ in cells}
            depth = (max(z for _, _, z in cells) + 1) * options.cell
            cavity = unary_union([box(x * options.cell, -(y + 1) * options.cell,
                                      (x + 1) * options.cell, -y * options.cell)
                                  for x, y in footprint])  # drawn y down: y turned over
            x0, y0, x1, y1 = cavity.bounds
            b = options.frame_border
            outer = box(x0 - b, y0 - b, x1 + b, y1 + b)
            _check_on_plate("tray", outer, options)  # the largest solid, before any is made
            for name, shape, copies in pieces:
                solid = printing.polycube(shape, options.cell, inset)
                file = f"piece-{_safe(name)}.stl"
                printed.append((name, printing.write_solid(solid, scratch / file)))
                files.append({"file": file, "holds": "piece", "piece": name, "copies": copies,
                              "cells": [list(c) for c in shape],
                              "volume_mm3": round(solid.volume(), 3)})
            solid = printing.tray(outer, cavity, None, floor=FLOOR, depth=depth)
            printed.append(("tray", printing.write_solid(solid, scratch / "tray.stl")))
            tray_png(outer, cavity, None, scratch / "tray.png")
            files.append({"file": "tray.stl", "also": ["tray.png"], "holds": "tray",
                          "cells": [list(c) for c in sorted(cells)],
                          "volume_mm3": round(solid.volume(), 3), "floor_mm": FLOOR,
                          "depth_mm": depth})
            report.solids = [f["file"] for f in files]
        else:
            work = Sheetwork(spec.grid, options.cell)
            cavity = work.region(cells)
            parts, engraving = flat_parts(work, cells, labels, pieces, options, font)
            outer = parts[-1].nominal  # the base: the box around the cells
            laid = sheets.lay_out(spec.grid, cells, pieces, parts, _sizes(options))
            for sheet in laid:
                stem = f"sheet-{sheet.number}"
                write_atomic(scratch / f"{stem}.svg", sheet.svg)
                laser.write_dxf(sheet, scratch / f"{stem}.dxf")
                sheet_png(sheet, scratch / f"{stem}.png")
                report.sheets += [f"{stem}.svg", f"{stem}.dxf", f"{stem}.png"]
                files.append({"file": f"{stem}.svg", "also": [f"{stem}.dxf", f"{stem}.png"],
                              "holds": "sheet", "sheet": sheet.number,
                              "size_mm": list(sheet.size), "parts": [
                                  _part_entry(p) for p in sheet.parts]})
            for name, shape, copies in pieces:
                nominal = offset(work.region(shape), -inset)
                solid = printing.extrude(nominal, options.thickness)
                file = f"piece-{_safe(name)}.stl"
                printed.append((name, printing.write_solid(solid, scratch / file)))
                files.append({"file": file, "holds": "piece", "piece": name, "copies": copies,
                              "cells": [list(c) for c in shape],
                              "area_mm2": round(nominal.area, 4),
                              "volume_mm3": round(solid.volume(), 3)})
            solid = printing.tray(outer, cavity, engraving, floor=FLOOR,
                                  depth=options.thickness)
            printed.append(("tray", printing.write_solid(solid, scratch / "tray.stl")))
            tray_png(outer, cavity, engraving, scratch / "tray.png")
            files.append({"file": "tray.stl", "also": ["tray.png"], "holds": "tray",
                          "cells": [list(c) for c in sorted(cells)],
                          "cavity_area_mm2": round(cavity.area, 4),
                          "volume_mm3": round(solid.volume(), 3),
                          "labels": len(labels), "floor_mm": FLOOR,
                          "depth_mm": options.thickness})
            report.solids = [f["file"] for f in files if f["file"].endswith(".stl")]
        printing.write_3mf(printed, scratch / "puzzle.3mf")
        files.append({"file": "puzzle.3mf", "holds": "every solid",
                      "objects": [name for name, _ in printed]})
        report.solids.append("puzzle.3mf")
        write_atomic(scratch / "README.txt", _readme(spec.name, spec.grid == "cube"))
        files.append({"file": "README.txt", "holds": "what each file is for"})
        write_atomic(scratch / "manifest.json", json.dumps(manifest, indent=1) + "\n")
    report.manifest = manifest
    return report


def flat_parts(work: Any, cells: frozenset[Cell], labels: dict[Cell, str],
               pieces: list[tuple[str, tuple[Cell, ...], int]], options: MakeOptions,
               font: Any) -> tuple[list[Any], Any]:
    """The parts to cut (each piece's copies, the frame, the base) as shapely shapes with
    their engraving (the core's, ``cpcore_engrave``, in ``font``), and the base's engraving
    (the labels)."""
    from shapely.geometry import box

    from cpmodels.make.glyphs import engraving_table
    from cpmodels.make.shapes import offset
    from cpmodels.make.sheets import Part, engrave

    cavity = work.region(cells)
    x0, y0, x1, y1 = cavity.bounds
    b = options.frame_border
    outer = box(x0 - b, y0 - b, x1 + b, y1 + b)
    glyphs = engraving_table([*labels.values(), *(name for name, _, _ in pieces)], font)
    *named, engraving = engrave(work.grid, labels, pieces, _sizes(options), glyphs)
    half_kerf, inset = options.kerf / 2, options.clearance / 2
    parts = []
    for (name, shape, copies), engraved in zip(pieces, named):
        nominal = offset(work.region(shape), -inset)
        for k in range(copies):
            parts.append(Part(name if copies == 1 else f"{name} {k + 1}", "piece",
                              offset(nominal, half_kerf), nominal, engrave=engraved,
                              piece=name, cells=shape))
    frame = outer.difference(cavity)
    parts.append(Part("frame", "frame", offset(frame, half_kerf), frame))
    parts.append(Part("base", "base", offset(outer, half_kerf), outer, engrave=engraving))
    return parts, engraving


def _sizes(options: MakeOptions) -> tuple[float, ...]:
    """The sizes the core takes (cpcore_cut_input's): the cell's side, kerf, clearance, sheet
    width and height, frame border, gap and margin (mm)."""
    return (options.cell, options.kerf, options.clearance, *options.sheet,
            options.frame_border, options.gap, options.margin)


def _check_on_plate(what: str, shape: Any, options: MakeOptions) -> None:
    """That a printed solid's footprint fits the sheet (the print plate, within its margins)
    turned a quarter or not, else :class:`InputError` before anything is made."""
    x0, y0, x1, y1 = shape.bounds
    w, h = x1 - x0, y1 - y0
    room_w, room_h = (side - 2 * options.margin for side in options.sheet)
    if not ((w <= room_w and h <= room_h) or (h <= room_w and w <= room_h)):
        raise InputError(f"the {what} ({w:,.1f} x {h:,.1f} mm at --cell {options.cell:g}) "
                         f"does not fit on a {options.sheet[0]:g} x {options.sheet[1]:g} mm "
                         f"sheet with {options.margin:g} mm margins; give a smaller --cell "
                         "or a larger --sheet")


README = """{name}: made by cpmodels make

sheet-N.svg, sheet-N.dxf  the parts to cut with a laser, one file a sheet. Cut lines are red
                          hairlines (0.01 mm) in the layer "cut", as laser software takes
                          them, so a browser shows little of them; the engraving (labels on
                          the base, each piece's name) is black fill in the layer "engrave".
sheet-N.png               a preview of each sheet: look here to see the parts.
piece-NAME.stl, tray.stl  solids to 3-D print; puzzle.3mf holds them all, tray.png previews
                          the tray.
manifest.json             every file, part and size, with the options used.
"""


def _readme(name: str, cube: bool) -> str:
    text = README.format(name=name)
    if cube:  # no flat parts on the cube grid
        text = text.split("sheet-N.svg")[0] + "piece-NAME.stl" + text.split("piece-NAME.stl")[1]
    return text


def _part_entry(part: Any) -> dict[str, Any]:
    entry = {"part": part.name, "kind": part.kind, "area_mm2": round(part.area, 4),
             "cut_area_mm2": round(part.cut_area, 4), "turn": part.turn,
             "at": [round(v, 4) for v in part.at]}
    if part.piece is not None:
        entry.update(piece=part.piece, cells=[list(c) for c in part.cells],
                     engraved=part.piece if part.engrave is not None else None)
    return entry


def _safe(name: str) -> str:
    """A piece's name as part of a file name."""
    out = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)
    return out or "piece"


__all__ = ["MakeOptions", "MakeReport", "flat_parts", "make"]
