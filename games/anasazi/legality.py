"""Where Anasazi pieces may lie: the geometric rules, checked exactly and in batches.

Two paths that agree (tests prove it):

- the exact path (`marker_violations`, `camp_violations`) judges one placement with shapely
  distances and predicates and says why it is illegal, with numbers;
- the batched path (`check_markers`, `check_camps`) judges thousands of candidate placements at
  once with numpy (each disc's centre in every marker's frame, the analytic rectangle-vs-disc
  distance, the farthest corner from the table's centre) and shapely's vectorised `dwithin` on
  prepared polygons (mesas, expedition base camp tiles). It returns a boolean mask of legal
  placements plus one mask per rule (True where that rule is broken). Bots, the random player
  and reach analysis use it.

Both read a `Board`: the fixed table plus what lies on it (base camps with their owners,
expeditions as lists of marker poses, the base camps placed in the current turn).

The batched API, for bots and reach analysis::

    ctx = marker_context(state.board(), player, "E3")  # once per board, player, expedition
    check = check_markers(ctx, x, y, heading)           # arrays of n poses (centre, degrees)
    check.ok                  # (n,) bool: legal
    check.broken[rule]        # (n,) bool for each id in MARKER_RULES: True where it is broken
    touched_sectors_batch(table, x, y, heading)         # (n, S): the sectors each pose touches
    legal_marker_poses(ctx, rng, n)                     # random legal poses (x, y, heading)
    check_camps(board, x, y)                            # the same for base camps (CAMP_RULES)

Boundary semantics, shared by both paths with the tolerance `EPS` (1e-9 mm), always in favour
of the placement:

- a disc is *covered* by a marker when its centre lies at least ``r - EPS`` deep inside the
  rectangle: a disc tangent to the marker's edge from inside counts as covered;
- a disc *overlaps* a marker, a mesa, a tile or another disc when their distance is at most
  ``r - EPS`` (penetration of at least EPS): a piece that merely touches it (tangent) covers
  none of it and is allowed;
- a piece lies *on the play area* when its farthest point is at most ``R + EPS`` from the
  centre;
- a marker *touches* a pueblo sector or a mesa when shapely's `intersects` holds (closed sets:
  touching the border counts), in both paths.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray

from games.anasazi.components import Sizes, Table
from geomsim.geometry import Pose, rectangle_corners, to_frames, unit
from geomsim.rules import Violation

EPS = 1e-9  # mm: the tolerance of every geometric comparison (see the module docstring)

# The ids of the geometric rules (their texts live with the other rules in rules.py).
EXPEDITION_CAMP = "anasazi/4.2/expedition-camp"
COVER_EXPLORER = "anasazi/4.2/cover-explorer"
ONE_PER_CAMP = "anasazi/4.2/one-expedition-per-camp"
MARKER_PLAY_AREA = "anasazi/4.2/play-area"
OTHER_CAMP = "anasazi/4.2/other-camp"
NEW_CAMP = "anasazi/4.2/new-camp"
EXPLORER_VISIBLE = "anasazi/4.2/explorer-visible"
CAMP_VALLEY = "anasazi/4.1/valley"
CAMP_PLAY_AREA = "anasazi/4.1/play-area"
CAMP_ON_CAMP = "anasazi/4.1/not-on-camp"
CAMP_DIRECTLY = "anasazi/4.1/directly-on-play-area"

MARKER_RULES = (COVER_EXPLORER, ONE_PER_CAMP, MARKER_PLAY_AREA, OTHER_CAMP, NEW_CAMP,
                EXPLORER_VISIBLE)
CAMP_RULES = (CAMP_VALLEY, CAMP_PLAY_AREA, CAMP_ON_CAMP, CAMP_DIRECTLY)

Array = NDArray[np.float64]
Mask = NDArray[np.bool_]


# -- what lies on the table --------------------------------------------------------------------
@dataclass(frozen=True)
class Camp:
    """A base camp marker of `owner`, a disc of `sizes.base_camp_radius` centred at (x, y)."""

    owner: int
    x: float
    y: float


@dataclass(frozen=True)
class Board:
    """What the placement rules read: the table, the base camps, the expeditions.

    `expeditions` maps an expedition base camp id to the poses of its markers in the order
    laid (absent or empty: no expedition has started there); `fresh` holds the indices (into
    `camps`) of base camps placed in the current turn.
    """

    table: Table
    camps: Sequence[Camp] = ()
    expeditions: Mapping[str, Sequence[Pose]] = field(default_factory=dict)
    fresh: frozenset[int] = frozenset()
    # What the rules derive from the board, kept while it is judged again and again (a board
    # is not changed once made: treat its sequences as immutable).
    _memo: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def memo(self, key: Any, make: Callable[[], Any]) -> Any:
        """`make()`, computed once per board and key."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    @property
    def sizes(self) -> Sizes:
        """The table's piece sizes."""
        return self.table.sizes

    def markers(self) -> list[tuple[str, int, Pose]]:
        """Every marker on the table as (expedition, index in it, pose)."""
        return [(e, i, p) for e, poses in self.expeditions.items() for i, p in enumerate(poses)]


