"""Scenes of results: a solved (or unsolvable) packing instance, a towers board."""

from __future__ import annotations

from collections.abc import Sequence

from cpmodels.backends.result import CoverResult
from cpmodels.geometry import Placement
from cpmodels.instance import PackingInstance
from cpmodels.render.scene import Scene, colour_of, packing_scene, solid_scene, towers_scene
from cpmodels.towers.problem import TowersProblem
from cpmodels.towers.result import TowersResult


def packing_title(instance: PackingInstance, result: CoverResult) -> str:
    """``calendar_week: Nov 21 Sat`` plus ``(no solution)`` when there is none."""
    name = instance.name + (f" / {instance.target}" if instance.target != instance.name else "")
    if instance.labels:
        name += ": " + " ".join(instance.labels)
    verdict = {"solved": "", "unsolvable": " (no solution)", "unknown": " (unknown)"}
    return name + verdict[result.status]


def packing_picture(instance: PackingInstance, result: CoverResult) -> Scene:
    """The board with one outlined polygon per piece and the uncovered labels."""
    placements = instance.cover.decode(result.chosen) if result.status == "solved" else []
    return placements_picture(instance, placements, packing_title(instance, result))


def placements_picture(instance: PackingInstance, placements: Sequence[Placement],
                       title: str) -> Scene:
    """The board with some placements drawn (a hint, a partial solution) and its labels."""
    spec = instance.spec
    if spec.grid == "cube":
        return solid_scene(instance.board_cells, placements, spec.letters(), title)
    labels = instance.cell_labels()
    shown = {rc: labels[rc] for rc in instance.uncovered if rc in labels}
    return packing_scene(instance.board_cells, placements, spec.letters(), shown, title,
                         spec.grid)


def towers_picture(problem: TowersProblem, result: TowersResult) -> Scene:
    """The grid in its tower colours, with the score and whether it is proved optimal."""
    colours = {col.letter: colour_of(col.name, k) for k, col in enumerate(problem.colours)}
    title = f"{problem.name} {problem.rows}x{problem.cols}"
    if result.score is not None:
        title += f": score {result.score:,}" + (" (optimal)" if result.optimal else
                                                 f" (bound {result.bound:,})"
                                                 if result.bound is not None else "")
    grid = result.grid or ["?" * problem.cols] * problem.rows
    return towers_scene(grid, colours, title)
