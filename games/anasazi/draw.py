"""The Anasazi setup diagram: the play area with its mesas, pueblos, towers and treasures, the
expedition base camps, the players' base camps and expeditions, and the score tile beside it.

Everything is drawn with collections through `geomsim.plotting` (no pyplot). Towers are hidden
(grey, "?") unless `reveal` is set or the view lists them in `known_towers`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, cast

import numpy as np
import shapely
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.font_manager import FontProperties, findfont, get_font
from matplotlib.ft2font import FT2Font, LoadFlags
from matplotlib.path import Path as MplPath
from matplotlib.textpath import TextToPath

from geomsim.geometry import Array, Pose
from geomsim.plotting import draw_discs, draw_polygons, new_axes, scale_bar
from games.anasazi.components import COLOURS, TRACK_SPACES, Pueblo, Setup, Sizes, TableView

if TYPE_CHECKING:
    from games.anasazi.rules import AnasaziState

# Piece colours as printed: treasures and tower stickers.
PIECE_COLOURS = {"red": "#c62828", "blue": "#1e63b5", "white": "#f7f5ef", "yellow": "#f2c21b"}
HIDDEN_TOWER = "#9a9a9a"
SAND = "#efdcb4"  # the valleys: the play area
EARTH = ("#a5542c", "#b8693a", "#96502f", "#c07a45", "#a8603a")  # mesa tops
CLIFF = "#5a2e14"
ADOBE, ADOBE_EDGE = "#f3e2bd", "#4a2a14"
CAMP_TILE = "#7d8a6a"
MARKER, EXPLORER = "#e6cf98", "#4b2c17"
# The players' base camps: violet, cyan, pink, black, far from every colour a piece or a reach
# map means (the engine's red and blue players would read as red and blue towers here).
CAMP_COLOURS = ("#aa00ff", "#00bcd4", "#ff4081", "#000000")
END_RING = "#c6ff00"  # an expedition's end, ringed in reach maps
# Ids are written above every piece (markers too), light on a dark halo: readable on mesa,
# sand and marker alike.
LABEL, LABEL_HALO, LABELS_Z = "#fff3dc", "#2b1608", 5.6


def camp_colour(player: int) -> str:
    """The colour of `player`'s base camps."""
    return CAMP_COLOURS[player % len(CAMP_COLOURS)]
CAMP_DOT = 0.35  # share of a base camp's radius drawn white in its centre

MARGIN = 30.0  # mm between the play area and the score tile
SPACE, SPACE_GAP = 28.0, 5.0  # score tile spaces


def draw_state(state: AnasaziState, ax: Axes | None = None, reveal: bool = False,
               player: int | None = None, labels: bool = True) -> Axes:
    """`state.draw()`: the table now, towers hidden unless `reveal` or known to `player`
    (``labels=False`` leaves out the ids)."""
    view = state.revealed_view() if reveal else state.view(player)
    ax = draw_table(state.setup, view, ax=ax, reveal=reveal, labels=labels)
    text = state.game.options_text(state.options)
    if text:  # the options in force that are not the rulebook's, under the drawing
        ax.text(0.0, -0.01, text, transform=ax.transAxes, fontsize=7, va="top", ha="left",
                color="#7a1f1f", gid="options")
    return ax


def draw_table(setup: Setup, view: TableView | None = None, ax: Axes | None = None,
               reveal: bool = False, labels: bool = True) -> Axes:
    """Draw the table of `setup` as it lies in `view` (the start of play if None).

    `reveal` shows every tower's colour; otherwise only those in `view.known_towers`.
    `labels` writes the mesa, pueblo and expedition camp ids. Returns the Axes.
    """
    view = TableView.initial(setup) if view is None else view
    table, sizes = setup.table, setup.table.sizes
    if ax is None:
        ax = new_axes(11.0, 8.0, title=f"Anasazi: {setup.players} players"
                      + (f", seed {setup.seed}" if setup.seed is not None else "")
                      + ("" if reveal else ", towers hidden"))
    ax.set_facecolor("white")
    draw_polygons(ax, [table.play_area], facecolor=SAND, edgecolor="#8a7650", linewidth=1.0,
                  zorder=0)
    _draw_mesas(ax, setup)
    _draw_pueblos(ax, setup)
    _draw_expedition_camps(ax, setup)
    _draw_contents(ax, setup, view, reveal)
    _draw_base_camps(ax, view, sizes)
    _draw_expeditions(ax, view, sizes)
    _draw_score_tile(ax, view, sizes)
    if labels:
        _draw_ids(ax, setup)
    r = sizes.play_area_radius
    scale_bar(ax, 100.0, -r, -r - 18.0)
    ax.set_xlim(-r - 12, r + MARGIN + _tile_width() + 12)
    ax.set_ylim(-r - 26, r + 12)
    _legend(ax, setup, r + MARGIN, r - _tile_height() - 24)
    return ax


