"""The JSON contract of ``solve``: plain dicts that other tools and the tests read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (types only: a packing answer loads nothing of the towers)
    from cpmodels.backends.result import CoverResult
    from cpmodels.counting import CountResult
    from cpmodels.instance import PackingInstance
    from cpmodels.towers.problem import TowersProblem
    from cpmodels.towers.result import TowersResult


def packing_payload(instance: PackingInstance, result: CoverResult) -> dict[str, Any]:
    """``{"spec", "status", "labels", "uncovered", "placements", "seconds", ...}``."""
    placements = instance.cover.decode(result.chosen) if result.status == "solved" else []
    return {
        "spec": instance.name,
        "target": instance.target,
        "status": result.status,
        "labels": list(instance.labels),
        "uncovered": [list(rc) for rc in instance.uncovered],
        "placements": [
            {"piece": p.piece, "cells": [list(rc) for rc in p.cells]} for p in placements
        ],
        "seconds": round(result.seconds, 4),
        "backend": result.backend,
    }


def towers_payload(problem: TowersProblem, result: TowersResult) -> dict[str, Any]:
    """The packing contract (empty labels and placements) plus grid, score, optimal, bound;
    under the build-order rule, ``order``: the builds, ``[row, col, letter]``, that reach the
    grid from an empty board."""
    payload: dict[str, Any] = {
        "spec": problem.name,
        "status": result.status,
        "labels": [],
        "uncovered": [],
        "placements": [],
        "seconds": round(result.seconds, 4),
        "backend": result.backend,
        "size": [problem.rows, problem.cols],
        "grid": result.grid,
        "score": result.score,
        "optimal": result.optimal,
        "bound": result.bound,
    }
    if problem.when_built:
        payload["rules"] = problem.rules
        payload["order"] = None if result.order is None else [list(s) for s in result.order]
    return payload


def count_payload(instance: PackingInstance, result: CountResult) -> dict[str, Any]:
    """The JSON contract of ``count``: ``count`` is null when a time limit stopped it."""
    return {
        "spec": instance.name, "target": instance.target, "labels": list(instance.labels),
        "count": result.count, "distinct": result.distinct, "symmetries": result.symmetries,
        "backend": result.backend, "seconds": round(result.seconds, 4),
    }
