"""Exact windows of touching placements for Anasazi's players: where a marker that covers an
expedition's end can lie so that it holds a given point, and the middle of each window.

A placement is written as in `reach`: ``(theta, a, c)``, the heading and where the end's centre
lies in the new marker's frame (``|a| <= A``, ``|c| <= C``, `reach.Step`). A point q at distance
rho and bearing phi from the end lies at ``(a + dx, c + dy)`` from the marker's centre, where
``(dx, dy) = rho (cos b, sin b)`` and ``b = phi - theta``. So the marker holds q exactly when
``|dx| <= L/2 + A`` and ``|dy| <= W/2 + C``: the bearings b of a window are where a circle of
radius rho crosses that box (up to four arcs, one near each corner direction), and at a bearing
the offsets form the box ``a in [max(-A, -L/2 - dx), min(A, L/2 - dx)]``,
``c in [max(-C, -W/2 - dy), min(C, W/2 - dy)]``. Nothing is sampled: a window a tenth of a
millimetre wide is found as surely as a wide one, and its middle lies as deep inside it as any
placement can.

A point that lies in a sector makes the marker touch the sector (`legality.touched_sectors`:
shapely's `intersects`); a point on the line between the two sectors of a divided pueblo makes
it touch both. The rules' masks still judge every placement made here (other pieces may block
part of a window); `targets` gives the points that matter for an end: the point of each sector,
and of each divided pueblo's dividing line, nearest the end, and the sector's corners.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from numpy.typing import NDArray

from games.anasazi import legality as lg
from games.anasazi.components import Table
from games.anasazi.reach import Step

Array = NDArray[np.float64]
Complex = NDArray[np.complex128]

SPREAD = (0.2, 0.5, 0.8)  # where in a wide window's bearings placements are made
WIDE = 3.0  # mm: a window whose arc of bearings is longer than this gets three placements
DEEP = 1e-3  # mm: a window must let the point lie at least this deep inside the marker


@dataclass(frozen=True)
class Placements:
    """Covering placements ``(theta, a, c)`` (degrees, mm, mm), each with the index of the point
    it holds (`source`) and how far it may shift along or across and still hold it (`slack`,
    mm: half the narrower side of its box of offsets)."""

    theta: Array
    a: Array
    c: Array
    source: NDArray[np.intp]
    slack: Array

    def __len__(self) -> int:
        return len(self.theta)


def _arcs(rho: Array, P: float, Q: float) -> tuple[Array, Array]:
    """Per point, the bearings [lo, hi] (radians, in the first quadrant) where a circle of radius
    `rho` lies in the box [-P, P] x [-Q, Q], with DEEP to spare; lo > hi where it never does.
    The other three arcs are the mirror images (-b, pi - b, pi + b)."""
    safe = np.maximum(rho, 1e-12)
    lo = np.arccos(np.minimum(1.0, (P - DEEP) / safe))
    hi = np.arcsin(np.minimum(1.0, (Q - DEEP) / safe))
    return lo, hi


def point_windows(step: Step, points: Complex, spread: NDArray[np.bool_] | None = None
                  ) -> Placements:
    """The middle of every window of placements covering `step`'s end that hold each point
    (and, where `spread` is True and a window's arc is wider than `WIDE` mm, two more placements
    at a fifth of it from each side: a wide window is a range of new ends worth telling apart).

    Exact: a point is held by some covering marker iff it gets a placement here."""
    L, W = step.sizes.marker_length, step.sizes.marker_width
    A, C = step.half_along, step.half_across
    P, Q = L / 2 + A, W / 2 + C
    rel = np.asarray(points, complex) - complex(*step.end)
    rho, phi = np.abs(rel), np.angle(rel)
    lo, hi = _arcs(rho, P, Q)
    ok = np.flatnonzero(lo <= hi)
    if spread is None:
        spread = np.zeros(len(rel), bool)
    # Four mirrored arcs per point; when lo is 0 the first two meet (one arc through b = 0)
    # and when hi is pi/2 the second pair does: their middles still lie inside.
    arcs_lo = np.concatenate([lo[ok], -hi[ok], np.pi - hi[ok], np.pi + lo[ok]])
    arcs_hi = np.concatenate([hi[ok], -lo[ok], np.pi - lo[ok], np.pi + hi[ok]])
    src = np.tile(ok, 4)
    wide = spread[src] & (rho[src] * (arcs_hi - arcs_lo) > WIDE)
    fractions = [np.full(len(src), 0.5)]
    picks = [np.arange(len(src))]
    for f in SPREAD:
        if f != 0.5:
            picks.append(np.flatnonzero(wide))
            fractions.append(np.full(len(picks[-1]), f))
    pick, frac = np.concatenate(picks), np.concatenate(fractions)
    beta = arcs_lo[pick] + frac * (arcs_hi[pick] - arcs_lo[pick])
    source = src[pick]
    r = rho[source]
    dx, dy = r * np.cos(beta), r * np.sin(beta)
    lo_a, hi_a = np.maximum(-A, -L / 2 - dx), np.minimum(A, L / 2 - dx)
    lo_c, hi_c = np.maximum(-C, -W / 2 - dy), np.minimum(C, W / 2 - dy)
    theta = np.degrees(phi[source] - beta) % 360.0
    slack = np.minimum(hi_a - lo_a, hi_c - lo_c) / 2
    keep = slack > 0.0
    return Placements(theta[keep], ((lo_a + hi_a) / 2)[keep], ((lo_c + hi_c) / 2)[keep],
                      source[keep], slack[keep])


# -- the points that matter: sectors and dividing lines, nearest the ends ---------------------
@dataclass(frozen=True)
class Targets:
    """A table's sectors (convex hulls, `table.sectors` order) then the dividing lines of its
    divided pueblos, as padded corner arrays for distances in numpy: target k touches the
    sectors `touches[k]` (one sector, or the two of a divided pueblo)."""

    touches: tuple[tuple[str, ...], ...]
    corners: Complex  # (T, M), padded by repeating the first corner
    edges: Complex  # (T, M): corner to next corner (0 for padding)
    inverse: Array  # (T, M): 1 / |edge|^2 (0 for padding)
    real: NDArray[np.bool_]  # (T, M): the edge is a side of the target (not padding)
    count: NDArray[np.intp]  # corners per target

    @classmethod
    def of(cls, table: Table) -> Targets:
        """The targets of `table` (kept per table)."""
        return _TARGETS.of_table(table, lambda: cls._make(table))

    @classmethod
    def _make(cls, table: Table) -> Targets:
        touches: list[tuple[str, ...]] = []
        rings: list[Complex] = []
        hulls = shapely.convex_hull(np.array([s.polygon for s in table.sectors], dtype=object))
        for s, corners in zip(table.sectors, lg.convex_corners(hulls)):
            if corners is not None:
                touches.append((s.id,))
                rings.append(corners)
        for p in table.pueblos:
            if len(p.sectors) == 2:
                line = shapely.intersection(p.sectors[0].polygon, p.sectors[1].polygon)
                xy = shapely.get_coordinates(line)
                if len(xy) >= 2:  # the two ends of the dividing line (a segment)
                    far = np.argmax(np.hypot(*(xy - xy[0]).T))
                    ends = np.array([complex(*xy[0]), complex(*xy[far])])
                    touches.append((p.sectors[0].id, p.sectors[1].id))
                    rings.append(ends)
        m = max(len(r) for r in rings)
        corners = np.array([np.concatenate([r, np.full(m - len(r), r[0])]) for r in rings])
        count = np.array([len(r) for r in rings])
        nxt = np.array([np.concatenate([np.roll(r, -1), np.full(m - len(r), r[0])])
                        for r in rings])
        real = np.arange(m)[None, :] < count[:, None]
        real &= ~((count[:, None] == 2) & (np.arange(m)[None, :] == 1))  # a segment: one side
        edges = np.where(real, nxt - corners, 0)
        length_sq = np.abs(edges) ** 2
        inverse = np.where(length_sq > 0, 1.0 / np.where(length_sq > 0, length_sq, 1.0), 0.0)
        return cls(tuple(touches), corners, edges, inverse, real, count)

    @functools.cached_property
    def circles(self) -> tuple[Complex, Array]:
        """A circle around each target: centres (T,) and radii (T,)."""
        count = self.count[:, None]
        centre = np.where(np.arange(self.corners.shape[1])[None, :] < count, self.corners,
                          0).sum(axis=1) / self.count
        return centre, np.abs(self.corners - centre[:, None]).max(axis=1)

    @functools.cached_property
    def single(self) -> dict[str, int]:
        """The target of each sector alone (its convex hull), by the sector's id."""
        return {t[0]: k for k, t in enumerate(self.touches) if len(t) == 1}

    @functools.cached_property
    def _touching(self) -> dict[frozenset[str], NDArray[np.intp]]:
        return {}

    def touching(self, wanted: frozenset[str]) -> NDArray[np.intp]:
        """The targets that touch a sector of `wanted` (kept for the last few sets asked)."""
        found = self._touching.get(wanted)
        if found is None:
            if len(self._touching) >= 64:
                self._touching.clear()
            found = self._touching[wanted] = np.array(
                [k for k, t in enumerate(self.touches) if not wanted.isdisjoint(t)], dtype=np.intp)
        return found

    def near_mask(self, rows: NDArray[np.intp], z: Complex, limit: float) -> NDArray[np.bool_]:
        """Which of `rows` may come within `limit` of some point of z (their circles do)."""
        if not len(z) or not len(rows):
            return np.zeros(len(rows), bool)
        centre, radius = self.circles
        if len(z) == 1:  # one end (the usual case): numpy's reductions cost more than this
            middle, spread = complex(z[0]), 0.0
        else:
            middle = complex(z.mean())
            spread = float(np.abs(z - middle).max())
        near: NDArray[np.bool_] = np.abs(centre[rows] - middle) - radius[rows] <= limit + spread
        return near

    def within(self, z: Complex, rows: NDArray[np.intp], limit: float) -> NDArray[np.bool_]:
        """(n, k): whether each point of z lies within `limit` of each target of `rows`. The
        circles decide most pairs (a point within `limit` of a target's centre is; one farther
        than `limit` from its circle is not); the others are measured (`distances`)."""
        return self.within_each(z, rows, (limit,))[0]

    def within_each(self, z: Complex, rows: NDArray[np.intp], limits: Sequence[float]
                    ) -> list[NDArray[np.bool_]]:
        """`within` for each of `limits` (the points' distances to the circles worked out
        once, the pairs none of the circles decides measured once)."""
        centre, radius = self.circles
        far = np.abs(z[:, None] - centre[rows][None, :])
        gap = far - radius[rows][None, :]
        found = [far <= limit for limit in limits]
        unsure = np.zeros(far.shape, bool)
        for limit, inside in zip(limits, found):
            unsure |= ~inside & (gap <= limit)
        i, j = np.nonzero(unsure)
        if len(i):
            measured = self.distances(z[i], rows[j])
            for limit, inside in zip(limits, found):  # decided as `within` alone decides
                inside[i, j] |= (gap[i, j] <= limit) & (measured <= limit)
        return found

    def distances(self, z: Complex, rows: NDArray[np.intp]) -> Array:
        """The distance from each point z[i] to target rows[i] (0 inside)."""
        a, d, real = self.corners[rows], self.edges[rows], self.real[rows]
        rel = z[:, None] - a
        t = np.clip((rel * np.conj(d)).real * self.inverse[rows], 0.0, 1.0)
        gap = np.where(real, np.abs(rel - t * d), np.inf).min(axis=1)
        inside = np.where(real, (np.conj(d) * rel).imag >= 0.0, True).all(axis=1)
        found: Array = np.where(inside & (self.count[rows] >= 3), 0.0, gap)
        return found

    def nearest(self, z: Complex, rows: NDArray[np.intp], points: bool = True
                ) -> tuple[Array, Complex | None]:
        """For points z (n,) and targets `rows` (k,): the distance (n, k) from each point to
        each target (0 inside) and, with `points`, the target's point nearest it (the point
        itself inside)."""
        a = self.corners[rows][None, :, :]
        d = self.edges[rows][None, :, :]
        real = self.real[rows][None, :, :]
        rel = z[:, None, None] - a
        t = np.clip((rel * np.conj(d)).real * self.inverse[rows][None, :, :], 0.0, 1.0)
        off = rel - t * d  # from each side's nearest point to z
        gap = np.where(real, np.abs(off), np.inf)
        best = gap.argmin(axis=2)
        dist = np.take_along_axis(gap, best[..., None], 2)[..., 0]
        cross = (np.conj(d) * rel).imag  # >= 0 on the inner side of a counter-clockwise side
        inside = np.where(real, cross >= 0.0, True).all(axis=2) & (self.count[rows] >= 3)
        dist = np.where(inside, 0.0, dist)
        if not points:
            return dist, None
        point = z[:, None] - np.take_along_axis(off, best[..., None], 2)[..., 0]
        return dist, np.where(inside, z[:, None], point)


