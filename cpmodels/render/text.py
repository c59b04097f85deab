"""Terminal drawings of solutions: one letter (and, on a colour terminal, a colour) per piece."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Set
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (types only: a packing answer loads nothing of the towers)
    from cpmodels.backends.result import CoverResult
    from cpmodels.counting import CountResult
    from cpmodels.geometry import Cell, Placement
    from cpmodels.instance import PackingInstance
    from cpmodels.towers.problem import TowersProblem
    from cpmodels.towers.result import TowersResult

# 256-colour backgrounds that keep black text readable.
_PALETTE = (217, 153, 187, 229, 159, 223, 183, 151, 195, 216, 189, 230, 158, 225, 186, 152)


def _paint(text: str, index: int, colour: bool) -> str:
    if not colour:
        return text
    return f"\x1b[48;5;{_PALETTE[index % len(_PALETTE)]}m\x1b[30m{text}\x1b[0m"


def draw_board(cells: frozenset[Cell], placements: list[Placement], letters: Mapping[str, str],
               labels: Mapping[Cell, str], colour: bool = False,
               grid: str = "square") -> list[str]:
    """Rows of text: a piece's letter on its cells, labels on uncovered cells, walls blank.

    Square and triangle cells are written at ``[row, col]`` (a triangle's neighbours across
    its base are in the row above or below); hex rows are shifted half a cell right per row,
    as the hexagons lie; a solid's layers stand side by side, bottom first.
    """
    owner: dict[Cell, str] = {}
    for p in placements:
        for rc in p.cells:
            owner[rc] = p.piece
    order = {name: i for i, name in enumerate(letters)}
    every = cells | set(labels)
    width = max([len(label) for label in labels.values()] + [1])

    def token(rc: Cell) -> str:
        if rc in owner:
            piece = owner[rc]
            return _paint(letters.get(piece, "?").center(width), order.get(piece, 0), colour)
        if rc in cells:
            return labels.get(rc, ".").center(width)
        return " " * width

    if grid == "cube":
        return _layers_side_by_side(every, token)
    if grid == "hex":
        width += (width + 1) % 2  # a cell and its gap take an even number of columns
        qs, rs = [q for q, _ in every], [r for _, r in every]
        indent = [(r - min(rs)) * (width + 1) // 2 for r in range(min(rs), max(rs) + 1)]
        shift = min(indent[r - min(rs)] + (q - min(qs)) * (width + 1) for q, r in every)
        lines = []
        for r in range(min(rs), max(rs) + 1):
            row = [q for q, rr in every if rr == r]
            if not row:
                lines.append("")
                continue
            lead = indent[r - min(rs)] + (min(row) - min(qs)) * (width + 1) - shift
            parts = [token((q, r)) for q in range(min(row), max(row) + 1)]
            lines.append((" " * lead + " ".join(parts)).rstrip())
        return lines
    r0, c0 = min(r for r, _ in every), min(c for _, c in every)
    rows = max(r for r, _ in every) + 1
    cols = max(c for _, c in every) + 1
    return [" ".join(token((r, c)) for c in range(c0, cols)).rstrip()
            for r in range(r0, rows)]


def _layers_side_by_side(every: Set[Cell], token: Callable[[Cell], str]) -> list[str]:
    """Each layer ``z`` (bottom first) as rows ``y`` of cells ``x``, the layers side by side
    under a ``z = k`` heading."""
    x0, y0, z0 = (min(c[k] for c in every) for k in range(3))
    x1, y1, z1 = (max(c[k] for c in every) + 1 for k in range(3))
    blocks = []
    for z in range(z0, z1):
        rows = [" ".join(token((x, y, z)) for x in range(x0, x1)) for y in range(y0, y1)]
        span = max(len(_visible(row)) for row in rows)
        heading = f"z = {z}"
        span = max(span, len(heading))
        blocks.append([heading.ljust(span)] + [row + " " * (span - len(_visible(row)))
                                                for row in rows])
    return ["   ".join(block[i] for block in blocks).rstrip()
            for i in range(len(blocks[0]))]


def _visible(text: str) -> str:
    """Text without its colour codes."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def count_text(instance: PackingInstance, result: CountResult) -> str:
    """The count's line as ``count`` prints it: the puzzle, how many solutions, the time."""
    what = ((f"{result.count:,} distinct solutions (up to {result.symmetries} symmetries)"
             if result.distinct else f"{result.count:,} solutions")
            if result.count is not None else "unknown: stopped at the time limit")
    name = instance.name + (f" / {instance.target}" if instance.target != instance.name else "")
    labels = f" {' '.join(instance.labels)}" if instance.labels else ""
    return f"{name}{labels}: {what} in {result.seconds:.2f} s ({result.backend})"


def packing_text(instance: PackingInstance, result: CoverResult, colour: bool = False) -> str:
    """The board (when solved), the uncovered labels and the status line."""
    lines = [f"{instance.name}" + (f" / {instance.target}" if instance.target != instance.name
                                   else "")]
    if instance.labels:
        lines[0] += "  uncovered: " + " ".join(instance.labels)
    if result.status == "solved":
        placements = instance.cover.decode(result.chosen)
        labels = instance.cell_labels()
        shown = {rc: labels[rc] for rc in instance.uncovered if rc in labels}
        lines += draw_board(instance.board_cells, placements, instance.spec.letters(), shown,
                            colour, instance.spec.grid)
    verdict = {"solved": "solved", "unsolvable": "no solution (proved)",
               "unknown": "unknown: stopped at the time limit without an answer"}
    lines.append(f"{verdict[result.status]} in {result.seconds:.2f} s ({result.backend})")
    return "\n".join(lines)


def towers_text(problem: TowersProblem, result: TowersResult, colour: bool = False) -> str:
    """The grid, the score, and either ``optimal (proved)`` or the bound and gap."""
    lines = [f"{problem.name} {problem.rows}x{problem.cols}"]
    letters = {col.letter: i for i, col in enumerate(problem.colours)}
    for row in result.grid:
        lines.append(" ".join(_paint(ch, letters.get(ch, 0), colour) for ch in row))
    if result.status == "solved":
        if result.optimal:
            proof = "optimal (proved)"
        elif result.bound is None:
            proof = "no bound known"
        else:
            gap = result.gap
            proof = f"bound {result.bound}" + (f", gap {gap:.1%}" if gap is not None else "")
        lines.append(f"score {result.score}, {proof}")
        if result.order is not None:
            lines.append(f"built in {len(result.order)} steps: "
                         + " ".join(f"{letter}{r},{c}" for r, c, letter in result.order))
    elif result.status == "unsolvable":
        lines.append("no legal board")
    else:
        bound = f" (bound {result.bound})" if result.bound is not None else ""
        lines.append(f"unknown: no board found before the time limit{bound}")
    lines.append(f"{result.seconds:.2f} s ({result.backend})")
    return "\n".join(lines)
