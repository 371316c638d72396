"""A random Anasazi table from a seed, and the setup rules every table must meet (section 3.0).

`random_table` draws irregular mesa outlines, places them as the rulebook says (the large mesa in
the centre, 12 mesas in a circle around it, 15 in a second circle), then relaxes them with pymunk
so that every two mesas keep a valley of at least `valley_gap` (room for a base camp). The six
expedition base camps sit evenly spaced outside the outer circle, at the play area's edge.
Pueblos are placed on their mesas, some along a cliff edge, some inside. `random_setup` then
deals towers, treasures and objective cards and draws the first player, all from the seed.

`check_table` judges any table (random or given) against the setup rules with shapely and names
the offending pieces; `validate_table` and `load_setup` raise a `ValueError` with those problems.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

import numpy as np
import pymunk
import shapely
from numpy.typing import NDArray

from geomsim.geometry import Array

from games.anasazi.legality import Recent

from games.anasazi.components import (
    BONUS_PER_COLOUR, COLOURS, DIVIDED_PUEBLOS, EXPEDITION_CAMPS, MAX_PLAYERS, MESA_COUNTS,
    MIN_PLAYERS, OBJECTIVES, PUEBLOS, RING_NAMES, TOWERS_PER_COLOUR, TREASURES_PER_COLOUR,
    DECIMALS, ExpeditionCamp, Mesa, Pueblo, Ring, Sector, Setup, Sizes, Table,
)

# Tolerance (mm) of the exact checks: JSON rounds coordinates to 1e-6.
TOLERANCE = 1e-6
# Expedition camps must lie "at roughly equal distances": at most this far (degrees) from even.
CAMP_SPACING_TOLERANCE = 15.0


@dataclass(frozen=True)
class LayoutOptions:
    """How random tables are drawn; every default is explained in docs/assumptions/anasazi.md."""

    centre_mesa_radius: float = 82.0  # mean radius; about 180 mm across with its wobble
    inner_mesa_radius: float = 40.0  # about 90 mm across
    outer_mesa_radius: float = 44.0  # about 100 mm across
    irregularity: float = 0.13  # amplitude of the outline's low-frequency wobble (share of radius)
    roughness: float = 0.025  # per-vertex jitter: ragged cliffs
    mesa_vertices: int = 30
    inner_ring_radius: float = 185.0  # starting circle of the 12 inner mesas (centres)
    outer_ring_radius: float = 290.0  # starting circle of the 15 outer mesas (centres)
    jitter: float = 12.0  # random shift of each starting position, mm
    slop: float = 1.0  # clearance (mm) the relaxation keeps beyond valley_gap
    max_steps: int = 600
    camp_margin: float = 1.0  # gap between an expedition camp and the play area's edge
    centre_pueblos: tuple[int, int] = (3, 5)  # pueblos on the centre mesa: lowest, highest
    max_ring_pueblos: int = 2  # pueblos on a ring mesa at most
    divided_pueblo: tuple[float, float] = (34.0, 22.0)  # length, width
    small_share: float = 0.42  # share of a divided pueblo's length in its small sector
    single_pueblo: tuple[float, float] = (26.0, 19.0)
    pueblo_size_jitter: float = 0.08  # each pueblo scaled by 1 +- this
    pueblo_margin: float = 2.0  # least distance from a pueblo to its mesa's edge
    pueblo_spacing: float = 6.0  # least distance between two pueblos
    edge_share: float = 0.5  # share of pueblos laid along a cliff edge
    attempts: int = 8  # tables drawn from the seed before giving up
    mesa_shapes: tuple[shapely.Polygon, ...] | None = None  # 28 given outlines, ring order

    def __post_init__(self) -> None:
        if self.mesa_shapes is not None:
            shapes = tuple(self.mesa_shapes)
            if len(shapes) != sum(MESA_COUNTS.values()):
                raise ValueError(f"mesa_shapes must hold {sum(MESA_COUNTS.values())} outlines "
                                 f"(centre, 12 inner, 15 outer), not {len(shapes)}")
            for i, s in enumerate(shapes):
                if not isinstance(s, shapely.Polygon) or not s.is_valid or s.area <= 0:
                    raise ValueError(f"mesa_shapes[{i}] must be a valid polygon")
            object.__setattr__(self, "mesa_shapes", shapes)
        lo, hi = self.centre_pueblos
        if not 1 <= lo <= hi:
            raise ValueError(f"centre_pueblos must be 1 <= lowest <= highest, not {self.centre_pueblos}")
        if not 0.2 <= self.small_share <= 0.5:
            raise ValueError(f"small_share must lie in [0.2, 0.5], not {self.small_share}")


# ---------------------------------------------------------------------------------------------
# Mesa outlines and the starting positions


def ring_of(index: int) -> Ring:
    """The ring of mesa number `index` (0 centre, 1-12 inner, 13-27 outer)."""
    if index < MESA_COUNTS["centre"]:
        return "centre"
    return "inner" if index < MESA_COUNTS["centre"] + MESA_COUNTS["inner"] else "outer"


def mesa_outline(rng: np.random.Generator, radius: float, options: LayoutOptions) -> np.ndarray:
    """Vertices (n, 2) of an irregular mesa centred near (0, 0): a wobbly, ragged disc."""
    outline: np.ndarray = mesa_outlines(rng, np.array([radius]), options)[0]
    return outline


def mesa_outlines(rng: np.random.Generator, radii: np.ndarray, options: LayoutOptions
                  ) -> np.ndarray:
    """Vertices (m, n, 2) of irregular mesas of the same vertex count centred near (0, 0), one
    per mean radius: wobbly, ragged discs."""
    m, n = len(radii), options.mesa_vertices * (2 if radii[0] > 60 else 1)
    theta = np.linspace(0.0, 2 * np.pi, n, endpoint=False) \
        + rng.uniform(-0.3, 0.3, (m, n)) * (2 * np.pi / n)
    r = np.ones((m, n))
    k = np.arange(2, 5)[:, None]  # low harmonics give lobes and bays; higher ones, gears
    amplitude = rng.uniform(0.3, 1.0, (m, 3)) * options.irregularity / (k.T - 1) ** 0.7
    phase = rng.uniform(0, 2 * np.pi, (m, 3))
    r += (amplitude[:, :, None] * np.cos(k[None] * theta[:, None, :] + phase[:, :, None])
          ).sum(axis=1)
    r += rng.normal(0.0, options.roughness, (m, n))
    r *= radii[:, None] / r.mean(axis=1, keepdims=True)
    return np.stack([r * np.cos(theta), r * np.sin(theta)], axis=-1)


def start_positions(rng: np.random.Generator, options: LayoutOptions) -> np.ndarray:
    """Centres (28, 2): the centre mesa, then the two rings, each turned by a random angle."""
    points = [np.zeros((1, 2))]
    for ring, radius in (("inner", options.inner_ring_radius),
                         ("outer", options.outer_ring_radius)):
        n = MESA_COUNTS[ring]
        a = rng.uniform(0, 2 * np.pi) + np.arange(n) * 2 * np.pi / n
        points.append(np.column_stack([radius * np.cos(a), radius * np.sin(a)]))
    pos = np.concatenate(points)
    pos[1:] += rng.uniform(-options.jitter, options.jitter, pos[1:].shape)
    return pos


def camp_squares(rng: np.random.Generator, sizes: Sizes, options: LayoutOptions
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Six expedition camp squares (6, 4, 2) evenly spaced at the play area's edge, one side
    facing the centre, and their centres (6, 2) where the start marks lie."""
    half = sizes.expedition_camp_size / 2
    # The two outer corners touch a circle camp_margin inside the play area's edge.
    reach = sizes.play_area_radius - options.camp_margin
    centre_r = math.sqrt(reach ** 2 - half ** 2) - half
    a = rng.uniform(0, 2 * np.pi) + np.arange(EXPEDITION_CAMPS) * 2 * np.pi / EXPEDITION_CAMPS
    c, s = np.cos(a), np.sin(a)
    centres = np.column_stack([centre_r * c, centre_r * s])
    local = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    corners = centres[:, None, :] + local[None, :, 0, None] * np.stack([c, s], -1)[:, None, :] \
        + local[None, :, 1, None] * np.stack([-s, c], -1)[:, None, :]
    return corners, centres


