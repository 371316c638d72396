"""What an Anasazi player may infer of the others' objective cards from what they chose.

Rule 5.1 doubles the treasures of a player's objective colour, so a player who counts points
plays to its card: it takes the pueblo of its colour over a richer one of another, steals its
colour in a camp theft. `Evidence` watches the game from one seat and, for every main action
(a marker, a base camp) and every theft's take of another player after the cards are dealt
(rule 3.0), asks how good that choice was under each card the player may hold, as the planner
values choices (`planner._Plan`, `planner.Belief`): a choice as good as the best one under a
card is likely under it, one far below the best unlikely. The likelihood of a choice worth `d`
utility points less than the best is ``FLOOR + (1 - FLOOR) * exp(SHARPNESS * d)``: sharp where
the player plays as the planner would, never zero (a player unlike the planner, a pose drawn
differently, a tower's colour it saw and the watcher did not, only blur the reading).

`Objectives` turns the evidence into probabilities of every assignment of cards to the
others, with the cards left (the deck less the watcher's own card) as the prior; treasures
held before the watcher began to watch (a game read half-played) count as the rule's lean, a
card's colour as many times likelier per treasure as the card multiplies.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from games.anasazi import planner as pl
from games.anasazi.actions import BuildCamp, ExtendMarker, PlaceMarker, TakeTreasure
from games.anasazi.components import COLOURS, OBJECTIVES
from games.anasazi.rules import AnasaziState
from geomsim.rules import Action, IllegalAction

SHARPNESS = 0.5  # per utility point a choice falls short of the best under a card
FLOOR = 0.05  # the least likelihood of any choice: what a player unlike the planner may do
LIKE = 0.5  # prior weight of "plays as the planner would" against "its choices tell nothing"
WATCH_SAMPLES = 32  # random placements per expedition when valuing another's alternatives
READ_AT_MOST = 24  # the others' latest actions read in one update (a round of 4 players: 6-8)


@dataclass(frozen=True)
class Objectives:
    """What `player` may infer of the others' objective cards: every assignment of colours to
    them, with its probability given the cards left (the deck less `player`'s own card) and
    the evidence of their choices (`Evidence`); without evidence, the treasures each holds: each
    held treasure of a colour makes that colour `lean` times likelier as its holder's card."""

    player: int
    others: tuple[int, ...]
    assignments: tuple[tuple[str, ...], ...]  # a colour per player of `others`
    odds: np.ndarray  # (assignments,) probabilities

    @classmethod
    def of(cls, state: AnasaziState, player: int, lean: float | None = None,
           evidence: Evidence | None = None) -> Objectives:
        """From `state.observe(player)` only (what the seat may know), and `evidence` (of this
        seat, up to date with `state`) when given; `lean` by default the objective card's
        multiplier (with 1, the cards' odds: the card changes nothing)."""
        seen = state.observe(player)
        if lean is None:
            lean = float(state.options["objective_multiplier"])
        others = tuple(q for q in range(seen["players"]) if q != player)
        pool = list(OBJECTIVES)
        if seen["objectives"][player] is not None:
            pool.remove(seen["objectives"][player])
        hands = seen["hands"] if evidence is None else evidence.hands_before
        logs = {} if evidence is None else {q: evidence.log_likelihoods(q) for q in others}
        assignments, weights = [], []
        for combo in itertools.product(COLOURS, repeat=len(others)):
            # Ordered draws of these colours from the cards left: how many ways.
            ways = 1
            for colour in set(combo):
                left = pool.count(colour)
                for k in range(combo.count(colour)):
                    ways *= max(left - k, 0)
            if not ways:
                continue
            log = sum(hands[q][c] * math.log(lean) + float(logs.get(q, _FLAT)[COLOURS.index(c)])
                      for q, c in zip(others, combo))
            assignments.append(combo)
            weights.append((ways, log))
        top = max(log for _, log in weights)
        odds = np.array([ways * math.exp(log - top) for ways, log in weights])
        return cls(player, others, tuple(assignments), odds / odds.sum())

    def draw(self, rng: np.random.Generator) -> tuple[str, ...]:
        """One assignment, drawn by its probability."""
        return self.assignments[int(rng.choice(len(self.assignments), p=self.odds))]

    def colour_odds(self) -> dict[int, np.ndarray]:
        """Each other player's probability of each colour (in `COLOURS` order; made once: a
        decision's every belief asks it)."""
        return self._colour_odds

    @functools.cached_property
    def _colour_odds(self) -> dict[int, np.ndarray]:
        found = {q: np.zeros(len(COLOURS)) for q in self.others}
        for combo, p in zip(self.assignments, self.odds.tolist()):
            for q, colour in zip(self.others, combo):
                found[q][COLOURS.index(colour)] += p
        for odds in found.values():
            odds.flags.writeable = False  # shared by every belief of the decision
        return found


_FLAT = np.zeros(len(COLOURS))


@dataclass
class Evidence:
    """What one seat has read of the others' cards from their choices: per other player, the
    log-likelihood of each colour (`COLOURS` order). `update(state)` reads the actions since
    the last update; a new game (or a state that is not this one's continuation) starts over."""

    player: int
    logs: dict[int, np.ndarray] = field(default_factory=dict)
    # Per other player, the log-likelihood of its choices were it unlike the planner: each
    # choice as likely as under a card drawn at random (the mean of its likelihoods).
    unlike: dict[int, float] = field(default_factory=dict)
    # The hands when the watch began: treasures taken before it count by the rule's lean.
    hands_before: list[dict[str, int]] = field(default_factory=list)
    bot: pl.PlannerBot = field(default_factory=lambda: pl.PlannerBot(WATCH_SAMPLES))
    _seen: AnasaziState | None = field(default=None, repr=False)  # the watcher's view then
    _history: list[Action] = field(default_factory=list, repr=False)

    def update(self, state: AnasaziState) -> Evidence:
        """Read the actions of `state` since the last update (from the start of the watch)."""
        actions = [a for _, a, _ in state.history]
        if self._seen is None or actions[:len(self._history)] != self._history \
                or len(actions) < len(self._history):
            self._start(state, actions)
            return self
        seen = self._seen
        new = state.history[len(self._history):]
        # The others' actions, newest last; only the last READ_AT_MOST are read (a reading
        # costs four valuations): a watcher asked after a long absence stays within its time.
        theirs = [i for i, (q, _, _) in enumerate(new) if q != self.player]
        readable = set(theirs[-READ_AT_MOST:])
        for i, (q, action, _) in enumerate(new):
            if i in readable and seen.phase == "play" and seen.objectives_dealt():
                self._read(seen, q, action)
            try:
                seen.apply(action, q)
            except IllegalAction:  # the watcher's view went astray (a hidden colour): stop here
                break
        self._follow(state, actions)
        return self

    def _start(self, state: AnasaziState, actions: list[Action]) -> None:
        seen = state.observe(self.player)
        self.logs = {q: np.zeros(len(COLOURS)) for q in range(state.num_players)
                     if q != self.player}
        self.unlike = dict.fromkeys(self.logs, 0.0)
        self.hands_before = [dict(h) for h in seen["hands"]]
        self._follow(state, actions)

    def _follow(self, state: AnasaziState, actions: list[Action]) -> None:
        # A fresh view each time (the towers' colours as this seat may know them now), the
        # same for the same history: the reading does not depend on who asked before.
        self._seen = state.determinize(self.player, np.random.default_rng(len(state.history)))
        self._history = actions

    def _read(self, seen: AnasaziState, q: int, action: Action) -> None:
        """Add the log-likelihood of `q`'s `action` in `seen` under each card."""
        if seen.pending[:1] == ["take"] and isinstance(action, TakeTreasure):
            shortfall = self._take_shortfalls(seen, q, action)
        elif not seen.pending and isinstance(action, (PlaceMarker, ExtendMarker, BuildCamp)):
            shortfall = self._main_shortfalls(seen, q, action)
        else:
            return
        if shortfall is not None:
            likelihood = FLOOR + (1.0 - FLOOR) * np.exp(SHARPNESS * shortfall)
            self.logs[q] += np.log(likelihood)
            self.unlike[q] += math.log(float(likelihood.mean()))

    def log_likelihoods(self, q: int) -> np.ndarray:
        """The log-likelihood of `q`'s choices under each card (`COLOURS` order): a mixture,
        half that `q` plays as the planner would, half that its choices tell nothing of its
        card beyond a random card's (so that a player unlike the planner does not mislead)."""
        logs = self.logs.get(q, _FLAT)
        unlike = self.unlike.get(q, 0.0)
        top = max(float(logs.max()), unlike)
        return top + np.log(LIKE * np.exp(logs - top) + (1.0 - LIKE) * math.exp(unlike - top))

    def _beliefs(self, seen: AnasaziState, q: int) -> list[pl.Belief]:
        """`q`'s belief under each card it may hold (the others' cards as the deck less it)."""
        times = float(seen.options["objective_multiplier"])
        base = pl.Belief.of(seen, q)
        found = []
        for colour in COLOURS:
            factor = np.tile(1.0 + (times - 1.0) * pl.deck_odds(colour), (len(base.factor), 1))
            factor[q] = [times if c == colour else 1.0 for c in COLOURS]
            found.append(dataclasses.replace(base, factor=factor))
        return found

    def _take_shortfalls(self, seen: AnasaziState, q: int, take: TakeTreasure
                         ) -> np.ndarray | None:
        """How far short of the best take under each card `take` falls (0 or less)."""
        space = [a for a in list(seen.legal_actions(q))  # type: ignore[call-overload]
                 if isinstance(a, TakeTreasure)]
        if take not in space or len(set(space)) < 2:
            return None
        out = []
        for belief in self._beliefs(seen, q):
            gains = {a: belief.steal_gain(a) for a in space}
            out.append(gains[take] - max(gains.values()))
        return np.array(out)

    def _main_shortfalls(self, seen: AnasaziState, q: int,
                         action: PlaceMarker | ExtendMarker | BuildCamp) -> np.ndarray | None:
        """How far short of the plan's best main action under each card `action` falls."""
        if isinstance(action, ExtendMarker):
            action = action.resolve(seen)
        rng = np.random.default_rng(len(seen.history))
        out = []
        for belief in self._beliefs(seen, q):
            plan = pl._Plan(self.bot, seen, belief, q, rng)
            markers = plan.markers()
            best = max((float(m.values.max()) for m in markers if len(m.values)), default=-math.inf)
            _, camp_values = plan.camps(markers)
            best = max(best, float(camp_values.max(initial=-math.inf)))
            if isinstance(action, PlaceMarker):
                if action.expedition not in plan.expeditions:
                    return None
                owner = np.array([plan.expeditions.index(action.expedition)])
                value = float(plan.value_placements(np.array([action.x]), np.array([action.y]),
                                                    np.array([action.heading]), owner)[3][0])
            else:
                value = float(plan.value_camps(np.array([complex(action.x, action.y)]),
                                               markers)[0])
            out.append(min(0.0, value - max(best, value)))
        return np.array(out)

