"""cpmodels: declarative puzzle specs compiled to constraint models and solved.

Start with :mod:`cpmodels.api` (Python and Jupyter) or the ``cpmodels`` command; the bundled
specs are listed by ``cpmodels specs`` and taken by name everywhere.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
