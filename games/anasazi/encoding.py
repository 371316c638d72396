"""Anasazi for RL libraries: a fixed discretisation of its continuous actions, with ids, and
the observation tensor.

Anasazi's base camps and markers lie anywhere on the table; RL libraries want a finite set of
actions. The discretisation (every id names one ordinary Anasazi action, judged by the rules like
any other) is, in id order:

=================  ================================================================
ids (default)      actions
=================  ================================================================
0                  ``pass``
1-44               ``look {P}s`` for each pueblo P in the table's order, ``look P0s`` to
                   ``look P43s`` by default (the small sector, where towers stand)
45-821             ``camp X,Y`` on a square grid of `CAMP_SPACING` (25 mm) cells within the
                   play area (rows from -y to +y, x ascending in each; 777 cells by default)
822-1109           ``extend E{e} heading H along A`` for each expedition base camp E1..E6, each
                   heading H of `HEADINGS` (every 15 degrees from 0) and each A of `ALONGS`
                   (0: the longest step, 31: half of it) -- 288 ids
1110-              ``take COLOUR from P`` for P = 0, 1, ... and each colour (4 per player)
=================  ================================================================

`legal_ids` keeps the ids whose action `state.check` accepts: the turn and decision rules are
asked of the state, the geometry of camps and markers of the batched checks
(`legality.check_camps`, `legality.check_markers`), which agree with the exact ones
(tests/test_ecosystem.py compares the two on every id). A state can offer legal placements none
of which is on the grid (rare); the continuous pose space is `geomsim.envs.anasazi_pose_space`.

The observation tensor is a flat float32 vector, the sections of `AnasaziEncoding.layout`
(docs/ecosystem.md), made from `state.observe(player)` alone: unseen towers and other players'
objective cards stay hidden.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from games.anasazi import legality as lg
from games.anasazi.actions import BuildCamp, ExtendMarker, LookTower, Pass, TakeTreasure
from games.anasazi.components import COLOURS, Table
from games.anasazi.rules import AnasaziState
from geomsim.encoding import Encoding, Layout, made_once, one_hot
from geomsim.rules import Action, FiniteActionSpace, Player, State

CAMP_SPACING = 25.0  # mm between the grid's base camp centres
HEADINGS = tuple(float(h) for h in range(0, 360, 15))
ALONGS = (0.0, 31.0)
PHASES = ("camps", "looks", "play", "over")
DECISIONS = ("take", "look")  # a look after a camp, or "look:<mesa>" after entering a mesa
CONTENTS = ("empty", "tower") + tuple(f"{c} tower" for c in COLOURS) + tuple(
    f"{c} treasure" for c in COLOURS)


class AnasaziEncoding(Encoding):
    """The discretisation's ids and the observation tensor of Anasazi for one player count."""

    exhaustive = False  # placements off the grid, headings and steps between have no id

    def __init__(self, table: Table, players: int, setup_looks: int = 3, actions: int = 2):
        self.players, self.table = players, table
        self.turn_actions = actions  # the option actions_per_turn: the scale of "actions_left"
        sizes = table.sizes
        self.pueblos = len(table.pueblos)
        reach = sizes.play_area_radius - sizes.base_camp_radius
        steps = int(reach // CAMP_SPACING)
        grid = [(x * CAMP_SPACING, y * CAMP_SPACING) for y in range(-steps, steps + 1)
                for x in range(-steps, steps + 1)
                if math.hypot(x, y) * CAMP_SPACING <= reach]
        self.expeditions = tuple(e.id for e in table.expedition_camps)
        self.markers = [ExtendMarker(e, h, a) for e in self.expeditions for h in HEADINGS
                        for a in ALONGS]
        self.actions: list[Action] = [Pass()]
        # A look per pueblo, in the table's order (a single pueblo's look is never legal).
        self.actions += [LookTower(f"{p.id}s") for p in table.pueblos]
        self.actions += [BuildCamp(x, y) for x, y in grid]
        self.actions += self.markers
        self.actions += [TakeTreasure(c, p) for p in range(players) for c in COLOURS]
        self.ids = {a: i for i, a in enumerate(self.actions)}
        self.num_distinct_actions = len(self.actions)
        self.first_camp = 1 + self.pueblos
        self.first_marker = self.first_camp + len(grid)
        self.first_take = self.first_marker + len(self.expeditions) * len(HEADINGS) * len(ALONGS)
        self.camp_points = np.array([complex(x, y) for x, y in grid])
        n, e, k = players, len(self.expeditions), len(COLOURS)
        self.layout = Layout([
            ("observer", n), ("current", n), ("phase", len(PHASES)), ("actions_left", 1),
            ("decision", len(DECISIONS)), ("markers_left", 1),
            ("camps", (n, sizes.base_camps_per_player, 4)),  # present, x, y (/ radius), covered
            ("expeditions", (e, 5)),  # markers laid (/ supply), end x, y, cos, sin of heading
            ("pueblos", (self.pueblos, 2)),  # centre x, y (/ radius)
            ("contents", (self.pueblos, 2, len(CONTENTS))),  # (single or large, small) sector
            ("track", k), ("hands", (n, k)), ("objectives", (n, k)),
        ])
        self.observation_shape = (self.layout.size,)
        centres = [p.polygon.centroid for p in table.pueblos]
        self.pueblo_xy = np.array([[c.x, c.y] for c in centres]) / sizes.play_area_radius
        # Each sector's cell in "contents", by its pueblo's place in the table: a setup may
        # name its pueblos as it likes.
        self.cells = {s.id: (row, int(s.kind == "small"))
                      for row, p in enumerate(table.pueblos) for s in p.sectors}
        # Main actions: markers (the supply) and base camps (all of everyone's); follow-ups:
        # a look per base camp and per mesa entered, a take per own base camp; setup: looks.
        camps = sizes.base_camps_per_player * players
        self.max_game_length = sizes.markers + 3 * camps + len(table.mesas) + setup_looks * players

    # -- ids --------------------------------------------------------------------------------
    def action_id(self, action: Action) -> int:
        try:
            return self.ids[action]
        except (KeyError, TypeError):
            raise ValueError(f"{action} is not in Anasazi's discretisation "
                             "(docs/ecosystem.md)") from None

    def action_from_id(self, i: int) -> Action:
        return self.actions[self.check_id(i)]

    def legal_ids(self, state: State, player: Player) -> list[int]:
        """The ids whose action `state.check` accepts, ascending."""
        assert isinstance(state, AnasaziState)
        if player not in state.to_move():
            return []
        space = state.legal_actions(player)
        if isinstance(space, FiniteActionSpace):  # setup looks, or a decision: listed by the rules
            return sorted(i for a in space if (i := self.ids.get(a)) is not None)
        found = []
        if not state._turn_violations(BuildCamp(0.0, 0.0), player) and state.camps_left(player):
            ok = lg.check_camp_points(state.board(), self.camp_points).ok
            found += [self.first_camp + int(i) for i in np.flatnonzero(ok)]
        if state.phase == "play":
            found += self._legal_markers(state, player)
        return found

    def _legal_markers(self, state: AnasaziState, player: Player) -> list[int]:
        board, found = state.board(), []
        per = len(HEADINGS) * len(ALONGS)
        for k, e in enumerate(self.expeditions):
            if lg.expedition_violations(board, e):
                continue
            poses = [a.resolve(state).pose for a in self.markers[k * per:(k + 1) * per]]
            ctx = lg.marker_context(board, player, e)
            ok = lg.check_markers(ctx, [p.x for p in poses], [p.y for p in poses],
                                  [p.heading for p in poses]).ok
            found += [self.first_marker + k * per + int(i) for i in np.flatnonzero(ok)]
        return found

    # -- the observation ----------------------------------------------------------------------
    def observation_tensor(self, state: State, player: Player) -> np.ndarray:
        seen = state.observe(player)
        out = self.layout.empty()
        view = functools.partial(self.layout.view, out)
        R = self.table.sizes.play_area_radius
        one_hot(view("observer"), player)
        one_hot(view("current"), seen["current"])
        one_hot(view("phase"), PHASES.index(seen["phase"]))
        view("actions_left")[0] = seen["actions_left"] / self.turn_actions
        if seen["pending"]:
            one_hot(view("decision"), DECISIONS.index(seen["pending"][0].split(":")[0]))
        laid = sum(len(ps) for ps in seen["expeditions"].values())
        view("markers_left")[0] = 1 - laid / self.table.sizes.markers
        slots = [0] * self.players
        for i, (owner, at) in enumerate(seen["camps"]):
            x, y = (float(v) for v in at.split(","))
            view("camps")[owner, slots[owner]] = (1.0, x / R, y / R, float(seen["covered"][i]))
            slots[owner] += 1
        for k, e in enumerate(self.expeditions):
            poses = seen["expeditions"].get(e, [])
            if poses:
                where, _, heading = poses[-1].partition(" heading ")
                x, y = (float(v) for v in where.split(","))
                h = math.radians(float(heading))
                view("expeditions")[k] = (len(poses) / self.table.sizes.markers, x / R, y / R,
                                          math.cos(h), math.sin(h))
        view("pueblos")[:] = self.pueblo_xy
        contents = view("contents")
        contents[:, :, 0] = 1.0  # empty until something is found there
        for sector, what in seen["contents"].items():
            row, small = self.cells[sector]
            contents[row, small] = 0.0
            contents[row, small, CONTENTS.index(what)] = 1.0
        view("track")[:] = [seen["track"][c] for c in COLOURS]
        view("hands")[:] = [[h[c] for c in COLOURS] for h in seen["hands"]]
        for p, objective in enumerate(seen["objectives"]):
            if objective is not None:
                one_hot(view("objectives")[p], COLOURS.index(objective))
        return out


def encoding(table: Table, players: int) -> AnasaziEncoding:
    """The encoding of games of `players` players on `table` (made once per pair)."""
    return made_once(table, players, lambda: AnasaziEncoding(table, players))  # type: ignore[return-value]


def state_encoding(state: AnasaziState) -> AnasaziEncoding:
    """`state.encoding`: the ids and observation tensor on the state's own table (its sizes:
    the markers and base camps options) and under its setup looks and actions a turn."""
    looks, actions = state.options["setup_looks"], state.options["actions_per_turn"]
    if (looks, actions) == (3, 2):
        return encoding(state.table, state.num_players)
    key = (id(state.table), state.num_players, looks, actions)
    found = _UNDER_OPTIONS.get(key)
    if found is None or found.table is not state.table:
        if len(_UNDER_OPTIONS) >= 32:
            _UNDER_OPTIONS.clear()
        found = _UNDER_OPTIONS[key] = AnasaziEncoding(state.table, state.num_players, looks, actions)
    return found


# Encodings under options that change the bound or a scale, by (id of the table, players,
# setup looks, actions a turn).
_UNDER_OPTIONS: dict[tuple[int, int, int, int], AnasaziEncoding] = {}


@functools.cache
def default_encoding(players: int) -> AnasaziEncoding:
    """The encoding of a game's default table (seed 0): ids and shapes are the same on every
    table of the default components."""
    from games.anasazi import GAME

    return encoding(GAME.new_state(players, seed=0).table, players)
