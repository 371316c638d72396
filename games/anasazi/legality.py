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

import functools
import importlib.util
import math
import operator
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeAlias, TypeVar, cast

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray

from games.anasazi.components import Sizes, Table
from geomsim.compiled import register
from geomsim.geometry import (
    Pose,
    distance_to_rectangle,
    rectangles,
    unit,
)
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

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


# -- what lies on the table --------------------------------------------------------------------
@dataclass(frozen=True)
class Camp:
    """A base camp marker of `owner`, a disc of `sizes.base_camp_radius` centred at (x, y)."""

    owner: int
    x: float
    y: float

    @functools.cached_property
    def centre(self) -> complex:
        """The centre as a complex number x + iy (kept: the samplers ask again and again)."""
        return complex(self.x, self.y)


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
    # What `extended` (`grown`) and `kept` made, with what they were made from (a tuple of the
    # sources, then the value); and the same of the board this one follows (`follow`).
    _made: dict[Any, tuple[Any, ...]] = field(default_factory=dict, init=False, repr=False,
                                              compare=False)
    _before: dict[Any, tuple[Any, ...]] = field(default_factory=dict, init=False, repr=False,
                                                compare=False)

    def memo(self, key: Any, make: Callable[[], T]) -> T:
        """`make()`, computed once per board and key."""
        if key not in self._memo:
            self._memo[key] = make()
        return cast(T, self._memo[key])  # what the `make` of this key made

    def follow(self, previous: Board | None) -> Board:
        """This board, allowed to take over what `extended` (`grown`) and `kept` made for
        `previous` (the board of the same game before the last change) where it still holds;
        returns self."""
        if previous is not None and previous.table is self.table:
            # What `previous` did not make itself, it may hand on from the board it followed.
            object.__setattr__(self, "_before", {**previous._before, **previous._made})
        return self

    def grown(self, key: Any, items: Sequence[Any], make: Callable[[Sequence[Any]], NDArray[Any]]
              ) -> NDArray[Any]:
        """`make(items)`, an array whose last axis runs over `items`, once per board; when the
        board followed has it for the first of these very items (compared by identity), only
        the items added since are made and appended."""
        made = self._made.get(key)
        if made is not None:
            return cast(NDArray[Any], made[2])  # what `make` and `_append` of this key made
        return self.extended(key, (), items, lambda new, start: make(new), _append)

    def extended(self, key: Any, fixed: Sequence[Any], items: Sequence[Any],
                 make: Callable[[Sequence[Any], int], T], join: Callable[[T, T], T]) -> T:
        """`make(items, 0)` once per board: a value made piece by piece of `items` (numbered
        from 0) and of the `fixed` sources. When the board followed made it from these very
        `fixed` sources and the first n of these very `items` (all compared by identity), the
        value is that one joined with ``make(items[n:], n)``, the part of the items added
        since: ``join(value, part)`` (so `make` of a part and `join` must give what `make` of
        the whole does)."""
        made = self._made.get(key)
        if made is None:
            was, done, value = self._before.get(key, ((), (), None))
            n = len(done)
            if (value is not None and n <= len(items) and len(was) == len(fixed)
                    and all(map(operator.is_, was, fixed)) and all(map(operator.is_, done, items))):
                if n < len(items):
                    value = join(value, make(items[n:], n))
            else:
                value = make(items, 0)
            made = self._made[key] = (tuple(fixed), tuple(items), value)
        return cast(T, made[2])  # what `make` and `join` of this key made

    def kept(self, key: Any, sources: Sequence[Any], make: Callable[[], T]) -> T:
        """`make()` once per board, or the value the board followed made from these very
        `sources` (compared by identity)."""
        if key not in self._made:
            hit = self._before.get(key)
            if hit is not None and len(hit[0]) == len(sources) and all(
                    map(operator.is_, hit[0], sources)):
                value = hit[1]
            else:
                value = make()
            self._made[key] = (tuple(sources), value)
        return cast(T, self._made[key][1])  # what the `make` of this key made

    @property
    def sizes(self) -> Sizes:
        """The table's piece sizes."""
        return self.table.sizes

    def markers(self) -> list[tuple[str, int, Pose]]:
        """Every marker on the table as (expedition, index in it, pose)."""
        return [(e, i, p) for e, poses in self.expeditions.items() for i, p in enumerate(poses)]


def _append(value: NDArray[Any], part: NDArray[Any]) -> NDArray[Any]:
    """Arrays joined along their last axis (what `Board.grown` appends)."""
    return np.concatenate([value, part], axis=-1)


