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

import functools
import itertools
import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from games.anasazi import legality as lg
from games.anasazi import reach, windows
from games.anasazi.actions import BuildCamp, LookTower, Pass, PlaceMarker, TakeTreasure
from games.anasazi.components import COLOURS, OBJECTIVES, TOWERS_PER_COLOUR, TRACK_SPACES, Table
from geomsim.bots import MAX_SAMPLES, positive_int
from geomsim.geometry import Pose, distance_to_rectangle, to_frames
from games.anasazi.rules import AnasaziState
from geomsim.rules import Action, State

SAMPLES = 96  # random covering placements per expedition (besides the windows)
CAMP_SAMPLES = 48  # candidate base camps drawn around each end
END_PRIZE = 15.0  # utility of ending the game ahead (its negative: behind)
NEXT_ACTION = 0.8  # weight of the pueblos one marker from the new end, with an action left
POSITION = 0.15  # weight of those two markers away (with an action left)
GIFT = 0.8  # weight of what the turn's last marker offers the next player
TWO_MARKERS = 0.6  # share of a two-marker gift (the next player spends both actions)
THEFT_CHANCE = 0.5  # chance that a camp one marker from an end is covered first by the planner
STEAL_FLOOR = 3.0  # worth of a theft to come when nobody holds a treasure yet
BLOCK = 0.7  # weight of a gift a base camp takes away from the next player
BLOCK_CANDIDATES = 4  # the next player's best placements per expedition a camp may block
BLOCK_ALONG = (-0.25, 0.0, 0.25)  # where on such a placement's axis (marker lengths from its centre)
LOOK = 0.3  # worth of looking at an unseen tower
ROBUST = 0.02  # weight per mm of margin (capped at 4 mm): a tie-break
OUTLINE_STEP = 3  # every how many of a target's sample points stand for its sector


def margin(scores: Sequence[float], player: int) -> float:
    """`player`'s score against the others': less half the best other's and half their mean
    (how the planner rates a position, and the search the end of a game)."""
    others = [*scores[:player], *scores[player + 1:]]
    return scores[player] - 0.5 * max(others) - 0.5 * sum(others) / len(others)


def deck_odds(held: str | None) -> np.ndarray:
    """Each colour's chance (`COLOURS` order) of an objective card drawn from the deck less
    the card `held` (None: the whole deck)."""
    pool = list(OBJECTIVES)
    if held is not None:
        pool.remove(held)
    return np.array([pool.count(c) / len(pool) for c in COLOURS])


