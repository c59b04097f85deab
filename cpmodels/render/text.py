"""Terminal drawings of solutions: one letter (and, on a colour terminal, a colour) per piece."""

from __future__ import annotations

from collections.abc import Mapping

from cpmodels.backends.result import CoverResult
from cpmodels.backends.towers_solver import TowersResult
from cpmodels.geometry import Cell, Placement
from cpmodels.instance import PackingInstance
from cpmodels.towers_problem import TowersProblem

# 256-colour backgrounds that keep black text readable.
_PALETTE = (217, 153, 187, 229, 159, 223, 183, 151, 195, 216, 189, 230, 158, 225, 186, 152)


def _paint(text: str, index: int, colour: bool) -> str:
    if not colour:
        return text
    return f"\x1b[48;5;{_PALETTE[index % len(_PALETTE)]}m\x1b[30m{text}\x1b[0m"


def draw_board(cells: frozenset[Cell], placements: list[Placement], letters: Mapping[str, str],
               labels: Mapping[Cell, str], colour: bool = False) -> list[str]:
    """Rows of text: a piece's letter on its cells, labels on uncovered cells, walls blank."""
    owner: dict[Cell, str] = {}
    for p in placements:
        for rc in p.cells:
            owner[rc] = p.piece
    order = {name: i for i, name in enumerate(letters)}
    every = cells | set(labels)
    width = max([len(label) for label in labels.values()] + [1])
    rows = max(r for r, _ in every) + 1
    cols = max(c for _, c in every) + 1
    lines = []
    for r in range(rows):
        parts = []
        for c in range(cols):
            rc = (r, c)
            if rc in owner:
                piece = owner[rc]
                parts.append(_paint(letters.get(piece, "?").center(width), order.get(piece, 0),
                                    colour))
            elif rc in cells:
                parts.append(labels.get(rc, ".").center(width))
            else:
                parts.append(" " * width)
        lines.append(" ".join(parts).rstrip())
    return lines


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
                            colour)
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
        else:
            gap = result.gap
            proof = f"bound {result.bound}" + (f", gap {gap:.1%}" if gap is not None else "")
        lines.append(f"score {result.score}, {proof}")
    elif result.status == "unsolvable":
        lines.append("no legal board")
    else:
        bound = f" (bound {result.bound})" if result.bound is not None else ""
        lines.append(f"unknown: no board found before the time limit{bound}")
    lines.append(f"{result.seconds:.2f} s ({result.backend})")
    return "\n".join(lines)
