"""A planning player for Anasazi: ``planner[:N]`` (N covering placements drawn per expedition).

The player sees the game only through the rules interface: `observe` for what it knows (its
objective card, the towers it has seen, the hands, the track) and a `determinize`d state for
the geometry and the legality of its candidates; the action it returns passed `state.check`.

Each decision of a turn:

1. Belief. Treasure values are the empty track spaces; a tower not seen is of each colour in
   proportion to the towers of that colour neither seen nor on the track; another player's
   objective is drawn from the seven cards left. `Belief.utility` rates hands and track for the
   planner: its expected score (objective doubled, bonus majorities as they stand) less the
   mean of the best opponent's and the opponents' average, plus a prize or a penalty when the
   game ends (a colour's fourth tower, the last marker).
2. Markers. From every expedition's end (or free start mark) `samples` covering placements are
   drawn (`reach.Step`), filtered by the rules' batched mask (`reach.StatePlacer`) and grouped
   by what they touch (`legality.touched_sectors_batch`: the rules' verdicts) and whose base camps
   they cover first (the camp theft). The value of a placement is the change of utility it
   brings, plus what its new end offers: with an action left this turn, the pueblos one marker
   from it (the planner takes them next); as the turn's last action, minus what it offers the
   next player (any player may extend any expedition: an end left near a rich pueblo is a gift)
   beyond what the other ends already offer. Distances are `reach.chain_reach` bounds over the
   pueblo sectors' outlines (one marker, two markers), so a chain of up to three markers is
   planned a step at a time. `reach.robustness` (how far a marker may err) breaks near ties.
3. Base camps. Candidates around every end: a camp that one marker from an end can cover is a
   camp theft to come; a camp across the placements by which the next player would reach a
   pueblo blocks them (they may not cover it; the planner may). Building also earns a look.
4. Decisions. A look goes to the unseen tower nearest an expedition's end; a take to the
   treasure whose move gains most utility.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from games.anasazi import legality as lg
from games.anasazi import reach
from games.anasazi.actions import BuildCamp, LookTower, Pass, PlaceMarker, TakeTreasure
from games.anasazi.components import COLOURS, OBJECTIVES, TOWERS_PER_COLOUR, TRACK_SPACES, Table
from geomsim.bots import MAX_SAMPLES, positive_int
from geomsim.geometry import Pose, distance_to_rectangle, to_frames
from games.anasazi.rules import AnasaziState
from geomsim.rules import Action, State

SAMPLES = 320  # covering placements drawn per expedition
CAMP_SAMPLES = 48  # candidate base camps drawn around each end
END_PRIZE = 15.0  # utility of ending the game ahead (its negative: behind)
NEXT_ACTION = 0.8  # weight of the pueblos one marker from the new end, with an action left
POSITION = 0.15  # weight of those two markers away (with an action left)
GIFT = 0.8  # weight of what the turn's last marker offers the next player
TWO_MARKERS = 0.6  # share of a two-marker gift (the next player spends both actions)
THEFT_CHANCE = 0.5  # chance that a camp one marker from an end is covered first by the planner
STEAL_FLOOR = 3.0  # worth of a theft to come when nobody holds a treasure yet
BLOCK = 0.7  # weight of a gift a base camp takes away from the next player
LOOK = 0.3  # worth of looking at an unseen tower
ROBUST = 0.02  # weight per mm of margin (capped at 4 mm): a tie-break
OUTLINE_STEP = 3  # every how many of a target's sample points stand for its sector


# -- what the planner believes -----------------------------------------------------------------
@dataclass
class Belief:
    """What `player` knows, as numbers: hands, track, objective odds, tower colour odds."""

    player: int
    hands: np.ndarray  # (players, colours) treasures held
    track: np.ndarray  # (colours,) towers on the score tile
    factor: np.ndarray  # (players, colours) expected multiplier of a treasure (objective: 2)
    towers: dict[str, np.ndarray]  # sector -> colour probabilities of the tower on it
    treasures: dict[str, int]  # sector -> colour index of the treasure on it
    markers_left: int

    @classmethod
    def of(cls, state: AnasaziState, player: int) -> Belief:
        """The belief of `player` from `state.observe(player)`."""
        seen = state.observe(player)
        n = seen["players"]
        hands = np.array([[h[c] for c in COLOURS] for h in seen["hands"]], float)
        track = np.array([seen["track"][c] for c in COLOURS], float)
        mine = seen["objectives"][player]  # None until the cards are dealt (after setup camps)
        pool = list(OBJECTIVES)
        if mine is not None:
            pool.remove(mine)
        odds = np.array([pool.count(c) / len(pool) for c in COLOURS])
        factor = np.tile(1.0 + odds, (n, 1))
        if mine is not None:
            factor[player] = [2.0 if c == mine else 1.0 for c in COLOURS]
        treasures, towers, known = {}, {}, np.zeros(len(COLOURS))
        for sector, text in seen["contents"].items():
            colour, _, kind = text.rpartition(" ")
            if kind == "treasure":
                treasures[sector] = COLOURS.index(colour)
            elif colour:
                towers[sector] = np.eye(len(COLOURS))[COLOURS.index(colour)]
                known[COLOURS.index(colour)] += 1
        unknown = np.maximum(TOWERS_PER_COLOUR - track - known, 0.0)
        hidden = unknown / unknown.sum() if unknown.sum() else np.full(len(COLOURS), 0.25)
        for sector, text in seen["contents"].items():
            if text == "tower":
                towers[sector] = hidden
        left = state.sizes.markers - sum(len(p) for p in seen["expeditions"].values())
        return cls(player, hands, track, factor, towers, treasures, left)

    def scores(self, hands: np.ndarray, track: np.ndarray) -> np.ndarray:
        """Each player's expected score: treasures at their value, the bonus majorities as the
        hands stand now."""
        values = TRACK_SPACES - track
        worth = self.factor * values
        total: np.ndarray = (hands * worth).sum(axis=1)
        best = hands.max(axis=0)
        for c in np.flatnonzero(best > 0):
            holders = np.flatnonzero(hands[:, c] == best[c])
            if len(holders) == 1:
                total[holders[0]] += worth[holders[0], c]
        return total

    def utility(self, hands: np.ndarray, track: np.ndarray, ended: bool = False) -> float:
        """How good hands and track are for the planner: its score against the opponents'
        (the best one's and their mean, half each), a prize or a penalty at the end."""
        s = self.scores(hands, track)
        me, others = s[self.player], np.delete(s, self.player)
        value = float(me - 0.5 * others.max() - 0.5 * others.mean()) if len(others) else float(me)
        if ended:
            value += END_PRIZE if me > others.max() else -END_PRIZE
        return value

    def best_steal(self, hands: np.ndarray, track: np.ndarray) -> tuple[float, TakeTreasure | None]:
        """The utility a camp theft adds, and the take that adds it."""
        base = self.utility(hands, track)
        best: tuple[float, TakeTreasure | None] = (0.0, None)
        for q, c in zip(*np.nonzero(hands)):
            if q == self.player:
                continue
            after = hands.copy()
            after[q, c] -= 1
            after[self.player, c] += 1
            gain = self.utility(after, track) - base
            if best[1] is None or gain > best[0]:
                best = (gain, TakeTreasure(COLOURS[c], int(q)))
        return best

    def gain(self, sectors: Sequence[str], steal: bool, last_marker: bool) -> float:
        """The expected change of utility when the planner's marker touches `sectors` (and
        covers one of its base camps first, with `steal`)."""
        hands = self.hands.copy()
        for s in sectors:
            if s in self.treasures:
                hands[self.player, self.treasures[s]] += 1
        towers = [self.towers[s] for s in sectors if s in self.towers][:2]
        base = self.utility(self.hands, self.track)
        total = 0.0
        for combo in itertools.product(range(len(COLOURS)), repeat=len(towers)):
            p = math.prod(t[c] for t, c in zip(towers, combo))
            if p == 0.0:
                continue
            track = self.track.copy()
            for c in combo:
                track[c] += 1
            ended = last_marker or bool((track >= TOWERS_PER_COLOUR).any())
            value = self.utility(hands, track, ended)
            if steal:
                value += self.best_steal(hands, track)[0]
            total += p * value
        return total - base

    def offer(self, sector: str, player: int) -> float:
        """What taking `sector` alone is worth to `player`'s own score (0 or more)."""
        values = TRACK_SPACES - self.track
        if sector in self.treasures:
            c = self.treasures[sector]
            return float(values[c] * self.factor[player, c])
        loss = float((self.towers[sector] * self.hands[player] * self.factor[player]).sum())
        return max(0.0, -loss)


# -- the geometry of one decision ------------------------------------------------------------------
@dataclass
class _Sectors:
    """Outline points of the sectors that still hold something, with each one's sector index."""

    ids: list[str]
    points: np.ndarray  # complex
    owner: np.ndarray

    def distances(self, ends: np.ndarray) -> np.ndarray:
        """(n, sectors): the distance from each end to each sector (its outline points)."""
        d = np.abs(ends[:, None] - self.points[None, :])
        out = np.full((len(ends), len(self.ids)), np.inf)
        for j in range(len(self.ids)):
            cols = self.owner == j
            if cols.any():
                out[:, j] = d[:, cols].min(axis=1)
        return out


_OUTLINES: lg.Recent[int, tuple[Table, dict[str, np.ndarray]]] = lg.Recent(16)


def _outlines(table: Any) -> dict[str, np.ndarray]:
    """Sample points (complex) of every sector of `table`, as reach's targets hold them."""
    def make() -> dict[str, np.ndarray]:
        found = {}
        for s in table.sectors:
            pts = reach.sector_target(table, s.id).points[::OUTLINE_STEP]
            found[s.id] = pts[:, 0] + 1j * pts[:, 1]
        return found

    return _OUTLINES.of_table(table, make)


def _sectors(table: Any, belief: Belief) -> _Sectors:
    outlines = _outlines(table)
    ids = [s for s in outlines if s in belief.treasures or s in belief.towers]
    if not ids:
        return _Sectors([], np.zeros(0, complex), np.zeros(0, int))
    return _Sectors(ids, np.concatenate([outlines[s] for s in ids]),
                    np.concatenate([np.full(len(outlines[s]), j) for j, s in enumerate(ids)]))


@dataclass
class _Candidates:
    """Legal placements of one expedition: poses, what they touch, their new ends."""

    expedition: str
    placer: reach.StatePlacer
    x: np.ndarray
    y: np.ndarray
    h: np.ndarray
    a: np.ndarray
    c: np.ndarray
    touched: np.ndarray  # (n, sectors) over `_Sectors.ids`
    steals: np.ndarray  # (n,) covers one of the planner's base camps for the first time
    ends: np.ndarray  # (n,) complex: the new end explorers
    values: np.ndarray = field(default_factory=lambda: np.zeros(0))


@dataclass
class PlannerBot:
    """The planning player of Anasazi (see the module docstring)."""

    samples: int = SAMPLES
    spec: str = "planner"

    def choose(self, state: AnasaziState, player: int, rng: np.random.Generator) -> Action:
        """A legal action of `player` that the plan rates best."""
        seen = state.determinize(player, rng)
        belief = Belief.of(state, player)
        if seen.phase == "looks":
            return self._look(seen, player, state.legal_actions(player))
        if seen.pending:
            space = list(state.legal_actions(player))  # type: ignore[call-overload]
            if seen.pending[0] == "take":
                return self._take(belief, space)
            return self._look(seen, player, space)
        return _Plan(self, seen, belief, player, rng).best(state)

    @staticmethod
    def _take(belief: Belief, space: list[Action]) -> Action:
        gain, take = belief.best_steal(belief.hands, belief.track)
        return take if take is not None and take in space else space[0]

    @staticmethod
    def _look(seen: Any, player: int, space: Any) -> Action:
        """The unseen tower nearest an expedition's end (or start mark)."""
        looks = [a for a in space if isinstance(a, LookTower) and a.sector not in seen.seen[player]]
        if not looks:
            looks = [a for a in space if isinstance(a, LookTower)]
        if not looks:
            return Pass()
        ends = np.array([complex(*lg.expedition_end(seen.board(), e.id)[:2])
                         for e in seen.table.expedition_camps])
        outlines = _outlines(seen.table)
        return min(looks, key=lambda a: (float(np.abs(ends[:, None] - outlines[a.sector][None, :])
                                               .min()), a.sector))


class _Plan:
    """One main decision: marker and base camp candidates, valued, the best exactly checked."""

    def __init__(self, bot: PlannerBot, seen: Any, belief: Belief, player: int,
                 rng: np.random.Generator):
        self.bot, self.seen, self.belief, self.player, self.rng = bot, seen, belief, player, rng
        self.sizes = seen.sizes
        self.sectors = _sectors(seen.table, belief)
        self.r1 = reach.chain_reach(self.sizes, self.sizes.explorer_radius, 1)
        self.r2 = reach.chain_reach(self.sizes, self.sizes.explorer_radius, 2)
        self.more = seen.actions_left >= 2  # the planner moves again after this action
        nxt = (player + 1) % seen.num_players
        self.mine = np.array([max(0.0, belief.gain([s], False, False)) for s in self.sectors.ids])
        self.theirs = np.array([belief.offer(s, nxt) for s in self.sectors.ids])
        self.expeditions = [e.id for e in seen.table.expedition_camps]
        self.old_ends = np.array([complex(*lg.expedition_end(seen.board(), e)[:2])
                                  for e in self.expeditions])
        self.old_gifts = self._gift(self.old_ends, np.zeros((len(self.old_ends),
                                                             len(self.sectors.ids)), bool))

    # -- potentials of ends --------------------------------------------------------------------
    def _within(self, ends: np.ndarray, taken: np.ndarray, worth: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
        """The best `worth` of a sector not `taken` within one marker of each end, and within
        two (`reach.chain_reach` bounds)."""
        if not len(self.sectors.ids):
            return np.zeros(len(ends)), np.zeros(len(ends))
        d = self.sectors.distances(ends)
        open_worth = np.where(taken, 0.0, worth[None, :])
        return (np.where(d <= self.r1, open_worth, 0.0).max(axis=1),
                np.where(d <= self.r2, open_worth, 0.0).max(axis=1))

    def _gift(self, ends: np.ndarray, taken: np.ndarray) -> np.ndarray:
        """What the next player could take from each end: one marker, or two (discounted)."""
        one, two = self._within(ends, taken, self.theirs)
        gift: np.ndarray = np.maximum(one, TWO_MARKERS * two)
        return gift

    def _next(self, ends: np.ndarray, taken: np.ndarray) -> np.ndarray:
        """What the planner's next action could take from each end (and place for later)."""
        one, two = self._within(ends, taken, self.mine)
        return NEXT_ACTION * one + POSITION * two

    # -- markers -------------------------------------------------------------------------------
    def markers(self) -> list[_Candidates]:
        """The legal sampled placements of every expedition, valued."""
        found = []
        mine = [i for i, c in enumerate(self.seen.camps)
                if c.owner == self.player and not self.seen.covered[i]]
        fresh = set(self.seen.fresh)
        mine = [i for i in mine if i not in fresh]
        last = self.belief.markers_left <= 1
        for k, e in enumerate(self.expeditions):
            if lg.expedition_violations(self.seen.board(), e):
                continue
            cands = self._sample(e, mine)
            if cands is None:
                continue
            # by (the sectors touched, whether it steals)
            gains: dict[tuple[tuple[np.intp, ...], bool], float] = {}
            values = np.zeros(len(cands.x))
            for i in range(len(values)):
                key = (tuple(np.flatnonzero(cands.touched[i])), bool(cands.steals[i]))
                if key not in gains:
                    gains[key] = self.belief.gain([self.sectors.ids[j] for j in key[0]],
                                                  key[1], last)
                values[i] = gains[key]
            if self.more:
                values += self._next(cands.ends, cands.touched)
            else:
                gifts = self.old_gifts.copy()
                others = np.delete(gifts, k).max(initial=0.0)
                after = np.maximum(self._gift(cands.ends, cands.touched), others)
                values -= GIFT * (after - max(others, gifts[k]))
            step = cands.placer.step
            margin = reach.robustness(step, None, cands.x, cands.y, cands.h, cands.a, cands.c)
            cands.values = values + ROBUST * np.clip(margin, 0.0, 4.0)
            found.append(cands)
        return found

    def _sample(self, expedition: str, mine: list[int]) -> _Candidates | None:
        placer = reach.StatePlacer(self.seen, expedition, self.player)
        step = placer.step
        theta, a, c = reach.uniform_placements(step, self.rng, self.bot.samples)
        x, y, h = step.poses(theta, a, c)
        ok = np.flatnonzero(placer.legal_mask(x, y, h))
        if not len(ok):
            return None
        x, y, h, a, c = x[ok], y[ok], h[ok], a[ok], c[ok]
        touched_all = lg.touched_sectors_batch(self.seen.table, x, y, h)
        index = {s: j for j, s in enumerate(lg.table_geometry(self.seen.table).sector_ids)}
        touched = touched_all[:, [index[s] for s in self.sectors.ids]] if self.sectors.ids \
            else np.zeros((len(x), 0), bool)
        steals = np.zeros(len(x), bool)
        if mine:
            camps = [self.seen.camps[i] for i in mine]
            local = to_frames(np.array([k.x for k in camps]), np.array([k.y for k in camps]),
                              x, y, h)
            gap = distance_to_rectangle(local, self.sizes.marker_length / 2,
                                        self.sizes.marker_width / 2)
            steals = (gap < self.sizes.base_camp_radius - lg.EPS).any(axis=1)
        ex, ey = lg.explorer_centres(x, y, h, self.sizes)
        return _Candidates(expedition, placer, x, y, h, a, c, touched, steals, ex + 1j * ey)

    # -- base camps ----------------------------------------------------------------------------
    def camps(self, markers: list[_Candidates]) -> tuple[np.ndarray, np.ndarray]:
        """Legal base camp candidates around the ends and their values."""
        if self.seen.camps_left(self.player) <= 0:
            return np.zeros(0, complex), np.zeros(0)
        n = CAMP_SAMPLES
        rho = self.rng.uniform(self.sizes.base_camp_radius + 6.0, 0.9 * self.r1,
                               (len(self.old_ends), n))
        phi = self.rng.uniform(0.0, 2 * np.pi, (len(self.old_ends), n))
        z = (self.old_ends[:, None] + rho * np.exp(1j * phi)).ravel()
        reach_area = self.sizes.play_area_radius - self.sizes.base_camp_radius
        u = self.rng.random((2, n))
        z = np.concatenate([z, reach_area * np.sqrt(u[0]) * np.exp(2j * np.pi * u[1])])
        z = z[lg.check_camp_points(self.seen.board(), z).ok]
        if not len(z):
            return z, np.zeros(0)
        values = np.full(len(z), LOOK if self.belief.towers else 0.0)
        values += self._theft(z)
        if self.seen.phase == "play":
            values += self._blocks(z, markers)
        return z, values

    def _theft(self, z: np.ndarray) -> np.ndarray:
        """A theft to come: the camp lies one marker from an end with no uncovered camp of
        the planner's yet."""
        steal, _ = self.belief.best_steal(self.belief.hands, self.belief.track)
        worth = THEFT_CHANCE * max(steal, STEAL_FLOOR)
        own = np.array([complex(c.x, c.y) for i, c in enumerate(self.seen.camps)
                        if c.owner == self.player and not self.seen.covered[i]])
        near = 0.8 * self.r1
        open_ends = [e for e in self.old_ends
                     if not len(own) or np.abs(own - e).min() > near]
        if not open_ends:
            return np.zeros(len(z))
        d = np.abs(z[:, None] - np.array(open_ends)[None, :]).min(axis=1)
        return np.where(d <= near, worth, 0.0)

    def _blocks(self, z: np.ndarray, markers: list[_Candidates]) -> np.ndarray:
        """What each camp takes from the next player's one-marker gifts: the best pueblo an end
        offers that no sampled placement clear of the camp still touches."""
        out = np.zeros(len(z))
        r = self.sizes.base_camp_radius
        for cands in markers:
            worth = np.where(cands.touched, self.theirs[None, :], 0.0)
            best = worth.max(axis=1)
            keep = np.flatnonzero(best > 0)
            if not len(keep):
                continue
            local = to_frames(z.real, z.imag, cands.x[keep], cands.y[keep], cands.h[keep])
            clear = distance_to_rectangle(local, self.sizes.marker_length / 2,
                                          self.sizes.marker_width / 2) > r  # (n, camps)
            before = worth[keep].max(axis=0).max()
            after = np.where(clear[:, :, None], worth[keep][:, None, :], 0.0).max(axis=(0, 2))
            out += BLOCK * (before - after)
        return out

    # -- the choice ----------------------------------------------------------------------------
    def best(self, state: State) -> Action:
        """The best candidate that passes `state.check`."""
        markers = self.markers()
        z, camp_values = self.camps(markers)
        ranked: list[tuple[float, int, Action | tuple[_Candidates, int]]] = []
        for cands in markers:
            for i in np.argsort(-cands.values)[:8]:
                ranked.append((float(cands.values[i]), len(ranked), (cands, int(i))))
        for i in np.argsort(-camp_values)[:8]:
            ranked.append((float(camp_values[i]), len(ranked),
                           BuildCamp(float(z[i].real), float(z[i].imag))))
        ranked.sort(key=lambda t: (-t[0], t[1]))
        for _, _, choice in ranked:
            action = choice if isinstance(choice, Action) else self._marker(*choice)
            if state.check(action, self.player).ok:
                return action
        found = state.legal_actions(self.player).sample(self.rng, 1)
        return found[0]

    @staticmethod
    def _marker(cands: _Candidates, i: int) -> PlaceMarker:
        pose = cands.placer.settle(Pose(float(cands.x[i]), float(cands.y[i]), float(cands.h[i])))
        return PlaceMarker.at(cands.expedition, pose)


def make_planner(arg: str | None) -> PlannerBot:
    """The bot of spec ``planner`` or ``planner:N`` (N placements drawn per expedition)."""
    if not arg:
        return PlannerBot()
    samples = positive_int(arg, "planner", "placements per expedition", most=MAX_SAMPLES)
    return PlannerBot(samples=samples, spec=f"planner:{arg}")


BOTS = {"planner": (make_planner, "planner[:N] (Anasazi: plans with reach, N covering "
                                  f"placements per expedition, default {SAMPLES}, at most {MAX_SAMPLES:,})")}
