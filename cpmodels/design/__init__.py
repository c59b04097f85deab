"""Puzzle design: which piece sets solve every required date of a calendar board.

* ``search.py``: the candidate sets of a design file and how each is decided
  (:class:`Design`, :func:`run_design`);
* ``reaching.py``: how a set's dates are searched with the engine's reach search;
* ``best.py``: :func:`best_sets`, the K best sets without counting every set in full;
* ``verdicts.py``: what each set does (:class:`Verdict`; face up, the :class:`Side` of each
  piece that works), ranked and reported;
* ``kept.py``: a design's file of verdicts read back (its question, the verdicts
  ``--resume`` keeps) and :func:`working_set`, the spec of one ranked set.
"""

from cpmodels.design.best import best_sets
from cpmodels.design.kept import working_set
from cpmodels.design.search import Design, TooManySets, run_design
from cpmodels.design.verdicts import Side, Verdict, ranked, ranked_by_difficulty, summary
from cpmodels.spec.loading import load_board

__all__ = ["Design", "Side", "TooManySets", "Verdict", "best_sets", "load_board", "ranked",
           "ranked_by_difficulty", "run_design", "summary", "working_set"]