class Recent(OrderedDict[K, V]):
    """A dict that keeps only the `size` entries put last (the oldest goes first): the caches
    of what is derived from immutable things (tables, poses, texts) and asked for again."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def put(self, key: K, value: V) -> V:
        """Keep `value` under `key` as the newest entry; return it."""
        self[key] = value
        self.move_to_end(key)
        if len(self) > self.size:
            self.popitem(last=False)
        return value

    def of_table(self: Recent[int, tuple[Table, T]], table: Table, make: Callable[[], T]) -> T:
        """What `make()` made for this very table (kept under its id, checked by identity:
        Python reuses the ids of objects gone)."""
        hit = self.get(id(table))
        if hit is None or hit[0] is not table:
            hit = self.put(id(table), (table, make()))
        return hit[1]


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
        poly = _POLYGONS.put(key, cast(shapely.Polygon, shapely.polygons(np.array(
            [(pose.x + u * c - v * s, pose.y + u * s + v * c)
             for u, v in ((a, b), (-a, b), (-a, -b), (a, -b))]))))
    return poly


_POLYGONS: Recent[tuple[float, ...], shapely.Polygon] = Recent(4096)


def marker_polygons(x: ArrayLike, y: ArrayLike, heading: ArrayLike, sizes: Sizes
                    ) -> NDArray[np.object_]:
    """Outlines of many markers at once (from corner arrays, never `shapely.affinity`)."""
    return rectangles(x, y, heading, sizes.marker_length, sizes.marker_width)


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
        return (*_explorer(board, expedition), sizes.explorer_radius)
    return (*board.table.expedition_camp(expedition).start, sizes.start_mark_radius)


def _explorer(board: Board, expedition: str) -> tuple[float, float]:
    """The explorer of the last marker of a started expedition (kept while it is the last)."""
    return _explorer_of(board.expeditions[expedition][-1], board.sizes)


def _explorer_of(pose: Pose, sizes: Sizes) -> tuple[float, float]:
    """`explorer_centre`, kept per pose object (a pose on the table is asked again and again)."""
    hit = _EXPLORERS.get(id(pose))
    if hit is not None and hit[0] is pose and hit[1] is sizes:
        return hit[2]
    centre = explorer_centre(pose, sizes)
    if len(_EXPLORERS) >= 8192:
        _EXPLORERS.clear()
    _EXPLORERS[id(pose)] = (pose, sizes, centre)  # the pose is held: its id is not reused
    return centre


_EXPLORERS: dict[int, tuple[Pose, Sizes, tuple[float, float]]] = {}


def end_camps(board: Board, expedition: str) -> frozenset[int]:
    """The base camps that the end of `expedition` sits on: those its last marker overlaps.

    Any player may lay the next marker of that expedition over them (rule 4.2).
    """
    poses = board.expeditions.get(expedition) or ()
    if not poses or not board.camps:
        return frozenset()
    # While the end stays, only the base camps built since are asked about.
    return board.extended(("end camps", expedition), poses[-1:], board.camps,
                          lambda camps, start: frozenset(covered_camps(board, poses[-1], start)),
                          operator.or_)


def end_explorers(board: Board, exclude: str | None = None) -> list[tuple[str, float, float]]:
    """The explorer at the end of every started expedition but `exclude`: (expedition, x, y)."""
    def make() -> list[tuple[str, float, float]]:
        sizes = board.sizes
        return [(e, *_explorer_of(poses[-1], sizes))
                for e, poses in board.expeditions.items() if poses]

    ends = board.memo("end explorers", make)
    return [end for end in ends if end[0] != exclude]


def _camp_points(board: Board) -> NDArray[np.object_]:
    return board.grown("camp points", board.camps, lambda camps: cast(
        NDArray[np.object_], shapely.points(
            np.array([(c.x, c.y) for c in camps], dtype=float).reshape(-1, 2))))


class Circles(NamedTuple):
    """Circles around pieces, for cheap prefilters: centres as complex numbers x + iy, radii."""

    centre: NDArray[np.complex128]
    radius: Array | float


def _camp_discs(board: Board) -> Circles:
    """The base camps as circles (made once per board, grown from the board followed)."""
    centres = board.grown("camp centres", board.camps, lambda camps: np.array(
        [complex(c.x, c.y) for c in camps], dtype=complex))
    return Circles(centres, board.sizes.base_camp_radius)


def _marker_frames(board: Board) -> tuple[Circles, NDArray[np.complex128]]:
    """The markers on the table, in the order of `board.markers()`: circles around them
    (`_marker_reach`) and their headings as unit complex numbers (exact for quarter turns, as
    `marker_polygon` makes them); made once per board, grown from the board followed."""
    def make(poses: Sequence[Pose]) -> NDArray[np.complex128]:
        return np.array([(complex(p.x, p.y), complex(*cos_sin(p.heading))) for p in poses],
                        dtype=complex).reshape(-1, 2).T

    def frames() -> tuple[Circles, NDArray[np.complex128]]:
        rows = np.concatenate([np.zeros((2, 0), complex)] + [
            board.grown(("frames", e), poses, make) for e, poses in board.expeditions.items()],
            axis=1)
        return Circles(rows[0], _marker_reach(board.sizes)), rows[1]

    return board.memo("marker frames", frames)


def _near(circles: Circles, x: float, y: float, d: float) -> NDArray[np.intp]:
    """The indices of the circles that come within `d` of (x, y): a prefilter that never
    drops a piece closer than `d` to the point."""
    return (np.abs(circles.centre - complex(x, y)) <= circles.radius + d).nonzero()[0]


def _camps_near(board: Board, x: float, y: float, d: float, start: int = 0) -> list[int]:
    """`_near` of the base camps numbered `start` and on, in plain Python for a handful (abs
    of a complex number is `hypot`, which may differ from numpy's `abs` in the last bit: for
    prefilters with room to spare)."""
    centre, limit, camps = complex(x, y), board.sizes.base_camp_radius + d, board.camps
    return [i for i in range(start, len(camps)) if abs(camps[i].centre - centre) <= limit]


def _marker_reach(sizes: Sizes) -> float:
    """How far from its centre a marker reaches (half its diagonal), with 1 mm to spare."""
    return math.hypot(sizes.marker_length, sizes.marker_width) / 2.0 + 1.0


# The exact path asks shapely only where the answer is close: a plain-Python formula decides
# first, and only where it lies within `MARGIN` of the threshold does shapely decide (the two
# differ by rounding, ~1e-12 mm on a table, far less than MARGIN), so the verdicts and the
# numbers reported are shapely's.
MARGIN = 1e-6  # mm


def _local(pose: Pose, x: float, y: float) -> tuple[float, float]:
    """The point (x, y) in the frame of a marker at `pose`: (along, across)."""
    c, s = cos_sin(pose.heading)
    dx, dy = x - pose.x, y - pose.y
    return dx * c + dy * s, dy * c - dx * s


def _rect_distance(pose: Pose, sizes: Sizes, x: float, y: float) -> float:
    """Distance from (x, y) to a marker at `pose` (0 inside), analytic."""
    u, v = _local(pose, x, y)
    return math.hypot(max(abs(u) - sizes.marker_length / 2.0, 0.0),
                      max(abs(v) - sizes.marker_width / 2.0, 0.0))


def _rect_depth(pose: Pose, sizes: Sizes, x: float, y: float) -> float:
    """Signed distance of (x, y) from the outline of a marker at `pose`, positive inside
    (analytic `_depth`)."""
    u, v = _local(pose, x, y)
    du, dv = abs(u) - sizes.marker_length / 2.0, abs(v) - sizes.marker_width / 2.0
    if du <= 0.0 and dv <= 0.0:
        return -max(du, dv)
    return -math.hypot(max(du, 0.0), max(dv, 0.0))


def _rect_extent(pose: Pose, sizes: Sizes) -> float:
    """Distance from the table's centre to the farthest corner of a marker at `pose`."""
    u, v = _local(pose, 0.0, 0.0)
    u, v = abs(u), abs(v)
    a, b = sizes.marker_length / 2.0, sizes.marker_width / 2.0
    return math.sqrt(u * (u + 2 * a) + v * (v + 2 * b) + (a * a + b * b))


# -- the exact path ----------------------------------------------------------------------------
ORIGIN = shapely.Point(0.0, 0.0)


def marker_violations(board: Board, player: int, expedition: str, pose: Pose) -> list[Violation]:
    """Every geometric rule of 4.2 that laying a marker of `expedition` at `pose` by `player`
    breaks, each with the numbers that say why (exact: shapely distances)."""
    return _marker_violations(board, player, expedition, pose.x, pose.y, pose.heading,
                              lambda: pose)


def judged_marker(board: Board, player: int, expedition: str, x: float, y: float,
                  heading: float, pose: Callable[[], Pose]) -> tuple[Violation, ...]:
    """`marker_violations` of the marker centred at (x, y) heading `heading` (degrees), judged
    once per board (a search judges the same markers again and again); `pose()` gives its
    `Pose`, asked for only when the answer is close (a marker legal by more than `MARGIN` is
    judged from the numbers alone)."""
    key = ("marker violations", player, expedition, x, y, heading)
    memo = board._memo
    found: tuple[Violation, ...] | None = memo.get(key)  # a hit: one look-up
    if found is None:
        found = memo[key] = tuple(_marker_violations(board, player, expedition, x, y, heading,
                                                     pose))
    return found


def _marker_violations(board: Board, player: int, expedition: str, x: float, y: float,
                       heading: float, make_pose: Callable[[], Pose]) -> list[Violation]:
    """`marker_violations` of the marker at (x, y, heading), whose `Pose` is `make_pose()`."""
    ctx = board._memo.get(("context", player, expedition, True))  # (`marker_context`'s key)
    if ctx is None:
        try:
            ctx = marker_context(board, player, expedition)
        except KeyError:
            found = expedition_violations(board, expedition)
            if found:
                return found
            raise
    if _clearly_legal(ctx, x, y, heading):
        return []  # what follows would find nothing, at some cost (shapely objects)
    pose = make_pose()
    sizes = board.sizes
    rect = marker_polygon(pose, sizes)
    found = _cover_violations(board, expedition, pose, rect)
    if _rect_extent(pose, sizes) > sizes.play_area_radius + EPS - MARGIN:
        found += _overhang(MARKER_PLAY_AREA, "marker",
                           float(shapely.hausdorff_distance(ORIGIN, rect)), sizes)  # farthest corner
    found += _camp_cover_violations(board, player, expedition, pose, rect)
    found += _hidden_explorer_violations(board, expedition, pose, rect)
    return found