# A tower whose colour is known: its colour's odds are 1 (rows shared, never written).
_SURE = np.eye(len(COLOURS))
_SURE.flags.writeable = False
_EMPTY = ("empty",)  # what a sector without a piece holds, to the valuation

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
    # The rules a designer may change (`State.options`): what ends the game, and scores.
    towers_to_end: int = TOWERS_PER_COLOUR
    bonus: bool = True  # bonus treasures for the majorities (anasazi/5.1/bonus)

    @classmethod
    def of(cls, state: AnasaziState, player: int) -> Belief:
        """The belief of `player` from `state.observe(player)`."""
        seen = state.observe(player)
        n = seen["players"]
        hands = np.array([[h[c] for c in COLOURS] for h in seen["hands"]], float)
        track = np.array([seen["track"][c] for c in COLOURS], float)
        mine = seen["objectives"][player]  # None until the cards are dealt (after setup camps)
        odds = deck_odds(mine)
        times = float(state.options["objective_multiplier"])
        factor = np.tile(1.0 + (times - 1.0) * odds, (n, 1))
        if mine is not None:
            factor[player] = [times if c == mine else 1.0 for c in COLOURS]
        treasures, towers, known = {}, {}, np.zeros(len(COLOURS))
        for sector, text in seen["contents"].items():
            colour, _, kind = text.rpartition(" ")
            if kind == "treasure":
                treasures[sector] = COLOURS.index(colour)
            elif colour:
                towers[sector] = _SURE[COLOURS.index(colour)]
                known[COLOURS.index(colour)] += 1
        unknown = np.maximum(TOWERS_PER_COLOUR - track - known, 0.0)
        hidden = unknown / unknown.sum() if unknown.sum() else np.full(len(COLOURS), 0.25)
        for sector, text in seen["contents"].items():
            if text == "tower":
                towers[sector] = hidden
        left = state.sizes.markers - sum(len(p) for p in seen["expeditions"].values())
        return cls(player, hands, track, factor, towers, treasures, left,
                   int(state.options["towers_to_end"]), bool(state.options["bonus_treasures"]))

    @functools.cached_property
    def _rows(self) -> list[list[float]]:
        """`factor` as Python lists (read when first valued: a test may change `factor`)."""
        rows: list[list[float]] = self.factor.tolist()
        return rows

    @functools.cached_property
    def _gains(self) -> dict[tuple[Any, ...], float]:
        return {}

    @functools.cached_property
    def _worths(self) -> dict[tuple[float, ...], list[list[float]]]:
        return {}

    def _worth(self, track: Sequence[float]) -> list[list[float]]:
        """What a treasure of each colour is worth to each player on `track` (made once per
        track: a decision values a few tracks many times)."""
        key = tuple(track)
        found = self._worths.get(key)
        if found is None:
            values = [TRACK_SPACES - t for t in track]
            found = self._worths[key] = [[f * v for f, v in zip(row, values)]
                                         for row in self._rows]
        return found

    def _scores(self, hands: list[list[float]], track: list[float]) -> list[float]:
        """`scores` in plain Python (4 x 4 numbers: numpy's cost per call would dominate)."""
        worth = self._worth(track)
        total = [sum(map(operator.mul, hand, row)) for hand, row in zip(hands, worth)]
        if self.bonus:
            for c, column in enumerate(zip(*hands)):
                best = max(column)
                if best > 0 and column.count(best) == 1:
                    q = column.index(best)
                    total[q] += worth[q][c]
        return total

    def _utility(self, hands: list[list[float]], track: list[float], ended: bool = False) -> float:
        s = self._scores(hands, track)
        me = s[self.player]
        others = s[:self.player] + s[self.player + 1:]
        if not others:
            return me
        value = margin(s, self.player)
        if ended:
            value += END_PRIZE if me > max(others) else -END_PRIZE
        return value

    def scores(self, hands: np.ndarray, track: np.ndarray) -> np.ndarray:
        """Each player's expected score: treasures at their value, the bonus majorities as the
        hands stand now."""
        return np.array(self._scores(hands.tolist(), track.tolist()))

    def utility(self, hands: np.ndarray, track: np.ndarray, ended: bool = False) -> float:
        """How good hands and track are for the planner: its score against the opponents'
        (the best one's and their mean, half each), a prize or a penalty when the game ends."""
        return self._utility(hands.tolist(), track.tolist(), ended)

    def best_steal(self, hands: np.ndarray, track: np.ndarray) -> tuple[float, TakeTreasure | None]:
        """The utility a camp theft adds, and the take that adds it."""
        return self._best_steal(hands.tolist(), track.tolist())

    def _best_steal(self, hands: list[list[float]], track: list[float]
                    ) -> tuple[float, TakeTreasure | None]:
        base = self._utility(hands, track)
        best: tuple[float, TakeTreasure | None] = (0.0, None)
        for q, hand in enumerate(hands):
            if q == self.player:
                continue
            for c, held in enumerate(hand):
                if held <= 0:
                    continue
                gain = self._steal_gain(hands, track, q, c) - base
                if best[1] is None or gain > best[0]:
                    best = (gain, TakeTreasure(COLOURS[c], q))
        return best

    def _steal_gain(self, hands: list[list[float]], track: list[float], source: int,
                    c: int) -> float:
        """The utility after the planner takes a treasure of colour index `c` from `source`."""
        after = list(hands)  # only the two hands that change are copied
        after[source] = list(hands[source])
        after[source][c] -= 1
        after[self.player] = list(hands[self.player])
        after[self.player][c] += 1
        return self._utility(after, track)

    def steal_gain(self, take: TakeTreasure) -> float:
        """The utility the theft `take` adds (of a treasure its source holds)."""
        hands, track = self.hands.tolist(), self.track.tolist()
        return self._steal_gain(hands, track, take.source, COLOURS.index(take.colour)) \
            - self._utility(hands, track)

    @functools.cached_property
    def _base(self) -> float:
        """The utility of hands and track as they are (what every gain is measured from)."""
        return self._utility(self.hands.tolist(), self.track.tolist())

    @functools.cached_property
    def _contents(self) -> dict[str, tuple[Any, ...]]:
        """What each sector with a piece holds as the valuation sees it (sectors alike are
        valued once; a treasure's sector is a treasure's even were a tower listed too)."""
        found: dict[str, tuple[Any, ...]] = {s: ("tower", *odds.tolist())
                                             for s, odds in self.towers.items()}
        found.update((s, ("treasure", c)) for s, c in self.treasures.items())
        return found

    def gain(self, sectors: Sequence[str], steal: bool, last_marker: bool) -> float:
        """The expected change of utility when the planner's marker touches `sectors` (and
        covers one of its base camps first, with `steal`)."""
        contents = self._contents
        if len(sectors) == 1:
            kinds: tuple[Any, ...] = (contents.get(sectors[0], _EMPTY),)
        else:
            kinds = tuple(sorted(contents.get(s, _EMPTY) for s in sectors))
        key = (kinds, steal, last_marker)
        found = self._gains.get(key)
        if found is None:
            found = self._gains[key] = self._gain(sectors, steal, last_marker)
        return found

    def _gain(self, sectors: Sequence[str], steal: bool, last_marker: bool) -> float:
        hands = self.hands.tolist()
        for s in sectors:
            if s in self.treasures:
                hands[self.player][self.treasures[s]] += 1
        towers = [self.towers[s].tolist() for s in sectors if s in self.towers][:2]
        now = self.track.tolist()
        base = self._base
        total = 0.0
        for combo in itertools.product(range(len(COLOURS)), repeat=len(towers)):
            p = math.prod(t[c] for t, c in zip(towers, combo))
            if p == 0.0:
                continue
            track = list(now)
            for c in combo:
                track[c] += 1
            ended = last_marker or max(track) >= self.towers_to_end
            value = self._utility(hands, track, ended)
            if steal:
                value += self._best_steal(hands, track)[0]
            total += p * value
        return total - base

    def offer(self, sector: str, player: int) -> float:
        """What taking `sector` alone is worth to `player`'s own score (0 or more)."""
        return self.offers(player).get(sector, 0.0)

    def offers(self, player: int) -> dict[str, float]:
        """`offer` of every sector with a treasure or a tower, for `player` (made once)."""
        found = self._offers.get(player)
        if found is None:
            factor, hand = self._rows[player], self.hands[player].tolist()
            values = [(TRACK_SPACES - t) * f for t, f in zip(self.track.tolist(), factor)]
            found = {s: values[c] for s, c in self.treasures.items()}
            for s, odds in self.towers.items():
                loss = sum(p * h * f for p, h, f in zip(odds.tolist(), hand, factor))
                found[s] = max(0.0, -loss)
            self._offers[player] = found
        return found

    @functools.cached_property
    def _offers(self) -> dict[int, dict[str, float]]:
        return {}