def _draw_mesas(ax: Axes, setup: Setup) -> None:
    """Mesa tiles: an earthy top and a darker cliff rim."""
    mesas = setup.table.mesas
    colours = [EARTH[i % len(EARTH)] for i in range(len(mesas))]
    draw_polygons(ax, [m.polygon for m in mesas], facecolor=CLIFF, edgecolor="#2e1608",
                  linewidth=1.0, zorder=1)
    tops = [m.polygon.buffer(-3.0, quad_segs=2) for m in mesas]
    draw_polygons(ax, tops, facecolor=colours, edgecolor="none", linewidth=0, zorder=1.1)


def _draw_pueblos(ax: Axes, setup: Setup) -> None:
    """Pueblo sectors, with the line dividing a divided pueblo drawn bold."""
    table = setup.table
    draw_polygons(ax, [s.polygon for s in table.sectors], facecolor=ADOBE, edgecolor=ADOBE_EDGE,
                  linewidth=0.7, zorder=2)
    lines = []
    for p in table.pueblos:
        if p.divided:
            # The sector line: where the two sectors' outlines meet.
            cut = shapely.line_merge(shapely.intersection(p.sectors[0].polygon.boundary,
                                                          p.sectors[1].polygon.boundary))
            lines += [shapely.get_coordinates(part) for part in shapely.get_parts(cut)
                      if part.geom_type == "LineString"]
    if lines:
        ax.add_collection(LineCollection(lines, colors=ADOBE_EDGE, linewidths=1.6, zorder=2.1))


def _draw_expedition_camps(ax: Axes, setup: Setup) -> None:
    """Expedition base camp tiles with their start marks."""
    camps = setup.table.expedition_camps
    sizes = setup.table.sizes
    draw_polygons(ax, [e.polygon for e in camps], facecolor=CAMP_TILE, edgecolor="#2f3a24",
                  linewidth=1.0, zorder=2)
    xs, ys = [e.start[0] for e in camps], [e.start[1] for e in camps]
    draw_discs(ax, xs, ys, sizes.start_mark_radius, facecolor="white", edgecolor="black",
               linewidth=1.0, zorder=2.2)
    draw_discs(ax, xs, ys, sizes.start_mark_radius * 0.35, facecolor="black", linewidth=0,
               zorder=2.3)