def _overhang(rule: str, piece: str, extent: float, sizes: Sizes) -> list[Violation]:
    """The violation of a piece whose farthest point lies `extent` mm from the table's centre,
    if that is beyond the edge of the play area."""
    if extent <= sizes.play_area_radius + EPS:
        return []
    over = extent - sizes.play_area_radius
    return [Violation(rule, f"the {piece} hangs {over:.3f} mm over the edge of the play area",
                      {"overhang_mm": over, "extent_mm": extent})]


def expedition_violations(board: Board, expedition: str) -> list[Violation]:
    """The violation of naming an expedition that the table does not have (none if it has)."""
    camps = board.table.expedition_camps
    if any(e.id == expedition for e in camps):
        return []
    return [Violation(EXPEDITION_CAMP, f"{expedition!r} is not an expedition base camp (known: "
                      f"{', '.join(e.id for e in camps)})", {"expedition": expedition})]


def _depth(rect: shapely.Polygon, point: shapely.Point) -> float:
    """Signed distance of a point from the rectangle's outline, positive inside."""
    if shapely.covers(rect, point):
        return float(shapely.distance(rect.exterior, point))
    return -float(shapely.distance(rect, point))


def _cover_violations(board: Board, expedition: str, pose: Pose, rect: shapely.Polygon
                      ) -> list[Violation]:
    x, y, r = expedition_end(board, expedition)
    if _rect_depth(pose, board.sizes, x, y) >= r - EPS + MARGIN:
        return []  # covered, and clearly so
    last = board.expeditions.get(expedition) or ()
    # The point is kept while the end stays: a shapely Point costs more than the test.
    depth = _depth(rect, board.kept(("end point", expedition), last[-1:],
                                    lambda: shapely.Point(x, y)))
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
        if _depth(rect, shapely.Point(sx, sy)) >= board.sizes.start_mark_radius - EPS:
            found.append(Violation(ONE_PER_CAMP, f"{expedition} already has an expedition: only "
                                   "one may start from each expedition base camp; continue it at "
                                   f"its explorer ({x:.2f}, {y:.2f})", {"expedition": expedition}))
    return found


def _camp_cover_violations(board: Board, player: int, expedition: str, pose: Pose,
                           rect: shapely.Polygon) -> list[Violation]:
    r = board.sizes.base_camp_radius
    found = []
    for i, d in _overlapped_camps(board, pose):
        rule = _forbidden_camp(board, player, expedition, i)
        if rule is None:
            continue
        camp = board.camps[i]
        numbers = {"camp": int(i), "owner": camp.owner, "at": [camp.x, camp.y],
                   "depth_mm": r - d, "area_mm2": _overlap_area(rect, camp, r)}
        if rule == OTHER_CAMP:
            found.append(Violation(OTHER_CAMP, f"the marker covers {numbers['area_mm2']:.2f} mm² "
                                   f"(up to {numbers['depth_mm']:.3f} mm deep) of player "
                                   f"{camp.owner}'s base camp at ({camp.x:.2f}, {camp.y:.2f})",
                                   numbers))
        else:
            found.append(Violation(NEW_CAMP, f"the marker covers the base camp at ({camp.x:.2f}, "
                                   f"{camp.y:.2f}) placed this turn ({numbers['area_mm2']:.2f} mm²)",
                                   numbers))
    return found


def _forbidden_camp(board: Board, player: int, expedition: str, camp: int) -> str | None:
    """The rule that a marker of `expedition` laid by `player` breaks by covering base camp
    number `camp`, or None when it may: another player's camp is forbidden unless the
    expedition's end sits on it (rule 4.2), one's own only in the turn it was built. Both
    checking paths ask this."""
    if board.camps[camp].owner != player:
        return None if camp in end_camps(board, expedition) else OTHER_CAMP
    return NEW_CAMP if camp in board.fresh else None


def _overlapped_camps(board: Board, pose: Pose) -> list[tuple[int, float]]:
    """The base camps a marker at `pose` overlaps, with their distances from it (shapely, on
    the camps near enough to matter; once per board and pose: the exact check and laying the
    marker both ask)."""
    def make() -> list[tuple[int, float]]:
        sizes, camps = board.sizes, board.camps
        r = sizes.base_camp_radius
        near = [int(i) for i in _near(_camp_discs(board), pose.x, pose.y, _marker_reach(sizes))
                if _rect_distance(pose, sizes, camps[i].x, camps[i].y) <= r - EPS + MARGIN]
        if not near:
            return []
        dist = shapely.distance(marker_polygon(pose, sizes), _camp_points(board)[near])
        return [(int(i), float(d)) for i, d in zip(near, dist) if d <= r - EPS]

    return board.memo(("overlapped camps", pose), make)


def _overlap_area(rect: shapely.Polygon, camp: Camp, r: float) -> float:
    """The area of a base camp under a marker (mm², on a 256-gon: for reporting only)."""
    disc = shapely.Point(camp.x, camp.y).buffer(r, quad_segs=64)
    return float(shapely.area(shapely.intersection(rect, disc)))


def _hidden_explorer_violations(board: Board, expedition: str, pose: Pose,
                                rect: shapely.Polygon) -> list[Violation]:
    r = board.sizes.explorer_radius
    reach = _marker_reach(board.sizes) + r
    sizes = board.sizes
    ends = [(e, x, y) for e, x, y in end_explorers(board, exclude=expedition)
            if math.hypot(x - pose.x, y - pose.y) <= reach
            and _rect_distance(pose, sizes, x, y) <= r - EPS + MARGIN]
    if not ends:
        return []
    dist = shapely.distance(rect, shapely.points([(x, y) for _, x, y in ends]))
    return [Violation(EXPLORER_VISIBLE, f"the marker would hide the explorer at the end of "
                      f"expedition {e} at ({x:.2f}, {y:.2f}) by {r - d:.3f} mm",
                      {"expedition": e, "explorer": [x, y], "depth_mm": r - float(d)})
            for (e, x, y), d in zip(ends, dist) if d <= r - EPS]


def camp_violations(board: Board, x: float, y: float) -> list[Violation]:
    """Every geometric rule of 4.1 that a base camp centred at (x, y) breaks (exact: shapely
    distances to the pieces near enough to matter)."""
    sizes, geo = board.sizes, table_geometry(board.table)
    r = sizes.base_camp_radius
    point = shapely.Point(x, y)
    found, tiles = [], []
    blockers, circles = geo.blockers
    for j, d in _within(blockers, _near(circles, x, y, r), point, r - EPS):
        if j >= len(geo.mesa_ids):
            tiles.append((j - len(geo.mesa_ids), d))  # an expedition base camp tile
            continue
        found.append(Violation(CAMP_VALLEY, f"the base camp lies {r - d:.3f} mm on mesa "
                               f"{geo.mesa_ids[j]}: build only in a valley",
                               {"mesa": geo.mesa_ids[j], "depth_mm": r - d}))
    if math.hypot(x, y) + r > sizes.play_area_radius + EPS - MARGIN:
        found += _overhang(CAMP_PLAY_AREA, "base camp",
                           float(shapely.distance(ORIGIN, point)) + r, sizes)
    camps = board.camps
    near = [int(i) for i in _near(_camp_discs(board), x, y, r)
            if math.hypot(camps[i].x - x, camps[i].y - y) <= 2 * r - EPS + MARGIN]
    for i, d in _within(_camp_points(board), near, point, 2 * r - EPS):
        c = board.camps[i]
        found.append(Violation(CAMP_ON_CAMP, f"the base camp lies {2 * r - d:.3f} mm on "
                               f"player {c.owner}'s base camp at ({c.x:.2f}, {c.y:.2f})",
                               {"camp": i, "owner": c.owner, "depth_mm": 2 * r - d}))
    return found + _camp_on_pieces(board, x, y, point, r, tiles)