# -- single pieces -----------------------------------------------------------------------------
def explorer_centre(pose: Pose, sizes: Sizes) -> tuple[float, float]:
    """The centre of the explorer printed on a marker at `pose` (on its axis, near its head)."""
    ahead = sizes.marker_length / 2.0 - sizes.explorer_offset
    c, s = cos_sin(pose.heading)
    return pose.x + ahead * c, pose.y + ahead * s


def explorer_centres(x: ArrayLike, y: ArrayLike, heading: ArrayLike, sizes: Sizes
                     ) -> tuple[Array, Array]:
    """Explorer centres of many marker poses at once."""
    c, s = unit(np.atleast_1d(heading))
    ahead = sizes.marker_length / 2.0 - sizes.explorer_offset
    return np.atleast_1d(np.asarray(x, float)) + ahead * c, np.atleast_1d(np.asarray(y, float)) + ahead * s


def marker_polygon(pose: Pose, sizes: Sizes) -> shapely.Polygon:
    """The outline of a marker at `pose` (corners counter-clockwise from the front left).

    Kept for the poses used last: the markers on the table are judged against again and again.
    """
    key = (pose.x, pose.y, pose.heading, sizes.marker_length, sizes.marker_width)
    poly = _POLYGONS.get(key)
    if poly is None:
        c, s = cos_sin(pose.heading)
        a, b = sizes.marker_length / 2.0, sizes.marker_width / 2.0
        poly = shapely.polygons(np.array([(pose.x + u * c - v * s, pose.y + u * s + v * c)
                                          for u, v in ((a, b), (-a, b), (-a, -b), (a, -b))]))
        _POLYGONS[key] = poly
        if len(_POLYGONS) > 4096:
            _POLYGONS.popitem(last=False)
    return poly


_POLYGONS: OrderedDict[tuple[float, ...], shapely.Polygon] = OrderedDict()


def marker_polygons(x: ArrayLike, y: ArrayLike, heading: ArrayLike, sizes: Sizes
                    ) -> NDArray[np.object_]:
    """Outlines of many markers at once (from corner arrays, never `shapely.affinity`)."""
    return shapely.polygons(rectangle_corners(x, y, heading, sizes.marker_length, sizes.marker_width))


def cover_room(sizes: Sizes, radius: float | None = None) -> tuple[float, float]:
    """Half-extents (along, across) of the region of a marker where a disc's centre must lie
    for the marker to cover the disc: the marker shrunk by the disc's radius."""
    r = sizes.explorer_radius if radius is None else radius
    return sizes.marker_length / 2.0 - r, sizes.marker_width / 2.0 - r