# ---------------------------------------------------------------------------------------------
# Relaxation with pymunk


def relax(outlines: Sequence[np.ndarray], centres: np.ndarray, camps: np.ndarray, sizes: Sizes,
          options: LayoutOptions) -> np.ndarray | None:
    """Push overlapping mesas apart until each two keep valley_gap (+ slop); the centre mesa,
    the expedition camps and the play area's edge stay put. Returns the new centres, or None
    if the tiles do not settle within max_steps.

    Each mesa is a convex pymunk polygon inflated by half the gap (pymunk collides the hull: a
    real outline lies inside it, so its gaps are only wider); moment=inf keeps the tiles from
    turning. Single-threaded pymunk is deterministic. No Python runs per contact: every
    `CALM_EVERY` steps `_Overlap.calm` measures the overlap of the inflated outlines with
    shapely.
    """
    space = pymunk.Space()
    space.damping = 0.05  # velocity kept after one second: tiles stop as soon as they part
    space.iterations = 20
    space.collision_bias = (1 - OVERLAP_FIXED_PER_STEP) ** 60  # overlap left after a second
    clearance = sizes.valley_gap / 2 + options.slop
    bodies = [pymunk.Body(body_type=pymunk.Body.STATIC)] \
        + [pymunk.Body(mass=1.0, moment=math.inf) for _ in outlines[1:]]
    for body, centre in zip(bodies, centres.tolist()):
        body.position = centre
    edge = sizes.play_area_radius
    overlap = _Overlap(outlines, camps, clearance, edge)
    space.add(*bodies,
              *(pymunk.Poly(body, outline.tolist(), radius=clearance)
                for body, outline in zip(bodies, outlines)),
              *(pymunk.Poly(space.static_body, square.tolist(), radius=clearance)
                for square in camps),
              *_walls(space, overlap.radii, centres, edge, clearance))

    dt, start = 1.0 / 60.0, np.asarray(centres, float)
    for step in range(1, options.max_steps + 1):
        space.step(dt)
        if step >= CALM_FROM and step % CALM_EVERY == 0:
            centres = np.array([b.position for b in bodies])
            if np.hypot(*(centres - start).T).max() > WALL_REACH:
                return None  # beyond the walls laid: this attempt fails
            # Settled when no inflated hull overlaps another by more than a fraction of the slop.
            if overlap.calm(centres, options.slop / 4):
                return centres
    return None


def _walls(space: pymunk.Space, radii: np.ndarray, centres: np.ndarray, edge: float,
           clearance: float) -> list[pymunk.Segment]:
    """The play area's edge as 96 static segments, only those a mesa (of farthest vertex
    `radii` from its centre) may come near (a mesa that travels farther than `WALL_REACH`
    fails the attempt): most tables keep far from the edge, and each segment costs pymunk
    about 10 µs to make."""
    wall, mid = _wall(edge)
    near = (np.hypot(*(mid[:, None] - centres[None]).transpose(2, 0, 1))
            < radii + clearance + WALL_REACH).any(axis=1)
    return [pymunk.Segment(space.static_body, wall[k], wall[k + 1], 0.0)
            for k in np.flatnonzero(near).tolist()]


@cache
def _wall(edge: float) -> tuple[list[tuple[float, float]], np.ndarray]:
    """The 97 points of the play area's edge (the first again last) and the segments' middles."""
    t = np.linspace(0, 2 * np.pi, 97)
    wall = np.column_stack([edge * np.cos(t), edge * np.sin(t)])
    mid = (wall[:-1] + wall[1:]) / 2
    mid.flags.writeable = False
    return [tuple(p) for p in wall.tolist()], mid


