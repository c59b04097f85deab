"""The towers puzzle: fill a grid with towers whose neighbours meet their needs, for the most
points. Not packing, so not an exact cover: it has its own solver.

* ``problem.py``: a towers spec at one board size (:class:`TowersProblem`);
* ``result.py``: what a search returns (:class:`TowersResult`), read and drawn without a solver;
* ``model.py``: the CP-SAT model and :func:`solve` (CP-SAT for the board, the programme for
  the proof; this module is the only one that loads OR-Tools);
* ``programme.py``: the exact dynamic programme over row profiles (boards up to 8 wide);
* ``bounds.py``: band bounds for wider boards;
* ``pricing.py``: a priced bound's pricing state, saved and continued;
* ``search.py``: wider boards polished, windows of rows re-solved by the programme;
* ``certificate.py``: certificates of the programme's answers and their independent checker;
* ``proof.py``: an answer with its certificate, written and checked;
* ``branching.py``: branch and bound over a priced bound's cut, closing its gap.

Importing this package loads no solver: :func:`solve` imports ``model.py`` when called.
"""

from __future__ import annotations

from typing import Any

from cpmodels.towers.problem import TowerColour, TowersProblem, towers_problem
from cpmodels.towers.result import TowersResult

__all__ = ["TowerColour", "TowersProblem", "TowersResult", "solve", "towers_problem"]


def solve(problem: TowersProblem, **options: Any) -> TowersResult:
    """The best board of ``problem`` (see :func:`cpmodels.towers.model.solve`)."""
    from cpmodels.towers import model

    return model.solve(problem, **options)