def pose_covering(point: tuple[float, float], heading: float, sizes: Sizes, along: float = 0.0,
                  across: float = 0.0, radius: float | None = None, strict: bool = True) -> Pose:
    """The pose of a marker heading `heading` that covers a disc (an explorer) centred at `point`.

    `along` (mm) is how far the disc's centre lies from the rearmost place it can have on the
    marker: 0 lays the whole marker ahead of the disc (the longest step), ``L - 2r`` the
    shortest; `across` is how far the disc's centre lies left of the marker's axis, looking
    along the heading (|across| <= W/2 - r). Outside those ranges the marker would not cover
    the disc: `ValueError` says so, unless `strict` is False (the pose is made all the same, and
    the rules' check says by how much it misses).
    """
    half_along, half_across = cover_room(sizes, radius)
    for name, value in (("point x", point[0]), ("point y", point[1]), ("heading", heading),
                        ("along", along), ("across", across)):
        if not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number, not {value!r}")
    if strict and not -EPS <= along <= 2 * half_along + EPS:
        raise ValueError(f"along must lie in [0, {2 * half_along:g}] mm, not {along!r}")
    if strict and abs(across) > half_across + EPS:
        raise ValueError(f"across must lie in [-{half_across:g}, {half_across:g}] mm, not {across!r}")
    local = -half_along + along
    c, s = cos_sin(heading)
    return Pose(point[0] - (local * c - across * s), point[1] - (local * s + across * c),
                float(heading))


def cos_sin(heading: float) -> tuple[float, float]:
    """cos and sin of a heading in degrees, exact for multiples of 90° (so a marker laid due
    west of (350, 0) is written at y = 0.0, not 3.8e-15)."""
    quarter, rest = divmod(float(heading), 90.0)
    if rest == 0.0:
        return ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))[int(quarter) % 4]
    rad = math.radians(heading)
    return math.cos(rad), math.sin(rad)


def expedition_end(board: Board, expedition: str) -> tuple[float, float, float]:
    """The disc that the next marker of `expedition` must cover: (x, y, radius) of the explorer
    of its last marker, or of its start mark when it has not started."""
    sizes = board.sizes
    poses = board.expeditions.get(expedition) or ()
    if poses:
        return (*explorer_centre(poses[-1], sizes), sizes.explorer_radius)
    return (*board.table.expedition_camp(expedition).start, sizes.start_mark_radius)


def end_camps(board: Board, expedition: str) -> frozenset[int]:
    """The base camps that the end of `expedition` sits on: those its last marker overlaps.

    Any player may lay the next marker of that expedition over them (rule 4.2).
    """
    poses = board.expeditions.get(expedition) or ()
    if not poses or not board.camps:
        return frozenset()
    return board.memo(("end camps", expedition), lambda: frozenset(
        covered_camps(board, poses[-1])))


def end_explorers(board: Board, exclude: str | None = None) -> list[tuple[str, float, float]]:
    """The explorer at the end of every started expedition but `exclude`: (expedition, x, y)."""
    ends = board.memo("end explorers", lambda: [
        (e, *explorer_centre(poses[-1], board.sizes)) for e, poses in board.expeditions.items()
        if poses])
    return [end for end in ends if end[0] != exclude]


def _camp_points(board: Board) -> NDArray[np.object_]:
    return board.memo("camp points", lambda: shapely.points(
        np.array([(c.x, c.y) for c in board.camps], dtype=float).reshape(-1, 2)))


# -- the exact path ----------------------------------------------------------------------------
ORIGIN = shapely.Point(0.0, 0.0)


def marker_violations(board: Board, player: int, expedition: str, pose: Pose) -> list[Violation]:
    """Every geometric rule of 4.2 that laying a marker of `expedition` at `pose` by `player`
    breaks, each with the numbers that say why (exact: shapely distances)."""
    found = expedition_violations(board, expedition)
    if found:
        return found
    sizes = board.sizes
    rect = marker_polygon(pose, sizes)
    found = _cover_violations(board, expedition, rect)
    extent = float(shapely.hausdorff_distance(ORIGIN, rect))  # the farthest corner
    if extent > sizes.play_area_radius + EPS:
        over = extent - sizes.play_area_radius
        found.append(Violation(MARKER_PLAY_AREA, f"the marker hangs {over:.3f} mm over the edge "
                               "of the play area", {"overhang_mm": over, "extent_mm": extent}))
    found += _camp_cover_violations(board, player, expedition, rect)
    found += _hidden_explorer_violations(board, expedition, rect)
    return found


def expedition_violations(board: Board, expedition: str) -> list[Violation]:
    """The violation of naming an expedition that the table does not have (none if it has)."""
    camps = board.table.expedition_camps
    if any(e.id == expedition for e in camps):
        return []
    return [Violation(EXPEDITION_CAMP, f"{expedition!r} is not an expedition base camp (known: "
                      f"{', '.join(e.id for e in camps)})", {"expedition": expedition})]