def _draw_contents(ax: Axes, setup: Setup, view: TableView, reveal: bool) -> None:
    """Towers (hidden as grey '?' unless revealed or known) and treasures on their sectors."""
    table, sizes = setup.table, setup.table.sizes
    # (sector, x, y, colour) of each piece
    towers: list[tuple[str, float, float, str | None]] = []
    treasures: list[tuple[str, float, float, str | None]] = []
    # A piece stands where the sector is widest: the centre of its largest inscribed circle.
    polys = [table.sector(sid).polygon for sid in view.contents]
    centres: Array | list[Array] = shapely.get_coordinates(
        shapely.get_point(shapely.maximum_inscribed_circle(polys, 0.2), 0)) if polys else []
    for (sid, (kind, colour)), (x, y) in zip(view.contents.items(), centres):
        (towers if kind == "tower" else treasures).append((sid, x, y, colour))
    if treasures:
        half = sizes.treasure_size / 2
        draw_polygons(ax, [shapely.box(x - half, y - half, x + half, y + half)
                           for _, x, y, _ in treasures],
                      # (a treasure's colour is always known)
                      facecolor=[PIECE_COLOURS[cast(str, c)] for *_, c in treasures],
                      edgecolor="black", linewidth=0.6, zorder=3)
    if towers:
        shown = [reveal or sid in view.known_towers for sid, *_ in towers]
        # A tower shown is known, or revealed (a revealed view knows every colour).
        colours = [PIECE_COLOURS[cast(str, view.known_towers.get(sid, c) if not reveal else c)]
                   if s else HIDDEN_TOWER for (sid, *_, c), s in zip(towers, shown)]
        draw_discs(ax, [t[1] for t in towers], [t[2] for t in towers], sizes.tower_radius,
                   facecolor=colours, edgecolor="black", linewidth=0.8, zorder=3)
        hidden = [t for t, s in zip(towers, shown) if not s]
        draw_text_paths(ax, [t[1] for t in hidden], [t[2] for t in hidden], ["?"] * len(hidden),
                        size=sizes.tower_radius * 1.1, color="white", bold=True, zorder=3.1)


def _draw_base_camps(ax: Axes, view: TableView, sizes: Sizes) -> None:
    """The players' base camp markers, in player colours, with a white centre (a tent) that
    tells them apart from towers of the same colour."""
    if view.base_camps:
        x, y = [c[1] for c in view.base_camps], [c[2] for c in view.base_camps]
        draw_discs(ax, x, y, sizes.base_camp_radius,
                   facecolor=[camp_colour(c[0]) for c in view.base_camps],
                   edgecolor="black", linewidth=1.0, zorder=4)
        draw_discs(ax, x, y, sizes.base_camp_radius * CAMP_DOT, facecolor="white",
                   edgecolor="black", linewidth=0.5, zorder=4.1)


def _draw_expeditions(ax: Axes, view: TableView, sizes: Sizes) -> None:
    """Expedition markers in the order laid (later ones on top) and their explorers."""
    poses = [p for markers in view.expeditions.values() for p in markers]
    if not poses:
        return
    from games.anasazi.legality import explorer_centre, marker_polygon  # the rules' geometry

    draw_polygons(ax, [marker_polygon(p, sizes) for p in poses], facecolor=MARKER,
                  edgecolor="#6b4a1f", linewidth=0.8, alpha=0.92, zorder=5, gid="markers")
    ax.add_collection(LineCollection(_ladders(poses, sizes), colors="#8a6a35", linewidths=0.5,
                                     zorder=5.05))
    centres = np.array([explorer_centre(p, sizes) for p in poses])
    draw_discs(ax, centres[:, 0].tolist(), centres[:, 1].tolist(), sizes.explorer_radius,
               facecolor=EXPLORER, edgecolor="none", linewidth=0, zorder=5.1)


def _ladders(poses: Sequence[Pose], sizes: Sizes) -> list[np.ndarray]:
    """The ladder printed on each marker: two rails and rungs, stopping short of the explorer."""
    half_w = sizes.marker_width / 4
    tail = -sizes.marker_length / 2 + 4
    head = sizes.marker_length / 2 - sizes.explorer_offset - sizes.explorer_radius - 2
    local = [np.array([[tail, -half_w], [head, -half_w]]), np.array([[tail, half_w], [head, half_w]])]
    local += [np.array([[a, -half_w], [a, half_w]]) for a in np.arange(tail + 3, head, 6.0)]
    out = []
    for p in poses:
        c, s = math.cos(math.radians(p.heading)), math.sin(math.radians(p.heading))
        rot = np.array([[c, s], [-s, c]])
        out += [seg @ rot + (p.x, p.y) for seg in local]
    return out


def _tile_width() -> float:
    return TRACK_SPACES * (SPACE + SPACE_GAP) + SPACE + 3 * SPACE_GAP


def _tile_height() -> float:
    return len(COLOURS) * (SPACE + SPACE_GAP) + SPACE_GAP + 16.0


