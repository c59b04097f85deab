"""The optional parts of the package and what each needs installed.

``pip install cpmodels`` models, solves, counts, sweeps and exports. The web page, the
cut files and prints, and Dask clusters come as extras; a command that needs a missing
extra says which ``pip install`` line brings it, before it starts any work.
"""

from __future__ import annotations

import importlib

from cpmodels.errors import InputError

EXTRAS: dict[str, tuple[str, ...]] = {
    "web": ("fastapi", "uvicorn", "h11"),
    "make": ("shapely", "ezdxf", "trimesh", "manifold3d", "lxml", "networkx"),
    "cluster": ("distributed",),
    "notebooks": ("ipykernel", "pandas", "anywidget", "ipywidgets"),
}


class MissingExtra(InputError):
    """A feature was asked for whose optional dependencies are not installed."""


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here."""
    missing = []
    for module in EXTRAS[extra]:
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(module)
    return missing


def require(extra: str, feature: str) -> None:
    """Raise :class:`MissingExtra` naming the install line when ``feature`` cannot run."""
    missing = missing_modules(extra)
    if missing:
        raise MissingExtra(f"{feature} needs the {extra} extra ({', '.join(missing)} not "
                           f"installed): pip install 'cpmodels[{extra}]'")