def _depth(rect: shapely.Polygon, x: float, y: float) -> float:
    """Signed distance of a point from the rectangle's outline, positive inside."""
    point = shapely.Point(x, y)
    if shapely.covers(rect, point):
        return float(shapely.distance(rect.exterior, point))
    return -float(shapely.distance(rect, point))


def _cover_violations(board: Board, expedition: str, rect: shapely.Polygon) -> list[Violation]:
    x, y, r = expedition_end(board, expedition)
    depth = _depth(rect, x, y)
    if depth >= r - EPS:
        return []
    short = r - depth
    started = bool(board.expeditions.get(expedition))
    what = (f"the explorer of the last marker of {expedition}" if started
            else f"the start mark of expedition base camp {expedition}")
    found = [Violation(COVER_EXPLORER, f"the marker does not fully cover {what} at "
                       f"({x:.2f}, {y:.2f}): it sticks out by {short:.3f} mm",
                       {"expedition": expedition, "explorer": [x, y], "uncovered_mm": short})]
    if started:
        sx, sy = board.table.expedition_camp(expedition).start
        if _depth(rect, sx, sy) >= board.sizes.start_mark_radius - EPS:
            found.append(Violation(ONE_PER_CAMP, f"{expedition} already has an expedition: only "
                                   "one may start from each expedition base camp; continue it at "
                                   f"its explorer ({x:.2f}, {y:.2f})", {"expedition": expedition}))
    return found


def _camp_cover_violations(board: Board, player: int, expedition: str, rect: shapely.Polygon
                           ) -> list[Violation]:
    if not board.camps:
        return []
    r = board.sizes.base_camp_radius
    dist = shapely.distance(rect, _camp_points(board))
    exempt = end_camps(board, expedition)
    found = []
    for i in np.flatnonzero(dist <= r - EPS):
        camp = board.camps[i]
        numbers = {"camp": int(i), "owner": camp.owner, "at": [camp.x, camp.y],
                   "depth_mm": r - float(dist[i]), "area_mm2": _overlap_area(rect, camp, r)}
        if camp.owner != player and i not in exempt:
            found.append(Violation(OTHER_CAMP, f"the marker covers {numbers['area_mm2']:.2f} mm² "
                                   f"(up to {numbers['depth_mm']:.3f} mm deep) of player "
                                   f"{camp.owner}'s base camp at ({camp.x:.2f}, {camp.y:.2f})",
                                   numbers))
        elif camp.owner == player and i in board.fresh:
            found.append(Violation(NEW_CAMP, f"the marker covers the base camp at ({camp.x:.2f}, "
                                   f"{camp.y:.2f}) placed this turn ({numbers['area_mm2']:.2f} mm²)",
                                   numbers))
    return found


def _overlap_area(rect: shapely.Polygon, camp: Camp, r: float) -> float:
    """The area of a base camp under a marker (mm², on a 256-gon: for reporting only)."""
    disc = shapely.Point(camp.x, camp.y).buffer(r, quad_segs=64)
    return float(shapely.area(shapely.intersection(rect, disc)))


def _hidden_explorer_violations(board: Board, expedition: str, rect: shapely.Polygon
                                ) -> list[Violation]:
    ends = end_explorers(board, exclude=expedition)
    if not ends:
        return []
    r = board.sizes.explorer_radius
    dist = shapely.distance(rect, shapely.points(np.array([(x, y) for _, x, y in ends])))
    return [Violation(EXPLORER_VISIBLE, f"the marker would hide the explorer at the end of "
                      f"expedition {e} at ({x:.2f}, {y:.2f}) by {r - d:.3f} mm",
                      {"expedition": e, "explorer": [x, y], "depth_mm": r - float(d)})
            for (e, x, y), d in zip(ends, dist) if d <= r - EPS]