def _draw_score_tile(ax: Axes, view: TableView, sizes: Sizes) -> None:
    """The score tile beside the play area: a track of 5 spaces per colour (towers placed fill
    it from the left) and the bonus treasures still waiting at the end of each track."""
    x0 = sizes.play_area_radius + MARGIN
    y_top = sizes.play_area_radius
    draw_polygons(ax, [shapely.box(x0, y_top - _tile_height(), x0 + _tile_width(), y_top)],
                  facecolor="#d9c08c", edgecolor="#5a3d1a", linewidth=1.2, zorder=1)
    draw_text_paths(ax, [x0 + _tile_width() / 2], [y_top - 8], ["score tile (treasure value)"],
                    size=9.0, color="black", zorder=2)
    spaces, space_colours, towers, tower_colours, bonus, bonus_colours = [], [], [], [], [], []
    values = []
    for row, colour in enumerate(COLOURS):
        y = y_top - 16 - SPACE_GAP - row * (SPACE + SPACE_GAP) - SPACE
        filled = view.track.get(colour, 0)
        for k in range(TRACK_SPACES):
            x = x0 + SPACE_GAP + k * (SPACE + SPACE_GAP)
            spaces.append(shapely.box(x, y, x + SPACE, y + SPACE))
            space_colours.append(PIECE_COLOURS[colour])
            if k < filled:
                towers.append((x + SPACE / 2, y + SPACE / 2))
                tower_colours.append(PIECE_COLOURS[colour])
        xb = x0 + SPACE_GAP + TRACK_SPACES * (SPACE + SPACE_GAP) + SPACE_GAP
        values.append((xb - SPACE_GAP / 2 - 1, y + SPACE / 2, f"{TRACK_SPACES - filled}"))
        if colour in view.bonus:
            half = sizes.treasure_size / 2
            cx, cy = xb + SPACE / 2, y + SPACE / 2
            bonus.append(shapely.box(cx - half, cy - half, cx + half, cy + half))
            bonus_colours.append(PIECE_COLOURS[colour])
    draw_polygons(ax, spaces, facecolor=space_colours, edgecolor="#3b2a14", linewidth=0.8,
                  alpha=0.55, zorder=2)
    if towers:
        draw_discs(ax, [t[0] for t in towers], [t[1] for t in towers], sizes.tower_radius,
                   facecolor=tower_colours, edgecolor="black", linewidth=0.8, zorder=3)
    if bonus:
        draw_polygons(ax, bonus, facecolor=bonus_colours, edgecolor="black", linewidth=0.8,
                      zorder=3)
    # The value of a treasure of each colour now: the empty spaces left on its track.
    draw_text_paths(ax, [v[0] for v in values], [v[1] for v in values],
                    [f"{v[2]}" for v in values], size=9.0, color="black", bold=True, zorder=3)


def _draw_ids(ax: Axes, setup: Setup) -> None:
    """Small ids: mesas at a corner of their top, pueblos beside, expedition camps inside."""
    table = setup.table
    xs, ys, texts = [], [], []
    for m in table.mesas:
        at = shapely.Point(*_label_point(m.polygon, table.pueblos_on(m.id)))
        xs.append(at.x)
        ys.append(at.y)
        texts.append(m.id)
    draw_text_paths(ax, xs, ys, texts, size=8.0, color=LABEL, bold=True, zorder=LABELS_Z,
                    halo=LABEL_HALO, gid="labels")
    xs, ys, texts = [], [], []
    for p in table.pueblos:
        outline = p.polygon
        x0, y0, x1, y1 = outline.bounds
        xs.append((x0 + x1) / 2)
        ys.append(y1 + 5.0)
        texts.append(p.id)
    draw_text_paths(ax, xs, ys, texts, size=6.5, color=LABEL, zorder=LABELS_Z, halo=LABEL_HALO,
                    gid="labels")
    draw_text_paths(ax, [e.polygon.centroid.x for e in table.expedition_camps],
                    [e.polygon.centroid.y - 11 for e in table.expedition_camps],
                    [e.id for e in table.expedition_camps], size=6.5, color=LABEL, bold=True,
                    zorder=LABELS_Z, halo=LABEL_HALO, gid="labels")


