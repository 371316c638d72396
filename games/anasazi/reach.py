"""Reach analysis for Anasazi: can an expedition reach a pueblo sector, in how many markers, and
how precisely must the marker be laid?

Vocabulary. An expedition's *end* is the disc the next marker must fully cover (rule 4.2): the
explorer of its last marker, or, for an expedition not yet begun, the start mark of its
expedition base camp. A marker covers that disc exactly when the disc's centre ``e`` lies in the
marker shrunk by the disc's radius ``r``. So a placement is written ``(theta, a, c)``: the
heading, and where ``e`` lies in the new marker's frame (``a`` along, ``c`` across), with
``|a| <= L/2 - r`` and ``|c| <= W/2 - r``. Sampling ``(theta, a, c)`` makes "covers the end"
hold by construction; the rules' batched mask filters the rest, and a witness is returned only
after the exact ``state.check`` accepted it.

What is guaranteed (see docs/reach.md):
- "reachable" is certain: every pose of the chain passed ``state.check`` on a clone of the state
  with the earlier poses applied.
- "unreachable" for one marker is a proof: the sector lies beyond the farthest point any covering
  marker can reach, or a branch and bound over the whole pose space excluded every box of poses
  by a bound that holds for every pose in it (the sector is out of reach of the whole box, or
  every pose of the box overlaps a piece the rules forbid to overlap, or hangs over the play
  area's edge).
- For several markers "unreachable" is proved only by distance (n markers reach at most a fixed
  distance); a chain that the search did not find is reported "undecided", never "unreachable".
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, cast

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray
from shapely.geometry.base import BaseGeometry

from games.anasazi import legality as lg
from games.anasazi.actions import PlaceMarker
from games.anasazi.components import TOWERS_PER_COLOUR, Sizes, Table
from games.anasazi.legality import Board
from geomsim.geometry import Pose, distance_to_rectangle, farthest_corner_distance, to_frames
from geomsim.rules import Verdict

Status = Literal["reachable", "unreachable", "undecided"]
Array = NDArray[np.float64]

# Bounds exclude a box of poses only with this much (mm) to spare, against rounding.
EPS = 1e-7
# The branch and bound leaves a box undecided when no pose in it moves any point of the marker
# by more than this (mm) from the box's centre pose.
TOLERANCE = 0.02
MAX_BOXES = 60_000  # boxes examined by one branch and bound before it gives up (undecided)

# Moved to games.anasazi.legality (the rules and the planner ask them too); importable from
# here, with a DeprecationWarning, until the next release.
_MOVED_TO_LEGALITY = frozenset({"touched_sectors_batch", "convex_corners"})


def __getattr__(name: str) -> Any:
    """The touch test and the convex corners that moved to `legality`, still found here for
    one release."""
    if name in _MOVED_TO_LEGALITY:
        warnings.warn(f"games.anasazi.reach.{name} moved to games.anasazi.legality.{name}; "
                      "import it from there (the old name goes in the next release)",
                      DeprecationWarning, stacklevel=2)
        return getattr(lg, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------------------------
# The geometry of one step: the end to cover and the pieces no marker may overlap
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """What the next marker of an expedition must cover, and what it may never overlap.

    `obstacles` (k, 3) are discs (x, y, radius) that every legal marker must leave uncovered
    (other players' base camps, other expeditions' end explorers). They feed only the proofs of
    unreachability, so they must be a subset of what the rules forbid; leaving one out makes a
    proof rarer, never wrong.
    """

    end: tuple[float, float]
    end_radius: float
    sizes: Sizes
    obstacles: Array = field(default_factory=lambda: np.zeros((0, 3)))
    slack: float = 0.0  # how much (mm) less than `end_radius` deep the rules accept as covered

    @property
    def half_along(self) -> float:
        """How far along the marker's axis the covered centre may lie from the marker's centre."""
        return self.sizes.marker_length / 2 - self.end_radius + self.slack

    @property
    def half_across(self) -> float:
        """How far across the marker's axis the covered centre may lie."""
        return self.sizes.marker_width / 2 - self.end_radius + self.slack

    @property
    def reach(self) -> float:
        """The farthest any point of a covering marker lies from the end's centre."""
        return math.hypot(self.sizes.marker_length / 2 + self.half_along,
                          self.sizes.marker_width / 2 + self.half_across)

    @property
    def stride(self) -> float:
        """The farthest the new marker's explorer (the next end) lies from this end's centre."""
        ahead = self.sizes.marker_length / 2 - self.sizes.explorer_offset
        return math.hypot(ahead + self.half_along, self.half_across)

    def poses(self, theta: Array, a: Array, c: Array) -> tuple[Array, Array, Array]:
        """Marker centres and headings of placements `(theta, a, c)`."""
        cos, sin = np.cos(np.radians(theta)), np.sin(np.radians(theta))
        return (self.end[0] - a * cos + c * sin, self.end[1] - a * sin - c * cos,
                np.asarray(theta, float))

    def strides(self, theta: Array, a: Array, c: Array) -> tuple[Array, Array, Array, Array,
                                                                 Array]:
        """`poses` of placements `(theta, a, c)` and the centres of their explorers (the next
        ends): x, y, heading, explorer x, explorer y (`legality.explorer_centres`' numbers,
        from one cos and sin of each heading)."""
        rad = np.radians(theta)
        cos, sin = np.cos(rad), np.sin(rad)
        x, y = self.end[0] - a * cos + c * sin, self.end[1] - a * sin - c * cos
        ahead = self.sizes.marker_length / 2.0 - self.sizes.explorer_offset
        return x, y, np.asarray(theta, float), x + ahead * cos, y + ahead * sin


def chain_reach(sizes: Sizes, first_radius: float, markers: int) -> float:
    """The farthest any point of the last of `markers` chained markers lies from the first end
    (a disc of `first_radius`): every rule only shortens it."""
    if markers < 1:
        return 0.0
    steps = [Step((0.0, 0.0), first_radius, sizes)] + \
        [Step((0.0, 0.0), sizes.explorer_radius, sizes)] * (markers - 1)
    return sum(s.stride for s in steps[:-1]) + steps[-1].reach


class Placer(Protocol):
    """What the search needs from the rules at one moment, for one expedition and player."""

    @property
    def step(self) -> Step:
        """The end to cover and the discs no marker may overlap."""

    @property
    def end(self) -> tuple[float, float]:
        """`step.end`, known before the step is worked out."""

    def legal_mask(self, x: Array, y: Array, heading: Array) -> NDArray[np.bool_]:
        """The rules' batched check of many markers placed at once (True = legal)."""

    def check(self, pose: Pose) -> Verdict:
        """The rules' exact check of one marker."""

    def after(self, pose: Pose) -> Placer | None:
        """The placer of the next marker of this expedition once `pose` is laid; None when that
        marker ends the game (a chain stops where the game stops)."""

    def settle(self, pose: Pose) -> Pose:
        """The pose exactly as the action's text form gives it back (what a user pastes)."""

    def action_text(self, pose: Pose) -> str:
        """The action that lays `pose`, in the game's text form."""


# --------------------------------------------------------------------------------------------
# Targets and candidate placements
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    """A sector to touch: its polygon (prepared for batched tests) and sample points of it
    (boundary and interior) from which touching placements are drawn and scored. `convex`
    when the polygon is convex: distances are then worked out in numpy (`gap`), not by
    shapely."""

    id: str
    polygon: BaseGeometry
    points: Array
    convex: Convex | None = None

    def gap(self, x: ArrayLike, y: ArrayLike, limit: float = math.inf) -> Array:
        """Distances (mm) from points (x, y) to the target (0 inside); inf for points that
        are surely farther than `limit`."""
        x, y = np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(y, float))
        if self.convex is None:
            return cast(Array, shapely.distance(self.polygon, shapely.points(x, y)))
        return self.convex.distance_xy(x, y, limit)

    def gap_to(self, x: float, y: float) -> float:
        """The distance (mm) from one point to the target (0 inside)."""
        if self.convex is None:
            return float(shapely.distance(self.polygon, shapely.Point(x, y)))
        return self.convex.point_distance(x, y)


SMALL = 24  # points: fewer are measured in plain Python (numpy's per-call cost dominates)


