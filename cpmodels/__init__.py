"""cpmodels: declarative puzzle specs compiled to constraint models and solved."""

__version__ = "0.1.0"