def camp_violations(board: Board, x: float, y: float) -> list[Violation]:
    """Every geometric rule of 4.1 that a base camp centred at (x, y) breaks (exact)."""
    sizes, table = board.sizes, board.table
    r = sizes.base_camp_radius
    point = shapely.Point(x, y)
    found = []
    mesas = [m.polygon for m in table.mesas]
    for mesa, d in zip(table.mesas, shapely.distance(mesas, point)):
        if d <= r - EPS:
            found.append(Violation(CAMP_VALLEY, f"the base camp lies {r - d:.3f} mm on mesa "
                                   f"{mesa.id}: build only in a valley", {"mesa": mesa.id,
                                                                          "depth_mm": r - float(d)}))
    extent = float(shapely.distance(ORIGIN, point)) + r
    if extent > sizes.play_area_radius + EPS:
        over = extent - sizes.play_area_radius
        found.append(Violation(CAMP_PLAY_AREA, f"the base camp hangs {over:.3f} mm over the edge "
                               "of the play area", {"overhang_mm": over}))
    if board.camps:
        for i, d in enumerate(shapely.distance(_camp_points(board), point)):
            if d <= 2 * r - EPS:
                c = board.camps[i]
                found.append(Violation(CAMP_ON_CAMP, f"the base camp lies {2 * r - d:.3f} mm on "
                                       f"player {c.owner}'s base camp at ({c.x:.2f}, {c.y:.2f})",
                                       {"camp": i, "owner": c.owner, "depth_mm": 2 * r - float(d)}))
    found += _camp_on_pieces(board, point, r)
    return found


def _camp_on_pieces(board: Board, point: shapely.Point, r: float) -> list[Violation]:
    """A base camp lies directly on the play area: on no marker and no expedition base camp."""
    found = []
    markers = board.markers()
    if markers:
        rects = [marker_polygon(p, board.sizes) for _, _, p in markers]
        for (e, i, _), d in zip(markers, shapely.distance(rects, point)):
            if d <= r - EPS:
                found.append(Violation(CAMP_DIRECTLY, f"the base camp lies {r - d:.3f} mm on "
                                       f"marker {i + 1} of expedition {e}",
                                       {"expedition": e, "marker": i, "depth_mm": r - float(d)}))
    tiles = [t.polygon for t in board.table.expedition_camps]
    for tile, d in zip(board.table.expedition_camps, shapely.distance(tiles, point)):
        if d <= r - EPS:
            found.append(Violation(CAMP_DIRECTLY, f"the base camp lies {r - d:.3f} mm on "
                                   f"expedition base camp {tile.id}",
                                   {"expedition_camp": tile.id, "depth_mm": r - float(d)}))
    return found


# -- effects of a marker (exact) ---------------------------------------------------------------
def touched_sectors(table: Table, pose: Pose) -> list[str]:
    """The pueblo sectors a marker at `pose` touches (`intersects`: the border counts)."""
    geo = table_geometry(table)
    hit = shapely.intersects(marker_polygon(pose, table.sizes), geo.sectors)
    return [geo.sector_ids[i] for i in np.flatnonzero(hit)]


def touched_mesas(table: Table, pose: Pose) -> list[str]:
    """The mesas a marker at `pose` lies on or touches."""
    geo = table_geometry(table)
    hit = shapely.intersects(marker_polygon(pose, table.sizes), geo.mesas)
    return [geo.mesa_ids[i] for i in np.flatnonzero(hit)]


def covered_camps(board: Board, pose: Pose) -> list[int]:
    """The indices of the base camps a marker at `pose` covers (even partly)."""
    if not board.camps:
        return []
    dist = shapely.distance(marker_polygon(pose, board.sizes), _camp_points(board))
    return np.flatnonzero(dist <= board.sizes.base_camp_radius - EPS).tolist()


# -- the batched path --------------------------------------------------------------------------
@dataclass(frozen=True)
class TableGeometry:
    """Arrays of a table's polygons, prepared for fast vectorised predicates (cached per table)."""

    mesa_ids: tuple[str, ...]
    mesas: NDArray[np.object_]
    sector_ids: tuple[str, ...]
    sectors: NDArray[np.object_]
    sector_circles: Array  # (S, 3): centre and radius of a circle around each sector
    tiles: NDArray[np.object_]
    mesa_circles: Array  # (M, 3): the same around each mesa
    tile_circles: Array  # (E, 3): the same around each expedition base camp tile
    small_ids: tuple[str, ...]  # the sectors that hold towers at setup
    treasure_ids: tuple[str, ...]  # the sectors that hold treasures at setup
    sector_mesa: dict[str, str]  # the mesa of each sector


