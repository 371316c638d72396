"""SVG markup for boards drawn in table units (mm, y up): shapely geometries as paths.

A table point (x, y) is written (x, -y), so that the SVG's y axis (down) shows the table as
seen from above with y up; headings turn the other way (``rotate(-heading)``).
"""

from __future__ import annotations

from html import escape
from typing import Any

import numpy as np
import shapely


def _ring(coords: np.ndarray) -> str:
    pts = " ".join(f"{x:.2f},{-y:.2f}" for x, y in coords[:-1])
    return f"M{pts}Z"


def path_d(geom: shapely.Geometry) -> str:
    """The SVG path data of a polygon or multipolygon (holes as subpaths: draw it with
    ``fill-rule: evenodd``); lines as open subpaths; "" for an empty or point geometry."""
    parts = []
    for part in shapely.get_parts(geom):
        if part.is_empty:
            continue
        if isinstance(part, shapely.Polygon):
            parts.append(_ring(np.asarray(part.exterior.coords)))
            parts += [_ring(np.asarray(r.coords)) for r in part.interiors]
        elif isinstance(part, shapely.LineString):
            pts = " ".join(f"{x:.2f},{-y:.2f}" for x, y in np.asarray(part.coords))
            parts.append(f"M{pts}")
        elif isinstance(part, shapely.GeometryCollection):
            parts.append(path_d(part))
    return "".join(parts)


def attrs(**values: Any) -> str:
    """Attributes as markup: names with ``_`` written with ``-`` (``data_id`` -> ``data-id``);
    None values left out."""
    return "".join(f' {k.rstrip("_").replace("_", "-")}="{escape(str(v))}"'
                   for k, v in values.items() if v is not None)


def path(geom: shapely.Geometry, **values: Any) -> str:
    """A ``<path>`` of `geom` with the given attributes ("" when `geom` is empty)."""
    d = path_d(geom)
    return f"<path d=\"{d}\"{attrs(**values)}/>" if d else ""


def circle(x: float, y: float, r: float, **values: Any) -> str:
    """A ``<circle>`` centred at table point (x, y)."""
    return f'<circle cx="{x:.2f}" cy="{-y:.2f}" r="{r:.2f}"{attrs(**values)}/>'


def text(x: float, y: float, words: str, **values: Any) -> str:
    """A ``<text>`` centred at table point (x, y)."""
    return f'<text x="{x:.2f}" y="{-y:.2f}"{attrs(**values)}>{escape(words)}</text>'


def group(children: list[str], **values: Any) -> str:
    """A ``<g>`` of the given children."""
    return f"<g{attrs(**values)}>" + "".join(children) + "</g>"
