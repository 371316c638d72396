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
from typing import Any

import numpy as np
import pymunk
import shapely

from games.anasazi.legality import Recent

from games.anasazi.components import (
    BONUS_PER_COLOUR, COLOURS, DIVIDED_PUEBLOS, EXPEDITION_CAMPS, MAX_PLAYERS, MESA_COUNTS,
    MIN_PLAYERS, OBJECTIVES, PUEBLOS, RING_NAMES, TOWERS_PER_COLOUR, TREASURES_PER_COLOUR,
    DECIMALS, ExpeditionCamp, Mesa, Pueblo, Sector, Setup, Sizes, Table, rounded,
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


def ring_of(index: int) -> str:
    """The ring of mesa number `index` (0 centre, 1-12 inner, 13-27 outer)."""
    if index < MESA_COUNTS["centre"]:
        return "centre"
    return "inner" if index < MESA_COUNTS["centre"] + MESA_COUNTS["inner"] else "outer"


def mesa_outline(rng: np.random.Generator, radius: float, options: LayoutOptions) -> np.ndarray:
    """Vertices (n, 2) of an irregular mesa centred near (0, 0): a wobbly, ragged disc."""
    n = options.mesa_vertices * (2 if radius > 60 else 1)
    theta = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
    theta += rng.uniform(-0.3, 0.3, n) * (2 * np.pi / n)
    r = np.ones(n)
    for k in (2, 3, 4):  # low harmonics give lobes and bays; higher ones would look like gears
        r += rng.uniform(0.3, 1.0) * options.irregularity / (k - 1) ** 0.7 \
            * np.cos(k * theta + rng.uniform(0, 2 * np.pi))
    r += rng.normal(0.0, options.roughness, n)
    r *= radius / r.mean()
    return np.column_stack([r * np.cos(theta), r * np.sin(theta)])


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
    turning. Single-threaded pymunk is deterministic.
    """
    space = pymunk.Space()
    space.damping = 0.05  # velocity kept after one second: tiles stop as soon as they part
    space.iterations = 20
    clearance = sizes.valley_gap / 2 + options.slop
    bodies = []
    for i, (outline, centre) in enumerate(zip(outlines, centres)):
        if i == 0:
            body = pymunk.Body(body_type=pymunk.Body.STATIC)
        else:
            body = pymunk.Body(mass=1.0, moment=math.inf)
        body.position = (float(centre[0]), float(centre[1]))
        shape = pymunk.Poly(body, [tuple(v) for v in outline], radius=clearance)
        space.add(body, shape)
        bodies.append(body)
    for square in camps:
        space.add(pymunk.Poly(space.static_body, [tuple(v) for v in square], radius=clearance))
    edge = sizes.play_area_radius
    wall = [(edge * math.cos(t), edge * math.sin(t)) for t in np.linspace(0, 2 * np.pi, 97)]
    for p, q in zip(wall, wall[1:]):
        space.add(pymunk.Segment(space.static_body, p, q, 0.0))

    deepest = [0.0]

    def record(arbiter: pymunk.Arbiter, space: pymunk.Space, data: Any) -> None:
        for point in arbiter.contact_point_set.points:
            deepest[0] = min(deepest[0], point.distance)

    space.on_collision(post_solve=record)
    # Settled when no contact is deeper than a fraction of the slop for a few steps in a row.
    calm, dt = 0, 1.0 / 60.0
    for _ in range(options.max_steps):
        deepest[0] = 0.0
        space.step(dt)
        calm = calm + 1 if deepest[0] > -options.slop / 4 else 0
        if calm >= 3:
            return np.array([b.position for b in bodies])
    return None


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
        counts[int(rng.choice(room))] += 1
    return counts


def pueblo_shape(length: float, width: float, divided: bool, small_share: float
                 ) -> list[np.ndarray]:
    """Sector outlines in the pueblo's own frame (long axis along x): an octagon (a block with
    cut corners), whole or cut across into a small and a large sector."""
    hl, hw, cut = length / 2, width / 2, 0.22 * width
    octagon = shapely.Polygon([(-hl + cut, -hw), (hl - cut, -hw), (hl, -hw + cut), (hl, hw - cut),
                               (hl - cut, hw), (-hl + cut, hw), (-hl, hw - cut), (-hl, -hw + cut)])
    if not divided:
        return [np.asarray(octagon.exterior.coords)[:-1]]
    split = -hl + small_share * length
    parts = [shapely.clip_by_rect(octagon, -hl, -hw, split, hw),
             shapely.clip_by_rect(octagon, split, -hw, hl, hw)]
    return [np.asarray(shapely.orient_polygons(p).exterior.coords)[:-1] for p in parts]


def _placed(parts: list[np.ndarray], x: float, y: float, heading: float) -> list[shapely.Polygon]:
    c, s = math.cos(heading), math.sin(heading)
    rot = np.array([[c, s], [-s, c]])
    return [rounded(shapely.Polygon(p @ rot + (x, y))) for p in parts]


def place_pueblos(rng: np.random.Generator, mesa: shapely.Polygon, shapes: list[list[np.ndarray]],
                  options: LayoutOptions) -> list[list[shapely.Polygon]] | None:
    """Put each pueblo (its sector outlines) wholly on the mesa, `pueblo_margin` from the edge
    and `pueblo_spacing` from each other: along a cliff edge or inside, at random. None if
    they do not fit after a few tries."""
    room = mesa.buffer(-options.pueblo_margin, quad_segs=2)
    shapely.prepare(room)
    for _ in range(4):  # a crowded mesa may need the pueblos laid out afresh
        placed: list[list[shapely.Polygon]] = []
        for parts in shapes:
            polys = _place_one(rng, room, parts, [shapely.union_all(p) for p in placed], options)
            if polys is None:
                break
            placed.append(polys)
        else:
            return placed
    return None


def _place_one(rng: np.random.Generator, room: shapely.Polygon, parts: list[np.ndarray],
               others: list[shapely.Polygon], options: LayoutOptions
               ) -> list[shapely.Polygon] | None:
    """One pueblo's sectors placed inside `room`, clear of `others`, or None."""
    corners = np.concatenate(parts)
    outline = np.asarray(shapely.MultiPoint(corners).convex_hull.exterior.coords)[:-1]
    half_width = float(np.abs(corners[:, 1]).max())
    # Centres along the cliff lie on a line half a pueblo inside the edge, the pueblo's long
    # side parallel to it; centres inside lie anywhere at least half a width deeper.
    edge = room.buffer(-half_width - 0.5, quad_segs=2).exterior
    core = room.buffer(-half_width - 3.0, quad_segs=2)
    along_edge = rng.random() < options.edge_share
    for attempt in range(40):
        if attempt == 20:  # this mode does not fit here: try the other
            along_edge = not along_edge
        pose = _edge_pose(rng, edge) if along_edge else _inner_pose(rng, core)
        if pose is None:
            continue
        # A pueblo is convex: test its outline (the hull of its sectors), cut it once it fits.
        whole = _placed([outline], *pose)[0]
        if room.contains(whole) and all(shapely.distance(whole, o) >= options.pueblo_spacing
                                        for o in others):
            return _placed(parts, *pose) if len(parts) > 1 else [whole]
    return None