def _label_point(mesa: shapely.Polygon, pueblos: Sequence[Pueblo]) -> tuple[float, float]:
    """A point on the mesa top far from its pueblos (for the mesa's id)."""
    inner = mesa.buffer(-9.0, quad_segs=1)
    ring = np.asarray(inner.exterior.coords) if not inner.is_empty and inner.geom_type == \
        "Polygon" else np.asarray(mesa.exterior.coords)
    if not pueblos:
        return tuple(ring[0])
    taken = shapely.union_all([p.polygon for p in pueblos])
    d = shapely.distance(shapely.points(ring), taken)
    return tuple(ring[int(np.argmax(d))])


KEY_ROW = 15.0  # mm between the rows of the key


def key_rows(setup: Setup) -> list[tuple[str, list[tuple[str, float, str, str]]]]:
    """The rows of the key: each a name and the shapes that show it (kind, size, face, edge)."""
    sizes = setup.table.sizes
    rows: list[tuple[str, list[tuple[str, float, str, str]]]] = [
        ("mesa (cliff rim)", [("box", 7, EARTH[0], CLIFF)]),
        ("pueblo: single / divided", [("box", 5, ADOBE, ADOBE_EDGE), ("split", 5, ADOBE, ADOBE_EDGE)]),
        ("tower, colour hidden", [("disc", sizes.tower_radius, HIDDEN_TOWER, "black")]),
    ]
    rows += [(f"{c} treasure / tower", [("box", sizes.treasure_size / 2, PIECE_COLOURS[c], "black"),
                                        ("disc", sizes.tower_radius, PIECE_COLOURS[c], "black")])
             for c in COLOURS]
    rows += [("expedition base camp, start", [("box", 7, CAMP_TILE, "black"),
                                              ("disc", sizes.start_mark_radius, "white", "black")]),
             ("expedition marker, explorer", [("marker", 0, MARKER, "#6b4a1f")])]
    rows += [(f"player {p} base camp", [("camp", sizes.base_camp_radius * 0.8, camp_colour(p),
                                         "black")]) for p in range(setup.players)]
    return rows


def _legend(ax: Axes, setup: Setup, x: float, y: float) -> None:
    """The key (legend) with its top left corner at (x, y), under the score tile: each row shows
    the pieces as they are drawn on the table, then their name. Drawn in table units as a few
    collections, which renders far faster than a matplotlib legend of Text artists."""
    sizes = setup.table.sizes
    rows = key_rows(setup)
    width, height = _tile_width(), KEY_ROW * len(rows) + 8
    polys, faces, edges = [shapely.box(x, y - height, x + width, y)], ["white"], ["#999999"]
    discs: list[tuple[float, float, float, str, str]] = []
    hidden, lines = [], []
    for i, (_, shapes) in enumerate(rows):
        cy = y - 4 - KEY_ROW * (i + 0.5)
        for k, (kind, r, face, edge) in enumerate(shapes):
            cx = x + 12 + 17 * k
            if kind in ("disc", "camp"):
                discs.append((cx, cy, r, face, edge))
                if kind == "camp":
                    discs.append((cx, cy, r * CAMP_DOT, "white", "black"))
                if face == HIDDEN_TOWER:
                    hidden.append((cx, cy))
                continue
            if kind == "marker":
                polys.append(shapely.box(cx - 8, cy - 3.5, cx + 24, cy + 3.5))
                discs.append((cx + 20, cy, 2.2, EXPLORER, EXPLORER))
            else:
                polys.append(shapely.box(cx - r * 1.3, cy - r, cx + r * 1.3, cy + r))
                if kind == "split":
                    lines.append([(cx - r * 0.3, cy - r), (cx - r * 0.3, cy + r)])
            faces.append(face)
            edges.append(edge)
    draw_polygons(ax, polys, facecolor=faces, edgecolor=edges, linewidth=0.8, zorder=6)
    draw_discs(ax, [d[0] for d in discs], [d[1] for d in discs], [d[2] for d in discs],
               facecolor=[d[3] for d in discs], edgecolor=[d[4] for d in discs], linewidth=0.8,
               zorder=6.1)
    ax.add_collection(LineCollection(lines, colors=ADOBE_EDGE, linewidths=1.4, zorder=6.2))
    draw_text_paths(ax, [h[0] for h in hidden], [h[1] for h in hidden], ["?"] * len(hidden),
                    size=sizes.tower_radius * 1.1, color="white", bold=True, zorder=6.2)
    draw_text_paths(ax, [x + 52] * len(rows), [y - 4 - KEY_ROW * (i + 0.5) for i in range(len(rows))],
                    [label for label, _ in rows], size=9.0, color="black", align="left",
                    zorder=6.2)


