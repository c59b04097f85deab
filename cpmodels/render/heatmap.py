"""A calendar heatmap of a sweep: solution counts, months down and days across.

The first label group runs down, the second across; every combination of the other groups
(the weekday) gets a panel of its own. Counts are coloured on a log scale, unsolvable cells
are black with a red cross, impossible dates (Feb 30, Apr 31) are hatched, and cells with no
row yet (a sweep still running) stay blank.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

CountRow = tuple[bool, int]  # (real date, count)


def heatmap_grids(groups: Mapping[str, Sequence[str]],
                  rows: Mapping[tuple[str, ...], CountRow]
                  ) -> list[tuple[tuple[str, ...], np.ndarray, np.ndarray]]:
    """One ``(panel labels, counts, real)`` per panel; counts are NaN where no row exists."""
    names = list(groups)
    down, across = groups[names[0]], groups[names[1]]
    panels = list(itertools.product(*(groups[g] for g in names[2:])))
    out = []
    for panel in panels:
        counts = np.full((len(down), len(across)), np.nan)
        real = np.zeros((len(down), len(across)), dtype=bool)
        for i, a in enumerate(down):
            for j, b in enumerate(across):
                found = rows.get((a, b, *panel))
                if found is not None:
                    real[i, j], counts[i, j] = found[0], found[1]
        out.append((panel, counts, real))
    return out


def sweep_heatmap(groups: Mapping[str, Sequence[str]],
                  rows: Mapping[tuple[str, ...], CountRow], title: str) -> Figure:
    """The heatmap figure; each panel's image holds exactly the sweep's counts."""
    names = list(groups)
    if len(names) < 2:
        raise ValueError("a heatmap needs at least two label groups")
    grids = heatmap_grids(groups, rows)
    n = len(grids)
    ncols = 1 if n == 1 else 2
    nrows = math.ceil(n / ncols)
    down, across = groups[names[0]], groups[names[1]]
    panel_w, panel_h = 0.22 * len(across) + 1.0, 0.22 * len(down) + 0.9
    fig = Figure(figsize=(ncols * panel_w + 1.2, nrows * panel_h + 0.8), dpi=100,
                 layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    positive = [g[1][np.isfinite(g[1]) & (g[1] > 0)] for g in grids]
    values = np.concatenate(positive) if positive else np.array([])
    vmin, vmax = (values.min(), values.max()) if values.size else (1, 10)
    norm = LogNorm(vmin=max(vmin, 1), vmax=max(vmax, vmin + 1, 2))
    cmap = colormaps["viridis"].with_extremes(bad="white")
    image = None
    for ax, (panel, counts, real) in zip(axes.flat, grids):
        # Unsolvable and missing cells are masked; the image's data keeps every count.
        shown = np.ma.masked_array(counts, mask=~np.isfinite(counts) | (counts == 0))
        image = ax.imshow(shown, cmap=cmap, norm=norm, aspect="equal",
                          interpolation="nearest")
        image.set_gid("counts")
        for i, j in zip(*np.nonzero(counts == 0)):
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="black"))
            ax.plot(j, i, marker="x", color="red", markersize=5, mew=1.5)
        for i, j in zip(*np.nonzero(~real & np.isfinite(counts))):
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="none",
                                   edgecolor="0.35", hatch="////", lw=0))
        ax.set_title(" ".join(panel) if panel else title, fontsize=10)
        ax.set_yticks(range(len(down)), down, fontsize=6)
        ax.set_xticks(range(len(across)), across, fontsize=5)
        ax.tick_params(length=0)
    for ax in list(axes.flat)[n:]:
        ax.set_axis_off()
    if image is not None:
        bar = fig.colorbar(image, ax=axes, shrink=0.6, pad=0.02)
        bar.set_label("solutions (log scale)")
    fig.supxlabel("black with a red cross: no solution     hatched: not a real date", fontsize=8)
    if n > 1:
        fig.suptitle(title)
    return fig