def _within(geoms: NDArray[np.object_], near: NDArray[np.intp] | list[int], point: shapely.Point,
            d: float) -> list[tuple[int, float]]:
    """Of the geometries `geoms[near]`, those within `d` of `point`: (index, distance)."""
    if not len(near):
        return []
    return [(int(i), float(dist)) for i, dist in zip(near, shapely.distance(geoms[near], point))
            if dist <= d]  # (a list `near` is an index array too)


def _camp_on_pieces(board: Board, x: float, y: float, point: shapely.Point, r: float,
                    tiles: list[tuple[int, float]]) -> list[Violation]:
    """A base camp lies directly on the play area: on no marker and no expedition base camp
    (`tiles`: those it lies on, with their distances)."""
    found = []
    near: NDArray[np.intp] | list[int] = _near(_marker_frames(board)[0], x, y, r)
    if len(near):
        markers = board.markers()
        near = [i for i in near if _rect_distance(markers[i][2], board.sizes, x, y)
                <= r - EPS + MARGIN]
    if len(near):
        rects = np.array([marker_polygon(markers[i][2], board.sizes) for i in near], dtype=object)
        for k, d in _within(rects, np.arange(len(near)), point, r - EPS):
            e, i, _ = markers[near[k]]
            found.append(Violation(CAMP_DIRECTLY, f"the base camp lies {r - d:.3f} mm on "
                                   f"marker {i + 1} of expedition {e}",
                                   {"expedition": e, "marker": i, "depth_mm": r - d}))
    for j, d in tiles:
        tile = board.table.expedition_camps[j]
        found.append(Violation(CAMP_DIRECTLY, f"the base camp lies {r - d:.3f} mm on "
                               f"expedition base camp {tile.id}",
                               {"expedition_camp": tile.id, "depth_mm": r - d}))
    return found


# -- effects of a marker (exact) ---------------------------------------------------------------
def touched_sectors(table: Table, pose: Pose) -> list[str]:
    """The pueblo sectors a marker at `pose` touches (`intersects`: the border counts)."""
    return touched(table, pose)[0]


def touched_mesas(table: Table, pose: Pose) -> list[str]:
    """The mesas a marker at `pose` lies on or touches."""
    return touched(table, pose)[1]


def touched(table: Table, pose: Pose) -> tuple[list[str], list[str]]:
    """The pueblo sectors and the mesas a marker at `pose` touches (`intersects`: the border
    counts); only those whose bounding circle comes near the marker are asked."""
    geo = table_geometry(table)
    prepared, circles = geo.touchables
    near = _near(circles, pose.x, pose.y, _marker_reach(table.sizes))
    if not len(near):
        return [], []
    hit = near[shapely.intersects(prepared[near], marker_polygon(pose, table.sizes))].tolist()
    ids, n = geo.sector_ids, len(geo.sector_ids)
    return [ids[i] for i in hit if i < n], [geo.mesa_ids[i - n] for i in hit if i >= n]


def covered_camps(board: Board, pose: Pose, start: int = 0) -> list[int]:
    """The indices of the base camps a marker at `pose` covers (even partly), of those numbered
    `start` and on: the analytic distance decides, shapely's (`_overlapped_camps`) only within
    `MARGIN` of the limit."""
    sizes, camps = board.sizes, board.camps
    limit = sizes.base_camp_radius - EPS
    found = []
    for i in _camps_near(board, pose.x, pose.y, _marker_reach(sizes), start):  # a mm to spare
        d = _rect_distance(pose, sizes, camps[i].x, camps[i].y)
        if d <= limit - MARGIN:
            found.append(i)
        elif d <= limit + MARGIN:
            return [i for i, _ in _overlapped_camps(board, pose) if i >= start]
    return found


# -- the batched path --------------------------------------------------------------------------
@dataclass(frozen=True)
class TableGeometry:
    """A table's polygons in one array, prepared for fast vectorised predicates, with a circle
    around each (cached per table). The order is sectors, mesas, expedition base camp tiles,
    so that what a marker may touch (sectors and mesas) and what a base camp may not lie on
    (mesas and tiles) are slices of it."""

    sector_ids: tuple[str, ...]
    mesa_ids: tuple[str, ...]
    polygons: NDArray[np.object_]
    circles: Circles
    small_ids: tuple[str, ...]  # the sectors that hold towers at setup
    treasure_ids: tuple[str, ...]  # the sectors that hold treasures at setup
    sector_mesa: dict[str, str]  # the mesa of each sector

    def _part(self, start: int, stop: int) -> tuple[NDArray[np.object_], Circles]:
        radius = cast(Array, self.circles.radius)  # a table's pieces have a radius each
        return self.polygons[start:stop], Circles(self.circles.centre[start:stop],
                                                  radius[start:stop])

    @functools.cached_property
    def sectors(self) -> tuple[NDArray[np.object_], Circles]:
        """The pueblo sectors (in `sector_ids` order) and their circles."""
        return self._part(0, len(self.sector_ids))

    @functools.cached_property
    def sector_index(self) -> dict[str, int]:
        """Each sector's place in `sector_ids` (the columns of `touched_sectors_batch`)."""
        return {s: j for j, s in enumerate(self.sector_ids)}

    @functools.cached_property
    def touchables(self) -> tuple[NDArray[np.object_], Circles]:
        """The sectors then the mesas (what a marker may touch), and their circles."""
        return self._part(0, len(self.sector_ids) + len(self.mesa_ids))

    @functools.cached_property
    def blockers(self) -> tuple[NDArray[np.object_], Circles]:
        """The mesas then the tiles (what a base camp may not lie on), and their circles."""
        return self._part(len(self.sector_ids), len(self.polygons))


_GEOMETRY: Recent[int, tuple[Table, TableGeometry]] = Recent(64)


def table_geometry(table: Table) -> TableGeometry:
    """The prepared polygons of `table` (kept for the 64 tables made last)."""
    return _GEOMETRY.of_table(table, lambda: _table_geometry(table))


def _table_geometry(table: Table) -> TableGeometry:
    polygons = np.array([s.polygon for s in table.sectors] + [m.polygon for m in table.mesas]
                        + [t.polygon for t in table.expedition_camps], dtype=object)
    polygons = shapely.transform(polygons, lambda xy: xy)  # copies: the table's stay unprepared
    shapely.prepare(polygons)
    geo = TableGeometry(tuple(s.id for s in table.sectors), tuple(m.id for m in table.mesas),
                        polygons, _circles_around(polygons),
                        tuple(s.id for s in table.small_sectors),
                        tuple(s.id for s in table.treasure_sectors),
                        {s.id: p.mesa for p in table.pueblos for s in p.sectors})
    return geo


def _circles_around(geoms: NDArray[np.object_]) -> Circles:
    """Circles around polygons: centred on their bounding boxes, through their farthest
    vertices."""
    xy, owner = shapely.get_coordinates(geoms, return_index=True)
    bounds = shapely.bounds(geoms).reshape(-1, 4)
    cx, cy = (bounds[:, 0] + bounds[:, 2]) / 2.0, (bounds[:, 1] + bounds[:, 3]) / 2.0
    radius = np.zeros(len(bounds))
    np.maximum.at(radius, owner, np.hypot(xy[:, 0] - cx[owner], xy[:, 1] - cy[owner]))
    return Circles(cx + 1j * cy, radius)


