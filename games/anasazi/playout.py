"""Compiled random playouts of Anasazi (numba): the fast path of `AnasaziGame.random_playouts`.

`random_playouts(states, seed)` plays copies of `states` to the end with the law of the
interface's random player (`RandomBot`: one action drawn by `legal_actions(player).sample`, or
one of a finite space uniformly) and returns a `geomsim.rules.Playouts`. It mirrors
`games.anasazi.rules` step by step:

- the setup: two base camps each in seat order, then three tower looks each (uniform among the
  towers not yet looked at);
- a turn's action: with camps left, a base camp with chance `CAMP_SHARE`, else a marker; a kind
  that finds no legal placement gives way to the other, as `AnasaziState._sample_main` does.
  A base camp is the first legal of up to `CAMP_SAMPLES * SAMPLE_ROUNDS` centres uniform over
  the play area; a marker the first legal of up to `SAMPLES_PER_EXPEDITION` poses covering the
  end of each expedition in turn, the expeditions in a random order, for up to `SAMPLE_ROUNDS`
  rounds (the interface draws these candidates in batches: the same law, other numbers);
- what a marker does: treasures taken and towers moved from the sectors it touches (a divided
  pueblo's two sectors apart), base camps covered for the first time (a camp theft for one's
  own), mesas entered (a mesa look on the first marker there), the end (markers exhausted or a
  colour's fourth tower, the takes still open kept);
- the decisions an action opens, one at a time, uniform among the options and a pass; those
  without options dropped; the bonus treasures, the scores and the tie-break at the end.

The geometric rules are those of `games.anasazi.legality`, computed exactly in the same frames
(the same boundary tolerance `EPS`, in favour of the placement): discs for base camps,
explorers and start marks against the marker rectangle; separating axes between the marker and
convex polygons (sectors); for other polygons (mesas) segment clipping against the marker and a
point-in-polygon test; point-in-polygon and segment distances for a base camp against mesas and
expedition base camp tiles. `geomsim.testing.check_playouts` replays every kernel decision
through `State.apply`, which judges it with shapely (tests/anasazi/test_playout.py).

The kernel reads only the public data of a state and its table (`Table`, `Sizes`, the laid
pieces, the contents, hands, track and open decisions), so a table made any other way plays too.

Action codes (`decode(code)` gives the interface's action): ``kind * KIND + group * GROUP +
payload``, the group being the batch's run of states on one table, with LOOK
(payload: sector index), TAKE (``4 * source + colour``), PASS, CAMP (payload: row of `coords`)
and MARKER (``row * MAX_EXPEDITIONS + expedition``), `coords` rows holding x, y, heading.
Continuous decisions are logged with 0 options (the space is not finite).

Limits: up to 4 players and `MAX_EXPEDITIONS` expedition base camps a table. A player who finds
no legal action (the interface's random bot would raise `NoLegalAction`) stops the batch with a
RuntimeError. Only this module imports numba.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numba
import numpy as np
import shapely
from numpy.typing import NDArray

from games.anasazi import GAME
from games.anasazi import legality as lg
from games.anasazi.actions import BuildCamp, LookTower, Pass, PlaceMarker, TakeTreasure
from games.anasazi.components import COLOURS, TRACK_SPACES, Table
from games.anasazi.rules import (
    CAMP_SAMPLES,
    CAMP_SHARE,
    SAMPLE_ROUNDS,
    SAMPLES_PER_EXPEDITION,
    AnasaziState,
)
from geomsim.compiled import compiling
from geomsim.geometry import Array
from geomsim.rules import Action, Playouts, State, playout_seed

# -- codes --------------------------------------------------------------------------------------
KIND = 1 << 60
GROUP = 1 << 36  # codes carry the group of games (one table) they come from
LOOK, TAKE, PASS, CAMP, MARKER = 1, 2, 3, 4, 5
MAX_EXPEDITIONS = 64
MAX_PLAYERS = 4
NCOLOURS = len(COLOURS)

Ints = NDArray[np.int64]  # (the floats the kernel reads are `Array`s, of float64)
# A table's arrays in the order `play_batch` takes them (`TableArrays.arrays`).
TableTuple = tuple[Array, Ints, Array, Ints, Ints, Ints, Array, Ints, Ints, Array]

SLACK = 1e-6  # mm a prefilter (`near`) lets through beyond its radius: rounding cannot bar a case

# Phases, and the open decisions as the kernel keeps them (a mesa look: the mesa's index >= 0).
PH_CAMPS, PH_LOOKS, PH_PLAY, PH_OVER = 0, 1, 2, 3
PHASES = {"camps": PH_CAMPS, "looks": PH_LOOKS, "play": PH_PLAY, "over": PH_OVER}
D_TAKE, D_LOOK = -1, -2
# What lies on a sector.
EMPTY, TOWER, TREASURE = 0, 1, 2

# -- the table's numbers: `fp` (floats) and `ip` (ints, with the offsets of the game arrays) ----
(F_A, F_B, F_RE, F_AHEAD, F_RC, F_RS, F_R, F_REACH, F_DIAG, F_EPS, F_SHARE) = range(11)
NF = 11
(I_S, I_M, I_E, I_MARKERS, I_CPP, I_SAMPLES, I_ROUNDS, I_CAMP_TRIES,
 O_OWNER, O_COVERED, O_FRESH, O_CONTENT, O_COLOUR, O_LOOKED, O_VISITED, O_LAST, O_MEXP, O_PEND,
 I_PCAP, I_GSIZE, O_CAMPXY, O_MARK, I_FSIZE, I_SMALL,
 # The rule options that are not sizes (`with_options` sets them per batch of one table).
 I_TOWERS_END, I_OBJ_TIMES, I_BONUS, I_SETUP_CAMPS, I_SETUP_LOOKS, I_THEFT, I_ACTS) = range(31)
NI = 31

# Scalars of a game: indices into `gi` (the rest are the sections at the `O_*` offsets).
(G_PLAYERS, G_PHASE, G_CUR, G_STEP, G_ACTS, G_FIRST, G_ENDED, G_NCAMPS, G_NMARK, G_HEAD,
 G_TAIL, G_STUCK) = range(12)
G_TRACK = 12
G_HANDS = G_TRACK + NCOLOURS
G_OBJ = G_HANDS + MAX_PLAYERS * NCOLOURS
G_FIXED = G_OBJ + MAX_PLAYERS


# -- the table ----------------------------------------------------------------------------------
class TableArrays:
    """A table as the kernel reads it: numbers, polygons (sectors, mesas, expedition base camp
    tiles, in that order) as rings of vertices, their bounding circles and convexity, the mesa
    of each sector, the start marks."""

    def __init__(self, table: Table):
        sizes = table.sizes
        sectors = [(s, i) for i, p in enumerate(table.pueblos) for s in p.sectors]
        self.sector_ids = tuple(s.id for s, _ in sectors)
        self.mesa_ids = tuple(m.id for m in table.mesas)
        self.expedition_ids = tuple(e.id for e in table.expedition_camps)
        if len(self.expedition_ids) > MAX_EXPEDITIONS:
            raise ValueError(f"anasazi playouts: at most {MAX_EXPEDITIONS} expedition base camps")
        polygons = np.array([s.polygon for s, _ in sectors] + [m.polygon for m in table.mesas]
                            + [e.polygon for e in table.expedition_camps], dtype=object)
        if shapely.get_num_interior_rings(polygons).any():
            rings, owner = shapely.get_rings(polygons, return_index=True)
        else:  # one ring a polygon (the common case): no ring geometries to make
            rings, owner = polygons, np.arange(len(polygons))
        verts, ring = shapely.get_coordinates(rings, return_index=True)
        self.verts = np.ascontiguousarray(verts, dtype=np.float64)
        self.rings = np.searchsorted(ring, np.arange(len(rings) + 1)).astype(np.int64)
        self.polys = np.searchsorted(owner, np.arange(len(polygons) + 1)).astype(np.int64)
        self.convex = ((np.diff(self.polys) == 1)
                       & _convex_rings(self.verts, self.rings)[self.polys[:-1]]).astype(np.int64)
        self.circles = _circles(self.verts, self.rings[self.polys])
        self.sector_index = {s: i for i, s in enumerate(self.sector_ids)}
        self.mesa_index = {m: i for i, m in enumerate(self.mesa_ids)}
        self.sector_mesa = np.array([self.mesa_index[table.pueblos[i].mesa] for _, i in sectors],
                                    dtype=np.int64)
        self.small = np.array([s.kind == "small" for s, _ in sectors], dtype=np.int64)
        self.starts = np.array([e.start for e in table.expedition_camps],
                               dtype=np.float64).reshape(-1, 2)
        S, M, E = len(self.sector_ids), len(self.mesa_ids), len(self.expedition_ids)
        camps = MAX_PLAYERS * sizes.base_camps_per_player
        pcap = camps + M + 4  # decisions one action opens: takes, mesa looks, a camp look
        a, b = sizes.marker_length / 2.0, sizes.marker_width / 2.0
        self.fp = np.zeros(NF)
        self.fp[[F_A, F_B, F_RE, F_AHEAD, F_RC, F_RS, F_R]] = (
            a, b, sizes.explorer_radius, a - sizes.explorer_offset, sizes.base_camp_radius,
            sizes.start_mark_radius, sizes.play_area_radius)
        self.fp[F_REACH] = lg._marker_reach(sizes)
        self.fp[F_DIAG] = math.hypot(sizes.marker_length, sizes.marker_width)
        self.fp[F_EPS], self.fp[F_SHARE] = lg.EPS, CAMP_SHARE
        ip = np.zeros(NI, dtype=np.int64)
        ip[[I_S, I_M, I_E, I_MARKERS, I_CPP]] = S, M, E, sizes.markers, sizes.base_camps_per_player
        ip[I_SAMPLES], ip[I_ROUNDS], ip[I_CAMP_TRIES] = (SAMPLES_PER_EXPEDITION, SAMPLE_ROUNDS,
                                                         CAMP_SAMPLES * SAMPLE_ROUNDS)
        at = G_FIXED
        for name, size in ((O_OWNER, camps), (O_COVERED, camps), (O_FRESH, camps),
                           (O_CONTENT, S), (O_COLOUR, S), (O_LOOKED, S), (O_VISITED, M),
                           (O_LAST, E), (O_MEXP, sizes.markers), (O_PEND, pcap)):
            ip[name], at = at, at + size
        ip[I_PCAP], ip[I_GSIZE] = pcap, at
        ip[O_CAMPXY], ip[O_MARK] = 0, 2 * camps
        ip[I_FSIZE] = 2 * camps + 5 * sizes.markers
        self.ip = ip
        self.offsets = ip.tolist()  # the same, as Python ints (for `encode`)
        # A game with nothing on the table and no expedition started, which `encode` fills.
        self.blank_gi = np.zeros(ip[I_GSIZE], dtype=np.int64)
        self.blank_gi[ip[O_LAST]:ip[O_LAST] + E] = -1
        self.blank_gf = np.zeros(ip[I_FSIZE], dtype=np.float64)

    def arrays(self, options: dict[str, Any]) -> TableTuple:
        """The table's arrays in the order `play_batch` takes them, under `options` (those in
        force in the states played: `AnasaziState.options`)."""
        return (self.fp, with_options(self.ip, options), self.verts, self.rings, self.polys,
                self.convex, self.circles, self.sector_mesa, self.small, self.starts)


def with_options(ip: Ints, options: dict[str, Any]) -> Ints:
    """`ip` with the rule options that are not sizes (the sizes are the table's)."""
    ip = ip.copy()
    ip[[I_TOWERS_END, I_OBJ_TIMES, I_BONUS, I_SETUP_CAMPS, I_SETUP_LOOKS, I_THEFT, I_ACTS]] = (
        options["towers_to_end"], options["objective_multiplier"], options["bonus_treasures"],
        options["setup_camps"], options["setup_looks"], options["camp_theft"],
        options["actions_per_turn"])
    return ip


def _convex_rings(verts: np.ndarray, rings: np.ndarray) -> np.ndarray:
    """Per closed ring (vertices ``rings[r]:rings[r + 1]``, the last the first again): whether
    it turns the same way at every vertex (collinear vertices allowed), i.e. bounds a convex
    polygon.

    Each edge k (vertex k to k + 1) turns into edge k + 1, laid end to end over all rings; a
    ring's final edge turns into its first instead, and the step from a ring's closing vertex
    to the next ring's first is no edge (a turn of 0 changes no verdict). Whole-array steps, no
    gathers of every vertex: a table's 1,500 vertices in a third of the time."""
    d = np.diff(verts, axis=0)
    after = np.empty_like(d)
    after[:-1] = d[1:]
    first, last = rings[:-1], rings[1:] - 1  # each ring's first vertex and its closing one
    after[last - 1] = d[first]
    cross = d[:, 0] * after[:, 1] - d[:, 1] * after[:, 0]
    turns = np.where(np.abs(cross) > 1e-12, np.sign(cross), 0.0)
    turns[last[:-1]] = 0.0
    return (np.minimum.reduceat(turns, first) >= 0) | (np.maximum.reduceat(turns, first) <= 0)


def _circles(verts: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """(centre x, centre y, radius) around the polygons whose vertices run from `starts[p]` to
    `starts[p + 1]`: as `legality._circles_around`, centred on the bounding box, through the
    farthest vertex."""
    lo = np.minimum.reduceat(verts, starts[:-1])
    hi = np.maximum.reduceat(verts, starts[:-1])
    centre = (lo + hi) / 2.0
    owner = np.repeat(np.arange(len(starts) - 1), np.diff(starts))
    radius = np.maximum.reduceat(np.hypot(verts[:, 0] - centre[owner, 0],
                                          verts[:, 1] - centre[owner, 1]), starts[:-1])
    return np.column_stack([centre, radius])


_TABLES: lg.Recent[int, tuple[Table, TableArrays]] = lg.Recent(64)


def table_arrays(table: Table) -> TableArrays:
    """`TableArrays` of `table`, made once per table (kept for the 64 tables used last)."""
    return _TABLES.of_table(table, lambda: TableArrays(table))


# -- a state --------------------------------------------------------------------------------------
def encode(state: AnasaziState, arrays: TableArrays) -> tuple[np.ndarray, np.ndarray]:
    """The int and float arrays (`gi`, `gf`) of one game at `state` (left unchanged): the
    table's blank arrays copied, then what lies on the table written a section at a time (a
    rollout of a search encodes its state every time)."""
    o = arrays.offsets
    players = state.num_players
    if players > MAX_PLAYERS:
        raise ValueError(f"anasazi playouts: at most {MAX_PLAYERS} players")
    gi, gf = arrays.blank_gi.copy(), arrays.blank_gf.copy()
    camps = state.camps
    n = len(camps)
    head = [players, PHASES[state.phase], state.current, state.step, state.actions_left,
            state.first_player, int(bool(state.ended)), n]
    head += [0] * (G_TRACK - len(head))
    head += [state.track[c] for c in COLOURS]
    for hand in state.hands:
        head += [hand[c] for c in COLOURS]
    head += [0] * (NCOLOURS * (MAX_PLAYERS - players))
    head += [_COLOUR[c] for c in state.objectives]
    gi[:len(head)] = head
    if n:
        gi[o[O_OWNER]:o[O_OWNER] + n] = [c.owner for c in camps]
        gi[o[O_COVERED]:o[O_COVERED] + n] = state.covered
        gf[o[O_CAMPXY]:o[O_CAMPXY] + 2 * n] = [v for c in camps for v in (c.x, c.y)]
    for i in state.fresh:
        gi[o[O_FRESH] + i] = 1
    S, sector = len(arrays.sector_ids), arrays.sector_index
    content, colours = [EMPTY] * S, [0] * S
    for sid, (kind, colour) in state.contents.items():
        j = sector[sid]
        content[j] = TOWER if kind == "tower" else TREASURE
        colours[j] = _COLOUR[colour]
    gi[o[O_CONTENT]:o[O_CONTENT] + S] = content
    gi[o[O_COLOUR]:o[O_COLOUR] + S] = colours
    for sid in state.setup_looked:
        gi[o[O_LOOKED] + sector[sid]] = 1
    for m in state.visited:
        gi[o[O_VISITED] + arrays.mesa_index[m]] = 1
    marks, expeditions, last = _markers(state, arrays)
    k = len(expeditions)
    if k:
        gf[o[O_MARK]:o[O_MARK] + 5 * k] = marks
        gi[o[O_MEXP]:o[O_MEXP] + k] = expeditions
        gi[o[O_LAST]:o[O_LAST] + len(last)] = last
    gi[G_NMARK] = k
    if state.pending:
        mesa = arrays.mesa_index
        gi[o[O_PEND]:o[O_PEND] + len(state.pending)] = [
            D_TAKE if d == "take" else D_LOOK if d == "look" else mesa[d.split(":", 1)[1]]
            for d in state.pending]
    gi[G_HEAD], gi[G_TAIL] = 0, len(state.pending)
    return gi, gf


def _markers(state: AnasaziState, arrays: TableArrays) -> tuple[list[float], list[int], list[int]]:
    """The markers of `state` as the kernel reads them, expedition by expedition: x, y,
    heading, cos, sin of each; the expedition of each; per expedition the index of its last
    (-1: not started)."""
    marks: list[float] = []
    expeditions: list[int] = []
    last: list[int] = []
    for e, eid in enumerate(arrays.expedition_ids):
        for pose in state.expeditions.get(eid, ()):
            marks += (pose.x, pose.y, pose.heading, *lg.cos_sin(pose.heading))
            expeditions.append(e)
        last.append(len(expeditions) - 1 if state.expeditions.get(eid) else -1)
    return marks, expeditions, last


_COLOUR = {c: i for i, c in enumerate(COLOURS)}


def decoder(groups: list[tuple[TableArrays, np.ndarray]]) -> Callable[[int], Action]:
    """`decode(code) -> Action` for the codes of a batch: per group of games (one table each),
    its table's arrays and the coordinates it logged."""
    def decode(code: int) -> Action:
        kind, rest = divmod(code, KIND)
        group, payload = divmod(rest, GROUP)
        arrays, coords = groups[group]
        if kind == LOOK:
            return LookTower(arrays.sector_ids[payload])
        if kind == TAKE:
            return TakeTreasure(COLOURS[payload % NCOLOURS], payload // NCOLOURS)
        if kind == PASS:
            return Pass()
        if kind == CAMP:
            x, y, _ = coords[payload]
            return BuildCamp(float(x), float(y))
        row, e = divmod(payload, MAX_EXPEDITIONS)
        x, y, h = coords[row]
        return PlaceMarker(arrays.expedition_ids[e], float(x), float(y), float(h))

    return decode


def game_random_playouts(states: Sequence[State], seed: int = 0) -> Playouts:
    """`GAME.random_playouts`: `random_playouts` of `states` once each is found an Anasazi
    state (the kernel reads their fields)."""
    return random_playouts(GAME.own_states(states, AnasaziState), seed)


def random_playouts(states: Sequence[AnasaziState], seed: int = 0) -> Playouts:
    """Play copies of `states` to the end at random (see the module docstring); the states of
    one table (in a row) are played in one kernel call, the generator seeded once."""
    seed = playout_seed(seed, "anasazi")
    players = states[0].num_players if states else 0
    if any(s.num_players != players for s in states):
        raise ValueError("anasazi playouts: all states of a batch must have as many players")
    seed_generator(np.int64(seed))
    groups: list[tuple[TableArrays, np.ndarray]] = []
    logs, offsets, finals = [], [np.zeros(1, np.int64)], []
    i = 0
    while i < len(states):
        arrays = table_arrays(states[i].table)
        j = i + 1
        while (j < len(states) and states[j].table is states[i].table
               and states[j].options == states[i].options):
            j += 1
        if j == i + 1:  # one game (a search's rollout): no stacking
            gi, gf = (a[None] for a in encode(states[i], arrays))
        else:
            coded = [encode(s, arrays) for s in states[i:j]]
            gi = np.stack([c[0] for c in coded])
            gf = np.stack([c[1] for c in coded])
        with compiling("the Anasazi random player", play_batch):
            log, coords, off, scored = play_batch(*arrays.arrays(states[i].options), gi, gf,
                                              np.int64(len(groups) * GROUP))
        if gi[:, G_STUCK].any():
            stuck = i + int(np.flatnonzero(gi[:, G_STUCK])[0])
            raise RuntimeError(f"anasazi playouts: in game {stuck} a player found no legal "
                               "action")
        groups.append((arrays, coords))
        logs.append(log)
        offsets.append(off[1:] + offsets[-1][-1])
        finals.append(scored)
        i = j
    if not states:
        return Playouts(np.zeros((0, 0)), np.zeros((0, 0), bool), np.zeros((0, 3), np.int64),
                        np.zeros(1, np.int64), decoder(groups))
    final = finals[0] if len(finals) == 1 else np.concatenate(finals)
    return Playouts(final[:, :players], final[:, MAX_PLAYERS:][:, :players] > 0,
                    logs[0] if len(logs) == 1 else np.concatenate(logs),
                    np.concatenate(offsets), decoder(groups))


# -- the kernel: geometry -------------------------------------------------------------------------
@numba.njit(cache=True)
def near(dx: float, dy: float, r: float) -> bool:
    """Whether (dx, dy) may lie within `r` of the origin: the prefilter of the exact tests
    (squares, not `hypot`, with `SLACK` to spare: it only lets the exact test decide)."""
    r += SLACK
    return dx * dx + dy * dy <= r * r


@numba.njit(cache=True)
def within(dx: float, dy: float, r: float) -> bool:
    """``hypot(dx, dy) <= r``, rounded as `hypot` rounds (the rules' exact tests); the squares
    first turn away what lies clearly farther."""
    return near(dx, dy, r) and math.hypot(dx, dy) <= r


@numba.njit(cache=True)
def rect_within(px: float, py: float, c: float, s: float, a: float, b: float, qx: float,
                qy: float, r: float) -> bool:
    """Whether (qx, qy) lies within `r` of the marker of centre (px, py), heading (c, s),
    half-sides a, b (its distance as `hypot` gives it)."""
    dx, dy = qx - px, qy - py
    u, v = dx * c + dy * s, dy * c - dx * s
    return within(max(abs(u) - a, 0.0), max(abs(v) - b, 0.0), r)


@numba.njit(cache=True)
def inside_polygon(verts: Array, rings: Ints, polys: Ints, p: int, x: float, y: float) -> bool:
    """Whether (x, y) lies inside polygon `p` (even-odd over its rings: holes excluded)."""
    inside = False
    for r in range(polys[p], polys[p + 1]):
        for k in range(rings[r], rings[r + 1] - 1):
            x1, y1, x2, y2 = verts[k, 0], verts[k, 1], verts[k + 1, 0], verts[k + 1, 1]
            if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
                inside = not inside
    return inside


@numba.njit(cache=True)
def polygon_within(verts: Array, rings: Ints, polys: Ints, p: int, x: float, y: float, d: float
                   ) -> bool:
    """shapely's `dwithin(polygon p, point, d)`: the point inside, or an edge within d."""
    if inside_polygon(verts, rings, polys, p, x, y):
        return True
    dd = d * d
    for r in range(polys[p], polys[p + 1]):
        for k in range(rings[r], rings[r + 1] - 1):
            x1, y1 = verts[k, 0], verts[k, 1]
            ex, ey = verts[k + 1, 0] - x1, verts[k + 1, 1] - y1
            t = 0.0
            n = ex * ex + ey * ey
            if n > 0.0:
                t = min(max(((x - x1) * ex + (y - y1) * ey) / n, 0.0), 1.0)
            qx, qy = x1 + t * ex - x, y1 + t * ey - y
            if qx * qx + qy * qy <= dd:
                return True
    return False


@numba.njit(cache=True)
def clip_hits_box(u0: float, v0: float, u1: float, v1: float, a: float, b: float) -> bool:
    """Whether the segment (u0, v0)-(u1, v1) meets the closed box |u| <= a, |v| <= b."""
    t0, t1 = 0.0, 1.0
    du, dv = u1 - u0, v1 - v0
    for k in range(4):
        if k == 0:
            p, q = -du, u0 + a
        elif k == 1:
            p, q = du, a - u0
        elif k == 2:
            p, q = -dv, v0 + b
        else:
            p, q = dv, b - v0
        if p == 0.0:
            if q < 0.0:
                return False
        else:
            r = q / p
            if p < 0.0:
                t0 = max(t0, r)
            else:
                t1 = min(t1, r)
            if t0 > t1:
                return False
    return True


@numba.njit(cache=True)
def marker_touches(verts: Array, rings: Ints, polys: Ints, convex: Ints, p: int, px: float,
                   py: float, c: float, s: float, a: float, b: float) -> bool:
    """shapely's `intersects(polygon p, marker)` (closed sets: touching counts)."""
    if convex[p]:
        # Separating axes: the marker's two, then each edge normal of the polygon.
        r = polys[p]
        lo_u, hi_u, lo_v, hi_v = np.inf, -np.inf, np.inf, -np.inf
        for k in range(rings[r], rings[r + 1] - 1):
            dx, dy = verts[k, 0] - px, verts[k, 1] - py
            u, v = dx * c + dy * s, dy * c - dx * s
            lo_u, hi_u = min(lo_u, u), max(hi_u, u)
            lo_v, hi_v = min(lo_v, v), max(hi_v, v)
        if hi_u < -a or lo_u > a or hi_v < -b or lo_v > b:
            return False
        first, last = rings[r], rings[r + 1] - 1
        for k in range(first, last):
            nx, ny = verts[k, 1] - verts[k + 1, 1], verts[k + 1, 0] - verts[k, 0]
            lo, hi = np.inf, -np.inf
            for j in range(first, last):
                w = (verts[j, 0] - px) * nx + (verts[j, 1] - py) * ny
                lo, hi = min(lo, w), max(hi, w)
            # The marker's projection: centred on 0, half-width a |n.u| + b |n.v|.
            half = a * abs(nx * c + ny * s) + b * abs(ny * c - nx * s)
            if hi < -half or lo > half:
                return False
        return True
    for r in range(polys[p], polys[p + 1]):
        k = rings[r]
        dx, dy = verts[k, 0] - px, verts[k, 1] - py
        u0, v0 = dx * c + dy * s, dy * c - dx * s
        for k in range(rings[r] + 1, rings[r + 1]):
            dx, dy = verts[k, 0] - px, verts[k, 1] - py
            u1, v1 = dx * c + dy * s, dy * c - dx * s
            if clip_hits_box(u0, v0, u1, v1, a, b):
                return True
            u0, v0 = u1, v1
    # No edge meets the marker: it lies wholly inside the polygon or wholly outside.
    return inside_polygon(verts, rings, polys, p, px, py)


@numba.njit(cache=True)
def cos_sin(h: float) -> tuple[float, float]:
    """`legality.cos_sin`: exact for multiples of 90 degrees."""
    q = math.floor(h / 90.0)
    if h - 90.0 * q == 0.0:
        k = int(q) % 4
        if k == 0:
            return 1.0, 0.0
        if k == 1:
            return 0.0, 1.0
        if k == 2:
            return -1.0, 0.0
        return 0.0, -1.0
    rad = math.radians(h)
    return math.cos(rad), math.sin(rad)


# -- the kernel: legality of base camps and markers -----------------------------------------------
@numba.njit(cache=True)
def camp_legal(fp: Array, ip: Ints, verts: Array, rings: Ints, polys: Ints, circles: Array,
               gi: Ints, gf: Array, x: float, y: float) -> bool:
    """Rules 4.1 (valley, play area, not on a camp, directly on the play area), as
    `legality.first_legal_camps`."""
    eps, r = fp[F_EPS], fp[F_RC]
    if math.hypot(x, y) + r > fp[F_R] + eps:
        return False
    cxy = ip[O_CAMPXY]
    for i in range(gi[G_NCAMPS]):
        if within(x - gf[cxy + 2 * i], y - gf[cxy + 2 * i + 1], 2 * r - eps):
            return False
    d = r - eps
    S = ip[I_S]
    for p in range(S, S + ip[I_M] + ip[I_E]):  # mesas, then expedition base camp tiles
        if near(x - circles[p, 0], y - circles[p, 1], circles[p, 2] + d):
            if polygon_within(verts, rings, polys, p, x, y, d):
                return False
    mk, a, b, reach = ip[O_MARK], fp[F_A], fp[F_B], fp[F_REACH] + d
    for k in range(gi[G_NMARK]):
        px, py = gf[mk + 5 * k], gf[mk + 5 * k + 1]
        if near(x - px, y - py, reach):
            if rect_within(px, py, gf[mk + 5 * k + 3], gf[mk + 5 * k + 4], a, b, x, y, d):
                return False
    return True


@numba.njit(cache=True)
def sample_camp(fp: Array, ip: Ints, verts: Array, rings: Ints, polys: Ints, circles: Array,
                gi: Ints, gf: Array, out: Array) -> bool:
    """The first legal of up to `I_CAMP_TRIES` centres uniform over the play area (`out[0:2]`);
    False when none is."""
    reach = fp[F_R] - fp[F_RC]
    for _ in range(ip[I_CAMP_TRIES]):
        rho = reach * math.sqrt(np.random.random())
        turn = 2.0 * math.pi * np.random.random()
        x, y = rho * math.cos(turn), rho * math.sin(turn)
        if camp_legal(fp, ip, verts, rings, polys, circles, gi, gf, x, y):
            out[0], out[1] = x, y
            return True
    return False


@numba.njit(cache=True)
def expedition_target(fp: Array, ip: Ints, starts: Array, gi: Ints, gf: Array, e: int
                      ) -> tuple[float, float, float]:
    """The disc the next marker of expedition `e` must cover: (x, y, radius)."""
    last = gi[ip[O_LAST] + e]
    if last < 0:
        return starts[e, 0], starts[e, 1], fp[F_RS]
    mk = ip[O_MARK] + 5 * last
    return (gf[mk] + fp[F_AHEAD] * gf[mk + 3], gf[mk + 1] + fp[F_AHEAD] * gf[mk + 4], fp[F_RE])


@numba.njit(cache=True)
def obstacles(fp: Array, ip: Ints, starts: Array, gi: Ints, gf: Array, player: int, e: int,
              tx: float, ty: float, obs: Array) -> int:
    """The discs a marker of `player` extending `e` may not overlap, near its target, into `obs`
    rows (x, y, reach): other players' base camps but those the expedition's end sits on, the
    player's own camps built this turn, the end explorers of the other expeditions (as
    `legality.marker_context`). Returns their number."""
    eps, rc, re, a, b = fp[F_EPS], fp[F_RC], fp[F_RE], fp[F_A], fp[F_B]
    diag = fp[F_DIAG]
    cxy, n = ip[O_CAMPXY], 0
    last = gi[ip[O_LAST] + e]
    mk = ip[O_MARK] + 5 * last
    for i in range(gi[G_NCAMPS]):
        x, y = gf[cxy + 2 * i], gf[cxy + 2 * i + 1]
        if not near(x - tx, y - ty, rc + diag):
            continue
        if gi[ip[O_OWNER] + i] != player:
            # Forbidden unless the end of the expedition sits on it (rule 4.2 end-on-camp).
            if last >= 0 and rect_within(gf[mk], gf[mk + 1], gf[mk + 3], gf[mk + 4], a, b,
                                         x, y, rc - eps):
                continue
        elif gi[ip[O_FRESH] + i] == 0:
            continue
        obs[n, 0], obs[n, 1], obs[n, 2] = x, y, rc - eps
        n += 1
    for f in range(ip[I_E]):
        k = gi[ip[O_LAST] + f]
        if f == e or k < 0:
            continue
        m = ip[O_MARK] + 5 * k
        x, y = gf[m] + fp[F_AHEAD] * gf[m + 3], gf[m + 1] + fp[F_AHEAD] * gf[m + 4]
        if near(x - tx, y - ty, diag + re):
            obs[n, 0], obs[n, 1], obs[n, 2] = x, y, re - eps
            n += 1
    return n


@numba.njit(cache=True)
def first_legal_marker(fp: Array, ip: Ints, tx: float, ty: float, tr: float, obs: Array,
                       n_obs: int, out: Array) -> bool:
    """The first legal of up to `I_SAMPLES` random poses that cover the target by construction
    (uniform heading, the target's centre uniform in the marker shrunk by its radius), as
    `legality.first_legal_marker_poses`: (x, y, heading in degrees) in `out`; False if none."""
    ha, hb = fp[F_A] - tr, fp[F_B] - tr
    for _ in range(ip[I_SAMPLES]):
        turn = 2.0 * math.pi * np.random.random()
        c, s = math.cos(turn), math.sin(turn)
        qa = np.random.random() * 2.0 * ha - ha
        qb = np.random.random() * 2.0 * hb - hb
        px, py = tx - (qa * c - qb * s), ty - (qa * s + qb * c)
        if marker_legal(fp, px, py, c, s, obs, n_obs):
            out[0], out[1], out[2] = px, py, math.degrees(turn)
            return True
    return False


@numba.njit(cache=True)
def marker_legal(fp: Array, px: float, py: float, c: float, s: float, obs: Array, n_obs: int
                 ) -> bool:
    """Whether a marker that covers its target is legal: on the play area (its farthest
    corner), overlapping none of the `n_obs` discs of `obs` (as `legality.check_markers`)."""
    a, b = fp[F_A], fp[F_B]
    u, v = abs(px * c + py * s), abs(py * c - px * s)
    if u * (u + 2 * a) + v * (v + 2 * b) + a * a + b * b > (fp[F_R] + fp[F_EPS]) ** 2:
        return False
    for j in range(n_obs):
        if rect_within(px, py, c, s, a, b, obs[j, 0], obs[j, 1], obs[j, 2]):
            return False
    return True


@numba.njit(cache=True)
def sample_marker(fp: Array, ip: Ints, starts: Array, gi: Ints, gf: Array, player: int,
                  obs: Array, out: Array) -> int:
    """A legal marker as `AnasaziState.sample_markers(rng, 1)` finds one: rounds over the
    expeditions in random order, each trying `I_SAMPLES` candidates. Returns the expedition
    (pose in `out`), or -1."""
    E = ip[I_E]
    e: int  # (an annotation only: no code for numba)
    for _ in range(ip[I_ROUNDS]):
        order = np.random.permutation(E)
        for e in order:
            tx, ty, tr = expedition_target(fp, ip, starts, gi, gf, e)
            n_obs = obstacles(fp, ip, starts, gi, gf, player, e, tx, ty, obs)
            if first_legal_marker(fp, ip, tx, ty, tr, obs, n_obs, out):
                return e
    return -1


# -- the kernel: carrying out actions -------------------------------------------------------------
@numba.njit(cache=True)
def has_options(ip: Ints, small: Ints, sector_mesa: Ints, gi: Ints, decision: int) -> bool:
    """Whether an open decision offers anything but a pass."""
    if decision == D_TAKE:
        for q in range(gi[G_PLAYERS]):
            if q != gi[G_CUR]:
                for c in range(NCOLOURS):
                    if gi[G_HANDS + NCOLOURS * q + c] > 0:
                        return True
        return False
    for j in range(ip[I_S]):
        if (small[j] and gi[ip[O_CONTENT] + j] == TOWER
                and (decision == D_LOOK or sector_mesa[j] == decision)):
            return True
    return False


@numba.njit(cache=True)
def push(ip: Ints, gi: Ints, decision: int) -> None:
    """Open a decision (at the back of the queue)."""
    gi[ip[O_PEND] + gi[G_TAIL]] = decision
    gi[G_TAIL] += 1


@numba.njit(cache=True)
def pop(gi: Ints) -> None:
    """Close the decision at the head of the queue (the queue restarts when empty)."""
    gi[G_HEAD] += 1
    if gi[G_HEAD] == gi[G_TAIL]:
        gi[G_HEAD] = gi[G_TAIL] = 0


@numba.njit(cache=True)
def advance(ip: Ints, small: Ints, sector_mesa: Ints, gi: Ints) -> None:
    """`AnasaziState._advance`: drop decisions without options, then the next player, phase or
    the end."""
    while gi[G_HEAD] < gi[G_TAIL] and not has_options(ip, small, sector_mesa, gi,
                                                       gi[ip[O_PEND] + gi[G_HEAD]]):
        pop(gi)
    if gi[G_HEAD] < gi[G_TAIL]:
        return
    n, first = gi[G_PLAYERS], gi[G_FIRST]
    if gi[G_PHASE] == PH_CAMPS:
        if gi[G_STEP] < ip[I_SETUP_CAMPS] * n:
            gi[G_CUR] = (first + gi[G_STEP] % n) % n
        else:
            gi[G_PHASE], gi[G_STEP], gi[G_CUR] = PH_LOOKS, 0, first
        return
    if gi[G_PHASE] == PH_LOOKS:
        looked, towers = 0, 0
        for j in range(ip[I_S]):
            looked += gi[ip[O_LOOKED] + j]
            towers += small[j] and gi[ip[O_CONTENT] + j] == TOWER
        if looked < ip[I_SETUP_LOOKS] and towers > 0:
            return
        gi[G_STEP] += 1
        for j in range(ip[I_S]):
            gi[ip[O_LOOKED] + j] = 0
        if gi[G_STEP] < n:
            gi[G_CUR] = (first + gi[G_STEP]) % n
        else:
            gi[G_PHASE], gi[G_CUR], gi[G_ACTS] = PH_PLAY, first, ip[I_ACTS]
        return
    if gi[G_ENDED]:
        gi[G_PHASE] = PH_OVER
        return
    if gi[G_ACTS] <= 0:
        gi[G_CUR] = (gi[G_CUR] + 1) % n
        gi[G_ACTS] = ip[I_ACTS]
        for i in range(gi[G_NCAMPS]):
            gi[ip[O_FRESH] + i] = 0


@numba.njit(cache=True)
def build_camp(ip: Ints, gi: Ints, gf: Array, x: float, y: float) -> None:
    """`AnasaziState._build_camp`."""
    i = gi[G_NCAMPS]
    gf[ip[O_CAMPXY] + 2 * i], gf[ip[O_CAMPXY] + 2 * i + 1] = x, y
    gi[ip[O_OWNER] + i], gi[ip[O_COVERED] + i] = gi[G_CUR], 0
    gi[G_NCAMPS] += 1
    if gi[G_PHASE] == PH_CAMPS:
        gi[G_STEP] += 1
    else:
        gi[ip[O_FRESH] + i] = 1
        gi[G_ACTS] -= 1
        push(ip, gi, D_LOOK)


@numba.njit(cache=True)
def lay_marker(fp: Array, ip: Ints, verts: Array, rings: Ints, polys: Ints, convex: Ints,
               circles: Array, sector_mesa: Ints, gi: Ints, gf: Array, e: int, x: float,
               y: float, h: float) -> None:
    """`AnasaziState._lay_marker`: lay the marker, then take what it touches (sectors in the
    table's order), mark the base camps it covers for the first time (a take for one's own),
    open a look for each mesa entered first, and end the game if it ends."""
    player, a, b, eps = gi[G_CUR], fp[F_A], fp[F_B], fp[F_EPS]
    c, s = cos_sin(h)
    k = gi[G_NMARK]
    mk = ip[O_MARK] + 5 * k
    gf[mk], gf[mk + 1], gf[mk + 2], gf[mk + 3], gf[mk + 4] = x, y, h, c, s
    gi[ip[O_MEXP] + k], gi[ip[O_LAST] + e] = e, k
    gi[G_NMARK] += 1
    gi[G_ACTS] -= 1
    S, M, reach = ip[I_S], ip[I_M], fp[F_REACH]
    for j in range(S):
        if (gi[ip[O_CONTENT] + j] != EMPTY
                and near(x - circles[j, 0], y - circles[j, 1], circles[j, 2] + reach)
                and marker_touches(verts, rings, polys, convex, j, x, y, c, s, a, b)):
            colour = gi[ip[O_COLOUR] + j]
            if gi[ip[O_CONTENT] + j] == TREASURE:
                gi[G_HANDS + NCOLOURS * player + colour] += 1
            else:
                gi[G_TRACK + colour] += 1
            gi[ip[O_CONTENT] + j] = EMPTY
    cxy, rc = ip[O_CAMPXY], fp[F_RC]
    for i in range(gi[G_NCAMPS]):
        if gi[ip[O_COVERED] + i] == 0 and rect_within(
                x, y, c, s, a, b, gf[cxy + 2 * i], gf[cxy + 2 * i + 1], rc - eps):
            gi[ip[O_COVERED] + i] = 1
            if gi[ip[O_OWNER] + i] == player and ip[I_THEFT]:
                push(ip, gi, D_TAKE)
    for m in range(M):
        p = S + m
        if (gi[ip[O_VISITED] + m] == 0
                and near(x - circles[p, 0], y - circles[p, 1], circles[p, 2] + reach)
                and marker_touches(verts, rings, polys, convex, p, x, y, c, s, a, b)):
            gi[ip[O_VISITED] + m] = 1
            push(ip, gi, m)
    ended = gi[G_NMARK] >= ip[I_MARKERS]
    for colour in range(NCOLOURS):
        ended |= gi[G_TRACK + colour] >= ip[I_TOWERS_END]
    if ended:
        gi[G_ENDED] = 1
        # Only the takes stay open: they still change the score.
        kept = 0
        pend = ip[O_PEND]
        for q in range(gi[G_HEAD], gi[G_TAIL]):
            if gi[pend + q] == D_TAKE:
                gi[pend + kept] = D_TAKE
                kept += 1
        gi[G_HEAD], gi[G_TAIL] = 0, kept


# -- the kernel: whole games ----------------------------------------------------------------------
@numba.njit(cache=True)
def grown(log: Ints, coords: Array, k: int, m: int) -> tuple[Ints, Array]:
    """The log and the coordinates with room for at least one more decision each."""
    if k >= log.shape[0]:
        bigger = np.zeros((2 * log.shape[0], 3), dtype=np.int64)
        _copy_rows(bigger, log, k)
        log = bigger
    if m >= coords.shape[0]:
        more = np.zeros((2 * coords.shape[0], 3), dtype=np.float64)
        _copy_rows(more, coords, m)
        coords = more
    return log, coords


@numba.njit(cache=True)
def _copy_rows(dst: np.ndarray, src: np.ndarray, rows: int) -> None:
    """dst[:rows] = src[:rows], element by element: a slice assignment of 2-d arrays has numba
    compile its shape-error message (numba's string formatting), about a third of the kernel's
    first compilation."""
    for row in range(rows):
        for col in range(src.shape[1]):
            dst[row, col] = src[row, col]


@numba.njit(cache=True)
def choose_finite(ip: Ints, small: Ints, sector_mesa: Ints, gi: Ints, opts: Ints) -> int:
    """The options of a finite decision as codes in `opts` (in the order the rules list them);
    returns their number."""
    player, n = gi[G_CUR], 0
    if gi[G_PHASE] == PH_LOOKS:
        for j in range(ip[I_S]):
            if small[j] and gi[ip[O_CONTENT] + j] == TOWER and gi[ip[O_LOOKED] + j] == 0:
                opts[n] = LOOK * KIND + j
                n += 1
        return n
    decision = gi[ip[O_PEND] + gi[G_HEAD]]
    if decision == D_TAKE:
        for q in range(gi[G_PLAYERS]):
            if q != player:
                for c in range(NCOLOURS):
                    if gi[G_HANDS + NCOLOURS * q + c] > 0:
                        opts[n] = TAKE * KIND + NCOLOURS * q + c
                        n += 1
    else:
        for j in range(ip[I_S]):
            if (small[j] and gi[ip[O_CONTENT] + j] == TOWER
                    and (decision == D_LOOK or sector_mesa[j] == decision)):
                opts[n] = LOOK * KIND + j
                n += 1
    opts[n] = PASS * KIND
    return n + 1


@numba.njit(cache=True)
def apply_finite(ip: Ints, gi: Ints, code: int) -> None:
    """Carry out a look, a take or a pass."""
    kind, payload = code // KIND, code % KIND
    if gi[G_PHASE] == PH_LOOKS:
        gi[ip[O_LOOKED] + payload] = 1
        return
    if kind == TAKE:
        q, c = payload // NCOLOURS, payload % NCOLOURS
        gi[G_HANDS + NCOLOURS * q + c] -= 1
        gi[G_HANDS + NCOLOURS * gi[G_CUR] + c] += 1
    pop(gi)


@numba.njit(cache=True)
def play_game(fp: Array, ip: Ints, verts: Array, rings: Ints, polys: Ints, convex: Ints,
              circles: Array, sector_mesa: Ints, small: Ints, starts: Array, gi: Ints, gf: Array,
              log: Ints, coords: Array, k: int, m: int, opts: Ints, obs: Array, out: Array,
              tag: np.int64) -> tuple[Ints, Array, int, int]:
    """Play one game to the end from `gi`, `gf` (changed in place), logging each decision
    (player, code, options) from row `k` and the continuous ones' coordinates from row `m`."""
    cpp = ip[I_CPP]
    while gi[G_PHASE] != PH_OVER:
        log, coords = grown(log, coords, k, m)
        player = gi[G_CUR]
        phase = gi[G_PHASE]
        if phase == PH_LOOKS or (phase == PH_PLAY and gi[G_HEAD] < gi[G_TAIL]):
            n = choose_finite(ip, small, sector_mesa, gi, opts)
            if n == 0:
                gi[G_STUCK] = 1
                break
            code = opts[np.random.randint(0, n)]
            log[k, 0], log[k, 1], log[k, 2] = player, code + tag, n
            k += 1
            apply_finite(ip, gi, code)
            advance(ip, small, sector_mesa, gi)
            continue
        camps_left = 0
        for i in range(gi[G_NCAMPS]):
            camps_left += gi[ip[O_OWNER] + i] == player
        camps_ok = camps_left < cpp
        # `_sample_main`: in setup a camp; in play a camp with chance CAMP_SHARE, else a
        # marker; the other kind when the first finds nothing, camps last.
        want_camp = camps_ok and (phase == PH_CAMPS or np.random.random() < fp[F_SHARE])
        e = -1
        found = want_camp and sample_camp(fp, ip, verts, rings, polys, circles, gi, gf, out)
        if not found and phase == PH_PLAY:
            e = sample_marker(fp, ip, starts, gi, gf, player, obs, out)
            found = e >= 0
        if not found and camps_ok:
            found = sample_camp(fp, ip, verts, rings, polys, circles, gi, gf, out)
        if not found:
            gi[G_STUCK] = 1
            break
        coords[m, 0], coords[m, 1], coords[m, 2] = out[0], out[1], out[2]
        if e < 0:
            code = CAMP * KIND + m
            build_camp(ip, gi, gf, out[0], out[1])
        else:
            code = MARKER * KIND + m * MAX_EXPEDITIONS + e
            lay_marker(fp, ip, verts, rings, polys, convex, circles, sector_mesa, gi, gf, e,
                       out[0], out[1], out[2])
        m += 1
        log[k, 0], log[k, 1], log[k, 2] = player, code + tag, 0
        k += 1
        advance(ip, small, sector_mesa, gi)
    return log, coords, k, m


@numba.njit(cache=True)
def score_game(ip: Ints, gi: Ints, out: Array) -> None:
    """Rules 5.1 at the end of a game: the bonus treasure of each colour to its sole most
    holder, each treasure at its colour's empty track spaces, doubled for the objective card;
    the winners (most points, then most treasures). `out[:4]` the scores, `out[4:]` 1 for a
    winner."""
    n = gi[G_PLAYERS]
    held = np.zeros((MAX_PLAYERS, NCOLOURS), dtype=np.int64)
    for c in range(NCOLOURS):
        best, who = 0, -1
        for p in range(n):
            held[p, c] = gi[G_HANDS + NCOLOURS * p + c]
            if held[p, c] > best:
                best, who = held[p, c], p
            elif held[p, c] == best:
                who = -1
        if best > 0 and who >= 0 and ip[I_BONUS]:
            held[who, c] += 1
    top, most = -1.0, -1
    counts = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for p in range(n):
        points = 0
        for c in range(NCOLOURS):
            value = (TRACK_SPACES - gi[G_TRACK + c]) * (ip[I_OBJ_TIMES] if gi[G_OBJ + p] == c else 1)
            points += held[p, c] * value
            counts[p] += held[p, c]
        out[p] = points
        top = max(top, out[p])
    for p in range(n):
        if out[p] == top:
            most = max(most, counts[p])
    for p in range(n):
        out[MAX_PLAYERS + p] = 1.0 if out[p] == top and counts[p] == most else 0.0


@numba.njit(cache=True)
def seed_generator(seed: np.int64) -> None:
    """Seed numba's generator (the kernel's only source of randomness)."""
    np.random.seed(seed)


@numba.njit(cache=True)
def play_batch(fp: Array, ip: Ints, verts: Array, rings: Ints, polys: Ints, convex: Ints,
               circles: Array, sector_mesa: Ints, small: Ints, starts: Array, gi: Ints, gf: Array,
               tag: np.int64) -> tuple[Ints, Array, Ints, Array]:
    """Play every game of a batch (rows of `gi`, `gf`, on one table; changed in place) to the
    end with numba's generator as it stands; return the log (codes plus `tag`), the
    coordinates, the offsets and per game the scores and winners (`score_game`)."""
    games = gi.shape[0]
    log = np.zeros((256 * games, 3), dtype=np.int64)
    coords = np.zeros((128 * games, 3), dtype=np.float64)
    offsets = np.zeros(games + 1, dtype=np.int64)
    opts = np.zeros(ip[I_S] + MAX_PLAYERS * NCOLOURS + 1, dtype=np.int64)
    obs = np.zeros((gi.shape[1] + ip[I_E], 3), dtype=np.float64)
    out = np.zeros(3, dtype=np.float64)
    scored = np.zeros((games, 2 * MAX_PLAYERS), dtype=np.float64)
    k, m = int(0), int(0)  # not literals: a literal 0 compiles play_game twice
    for i in range(games):
        log, coords, k, m = play_game(fp, ip, verts, rings, polys, convex, circles, sector_mesa,
                                      small, starts, gi[i], gf[i], log, coords, k, m, opts, obs,
                                      out, tag)
        offsets[i + 1] = k
        score_game(ip, gi[i], scored[i])
    return log[:k].copy(), coords[:m].copy(), offsets, scored
