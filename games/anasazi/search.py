"""A search player for Anasazi: ``mcts[:iterations=N,seconds=T,rounds=R]``.

Information-set search over the searcher's whole turn, judged by what the rounds after it do.
First, what the others' choices say of their objective cards (`inference.Evidence`: rule 5.1
doubles a card's colour, so a player plays to it; every marker, base camp and theft's take of
another player is valued as the planner would value it under each card, and a choice far
below the best under a card makes that card unlikely; `inference.Objectives` weighs the
cards left by that evidence). The searcher values the others by those odds, not the deck's,
everywhere the planner's `Belief` would (the turns, the leaves, a camp theft's take), and the
simulations deal the others' cards by them. Then two stages each decision:

1. **Turns.** The planner's best first actions (`planner.main_choices`: markers from the exact
   windows of every wanted pueblo, blocking and thieving base camps) and, when the turn has a
   second action (rule 4.0), the planner's best second actions after each, in a
   determinization (`state.determinize(player, rng)`: the board is public, so every
   determinization shares them). Each turn is valued as the planner values a finished turn
   (`planner.turn_value`); the best turn of each first action is kept, then the second best.
2. **Rounds.** A simulation draws a determinization (hidden tower colours and the other
   players' objective cards, from the searcher's view), plays the turn in it, then lets every
   other player play its turn as the planner would (the planner as it plays, its default
   placements: with fewer the modelled others miss narrow takes the real ones find), then the
   searcher's next turn as the planner would and the others' again (`ROUNDS`, two: a turn's
   worth shows in what it sets up for the searcher's next turn, a camp to cover, an end left
   near a pueblo, and in what the others then make of it), until the searcher is to move the
   `ROUNDS`-th time or the game ends (rule 5.0: the last marker, or a colour's fourth tower).
   The others' cards are dealt by the inferred odds. The leaf's value is the searcher's
   utility (its score against the best opponent's and their mean, as the planner's `Belief`
   rates it, by the inferred odds) plus what its next turn can take from the ends the others
   left; at the end of the game, the final scores of the determinization and a prize for
   winning, a penalty for losing (the tie-break of rule 5.1 included). Turns are compared on
   common random numbers (every turn of a round sees the same determinization and the same
   opponents' draws) and culled by sequential halving: a round plays every turn still in, the
   worse half leaves.

The action played is the first of the best turn (the mean of its simulations); at the turn's
second action, that turn's second (it was judged with the rounds after it), unless it is no
longer legal. Follow-ups are the planner's: a look as it would; a take by the inferred odds.

The setup's base camps (rule 3.0: two each, before the objective cards are dealt) are searched
the same way: the planner's best `TURNS` camps, each simulated through the rest of the setup
(every camp and look, as the planner would) and on into play, until the searcher is to move
in play the `rounds`-th time. Two of a player's seven camps are its setup camps, and a camp is
a theft to come (rule 4.2: the first marker to cover one of its owner's camps takes any
treasure): where they lie decides the first thefts of the game.

Budget: `iterations` simulations per decision, stopped early after `seconds` of the process's
CPU time (a cap: results depend on the machine's speed only when it bites, and never on its
load); `rounds` of play simulated after the turn (default `ROUNDS`; each round costs about
as much as the first). All are bounded like every bot spec (`geomsim.bots`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from games.anasazi import planner as pl
from games.anasazi.inference import Evidence, Objectives
from games.anasazi.rules import AnasaziState
from geomsim.bots import MAX_ITERATIONS, MAX_SECONDS, positive_float, positive_int
from geomsim.reading import cut
from geomsim.rules import Action, IllegalAction

ITERATIONS = 16  # default simulations (each of `ROUNDS` rounds of play) per decision
SECONDS = 0.9  # default cap of a decision's search (CPU s): under 1 s on this machine
FIRSTS = 5  # the planner's first actions a turn may start with
SECONDS_PER_FIRST = 3  # the planner's second actions tried after each
TURNS = 6  # turns kept for the simulations
OPPONENT_SAMPLES = pl.SAMPLES  # random placements per expedition of the modelled opponents (the
# planner as it plays: with fewer the modelled others miss narrow takes the real ones find)
NEXT_TURN = 0.8  # weight of what the searcher's next turn can take from one marker of an end
ROUNDS = 2  # rounds simulated after the searcher's turn (its own next turns the planner's)
END_PRIZE = pl.END_PRIZE  # utility of ending the game as its winner (its negative: not)


@dataclass
class _Turn:
    """A candidate turn: its actions, the planner's value of it, and its simulations."""

    actions: tuple[Action, ...]
    prior: float
    values: list[float] = field(default_factory=list)

    def mean(self) -> float:
        return sum(self.values) / len(self.values) if self.values else -math.inf