@dataclass(frozen=True)
class PoseCheck:
    """The verdict on many candidate placements: `ok` (n,) and, per rule id, a mask (n,) that is
    True where the placement breaks that rule (`broken`, worked out when first asked: samplers
    read only `ok`)."""

    ok: Mask
    masks: Callable[[], dict[str, Mask]] = field(repr=False, compare=False)

    @functools.cached_property
    def broken(self) -> dict[str, Mask]:
        """Per rule id, where the placements break it."""
        return self.masks()

    def __len__(self) -> int:
        return len(self.ok)


@dataclass(frozen=True)
class MarkerContext:
    """What the batched marker check needs about one expedition and one player, as arrays.

    Build it with `marker_context`; `rows` are the discs the marker may not overlap, each
    (x, y, radius, rule code: 0 = another player's base camp, 1 = a base camp placed this
    turn, 2 = another expedition's end explorer), and `obstacles` the same as an array (4, m).
    """

    sizes: Sizes
    expedition: str
    target: tuple[float, float, float]
    start: tuple[float, float, float] | None  # the start mark, once the expedition has started
    rows: tuple[tuple[float, float, float, int], ...]

    @functools.cached_property
    def obstacles(self) -> Array:
        """The obstacles as rows (4, m): x, y, radius, rule code (made when first asked: the
        random samplers read only `python_limits`)."""
        return np.array(self.rows, dtype=float).T if self.rows else _NO_OBSTACLES

    @functools.cached_property
    def centres(self) -> NDArray[np.complex128]:
        """The obstacles' centres as complex numbers x + iy."""
        centres: NDArray[np.complex128] = self.obstacles[0] + 1j * self.obstacles[1]
        return centres

    @functools.cached_property
    def reach(self) -> Array:
        """How near a marker may come to each obstacle's centre and still overlap it."""
        reach: Array = self.obstacles[2] - EPS
        return reach

    @functools.cached_property
    def obstacle_list(self) -> list[tuple[complex, float]]:
        """The obstacles as (centre, reach) pairs of Python numbers."""
        return list(zip(self.centres.tolist(), self.reach.tolist()))

    @functools.cached_property
    def limits(self) -> Array:
        """What both batched kernels read (rows in `games.anasazi.fused`'s order): the target's
        centre, the half-sides of the marker shrunk by the target's radius (`EPS` in favour of
        covering), the marker's half-sides, a² + b², and the square of the play area's radius
        plus `EPS`."""
        return np.array(self.python_limits[0])

    @functools.cached_property
    def obstacle_limits(self) -> Array:
        """The obstacles as rows (3, m): x, y and the square of how near the rectangle a disc's
        centre may come and overlap it (so distances are compared squared, without a root)."""
        rows = self.python_limits[1]
        return np.array(rows, dtype=float).T.copy() if rows else np.zeros((3, 0))

    @functools.cached_property
    def python_limits(self) -> tuple[list[float], list[tuple[float, float, float]]]:
        """`limits` and the columns of `obstacle_limits` as Python numbers (the very same)."""
        return self._limits(0.0), self._obstacle_rows(0.0)

    @functools.cached_property
    def clear_limits(self) -> tuple[list[float], list[tuple[float, float, float]]]:
        """`python_limits` moved `MARGIN` against the placement: a pose they judge legal is
        legal by more than `MARGIN` under every rule, so the exact check need not ask shapely
        (`_clearly_legal`)."""
        return self._limits(MARGIN), self._obstacle_rows(MARGIN)

    def _limits(self, margin: float) -> list[float]:
        a, b = self.sizes.marker_length / 2.0, self.sizes.marker_width / 2.0
        tx, ty, tr = self.target
        far = self.sizes.play_area_radius + EPS - margin
        return [tx, ty, a - tr + EPS - margin, b - tr + EPS - margin, a, b, a * a + b * b,
                far * far if far >= 0.0 else -1.0]

    def _obstacle_rows(self, margin: float) -> list[tuple[float, float, float]]:
        found = []
        for x, y, r, _ in self.rows:
            reach = r - EPS + margin
            found.append((x, y, reach * reach if reach >= 0.0 else -1.0))
        return found


_OBSTACLE_RULES = (OTHER_CAMP, NEW_CAMP, EXPLORER_VISIBLE)


def marker_context(board: Board, player: int, expedition: str, near_target: bool = True
                   ) -> MarkerContext:
    """The context of `check_markers` for `player` extending `expedition` on `board`.

    With `near_target` (the default) obstacles too far from the disc to cover to touch any
    marker that covers it are dropped: `ok` stays exact, and the per-rule masks are exact for
    every pose that covers the disc. Pass False for per-rule masks exact for any pose.
    """
    key = ("context", player, expedition, near_target)
    made = board._memo.get(key)  # (the single exact check asks first: no more than a look-up)
    if made is None:
        board.table.expedition_camp(expedition)  # KeyError for an unknown expedition
        made = board._memo[key] = _marker_context(board, player, expedition, near_target)
    return cast(MarkerContext, made)


def _marker_context(board: Board, player: int, expedition: str, near_target: bool
                    ) -> MarkerContext:
    sizes = board.sizes
    target = tx, ty, _ = expedition_end(board, expedition)
    start = ((*board.table.expedition_camp(expedition).start, sizes.start_mark_radius)
             if board.expeditions.get(expedition) else None)
    # A marker covering the target lies within its diagonal of the target's centre.
    reach = math.hypot(sizes.marker_length, sizes.marker_width) if near_target else math.inf
    rows = []
    rc, re_ = sizes.base_camp_radius, sizes.explorer_radius
    # (A last-bit difference of `_camps_near` matters only for a camp a whole diagonal away
    # from every marker that covers the target, whose verdicts are the same.)
    for i in _camps_near(board, tx, ty, reach):
        rule = _forbidden_camp(board, player, expedition, i)
        if rule is not None:
            camp = board.camps[i]
            rows.append((camp.x, camp.y, rc, _OBSTACLE_RULES.index(rule)))
    limit, hypot = reach + re_, math.hypot
    rows += [(x, y, re_, _EXPLORER_CODE) for e, x, y in end_explorers(board)
             if e != expedition and hypot(x - tx, y - ty) <= limit]
    return MarkerContext(sizes, expedition, target, start, tuple(rows))


_EXPLORER_CODE = _OBSTACLE_RULES.index(EXPLORER_VISIBLE)
_NO_OBSTACLES = np.zeros((4, 0))


def check_markers(ctx: MarkerContext, x: ArrayLike, y: ArrayLike, heading: ArrayLike,
                  fused: bool | None = None) -> PoseCheck:
    """Judge many marker poses (centres `x`, `y`, headings in degrees) of one expedition at once.

    Analytic: each disc's centre in every marker's frame; a disc is covered when its centre
    lies in the marker shrunk by its radius, overlaps when the distance to the rectangle is at
    most its radius (both within `EPS`). `fused` None judges `ok` with the compiled loop of
    `games.anasazi.fused` when numba is installed (tens of nanoseconds a pose), else with numpy
    (well under a microsecond); True or False asks for one of them. They agree pose by pose;
    the per-rule masks always come from numpy, when first asked.
    """
    xs, ys, turn = _floats(x), _floats(y), np.radians(_floats(heading))
    if not len(xs) == len(ys) == len(turn):
        xs, ys, turn = (np.array(v) for v in np.broadcast_arrays(xs, ys, turn))
    return _check_markers(ctx, xs, ys, turn, None, False, fused)


