"""A random Anasazi table from a seed, and the setup rules every table must meet (section 3.0).

`random_table` draws irregular mesa outlines, places them as the rulebook says (the large mesa in
the centre, 12 mesas in a circle around it, 15 in a second circle), then relaxes them with pymunk
so that every two mesas keep a valley of at least `valley_gap` (room for a base camp). The six
expedition base camps sit evenly spaced outside the outer circle, at the play area's edge.
Pueblos are placed on their mesas, some along a cliff edge, some inside, in numpy in each
mesa's polar frame, the chosen ones judged exactly with shapely. With the default options a
random table meets the setup rules by construction (tests/anasazi/test_layout_rules.py proves
it on many seeds). `random_setup` then deals towers, treasures and objective cards and draws
the first player, all from the seed.

`check_table` judges any table (random or given) against the setup rules with shapely and names
the offending pieces; `validate_table` and `load_setup` raise a `ValueError` with those problems.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

import numpy as np
from pymunk import cp, ffi  # Chipmunk's C functions and their cffi, as pymunk's classes use them
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
                # pueblos are sought along rays from the centroid (`_Polar`)
                if not star_shaped(_centred(s)):
                    raise ValueError(f"mesa_shapes[{i}] must be star-shaped about its centroid "
                                     "(every ray from it crossing the outline once)")
            object.__setattr__(self, "mesa_shapes", shapes)
        lo, hi = self.centre_pueblos
        if not 1 <= lo <= hi:
            raise ValueError(f"centre_pueblos must be 1 <= lowest <= highest, not {self.centre_pueblos}")
        if not 0.2 <= self.small_share <= 0.5:
            raise ValueError(f"small_share must lie in [0.2, 0.5], not {self.small_share}")


# ---------------------------------------------------------------------------------------------
# Mesa outlines and the starting positions


# Points and vectors of the plane are complex numbers here (x + iy): a pose is a centre z and
# a unit w = exp(i heading), a shape's corner c in its own frame lies at z + c * w.
Complex = NDArray[np.complex128]


def complex_of(xy: np.ndarray) -> Complex:
    """Points (..., 2) as complex numbers (...): a view of `xy` when it is laid out as they are."""
    return np.ascontiguousarray(xy, dtype=np.float64).view(np.complex128)[..., 0]


def xy_of(z: Complex) -> Array:
    """Complex numbers (...) as points (..., 2): a view of `z` when it is contiguous."""
    z = np.ascontiguousarray(z, dtype=np.complex128)
    return z.view(np.float64).reshape(*z.shape, 2)


def _norm2(z: Complex) -> Array:
    """|z|² (np.abs computes a hypot, many times slower)."""
    return z.real ** 2 + z.imag ** 2


def ring_of(index: int) -> Ring:
    """The ring of mesa number `index` (0 centre, 1-12 inner, 13-27 outer)."""
    if index < MESA_COUNTS["centre"]:
        return "centre"
    return "inner" if index < MESA_COUNTS["centre"] + MESA_COUNTS["inner"] else "outer"


@cache
def _grid(n: int) -> Complex:
    """n unit vectors evenly round the circle, the first along x (read-only)."""
    grid = np.exp(2j * np.pi * np.arange(n) / n)
    grid.flags.writeable = False
    return cast(Complex, grid)


def _unit(angle: Array) -> Complex:
    """exp(i angle) for small angles (|angle| <= 0.1) from the sine's and cosine's series,
    within 1e-14: numpy's exp and cos cost here as much as the rest of an outline."""
    a2 = angle * angle
    cos = 1 - a2 / 2 * (1 - a2 / 12 * (1 - a2 / 30 * (1 - a2 / 56)))
    sin = angle * (1 - a2 / 6 * (1 - a2 / 20 * (1 - a2 / 42)))
    return cast(Complex, cos + 1j * sin)


def mesa_outlines(rng: np.random.Generator, options: LayoutOptions) -> list[np.ndarray]:
    """Vertices (n, 2) of the 28 irregular mesas centred near (0, 0), counter-clockwise, the
    centre mesa (twice the vertices) first: wobbly, ragged discs of the rings' mean radii."""
    ring = MESA_COUNTS["inner"] + MESA_COUNTS["outer"]
    n = options.mesa_vertices
    radii, step, falloff = _outline_constants(n, options.centre_mesa_radius,
                                              options.inner_mesa_radius, options.outer_mesa_radius)
    # one grid of 2n angles for all: the ring mesas keep every second one, each vertex
    # jittered by up to 0.3 of its own mesa's step, so that their order stays
    jitter = rng.uniform(-0.3, 0.3, (ring + 1, 2 * n)) * step
    # each vertex's direction: the grid's turned by its jitter (no libm call per vertex)
    u = _grid(2 * n) * _unit(jitter)
    amplitude = rng.uniform(0.3, 1.0, (ring + 1, 3)) * options.irregularity / falloff
    phase = rng.uniform(0, 2 * np.pi, (ring + 1, 3))
    # low harmonics (2, 3, 4 lobes) give lobes and bays; higher ones, gears
    wave = amplitude * np.exp(1j * phase)
    u2 = u * u
    r = 1.0 + (u2 * (wave[:, :1] + u * (wave[:, 1:2] + u * wave[:, 2:]))).real \
        + rng.normal(0.0, options.roughness, (ring + 1, 2 * n))
    z = r * u
    centre, rings = z[0], z[1:, ::2]
    centre *= radii[0] / r[0].mean()
    rings *= (radii[1:] / r[1:, ::2].mean(axis=1))[:, None]
    return [xy_of(centre), *xy_of(rings)]


@cache
def _outline_constants(n: int, centre: float, inner: float, outer: float
                       ) -> tuple[Array, Array, Array]:
    """What `mesa_outlines` scales by that only the options set (made once, read-only): the
    28 mean radii, each mesa's angle step (the ring mesas keep every second of 2n angles) and
    the harmonics' falloff."""
    radii = np.array([centre] + [inner] * MESA_COUNTS["inner"] + [outer] * MESA_COUNTS["outer"])
    step = np.r_[1.0, np.full(len(radii) - 1, 2.0)][:, None] * (np.pi / n)
    falloff = np.arange(1, 4) ** 0.7
    for a in (radii, step, falloff):
        a.flags.writeable = False
    return cast(Array, radii), cast(Array, step), cast(Array, falloff)