@dataclass
class SearchBot:
    """The search player of Anasazi (see the module docstring)."""

    iterations: int = ITERATIONS
    seconds: float = SECONDS
    spec: str = "mcts"
    rounds: int = ROUNDS  # rounds simulated after the turn (1: until the searcher's next turn;
    # from a setup camp: until its `rounds`-th turn of play)
    planner: pl.PlannerBot = field(default_factory=pl.PlannerBot)
    opponent: pl.PlannerBot = field(default_factory=lambda: pl.PlannerBot(OPPONENT_SAMPLES))
    # The turn chosen at its first action: (player, history length then, its actions).
    _planned: tuple[int, int, tuple[Action, ...]] | None = field(default=None, repr=False)
    # What this decision infers of the others' objectives (made from the searcher's view).
    _inferred: Objectives | None = field(default=None, repr=False)
    # What each seat it plays has read of the others' cards from their choices.
    _evidence: dict[int, Evidence] = field(default_factory=dict, repr=False)

    def choose(self, state: AnasaziState, player: int, rng: np.random.Generator) -> Action:
        """The first action of the turn that fared best in the simulated rounds."""
        if state.phase == "play" and state.pending[:1] == ["take"]:
            self._inferred = self._infer(state, player)
            return self._take(state, player)
        setup = state.phase == "camps" and not state.pending  # a setup base camp (rule 3.0)
        if not setup:
            if state.phase != "play" or state.pending:
                return pl.follow_up(self.planner, state, player, rng)
            second = self._second(state, player)
            if second is not None:
                return second
        # CPU time of this process, not the clock: on a loaded machine the clock would cut the
        # search short and make the player's strength depend on the load.
        deadline = time.process_time() + self.seconds
        self._inferred = self._infer(state, player)
        turns = self._setup_camps(state, player, rng) if setup else \
            self._turns(state, player, rng)
        turns = turns[:self.iterations]  # a round plays them all
        if not turns:
            return self.planner.choose(state, player, rng)
        if len({t.actions[0] for t in turns}) == 1:
            return turns[0].actions[0]
        alive, spent, costliest = list(turns), 0, 0.0
        # Whole rounds only (the turns' means then rest on the same draws), unless the cap bites.
        # A simulation starts only when one as costly as the costliest yet would end before
        # the cap: the decision stays under it rather than overrunning by a simulation.
        while (not spent or spent + len(alive) <= self.iterations) \
                and time.process_time() + costliest < deadline:
            seed = int(rng.integers(2**63))
            for turn in alive:
                started = time.process_time()
                if spent and started + costliest >= deadline:
                    break
                turn.values.append(self._simulate(state, player, turn.actions, seed))
                spent += 1
                costliest = max(costliest, time.process_time() - started)
            if len(alive) > 2:
                alive.sort(key=lambda t: -t.mean())
                alive = alive[:max(2, math.ceil(len(alive) / 2))]
        # A turn the cap left unsimulated loses to every simulated one (its mean is -inf);
        # among such turns the planner's value decides.
        best = max(alive, key=lambda t: (t.mean(), t.prior))
        self._planned = (player, len(state.history), best.actions)  # a camp: no second
        return best.actions[0]

    def _infer(self, state: AnasaziState, player: int) -> Objectives:
        """The others' cards as `player` infers them from their choices so far."""
        evidence = self._evidence.setdefault(player, Evidence(player)).update(state)
        return Objectives.of(state, player, evidence=evidence)

    def _setup_camps(self, state: AnasaziState, player: int, rng: np.random.Generator
                     ) -> list[_Turn]:
        """The planner's best `TURNS` setup base camps (rule 3.0), best first: each a turn of
        one action, judged by the rounds of play after the setup."""
        return [_Turn((a,), v) for a, v in pl.main_choices(self.planner, state, player, rng,
                                                           TURNS, per_group=TURNS)]

    def _second(self, state: AnasaziState, player: int) -> Action | None:
        """The second action of the turn the search chose at the first, when `state` is that
        turn at its second action (only the searcher's first action and follow-ups since) and
        the action is legal; else None (search again)."""
        planned, self._planned = self._planned, None
        if planned is None or state.actions_left != 1 or len(planned[2]) < 2:
            return None
        who, at, actions = planned
        since = state.history[at:]
        if who != player or not since or since[0][1] != actions[0] \
                or any(p != player for p, *_ in since):
            return None
        return actions[1] if state.check(actions[1], player).ok else None

    # -- stage 1: the turns ----------------------------------------------------------------------
    def _turns(self, state: AnasaziState, player: int, rng: np.random.Generator) -> list[_Turn]:
        """The best `TURNS` turns as the planner values them, best first."""
        firsts = pl.main_choices(self.planner, state, player, rng, FIRSTS,
                                 belief=self._belief(state, player))
        if state.actions_left < 2:
            return [_Turn((a,), v) for a, v in firsts[:TURNS]]
        turns: list[_Turn] = []
        for first, prior in firsts:
            seen = state.determinize(player, rng)
            seen.apply(first, player)
            self._follow_ups(seen, player, rng)
            if seen.is_over() or seen.to_move() != (player,):
                turns.append(_Turn((first,), pl.turn_value(self.planner, seen, player, rng,
                                                           self._belief(seen, player))))
                continue
            for second, _ in pl.main_choices(self.planner, seen, player, rng, SECONDS_PER_FIRST,
                                             belief=self._belief(seen, player)):
                after = seen.clone()
                after.apply(second, player)
                self._follow_ups(after, player, rng)
                turns.append(_Turn((first, second), pl.turn_value(
                    self.planner, after, player, rng, self._belief(after, player))))
        # Each first action's best turn before any's second best: the search decides the first.
        rank: dict[Action, int] = {}
        keyed: list[tuple[int, float, int, _Turn]] = []
        for turn in sorted(turns, key=lambda t: -t.prior):
            rank[turn.actions[0]] = rank.get(turn.actions[0], -1) + 1
            keyed.append((rank[turn.actions[0]], -turn.prior, len(keyed), turn))
        return [turn for *_, turn in sorted(keyed)][:TURNS]

    def _follow_ups(self, state: AnasaziState, player: int, rng: np.random.Generator) -> None:
        """The searcher's open decisions of the turn: a take as `_take`, a look by the
        planner."""
        while not state.is_over() and state.to_move() == (player,) and state.pending:
            action = self._take(state, player) if state.pending[0] == "take" else \
                pl.follow_up(self.planner, state, player, rng)
            state.apply(action, player)

    def _belief(self, state: AnasaziState, player: int) -> pl.Belief:
        """The planner's belief of `player` in `state`, the others' objective odds as this
        decision infers them from their choices (`Objectives`) rather than uniform."""
        belief = pl.Belief.of(state, player)
        inferred = self._inferred
        if inferred is not None and inferred.player == player and state.objectives_dealt():
            times = float(state.options["objective_multiplier"])
            for q, odds in inferred.colour_odds().items():
                belief.factor[q] = 1.0 + (times - 1.0) * odds
        return belief

    def _take(self, state: AnasaziState, player: int) -> Action:
        """A camp theft's take (rule 4.2): the treasure whose move gains most by `_belief`
        (the one the likely holder of that objective colour loses most by)."""
        return pl.best_take(self._belief(state, player),
                            list(state.legal_actions(player)))  # type: ignore[call-overload]

    # -- stage 2: the rounds ---------------------------------------------------------------------
    def _simulate(self, state: AnasaziState, player: int, actions: tuple[Action, ...],
                  seed: int) -> float:
        """The value for `player` of playing `actions` and the round after them, in the
        determinization and with the opponents' draws of `seed`."""
        sim = state.determinize(player, np.random.default_rng(seed))
        inferred = self._inferred
        if inferred is not None and inferred.player == player and sim.objectives_dealt():
            # The others' cards as their hands suggest, not uniformly from the deck.
            drawn = dict(zip(inferred.others, inferred.draw(np.random.default_rng(seed + 3))))
            sim.objectives = tuple(drawn.get(q, card) for q, card in enumerate(sim.objectives))
        mine, theirs = np.random.default_rng(seed + 1), np.random.default_rng(seed + 2)
        for action in actions:
            if sim.is_over() or sim.to_move() != (player,):
                break
            try:
                sim.apply(action, player)
            except IllegalAction:  # legal in truth (the board is public): never expected
                return -1e6
            self._follow_ups(sim, player, mine)
        # Then the others play (and the planner whatever the searcher's turn has left), and the
        # searcher's next turns as the planner, until its turn `rounds` turns after this one.
        gone, rounds = False, 0
        while not sim.is_over():
            p = sim.current
            gone = gone or p != player
            if gone and p == player and not sim.pending and sim.phase == "play":
                rounds += 1
                if rounds >= self.rounds:
                    break
                gone = False
            bot = self.planner if p == player else self.opponent
            sim.apply(bot.choose(sim, p, mine if p == player else theirs), p)
        return self._leaf(sim, player, mine)

    def _leaf(self, state: AnasaziState, player: int, rng: np.random.Generator) -> float:
        """How good `state` (the searcher to move, or the end) is for `player`."""
        if state.is_over():
            value = pl.margin(state.scores(), player)
            winners = state.winners()
            if player in winners:
                return value + END_PRIZE / len(winners)
            return value - END_PRIZE
        belief = self._belief(state, player)
        value = belief.utility(belief.hands, belief.track)
        return value + NEXT_TURN * pl.next_take(self.planner, state, belief, player, rng)