def _check_markers(ctx: MarkerContext, x: Array, y: Array, turn: Array,
                   e: NDArray[np.complex128] | None, covered: bool, fused: bool | None
                   ) -> PoseCheck:
    """`check_markers` of poses at (x, y) heading `turn` (radians; `e`, its unit complex
    numbers, when already made); `covered` tells that the poses cover the target by
    construction."""
    def numpy_check() -> PoseCheck:
        unit = np.exp(1j * turn) if e is None else e  # the C library's cos and sin, as numba's
        return _markers_numpy(ctx, x, y, unit.real, unit.imag, covered)

    kernel = _fused_kernel() if fused is None else _fused_kernel(required=fused) if fused else None
    if kernel is None:
        return numpy_check()
    ok = np.empty(len(x), bool)
    kernel(_plain(x), _plain(y), _plain(turn), not covered, ctx.limits, ctx.obstacle_limits, ok)
    return PoseCheck(ok, lambda: numpy_check().broken)


def _plain(values: Array) -> Array:
    """`values` as numba's one array type the kernel is compiled for (contiguous, writeable:
    a read-only or strided array would make numba compile it again)."""
    return values if values.flags.c_contiguous and values.flags.writeable else np.array(values)


register("games.anasazi.fused:warm")  # compiled before test workers and pools start


@functools.cache
def _fused_kernel(required: bool = False) -> Callable[..., None] | None:
    """`games.anasazi.fused.markers_ok`, or None when numba is not installed (ImportError if
    `required`)."""
    if not required and importlib.util.find_spec("numba") is None:
        return None
    from games.anasazi import fused

    return cast(Callable[..., None], fused.markers_ok)


# The numpy kernel computes what `games.anasazi.fused` does, with the same real arithmetic in
# the same order (a point's frame coordinates are dx c + dy s along, dy c - dx s across), so
# that the two agree to the last bit; (n, m) temporaries are real and reused.
def _markers_numpy(ctx: MarkerContext, x: Array, y: Array, c: Array, s: Array, covered: bool
                   ) -> PoseCheck:
    """`check_markers` in numpy, of poses at (x, y) heading (c, s)."""
    tx, ty, half_along, half_across, a, b, corner, far = ctx.python_limits[0]
    cover: Mask | None = None
    if not covered:
        dx, dy = tx - x, ty - y
        cover = (np.abs(dx * c + dy * s) <= half_along) & (np.abs(dy * c - dx * s) <= half_across)
    u, v = np.abs(x * c + y * s), np.abs(y * c - x * s)
    off = u * (u + 2 * a) + v * (v + 2 * b) + corner > far
    ok = ~off if cover is None else cover & ~off
    ox, oy, limit = ctx.obstacle_limits
    hits = None
    if len(ox):
        hits = _overlaps(ox - x[:, None], oy - y[:, None], c[:, None], s[:, None], a, b) <= limit
        ok &= ~hits.any(axis=1)

    def masks() -> dict[str, Mask]:
        none = np.zeros(len(x), bool)
        uncovered = none if cover is None else ~cover
        broken: dict[str, Mask] = {COVER_EXPLORER: uncovered, ONE_PER_CAMP: none,
                                   MARKER_PLAY_AREA: off}
        if ctx.start is not None:
            sx, sy, sr = ctx.start
            dx, dy = sx - x, sy - y
            broken[ONE_PER_CAMP] = ((np.abs(dx * c + dy * s) <= a - sr + EPS)
                                    & (np.abs(dy * c - dx * s) <= b - sr + EPS) & uncovered)
        codes = ctx.obstacles[3]
        for code, rule in enumerate(_OBSTACLE_RULES):
            cols = codes == code
            broken[rule] = _any_per_row(hits[:, cols]) if hits is not None and cols.any() else none
        return broken

    return PoseCheck(ok, masks)


def _overlaps(dx: Array, dy: Array, c: Array, s: Array, a: float, b: float) -> Array:
    """The squared distance from points (dx, dy) away from markers' centres, headings (c, s),
    to the markers (half-sides a, b); `dx` and `dy` are overwritten."""
    u = dx * c
    u += dy * s  # along
    dy *= c
    dx *= s
    dy -= dx  # across
    for w, half in ((u, a), (dy, b)):
        np.abs(w, out=w)
        w -= half
        np.maximum(w, 0.0, out=w)
        w *= w
    u += dy
    return u


_RADIANS = math.pi / 180.0
_cos, _sin = math.cos, math.sin  # (a global name, not an attribute: `_clearly_legal` is hot)


def _clearly_legal(ctx: MarkerContext, x: float, y: float, heading: float) -> bool:
    """Whether a marker centred at (x, y) heading `heading` (degrees) is legal under `ctx` by
    more than `MARGIN` on every count (the arithmetic of the batched kernels in plain Python,
    with `clear_limits`): when it is, the exact path would find nothing either."""
    (tx, ty, half_along, half_across, a, b, corner, far), obstacles = ctx.clear_limits
    turn = heading * _RADIANS
    c, s = _cos(turn), _sin(turn)  # (`cos_sin`'s exact quarter turns need no margin)
    dx, dy = tx - x, ty - y
    if abs(dx * c + dy * s) > half_along or abs(dy * c - dx * s) > half_across:
        return False
    u, v = abs(x * c + y * s), abs(y * c - x * s)
    if u * (u + 2 * a) + v * (v + 2 * b) + corner > far:
        return False
    for ox, oy, limit in obstacles:
        dx, dy = ox - x, oy - y
        ex = max(abs(dx * c + dy * s) - a, 0.0)
        ey = max(abs(dy * c - dx * s) - b, 0.0)
        if ex * ex + ey * ey <= limit:
            return False
    return True


def _any_per_row(mask: Mask) -> Mask:
    """Whether each row of a 2-d mask holds a True."""
    return cast(Mask, mask.any(axis=1))  # numpy's stubs allow a scalar for any axis


def _floats(values: ArrayLike) -> Array:
    return np.atleast_1d(np.asarray(values, float))


def check_camps(board: Board, x: ArrayLike, y: ArrayLike) -> PoseCheck:
    """Judge many base camp centres at once (the geometric rules of 4.1)."""
    return check_camp_points(board, _floats(x) + 1j * _floats(y))


def check_camp_points(board: Board, z: NDArray[np.complex128]) -> PoseCheck:
    """`check_camps` of base camp centres z = x + iy (a 1-d complex array)."""
    sizes = board.sizes
    r = sizes.base_camp_radius
    centres, limits, n_blockers, n_mesas, prepared, markers, back = board.memo(
        "camp check", lambda: _camp_check_data(board))
    # Mesas and tiles (their bounding circles, then shapely) and base camps in one pass.
    near = np.abs(z[:, None] - centres) <= limits  # (n, M + E + C)
    i, j = near[:, :n_blockers].nonzero()
    if len(i):
        near[i, j] = shapely.dwithin(prepared[j], shapely.points(_xy(z[i])), r - EPS)
    off = np.abs(z) + r > sizes.play_area_radius + EPS
    on_marker = None
    if len(back):
        on_marker = (distance_to_rectangle((z[:, None] - markers) * back, sizes.marker_length / 2.0,
                                           sizes.marker_width / 2.0) <= r - EPS).any(axis=1)
        ok = ~(near.any(axis=1) | off | on_marker)
    else:
        ok = ~(near.any(axis=1) | off)

    def masks() -> dict[str, Mask]:
        on_piece = _any_per_row(near[:, n_mesas:n_blockers])
        return {
            CAMP_VALLEY: _any_per_row(near[:, :n_mesas]),
            CAMP_PLAY_AREA: off,
            CAMP_ON_CAMP: _any_per_row(near[:, n_blockers:]),
            CAMP_DIRECTLY: on_piece if on_marker is None else on_piece | on_marker,
        }

    return PoseCheck(ok, masks)