# -- the geometry of one decision ------------------------------------------------------------------
def _outlines(table: Any) -> dict[str, np.ndarray]:
    """Sample points (complex) of every sector of `table`, as reach's targets hold them."""
    def make() -> dict[str, np.ndarray]:
        found = {}
        for s in table.sectors:
            pts = reach.sector_target(table, s.id).points[::OUTLINE_STEP]
            found[s.id] = pts[:, 0] + 1j * pts[:, 1]
        return found

    return _OUTLINES.of_table(table, make)


_OUTLINES: lg.Recent[int, tuple[Table, dict[str, np.ndarray]]] = lg.Recent(16)


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
    touched: np.ndarray  # (n, sectors) over `_Plan.ids`
    steals: np.ndarray  # (n,) covers one of the planner's base camps for the first time
    ends: np.ndarray  # (n,) complex: the new end explorers
    values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # (n, sectors): what each sector touched is worth to the next player (`_Plan.theirs`), and
    # its best per placement: what a base camp across the placement would block.
    theirs: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    their_best: np.ndarray = field(default_factory=lambda: np.zeros(0))


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
                return best_take(belief, space)
            return self._look(seen, player, space)
        return _Plan(self, seen, belief, player, rng).best(state)

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
        self.table = seen.table
        self.targets = windows.Targets.of(self.table)
        geo = lg.table_geometry(self.table)
        self.ids = [s for s in geo.sector_ids if s in belief.treasures or s in belief.towers]
        column, single = geo.sector_index, self.targets.single
        self.columns = np.array([column[s] for s in self.ids], dtype=np.intp)
        self.rows = np.array([single[s] for s in self.ids], dtype=np.intp)
        self.r1 = reach.chain_reach(self.sizes, self.sizes.explorer_radius, 1)
        self.r2 = reach.chain_reach(self.sizes, self.sizes.explorer_radius, 2)
        self.more = seen.actions_left >= 2  # the planner moves again after this action
        self.next_player = (player + 1) % seen.num_players
        self.expeditions = [e.id for e in self.table.expedition_camps]
        self.old_ends = np.array([complex(*lg.expedition_end(seen.board(), e)[:2])
                                  for e in self.expeditions])

    @functools.cached_property
    def turn(self) -> reach._Turn:
        """The turn every expedition's placer shares (made once: it copies the track)."""
        return reach._Turn.of(self.seen)

    # What the sectors are worth, worked out when first asked (a leaf of the search asks only
    # what the next player is offered).
    @functools.cached_property
    def mine(self) -> np.ndarray:
        """What touching each sector alone gains the planner (0 or more)."""
        return np.array([max(0.0, self.belief.gain([s], False, False)) for s in self.ids])

    @functools.cached_property
    def theirs(self) -> np.ndarray:
        """What taking each sector alone is worth to the next player."""
        offers = self.belief.offers(self.next_player)
        return np.array([offers[s] for s in self.ids])

    @functools.cached_property
    def wanted(self) -> frozenset[str]:
        """The sectors windows are made for: wanted by the planner or the player after it."""
        return frozenset(s for s, m, t in zip(self.ids, self.mine, self.theirs) if m > 0 or t > 0)

    @functools.cached_property
    def old_gifts(self) -> np.ndarray:
        """What the next player could take from each expedition's end as it lies now."""
        return self._gift(self.old_ends, np.zeros((len(self.old_ends), len(self.ids)), bool))

    # -- potentials of ends --------------------------------------------------------------------
    def _within(self, ends: np.ndarray, taken: np.ndarray, worth: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
        """The best `worth` of a sector not `taken` within one marker of each end, and within
        two (`reach.chain_reach` bounds, exact distances to the sectors)."""
        zero = np.zeros(len(ends))
        cols = np.flatnonzero(worth > 0)
        if not len(cols) or not len(ends):
            return zero, zero
        rows = self.rows[cols]
        open_worth = np.where(taken[:, cols], 0.0, worth[cols][None, :])
        one, two = self.targets.within_each(ends, rows, (self.r1, self.r2))
        return (np.where(one, open_worth, 0.0).max(axis=1),
                np.where(two, open_worth, 0.0).max(axis=1))

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
        """The legal candidate placements of every expedition (its windows and random ones),
        valued: made per expedition, judged and valued all at once."""
        parts = [p for k, e in enumerate(self.expeditions) if (p := self._poses(k, e)) is not None]
        if not parts:
            return []
        x, y, h, a, c, margin = (np.concatenate([p[i] for p in parts]) for i in range(3, 9))
        owner = np.concatenate([np.full(len(p[3]), p[0]) for p in parts])
        touched, steals, ends, values = self.value_placements(x, y, h, owner)
        values += ROBUST * np.clip(margin, 0.0, 4.0)
        theirs = np.where(touched, self.theirs[None, :], 0.0)
        their_best = theirs.max(axis=1, initial=0.0)
        found, start = [], 0
        for k, e, placer, *_ in parts:
            n = int((owner == k).sum())
            cut = slice(start, start + n)
            found.append(_Candidates(e, placer, x[cut], y[cut], h[cut], a[cut], c[cut],
                                     touched[cut], steals[cut], ends[cut], values[cut],
                                     theirs[cut], their_best[cut]))
            start += n
        return found

    def value_placements(self, x: np.ndarray, y: np.ndarray, h: np.ndarray, owner: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What markers at poses (x, y, h) of the expeditions `owner` (indices into
        `expeditions`) touch, whether they steal, their new ends, and the plan's values of them
        (before the robustness tie-break)."""
        touched = lg.touched_sectors_batch(self.table, x, y, h)[:, self.columns]
        steals = self._steals(x, y, h)
        ex, ey = lg.explorer_centres(x, y, h, self.sizes)
        ends = ex + 1j * ey
        values = self._gains(touched, steals, self.belief.markers_left <= 1)
        if self.more:
            values += self._next(ends, touched)
        else:
            # The gift of the ends left as they are, but the one this marker moves.
            gifts = self.old_gifts
            others = np.array([np.delete(gifts, k).max(initial=0.0) for k in
                               range(len(gifts))])[owner]
            after = np.maximum(self._gift(ends, touched), others)
            values -= GIFT * (after - np.maximum(others, gifts[owner]))
        return touched, steals, ends, values

    def _poses(self, k: int, expedition: str) -> tuple[Any, ...] | None:
        """The windows of the wanted sectors from the expedition's end and `bot.samples`
        random covering placements, those the rules' batched mask finds legal: (k, expedition,
        placer, x, y, heading, a, c, robustness), or None."""
        if lg.expedition_violations(self.seen.board(), expedition):
            return None
        placer = reach.StatePlacer(self.seen, expedition, self.player, turn=self.turn)
        step = placer.step
        theta, a, c = reach.uniform_placements(step, self.rng, self.bot.samples)
        win, _ = windows.window_placements(step, self.table, self.wanted)
        theta = np.concatenate([theta, win.theta])
        a, c = np.concatenate([a, win.a]), np.concatenate([c, win.c])
        x, y, h = step.poses(theta, a, c)
        ok = np.flatnonzero(placer.legal_mask(x, y, h))
        if not len(ok):
            return None
        x, y, h, a, c = x[ok], y[ok], h[ok], a[ok], c[ok]
        return k, expedition, placer, x, y, h, a, c, reach.robustness(step, None, x, y, h, a, c)

    def _steals(self, x: np.ndarray, y: np.ndarray, h: np.ndarray) -> np.ndarray:
        """Which placements cover one of the planner's base camps for the first time (the
        camps of this turn may not be covered yet)."""
        fresh = set(self.seen.fresh)
        camps = [c for i, c in enumerate(self.seen.camps) if c.owner == self.player
                 and not self.seen.covered[i] and i not in fresh]
        if not camps:
            return np.zeros(len(x), bool)
        local = to_frames(np.array([k.x for k in camps]), np.array([k.y for k in camps]), x, y, h)
        gap = distance_to_rectangle(local, self.sizes.marker_length / 2,
                                    self.sizes.marker_width / 2)
        steals: np.ndarray = (gap < self.sizes.base_camp_radius - lg.EPS).any(axis=1)
        return steals

    def _gains(self, touched: np.ndarray, steals: np.ndarray, last: bool) -> np.ndarray:
        """The valuation's gain of each placement, worked out once per distinct outcome (the
        sectors touched, whether it steals)."""
        hit = np.flatnonzero(touched.any(axis=0))
        bits = np.column_stack([touched[:, hit], steals]).astype(np.int64)
        if bits.shape[1] > 62:  # too many to pack in one integer: one outcome per placement
            codes = np.arange(len(bits))
        else:
            codes = bits @ (np.int64(1) << np.arange(bits.shape[1], dtype=np.int64))
        _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        gains = np.array([self.belief.gain([self.ids[hit[j]] for j in
                                            np.flatnonzero(touched[i, hit])],
                                           bool(steals[i]), last) for i in first])
        values: np.ndarray = gains[inverse.ravel()]
        return values

    # -- base camps ----------------------------------------------------------------------------
    def camps(self, markers: list[_Candidates]) -> tuple[np.ndarray, np.ndarray]:
        """Legal base camp candidates around the ends, and across the next player's best
        windows (blocks), and their values."""
        if self.seen.camps_left(self.player) <= 0:
            return np.zeros(0, complex), np.zeros(0)
        n = CAMP_SAMPLES
        rho = self.rng.uniform(self.sizes.base_camp_radius + 6.0, 0.9 * self.r1,
                               (len(self.old_ends), n))
        phi = self.rng.uniform(0.0, 2 * np.pi, (len(self.old_ends), n))
        z = (self.old_ends[:, None] + rho * np.exp(1j * phi)).ravel()
        reach_area = self.sizes.play_area_radius - self.sizes.base_camp_radius
        u = self.rng.random((2, n))
        blocks = self._block_points(markers) if self.seen.phase == "play" else np.zeros(0, complex)
        z = np.concatenate([z, reach_area * np.sqrt(u[0]) * np.exp(2j * np.pi * u[1]), blocks])
        z = z[lg.check_camp_points(self.seen.board(), z).ok]
        return z, self.value_camps(z, markers)

    def value_camps(self, z: np.ndarray, markers: list[_Candidates]) -> np.ndarray:
        """The plan's values of base camps at points `z` (complex), `markers` the candidate
        placements whose gifts to the next player a camp may block."""
        values = np.full(len(z), LOOK if self.belief.towers else 0.0)
        if not len(z):
            return values
        values += self._theft(z)
        if self.seen.phase == "play":
            values += self._blocks(z, markers)
        return values

    def _block_points(self, markers: list[_Candidates]) -> np.ndarray:
        """Base camps on the placements by which the next player would take most: along each
        one's axis, between the end it covers and the far end."""
        found = []
        length = self.sizes.marker_length
        for cands in markers:
            worth = cands.their_best
            if not worth.any():  # nothing to block on this expedition
                continue
            best = np.argsort(-worth, kind="stable")[:BLOCK_CANDIDATES]
            best = best[worth[best] > 0]
            centre = cands.x[best] + 1j * cands.y[best]
            axis = np.exp(1j * np.radians(cands.h[best]))
            found += [centre + f * length * axis for f in BLOCK_ALONG]
        return np.concatenate(found) if found else np.zeros(0, complex)

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
        offers that no candidate placement clear of the camp still touches."""
        out = np.zeros(len(z))
        r = self.sizes.base_camp_radius
        half_diagonal = math.hypot(self.sizes.marker_length, self.sizes.marker_width) / 2
        for cands in markers:
            keep = np.flatnonzero(cands.their_best > 0)
            if not len(keep):
                continue
            worth = cands.theirs[keep]
            cols = np.flatnonzero(worth.any(axis=0))
            worth = worth[:, cols]
            # Camps farther than a marker's half diagonal and a camp's radius from every
            # placement's centre are clear of them all: they block nothing (`before - after`
            # is 0), so only the camps near the placements are measured.
            centres = cands.x[keep] + 1j * cands.y[keep]
            middle = complex(centres.mean())
            bound = float(np.abs(centres - middle).max()) + half_diagonal + r + 1e-6
            near = np.flatnonzero(np.abs(z - middle) <= bound)
            if not len(near):
                continue
            local = to_frames(z.real[near], z.imag[near], cands.x[keep], cands.y[keep],
                              cands.h[keep])
            clear = distance_to_rectangle(local, self.sizes.marker_length / 2,
                                          self.sizes.marker_width / 2) > r  # (n, near camps)
            before = worth.max()
            # Per camp, the best sector a placement clear of it still touches.
            after = np.zeros(len(near))
            for j in range(worth.shape[1]):
                touching = worth[:, j] > 0
                reached = clear[touching].any(axis=0)
                after = np.maximum(after, np.where(reached, worth[touching, j].max(), 0.0))
            out[near] += BLOCK * (before - after)
        return out

    # -- the choice ----------------------------------------------------------------------------
    def ranked(self, per_group: int = 8) -> list[tuple[float, Action | tuple[_Candidates, int]]]:
        """The best `per_group` candidates of each expedition and of the base camps, best
        first (not exactly checked yet)."""
        markers = self.markers()
        z, camp_values = self.camps(markers)
        ranked: list[tuple[float, int, Action | tuple[_Candidates, int]]] = []
        for cands in markers:
            for i in np.argsort(-cands.values)[:per_group]:
                ranked.append((float(cands.values[i]), len(ranked), (cands, int(i))))
        for i in np.argsort(-camp_values)[:per_group]:
            ranked.append((float(camp_values[i]), len(ranked),
                           BuildCamp(float(z[i].real), float(z[i].imag))))
        ranked.sort(key=lambda t: (-t[0], t[1]))
        return [(v, choice) for v, _, choice in ranked]

    def choices(self, state: State, k: int, per_group: int = 8) -> list[tuple[Action, float]]:
        """Up to `k` of the `ranked` candidates that pass `state.check`, with their values."""
        found: list[tuple[Action, float]] = []
        for value, choice in self.ranked(per_group):
            action = choice if isinstance(choice, Action) else self._marker(*choice)
            if state.check(action, self.player).ok:
                found.append((action, value))
                if len(found) >= k:
                    break
        return found

    def best(self, state: State) -> Action:
        """The best candidate that passes `state.check`."""
        found = self.choices(state, 1)
        if found:
            return found[0][0]
        return state.legal_actions(self.player).sample(self.rng, 1)[0]

    @staticmethod
    def _marker(cands: _Candidates, i: int) -> PlaceMarker:
        pose = cands.placer.settle(Pose(float(cands.x[i]), float(cands.y[i]), float(cands.h[i])))
        return PlaceMarker.at(cands.expedition, pose)


def best_take(belief: Belief, space: list[Action]) -> Action:
    """A camp theft's take (rule 4.2) among the legal `space`: the treasure whose move gains
    `belief`'s utility most (the first action of `space` when none is among them)."""
    gain, take = belief.best_steal(belief.hands, belief.track)
    return take if take is not None and take in space else space[0]