_GEOMETRY: OrderedDict[int, tuple[Table, TableGeometry]] = OrderedDict()


def table_geometry(table: Table) -> TableGeometry:
    """The prepared polygons of `table` (kept for the 64 tables used last)."""
    hit = _GEOMETRY.get(id(table))
    if hit is not None and hit[0] is table:
        _GEOMETRY.move_to_end(id(table))
        return hit[1]
    copy = lambda geoms: shapely.from_wkb(shapely.to_wkb(np.array(geoms, dtype=object)))  # noqa: E731
    mesas, sectors = copy([m.polygon for m in table.mesas]), copy([s.polygon for s in table.sectors])
    tiles = copy([t.polygon for t in table.expedition_camps])
    for geoms in (mesas, sectors, tiles):
        shapely.prepare(geoms)  # copies: the table's own polygons stay untouched
    circles = lambda geoms: np.array([_circle_around(g) for g in geoms]).reshape(-1, 3)  # noqa: E731
    geo = TableGeometry(tuple(m.id for m in table.mesas), mesas,
                        tuple(s.id for s in table.sectors), sectors, circles(sectors), tiles,
                        circles(mesas), circles(tiles),
                        tuple(s.id for s in table.small_sectors),
                        tuple(s.id for s in table.treasure_sectors),
                        {s.id: p.mesa for p in table.pueblos for s in p.sectors})
    _GEOMETRY[id(table)] = (table, geo)
    if len(_GEOMETRY) > 64:
        _GEOMETRY.popitem(last=False)
    return geo


def _circle_around(geom: shapely.Geometry) -> tuple[float, float, float]:
    xy = shapely.get_coordinates(geom)
    centre = xy.mean(axis=0)
    return float(centre[0]), float(centre[1]), float(np.hypot(*(xy - centre).T).max())


@dataclass(frozen=True)
class PoseCheck:
    """The verdict on many candidate placements: `ok` (n,) and, per rule id, a mask (n,) that is
    True where the placement breaks that rule."""

    ok: Mask
    broken: dict[str, Mask]

    def __len__(self) -> int:
        return len(self.ok)


@dataclass(frozen=True)
class MarkerContext:
    """What the batched marker check needs about one expedition and one player, as arrays.

    Build it with `marker_context`; `obstacles` hold the discs the marker may not overlap:
    (x, y, radius, rule code) rows with codes 0 = another player's base camp, 1 = a base camp
    placed this turn, 2 = another expedition's end explorer.
    """

    sizes: Sizes
    expedition: str
    target: tuple[float, float, float]
    start: tuple[float, float, float] | None  # the start mark, once the expedition has started
    obstacles: Array  # (m, 4)


_OBSTACLE_RULES = (OTHER_CAMP, NEW_CAMP, EXPLORER_VISIBLE)


def marker_context(board: Board, player: int, expedition: str, near_target: bool = True
                   ) -> MarkerContext:
    """The context of `check_markers` for `player` extending `expedition` on `board`.

    With `near_target` (the default) obstacles too far from the disc to cover to touch any
    marker that covers it are dropped: `ok` stays exact, and the per-rule masks are exact for
    every pose that covers the disc. Pass False for per-rule masks exact for any pose.
    """
    board.table.expedition_camp(expedition)  # KeyError for an unknown expedition
    sizes = board.sizes
    target = expedition_end(board, expedition)
    started = bool(board.expeditions.get(expedition))
    start = (*board.table.expedition_camp(expedition).start, sizes.start_mark_radius) if started else None
    exempt = end_camps(board, expedition)
    rows = []
    rc, re_ = sizes.base_camp_radius, sizes.explorer_radius
    for i, camp in enumerate(board.camps):
        if camp.owner != player and i not in exempt:
            rows.append((camp.x, camp.y, rc, 0))
        elif camp.owner == player and i in board.fresh:
            rows.append((camp.x, camp.y, rc, 1))
    rows += [(x, y, re_, 2) for _, x, y in end_explorers(board, exclude=expedition)]
    obstacles = np.array(rows, dtype=float).reshape(-1, 4)
    if near_target and len(obstacles):
        # A marker covering the target lies within its diagonal of the target's centre.
        reach = math.hypot(sizes.marker_length, sizes.marker_width) + obstacles[:, 2]
        near = np.hypot(obstacles[:, 0] - target[0], obstacles[:, 1] - target[1]) <= reach
        obstacles = obstacles[near]
    return MarkerContext(sizes, expedition, target, start, obstacles)


