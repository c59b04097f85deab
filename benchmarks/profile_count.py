"""Where the time of one in-process count goes, phase by phase, over repeated calls.

``python benchmarks/profile_count.py [--repeat N] [CASE ...]`` reads a spec, builds its
cover and counts it (``cpmodels.counting.count_instance``) N times (default 200, after 10
calls to warm up), and prints for each case the median of each phase in milliseconds:

* ``spec``: the spec read (``load_spec``);
* ``cover``: the instance and its exact cover built;
* ``symmetries``: the problem's symmetries found (with the option permutations and the held
  piece's orbits, where one call finds them all);
* ``held``, ``permutations``: the held piece's orbits and the option permutations, where
  they are found by calls of their own;
* ``engine``: the engine's count of the tasks less its searches (the session, its layouts,
  the scheduling of the tasks and the tallies read back);
* ``search``: the engine's searches themselves (each kernel call);
* ``answer``: the rest of the count call (its result made);
* ``call``: the whole count call (``count_instance``), ``cpu`` the processor time it took
  (the search's thread included; less moved by a busy machine than the clock), and
  ``whole`` the call with the spec and the cover.

Cases: centre (pentominoes_8x8_centre raw, 520), centre_distinct (65), rect_distinct
(pentominoes_6x10 distinct, 2,339); all three by default. The phases are timed by wrapping
the functions the count call goes through, so the script runs on older versions of the
package too (a phase a version does not have reads 0).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cpmodels
import cpmodels.backends.engine as engine
import cpmodels.backends.engine.session as session_module
import cpmodels.counting as counting
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec

# The bundled specs of the package imported (its catalogue knows them valid).
SPECS = Path(cpmodels.__file__).resolve().parents[1] / "specs"
CASES = {"centre": ("pentominoes_8x8_centre", False, 520),
         "centre_distinct": ("pentominoes_8x8_centre", True, 65),
         "rect_distinct": ("pentominoes_6x10", True, 2339)}
PHASES = ["spec", "cover", "symmetries", "held", "permutations", "engine", "search", "answer",
          "call", "cpu", "whole"]


class Timer:
    """The seconds spent in each wrapped function during one count."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)

    def wrap(self, owner: Any, name: str, phase: str) -> None:
        """``owner.name`` timed as ``phase`` (when the owner has it)."""
        real = getattr(owner, name, None)
        if real is None:
            return

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                self.spent[phase] += time.perf_counter() - start

        setattr(owner, name, timed)


def once(timer: Timer, name: str, distinct: bool, expected: int) -> dict[str, float]:
    """One spec read, cover built and count: each phase's seconds."""
    timer.spent.clear()
    start = time.perf_counter()
    spec = load_spec(SPECS / f"{name}.yaml")
    read = time.perf_counter()
    instance = packing_instance(Query.of(spec))
    instance.cover  # noqa: B018 (built, if the instance builds it lazily)
    built, cpu = time.perf_counter(), time.process_time()
    result = counting.count_instance(instance, distinct=distinct)
    done, cpu = time.perf_counter(), time.process_time() - cpu
    assert result.count == expected, (name, distinct, result.count)
    spent = dict(timer.spent)
    call = done - built
    inner = spent.get("engine_total", 0.0)
    phases = {"spec": read - start, "cover": built - read,
              "symmetries": spent.get("symmetries", 0.0), "held": spent.get("held", 0.0),
              "permutations": spent.get("permutations", 0.0),
              "engine": inner - spent.get("search", 0.0), "search": spent.get("search", 0.0),
              "call": call, "cpu": cpu, "whole": done - start}
    phases["answer"] = call - phases["symmetries"] - phases["held"] \
        - phases["permutations"] - inner
    return phases


def instrumented() -> Timer:
    """The count call's functions wrapped, in the modules that call them."""
    timer = Timer()
    for name in ("problem_symmetry", "problem_symmetries"):
        timer.wrap(counting, name, "symmetries")
    timer.wrap(counting, "held_piece", "held")
    timer.wrap(counting, "option_permutations", "permutations")
    timer.wrap(counting, "checked_permutations", "permutations")
    timer.wrap(engine, "count_each", "engine_total")
    timer.wrap(session_module, "interruptible", "search")
    return timer


def profile(cases: list[str], repeat: int, warm: int = 10,
            report: Callable[[str], None] = print) -> dict[str, dict[str, float]]:
    """Each case's median of each phase (milliseconds), reported one line a case."""
    timer = instrumented()
    found = {}
    for case in cases:
        name, distinct, expected = CASES[case]
        runs = [once(timer, name, distinct, expected) for _ in range(warm + repeat)][warm:]
        medians = {p: statistics.median(r[p] for r in runs) * 1e3 for p in PHASES}
        found[case] = medians
        report(f"{case}: " + ", ".join(f"{p} {medians[p]:.3f}" for p in PHASES) + " ms")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cases", nargs="*", metavar="CASE", help=", ".join(CASES))
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        parser.error(f"unknown cases {unknown}; the cases: {', '.join(CASES)}")
    profile(args.cases or list(CASES), args.repeat)


if __name__ == "__main__":
    main()