class Convex:
    """A convex polygon's corners (counter-clockwise, complex numbers x + iy), its edges and
    a circle around it, for distances in numpy."""

    def __init__(self, corners: NDArray[np.complex128]):
        self.corners = corners
        edges = np.roll(corners, -1) - corners
        self.ax, self.ay, self.dx, self.dy = corners.real, corners.imag, edges.real, edges.imag
        self.inverse_sq = 1.0 / (self.dx ** 2 + self.dy ** 2)
        self.centre = complex(corners.mean())
        self.radius = float(np.abs(corners - self.centre).max())
        # The same numbers as columns (m, 1), for (m, n) arrays, and as Python floats.
        self._columns = tuple(v[:, None] for v in (self.ax, self.ay, self.dx, self.dy,
                                                   self.inverse_sq))
        self._edges = list(zip(*(v.tolist() for v in (self.ax, self.ay, self.dx, self.dy,
                                                       self.inverse_sq))))

    @classmethod
    def of(cls, poly: shapely.Geometry) -> Convex | None:
        """The `Convex` of a polygon, or None if it is not convex."""
        (corners,) = lg.convex_corners([poly])
        return None if corners is None else cls(corners)

    def distance(self, z: NDArray[np.complex128], limit: float = math.inf) -> Array:
        """Distances from points z to the polygon: 0 inside, else to the nearest edge; inf
        where the circle around it says it is farther than `limit`."""
        return self.distance_xy(z.real, z.imag, limit)

    def distance_xy(self, x: Array, y: Array, limit: float = math.inf) -> Array:
        """`distance` of points (x, y) given as two float arrays."""
        if len(x) <= SMALL and limit == math.inf:  # (no limit: no circle to cut by)
            return np.array([self.point_distance(px, py) for px, py in zip(x.tolist(),
                                                                             y.tolist())])
        out = np.full(len(x), math.inf)
        near: slice | NDArray[np.intp]
        if limit == math.inf:
            near = slice(None)
        else:
            near = np.flatnonzero(np.abs(x + 1j * y - self.centre) - self.radius <= limit)
            if not len(near):
                return out
        # On (m, n) arrays, edges along the short first axis (reductions along it are fast),
        # in place: the same operations in the same order as `point_distance`.
        ax, ay, dx, dy, inverse_sq = self._columns
        rx, ry = x[near] - ax, y[near] - ay
        inside = (dx * ry - dy * rx).min(axis=0) >= 0.0
        t = rx * dx
        t += ry * dy
        t *= inverse_sq
        np.clip(t, 0.0, 1.0, out=t)
        rx -= t * dx  # rx, ry: the offsets from each edge's nearest point
        ry -= t * dy
        rx *= rx
        ry *= ry
        rx += ry
        dist = np.sqrt(rx.min(axis=0))
        dist[inside] = 0.0
        out[near] = dist
        return out

    def point_distance(self, x: float, y: float) -> float:
        """`distance` of one point, in plain Python (the same numbers as the arrays give)."""
        inside, best = True, math.inf
        for ax, ay, dx, dy, inverse_sq in self._edges:
            rx, ry = x - ax, y - ay
            if dx * ry - dy * rx < 0.0:
                inside = False
            t = min(max((rx * dx + ry * dy) * inverse_sq, 0.0), 1.0)
            qx, qy = rx - t * dx, ry - t * dy
            best = min(best, qx * qx + qy * qy)
        return 0.0 if inside else math.sqrt(best)


def make_target(id: str, polygon: BaseGeometry, spacing: float = 1.5) -> Target:
    """A `Target` of `polygon`: points every `spacing` mm on its outline plus an interior grid."""
    poly = shapely.transform(polygon, lambda xy: xy)  # a copy: preparing must not touch the table
    shapely.prepare(poly)
    return _target(id, poly, spacing)


def sector_target(table: Table, sector: str) -> Target:
    """The `Target` of a sector of `table` (its prepared polygon shared with the rules; made
    once per table and sector)."""
    geo = lg.table_geometry(table)
    try:
        i = geo.sector_ids.index(sector)
    except ValueError:
        raise KeyError(f"no sector {sector!r} on this table") from None
    targets = _TARGETS.of_table(table, dict)
    if sector not in targets:
        targets[sector] = _target(sector, geo.sectors[0][i], 1.5)
    return targets[sector]


_TARGETS: lg.Recent[int, tuple[Table, dict[str, Target]]] = lg.Recent(16)


def _target(id: str, poly: BaseGeometry, spacing: float) -> Target:
    outline = np.asarray(shapely.segmentize(poly.boundary, spacing).coords)[:-1] \
        if poly.geom_type == "Polygon" else shapely.get_coordinates(poly.boundary)
    x0, y0, x1, y1 = poly.bounds
    step = max(min(x1 - x0, y1 - y0) / 6.0, spacing)
    gx, gy = np.meshgrid(np.arange(x0 + step / 2, x1, step), np.arange(y0 + step / 2, y1, step))
    inside = shapely.contains_xy(poly, gx.ravel(), gy.ravel())
    interior = np.column_stack([gx.ravel()[inside], gy.ravel()[inside]])
    return Target(id, poly, np.vstack([outline[:, :2], interior]), Convex.of(poly))


def touch_mask(target: Target, sizes: Sizes, x: Array, y: Array, h: Array) -> NDArray[np.bool_]:
    """Which markers at (x, y, h) touch the target (shapely `intersects`, FACTS.md)."""
    if len(np.atleast_1d(x)) == 0:
        return np.zeros(0, bool)
    return shapely.intersects(target.polygon, lg.marker_polygons(x, y, h, sizes))


def _touching_samples(step: Step, target: Target, rng: np.random.Generator, n: int
                      ) -> tuple[Array, Array, Array, NDArray[np.bool_]]:
    """Up to `n` placements `(theta, a, c)` that cover the end AND hold a point of the target
    strictly inside the marker: both hold by construction. The fourth array tells where the
    point lies more than `lg.MARGIN` inside, so that the marker surely touches the target
    (rounding moves it by about 1e-13 mm); elsewhere shapely must say."""
    L, W = step.sizes.marker_length, step.sizes.marker_width
    A, C = step.half_along, step.half_across
    rel = target.points - np.asarray(step.end)
    rho = np.hypot(rel[:, 0], rel[:, 1])
    near = np.flatnonzero(rho < step.reach)
    if not len(near):
        return np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, bool)
    pick = near[rng.integers(len(near), size=n)]
    rho, phi = rho[pick], np.arctan2(rel[pick, 1], rel[pick, 0])
    # The point lies at (rho cos b, rho sin b) from the end in the marker's frame: |sin b| is
    # bounded by the marker's width; b near 0 puts it ahead of the end, near pi behind.
    b = np.arcsin(np.minimum(1.0, (W / 2 + C) / np.maximum(rho, 1e-12)))
    beta = rng.uniform(-1.0, 1.0, n) * b + np.pi * (rng.random(n) < 0.5)
    dx, dy = rho * np.cos(beta), rho * np.sin(beta)
    lo_a, hi_a = np.maximum(-A, -L / 2 - dx), np.minimum(A, L / 2 - dx)
    lo_c, hi_c = np.maximum(-C, -W / 2 - dy), np.minimum(C, W / 2 - dy)
    ok = (hi_a > lo_a) & (hi_c > lo_c)
    u, v = rng.uniform(0.05, 0.95, (2, n))
    a, c = lo_a + u * (hi_a - lo_a), lo_c + v * (hi_c - lo_c)
    theta = np.degrees(phi - beta) % 360.0
    # The point lies at (a + dx, c + dy) from the marker's centre, along and across.
    depth = np.minimum(L / 2 - np.abs(a + dx), W / 2 - np.abs(c + dy))
    return theta[ok], a[ok], c[ok], depth[ok] > lg.MARGIN


def uniform_placements(step: Step, rng: np.random.Generator, n: int) -> tuple[Array, Array, Array]:
    """`n` placements that cover the end, uniform in heading and position."""
    return (rng.uniform(0.0, 360.0, n), rng.uniform(-step.half_along, step.half_along, n),
            rng.uniform(-step.half_across, step.half_across, n))