def check_markers(ctx: MarkerContext, x: ArrayLike, y: ArrayLike, heading: ArrayLike) -> PoseCheck:
    """Judge many marker poses (centres `x`, `y`, headings in degrees) of one expedition at once.

    Analytic: each disc's centre in every marker's frame; a disc is covered when its centre
    lies in the marker shrunk by its radius, overlaps when the distance to the rectangle is at
    most its radius (both within `EPS`). Well under a microsecond per pose.
    """
    x, y = np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(y, float))
    rad = np.radians(np.atleast_1d(np.asarray(heading, float)))
    c, s = np.cos(rad), np.sin(rad)
    a, b = ctx.sizes.marker_length / 2.0, ctx.sizes.marker_width / 2.0
    none = np.zeros(len(x), bool)
    tx, ty, tr = ctx.target
    covered = _inside(tx - x, ty - y, c, s, a - tr + EPS, b - tr + EPS)
    broken = {COVER_EXPLORER: ~covered, ONE_PER_CAMP: none}
    if ctx.start is not None:
        sx, sy, sr = ctx.start
        broken[ONE_PER_CAMP] = _inside(sx - x, sy - y, c, s, a - sr + EPS, b - sr + EPS) & ~covered
    broken[MARKER_PLAY_AREA] = _farthest_sq(x, y, c, s, a, b) > (ctx.sizes.play_area_radius + EPS) ** 2
    obs = ctx.obstacles
    if len(obs):
        dx, dy = obs[None, :, 0] - x[:, None], obs[None, :, 1] - y[:, None]
        ex = np.maximum(np.abs(dx * c[:, None] + dy * s[:, None]) - a, 0.0)
        ey = np.maximum(np.abs(dy * c[:, None] - dx * s[:, None]) - b, 0.0)
        reach = obs[:, 2] - EPS
        hits = ex * ex + ey * ey <= reach * reach
        for code, rule in enumerate(_OBSTACLE_RULES):
            cols = obs[:, 3] == code
            broken[rule] = hits[:, cols].any(axis=1) if cols.any() else none
    else:
        broken.update((rule, none) for rule in _OBSTACLE_RULES)
    ok = ~(broken[COVER_EXPLORER] | broken[MARKER_PLAY_AREA])
    for rule in _OBSTACLE_RULES:
        ok &= ~broken[rule]
    return PoseCheck(ok, broken)


def _inside(dx: Array, dy: Array, c: Array, s: Array, half_along: float, half_across: float) -> Mask:
    """Whether offsets (dx, dy) from marker centres lie in the centred rectangle of the given
    half-sides in each marker's frame."""
    return (np.abs(dx * c + dy * s) <= half_along) & (np.abs(dy * c - dx * s) <= half_across)


def farthest_extent(x: ArrayLike, y: ArrayLike, heading: ArrayLike, length: float, width: float
                    ) -> Array:
    """Distance from the table's centre to each rectangle's farthest corner."""
    c, s = unit(heading)
    return np.sqrt(_farthest_sq(np.asarray(x, float), np.asarray(y, float), c, s,
                                length / 2.0, width / 2.0))


def _farthest_sq(x: Array, y: Array, c: Array, s: Array, a: float, b: float) -> Array:
    """Squared distance from the centre to the farthest corner of rectangles centred at (x, y)
    with half-sides a, b along the axes u = (c, s), v = (-s, c): the corner's sign choices add
    up, |p|² + a² + b² + 2a|p·u| + 2b|p·v|."""
    return x * x + y * y + a * a + b * b + 2 * a * np.abs(x * c + y * s) + 2 * b * np.abs(y * c - x * s)