@lru_cache(maxsize=2)
def _font(bold: bool) -> FT2Font:
    """DejaVu Sans (the font matplotlib ships), regular or bold."""
    return get_font(findfont(FontProperties(family="DejaVu Sans",
                                            weight="bold" if bold else "normal")))


@lru_cache(maxsize=512)
def _char(char: str, bold: bool) -> tuple[np.ndarray, np.ndarray, float]:
    """One character's outline one unit tall with its origin at (0, 0): vertices, path codes
    and its advance (how far the next character starts). Made once per character: laying out
    every label through `TextPath` cost more than the rest of a first diagram."""
    font = _font(bold)
    font.set_size(TextToPath.FONT_SCALE, TextToPath.DPI)  # the font object is shared: size now
    glyph = font.load_char(ord(char), flags=LoadFlags.NO_HINTING)
    verts, codes = font.get_path()
    scale = 1.0 / TextToPath.FONT_SCALE
    return np.asarray(verts, float).reshape(-1, 2) * scale, np.asarray(codes, np.uint8), \
        glyph.linearHoriAdvance / 65536 * scale


@lru_cache(maxsize=512)
def _glyphs(text: str, bold: bool, align: str = "center") -> tuple[np.ndarray, np.ndarray]:
    """The outline of `text` one unit tall, centred on (0, 0) (or starting there, for
    align="left"): vertices and path codes, the characters set side by side by their advances
    (no kerning: labels are ids, numbers and short words)."""
    verts, codes, x = [], [], 0.0
    for char in text:
        v, c, advance = _char(char, bold)
        verts.append(v + (x, 0.0))
        codes.append(c)
        x += advance
    verts_all = np.concatenate(verts) if verts else np.zeros((0, 2))
    codes_all = np.concatenate(codes) if codes else np.zeros(0, np.uint8)
    # The extent from the vertices (Path.get_extents solves every curve: half a second for a
    # table's labels); a glyph's extreme points are on its outline.
    drawn = verts_all[codes_all != MplPath.CLOSEPOLY]
    x0, x1 = (drawn[:, 0].min(), drawn[:, 0].max()) if len(drawn) else (0.0, 0.0)
    # Centre on the height of capitals, so labels of different letters sit on one line.
    centre = np.array([(x0 + x1) / 2 if align == "center" else x0, 0.36])
    return verts_all - centre, codes_all


def draw_text_paths(ax: Axes, x: Sequence[float], y: Sequence[float], texts: Sequence[str],
                    size: float, color: str, bold: bool = False, zorder: float = 3,
                    align: str = "center", halo: str | None = None, gid: str | None = None) -> None:
    """Write short labels `size` mm tall, centred at (x, y), as one collection of glyph outlines:
    they scale with the table and cost far less to render than one Text artist each. With
    `halo`, the glyphs are first stroked in that colour (gid ``GID-halo``), so that they read on
    any ground."""
    paths = []
    for xi, yi, t in zip(x, y, texts):
        verts, codes = _glyphs(t, bold, align)
        paths.append(MplPath(verts * size + (xi, yi), codes))
    if not paths:
        return
    if halo is not None:
        ax.add_collection(PathCollection(paths, facecolor=halo, edgecolor=halo, linewidth=2.0,
                                         joinstyle="round", zorder=zorder - 0.01,
                                         gid=gid and f"{gid}-halo"))
    ax.add_collection(PathCollection(paths, facecolor=color, edgecolor="none", linewidth=0,
                                     zorder=zorder, gid=gid))