WALL_REACH = 40.0  # mm a mesa may travel while the tiles relax (at most 28 in 100 tables)

CALM_FROM, CALM_EVERY = 8, 4  # relaxation steps before the first measure of the overlap
# left, and between two (tables settle after 8 to 16 steps)
OVERLAP_FIXED_PER_STEP = 0.4  # pymunk's default, 0.1, took 44 to 100 steps to part the tiles


@cache
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair i < j of n items, as two index arrays (made once per n, read-only)."""
    pairs = np.triu_indices(n, k=1)
    for a in pairs:
        a.flags.writeable = False
    return pairs


class _Overlap:
    """How deep the mesas' outlines, inflated by the clearance, overlap each other, the camps
    and the edge. The outlines, not the convex tiles pymunk pushes: it is their valleys the
    setup rules measure, and they part before their hulls do."""

    def __init__(self, outlines: Sequence[np.ndarray], camps: np.ndarray, clearance: float,
                 edge: float):
        lengths = np.array([len(o) for o in outlines])
        self.every = np.concatenate(outlines)
        self.index = np.repeat(np.arange(len(outlines)), lengths)
        # each outline's farthest vertex from its centre
        self.radii = np.maximum.reduceat(np.hypot(*self.every.T),
                                         np.concatenate([[0], np.cumsum(lengths)[:-1]]))
        self.camps = cast(NDArray[np.object_], shapely.polygons(camps))
        self.camp_centres = camps.mean(axis=1)
        self.camp_radius = float(np.hypot(*(camps[0] - self.camp_centres[0]).T).max())
        self.clearance, self.edge = clearance, edge
        self.i, self.j = _pairs(len(outlines))

    def calm(self, centres: np.ndarray, depth: float) -> bool:
        """True when no inflated outline placed at `centres` overlaps another, a camp or the
        edge by more than `depth` (mm)."""
        within = 2 * self.clearance - depth
        far = np.hypot(*centres.T) + self.radii + self.clearance - depth
        shifted = self.every + centres[self.index]
        if far.max() > self.edge and np.hypot(*shifted.T).max() + self.clearance - depth > self.edge:
            return False
        placed = cast(NDArray[np.object_],
                      shapely.polygons(shapely.linearrings(shifted, indices=self.index)))
        near = np.hypot(*(centres[self.i] - centres[self.j]).T) \
            < self.radii[self.i] + self.radii[self.j] + within
        if shapely.dwithin(placed[self.i[near]], placed[self.j[near]], within).any():
            return False
        mi, ci = np.nonzero(np.hypot(*(centres[:, None] - self.camp_centres[None]).transpose(2, 0, 1))
                            < self.radii[:, None] + self.camp_radius + within)
        return not shapely.dwithin(placed[mi], self.camps[ci], within).any()


# ---------------------------------------------------------------------------------------------
# Pueblos


def pueblo_counts(rng: np.random.Generator, options: LayoutOptions) -> list[int]:
    """How many pueblos each of the 28 mesas holds: every mesa one at least, 44 in all."""
    n = sum(MESA_COUNTS.values())
    counts = [1] * n
    counts[0] = int(rng.integers(options.centre_pueblos[0], options.centre_pueblos[1] + 1))
    extra = PUEBLOS - sum(counts)
    if extra < 0 or extra > (n - 1) * (options.max_ring_pueblos - 1):
        raise ValueError(f"cannot spread {PUEBLOS} pueblos with centre_pueblos="
                         f"{options.centre_pueblos} and max_ring_pueblos={options.max_ring_pueblos}")
    # Extra pueblos go to ring mesas one at a time, never past max_ring_pueblos.
    for _ in range(extra):
        room = [i for i in range(1, n) if counts[i] < options.max_ring_pueblos]
        counts[room[int(rng.integers(len(room)))]] += 1  # the number rng.choice(room) draws
    return counts


def pueblo_outline(length: float, width: float) -> np.ndarray:
    """A pueblo's outline in its own frame (long axis along x), counter-clockwise: an octagon,
    a block with cut corners."""
    outline: np.ndarray = pueblo_outlines(np.array([length]), np.array([width]))[0]
    return outline


def pueblo_outlines(length: np.ndarray, width: np.ndarray) -> np.ndarray:
    """`pueblo_outline` of many pueblos at once: (n, 8, 2)."""
    hl, hw, cut = length / 2, width / 2, 0.22 * width
    x = np.stack([-hl + cut, hl - cut, hl, hl, hl - cut, -hl + cut, -hl, -hl], axis=-1)
    y = np.stack([-hw, -hw, -hw + cut, hw - cut, hw, hw, hw - cut, -hw + cut], axis=-1)
    return np.stack([x, y], axis=-1)


def pueblo_shape(length: float, width: float, divided: bool, small_share: float
                 ) -> list[np.ndarray]:
    """Sector outlines in the pueblo's own frame, counter-clockwise: its outline whole, or cut
    across into a small and a large sector."""
    return pueblo_shapes(np.array([length]), np.array([width]), np.array([divided]),
                         small_share)[1][0]


def pueblo_shapes(length: np.ndarray, width: np.ndarray, divided: np.ndarray,
                  small_share: float) -> tuple[np.ndarray, list[list[np.ndarray]]]:
    """`pueblo_outline` and `pueblo_shape` of many pueblos at once: their outlines (n, 8, 2)
    and the sectors of each."""
    octagons = pueblo_outlines(length, width)
    sectors: list[list[np.ndarray]] = [[octagon] for octagon in octagons]
    hl, hw, cut = length / 2, width / 2, 0.22 * width
    split = -hl + small_share * length
    straight = divided & (-hl + cut <= split) & (split <= hl - cut)  # the cut runs between
    at = np.flatnonzero(straight)  # the straight long sides
    for k, small, large in zip(at.tolist(), *_cut_straight(octagons[at], split[at], hw[at])):
        sectors[k] = [small, large]
    for k in np.flatnonzero(divided & ~straight).tolist():
        whole = shapely.Polygon(octagons[k])
        parts = [shapely.clip_by_rect(whole, -hl[k], -hw[k], split[k], hw[k]),
                 shapely.clip_by_rect(whole, split[k], -hw[k], hl[k], hw[k])]
        # A convex octagon clipped by a rectangle is one polygon.
        sectors[k] = [np.asarray(cast(shapely.Polygon, shapely.orient_polygons(p)).exterior.coords
                                 )[:-1] for p in parts]
    return octagons, sectors


def _cut_straight(octagons: np.ndarray, split: np.ndarray, hw: np.ndarray) -> np.ndarray:
    """Octagons (n, 8, 2) cut across at x = `split` between their straight long sides (half
    width `hw`): (2, n, 6, 2), the small sector, then the large one."""
    low, high = np.stack([split, -hw], axis=-1), np.stack([split, hw], axis=-1)
    small = np.stack([octagons[:, 0], low, high, octagons[:, 5], octagons[:, 6], octagons[:, 7]], 1)
    large = np.stack([low, *octagons[:, 1:5].transpose(1, 0, 2), high], 1)
    return np.stack([small, large])


def posed(corners: np.ndarray, x: np.ndarray, y: np.ndarray, heading: np.ndarray) -> np.ndarray:
    """`corners` (n, 2) of a shape in its own frame placed at poses (arrays of any shape s):
    (*s, n, 2); or several shapes at once, `corners` (*s, n, 2)."""
    z = (corners[..., 0] + 1j * corners[..., 1]) * np.exp(1j * heading)[..., None] \
        + (x + 1j * y)[..., None]
    return np.stack([z.real, z.imag], axis=-1)


def polygons_of(rings: Sequence[np.ndarray]) -> np.ndarray:
    """Polygons from vertex arrays of any lengths, rounded to `DECIMALS` (what JSON keeps), in
    one shapely call."""
    lengths = [len(r) for r in rings]
    coords = np.concatenate(rings).round(DECIMALS)
    return cast(NDArray[np.object_], shapely.polygons(shapely.linearrings(coords, indices=np.repeat(
        np.arange(len(rings)), lengths))))


POSE_BATCH = 4  # candidate poses of one pueblo built and tested in a round, at least
ROUND_POSES = 128  # candidate poses built in a round, at least: the few pueblos left get more
POSE_BATCHES = 6  # rounds a pueblo fails (half along the edge, half inside) before its mesa
# starts afresh
LAYOUTS = 4  # times a crowded mesa's pueblos are laid out afresh before the attempt fails


class _Rooms:
    """Where pueblos may stand on each mesa, buffered once per mesa: `room` keeps
    `pueblo_margin` from the cliff (counter-clockwise, prepared), `core` where inner pueblos
    are sought (the room shrunk about its centre by about the mesa's widest pueblo); the edge
    of each room is kept as segments with their arc length, to walk along it in numpy."""

    def __init__(self, mesas: np.ndarray, half_widths: np.ndarray, options: LayoutOptions):
        self.room = shapely.orient_polygons(shapely.buffer(mesas, -options.pueblo_margin,
                                                           quad_segs=2))
        self.radius = np.sqrt(shapely.area(self.room) / math.pi)  # of the round room as large
        self.core = _shrunk(self.room, self.radius, half_widths + 3.0)
        shapely.prepare(self.room)
        shapely.prepare(self.core)
        self.core_bounds = shapely.bounds(self.core)
        coords, ring = shapely.get_coordinates(shapely.get_exterior_ring(self.room),
                                               return_index=True)
        same = ring[1:] == ring[:-1]
        self.a: Array = coords[:-1][same]
        self.b: Array = coords[1:][same]
        self.seg_length: Array = np.hypot(*(self.b - self.a).T)
        self.end: Array = np.cumsum(self.seg_length)  # arc length at each segment's end, all rings
        # weighted, so float lengths (numpy's stubs give bincount ints only)
        self.length = cast(Array, np.bincount(ring[:-1][same], self.seg_length,
                                              minlength=len(mesas)))
        self.start: Array = self.end[np.searchsorted(ring[:-1][same], np.arange(len(mesas)))] \
            - self.seg_length[np.searchsorted(ring[:-1][same], np.arange(len(mesas)))]

    def along_edge(self, mesa: NDArray[np.intp], t: Array) -> Array:
        """Points (..., 2) at arc length `t` (any, it wraps) along the edges of `mesa` (...)."""
        s = self.start[mesa] + np.mod(t, self.length[mesa])
        k = np.minimum(np.searchsorted(self.end, s, side="right"), len(self.end) - 1)
        share = (s - self.end[k] + self.seg_length[k]) / self.seg_length[k]
        return self.a[k] + share[..., None] * (self.b[k] - self.a[k])


def _shrunk(rooms: np.ndarray, radius: np.ndarray, by: np.ndarray) -> np.ndarray:
    """Each room scaled about its centroid so that a round room of `radius` would lose `by`
    all round: where inner pueblos are sought (a wobbly room loses about as much; candidates
    are judged exactly all the same)."""
    xy, index = shapely.get_coordinates(shapely.get_exterior_ring(rooms), return_index=True)
    centre = shapely.get_coordinates(shapely.centroid(rooms))
    scale = np.clip((radius - by) / radius, 0.0, 1.0)[index, None]
    shrunk = centre[index] + (xy - centre[index]) * np.maximum(scale, 1e-3)
    return cast(NDArray[np.object_], shapely.polygons(shapely.linearrings(shrunk, indices=index)))


def place_pueblos(rng: np.random.Generator, mesas: np.ndarray, outlines: Sequence[np.ndarray],
                  options: LayoutOptions) -> list[list[tuple[float, float, float]]] | None:
    """Poses (x, y, heading in radians) for the pueblos of every mesa (`outlines[m]`: their
    outlines in their own frames), each wholly on its mesa, `pueblo_margin` from the cliff and
    `pueblo_spacing` from the others: its long side along the cliff or anywhere inside, at
    random. None if a mesa's pueblos do not fit after a few tries.

    Every pueblo still to place is served at once: a round builds a batch of candidate poses
    for each and tests them all in one shapely call; then each mesa takes,
    pueblo by pueblo, the first candidate far enough from those it holds (one call a step for
    all mesas), until one finds none. A pueblo is convex: its outline stands for its sectors.
    """
    n = len(mesas)
    half_widths = np.array([np.abs(on[..., 1]).max() for on in outlines])
    rooms = _Rooms(mesas, half_widths, options)
    counts = [len(on) for on in outlines]
    poses: list[list[tuple[float, float, float]]] = [[] for _ in range(n)]
    laid: list[list[shapely.Polygon]] = [[] for _ in range(n)]
    along_edge = [rng.random(c) < options.edge_share for c in counts]
    stuck, layouts = np.zeros(n, int), np.zeros(n, int)
    while rows := [(m, i) for m in range(n) for i in range(len(poses[m]), counts[m])]:
        mesa = np.array([m for m, _ in rows])
        shape = np.array([outlines[m][i] for m, i in rows])  # (rows, 8, 2)
        modes = np.array([along_edge[m][i] for m, i in rows])
        x, y, h = _candidates(rng, rooms, mesa, modes, np.abs(shape).max(axis=1),
                              max(POSE_BATCH, ROUND_POSES // len(rows)))
        pose = np.stack([x, y, h], axis=-1)
        wholes = cast(NDArray[np.object_],
                      shapely.polygons(posed(shape[:, None], x, y, h)))  # (rows, poses)
        ok = shapely.contains(rooms.room[mesa][:, None], wholes)
        going: dict[int, list[int]] = {}
        for r, (m, _) in enumerate(rows):
            going.setdefault(m, []).append(r)
        while going:
            step = {m: mine.pop(0) for m, mine in going.items()}
            _drop_near_laid(ok, wholes, step, laid, options.pueblo_spacing)
            for m, row in step.items():
                hit = np.flatnonzero(ok[row])
                if len(hit):
                    poses[m].append(tuple(pose[row, hit[0]].tolist()))
                    laid[m].append(wholes[row, hit[0]])
                    stuck[m] = 0
                    continue
                del going[m]  # this pueblo waits for the next round, and those after it
                stuck[m] += 1
                if stuck[m] == POSE_BATCHES // 2:  # this mode does not fit here: try the other
                    along_edge[m][len(poses[m])] ^= True
                elif stuck[m] == POSE_BATCHES:  # a crowded mesa: lay its pueblos out afresh
                    layouts[m] += 1
                    if layouts[m] == LAYOUTS:
                        return None
                    poses[m], laid[m], stuck[m] = [], [], 0
            going = {m: mine for m, mine in going.items() if mine}
    return poses


def _drop_near_laid(ok: np.ndarray, wholes: np.ndarray, step: Mapping[int, int],
                    laid: Sequence[Sequence[shapely.Polygon]], spacing: float) -> None:
    """Clear `ok[row]` where a candidate of `row` (one row per mesa in `step`) lies within
    `spacing` of a pueblo its mesa holds: one shapely call for all mesas."""
    pairs = [(row, other) for m, row in step.items() if ok[row].any() for other in laid[m]]
    if pairs:
        rows = np.array([r for r, _ in pairs])
        close = shapely.dwithin(np.array([o for _, o in pairs], dtype=object)[:, None],
                                wholes[rows], spacing)
        np.logical_and.at(ok, rows, ~close)


def _candidates(rng: np.random.Generator, rooms: _Rooms, mesa: np.ndarray,
                along_edge: np.ndarray, half: np.ndarray, k: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`k` candidate poses (a, k) for a pueblo of half length and width `half` (a, 2) on each
    `mesa`: along the edge (its long side parallel to the cliff, as far inside the room as
    half its width and the room's bend under its length) or anywhere in the core. Candidates
    that cannot fit are put far outside."""
    a = len(mesa)
    x, y, h = np.full((a, k), 1e9), np.zeros((a, k)), np.zeros((a, k))
    edge, inner = np.flatnonzero(along_edge), np.flatnonzero(~along_edge)
    if len(edge):
        on = mesa[edge][:, None]
        t = rng.uniform(0, 1, (len(edge), k)) * rooms.length[on]
        # the cliff's direction over 6 mm: one vertex's jitter does not turn the pueblo
        p, q, mid = rooms.along_edge(on, t + np.array([-3.0, 3.0, 0.0])[:, None, None])
        heading = np.arctan2(q[..., 1] - p[..., 1], q[..., 0] - p[..., 0])
        radius = rooms.radius[mesa[edge]]
        bend = radius - np.sqrt(np.maximum(radius ** 2 - half[edge, 0] ** 2, 0.0))
        inward = (half[edge, 1] + bend + 0.5)[:, None]
        x[edge] = mid[..., 0] - np.sin(heading) * inward
        y[edge] = mid[..., 1] + np.cos(heading) * inward
        h[edge] = heading
    if len(inner):
        x0, y0, x1, y1 = rooms.core_bounds[mesa[inner]].T[:, :, None]
        px = x0 + rng.uniform(0, 1, (len(inner), k)) * (x1 - x0)
        py = y0 + rng.uniform(0, 1, (len(inner), k)) * (y1 - y0)
        deep = shapely.contains_xy(rooms.core[mesa[inner]][:, None], px, py)
        x[inner] = np.where(deep, px, 1e9)
        y[inner] = py
        h[inner] = rng.uniform(0, 2 * math.pi, (len(inner), k))
    return x, y, h


def make_pueblos(rng: np.random.Generator, mesas: Sequence[Mesa], options: LayoutOptions
                 ) -> list[Pueblo] | None:
    """44 pueblos (16 of them divided, chosen at random) spread over the mesas."""
    counts = pueblo_counts(rng, options)
    divided = np.zeros(PUEBLOS, bool)
    divided[rng.choice(PUEBLOS, DIVIDED_PUEBLOS, replace=False)] = True
    jitter = options.pueblo_size_jitter
    scale = 1 + rng.uniform(-jitter, jitter, PUEBLOS)  # the numbers of one draw a pueblo
    size = np.where(divided[:, None], options.divided_pueblo, options.single_pueblo)
    octagons, sectors = pueblo_shapes(size[:, 0] * scale, size[:, 1] * scale, divided,
                                      options.small_share)
    ends = np.cumsum(counts).tolist()
    outlines = [octagons[end - count:end] for count, end in zip(counts, ends)]
    shapes = [sectors[end - count:end] for count, end in zip(counts, ends)]
    poses = place_pueblos(rng, np.array([m.polygon for m in mesas]), outlines, options)
    if poses is None:
        return None
    parts = [part for on in shapes for pueblo in on for part in pueblo]
    at = np.array([pose for on, at in zip(shapes, poses) for pueblo, pose in zip(on, at)
                   for _ in pueblo])
    lengths = [len(part) for part in parts]
    every = np.repeat(at, lengths, axis=0)
    corners = posed(np.concatenate(parts)[:, None], every[:, 0], every[:, 1], every[:, 2])[:, 0]
    polys = iter(polygons_of(np.split(corners, np.cumsum(lengths)[:-1])))
    pueblos: list[Pueblo] = []
    for mesa, on in zip(mesas, shapes):
        for parts in on:
            pid = f"P{len(pueblos)}"
            if len(parts) == 1:
                spaces: tuple[Sector, ...] = (Sector(pid, pid, "single", next(polys)),)
            else:
                spaces = (Sector(pid + "s", pid, "small", next(polys)),
                          Sector(pid + "l", pid, "large", next(polys)))
            pueblos.append(Pueblo(pid, mesa.id, spaces))
    return pueblos


# ---------------------------------------------------------------------------------------------
# Tables and setups


def random_table(seed: int, sizes: Sizes = Sizes(), options: LayoutOptions = LayoutOptions()
                 ) -> Table:
    """A random table that meets every setup rule, the same for the same seed on every run."""
    seed = _check_seed(seed)
    problems: list[str] = []
    for attempt in range(options.attempts):
        rng = np.random.default_rng([seed, 0, attempt])
        table = _try_table(rng, sizes, options)
        if table is None:
            continue
        problems = check_table(table)
        if not problems:
            return table
    raise ValueError(f"no table for seed {seed} after {options.attempts} attempts"
                     + (f": {problems[0]}" if problems else ""))


def _try_table(rng: np.random.Generator, sizes: Sizes, options: LayoutOptions) -> Table | None:
    """One attempt at a table: outlines, camps, relaxation, pueblos. None if a step fails."""
    radii = [options.centre_mesa_radius] + [options.inner_mesa_radius] * MESA_COUNTS["inner"] \
        + [options.outer_mesa_radius] * MESA_COUNTS["outer"]
    if options.mesa_shapes is not None:
        outlines = [_centred(s) for s in options.mesa_shapes]
    else:
        # the centre mesa has twice the vertices of the ring mesas
        outlines = [*mesa_outlines(rng, np.array(radii[:1]), options),
                    *mesa_outlines(rng, np.array(radii[1:]), options)]
    camps, starts = camp_squares(rng, sizes, options)
    centres = relax(outlines, start_positions(rng, options), camps, sizes, options)
    if centres is None:
        return None
    mesas = tuple(Mesa(f"M{i}", ring_of(i), poly) for i, poly in
                  enumerate(polygons_of([o + c for o, c in zip(outlines, centres)])))
    pueblos = make_pueblos(rng, mesas, options)
    if pueblos is None:
        return None
    expedition = tuple(
        ExpeditionCamp(f"E{k + 1}", poly, (round(float(st[0]), DECIMALS),
                                           round(float(st[1]), DECIMALS)))
        for k, (poly, st) in enumerate(zip(polygons_of(list(camps)), starts)))
    return Table(mesas, tuple(pueblos), expedition, sizes)


def _centred(shape: shapely.Polygon) -> np.ndarray:
    """A given outline's vertices around its centroid."""
    c = shape.centroid
    return np.asarray(shape.exterior.coords)[:-1] - (c.x, c.y)


def random_setup(players: int, seed: int, sizes: Sizes = Sizes(),
                 options: LayoutOptions = LayoutOptions(), table: Table | None = None) -> Setup:
    """A complete setup from a seed: a random table (or the given one), towers shuffled onto the
    small sectors, treasures onto the large and single ones, an objective card per player and a
    first player. The table does not depend on the number of players."""
    seed = _check_seed(seed)
    if isinstance(players, bool) or not isinstance(players, int) \
            or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {players!r}")
    if table is None:
        table = random_table(seed, sizes, options)
    else:
        validate_table(table)
    rng = np.random.default_rng([seed, 1])
    towers = rng.permutation(np.repeat(COLOURS, TOWERS_PER_COLOUR)).tolist()
    treasures = rng.permutation(
        np.repeat(COLOURS, TREASURES_PER_COLOUR - BONUS_PER_COLOUR)).tolist()
    objectives = rng.permutation(OBJECTIVES).tolist()
    return Setup(
        table=table,
        players=players,
        towers=dict(zip([s.id for s in table.small_sectors], towers)),
        treasures=dict(zip([s.id for s in table.treasure_sectors], treasures)),
        objectives=tuple(objectives[:players]),
        first_player=int(rng.integers(players)),
        seed=seed,
    )


def make_setup(players: int, seed: int) -> dict[str, Any]:
    """The JSON dict of a random setup (what `Game.make_setup` returns)."""
    return random_setup(players, seed).to_json()


def load_setup(data: Mapping[str, Any] | Setup, check_setup: bool = True) -> Setup:
    """A setup from its JSON dict or a `Setup`, checked against every setup rule (ValueError
    names pieces) unless `check_setup` is False: only for laboratory tables that break the
    setup rules on purpose (the component counts of the deal are checked all the same)."""
    setup = data if isinstance(data, Setup) else Setup.from_json(data)
    if check_setup:
        # A table is immutable: one that passed is not judged again (about 11 ms a table).
        _VALID_TABLES.of_table(setup.table, lambda: _valid(setup.table))
    return setup


# The tables that last passed `validate_table`.
_VALID_TABLES: Recent[int, tuple[Table, bool]] = Recent(64)


def _valid(table: Table) -> bool:
    """True, or the ValueError of `validate_table`."""
    validate_table(table)
    return True


def _check_seed(seed: Any) -> int:
    """The seed as an int, or a ValueError: seeds are whole numbers >= 0."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, not {seed!r}")
    return int(seed)


# ---------------------------------------------------------------------------------------------
# The setup rules, checked exactly with shapely


def validate_table(table: Table) -> None:
    """Raise ValueError listing every setup rule the table breaks, naming the pieces."""
    problems = check_table(table)
    if problems:
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise ValueError("table breaks the setup rules: " + "; ".join(problems[:5]) + more)


def check_table(table: Table) -> list[str]:
    """Every way the table breaks a setup rule (section 2.0 counts, section 3.0 placement),
    each naming the pieces; empty when the table is legal."""
    problems = _check_counts(table)
    problems += _check_mesas(table)
    problems += _check_pueblos(table)
    problems += _check_camps(table)
    return problems


def _check_counts(table: Table) -> list[str]:
    problems = []
    for ring in RING_NAMES:
        n = sum(1 for m in table.mesas if m.ring == ring)
        if n != MESA_COUNTS[ring]:
            problems.append(f"{n} {ring} mesas, the game has {MESA_COUNTS[ring]}")
    divided = sum(1 for p in table.pueblos if p.divided)
    if len(table.pueblos) != PUEBLOS or divided != DIVIDED_PUEBLOS:
        problems.append(f"{len(table.pueblos)} pueblos ({divided} divided), the game has "
                        f"{PUEBLOS} ({DIVIDED_PUEBLOS} divided)")
    for p in table.pueblos:
        try:
            p.validate_names()
        except ValueError as e:
            problems.append(str(e))
    held = {p.mesa for p in table.pueblos}
    bare = [m.id for m in table.mesas if m.id not in held]
    if bare:
        problems.append(f"mesa(s) {', '.join(bare)} hold no pueblo (every mesa has one)")
    if len(table.expedition_camps) != EXPEDITION_CAMPS:
        problems.append(f"{len(table.expedition_camps)} expedition base camps, the game has "
                        f"{EXPEDITION_CAMPS}")
    return problems


def _outside_play_areas(geoms: np.ndarray, radius: float) -> np.ndarray:
    """By how much (mm) the farthest vertex of each geometry lies beyond the play area's edge
    (<= 0 inside)."""
    xy, index = shapely.get_coordinates(geoms, return_index=True)
    far = np.full(len(geoms), -np.inf)
    np.maximum.at(far, index, np.hypot(xy[:, 0], xy[:, 1]))
    return far - radius


def _pairs_closer(geoms: Sequence[shapely.Geometry], limit: float) -> list[tuple[int, int, float]]:
    """Index pairs (i < j, in order) of geometries closer than `limit`, with their distance."""
    shapes = np.asarray(geoms, dtype=object)
    left, right = _boxes_within(shapes, shapes, limit)
    keep = left < right
    order = np.lexsort((right[keep], left[keep]))
    left, right = left[keep][order], right[keep][order]
    dist = cast(Array, shapely.distance(shapes[left], shapes[right]))
    return [(int(i), int(j), float(d)) for i, j, d in zip(left, right, dist)
            if d < limit]


def _boxes_within(a: np.ndarray, b: np.ndarray, limit: float) -> NDArray[np.intp]:
    """Index pairs (i, j), an array (2, pairs), of `a[i]` and `b[j]` whose bounding boxes are
    within `limit`: every pair of geometries that is (shapely's `dwithin` query computes each
    pair's distance, a hundred times slower than the boxes)."""
    grow = np.array([-1.0, -1.0, 1.0, 1.0]) * (limit / 2)
    boxes_a, boxes_b = (cast(NDArray[np.object_], shapely.box(*(shapely.bounds(g) + grow).T))
                        for g in (a, b))
    return shapely.STRtree(boxes_b).query(boxes_a)


def _check_mesas(table: Table) -> list[str]:
    sizes, problems = table.sizes, []
    polys = [m.polygon for m in table.mesas]
    for i, j, d in _pairs_closer(polys, sizes.valley_gap - TOLERANCE):
        problems.append(f"mesas {table.mesas[i].id} and {table.mesas[j].id} are {d:.2f} mm "
                        f"apart: a base camp needs a valley of {sizes.valley_gap:g} mm")
    over = _outside_play_areas(np.array(polys, dtype=object), sizes.play_area_radius)
    for m, by in zip(table.mesas, over):
        if by > TOLERANCE:
            problems.append(f"mesa {m.id} hangs {by:.2f} mm over the play area's edge")
    return problems


def _check_pueblos(table: Table) -> list[str]:
    sizes, problems = table.sizes, []
    sectors = table.sectors
    polys = np.array([s.polygon for s in sectors], dtype=object)
    mesas = np.array([table.mesa(p.mesa).polygon for p in table.pueblos for _ in p.sectors],
                     dtype=object)  # in the order of `table.sectors`, pueblo by pueblo
    # Wholly on its mesa: nothing of the sector lies outside (within rounding).
    outside = np.zeros(len(sectors))
    off = ~shapely.covers(mesas, polys)
    outside[off] = shapely.area(shapely.difference(polys[off], mesas[off]))
    # Reachable: a marker pointed straight at the sector from the centre side touches it and
    # stays inside the play area.
    near = shapely.distance(shapely.Point(0, 0), polys)
    reach = np.hypot(near, sizes.marker_width / 2) - sizes.play_area_radius
    # Room for its piece: a disc as wide as a tower, or as a treasure cube's side, fits inside.
    need = np.array([sizes.tower_radius if s.kind == "small" else sizes.treasure_size / 2
                     for s in sectors])
    room = ~_holds_disc(polys, need - 0.05)
    for k, s in enumerate(sectors):
        if outside[k] > TOLERANCE:
            problems.append(f"sector {s.id} is not wholly on its mesa {table.pueblo_of(s.id).mesa}"
                            f" ({outside[k]:.1f} mm² off it)")
        if reach[k] > TOLERANCE:
            problems.append(f"sector {s.id} cannot be reached inside the play area")
        if room[k]:
            piece = "tower" if s.kind == "small" else "treasure"
            problems.append(f"sector {s.id} is too small to hold its {piece}")
    # Overlaps, sector by sector: two sectors of one pueblo, or of two pueblos.
    pueblo = np.array([s.pueblo for s in sectors])
    left, right = shapely.STRtree(polys).query(polys)  # the pairs whose boxes meet
    keep = left < right
    left, right = left[keep], right[keep]
    inside = shapely.relate_pattern(polys[left], polys[right], "T********")  # interiors meet
    left, right = left[inside], right[inside]
    area = shapely.area(shapely.intersection(polys[left], polys[right]))
    pairs: dict[tuple[str, str], float] = {}
    for i, j, a in zip(left, right, area):
        key = (pueblo[i], pueblo[j])
        pairs[key] = pairs.get(key, 0.0) + float(a)
    for (a, b), overlap in pairs.items():
        if overlap > TOLERANCE:
            problems.append(f"the sectors of pueblo {a} overlap" if a == b
                            else f"pueblos {a} and {b} overlap")
    return problems


def _holds_disc(polys: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """Whether a disc of `radius` fits inside each polygon: around its centroid (a point test,
    enough for the sectors of every random table), else anywhere (an inward buffer)."""
    centres = shapely.centroid(polys)
    holds = shapely.contains(polys, centres) \
        & (shapely.distance(shapely.boundary(polys), centres) >= radius)
    rest = ~holds
    holds[rest] = ~shapely.is_empty(shapely.buffer(polys[rest], -radius[rest], quad_segs=2))
    return holds


def _check_camps(table: Table) -> list[str]:
    sizes, problems = table.sizes, list[str]()
    camps = table.expedition_camps
    if not camps:
        return problems
    tiles = np.array([e.polygon for e in camps], dtype=object)
    mesas = np.array([m.polygon for m in table.mesas], dtype=object)
    outer = shapely.centroid(np.array([m.polygon for m in table.mesas if m.ring == "outer"],
                                      dtype=object))
    ring_radius = float(np.hypot(*shapely.get_coordinates(outer).T).max(initial=0.0))
    over = _outside_play_areas(tiles, sizes.play_area_radius)
    gaps = _camp_gaps(tiles, mesas, sizes.marker_length)
    centres = shapely.get_coordinates(shapely.centroid(tiles))
    starts = shapely.points(np.array([e.start for e in camps]))
    on_tile = shapely.contains(tiles, starts) & (
        shapely.distance(shapely.get_exterior_ring(tiles), starts)
        >= sizes.start_mark_radius - TOLERANCE)
    for k, e in enumerate(camps):
        if over[k] > TOLERANCE:
            problems.append(f"expedition camp {e.id} hangs {over[k]:.2f} mm over the play area's "
                            "edge")
        if gaps[k].min() >= sizes.marker_length:
            problems.append(f"expedition camp {e.id} is {gaps[k].min():.2f} mm from the nearest "
                            f"mesa: it must be nearer than one marker ({sizes.marker_length:g} mm)")
        for m in np.flatnonzero(gaps[k] <= 0):
            problems.append(f"expedition camp {e.id} lies on mesa {table.mesas[m].id}")
        if math.hypot(*centres[k]) <= ring_radius:
            problems.append(f"expedition camp {e.id} is not outside the outer circle of mesas")
        if not on_tile[k]:
            problems.append(f"expedition camp {e.id}: its start mark is not wholly on the tile")
    for i, j, _ in _pairs_closer(list(tiles), 0.0):
        problems.append(f"expedition camps {camps[i].id} and {camps[j].id} overlap")
    problems += _check_camp_spacing(camps)
    return problems


def _camp_gaps(tiles: np.ndarray, mesas: np.ndarray, limit: float) -> np.ndarray:
    """Distances (camps, mesas) from each camp tile to each mesa, exact below `limit` (and
    for a camp with no mesa that near), `inf` beyond it."""
    gaps = np.full((len(tiles), max(len(mesas), 1)), math.inf)
    if not len(mesas):
        return gaps
    camp, mesa = _boxes_within(tiles, mesas, limit)
    dist = shapely.distance(tiles[camp], mesas[mesa])
    gaps[camp, mesa] = np.where(dist <= limit, dist, math.inf)
    far = np.flatnonzero(np.isinf(gaps).all(axis=1))
    gaps[far] = shapely.distance(tiles[far, None], mesas[None])
    return gaps


def _check_camp_spacing(camps: Sequence[ExpeditionCamp]) -> list[str]:
    """The camps stand in a circle at roughly equal distances: sorted by angle, each gap is
    within CAMP_SPACING_TOLERANCE degrees of 360/6."""
    angles = {e.id: math.degrees(math.atan2(e.start[1], e.start[0])) % 360 for e in camps}
    order = sorted(angles, key=angles.__getitem__)
    even = 360.0 / len(order)
    problems = []
    for a, b in zip(order, order[1:] + order[:1]):
        gap = (angles[b] - angles[a]) % 360 or (360.0 if len(order) == 1 else 0.0)
        if abs(gap - even) > CAMP_SPACING_TOLERANCE:
            problems.append(f"expedition camps {a} and {b} are {gap:.1f} degrees apart, not "
                            f"roughly {even:.0f}")
    return problems