def first_legal_camps(board: Board, z: NDArray[np.complex128], want: int) -> list[complex]:
    """The first `want` of the base camp centres z = x + iy that `check_camp_points` finds
    legal, with the same formulas, stopping at the `want`-th: for samplers that want one or two
    of a handful of candidates. The bounding-circle prefilters run in numpy for all candidates
    at once, and shapely's `dwithin` once for every pair of a candidate on the play area and a
    mesa or tile whose circle it comes near; the marker rectangles are asked in plain Python,
    one candidate at a time in order, only where a marker's circle comes near."""
    found: list[complex] = []
    if want <= 0 or not len(z):
        return found
    sizes = board.sizes
    r = sizes.base_camp_radius
    d = r - EPS
    prepared, circles = table_geometry(board.table).blockers
    camps = _camp_discs(board).centre
    inside = np.abs(z) + r <= sizes.play_area_radius + EPS
    if len(camps):
        inside &= ~(np.abs(z[:, None] - camps) <= 2 * r - EPS).any(axis=1)
    z = z[inside]  # only the candidates still in the running reach the other tests
    i, j = (np.abs(z[:, None] - circles.centre) <= circles.radius + d).nonzero()  # mesas, tiles
    if len(i):
        i = i[shapely.dwithin(prepared[j], shapely.points(_xy(z[i])), d)]
        blocked = np.zeros(len(z), bool)
        blocked[i] = True
        z = z[~blocked]
    if not len(z):
        return found
    # The markers in plain Python, candidate by candidate: the first legal ones are near the
    # front. Each marker's circle (`_marker_reach`, a millimetre to spare) first, then the
    # analytic distance (`_rect_distance`: the very arithmetic of the point's complex product
    # with the marker's conjugated heading, as before).
    poses = [pose for laid in board.expeditions.values() for pose in laid]
    close = _marker_reach(sizes) + d
    for c in z.tolist():
        for pose in poses:
            if (abs(complex(pose.x, pose.y) - c) <= close
                    and _rect_distance(pose, sizes, c.real, c.imag) <= d):
                break
        else:
            found.append(c)
            if len(found) >= want:
                break
    return found


# What `check_camp_points` reads of a board (`_camp_check_data`).
_CampCheckData: TypeAlias = tuple[NDArray[np.complex128], Array, int, int, NDArray[np.object_],
                                  NDArray[np.complex128], NDArray[np.complex128]]


def _camp_check_data(board: Board) -> _CampCheckData:
    """What `check_camp_points` reads of a board: the circles around mesas and tiles and the
    base camps' centres, with how near a camp's centre may come to each (one array), the
    prepared mesas and tiles, the markers' centres and their headings conjugated."""
    geo = table_geometry(board.table)
    prepared, circles = geo.blockers
    d = board.sizes.base_camp_radius - EPS
    camps = _camp_discs(board).centre
    centres = np.concatenate([circles.centre, camps])
    limits = np.concatenate([circles.radius + d, np.full(len(camps), 2 * board.sizes.base_camp_radius - EPS)])
    markers, turns = _marker_frames(board)
    return (centres, limits, len(prepared), len(geo.mesa_ids), prepared, markers.centre,
            np.conj(turns))


def _dwithin_matrix(prepared: NDArray[np.object_], circles: Circles,
                    z: NDArray[np.complex128], d: float) -> Mask:
    """(n, k): whether each of the prepared polygons lies within `d` of each point z = x + iy;
    only pairs whose point lies within `d` of the polygon's bounding circle reach shapely's
    `dwithin`."""
    near = np.abs(z[:, None] - circles.centre) <= circles.radius + d
    i, j = near.nonzero()
    if len(i):
        near[i, j] = shapely.dwithin(prepared[j], shapely.points(_xy(z[i])), d)
    return near


def _xy(z: NDArray[np.complex128]) -> Array:
    """Complex points as (n, 2) coordinates (a view of a contiguous array, no copy)."""
    return np.ascontiguousarray(z).view(np.float64).reshape(-1, 2)


# -- what markers touch, in batches: separating axes, and shapely near a touch -----------------
def touched_sectors_batch(table: Table, x: ArrayLike, y: ArrayLike, heading: ArrayLike) -> Mask:
    """(n, S) mask: whether marker pose i touches sector j (`table.sectors` order), the very
    verdicts of shapely's `intersects` (`touched_sectors_shapely`).

    Separating axes decide where the sector is convex and the marker clears it or overlaps it
    by more than `MARGIN`; the poses with a pair closer to touching than that, or near a sector
    that is not convex, are asked of shapely.
    """
    x, y = np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(y, float))
    h = np.atleast_1d(np.asarray(heading, float))
    sectors = _SECTOR_AXES.of_table(table, lambda: _SectorAxes.of(table))
    sizes = table.sizes
    a, b = sizes.marker_length / 2.0, sizes.marker_width / 2.0
    p, e = x + 1j * y, np.exp(1j * np.radians(h))
    out = np.zeros((len(x), len(sectors.convex)), bool)
    if not len(x) or not len(sectors.convex):
        return out
    # Pairs whose circles meet: the rest are far apart.
    i, j = (np.abs(p[:, None] - sectors.centre) <= sectors.radius + math.hypot(a, b)
            + MARGIN).nonzero()
    back = np.conj(e[i])[:, None]
    # The sector's edges as axes: the marker's nearest point beyond each edge's line.
    along = sectors.normals[j] * back  # each normal in the marker's frame
    gap = ((sectors.normals[j] * np.conj(p[i])[:, None]).real - sectors.offsets[j]
           - a * np.abs(along.real) - b * np.abs(along.imag)).max(axis=1)
    # The marker's sides as axes: the sector's corners in the marker's frame.
    local = (sectors.corners[j] - p[i][:, None]) * back
    gap = np.maximum(gap, np.maximum(local.real.min(axis=1), -local.real.max(axis=1)) - a)
    gap = np.maximum(gap, np.maximum(local.imag.min(axis=1), -local.imag.max(axis=1)) - b)
    sure = sectors.convex[j] & (np.abs(gap) > MARGIN)
    out[i[sure], j[sure]] = gap[sure] < 0.0
    ask = np.unique(i[~sure])
    if len(ask):
        out[ask] = touched_sectors_shapely(table, x[ask], y[ask], h[ask])
    return out


def touched_sectors_shapely(table: Table, x: ArrayLike, y: ArrayLike, heading: ArrayLike) -> Mask:
    """(n, S) mask: whether marker pose i touches sector j (`table.sectors` order), asked of
    shapely for every pair (`touched_sectors_batch` gives the same, faster).

    Only pairs whose bounding circles meet reach shapely's `intersects` (prepared sectors).
    """
    geo = table_geometry(table)
    sizes = table.sizes
    x, y = np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(y, float))
    h = np.atleast_1d(np.asarray(heading, float))
    out = np.zeros((len(x), len(geo.sector_ids)), bool)
    if not len(x) or not len(geo.sector_ids):
        return out
    sectors, circles = geo.sectors
    reach = math.hypot(sizes.marker_length, sizes.marker_width) / 2.0 + circles.radius
    i, j = (np.abs((x + 1j * y)[:, None] - circles.centre) <= reach).nonzero()
    if len(i):
        rects = marker_polygons(x[i], y[i], h[i], sizes)
        out[i, j] = shapely.intersects(sectors[j], rects)
    return out


