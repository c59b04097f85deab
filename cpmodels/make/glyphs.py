"""The engraving's glyph table: a font's outlines as data the engine core lays text out from
(``cpcore_engrave``, ``src/engrave.cpp``), made here from a font file by matplotlib.

The table is a stream of 64-bit words (doubles as their bits), native (little-endian) order:

* ``n_glyphs``; each glyph: its advance, ``n_rings``, each ring ``n_points`` and its points
  (x, y), flattened as matplotlib flattens a glyph at size 10 (y up, the pen at 0, 0);
* ``n_chars``; each: a code point, its glyph, its kerning class as the first of a pair
  and as the second (ascending code points);
* ``n_first``, ``n_second`` and the kerning: the second glyph's move after the first's
  advance, ``n_first * n_second`` doubles, row by row (the first's class);
* ``n_joined``; each: the first and second code point of a pair the font draws as one glyph
  (as "fi"), and that glyph.

The page's copy (``web/static/engine/glyphs.bin``, DejaVu Sans Bold for printable ASCII and
Latin-1) is fetched only when a cut file is made; ``tests/test_engrave.py`` checks it is
what this module writes::

    python -m cpmodels.make.glyphs
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.font_manager import FontProperties

#: The characters the page's table holds: printable ASCII and Latin-1's letters and signs.
CHARS = "".join(chr(c) for c in [*range(0x20, 0x7F), *range(0xA1, 0x100)] if c != 0xAD)
#: The page's table, beside engine.wasm.
PAGE_TABLE = Path(__file__).resolve().parents[1] / "web" / "static" / "engine" / "glyphs.bin"
SIZE = 10.0  # the size glyphs are flattened at (make's text_outlines scales from there)


def _font(prop: FontProperties) -> Any:
    from matplotlib.textpath import text_to_path

    font = text_to_path._get_font(prop)  # type: ignore[attr-defined]
    font.set_size(text_to_path.FONT_SCALE, text_to_path.DPI)
    return font


def _layout(font: Any, text: str) -> list[tuple[int, float]]:
    """(glyph index, pen x) of each glyph of ``text`` as matplotlib's text layout sets it."""
    from matplotlib import _text_helpers

    return [(item.glyph_index, item.x) for item in _text_helpers.layout(text, font)]


def table(chars: Iterable[str], prop: FontProperties) -> bytes:
    """The glyph table of ``chars`` (those the font has; space and the like too) in the font
    ``prop`` names."""
    from matplotlib.ft2font import LoadFlags
    from matplotlib.path import Path as MplPath
    from matplotlib.textpath import text_to_path

    font = _font(prop)
    scale = SIZE / text_to_path.FONT_SCALE
    charmap = font.get_charmap()
    chars = sorted({c for c in chars if ord(c) in charmap})
    glyph_of: dict[int, int] = {}  # the font's glyph index: its number in the table
    glyphs: list[list[float]] = []

    def number(index: int) -> int:
        if index not in glyph_of:
            glyph = font.load_glyph(index, flags=LoadFlags.NO_HINTING)
            words: list[float] = [glyph.linearHoriAdvance / 65536 * scale]
            verts, codes = font.get_path()
            rings = [np.asarray(r, dtype=np.float64)[:-1]  # closed: the first point last
                     for r in MplPath(verts * scale, codes).to_polygons()]
            rings = [r for r in rings if len(r) >= 3]
            words.append(len(rings))
            for ring in rings:
                words.append(len(ring))
                words.extend(float(v) for v in ring.reshape(-1))
            glyph_of[index] = len(glyphs)
            glyphs.append(words)
        return glyph_of[index]

    cmap = [(ord(c), number(_layout(font, c)[0][0])) for c in chars]
    joined, moves = [], {}
    for a in chars:
        for b in chars:
            laid = _layout(font, a + b)
            if len(laid) == 1:
                joined.append((ord(a), ord(b), number(laid[0][0])))
                continue
            (ga, xa), (_, xb) = laid
            moves[a, b] = (xb - xa) * scale - glyphs[number(ga)][0]
    # Kerning by classes: chars whose rows (columns) of moves are equal share one.
    rows = {a: tuple(moves.get((a, b), 0.0) for b in chars) for a in chars}
    cols = {b: tuple(moves.get((a, b), 0.0) for a in chars) for b in chars}
    first = {row: k for k, row in enumerate(dict.fromkeys(rows.values()))}
    second = {col: k for k, col in enumerate(dict.fromkeys(cols.values()))}
    kerning = [[0.0] * len(second) for _ in first]
    for a in chars:
        for b in chars:
            kerning[first[rows[a]]][second[cols[b]]] = moves.get((a, b), 0.0)
    out = bytearray(struct.pack("<q", len(glyphs)))
    for words in glyphs:
        out += struct.pack("<dq", words[0], int(words[1]))
        at = 2
        for _ in range(int(words[1])):
            n = int(words[at])
            out += struct.pack("<q", n) + struct.pack(f"<{2 * n}d", *words[at + 1: at + 1 + 2 * n])
            at += 1 + 2 * n
    out += struct.pack("<q", len(cmap))
    for c, (code, glyph) in zip(chars, cmap):
        out += struct.pack("<qqqq", code, glyph, first[rows[c]], second[cols[c]])
    out += struct.pack("<qq", len(first), len(second))
    for row in kerning:
        out += struct.pack(f"<{len(row)}d", *row)
    out += struct.pack("<q", len(joined))
    for a_code, b_code, glyph in joined:
        out += struct.pack("<qqq", a_code, b_code, glyph)
    return bytes(out)


def engraving_table(texts: Iterable[str], prop: FontProperties) -> bytes:
    """The glyph table make engraves ``texts`` from in the font ``prop``: the page's own
    (so the page's cut file equals make's) when that is the font and it has every
    character, else one made for these characters."""
    from cpmodels.make.shapes import FONT

    chars = set("".join(texts))
    if prop == FONT and chars <= set(CHARS) and PAGE_TABLE.exists():
        return PAGE_TABLE.read_bytes()
    return table(chars, prop)


def page_table() -> bytes:
    """The page's table: :data:`CHARS` in DejaVu Sans Bold (make's default font)."""
    from cpmodels.make.shapes import FONT

    return table(CHARS, FONT)


def main() -> None:
    PAGE_TABLE.write_bytes(page_table())
    print(f"{PAGE_TABLE}: {PAGE_TABLE.stat().st_size:,} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