def start_positions(rng: np.random.Generator, options: LayoutOptions) -> np.ndarray:
    """Centres (28, 2): the centre mesa, then the two rings, each turned by a random angle."""
    points = [np.zeros((1, 2))]
    for ring, radius in (("inner", options.inner_ring_radius),
                         ("outer", options.outer_ring_radius)):
        n = MESA_COUNTS[ring]
        a = rng.uniform(0, 2 * np.pi) + np.arange(n) * 2 * np.pi / n
        points.append(np.array([radius * np.cos(a), radius * np.sin(a)]).T)
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
    # (np.array(...).T is np.stack(..., -1) of 1-d arrays without its Python cost)
    centres = np.array([centre_r * c, centre_r * s]).T
    local = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    corners = centres[:, None, :] + local[None, :, 0, None] * np.array([c, s]).T[:, None, :] \
        + local[None, :, 1, None] * np.array([-s, c]).T[:, None, :]
    return corners, centres


# ---------------------------------------------------------------------------------------------
# Relaxation with pymunk


def relax(outlines: Sequence[np.ndarray], centres: np.ndarray, camps: np.ndarray, sizes: Sizes,
          options: LayoutOptions) -> tuple[np.ndarray, NDArray[np.object_]] | None:
    """Push overlapping mesas apart until each two keep valley_gap (+ slop); the centre mesa,
    the expedition camps (`camps`, polygons) and the play area's edge stay put. Returns the
    new centres and the mesas' polygons there (coordinates rounded to `DECIMALS`), or None if
    the tiles do not settle within max_steps.

    Each mesa is a convex pymunk polygon inflated by half the gap (pymunk collides the hull: a
    real outline lies inside it, so its gaps are only wider); moment=inf keeps the tiles from
    turning. Single-threaded pymunk is deterministic. No Python runs per contact: every
    `CALM_EVERY` steps `_Overlap.calm` measures the overlap of the inflated outlines with
    shapely. The space is built by `_Chipmunk` (pymunk's own C calls, in its order).
    """
    clearance = sizes.valley_gap / 2 + options.slop
    edge = sizes.play_area_radius
    overlap = _Overlap(outlines, camps, clearance, options.slop / 4, edge)
    with _Chipmunk() as space:
        # the centre mesa stays put: a shape of the static body, as the camps are
        bodies = [space.body(centre) for centre in centres[1:].tolist()]
        space.add_static()
        space.add_bodies(bodies)
        space.poly(space.static, outlines[0] + centres[0], clearance)
        for body, outline in zip(bodies, outlines[1:]):
            space.poly(body, outline, clearance)
        for square in shapely.get_coordinates(camps).reshape(len(camps), -1, 2):
            space.poly(space.static, square, clearance)
        for a, b in _walls(overlap.radii, centres, edge, clearance):
            space.segment(space.static, a, b)
        dt, start = 1.0 / 60.0, np.asarray(centres, float)
        centres = start.copy()
        for step in range(1, options.max_steps + 1):
            space.step(dt)
            if step >= CALM_FROM and step % CALM_EVERY == 0:
                centres[1:] = [space.position(b) for b in bodies]
                if _norm2(complex_of(centres - start)).max() > WALL_REACH ** 2:
                    return None  # beyond the walls laid: this attempt fails
                # Settled when no inflated outline overlaps another by more than a fraction
                # of the slop.
                if overlap.calm(centres):
                    return centres, overlap.placed_at(centres)
    return None


class _Chipmunk:
    """A Chipmunk space made and stepped through pymunk's C bindings (`pymunk.cp`), with the
    calls `pymunk.Space`, `Body`, `Poly` and `Segment` make, in the order `relax` made them
    with those classes (the same tables, seed for seed: tests/anasazi/test_layout_frozen.py
    holds tables those classes made), without their Python objects, which took about a third
    of a relaxation's time. Everything is freed on leaving the `with` block, the space first
    (its teardown wakes its bodies)."""

    def __init__(self) -> None:
        self.space = cp.cpSpaceNew()
        self.static: Any = None
        self.bodies: list[Any] = []
        self.shapes: list[Any] = []
        cp.cpSpaceSetDamping(self.space, 0.05)  # velocity kept after one second: tiles
        # stop as soon as they part
        cp.cpSpaceSetIterations(self.space, 20)
        cp.cpSpaceSetCollisionBias(self.space, (1 - OVERLAP_FIXED_PER_STEP) ** 60)  # overlap
        # left after a second

    def __enter__(self) -> _Chipmunk:
        return self

    def __exit__(self, *exc: object) -> None:
        cp.cpSpaceFree(self.space)
        for shape in self.shapes:
            cp.cpShapeFree(shape)
        for body in self.bodies:
            cp.cpBodyFree(body)

    def body(self, centre: Sequence[float]) -> Any:
        """A free tile's body (mass 1, no turning) at `centre`, not yet in the space."""
        body = cp.cpBodyNew(1.0, math.inf)
        self.bodies.append(body)
        cp.cpBodySetPosition(body, centre)
        return body

    def add_static(self) -> None:
        """The static body, in the space (what `pymunk.Space.static_body` does when asked)."""
        self.static = cp.cpBodyNewStatic()
        self.bodies.append(self.static)
        cp.cpSpaceAddBody(self.space, self.static)

    def add_bodies(self, bodies: Sequence[Any]) -> None:
        """`bodies` into the space, in order."""
        for body in bodies:
            cp.cpSpaceAddBody(self.space, body)

    def poly(self, body: Any, vertices: np.ndarray, radius: float) -> None:
        """A convex polygon of `body` (the hull of `vertices`, (n, 2)), inflated by `radius`,
        into the space."""
        # Chipmunk copies the vertices: it may read the array's own buffer (no Python list)
        xy = np.ascontiguousarray(vertices, dtype=np.float64)
        self._add(cp.cpPolyShapeNew(body, len(xy), ffi.from_buffer("cpVect[]", xy), _IDENTITY,
                                    radius))

    def segment(self, body: Any, a: Sequence[float], b: Sequence[float]) -> None:
        """A thin segment of `body` from `a` to `b`, into the space."""
        self._add(cp.cpSegmentShapeNew(body, a, b, 0.0))

    def _add(self, shape: Any) -> None:
        self.shapes.append(shape)
        cp.cpSpaceAddShape(self.space, shape)

    def step(self, dt: float) -> None:
        """One step of the simulation."""
        cp.cpSpaceStep(self.space, dt)

    @staticmethod
    def position(body: Any) -> tuple[float, float]:
        """Where `body` is."""
        v = cp.cpBodyGetPosition(body)
        return v.x, v.y