def _edge_pose(rng: np.random.Generator, line: shapely.LineString
               ) -> tuple[float, float, float] | None:
    """A point on the line and the line's direction there."""
    if line.is_empty or line.length < 10.0:
        return None
    t = rng.uniform(0, line.length)
    p, q, mid = line.interpolate(t - 3.0), line.interpolate(t + 3.0), line.interpolate(t)
    return mid.x, mid.y, math.atan2(q.y - p.y, q.x - p.x)


def _inner_pose(rng: np.random.Generator, core: shapely.Geometry
                ) -> tuple[float, float, float] | None:
    """A random point of `core` and a random heading."""
    if core.is_empty:
        return None
    x0, y0, x1, y1 = core.bounds
    for _ in range(20):
        x, y = rng.uniform(x0, x1), rng.uniform(y0, y1)
        if core.contains(shapely.Point(x, y)):
            return x, y, rng.uniform(0, 2 * math.pi)
    return None


def make_pueblos(rng: np.random.Generator, mesas: Sequence[Mesa], options: LayoutOptions
                 ) -> list[Pueblo] | None:
    """44 pueblos (16 of them divided, chosen at random) spread over the mesas."""
    counts = pueblo_counts(rng, options)
    divided = set(rng.choice(PUEBLOS, DIVIDED_PUEBLOS, replace=False).tolist())
    pueblos: list[Pueblo] = []
    number = 0
    for mesa, count in zip(mesas, counts):
        kinds = [number + k in divided for k in range(count)]
        shapes = []
        for is_divided in kinds:
            length, width = options.divided_pueblo if is_divided else options.single_pueblo
            scale = 1 + rng.uniform(-options.pueblo_size_jitter, options.pueblo_size_jitter)
            shapes.append(pueblo_shape(length * scale, width * scale, is_divided,
                                       options.small_share))
        placed = place_pueblos(rng, mesa.polygon, shapes, options)
        if placed is None:
            return None
        for polys in placed:
            pid = f"P{number}"
            if len(polys) == 1:
                sectors = (Sector(pid, pid, "single", polys[0]),)
            else:
                sectors = (Sector(pid + "s", pid, "small", polys[0]),
                           Sector(pid + "l", pid, "large", polys[1]))
            pueblos.append(Pueblo(pid, mesa.id, sectors))
            number += 1
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
        outlines = [mesa_outline(rng, r, options) for r in radii]
    camps, starts = camp_squares(rng, sizes, options)
    centres = relax(outlines, start_positions(rng, options), camps, sizes, options)
    if centres is None:
        return None
    mesas = tuple(Mesa(f"M{i}", ring_of(i), rounded(shapely.Polygon(o + c)))
                  for i, (o, c) in enumerate(zip(outlines, centres)))
    pueblos = make_pueblos(rng, mesas, options)
    if pueblos is None:
        return None
    expedition = tuple(
        ExpeditionCamp(f"E{k + 1}", rounded(shapely.Polygon(sq)),
                       (round(float(st[0]), DECIMALS), round(float(st[1]), DECIMALS)))
        for k, (sq, st) in enumerate(zip(camps, starts)))
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
        _VALID_TABLES.of_table(setup.table, lambda: validate_table(setup.table) or True)
    return setup


