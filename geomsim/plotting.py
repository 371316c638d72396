"""Matplotlib basics the games share: collections of polygons (with holes), discs and labels,
equal aspect, legends, scale bars and atomic saving to PNG, SVG or PDF.

pyplot is never imported: figures are built with `matplotlib.figure.Figure` on the Agg canvas,
which keeps start-up fast and works without a display.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import EllipseCollection, PathCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.path import Path as MplPath

from geomsim.files import DIAGRAM_SUFFIXES, atomic_path

PLAYER_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def new_axes(width: float = 8.0, height: float = 8.0, title: str | None = None) -> Axes:
    """A fresh Axes on its own Agg figure, equal aspect, no ticks."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    if title:
        ax.set_title(title)
    return ax


def polygon_paths(geoms: Sequence[shapely.Geometry]) -> list[MplPath]:
    """Matplotlib paths of polygons or multipolygons, holes included, in a few shapely calls."""
    if not len(geoms):
        return []
    # Holes must wind against their shell for matplotlib to leave them empty.
    parts, owner = shapely.get_parts(shapely.orient_polygons(np.asarray(geoms, dtype=object)),
                                     return_index=True)
    rings, part = shapely.get_rings(parts, return_index=True)
    coords, ring = shapely.get_coordinates(rings, return_index=True)
    codes = np.full(len(coords), MplPath.LINETO, dtype=MplPath.code_type)
    first = np.r_[0, np.flatnonzero(np.diff(ring)) + 1]
    codes[first] = MplPath.MOVETO
    codes[np.r_[first[1:], len(coords)] - 1] = MplPath.CLOSEPOLY
    cut = np.searchsorted(owner[part[ring]], np.arange(1, len(geoms)))
    return [MplPath(v, c) for v, c in zip(np.split(coords, cut), np.split(codes, cut))]


def polygon_path(geom: shapely.Geometry) -> MplPath:
    """A matplotlib path of a polygon or multipolygon, holes included."""
    return polygon_paths([geom])[0]


def draw_polygons(ax: Axes, geoms: Iterable[shapely.Geometry | None], label: str | None = None,
                  **style: Any) -> PathCollection:
    """Draw polygons (holes shown as holes) as one collection of paths in data units; `style`
    goes to the collection. (One collection of paths, not of patches: a patch per polygon
    costs 25 times as much to make.)"""
    paths = polygon_paths([g for g in geoms if g is not None and not shapely.is_empty(g)])
    style.setdefault("edgecolor", "black")
    style.setdefault("linewidth", 0.8)
    coll = PathCollection(paths, label=label, **style)
    ax.add_collection(coll)
    ax.update_datalim(np.concatenate([p.vertices for p in paths]) if paths else np.zeros((0, 2)))
    ax.autoscale_view()
    return coll


def draw_discs(ax: Axes, x: Sequence[float], y: Sequence[float], radius: float | Sequence[float],
               label: str | None = None, **style: Any) -> EllipseCollection:
    """Draw discs of true circular outline (radius in data units) as one collection."""
    xs, ys = np.asarray(x, float), np.asarray(y, float)
    r = np.broadcast_to(np.asarray(radius, float), xs.shape)
    style.setdefault("edgecolor", "black")
    style.setdefault("linewidth", 0.8)
    coll = EllipseCollection(2 * r, 2 * r, np.zeros_like(r), units="xy",
                             offsets=np.column_stack([xs, ys]), offset_transform=ax.transData,
                             label=label, **style)
    ax.add_collection(coll)
    if len(xs):
        ax.update_datalim(np.column_stack([np.r_[xs - r, xs + r], np.r_[ys - r, ys + r]]))
        ax.autoscale_view()
    return coll


def draw_labels(ax: Axes, x: Sequence[float], y: Sequence[float], texts: Sequence[str],
                **style: Any) -> None:
    """Write short labels centred at the given points."""
    style.setdefault("fontsize", 6)
    style.setdefault("ha", "center")
    style.setdefault("va", "center")
    for xi, yi, t in zip(x, y, texts):
        ax.text(xi, yi, t, **style)


def legend(ax: Axes, entries: Sequence[tuple[str, dict[str, Any]]], **options: Any) -> None:
    """A legend from (label, patch style) pairs, placed outside clutter."""
    handles = [Patch(label=label, **style) for label, style in entries]
    options.setdefault("loc", "upper left")
    options.setdefault("fontsize", 7)
    options.setdefault("framealpha", 0.9)
    ax.legend(handles=handles, **options)


def whole_numbers(*axes: Any) -> None:
    """Ticks at whole numbers only on each given axis (``ax.xaxis``, ``ax.yaxis``): counts of
    games or of actions, which a small batch would otherwise tick at 0.5 or 63.5."""
    from matplotlib.ticker import MaxNLocator

    for axis in axes:
        axis.set_major_locator(MaxNLocator(integer=True))


def scale_bar(ax: Axes, length: float, x: float, y: float, unit: str = "mm") -> None:
    """A scale bar of `length` data units starting at (x, y)."""
    ax.plot([x, x + length], [y, y], color="black", linewidth=2.5, solid_capstyle="butt")
    ax.text(x + length / 2, y, f"{length:g} {unit}", ha="center", va="bottom", fontsize=7)


def _figure(ax_or_fig: Axes | Figure) -> Figure:
    """The (root) figure an Axes lies in, or the figure itself."""
    fig = ax_or_fig.get_figure(root=True) if isinstance(ax_or_fig, Axes) else ax_or_fig
    if not isinstance(fig, Figure):
        raise ValueError("the Axes lies in no figure")
    return fig


def save(ax_or_fig: Axes | Figure, path: str | os.PathLike[str], dpi: int = 120) -> Path:
    """Save a figure to PNG, SVG or PDF (by the suffix), atomically: all or nothing."""
    fig = _figure(ax_or_fig)
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in DIAGRAM_SUFFIXES:
        raise ValueError(f"cannot save {path.name}: use one of {', '.join(sorted(DIAGRAM_SUFFIXES))}")
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=suffix[1:], dpi=dpi)
    return path


def figure_bytes(ax_or_fig: Axes | Figure, fmt: str = "png", dpi: int = 100) -> bytes:
    """A figure rendered to PNG or SVG bytes in memory (for notebooks)."""
    import io

    fig = _figure(ax_or_fig)
    out = io.BytesIO()
    fig.savefig(out, format=fmt, dpi=dpi, bbox_inches="tight")
    return out.getvalue()


def caption(fig: Any, text: str) -> Any:
    """Write (or rewrite) a one-line caption at the foot of a figure: the game's own titles stay.
    As the figure's x label, the layout makes room for it below everything drawn."""
    return fig.supxlabel(text, fontsize=9)