# the transform pymunk.Poly passes by default, as a C struct once (cffi copies it into each
# call; from a tuple it builds one a polygon)
_IDENTITY = ffi.new("cpTransform *", (1.0, 0.0, 0.0, 1.0, 0.0, 0.0))[0]


def _walls(radii: np.ndarray, centres: np.ndarray, edge: float,
           clearance: float) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """The play area's edge as up to 96 segments (their ends), only those a mesa (of farthest
    vertex `radii` from its centre) may come near (a mesa that travels farther than
    `WALL_REACH` fails the attempt): most tables keep far from the edge, and each segment
    costs the solver time."""
    wall, mid = _wall(edge)
    near = (_norm2(mid[:, None] - complex_of(centres)[None])
            < (radii + clearance + WALL_REACH) ** 2).any(axis=1)
    return [(wall[k], wall[k + 1]) for k in np.flatnonzero(near).tolist()]


@cache
def _wall(edge: float) -> tuple[list[tuple[float, float]], Complex]:
    """The 97 points of the play area's edge (the first again last) and the segments' middles."""
    t = np.linspace(0, 2 * np.pi, 97)
    wall = np.column_stack([edge * np.cos(t), edge * np.sin(t)])
    mid = complex_of((wall[:-1] + wall[1:]) / 2)
    mid.flags.writeable = False
    return [tuple(p) for p in wall.tolist()], mid


WALL_REACH = 40.0  # mm a mesa may travel while the tiles relax (at most 30 in 100 tables)

CALM_FROM, CALM_EVERY = 8, 4  # relaxation steps before the first measure of the overlap
# left, and between two (98 tables in 100 settle after 8 steps, the others after 12)
OVERLAP_FIXED_PER_STEP = 0.6  # pymunk's default, 0.1, took 44 to 100 steps to part the tiles,
# 0.4 took 12