@dataclass(frozen=True)
class _SectorAxes:
    """A table's sectors (in `table_geometry` order) for separating-axis tests: the corners,
    outward unit edge normals and their offsets (normal . corner) of each convex sector,
    padded to one length by repeating the last (a repeated axis changes no maximum), and a
    circle around each."""

    convex: NDArray[np.bool_]
    corners: NDArray[np.complex128]  # (S, M)
    normals: NDArray[np.complex128]  # (S, M)
    offsets: Array  # (S, M)
    centre: NDArray[np.complex128]
    radius: Array

    @classmethod
    def of(cls, table: Table) -> _SectorAxes:
        """The axes of `table`'s sectors."""
        polygons, circles = table_geometry(table).sectors
        convex, z, n = _convex_rings(polygons)
        size = max(int(n.max(initial=0)), 1)
        corners = np.zeros((len(convex), size), complex)
        normals = np.ones((len(convex), size), complex)  # (not asked where not convex)
        if len(z):
            first = np.cumsum(n) - n
            at = np.arange(len(z)) - np.repeat(first, n)  # each corner's place in its ring
            edges = z[np.repeat(first, n) + (at + 1) % np.repeat(n, n)] - z
            # Counter-clockwise corners: outward is to the right of each edge. Padded with the
            # last corner and the normal of the edge from it (whose line holds it).
            index = first[:, None] + np.minimum(np.arange(size), n[:, None] - 1)
            corners[convex], normals[convex] = z[index], (-1j * edges / np.abs(edges))[index]
        return cls(convex, corners, normals,
                   (normals * np.conj(corners)).real, circles.centre, np.asarray(circles.radius))


_SECTOR_AXES: Recent[int, tuple[Table, _SectorAxes]] = Recent(16)


def _convex_rings(polygons: Sequence[shapely.Geometry] | NDArray[np.object_]
                  ) -> tuple[NDArray[np.bool_], NDArray[np.complex128], NDArray[np.intp]]:
    """Which geometries are convex polygons (the area is the hull's, as `math.isclose` with
    tolerances 1e-12 judges), and the corners of those, counter-clockwise and not closed, one
    polygon after another, as complex numbers x + iy, with how many each has."""
    polygons = np.asarray(polygons, dtype=object)
    area, hull = shapely.area(polygons), shapely.area(shapely.convex_hull(polygons))
    convex = ((shapely.get_type_id(polygons) == shapely.GeometryType.POLYGON)
              & (shapely.get_num_interior_rings(polygons) == 0)
              & (np.abs(area - hull) <= np.maximum(
                  1e-12 * np.maximum(np.abs(area), np.abs(hull)), 1e-12)))
    rings = shapely.get_exterior_ring(shapely.orient_polygons(polygons[convex]))
    xy, ring = shapely.get_coordinates(rings, return_index=True)
    closed = np.bincount(ring, minlength=int(convex.sum()))
    corner = np.ones(len(xy), bool)
    corner[np.cumsum(closed) - 1] = False  # a ring repeats its first point last
    return convex, xy[corner, 0] + 1j * xy[corner, 1], closed - 1


def convex_corners(polygons: Sequence[shapely.Geometry] | NDArray[np.object_]
                   ) -> list[NDArray[np.complex128] | None]:
    """Each convex polygon's corners, counter-clockwise, as complex numbers x + iy; None for
    a geometry that is not a convex polygon (see `_convex_rings`)."""
    convex, z, counts = _convex_rings(polygons)
    corners = iter(np.split(z, np.cumsum(counts)[:-1]))
    return [next(corners) if c else None for c in convex.tolist()]


def covering_candidates(ctx: MarkerContext, rng: np.random.Generator, n: int
                        ) -> tuple[NDArray[np.complex128], NDArray[np.complex128], Array]:
    """`n` random marker poses that cover the context's target by construction: centres
    p = x + iy, headings as unit complex numbers e, and in radians (uniform heading, the
    target's centre uniform in the shrunk rectangle)."""
    tx, ty, tr = ctx.target
    side, half = _cover_sides(ctx.sizes, tr)
    # One draw of the numbers that `random(n)` then `random((n, 2))` give, in the same order.
    u = rng.random(3 * n)
    turn = (2.0 * np.pi) * u[:n]
    e = np.exp(1j * turn)
    # The target's centre lies at q in the marker's frame, inside the shrunk rectangle: the
    # marker covers it (rounding moves it by ~1e-14 mm, well within EPS).
    q = (u[n:].reshape(n, 2) * side - half).view(np.complex128).ravel()
    return complex(tx, ty) - q * e, e, turn


@functools.lru_cache(maxsize=64)
def _cover_sides(sizes: Sizes, radius: float) -> tuple[Array, Array]:
    """The sides and half-sides (along, across) of the region of a marker where the centre of
    a disc of `radius` must lie for the marker to cover it (`cover_room`), as arrays (kept:
    made once per size, read-only)."""
    half = np.array(cover_room(sizes, radius))
    side = 2.0 * half
    half.flags.writeable = side.flags.writeable = False
    return side, half


def first_legal_marker_poses(ctx: MarkerContext, rng: np.random.Generator, n: int, want: int
                             ) -> list[tuple[float, float, float]]:
    """The first `want` of the poses `legal_marker_poses(ctx, rng, n)` returns, as (x, y,
    heading) tuples, drawing the same random numbers: for samplers that want one or two.

    The candidates are made in numpy, but judged one by one in plain Python (the same formulas
    as `check_markers`), stopping at the `want`-th legal one: a handful of candidates cost less
    so than the numpy calls of a batch."""
    p, e, turn = covering_candidates(ctx, rng, n)
    found: list[tuple[float, float, float]] = []
    if want <= 0:
        return found
    # The very arithmetic of the batched kernels (`_markers_numpy`), pose by pose.
    (_, _, _, _, a, b, corner, far), obstacles = ctx.python_limits
    for k, (pk, ek) in enumerate(zip(p.tolist(), e.tolist())):
        x, y, c, s = pk.real, pk.imag, ek.real, ek.imag
        u, v = abs(x * c + y * s), abs(y * c - x * s)
        if u * (u + 2 * a) + v * (v + 2 * b) + corner > far:
            continue  # off the play area
        for ox, oy, limit in obstacles:
            dx, dy = ox - x, oy - y
            ex = max(abs(dx * c + dy * s) - a, 0.0)
            ey = max(abs(dy * c - dx * s) - b, 0.0)
            if ex * ex + ey * ey <= limit:
                break  # overlaps an obstacle
        else:
            found.append((x, y, math.degrees(turn[k])))
            if len(found) >= want:
                break
    return found


def legal_marker_poses(ctx: MarkerContext, rng: np.random.Generator, n: int,
                       fused: bool | None = None) -> tuple[Array, Array, Array]:
    """`n` random poses that cover the context's target by construction (uniform heading, the
    target's centre uniform in the shrunk rectangle), filtered by `check_markers` (`fused` as
    there): the legal ones as arrays (x, y, heading) — possibly none."""
    p, e, turn = covering_candidates(ctx, rng, n)
    x, y = p.real.copy(), p.imag.copy()
    ok = _check_markers(ctx, x, y, turn, e, True, fused).ok
    return x[ok], y[ok], np.degrees(turn[ok])