def check_camps(board: Board, x: ArrayLike, y: ArrayLike) -> PoseCheck:
    """Judge many base camp centres at once (the geometric rules of 4.1)."""
    sizes = board.sizes
    x, y = np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(y, float))
    r = sizes.base_camp_radius
    geo = table_geometry(board.table)
    xy = np.stack([x, y], axis=-1)
    points = shapely.points(xy)
    broken = {
        CAMP_VALLEY: _near_any(geo.mesas, geo.mesa_circles, points, xy, r - EPS),
        CAMP_PLAY_AREA: np.hypot(x, y) + r > sizes.play_area_radius + EPS,
    }
    if board.camps:
        cx = np.array([[c.x, c.y] for c in board.camps])
        d = np.hypot(x[:, None] - cx[None, :, 0], y[:, None] - cx[None, :, 1])
        broken[CAMP_ON_CAMP] = (d <= 2 * r - EPS).any(axis=1)
    else:
        broken[CAMP_ON_CAMP] = np.zeros(len(x), bool)
    on_piece = _near_any(geo.tiles, geo.tile_circles, points, xy, r - EPS)
    markers = [p for _, _, p in board.markers()]
    if markers:
        mx, my, mh = (np.array([getattr(p, k) for p in markers]) for k in ("x", "y", "heading"))
        along, across = to_frames(x, y, mx, my, mh)  # (markers, camps)
        d = np.hypot(np.maximum(np.abs(along) - sizes.marker_length / 2.0, 0.0),
                     np.maximum(np.abs(across) - sizes.marker_width / 2.0, 0.0))
        on_piece |= (d <= r - EPS).any(axis=0)
    broken[CAMP_DIRECTLY] = on_piece
    return PoseCheck(~np.logical_or.reduce(list(broken.values())), broken)


def _near_any(prepared: NDArray[np.object_], circles: Array, points: NDArray[np.object_],
              xy: Array, d: float) -> Mask:
    """For each point, whether any of the prepared polygons lies within `d` of it; only pairs
    whose point lies within `d` of the polygon's bounding circle reach shapely's `dwithin`."""
    out = np.zeros(len(points), bool)
    if not len(prepared) or not len(points):
        return out
    near = np.hypot(xy[:, None, 0] - circles[None, :, 0], xy[:, None, 1] - circles[None, :, 1])
    i, j = np.nonzero(near <= circles[None, :, 2] + d)
    if len(i):
        hit = shapely.dwithin(prepared[j], points[i], d)
        out[i[hit]] = True
    return out


def touched_sectors_batch(table: Table, x: ArrayLike, y: ArrayLike, heading: ArrayLike) -> Mask:
    """(n, S) mask: whether marker pose i touches sector j (`table.sectors` order).

    Only pairs whose bounding circles meet reach shapely's `intersects` (prepared sectors).
    """
    geo = table_geometry(table)
    sizes = table.sizes
    x, y = np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(y, float))
    h = np.atleast_1d(np.asarray(heading, float))
    out = np.zeros((len(x), len(geo.sector_ids)), bool)
    if not len(x) or not len(geo.sector_ids):
        return out
    reach = math.hypot(sizes.marker_length, sizes.marker_width) / 2.0 + geo.sector_circles[:, 2]
    d = np.hypot(x[:, None] - geo.sector_circles[None, :, 0], y[:, None] - geo.sector_circles[None, :, 1])
    i, j = np.nonzero(d <= reach[None, :])
    if len(i):
        rects = marker_polygons(x[i], y[i], h[i], sizes)
        out[i, j] = shapely.intersects(geo.sectors[j], rects)
    return out


def legal_marker_poses(ctx: MarkerContext, rng: np.random.Generator, n: int
                       ) -> tuple[Array, Array, Array]:
    """`n` random poses that cover the context's target by construction (uniform heading, the
    target's centre uniform in the shrunk rectangle), filtered by `check_markers`: the legal
    ones as arrays (x, y, heading) — possibly none."""
    tx, ty, tr = ctx.target
    half_along, half_across = cover_room(ctx.sizes, tr)
    h = rng.uniform(0.0, 360.0, n)
    qa = rng.uniform(-half_along, half_along, n)
    qc = rng.uniform(-half_across, half_across, n)
    c, s = unit(h)
    x = tx - (qa * c - qc * s)
    y = ty - (qa * s + qc * c)
    ok = check_markers(ctx, x, y, h).ok
    return x[ok], y[ok], h[ok]

