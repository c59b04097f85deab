"""A benchmark set: bundled puzzles in every format that fits, with their verified answers.

``write_suite(DIR)`` writes each instance of :data:`INSTANCES` in each format that fits it
and ``manifest.json``: for a packing puzzle its number of solutions (every placement set,
counted by the engine, 0 for the unsatisfiable ones), for a towers board its optimum (found by
CP-SAT and proved by the exact programme). The directory is filled in a temporary one beside
it and renamed into place, so it is complete or absent.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cpmodels import __version__
from cpmodels.export import FORMATS, Subject, subject_of, write_model
from cpmodels.files import directory_in_place, write_atomic
from cpmodels.spec import load_spec


@dataclass(frozen=True)
class SuiteInstance:
    """One instance: a bundled spec and which of its puzzles."""

    spec: str
    labels: tuple[str, ...] | None = None
    face_up: bool = False
    size: tuple[int, int] | None = None

    @property
    def name(self) -> str:
        parts = [self.spec, *(self.labels or ())]
        if self.size:
            parts.append(f"{self.size[0]}x{self.size[1]}")
        if self.face_up:
            parts.append("face-up")
        return "-".join(parts)


INSTANCES = (
    SuiteInstance("calendar_day", ("Oct", "6")),
    SuiteInstance("calendar_week", ("Jan", "1", "Mon")),
    SuiteInstance("calendar_week", ("Jun", "7", "Tue")),
    SuiteInstance("calendar_week", ("Jan", "2", "Thu")),
    SuiteInstance("calendar_week", ("Jan", "27", "Mon"), face_up=True),
    SuiteInstance("calendar_week", ("Mar", "1", "Wed"), face_up=True),
    SuiteInstance("calendar_week", ("May", "27", "Wed"), face_up=True),
    SuiteInstance("pentominoes_6x10"),
    SuiteInstance("towers", size=(4, 4)),
    SuiteInstance("towers", size=(5, 5)),
    SuiteInstance("towers", size=(6, 6)),
)


def _expected(subject: Subject) -> tuple[dict[str, Any], str]:
    """The verified answer and how it was verified."""
    if subject.is_towers:
        from cpmodels import towers

        best = towers.solve(subject.towers)
        if not best.optimal:  # pragma: no cover - the programme proves boards this small
            raise RuntimeError(f"{subject.describe()}: the optimum was not proved")
        return ({"optimum": best.score, "board": best.grid},
                "CP-SAT's board, proved optimal by the exact dynamic programme")
    from cpmodels.counting import count_instance

    assert subject.instance is not None
    counted = count_instance(subject.instance)
    return ({"satisfiable": bool(counted.count), "solutions": counted.count},
            "counted by the cpmodels engine: every set of placements that fills the board")


def write_suite(directory: Path, *, instances: tuple[SuiteInstance, ...] = INSTANCES,
                on_instance: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Write every instance in every format that fits it, and the manifest; the manifest."""
    with directory_in_place(Path(directory)) as scratch:
        manifest: dict[str, Any] = {"suite": "cpmodels", "version": __version__,
                                    "instances": []}
        for item in instances:
            start = time.perf_counter()
            subject = subject_of(load_spec(item.spec), labels=item.labels,
                                 face_up=item.face_up, size=item.size)
            files = {}
            for fmt, (extensions, packing, towers, _) in FORMATS.items():
                if (towers if subject.is_towers else packing):
                    path = scratch / f"{item.name}{extensions[0]}"
                    written = write_model(subject, fmt, path)
                    files[fmt] = [p.name for p in written]
            expected, how = _expected(subject)
            manifest["instances"].append({
                "name": item.name, "spec": item.spec, "labels": list(item.labels or ()),
                "face_up": item.face_up, "size": list(item.size) if item.size else None,
                "kind": "towers" if subject.is_towers else "packing",
                "puzzle": subject.describe(), "variables": subject.n_vars,
                "files": files, "expected": expected, "verified_by": how,
                "seconds": round(time.perf_counter() - start, 2)})
            if on_instance is not None:
                on_instance(item.name)
        write_atomic(scratch / "manifest.json", json.dumps(manifest, indent=1) + "\n")
    return manifest
