"""Solvers. Packing backends consume an :class:`~cpmodels.cover.ExactCover` and nothing else."""

from cpmodels.backends.result import CoverResult, Status

__all__ = ["CoverResult", "Status"]