@cache
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair i < j of n items, as two index arrays (made once per n, read-only)."""
    pairs = np.triu_indices(n, k=1)
    for a in pairs:
        a.flags.writeable = False
    return pairs


@cache
def _rings(lengths: tuple[int, ...]) -> tuple[NDArray[np.intp], ...]:
    """For rings of these vertex counts laid end to end: each one's first vertex, each vertex's
    ring, and the gather index and rings of the same closed (each first vertex again after
    its last), read-only."""
    count = np.asarray(lengths, dtype=np.intp)
    ends = np.cumsum(count)
    starts = ends - count
    index = np.repeat(np.arange(len(count)), count)
    closed = np.insert(np.arange(ends[-1]), ends, starts)
    closed_index = np.repeat(np.arange(len(count)), count + 1)
    made = [starts, index, closed, closed_index]
    for a in made:
        a.flags.writeable = False
    return tuple(cast(NDArray[np.intp], a) for a in made)


class _Overlap:
    """Whether the mesas' outlines, inflated by the clearance, overlap each other, the camps
    or the edge by more than `depth`. The outlines, not the convex tiles pymunk pushes: it is
    their valleys the setup rules measure, and they part before their hulls do."""

    def __init__(self, outlines: Sequence[np.ndarray], camps: NDArray[np.object_],
                 clearance: float, depth: float, edge: float):
        starts, index, closed, self.closed_index = _rings(tuple(len(o) for o in outlines))
        every = np.concatenate(outlines)
        z = complex_of(every)
        # each outline's farthest vertex from its centre
        self.radii = np.sqrt(np.maximum.reduceat(_norm2(z), starts))
        self.camps = camps
        camp_xy = complex_of(shapely.get_coordinates(camps)).reshape(len(camps), -1)[:, :-1]
        self.camp_centres = camp_xy.mean(axis=1)
        camp_radius = np.sqrt(_norm2(camp_xy - self.camp_centres[:, None]).max())
        self.within = within = 2 * clearance - depth
        # farthest a vertex may lie from the centre: the edge less what the clearance keeps
        self.inside = (edge - clearance + depth) ** 2
        self.i, self.j = _pairs(len(outlines))
        # centres nearer than these (squared) may hold outlines within reach of each other
        self.pair_reach = (self.radii[self.i] + self.radii[self.j] + within) ** 2
        self.camp_reach = (self.radii[:, None] + camp_radius + within) ** 2
        # the outlines as polygons, moved to each measure's centres in place (closed rings)
        self.closed = z[closed]
        self.placed = cast(NDArray[np.object_], shapely.polygons(shapely.linearrings(
            every, indices=index)))

    def calm(self, centres: np.ndarray) -> bool:
        """True when no inflated outline placed at `centres` overlaps another, a camp or the
        edge by more than the depth."""
        at = complex_of(centres)
        shifted = self.closed + at[self.closed_index]
        if _norm2(shifted).max() > self.inside:
            return False
        placed = self.placed
        shapely.set_coordinates(placed, xy_of(shifted))
        near = np.flatnonzero(_norm2(at[self.i] - at[self.j]) < self.pair_reach)
        mi, ci = np.nonzero(_norm2(at[:, None] - self.camp_centres[None]) < self.camp_reach)
        left = np.concatenate([placed[self.i[near]], placed[mi]])
        right = np.concatenate([placed[self.j[near]], self.camps[ci]])
        return not shapely.dwithin(left, right, self.within).any()

    def placed_at(self, centres: np.ndarray) -> NDArray[np.object_]:
        """The outlines' polygons at `centres`, coordinates rounded to `DECIMALS`, made from
        those that measured the overlap (nothing measures with them any more)."""
        shapely.set_coordinates(self.placed, xy_of(
            self.closed + complex_of(centres)[self.closed_index]).round(DECIMALS))
        return self.placed


# ---------------------------------------------------------------------------------------------
# Pueblos


def pueblo_counts(rng: np.random.Generator, options: LayoutOptions) -> list[int]:
    """How many pueblos each of the 28 mesas holds: every mesa one at least, 44 in all; the
    pueblos beyond one a ring mesa take places on ring mesas drawn at random, never more
    than `max_ring_pueblos` on one."""
    n = sum(MESA_COUNTS.values())
    centre = int(rng.integers(options.centre_pueblos[0], options.centre_pueblos[1] + 1))
    extra = PUEBLOS - centre - (n - 1)
    more = options.max_ring_pueblos - 1  # places beyond the first on each ring mesa
    if extra < 0 or extra > (n - 1) * more:
        raise ValueError(f"cannot spread {PUEBLOS} pueblos with centre_pueblos="
                         f"{options.centre_pueblos} and max_ring_pueblos={options.max_ring_pueblos}")
    places = rng.choice((n - 1) * more, extra, replace=False) // more
    return [centre, *(1 + np.bincount(places, minlength=n - 1)).tolist()]


def pueblo_outline(length: float, width: float) -> np.ndarray:
    """A pueblo's outline in its own frame (long axis along x), counter-clockwise: an octagon,
    a block with cut corners."""
    outline: np.ndarray = pueblo_outlines(np.array([length]), np.array([width]))[0]
    return outline


def pueblo_outlines(length: np.ndarray, width: np.ndarray) -> np.ndarray:
    """`pueblo_outline` of many pueblos at once: (n, 8, 2)."""
    hl, hw, cut = length / 2, width / 2, 0.22 * width
    left, right, low, high = -hl + cut, hl - cut, -hw + cut, hw - cut  # where the cuts end
    # (2, 8, n) turned to (n, 8, 2): np.stack's Python costs several times the copy here
    return np.array([[left, right, hl, hl, right, left, -hl, -hl],
                     [-hw, -hw, low, high, hw, hw, high, low]]).T.copy()


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


# A pueblo's vertices in `_sector_rings`: its octagon's eight, then the ends of a straight
# cut (8 on the side y = -hw, 9 on y = hw). Undivided, its octagon; cut, its small sector
# then its large one, as `_cut_straight` lays them (-1: none).
_WHOLE = np.array([0, 1, 2, 3, 4, 5, 6, 7, -1, -1, -1, -1])
_CUT = np.array([0, 8, 9, 5, 6, 7, 8, 1, 2, 3, 4, 9])


def _sector_rings(length: np.ndarray, width: np.ndarray, divided: np.ndarray, small_share: float
                  ) -> tuple[np.ndarray, Array, list[int], list[int]]:
    """`pueblo_shapes` laid end to end: the octagons (n, 8, 2), every sector's vertices
    (pueblo by pueblo), each sector's number of vertices and each pueblo's number of
    sectors; when every cut runs straight across, one gather (no array per sector)."""
    hl, hw, cut = length / 2, width / 2, 0.22 * width
    split = -hl + small_share * length
    straight = divided & (-hl + cut <= split) & (split <= hl - cut)
    if (divided & ~straight).any():  # a cut clipped by shapely: sector by sector
        octagons, sectors = pueblo_shapes(length, width, divided, small_share)
        parts = [part for pueblo in sectors for part in pueblo]
        return (octagons, np.concatenate(parts), [len(part) for part in parts],
                [len(pueblo) for pueblo in sectors])
    octagons = pueblo_outlines(length, width)
    ends = np.array([[split, -hw], [split, hw]]).T.transpose(0, 2, 1)  # (n, 2 ends, 2)
    points = np.concatenate([octagons, ends], axis=1).reshape(-1, 2)  # 10 a pueblo
    local = np.where(straight[:, None], _CUT, _WHOLE)
    coords = points[(local + 10 * np.arange(len(octagons))[:, None])[local >= 0]]
    split_list = (1 + straight).tolist()
    lengths = [n for parts in split_list for n in ((6, 6) if parts == 2 else (8,))]
    return octagons, coords, lengths, split_list


def polygons_of(rings: Sequence[np.ndarray]) -> np.ndarray:
    """Polygons from vertex arrays of any lengths, rounded to `DECIMALS` (what JSON keeps), in
    one shapely call."""
    return _polygons(np.concatenate(rings), [len(r) for r in rings])


def _polygons(coords: Array, lengths: Sequence[int]) -> NDArray[np.object_]:
    """`polygons_of` the rings laid end to end in `coords`, of the given lengths."""
    return cast(NDArray[np.object_], shapely.polygons(shapely.linearrings(
        coords.round(DECIMALS), indices=np.repeat(np.arange(len(lengths)), lengths))))


ROUND_POSES = 8  # candidate poses drawn for each pueblo in the first round, at least
LATER_POSES = 64  # candidate poses drawn in a later round, shared by its pueblos (at most 32 each)
FLIP_AFTER = 2  # rounds a mesa fails before its pueblos that found no pose try the other mode
LAYOUTS = 8  # rounds a mesa's pueblos are laid out afresh before the attempt fails
SAMPLES_PER_SIDE = 2  # points tested on each side of a pueblo's octagon (its corners and middles)

def _pseudo_angle(z: Complex) -> Array:
    """A number in [0, 4) that grows with the angle of z from the x axis as the angle does
    (numpy's arctan2 costs about 25 times as much)."""
    x, y = z.real, z.imag
    q = y / (np.abs(x) + np.abs(y) + 1e-300)
    d = np.where(x >= 0, q, 2 - q)
    return cast(Array, np.where(d < 0, d + 4, d))


_TURN = 8.0  # more than a turn of `_pseudo_angle`: a vertex's key is its mesa * _TURN + that


class _Search:
    """`np.searchsorted(values, q)` of one sorted array of values >= 0, the same indices, in a
    few gathers: numpy's binary search costs about 15 ns a query here (thousands of queries a
    round), a gather 1-2 ns. The values are binned on a grid of width 1 / `scale`, a power of
    two, so that a bin, floor(value * scale), is exact: a value in an earlier bin than a
    query's is below it, one in a later bin above it. A query's index is the number of values
    in the earlier bins plus those of its own bin below it, one comparison each."""

    def __init__(self, values: Array, scale: float, limit: float):
        """`values` sorted, >= 0, <= `limit`."""
        count = np.bincount((values * scale).astype(np.intp), minlength=int(limit * scale) + 2)
        self.before = np.cumsum(count) - count
        self.per = int(count.max())  # the most values of one bin
        self.padded = np.concatenate([values, np.full(self.per, np.inf)])
        self.scale, self.last_bin = scale, len(count) - 1

    def __call__(self, q: Array) -> NDArray[np.intp]:
        """The index where each query `q` (>= 0) would be inserted before its equals; those
        beyond `limit` and NaN (a degenerate candidate's) after every value, as numpy's."""
        k = self.before[np.fmin(q * self.scale, self.last_bin).astype(np.intp)]
        for _ in range(self.per):
            k += self.padded[k] < q
        return cast(NDArray[np.intp], k)


@cache
def _ring_steps(lengths: tuple[int, ...]) -> tuple[NDArray[np.intp], NDArray[np.intp], Array]:
    """For rings of these vertex counts laid end to end: each one's last vertex, each vertex's
    next round its ring, and each vertex's ring times `_TURN` (`_Polar`'s keys), read-only."""
    starts, index, _, _ = _rings(lengths)
    last = starts + np.asarray(lengths) - 1
    nxt = np.arange(len(index)) + 1
    nxt[last] = starts
    turns = index * _TURN
    for a in (last, nxt, turns):
        a.flags.writeable = False
    return cast(NDArray[np.intp], last), cast(NDArray[np.intp], nxt), cast(Array, turns)


@cache
def _marks(lengths: tuple[int, ...]
           ) -> tuple[NDArray[np.intp], NDArray[np.intp], Array, NDArray[np.intp]]:
    """`_Polar`'s keys of rings of these vertex counts with a mark just below each ring's
    keys (ring * _TURN - 1; the first ring's would be below every query), so that the last
    key or mark below a query's key names the edge its ray crosses: a vertex's key, the edge
    from it; a mark, or nothing, the edge from the ring's last vertex (the ray comes before
    the ring's first vertex by angle). Where the keys go, where the marks go, the marks, and
    the edge each count of keys and marks below a query names; made once, read-only."""
    starts, ring, _, _ = _rings(lengths)
    last, _, _ = _ring_steps(lengths)
    slots = np.arange(len(ring)) + ring  # a ring's keys come after its marks and those before
    marked = starts[1:] + np.arange(len(lengths) - 1)
    marks = np.arange(1, len(lengths)) * _TURN - 1.0
    names = np.empty(len(slots) + len(marks) + 1, dtype=np.intp)
    names[0] = last[0]
    names[slots + 1], names[marked + 1] = np.arange(len(ring)), last[1:]
    for a in (slots, marked, marks, names):
        a.flags.writeable = False
    return (cast(NDArray[np.intp], slots), cast(NDArray[np.intp], marked), cast(Array, marks),
            cast(NDArray[np.intp], names))


class _Polar:
    """The mesas' outlines seen from their centres, in their own frames: every outline is
    star-shaped about its centre (each ray from it crosses the cliff once), so the cliff a
    point faces is the edge its ray crosses, found by the point's angle among the vertices'.
    The edges are also kept in order with their arc lengths, to walk along each cliff."""

    def __init__(self, outlines: Sequence[np.ndarray]):
        n = len(outlines)
        lengths = tuple(len(o) for o in outlines)
        first, mesa, _, _ = _rings(lengths)  # the index arrays made once per lengths
        _, nxt, turns = _ring_steps(lengths)
        every = complex_of(np.concatenate(outlines))
        key = turns + _pseudo_angle(every)
        order = np.argsort(key, kind="stable")
        self.key: Array = key[order]
        a = every[order]  # each edge's first vertex, counter-clockwise
        self.a: Complex = a
        self.d: Complex = a[nxt] - a  # each edge as a vector
        self.d_length: Array = np.sqrt(self.d.real ** 2 + self.d.imag ** 2)
        # each edge's line: the conjugate of its unit normal pointing inwards (i d / |d|) and
        # its offset; Re(normal * p) - offset is how far p lies inside the line
        self.normal: Complex = np.conj(1j * self.d / self.d_length)
        self.offset: Array = (self.normal * a).real
        # twice each mesa's area (the cross products of its edges' ends): the round mesa as
        # large has radius sqrt(area / pi)
        twice = (np.conj(a) * a[nxt]).imag
        self.radius: Array = np.sqrt(np.bincount(mesa, twice, minlength=n) / (2 * math.pi))
        self.end: Array = np.cumsum(self.d_length)  # arc length at each edge's end, all rings
        # weighted, so float lengths (numpy's stubs give bincount ints only)
        self.length = cast(Array, np.bincount(mesa, self.d_length, minlength=n))
        self.start: Array = self.end[first] - self.d_length[first]
        # the keys and the marks (`_marks`), sought in bins of 1/64 of a quarter turn: a
        # random mesa's vertices lie at least 0.4 of a step (pi / 30 at the default 30
        # vertices) apart in angle, 1/48 of a quarter turn or more in `_pseudo_angle`, so one
        # a bin (other outlines may put more in one: only slower)
        slots, marked, marks, self._names = _marks(lengths)
        keys = np.empty(len(slots) + len(marks))
        keys[slots], keys[marked] = self.key, marks
        self._search = _Search(keys, 64.0, n * _TURN)

    def edge(self, mesa: NDArray[np.intp], z: Complex) -> NDArray[np.intp]:
        """The edge (index) that the ray from the centre of each `mesa` through each point z
        crosses (arrays of one shape)."""
        return self._names[self._search(mesa * _TURN + _pseudo_angle(z))]

    def depth(self, mesa: NDArray[np.intp], z: Complex) -> Array:
        """How far each point z lies inside the line of the cliff that its ray from the centre
        of its `mesa` crosses (negative beyond it): its distance from the cliff where the
        cliff is straight (arrays of one shape)."""
        k = self.edge(mesa, z)
        return (self.normal[k] * z).real - self.offset[k]

    def reach(self, mesa: NDArray[np.intp], u: Complex) -> Array:
        """The distance from the centre of each `mesa` to its cliff along the unit vectors u
        (arrays of one shape)."""
        k = self.edge(mesa, u)
        return self.offset[k] / (self.normal[k] * u).real

    def along_edge(self, mesa: NDArray[np.intp], t: Array) -> Complex:
        """Points at arc length `t` (any, it wraps) along the cliffs of `mesa` (one shape)."""
        s = self.start[mesa] + np.mod(t, self.length[mesa])
        k = np.minimum(np.searchsorted(self.end, s, side="right"), len(self.end) - 1)
        return self.a[k] + (s - self.end[k] + self.d_length[k]) / self.d_length[k] * self.d[k]


def star_shaped(outline: np.ndarray) -> bool:
    """Whether every ray from (0, 0) crosses the closed ring `outline` (n, 2) once: its
    vertices go round (0, 0) counter-clockwise, each turned from the one before by less than
    half a turn, once round in all."""
    z = complex_of(outline)
    turn = np.angle(np.roll(z, -1) / z)  # each edge's turn about (0, 0), in (-pi, pi]
    return bool((turn > 0).all() and math.isclose(turn.sum(), 2 * math.pi))


def _discs(octagons: Complex) -> tuple[Array, Array]:
    """Two discs that cover each pueblo's octagon (n, 8), in its own frame: their centres'
    distance `e` (n) either side of its middle on its long axis, and their radius (n). Each
    disc holds one half of the octagon (a convex polygon lies in a disc that holds its
    corners), so two pueblos whose discs keep a distance keep at least it."""
    hl, low = octagons[:, 2].real, octagons[:, 2].imag  # half length; where the short sides end
    straight, hw = octagons[:, 4].real, octagons[:, 4].imag  # where the long sides end; half width
    e = straight / 2
    radius = np.sqrt(np.maximum(e ** 2 + hw ** 2, (hl - e) ** 2 + low ** 2))
    return e, radius


_SHARES = np.arange(SAMPLES_PER_SIDE) / SAMPLES_PER_SIDE  # of the way along a side
_NEXT = np.r_[1:8, 0]  # each corner's next, round an octagon


def _samples(octagons: Complex) -> Complex:
    """Points (n, 8 * SAMPLES_PER_SIDE) on the sides of each octagon (n, 8): its corners and
    points evenly between them."""
    points = octagons[:, :, None] + _SHARES * (octagons[:, _NEXT] - octagons)[:, :, None]
    return cast(Complex, points.reshape(len(octagons), -1))


def place_pueblos(rng: np.random.Generator, outlines: Sequence[np.ndarray], octagons: Complex,
                  counts: Sequence[int], centres: Complex, cliffs: np.ndarray,
                  options: LayoutOptions) -> tuple[Complex, Complex] | None:
    """Poses in their mesas' frames, centres z and headings w (pueblos), for the pueblos of
    every mesa (`counts[m]` of them: their octagons (pueblos, 8) in their own frames, mesa by
    mesa; the mesa's outline `outlines[m]` lies at `centres[m]`, its cliff is `cliffs[m]` on
    the table), each wholly on its mesa, `pueblo_margin` from the cliff and `pueblo_spacing`
    from the others: its long side along the cliff or anywhere inside, at random. None if a
    mesa's pueblos do not fit after `LAYOUTS` rounds.

    A round draws candidate poses for every pueblo of the mesas still to lay out and judges
    them all at once in numpy: points on each candidate's sides against the cliff their ray
    from the centre crosses (`_Polar.depth`). Each mesa then takes the first candidates whose
    two covering discs keep `pueblo_spacing` from the discs of the others (`_choose`; exact:
    the discs cover the octagons). The chosen pueblos are judged exactly with one shapely call
    (each octagon farther than the margin from its mesa's cliff, as the table holds it); a
    mesa whose pueblos fail in any way is laid out afresh in the next round.
    """
    polar = _Polar(outlines)
    mesa_of = np.repeat(np.arange(len(counts)), counts)  # each pueblo's mesa
    slot = np.arange(len(mesa_of)) - np.repeat(np.cumsum(counts) - counts, counts)
    half = np.array([np.abs(octagons.real).max(axis=1), np.abs(octagons.imag).max(axis=1)]).T
    samples = _samples(octagons)
    e, disc = _discs(octagons)
    along_edge = rng.random(len(mesa_of)) < options.edge_share
    z, w = np.zeros(len(mesa_of), complex), np.ones(len(mesa_of), complex)
    todo = np.ones(len(counts), bool)  # mesas still to lay out
    failed = np.zeros(len(counts), int)
    margin = options.pueblo_margin
    k = ROUND_POSES
    while todo.any():
        rows = np.flatnonzero(todo[mesa_of])
        on = mesa_of[rows]
        cz, cw = _candidates(rng, polar, on, along_edge[rows], half[rows], k, margin)
        # points on each candidate's sides (rows, k, samples), judged against the cliff
        ok = cast(NDArray[np.bool_], (polar.depth(on[:, None, None], cz[..., None]
                                                  + samples[rows, None] * cw[..., None])
                                      >= margin).all(axis=-1))
        # the covering discs' centres (rows, k, 2 discs)
        discs = cz[..., None] + (np.array([-1.0, 1.0]) * e[rows, None, None]) * cw[..., None]
        chosen = _choose(ok, discs, disc[rows] + options.pueblo_spacing / 2, slot[rows])
        got = chosen >= 0
        span, pick = np.arange(len(rows)), np.maximum(chosen, 0)
        z[rows], w[rows] = cz[span, pick], cw[span, pick]
        # exact, on the table: each chosen octagon farther than the margin from its cliff
        where = rows[got]
        if len(where):
            whole = (centres[mesa_of[where]] + z[where])[:, None] + octagons[where] * w[where, None]
            got[got] = ~shapely.dwithin(shapely.polygons(xy_of(whole)),
                                        cliffs[mesa_of[where]], margin)
        bad = np.zeros(len(counts), bool)
        bad[on[~got]] = True
        todo &= bad
        failed[todo] += 1
        if (failed >= LAYOUTS).any():
            return None
        # a pueblo that found no pose in its mode for FLIP_AFTER rounds tries the other
        flip = rows[~ok.any(axis=1)]
        along_edge[flip[failed[mesa_of[flip]] % FLIP_AFTER == 0]] ^= True
        k = min(max(ROUND_POSES, LATER_POSES // max(int(todo[mesa_of].sum()), 1)),
                4 * ROUND_POSES)
    return z, w


def _choose(ok: NDArray[np.bool_], discs: Complex, reach: Array, slot: NDArray[np.intp]
            ) -> NDArray[np.intp]:
    """Which candidate each pueblo takes (rows in mesa order, `slot`: each one's place on its
    mesa), -1 for none: candidates that `ok` (rows, k) allows, whose covering discs (centres
    `discs` (rows, k, 2)) keep the pueblos' `reach` (rows: disc radius and half the spacing)
    apart. The first two pueblos of a mesa take the first pair that fits; each further one the
    first candidate that fits those chosen before it."""
    rows, k = ok.shape
    chosen = np.where(ok.any(axis=1), np.argmax(ok, axis=1), -1)
    # every pair of pueblos on one mesa, the later one b and the earlier a = b - back
    b = np.repeat(np.arange(rows), slot)
    at = np.cumsum(slot) - slot  # each row's first pair: with the row just before it
    a = b - (np.arange(len(b)) - np.repeat(at, slot)) - 1
    if not len(b):
        return chosen
    fits = _apart(discs[a], discs[b], reach[a] + reach[b]) \
        & ok[a][:, :, None] & ok[b][:, None, :]  # (pairs, k, k)
    second = np.flatnonzero(slot == 1)
    flat = fits[at[second]].reshape(len(second), k * k)
    pair = np.argmax(flat, axis=1)
    found = flat[np.arange(len(second)), pair]
    chosen[second - 1] = np.where(found, pair // k, -1)
    chosen[second] = np.where(found, pair % k, -1)
    for row in np.flatnonzero(slot > 1).tolist():  # a mesa's third pueblo and after: few
        before = chosen[row - slot[row]:row]
        if (before < 0).any():
            chosen[row] = -1
            continue
        good = fits[at[row] + np.arange(slot[row]), before[::-1]].all(axis=0)
        chosen[row] = int(np.argmax(good)) if good.any() else -1
    return chosen


def _apart(p: Complex, q: Complex, reach: Array) -> NDArray[np.bool_]:
    """Whether each candidate i of one pueblo and j of another keep their covering discs
    (centres `p`, `q` (pairs, k, 2)) `reach` (pairs) apart: (pairs, k, k). The four pairings
    of two discs each are laid as (pairs, 2, 2, k, k), so that each one's k x k squared
    distances are one block (numpy's minimum over two short trailing axes cost three times
    as much)."""
    p, q = p.transpose(0, 2, 1), q.transpose(0, 2, 1)
    gap = p[:, :, None, :, None] - q[:, None, :, None, :]
    d = gap.real ** 2 + gap.imag ** 2
    least = np.minimum(np.minimum(d[:, 0, 0], d[:, 0, 1]), np.minimum(d[:, 1, 0], d[:, 1, 1]))
    return least >= (reach ** 2)[:, None, None]


def _candidates(rng: np.random.Generator, polar: _Polar, mesa: NDArray[np.intp],
                along_edge: NDArray[np.bool_], half: Array, k: int, margin: float
                ) -> tuple[Complex, Complex]:
    """`k` candidate poses for a pueblo of half length and width `half` (a, 2) on each `mesa`
    (a), in the mesa's frame: along the cliff (its long side parallel to it, set in by half
    its width, the cliff's bend under its length and the margin) or anywhere inside, turned
    at random. Their centres and headings, each (a, k).

    The candidates of a pueblo are spread round its mesa, one in each of k equal stretches
    of the cliff (or of the angles round the centre) from a random start: when one part of
    the mesa is taken, the next candidates lie elsewhere. Every pueblo draws the numbers of
    both ways; each is laid out the way it is placed only."""
    a = len(mesa)
    share = np.mod((np.arange(k) + rng.random((a, k))) / k + rng.random((a, 1)), 1.0)
    spread, spin = rng.random((a, k)), rng.random((a, k))
    z, w = np.empty((a, k), complex), np.empty((a, k), complex)
    edge, inside = np.flatnonzero(along_edge), np.flatnonzero(~along_edge)
    z[edge], w[edge] = _along_cliff(polar, mesa[edge], share[edge], half[edge], margin)
    z[inside], w[inside] = _inside(polar, mesa[inside], share[inside], spread[inside],
                                   spin[inside], half[inside], margin)
    return z, w


def _along_cliff(polar: _Polar, mesa: NDArray[np.intp], share: Array, half: Array,
                 margin: float) -> tuple[Complex, Complex]:
    """`_candidates` along the cliff, at `share` (a, k) of its length round each `mesa`."""
    on = mesa[:, None]
    # the cliff's direction over 6 mm (one vertex's jitter does not turn the pueblo), the
    # middle set in by half its width, the bend and the margin
    p, q, mid = polar.along_edge(on, share * polar.length[on]
                                 + np.array([-3.0, 3.0, 0.0])[:, None, None])
    tangent = q - p
    tangent /= np.sqrt(tangent.real ** 2 + tangent.imag ** 2)
    radius = polar.radius[mesa]
    bend = radius - np.sqrt(np.maximum(radius ** 2 - half[:, 0] ** 2, 0.0))
    inward = (half[:, 1] + bend + margin + 0.5)[:, None]
    return mid + 1j * tangent * inward, tangent


def _inside(polar: _Polar, mesa: NDArray[np.intp], share: Array, spread: Array, spin: Array,
            half: Array, margin: float) -> tuple[Complex, Complex]:
    """`_candidates` inside: at `share` (a, k) of a turn round each `mesa`, sqrt(`spread`) of
    the way out to the mesa shrunk by about the pueblo's half width (evenly over its area),
    turned by `spin` of a turn."""
    u = np.exp(2j * math.pi * share)
    room = np.maximum(polar.reach(mesa[:, None], u) - half[:, 1:] - margin - 3.0, 0.0)
    return np.sqrt(spread) * room * u, np.exp(2j * math.pi * spin)


def make_pueblos(rng: np.random.Generator, outlines: Sequence[np.ndarray], centres: np.ndarray,
                 mesas: np.ndarray, options: LayoutOptions
                 ) -> tuple[list[int], list[int], NDArray[np.object_]] | None:
    """44 pueblos (16 of them divided, chosen at random) spread over the mesas (`outlines` at
    `centres`, the polygons `mesas`): each pueblo's mesa, its number of sectors and the
    sectors' polygons on the table, pueblo by pueblo. None if a mesa's pueblos do not fit."""
    counts = pueblo_counts(rng, options)
    divided = np.zeros(PUEBLOS, bool)
    divided[rng.choice(PUEBLOS, DIVIDED_PUEBLOS, replace=False)] = True
    jitter = options.pueblo_size_jitter
    scale = 1 + rng.uniform(-jitter, jitter, PUEBLOS)  # the numbers of one draw a pueblo
    size = np.where(divided[:, None], options.divided_pueblo, options.single_pueblo)
    octagons, coords, lengths, split = _sector_rings(size[:, 0] * scale, size[:, 1] * scale,
                                                     divided, options.small_share)
    at = complex_of(centres)
    pose = place_pueblos(rng, outlines, complex_of(octagons), counts, at,
                         shapely.get_exterior_ring(mesas), options)
    if pose is None:
        return None
    mesa_of = np.repeat(np.arange(len(counts)), counts)
    z, w = pose
    z += at[mesa_of]
    every = np.repeat(np.repeat(np.arange(PUEBLOS), split), lengths)
    corners = xy_of(z[every] + complex_of(coords) * w[every])
    return mesa_of.tolist(), split, _polygons(corners, lengths)


# ---------------------------------------------------------------------------------------------
# Tables and setups


def random_table(seed: int, sizes: Sizes = Sizes(), options: LayoutOptions = LayoutOptions()
                 ) -> Table:
    """A random table that meets every setup rule, the same for the same seed on every run.

    With the default options and sizes (the marker's aside) the construction meets the setup
    rules by itself (`_guaranteed`), so only the rules that depend on where the tiles settled
    and on the marker are judged (`_settled_problems`, in numpy); with any others every table
    is judged by `check_table`."""
    seed = _check_seed(seed)
    problems: list[str] = []
    judge = _settled_problems if _guaranteed(sizes, options) else check_table
    for attempt in range(options.attempts):
        rng = np.random.default_rng([seed, 0, attempt])
        table = _try_table(rng, sizes, options)
        if table is None:
            continue
        problems = judge(table)
        if not problems:
            return table
    raise ValueError(f"no table for seed {seed} after {options.attempts} attempts"
                     + (f": {problems[0]}" if problems else ""))


@functools.lru_cache(maxsize=8)
def _guaranteed(sizes: Sizes, options: LayoutOptions) -> bool:
    """Whether every table `_try_table` makes with these sizes and options meets the setup
    rules that `_settled_problems` does not judge: the default options and sizes, the
    marker's aside (a game's options set them). The tests prove it on many seeds
    (tests/anasazi/test_layout_rules.py)."""
    return options == LayoutOptions() and dataclasses.replace(
        sizes, marker_length=Sizes.marker_length, marker_width=Sizes.marker_width) == Sizes()


def _settled_problems(table: Table) -> list[str]:
    """The setup rules of a random table that depend on where its tiles settled or on the
    marker, judged in numpy on bounds that are never better than the truth: each expedition
    camp (a square facing the centre, its start mark in the middle) nearer a mesa than one
    marker (a mesa corner that near) and outside the outer circle of mesas, and each sector
    reachable (a marker pointed at its nearest corner fits in the play area)."""
    sizes, problems = table.sizes, list[str]()
    camps = table.expedition_camps
    centre = complex_of(np.array([e.start for e in camps]))
    facing = centre / np.sqrt(_norm2(centre))  # each camp's axis towards the play area's edge
    outer = [m.polygon for m in table.mesas if m.ring == "outer"]
    # the outer mesas' corners in each camp's frame, by how far they lie beyond its sides
    local = (complex_of(shapely.get_coordinates(outer))[None] - centre[:, None]) \
        * np.conj(facing)[:, None]
    half = sizes.expedition_camp_size / 2
    across, along = (np.maximum(np.abs(part) - half, 0) for part in (local.real, local.imag))
    gap = (across ** 2 + along ** 2).min(axis=1)
    ring = _norm2(complex_of(shapely.get_coordinates(shapely.centroid(outer)))).max()
    for e, g, c in zip(camps, gap.tolist(), _norm2(centre).tolist()):
        if g >= sizes.marker_length ** 2:
            problems.append(f"expedition camp {e.id} may be {sizes.marker_length:g} mm or more "
                            "from the nearest mesa")
        if c <= (math.sqrt(ring) + TOLERANCE) ** 2:
            problems.append(f"expedition camp {e.id} is not outside the outer circle of mesas")
    xy, index = shapely.get_coordinates([s.polygon for s in table.sectors], return_index=True)
    near = np.minimum.reduceat(_norm2(complex_of(xy)), np.flatnonzero(np.diff(index, prepend=-1)))
    far = near + (sizes.marker_width / 2) ** 2 > (sizes.play_area_radius - TOLERANCE) ** 2
    problems += [f"sector {s.id} may not be reachable inside the play area"
                 for s, f in zip(table.sectors, far.tolist()) if f]
    return problems


def _try_table(rng: np.random.Generator, sizes: Sizes, options: LayoutOptions) -> Table | None:
    """One attempt at a table: outlines, camps, relaxation, pueblos. None if a step fails."""
    if options.mesa_shapes is not None:
        outlines = [_centred(s) for s in options.mesa_shapes]
    else:
        outlines = mesa_outlines(rng, options)
    squares, starts = camp_squares(rng, sizes, options)
    camps = polygons_of(list(squares))
    settled = relax(outlines, start_positions(rng, options), camps, sizes, options)
    if settled is None:
        return None
    centres, polys = settled
    made = make_pueblos(rng, outlines, centres, polys, options)
    if made is None:
        return None
    mesa_of, split, sector_polys = made
    mesas = tuple(Mesa(f"M{i}", ring_of(i), poly) for i, poly in enumerate(polys.tolist()))
    made_polys = iter(sector_polys.tolist() + camps.tolist())
    pueblos: list[Pueblo] = []
    for m, parts in zip(mesa_of, split):
        pid, mesa = f"P{len(pueblos)}", mesas[m].id
        if parts == 1:
            pueblos.append(Pueblo(pid, mesa, (Sector(pid, pid, "single", next(made_polys)),)))
        else:
            pueblos.append(Pueblo(pid, mesa, (Sector(pid + "s", pid, "small", next(made_polys)),
                                              Sector(pid + "l", pid, "large", next(made_polys)))))
    expedition = tuple(
        ExpeditionCamp(f"E{k + 1}", next(made_polys), (round(float(st[0]), DECIMALS),
                                                       round(float(st[1]), DECIMALS)))
        for k, st in enumerate(starts))
    return Table(mesas, tuple(pueblos), expedition, sizes)


def _centred(shape: shapely.Polygon) -> np.ndarray:
    """A given outline's vertices around its centroid, counter-clockwise."""
    c = shape.centroid
    ring = shapely.orient_polygons(shape).exterior
    return np.asarray(ring.coords)[:-1] - (c.x, c.y)


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