_VALID_TABLES = Recent(64)  # the tables that last passed `validate_table`


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
    bare = [m.id for m in table.mesas if not table.pueblos_on(m.id)]
    if bare:
        problems.append(f"mesa(s) {', '.join(bare)} hold no pueblo (every mesa has one)")
    if len(table.expedition_camps) != EXPEDITION_CAMPS:
        problems.append(f"{len(table.expedition_camps)} expedition base camps, the game has "
                        f"{EXPEDITION_CAMPS}")
    return problems


def _outside_play_area(geom: shapely.Geometry, radius: float) -> float:
    """By how much (mm) the farthest vertex lies beyond the play area's edge (<= 0 inside)."""
    xy = shapely.get_coordinates(geom)
    return float(np.hypot(xy[:, 0], xy[:, 1]).max() - radius)


def _pairs_closer(geoms: Sequence[shapely.Geometry], limit: float) -> list[tuple[int, int, float]]:
    """Index pairs of geometries closer than `limit`, with their distance."""
    tree = shapely.STRtree(geoms)
    left, right = tree.query(geoms, predicate="dwithin", distance=limit)
    keep = left < right
    left, right = left[keep], right[keep]
    dist = shapely.distance(np.asarray(geoms)[left], np.asarray(geoms)[right])
    return [(int(i), int(j), float(d)) for i, j, d in zip(left, right, dist)
            if d < limit]


def _check_mesas(table: Table) -> list[str]:
    sizes, problems = table.sizes, []
    polys = [m.polygon for m in table.mesas]
    for i, j, d in _pairs_closer(polys, sizes.valley_gap - TOLERANCE):
        problems.append(f"mesas {table.mesas[i].id} and {table.mesas[j].id} are {d:.2f} mm "
                        f"apart: a base camp needs a valley of {sizes.valley_gap:g} mm")
    for m in table.mesas:
        over = _outside_play_area(m.polygon, sizes.play_area_radius)
        if over > TOLERANCE:
            problems.append(f"mesa {m.id} hangs {over:.2f} mm over the play area's edge")
    return problems