MAX_ROUNDS = 8  # rounds a simulation may play after the searcher's turn (each costs as much)
SPEC_KEYS = ("iterations", "seconds", "rounds")


def make_search(arg: str | None) -> SearchBot:
    """The bot of spec ``mcts`` or ``mcts:iterations=N,seconds=T,rounds=R`` (any of them)."""
    if not arg:
        return SearchBot()
    options: dict[str, float | int] = {}
    for part in arg.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in SPEC_KEYS or key in options:
            raise ValueError(f"bot {cut(f'mcts:{arg}', 60)}: expected iterations=N, seconds=T "
                             f"and/or rounds=R, not {cut(repr(part), 40)}")
        if key == "iterations":
            options[key] = positive_int(value.strip(), "mcts", "iterations", arg, MAX_ITERATIONS)
        elif key == "rounds":
            options[key] = positive_int(value.strip(), "mcts", "rounds", arg, MAX_ROUNDS)
        else:
            options[key] = positive_float(value.strip(), "mcts", "seconds", arg, MAX_SECONDS)
    return SearchBot(iterations=int(options.get("iterations", ITERATIONS)),
                     seconds=float(options.get("seconds", SECONDS)),
                     rounds=int(options.get("rounds", ROUNDS)), spec=f"mcts:{arg}")


BOTS = {"mcts": (make_search, "mcts[:iterations=N,seconds=T,rounds=R] (Anasazi: simulates "
                              f"R rounds (default {ROUNDS}, at most {MAX_ROUNDS}) after each of "
                              "its best turns and setup camps in determinizations, all "
                              f"playing as the planner; default {ITERATIONS} simulations "
                              f"(at most {MAX_ITERATIONS:,}), "
                              f"stopped after {SECONDS:g} CPU s (at most {MAX_SECONDS:g}))")}

# The game's players: the planner's and this one's (the package's `bots` part points here).
PLAYERS = {**pl.BOTS, **BOTS}