def main_choices(bot: PlannerBot, state: AnasaziState, player: int, rng: np.random.Generator,
                 k: int, per_group: int = 3, belief: Belief | None = None
                 ) -> list[tuple[Action, float]]:
    """The planner's `k` best legal main actions (markers, base camps) of `player`, who is to
    make one now, with the plan's values, best first (for a search over them); valued by
    `belief` when given (a belief of `player`'s own), else by `Belief.of(state, player)`."""
    seen = state.determinize(player, rng)
    belief = Belief.of(state, player) if belief is None else belief
    return _Plan(bot, seen, belief, player, rng).choices(state, k, per_group)


def follow_up(bot: PlannerBot, state: AnasaziState, player: int, rng: np.random.Generator
              ) -> Action:
    """The planner's choice of a decision that is not a main action (a look, a take)."""
    return bot.choose(state, player, rng)


def turn_value(bot: PlannerBot, state: AnasaziState, player: int, rng: np.random.Generator,
               belief: Belief | None = None) -> float:
    """How good `state` is for `player` when its turn is over, as the planner values it: its
    utility (the game's end's prize or penalty included), less what the next player could
    take from the ends left (`GIFT` of the best); by `belief` when given (of `state`)."""
    belief = Belief.of(state, player) if belief is None else belief
    ended = state.is_over()
    value = belief.utility(belief.hands, belief.track, ended)
    if ended:
        return value
    plan = _Plan(bot, state, belief, player, rng)
    return value - GIFT * float(plan.old_gifts.max(initial=0.0))


def next_take(bot: PlannerBot, state: AnasaziState, belief: Belief, player: int,
              rng: np.random.Generator) -> float:
    """The most `player`'s next marker could gain from the ends as they lie in `state`: the
    best sector within one marker of an end, valued by `belief` (0 when none is)."""
    plan = _Plan(bot, state, belief, player, rng)
    one, _ = plan._within(plan.old_ends, np.zeros((len(plan.old_ends), len(plan.ids)), bool),
                          plan.mine)
    return float(one.max(initial=0.0))


def make_planner(arg: str | None) -> PlannerBot:
    """The bot of spec ``planner`` or ``planner:N`` (N placements drawn per expedition)."""
    if not arg:
        return PlannerBot()
    samples = positive_int(arg, "planner", "placements per expedition", most=MAX_SAMPLES)
    return PlannerBot(samples=samples, spec=f"planner:{arg}")


BOTS = {"planner": (make_planner, "planner[:N] (Anasazi: plans with reach, N covering "
                                  f"placements per expedition, default {SAMPLES}, at most {MAX_SAMPLES:,})")}