def _check_pueblos(table: Table) -> list[str]:
    sizes, problems = table.sizes, []
    sectors = table.sectors
    polys = np.array([s.polygon for s in sectors], dtype=object)
    mesas = np.array([table.mesa_of(s.id).polygon for s in sectors], dtype=object)
    # Wholly on its mesa: nothing of the sector lies outside (within rounding).
    outside = shapely.area(shapely.difference(polys, mesas))
    # Reachable: a marker pointed straight at the sector from the centre side touches it and
    # stays inside the play area.
    near = shapely.distance(shapely.Point(0, 0), polys)
    reach = np.hypot(near, sizes.marker_width / 2) - sizes.play_area_radius
    # Room for its piece: a disc as wide as a tower, or as a treasure cube's side, fits inside.
    need = np.array([sizes.tower_radius if s.kind == "small" else sizes.treasure_size / 2
                     for s in sectors])
    room = shapely.is_empty(shapely.buffer(polys, -(need - 0.05), quad_segs=2))
    for k, s in enumerate(sectors):
        if outside[k] > TOLERANCE:
            problems.append(f"sector {s.id} is not wholly on its mesa {table.pueblo_of(s.id).mesa}"
                            f" ({outside[k]:.1f} mm² off it)")
        if reach[k] > TOLERANCE:
            problems.append(f"sector {s.id} cannot be reached inside the play area")
        if room[k]:
            piece = "tower" if s.kind == "small" else "treasure"
            problems.append(f"sector {s.id} is too small to hold its {piece}")
    for p in table.pueblos:
        if p.divided and p.sectors[0].polygon.intersection(p.sectors[1].polygon).area > TOLERANCE:
            problems.append(f"the sectors of pueblo {p.id} overlap")
    whole = [p.polygon for p in table.pueblos]
    for i, j, _ in _pairs_closer(whole, TOLERANCE):
        if whole[i].intersection(whole[j]).area > TOLERANCE:
            problems.append(f"pueblos {table.pueblos[i].id} and {table.pueblos[j].id} overlap")
    return problems


def _check_camps(table: Table) -> list[str]:
    sizes, problems = table.sizes, []
    camps = table.expedition_camps
    if not camps:
        return problems
    mesas = np.array([m.polygon for m in table.mesas], dtype=object)
    outer = [m.polygon.centroid for m in table.mesas if m.ring == "outer"]
    ring_radius = max((math.hypot(c.x, c.y) for c in outer), default=0.0)
    for e in camps:
        over = _outside_play_area(e.polygon, sizes.play_area_radius)
        if over > TOLERANCE:
            problems.append(f"expedition camp {e.id} hangs {over:.2f} mm over the play area's edge")
        gaps = shapely.distance(e.polygon, mesas) if len(mesas) else np.array([math.inf])
        if gaps.min() >= sizes.marker_length:
            problems.append(f"expedition camp {e.id} is {gaps.min():.2f} mm from the nearest "
                            f"mesa: it must be nearer than one marker ({sizes.marker_length:g} mm)")
        for k in np.flatnonzero(gaps <= 0):
            problems.append(f"expedition camp {e.id} lies on mesa {table.mesas[k].id}")
        centre = e.polygon.centroid
        if math.hypot(centre.x, centre.y) <= ring_radius:
            problems.append(f"expedition camp {e.id} is not outside the outer circle of mesas")
        start = shapely.Point(e.start)
        if not e.polygon.contains(start) or \
                e.polygon.exterior.distance(start) < sizes.start_mark_radius - TOLERANCE:
            problems.append(f"expedition camp {e.id}: its start mark is not wholly on the tile")
    for i, j, _ in _pairs_closer([e.polygon for e in camps], 0.0):
        problems.append(f"expedition camps {camps[i].id} and {camps[j].id} overlap")
    problems += _check_camp_spacing(camps)
    return problems


def _check_camp_spacing(camps: Sequence[ExpeditionCamp]) -> list[str]:
    """The camps stand in a circle at roughly equal distances: sorted by angle, each gap is
    within CAMP_SPACING_TOLERANCE degrees of 360/6."""
    angles = {e.id: math.degrees(math.atan2(e.start[1], e.start[0])) % 360 for e in camps}
    order = sorted(angles, key=angles.get)
    even = 360.0 / len(order)
    problems = []
    for a, b in zip(order, order[1:] + order[:1]):
        gap = (angles[b] - angles[a]) % 360 or (360.0 if len(order) == 1 else 0.0)
        if abs(gap - even) > CAMP_SPACING_TOLERANCE:
            problems.append(f"expedition camps {a} and {b} are {gap:.1f} degrees apart, not "
                            f"roughly {even:.0f}")
    return problems