def robustness(step: Step, target: Target | None, x: Array, y: Array, h: Array, a: Array,
               c: Array) -> Array:
    """A cheap lower bound (mm) of how far each placement may shift and still cover the end,
    keep clear of the obstacles and the play area's edge and (with a target) touch it. Used to
    rank candidates; the reported margin is measured afterwards (`measure_margins`)."""
    sizes = step.sizes
    L, W = sizes.marker_length, sizes.marker_width
    score = np.minimum(step.half_along - np.abs(a), step.half_across - np.abs(c))
    if target is not None:
        pts = target.points[:: max(1, len(target.points) // 48)]
        local = to_frames(pts[:, 0], pts[:, 1], x, y, h)
        depth = np.minimum(L / 2 - np.abs(local.real), W / 2 - np.abs(local.imag))
        score = np.minimum(score, depth.max(axis=1))
    if len(step.obstacles):
        ob = step.obstacles
        gap = distance_to_rectangle(to_frames(ob[:, 0], ob[:, 1], x, y, h), L / 2, W / 2)
        score = np.minimum(score, (gap - ob[None, :, 2]).min(axis=1))
    return np.minimum(score, sizes.play_area_radius - farthest_corner_distance(x, y, h, L, W))


@dataclass
class _Found:
    """Poses that passed the exact check (best first) and counts for the report."""

    poses: list[Pose] = field(default_factory=list)
    candidates: int = 0  # passed the batched masks
    rejected: int = 0  # passed the batched masks but not the exact check


RANKED = 128  # candidates ranked by `robustness` at most


def verify(placer: Placer, target: Target, theta: Array, a: Array, c: Array, keep: int = 1,
           tries: int = 8, touching: NDArray[np.bool_] | None = None, masked: bool = False
           ) -> _Found:
    """Filter placements with the rules' batched mask and the touch mask, rank them by
    `robustness`, and keep up to `keep` that the exact check accepts and that touch exactly.

    The touch mask is not asked where `touching` says the placement surely touches; neither
    mask is asked when `masked` (the placements passed both already, as `_sweep`'s)."""
    step = placer.step
    x, y, h = step.poses(theta, a, c)
    if masked:
        idx = np.arange(len(x))
    else:
        idx = np.flatnonzero(placer.legal_mask(x, y, h))
        touches = np.zeros(len(idx), bool) if touching is None else touching[idx]
        ask = idx[~touches]
        touches[~touches] = touch_mask(target, step.sizes, x[ask], y[ask], h[ask])
        idx = idx[touches]
    found = _Found(candidates=len(idx))
    if not len(idx):
        return found
    if len(idx) > RANKED:  # a spread-out share is enough to find a robust one
        idx = idx[np.linspace(0, len(idx) - 1, RANKED).astype(int)]
    score = robustness(step, target, x[idx], y[idx], h[idx], a[idx], c[idx])
    for i in idx[np.argsort(-score, kind="stable")][: keep + tries]:
        pose = placer.settle(Pose(float(x[i]), float(y[i]), float(h[i])))
        # Exactly as the rules collect a pueblo when the marker is laid (`touched_sectors`).
        if placer.check(pose).ok and lg.marker_polygon(pose, step.sizes).intersects(target.polygon):
            found.poses.append(pose)
            if len(found.poses) >= keep:
                break
        else:
            found.rejected += 1
    return found


def _arrays(poses: Sequence[Pose]) -> tuple[Array, Array, Array]:
    return (np.array([p.x for p in poses], float), np.array([p.y for p in poses], float),
            np.array([p.heading for p in poses], float))


# --------------------------------------------------------------------------------------------
# Branch and bound over the pose space: a witness, or a proof that none exists
# --------------------------------------------------------------------------------------------
# Why a box of poses was excluded (codes of `exclude`).
ALIVE, OUT_OF_REACH, BLOCKED, OFF_TABLE = 0, 1, 2, 3
EXCLUSION_WORDS = {OUT_OF_REACH: "cannot touch the sector", BLOCKED: "overlap a forbidden piece",
                   OFF_TABLE: "hang over the play area's edge"}


def _rect_distance(px: Array, py: Array, x0: Array, x1: Array, y0: Array, y1: Array) -> Array:
    """Distance from points to axis-aligned rectangles [x0, x1] x [y0, y1] (0 inside)."""
    return np.hypot(np.maximum(np.maximum(x0 - px, px - x1), 0.0),
                    np.maximum(np.maximum(y0 - py, py - y1), 0.0))


def exclude(step: Step, target: Target, boxes: Array) -> NDArray[np.int8]:
    """For boxes (n, 6) of placements ``[theta0, theta1] x [a0, a1] x [c0, c1]``, a code per box:
    `ALIVE`, or why NO placement in it can be a legal marker touching the target.

    In the end's frame a placement's marker is the rectangle ``[-L/2 - a, L/2 - a] x
    [-W/2 - c, W/2 - c]`` turned by theta. Over the box, every marker lies inside the union
    rectangle U and holds the common rectangle I; turning by at most d from the middle heading
    moves a point at distance p from the end by at most ``2 p sin(d / 2)``. Hence:
    out of reach when the target is farther from U (at the middle heading) than U's far corner
    moves; blocked when an obstacle disc is nearer to I than its radius less its own move;
    off the table when a corner of I lies beyond the play area's radius by more than it moves.
    """
    L, W = step.sizes.marker_length, step.sizes.marker_width
    t0, t1, a0, a1, c0, c1 = boxes.T
    mid = np.radians((t0 + t1) / 2)
    wobble = 2 * np.sin(np.radians(t1 - t0) / 4)  # move per mm of distance from the end
    cos, sin = np.cos(mid), np.sin(mid)
    ex, ey = step.end
    code = np.full(len(boxes), ALIVE, np.int8)

    # Off the table: a corner of I beyond the play area's edge for every heading of the box.
    ix0, ix1, iy0, iy1 = -L / 2 - a0, L / 2 - a1, -W / 2 - c0, W / 2 - c1
    for kx, ky in ((ix0, iy0), (ix0, iy1), (ix1, iy0), (ix1, iy1)):
        wx, wy = ex + kx * cos - ky * sin, ey + kx * sin + ky * cos
        beyond = np.hypot(wx, wy) - np.hypot(kx, ky) * wobble > step.sizes.play_area_radius + EPS
        code[(code == ALIVE) & beyond] = OFF_TABLE

    # Blocked: an obstacle overlaps I for every heading of the box.
    for ox, oy, radius in step.obstacles:
        qx, qy = ox - ex, oy - ey
        lx, ly = qx * cos + qy * sin, -qx * sin + qy * cos
        gap = _rect_distance(lx, ly, ix0, ix1, iy0, iy1) + math.hypot(qx, qy) * wobble
        code[(code == ALIVE) & (gap < radius - EPS)] = BLOCKED

    # Out of reach: the target is farther from U than U's farthest corner moves.
    alive = np.flatnonzero(code == ALIVE)
    if len(alive):
        ux0, ux1 = -L / 2 - a1[alive], L / 2 - a0[alive]
        uy0, uy1 = -W / 2 - c1[alive], W / 2 - c0[alive]
        c_, s_ = cos[alive], sin[alive]
        local = np.stack([np.stack([ux0, uy0], -1), np.stack([ux1, uy0], -1),
                          np.stack([ux1, uy1], -1), np.stack([ux0, uy1], -1)], axis=1)
        world = np.stack([ex + local[..., 0] * c_[:, None] - local[..., 1] * s_[:, None],
                          ey + local[..., 0] * s_[:, None] + local[..., 1] * c_[:, None]], -1)
        gap = shapely.distance(target.polygon, shapely.polygons(world))
        far = np.hypot(np.maximum(-ux0, ux1), np.maximum(-uy0, uy1))
        code[alive[gap > far * wobble[alive] + EPS]] = OUT_OF_REACH
    return code


def _box_size(step: Step, boxes: Array) -> Array:
    """How far (mm) each dimension of each box moves the marker: (n, 3)."""
    L, W = step.sizes.marker_length, step.sizes.marker_width
    far = math.hypot(L / 2 + step.half_along, W / 2 + step.half_across)
    turn = far * 2 * np.sin(np.radians(boxes[:, 1] - boxes[:, 0]) / 4) * 2
    return np.column_stack([turn, boxes[:, 3] - boxes[:, 2], boxes[:, 5] - boxes[:, 4]])


def _split(boxes: Array, sizes: Array) -> Array:
    """Halve every box along the dimension that moves the marker most."""
    dim = sizes.argmax(axis=1)
    lo, hi = boxes.copy(), boxes.copy()
    rows = np.arange(len(boxes))
    middle = (boxes[rows, 2 * dim] + boxes[rows, 2 * dim + 1]) / 2
    lo[rows, 2 * dim + 1] = middle
    hi[rows, 2 * dim] = middle
    return np.vstack([lo, hi])


@dataclass
class _Search:
    """The outcome of a branch and bound."""

    found: _Found
    proved: bool  # every box excluded: no legal touching placement exists
    excluded: dict[int, int] = field(default_factory=dict)  # exclusion code -> boxes
    boxes: int = 0
    undecided: int = 0  # boxes left below the tolerance or the budget
    over_budget: bool = False


def branch_and_bound(placer: Placer, target: Target, rng: np.random.Generator, keep: int = 1,
                     tolerance: float = TOLERANCE, max_boxes: int = MAX_BOXES,
                     headings: int = 72, samples: int = 3) -> _Search:
    """Search every placement: exclude boxes by `exclude`, sample the rest (through the batched
    and exact checks), split them, until a witness is found or every box is excluded (a proof)
    or small (undecided)."""
    step = placer.step
    edges = np.linspace(0.0, 360.0, headings + 1)
    A, C = step.half_along, step.half_across
    boxes = np.column_stack([edges[:-1], edges[1:], np.full(headings, -A), np.full(headings, A),
                             np.full(headings, -C), np.full(headings, C)])
    result = _Search(_Found(), proved=False)
    while len(boxes):
        result.boxes += len(boxes)
        code = exclude(step, target, boxes)
        for k in (OUT_OF_REACH, BLOCKED, OFF_TABLE):
            result.excluded[k] = result.excluded.get(k, 0) + int((code == k).sum())
        boxes = boxes[code == ALIVE]
        if not len(boxes):
            break
        # Sample each live box: its centre and a few random placements.
        u = np.concatenate([np.full((len(boxes), 1, 3), 0.5),
                            rng.random((len(boxes), samples, 3))], axis=1)
        theta, a, c = (boxes[:, None, 2 * d] + u[..., d] * (boxes[:, None, 2 * d + 1]
                                                             - boxes[:, None, 2 * d])
                       for d in range(3))
        found = verify(placer, target, theta.ravel() % 360.0, a.ravel(), c.ravel(), keep)
        result.found.candidates += found.candidates
        result.found.rejected += found.rejected
        if found.poses:
            result.found.poses = found.poses
            return result
        size = _box_size(step, boxes)
        small = size.max(axis=1) < tolerance
        result.undecided += int(small.sum())
        boxes = boxes[~small]
        if result.boxes + 2 * len(boxes) > max_boxes:
            result.undecided += len(boxes)
            result.over_budget = True
            return result
        boxes = _split(boxes, size[~small])
    result.proved = result.undecided == 0
    return result


# --------------------------------------------------------------------------------------------
# One marker
# --------------------------------------------------------------------------------------------
@dataclass
class _OneMarker:
    status: Status
    poses: list[Pose]
    reason: str


def one_marker(placer: Placer, target: Target, rng: np.random.Generator, keep: int = 1,
               prove: bool = True, samples: tuple[int, ...] = (256, 2048)) -> _OneMarker:
    """Can ONE legal marker laid now touch the target? Witness poses (exactly checked, best
    first), or a proof that none exists, or "undecided"."""
    step = placer.step
    gap = target.gap_to(*step.end)
    if gap > step.reach + EPS:
        return _OneMarker("unreachable", [], (
            f"{target.id} is {gap:.1f} mm from the end at ({step.end[0]:.1f}, {step.end[1]:.1f}); "
            f"a marker covering it reaches at most {step.reach:.1f} mm"))
    for n in samples:  # a few first: most reachable sectors need no more
        theta, a, c, touching = _touching_samples(step, target, rng, n)
        found = verify(placer, target, theta, a, c, keep=keep, touching=touching)
        if found.poses:
            return _OneMarker("reachable", found.poses, _found_words(found))
    if not prove:
        return _OneMarker("undecided", [], f"no legal touching placement among {sum(samples)} "
                                           f"sampled (not searched exhaustively)")
    search = branch_and_bound(placer, target, rng, keep=keep)
    if search.found.poses:
        return _OneMarker("reachable", search.found.poses,
                          _found_words(search.found) + f" (branch and bound, {search.boxes} boxes)")
    words = ", ".join(f"{n} boxes {EXCLUSION_WORDS[k]}" for k, n in search.excluded.items() if n)
    if search.proved:
        return _OneMarker("unreachable", [], (
            f"no legal marker touches {target.id}: every placement covering the end was "
            f"excluded by a bound ({words})"))
    why = (f"the search stopped at its budget of {MAX_BOXES} boxes" if search.over_budget
           else f"boxes of placements smaller than {TOLERANCE} mm")
    return _OneMarker("undecided", [], (
        f"undecided within tolerance: {search.undecided} boxes were neither excluded nor found "
        f"to hold a legal touching placement ({why}; {words})"))


def _found_words(found: _Found) -> str:
    extra = f"; {found.rejected} batched candidates failed the exact check" if found.rejected else ""
    n = found.candidates
    return f"{n} legal touching placement{'s' * (n != 1)} found, exactly checked{extra}"


# --------------------------------------------------------------------------------------------
# Margins: how far a hand may err
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Margin:
    """How far (mm, any direction) the marker may shift, and how much (degrees, either way,
    about its centre) it may turn, with every sampled perturbation still legal and touching."""

    translation: float
    rotation: float
    samples: int  # perturbed placements tested

    def to_json(self) -> dict[str, float]:
        """The margin as JSON."""
        return {"translation_mm": round(self.translation, 3),
                "rotation_deg": round(self.rotation, 3), "samples": self.samples}

    def __str__(self) -> str:
        return f"±{self.translation:.2f} mm, ±{self.rotation:.2f}°"

    def worst_move(self, length: float) -> float:
        """The smaller of the shift and the move (mm) of a marker's far end under the turn."""
        return min(self.translation, math.radians(self.rotation) * length / 2)


SHIFT_DIRECTIONS = 12
RING_FRACTIONS = (1 / 3, 2 / 3, 1.0)


def measure_margins(placer: Placer, target: Target, poses: Sequence[Pose],
                    max_shift: float = 16.0, max_turn: float = 30.0, iterations: int = 11
                    ) -> list[Margin]:
    """The margin of each pose, by bisection on rings of perturbed placements (shifts in 12
    directions at 1/3, 2/3 and all of the radius; turns about the centre both ways at the same
    fractions), all tested with the rules' batched mask and the touch mask; the pose itself
    passed the exact check. Shifts and turns are bisected together, one batch per step."""
    x, y, h = _arrays(poses)
    k = len(poses)
    angles = np.linspace(0, 2 * np.pi, SHIFT_DIRECTIONS, endpoint=False)
    fr = np.asarray(RING_FRACTIONS)
    ring = (fr[:, None] * np.exp(1j * angles)[None, :]).ravel()  # shifts of unit radius
    turns = np.concatenate([fr, -fr])
    sizes = placer.step.sizes

    def holds(r: Array) -> NDArray[np.bool_]:
        d = r[:k, None] * ring[None, :]
        px = np.concatenate([(x[:, None] + d.real).ravel(), np.repeat(x, len(turns))])
        py = np.concatenate([(y[:, None] + d.imag).ravel(), np.repeat(y, len(turns))])
        ph = np.concatenate([np.repeat(h, len(ring)), (h[:, None] + r[k:, None] * turns).ravel()])
        ok = placer.legal_mask(px, py, ph)
        idx = np.flatnonzero(ok)
        ok[idx] = touch_mask(target, sizes, px[idx], py[idx], ph[idx])
        split = k * len(ring)
        return np.concatenate([ok[:split].reshape(k, -1).all(axis=1),
                               ok[split:].reshape(k, -1).all(axis=1)])

    top = np.concatenate([np.full(k, max_shift), np.full(k, max_turn)])
    found = _bisect(holds, top, iterations)
    tested = (iterations + 1) * (len(ring) + len(turns))
    return [Margin(float(t), float(r), tested) for t, r in zip(found[:k], found[k:])]


def _bisect(holds: Any, top: Array, iterations: int) -> Array:
    """For monotone predicates, the largest radius in [0, top] where each holds (bisection)."""
    lo, hi = np.zeros(len(top)), top.astype(float)
    whole = holds(hi)
    lo[whole] = top[whole]
    for _ in range(iterations):
        mid = (lo + hi) / 2
        ok = holds(mid) & ~whole
        lo = np.where(ok, mid, lo)
        hi = np.where(ok | whole, hi, mid)
    return lo


def most_robust(placer: Placer, target: Target, poses: Sequence[Pose]) -> tuple[Pose, Margin]:
    """The pose among `poses` with the largest margin (by `Margin.worst_move`), and its margin."""
    margins = measure_margins(placer, target, poses)
    length = placer.step.sizes.marker_length
    best = max(range(len(poses)), key=lambda i: (margins[i].worst_move(length),
                                                 margins[i].translation))
    return poses[best], margins[best]


# --------------------------------------------------------------------------------------------
# The rules, bound to one state, expedition and player
# --------------------------------------------------------------------------------------------
ROUND = 4  # decimals of mm and degrees in witness poses: short enough to paste, checked as is


@dataclass(frozen=True)
class _Turn:
    """What laying markers changes besides the board, as far as the next marker and the end of
    the game care: the actions left in the turn, the markers left in the supply, the towers
    on the track (colour -> count) and those still on the table (sector -> colour)."""

    actions_left: int
    supply: int
    track: dict[str, int]
    towers: dict[str, str]

    @classmethod
    def of(cls, state: Any) -> _Turn:
        """The turn of `state` (a state in play, its player to move)."""
        return cls(state.actions_left, state.markers_left(), dict(state.track),
                   {s: colour for s, (kind, colour) in state.contents.items() if kind == "tower"})


class StatePlacer:
    """The `Placer` of `player` extending `expedition` in an Anasazi state ready for it: the
    rules' batched check (`legality.check_markers`) and their exact check (`state.check` at the
    root; the rules' `marker_violations` on the boards of the markers after it).

    The placers of the next markers are derived from this one's board directly (the marker
    joins its expedition; a turn's base camps stop being new when its two actions are spent),
    not by cloning the state and applying the marker: the same boards, a tenth of the cost.
    """

    def __init__(self, state: Any, expedition: str, player: int, board: Board | None = None,
                 turn: _Turn | None = None):
        self.state, self.expedition, self.player = state, expedition, player
        self.at_root = board is None or board is state.board()  # the board of `state` itself
        self.board = state.board() if board is None else board
        self._last: tuple[Pose, PlaceMarker] | None = None
        self.turn = _Turn.of(state) if turn is None else turn
        self.supply = self.turn.supply  # no chain is longer: the last marker ends the game
        self.end = lg.expedition_end(self.board, expedition)[:2]

    # The context and the step are made when first asked: the search drops most placers it
    # makes once it has seen where their ends lie.
    @functools.cached_property
    def context(self) -> lg.MarkerContext:
        """The rules' batched-check context of this expedition and player on the board."""
        return lg.marker_context(self.board, self.player, self.expedition)

    @functools.cached_property
    def step(self) -> Step:
        """The end to cover and the discs no marker may overlap."""
        x, y, r = self.context.target
        return Step((x, y), r, self.state.sizes, self.context.obstacles[:3].T, slack=lg.EPS)

    @classmethod
    def of(cls, state: Any, expedition: str, player: int | None = None) -> StatePlacer:
        """The placer for `player` (default: the player to move) on `state.turn_of(player)`."""
        if player is None:
            movers = state.to_move()
            player = movers[0] if movers else state.current
        if isinstance(player, bool) or not isinstance(player, int) \
                or not 0 <= player < state.num_players:
            raise ValueError(f"player must be 0 to {state.num_players - 1}, not {player!r}")
        state.table.expedition_camp(expedition)  # KeyError naming an unknown expedition
        if state.is_over():
            raise ValueError(f"the game is over ({state.ended}): no marker can be laid")
        return cls(state.turn_of(player), expedition, player)

    def legal_mask(self, x: Array, y: Array, heading: Array) -> NDArray[np.bool_]:
        """The rules' batched legality of markers of this expedition."""
        return lg.check_markers(self.context, x, y, heading).ok

    def action(self, pose: Pose) -> PlaceMarker:
        """The action laying a marker of this expedition at `pose` (the last one made is kept:
        the search checks a pose, then lays it)."""
        if self._last is None or self._last[0] is not pose:
            self._last = (pose, PlaceMarker.at(self.expedition, pose))
        return self._last[1]

    def check(self, pose: Pose) -> Verdict:
        """The exact check of laying `pose`: `state.check` at the root, the same geometric
        rules on a later board (a turn in play: no other rule applies)."""
        if self.at_root:
            verdict: Verdict = self.state.check(self.action(pose), self.player)
            return verdict
        return Verdict(tuple(lg.marker_violations(self.board, self.player, self.expedition,
                                                  self.action(pose).pose)))

    def settle(self, pose: Pose) -> Pose:
        """`pose` rounded to `ROUND` decimals, the heading in [0, 360)."""
        return Pose(round(pose.x, ROUND), round(pose.y, ROUND), round(pose.heading % 360.0, ROUND)
                    % 360.0)

    def after(self, pose: Pose) -> StatePlacer | None:
        """The placer of the next marker once `pose` is laid; None when that marker ended the
        game (the supply's last marker, a colour's fourth tower: rule 5.0)."""
        turn, board = self.turn, self.board
        pose = self.action(pose).pose
        track, towers = turn.track, turn.towers
        moved = [s for s in lg.touched_sectors(board.table, pose) if s in towers] \
            if _near_towers(board.table, pose, towers) else []
        if moved:  # towers touched go to the track
            track = dict(track)
            for s in moved:
                track[towers[s]] += 1
            towers = {s: c for s, c in towers.items() if s not in moved}
        if turn.supply <= 1 or any(n >= TOWERS_PER_COLOUR for n in track.values()):
            return None
        left = turn.actions_left - 1
        expeditions = dict(board.expeditions)
        expeditions[self.expedition] = (*expeditions.get(self.expedition, ()), pose)
        # The turn's second action spent, the next marker is laid in a turn of its own.
        child = Board(board.table, board.camps, expeditions,
                      board.fresh if left > 0 else frozenset()).follow(board)
        return StatePlacer(self.state, self.expedition, self.player, child,
                           _Turn(left if left > 0 else 2, turn.supply - 1, track, towers))

    def action_text(self, pose: Pose) -> str:
        """The action laying `pose`, as text to paste."""
        return str(self.action(pose))


def _near_towers(table: Table, pose: Pose, towers: dict[str, str]) -> bool:
    """Whether a marker at `pose` may touch a sector of `towers`: some sector's circle comes
    within half the marker's diagonal of its centre (with `lg.MARGIN` to spare for rounding;
    where none does, the marker touches none of them)."""
    circles = _SECTOR_CIRCLES.of_table(table, lambda: _sector_circles(table))
    centre = complex(pose.x, pose.y)
    reach = math.hypot(table.sizes.marker_length, table.sizes.marker_width) / 2 + lg.MARGIN
    return any(abs(circles[s][0] - centre) <= circles[s][1] + reach for s in towers)


def _sector_circles(table: Table) -> dict[str, tuple[complex, float]]:
    geo = lg.table_geometry(table)
    circles = geo.sectors[1]
    return dict(zip(geo.sector_ids, zip(circles.centre.tolist(),
                                        np.asarray(circles.radius).tolist())))


_SECTOR_CIRCLES: lg.Recent[int, tuple[Table, dict[str, tuple[complex, float]]]] = lg.Recent(16)


# --------------------------------------------------------------------------------------------
# Chains of markers
# --------------------------------------------------------------------------------------------
EXPAND_SAMPLES = 2048  # covering placements drawn to grow a chain by one marker
EXPAND_WIDTH = 6  # children kept per chain end
BEAM = 12  # chain ends kept per depth
CELL = 6.0  # mm: two chain ends closer than this (same grid cell) count as one


class _Child:
    """A next marker from `parent`: its pose, its explorer (the new end), and, worked out only
    when the search keeps it (most are dropped once their ends are ranked), its exact check
    and its placer (None when the check fails or the marker ends the game)."""

    def __init__(self, parent: Placer, pose: Pose):
        self.parent, self.pose = parent, pose
        self.end = lg.explorer_centre(pose, parent.step.sizes)

    @functools.cached_property
    def placer(self) -> Placer | None:
        """The placer of the marker after this one, once this one passed the exact check."""
        return self.parent.after(self.pose) if self.parent.check(self.pose).ok else None


def _expand(placer: Placer, rng: np.random.Generator, width: int, rank: Any = None,
            toward: tuple[float, float] | None = None) -> list[_Child]:
    """Up to `width` next markers from `placer`'s end that pass the batched check (the exact
    check comes when a child is kept: `_Child.placer`).

    `rank(ex, ey)` scores the new ends (lower first, inf = useless); half the children are the
    best ranked, half drawn at random among the rest; one per grid cell of the new end. With
    `toward`, half the placements drawn are long strides heading about that way.
    """
    step = placer.step
    theta, a, c = uniform_placements(step, rng, EXPAND_SAMPLES)
    if toward is not None:
        # The longest stride heads at the goal with the end at the marker's rear.
        half = EXPAND_SAMPLES // 2
        bearing = math.degrees(math.atan2(toward[1] - step.end[1], toward[0] - step.end[0]))
        theta[:half] = (bearing + rng.normal(0.0, 12.0, half)) % 360.0
        a[:half] = -step.half_along + np.abs(rng.normal(0.0, 0.1 * step.half_along, half))
        a[:half] = np.minimum(a[:half], step.half_along)
    x, y, h, ex, ey = step.strides(theta, a, c)
    score = rank(ex, ey) if rank is not None else -np.hypot(ex - step.end[0], ey - step.end[1])
    cells = _best_of_cells(placer, np.flatnonzero(np.isfinite(score)), score, x, y, h, ex, ey)
    best, rest = cells[: width // 2], cells[width // 2:]
    pick = np.concatenate([best, rng.permutation(rest)])[:width]
    return [_Child(placer, placer.settle(Pose(*xyh)))
            for xyh in zip(x[pick].tolist(), y[pick].tolist(), h[pick].tolist())]


def _best_of_cells(placer: Placer, useful: NDArray[np.intp], score: Array, x: Array, y: Array,
                   h: Array, ex: Array, ey: Array) -> NDArray[np.intp]:
    """The best placement (least score, then least index) of `useful` in each grid cell of
    the ends (ex, ey) among those that pass the batched check, the cells ordered by their
    best: what checking every placement, sorting them by score and taking the first of each
    cell gives. Only the best of each cell is checked (and the rest of a cell only where its
    best fails), and nothing is sorted but the cells."""
    n = len(useful)
    if not n:
        return useful
    # The grid cells of side `CELL`, numbered from 0 on a grid spanning these ends.
    fx, fy = np.floor(ex[useful] / CELL), np.floor(ey[useful] / CELL)
    low = fy.min()
    keys = ((fx - fx.min()) * (fy.max() - low + 1.0) + (fy - low)).astype(np.intp)
    s, cells = score[useful], int(keys.max()) + 1

    def checked(at: NDArray[np.intp]) -> NDArray[np.intp]:
        i = useful[at]
        return at[placer.legal_mask(x[i], y[i], h[i])]

    first = _least_per_cell(keys, s, np.arange(n), cells)
    legal = checked(first)
    if len(legal) < len(first):
        failed, tried = np.zeros(cells, bool), np.zeros(n, bool)
        tried[first] = True
        failed[keys[first]] = True
        failed[keys[legal]] = False
        legal = np.concatenate([legal, _least_per_cell(
            keys, s, checked(np.flatnonzero(failed[keys] & ~tried)), cells)])
    return useful[legal[np.lexsort((legal, s[legal]))]]


def _least_per_cell(keys: NDArray[np.intp], score: Array, among: NDArray[np.intp], cells: int
                    ) -> NDArray[np.intp]:
    """For each cell (`keys`, from 0 to `cells` - 1) holding some of the positions `among`,
    the position of least score there, the least such position on a tie."""
    least = np.full(cells, np.inf)
    np.minimum.at(least, keys[among], score[among])
    hit = among[score[among] == least[keys[among]]]
    first = np.full(cells, len(keys))
    np.minimum.at(first, keys[hit], hit)
    return first[first < len(keys)]


def _distinct(nodes: list[tuple[_Child, list[Pose]]], cap: int
              ) -> Iterator[tuple[Placer, list[Pose]]]:
    """At most `cap` nodes whose ends lie in different grid cells, in the given order, each
    as the placer of its next marker (children that fail the exact check, or end the game,
    are left out). Lazily: a child is checked only when the nodes before it were taken."""
    seen: set[tuple[int, int]] = set()
    for child, chain in nodes:
        cell = (math.floor(child.end[0] / CELL), math.floor(child.end[1] / CELL))
        if cell not in seen and child.placer is not None:
            seen.add(cell)
            yield child.placer, chain
            if len(seen) >= cap:
                return


def _nearest(target: Target, points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The target's point nearest to each of `points` (one shapely call for them all)."""
    if not points:
        return []
    lines = shapely.shortest_line(target.polygon, shapely.points(np.asarray(points, float)))
    return [tuple(xy) for xy in shapely.get_coordinates(lines)[::2].tolist()]


def chain_search(root: Placer, target: Target, max_markers: int, rng: np.random.Generator,
                 keep: int = 1, skip: int = 1) -> tuple[int, list[Pose], Placer, list[Pose]] | None:
    """Breadth-first search of chains of 2 .. `max_markers` markers whose last one touches the
    target, every marker exactly checked on the board with the earlier ones laid. Returns (markers,
    the chain before the last marker, the last placer, exactly checked last poses) or None.

    Chains are grown toward the target (ends that `chain_reach` says can still make it, the
    nearest first, some at random) and deduplicated by the grid cell of their end. Depths up to
    `skip` are not tried for a touch (the caller knows they fail)."""
    sizes = root.step.sizes
    gap = target.gap
    frontier: list[tuple[Placer, list[Pose]]] = [(root, [])]
    for depth in range(2, max_markers + 1):
        bound = chain_reach(sizes, sizes.explorer_radius, max_markers - depth + 1) + EPS

        def rank(ex: Array, ey: Array) -> Array:
            d = gap(ex, ey, bound)
            return np.where(d <= bound, d, np.inf)

        goals = _nearest(target, [placer.end for placer, _ in frontier])
        children = [(child, chain + [child.pose]) for (placer, chain), goal in zip(frontier, goals)
                    for child in _expand(placer, rng, EXPAND_WIDTH, rank, goal)]
        if children:
            ends = np.array([child.end for child, _ in children])
            order = np.argsort(gap(ends[:, 0], ends[:, 1]), kind="stable")
            children = [children[i] for i in order]
        if depth <= skip:
            frontier = list(_distinct(children, BEAM))
            continue
        # Tried as they come: once a chain is found, the children after it are never checked.
        frontier = []
        for placer, chain in _distinct(children, BEAM):
            frontier.append((placer, chain))
            found = one_marker(placer, target, rng, keep=keep, prove=False)
            if found.poses:
                return depth, chain, placer, found.poses
    return None


# --------------------------------------------------------------------------------------------
# The public API
# --------------------------------------------------------------------------------------------
@dataclass
class ReachResult:
    """The verdict on "can `expedition` reach `sector`".

    `status` "reachable" is certain (every marker of `chain` passed the exact check in
    sequence); "unreachable" is proved (`reason` says how); "undecided" is what the search could
    not settle. `witness` is the marker that touches the sector (the last of `chain`), `margin`
    how precisely it must be laid, `markers` the length of the chain when reachable, else the
    most markers considered. `actions` are the chain in the game's text form, ready to paste.
    """

    status: Status
    witness: Pose | None
    reason: str
    markers: int
    margin: Margin | None = None
    chain: list[Pose] = field(default_factory=list)
    expedition: str = ""
    sector: str = ""
    player: int = 0
    actions: list[str] = field(default_factory=list)

    @property
    def reachable(self) -> bool:
        """True when a chain was found."""
        return self.status == "reachable"

    def to_json(self) -> dict[str, Any]:
        """The verdict as JSON."""
        return {
            "expedition": self.expedition, "sector": self.sector, "player": self.player,
            "status": self.status, "markers": self.markers, "reason": self.reason,
            "witness": None if self.witness is None else _pose_json(self.witness),
            "chain": [_pose_json(p) for p in self.chain], "actions": list(self.actions),
            "margin": None if self.margin is None else self.margin.to_json(),
        }

    def __str__(self) -> str:
        head = {"reachable": f"reachable with {self.markers} marker{'s' * (self.markers > 1)}",
                "unreachable": f"unreachable with {self.markers} marker{'s' * (self.markers > 1)} "
                               "or fewer", "undecided": "undecided"}[self.status]
        lines = [f"{self.expedition} -> {self.sector}: {head} (player {self.player})",
                 f"  why: {self.reason}"]
        lines += [f"  lay: {a}" for a in self.actions]
        if self.margin is not None:
            lines.append(f"  margin of the last marker: {self.margin}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The verdict for notebooks, as its text."""
        from geomsim.notebook import pre_html

        return pre_html(str(self))


def _pose_json(pose: Pose) -> list[float]:
    return [pose.x, pose.y, pose.heading]


def _check_cap(max_markers: int) -> None:
    if isinstance(max_markers, bool) or not isinstance(max_markers, int) or max_markers < 1:
        raise ValueError(f"max_markers must be a whole number >= 1, not {max_markers!r}")


def reach(state: Any, expedition: str, sector: str, max_markers: int = 3, *,
          player: int | None = None, seed: int = 0, with_margin: bool = True) -> ReachResult:
    """Can `player` (default: the player to move) make `expedition` (an expedition base camp id:
    its end, or its start mark if free) touch `sector` with at most `max_markers` markers, on
    the table as it lies in `state`? The fewest markers found, the chain, the margin of the
    touching marker. Deterministic for a given `seed`."""
    _check_cap(max_markers)
    root = StatePlacer.of(state, expedition, player)
    return reach_from(root, sector_target(state.table, sector), max_markers,
                      np.random.default_rng(seed), with_margin)


def reach_from(root: Placer, target: Target, max_markers: int, rng: np.random.Generator,
               with_margin: bool = True, first: _OneMarker | None = None) -> ReachResult:
    """`reach` for a placer (the search behind `reach` and `reach_map`); `first` may hold the
    one-marker verdict when already known."""
    keep = 3 if with_margin else 1
    if first is None:
        first = one_marker(root, target, rng, keep=keep)
    if first.poses:
        return _reachable(root, target, 1, [], root, first.poses, first.reason, with_margin)
    if max_markers == 1:
        return _unreached(root, target, first.status, first.reason, 1)
    notes = [f"1 marker: {first.reason}"]
    supply = getattr(root, "supply", max_markers)
    if supply < max_markers:  # the game ends with the supply's last marker (rule 5.0)
        notes.append(f"{_span(supply + 1, max_markers)}: the supply holds only {supply} "
                     f"marker{'s' * (supply != 1)}, and the game ends with the last")
        if supply == 1:
            return _unreached(root, target, first.status, "; ".join(notes), max_markers)
    cap = min(max_markers, supply)
    gap = target.gap_to(*root.step.end)
    sizes = root.step.sizes
    excluded = max([k for k in range(2, cap + 1)
                    if gap > chain_reach(sizes, root.step.end_radius, k) + EPS], default=1)
    if excluded > 1:
        notes.append(f"{_span(2, excluded)}: {target.id} is {gap:.1f} mm away, beyond the "
                     f"{chain_reach(sizes, root.step.end_radius, excluded):.1f} mm that "
                     f"{excluded} chained markers reach")
    if excluded == cap:
        status: Status = "unreachable" if first.status == "unreachable" else "undecided"
        return _unreached(root, target, status, "; ".join(notes), max_markers)
    found = chain_search(root, target, cap, rng, keep=keep, skip=excluded)
    if found is None:
        notes.append(f"{_span(excluded + 1, cap)}: no chain found by the search "
                     "(a search result, not a proof)")
        return _unreached(root, target, "undecided", "; ".join(notes), max_markers)
    markers, chain, last, poses = found
    if markers > excluded + 1:
        notes.append(f"{_span(excluded + 1, markers - 1)}: no chain found by the search "
                     "(not a proof: a shorter chain may exist)")
    notes.append(f"{markers} markers: chain found, each marker exactly checked in sequence")
    return _reachable(root, target, markers, chain, last, poses, "; ".join(notes), with_margin)


def _span(lo: int, hi: int) -> str:
    return f"{lo} markers" if lo == hi else f"{lo} to {hi} markers"


def _reachable(root: Placer, target: Target, markers: int, chain: list[Pose], last: Placer,
               poses: list[Pose], reason: str, with_margin: bool) -> ReachResult:
    if with_margin:
        witness, mgn = most_robust(last, target, poses)
    else:
        witness, mgn = poses[0], None
    full = chain + [witness]
    return ReachResult("reachable", witness, reason, markers, mgn, full, _expedition(root),
                       target.id, _player(root), [root.action_text(p) for p in full])


def _unreached(root: Placer, target: Target, status: Status, reason: str, markers: int
               ) -> ReachResult:
    return ReachResult(status, None, reason, markers, None, [], _expedition(root), target.id,
                       _player(root))


def _expedition(placer: Placer) -> str:
    return getattr(placer, "expedition", "")


def _player(placer: Placer) -> int:
    return getattr(placer, "player", 0)


def margin(state: Any, expedition: str, sector: str, pose: Pose, player: int | None = None
           ) -> Margin:
    """How far and how much a marker of `expedition` laid at `pose` may err and still be legal
    and touch `sector` (`ValueError` if `pose` itself is not)."""
    placer = StatePlacer.of(state, expedition, player)
    target = sector_target(state.table, sector)
    verdict = placer.check(pose)
    if not verdict.ok:
        raise ValueError(f"the marker at {pose} is illegal: {verdict}")
    if not lg.marker_polygon(pose, placer.step.sizes).intersects(target.polygon):
        raise ValueError(f"the marker at {pose} does not touch {sector}")
    return measure_margins(placer, target, [pose])[0]


def sectors_of(table: Table, name: str) -> list[str]:
    """The sector ids a user means by `name`: a sector id, or every sector of a pueblo id."""
    try:
        return [table.sector(name).id]
    except KeyError:
        pass
    try:
        return [s.id for s in table.pueblo(name).sectors]
    except KeyError:
        raise KeyError(f"no pueblo or sector {name!r} on this table") from None


# --------------------------------------------------------------------------------------------
# Reach maps
# --------------------------------------------------------------------------------------------
SWEEP_SAMPLES = 4096  # covering placements drawn per expedition end to find easy witnesses


def _sweep(placer: Placer, table: Table, rng: np.random.Generator
           ) -> dict[str, tuple[Array, Array, Array]]:
    """Legal covering placements from `placer`'s end drawn uniformly, grouped by the sectors
    they touch (the rules' batched touch test): sector id -> (theta, a, c)."""
    step = placer.step
    theta, a, c = uniform_placements(step, rng, SWEEP_SAMPLES)
    x, y, h = step.poses(theta, a, c)
    idx = np.flatnonzero(placer.legal_mask(x, y, h))
    hit = lg.touched_sectors_batch(table, x[idx], y[idx], h[idx])
    ids = lg.table_geometry(table).sector_ids
    return {ids[j]: (theta[idx[hit[:, j]]], a[idx[hit[:, j]]], c[idx[hit[:, j]]])
            for j in np.flatnonzero(hit.any(axis=0))}


def _expedition_map(root: Placer, table: Table, max_markers: int, rng: np.random.Generator
                    ) -> dict[str, ReachResult]:
    """`reach` of every sector from one expedition, sharing one sweep for the easy witnesses."""
    swept = _sweep(root, table, rng)
    out = {}
    for sector in table.sectors:
        target = sector_target(table, sector.id)
        first = None
        if sector.id in swept:
            found = verify(root, target, *swept[sector.id], masked=True)
            if found.poses:
                first = _OneMarker("reachable", found.poses, _found_words(found))
        out[sector.id] = reach_from(root, target, max_markers, rng, with_margin=False, first=first)
    return out


@dataclass
class ReachMap:
    """For every expedition (started or free) and every sector, the `ReachResult` of `player`."""

    player: int
    max_markers: int
    results: dict[str, dict[str, ReachResult]]
    ends: dict[str, tuple[float, float]] = field(default_factory=dict)

    def fewest(self, sector: str) -> tuple[int | None, list[str]]:
        """The fewest markers any expedition needs to touch `sector` (None: none found), and
        the expeditions that need that few."""
        found = {e: r[sector].markers for e, r in self.results.items() if r[sector].reachable}
        if not found:
            return None, []
        best = min(found.values())
        return best, sorted(e for e, k in found.items() if k == best)

    def unreached(self, sector: str) -> str | None:
        """Why no expedition reaches `sector`: "unreachable" when every one is proved not to,
        "undecided" when some search found nothing but proved nothing; None when one does."""
        results = [r[sector] for r in self.results.values()]
        if any(r.reachable for r in results):
            return None
        return "unreachable" if all(r.status == "unreachable" for r in results) else "undecided"

    def cell(self, expedition: str, sector: str) -> str:
        """One character: the markers needed, "-" proved unreachable, "?" undecided."""
        r = self.results[expedition][sector]
        return str(r.markers) if r.reachable else "-" if r.status == "unreachable" else "?"

    def to_json(self) -> dict[str, Any]:
        """The map as JSON: per expedition its end and per sector the verdict; per sector the
        fewest markers and by which expeditions."""
        sectors = list(next(iter(self.results.values()), {}))
        return {
            "player": self.player, "max_markers": self.max_markers,
            "expeditions": {e: {"end": list(self.ends.get(e, ())),
                                "sectors": {s: _cell_json(r) for s, r in res.items()}}
                            for e, res in self.results.items()},
            "sectors": {s: dict(zip(("fewest", "by"), self.fewest(s))) for s in sectors},
        }

    def to_text(self) -> str:
        """A table: one row per sector, one column per expedition (markers needed, "-" proved
        unreachable, "?" undecided), then the fewest."""
        exps = list(self.results)
        sectors = list(next(iter(self.results.values()), {}))
        lines = [f"reach map of player {self.player}, up to {self.max_markers} markers "
                 "(digit: markers needed; -: proved unreachable; ?: not found, undecided)",
                 "sector  " + " ".join(f"{e:>3s}" for e in exps) + "  fewest"]
        for s in sectors:
            k, by = self.fewest(s)
            lines.append(f"{s:7s} " + " ".join(f"{self.cell(e, s):>3s}" for e in exps)
                         + f"  {'' if k is None else f'{k} ({chr(44).join(by)})'}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The map for notebooks, as its text table."""
        from geomsim.notebook import pre_html

        return pre_html(self.to_text())

    def draw(self, state: Any, ax: Any = None) -> Any:
        """The table of `state` with each sector coloured by the fewest markers that reach it,
        the witnesses of one-marker reaches outlined, the expedition ends ringed."""
        return draw_reach_map(state, self, ax)


def _cell_json(r: ReachResult) -> dict[str, Any]:
    return {"status": r.status, "markers": r.markers if r.reachable else None,
            "actions": list(r.actions), "reason": r.reason}


def reach_map(state: Any, max_markers: int = 3, *, player: int | None = None, seed: int = 0,
              expeditions: Sequence[str] | None = None) -> ReachMap:
    """`reach` of every sector from every expedition (default: all expedition base camps, each
    from its end or start mark) for `player` (default: the player to move), without margins."""
    _check_cap(max_markers)
    rng = np.random.default_rng(seed)
    table = state.table
    ids = list(expeditions) if expeditions is not None else [c.id for c in table.expedition_camps]
    results, ends, who = {}, {}, 0
    for e in ids:
        root = StatePlacer.of(state, e, player)
        who = root.player
        ends[e] = root.step.end
        results[e] = _expedition_map(root, table, max_markers, rng)
    return ReachMap(who, max_markers, results, ends)


REACH_COLOURS = {1: "#1a9850", 2: "#a6d96a", 3: "#fdae61"}
FAR_COLOUR = "#d73027"
# Sectors no expedition reaches: apart from each other and from an ordinary (cream) pueblo.
UNREACHED_COLOURS = {"unreachable": "#616161", "undecided": "#9fa8da"}
UNREACHED_WORDS = {"unreachable": "proved unreachable", "undecided": "not found (undecided)"}


def draw_reach_map(state: Any, rmap: ReachMap, ax: Any = None) -> Any:
    """Draw `rmap` over the table of `state` (TABLE's `draw_table` plus overlays)."""
    from games.anasazi.draw import END_RING, draw_table
    from geomsim.plotting import draw_discs, draw_polygons, legend

    table, sizes = state.table, state.sizes
    if ax is None:
        from geomsim.plotting import new_axes

        ax = new_axes(11.0, 8.0, title=f"Anasazi reach map: player {rmap.player}, up to "
                                       f"{rmap.max_markers} markers")
    draw_table(state.setup, state.view(), ax=ax)
    colours = {k: REACH_COLOURS.get(k, FAR_COLOUR) for k in range(1, rmap.max_markers + 1)}
    by_count: dict[int | None, list[Any]] = {}
    for s in table.sectors:
        by_count.setdefault(rmap.fewest(s.id)[0], []).append(s.polygon)
    for k, polys in sorted(by_count.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
        if k is not None:
            draw_polygons(ax, polys, facecolor=colours[k], edgecolor="black", linewidth=1.0,
                          alpha=0.9, zorder=2.05)
    for why, colour in UNREACHED_COLOURS.items():
        draw_polygons(ax, [s.polygon for s in table.sectors if rmap.unreached(s.id) == why],
                      facecolor=colour, edgecolor="black", linewidth=1.0, zorder=2.05)
    witnesses = [r.chain[-1] for res in rmap.results.values() for r in res.values()
                 if r.reachable and r.markers == 1]
    if witnesses:
        draw_polygons(ax, [lg.marker_polygon(p, sizes) for p in witnesses], facecolor="none",
                      edgecolor=colours[1], linewidth=0.6, linestyle="--", zorder=5.5)
    if rmap.ends:
        xs, ys = zip(*rmap.ends.values())
        draw_discs(ax, xs, ys, sizes.explorer_radius * 2.2, facecolor="none",
                   edgecolor=END_RING, linewidth=1.6, zorder=6)
    entries = [(f"reached with {k} marker{'s' * (k > 1)}", {"facecolor": c, "edgecolor": "black"})
               for k, c in colours.items()]
    entries += [(UNREACHED_WORDS[why], {"facecolor": c, "edgecolor": "black"})
                for why, c in UNREACHED_COLOURS.items()]
    entries += [("one-marker witness", {"facecolor": "none", "edgecolor": colours[1],
                                        "linestyle": "--"}),
                ("expedition end", {"facecolor": "none", "edgecolor": END_RING})]
    legend(ax, entries, loc="lower right", fontsize=7)
    return ax


# --------------------------------------------------------------------------------------------
# Scenario hooks: expectations "reachable"/"unreachable" and the output "reach_map"
# --------------------------------------------------------------------------------------------
def _target_spec(kind: str) -> dict[str, Any]:
    return {"type": "object", "required": [kind, "from"], "additionalProperties": False,
            "properties": {kind: {"type": "string"}, "from": {"type": "string"},
                           "within": {"type": "integer", "minimum": 1, "maximum": 6},
                           "player": {"type": "integer", "minimum": 0}}}


def _scenario_reach(state: Any, spec: dict[str, Any], kind: str) -> list[ReachResult]:
    sectors = sectors_of(state.table, spec[kind])
    return [reach(state, spec["from"], s, int(spec.get("within", 3)), player=spec.get("player"),
                  with_margin=False) for s in sectors]


def _summary(results: list[ReachResult]) -> str:
    return "; ".join(f"{r.sector}: {r.status}" + (f" in {r.markers}" if r.reachable else "")
                     + (f" ({r.reason})" if not r.reachable else f" ({' | '.join(r.actions)})")
                     for r in results)


def expect_reachable(state: Any, spec: dict[str, Any]) -> tuple[bool, str]:
    """Scenario expectation ``reachable: P12, from: E2, within: 3``: some sector of the pueblo
    (or the sector) is reached by a chain found and exactly checked."""
    results = _scenario_reach(state, spec, "reachable")
    return any(r.reachable for r in results), _summary(results)


def expect_unreachable(state: Any, spec: dict[str, Any]) -> tuple[bool, str]:
    """Scenario expectation ``unreachable: P4, from: E2, within: 2``: every sector PROVED
    unreachable (an undecided search fails the expectation)."""
    results = _scenario_reach(state, spec, "unreachable")
    return all(r.status == "unreachable" for r in results), _summary(results)


def write_reach_map(state: Any, path: Any, spec: dict[str, Any]) -> None:
    """Scenario output ``reach_map: reach.png`` (optional ``max_markers``, ``player``): the
    picture, or the JSON table when the file name ends in .json."""
    from geomsim.files import write_text
    from geomsim.plotting import save

    rmap = reach_map(state, int(spec.get("max_markers", 3)), player=spec.get("player"))
    if str(path).lower().endswith(".json"):
        import json

        write_text(path, json.dumps(rmap.to_json(), indent=1) + "\n")
    else:
        save(rmap.draw(state), path)


expect_reachable.schema = _target_spec("reachable")  # type: ignore[attr-defined]
expect_unreachable.schema = _target_spec("unreachable")  # type: ignore[attr-defined]
write_reach_map.schema = {  # type: ignore[attr-defined]
    "type": "object", "required": ["reach_map"], "additionalProperties": False,
    "properties": {"reach_map": {"type": "string"}, "at": {"type": ["string", "integer"]},
                   "max_markers": {"type": "integer", "minimum": 1, "maximum": 6},
                   "player": {"type": "integer", "minimum": 0}}}

# What AnasaziGame.expectations() / outputs() may return for scenario files.
EXPECTATIONS = {"reachable": expect_reachable, "unreachable": expect_unreachable}
OUTPUTS = {"reach_map": write_reach_map}