_TARGETS: lg.Recent[int, tuple[Table, Targets]] = lg.Recent(16)


def window_placements(step: Step, table: Table, wanted: frozenset[str]
                      ) -> tuple[Placements, list[tuple[str, ...]]]:
    """Placements covering `step`'s end from the windows of every target within one marker
    that touches a `wanted` sector: the nearest point of each target (spread over a wide
    window) and each sector's corners (the middles). With the placements, what the point of
    each one touches (by `Placements.source`)."""
    targets = Targets.of(table)
    rows = targets.touching(wanted)
    empty = Placements(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, np.intp), np.zeros(0))
    if not len(rows):
        return empty, []
    end = complex(*step.end)
    rows = rows[targets.near_mask(rows, np.array([end]), step.reach)]
    if not len(rows):
        return empty, []
    dist, point = targets.nearest(np.array([end]), rows)
    assert point is not None
    near = np.flatnonzero(dist[0] <= step.reach)
    if not len(near):
        return empty, []
    rows = rows[near]
    labels = [targets.touches[k] for k in rows]
    # A sector's corners within reach, row by row (a dividing line's ends are its corners too).
    corners = targets.corners[rows]
    count = targets.count[rows]
    held = (np.arange(corners.shape[1])[None, :] < count[:, None]) & (count[:, None] >= 3)
    held &= np.abs(corners - end) <= step.reach
    owner, _ = np.nonzero(held)
    labels += [labels[i] for i in owner.tolist()]
    points = np.concatenate([point[0, near], corners[held]])
    spread = np.arange(len(points)) < len(rows)
    return point_windows(step, points, spread), labels

