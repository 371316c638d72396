"""A search player for Anasazi: ``mcts[:iterations=N,seconds=T]``.

Information-set Monte Carlo search over the searcher's own turn. Each iteration draws a
determinization of what the searcher knows (`state.determinize(player, rng)`: hidden tower
colours and objective cards drawn from its view), walks a tree of its actions this turn (the
first, then the second when the turn gives one: rule 4.0), and values the position the turn
leaves with the planner's valuation (`planner.turn_value`: its expected score against the
others', less what the next player could take from the ends left). Follow-ups (a look, a take)
inside the turn are the planner's.

The actions of a node are the planner's best candidates there (`planner.main_choices`: markers
from the exact windows of every wanted pueblo, blocking and thieving base camps), worked out
once per node (the board is public: every determinization shares them), tried in the planner's
order under progressive widening (a node of n visits holds ``ceil(WIDEN * n ** ALPHA)`` of them)
and selected by UCB1 on values scaled by the spread seen at the node. The action played is the
root's most visited.

Budget: `iterations` per decision, stopped early after `seconds` (a cap: results depend on the
machine's speed only when it bites). Both are bounded like every bot spec (`geomsim.bots`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from games.anasazi import planner as pl
from games.anasazi.rules import AnasaziState
from geomsim.bots import MAX_ITERATIONS, MAX_SECONDS, positive_float, positive_int
from geomsim.reading import cut
from geomsim.rules import Action, IllegalAction

ITERATIONS = 48  # default iterations per decision
SECONDS = 0.8  # default cap of a decision's search (s): under 1 s on this machine
ROOT_CHOICES = 10  # the planner's candidates a root may widen to
CHOICES = 5  # and a node of the turn's second action
WIDEN = 1.5  # progressive widening: a node of n visits holds ceil(WIDEN * n ** ALPHA) children
ALPHA = 0.5
EXPLORE = 0.7  # UCB1's constant, in units of the spread of values seen at the node


@dataclass
class _Node:
    """A decision of the searcher in its turn: the candidate actions (the planner's, best
    first, made on the first visit) and their statistics."""

    actions: list[Action] = field(default_factory=list)
    priors: list[float] = field(default_factory=list)
    visits: list[int] = field(default_factory=list)
    totals: list[float] = field(default_factory=list)
    children: dict[int, _Node] = field(default_factory=dict)
    made: bool = False
    low: float = math.inf
    high: float = -math.inf

    def select(self) -> int:
        """The child to try: an untried one among those widening allows, else UCB1's best."""
        n = sum(self.visits)
        allowed = min(len(self.actions), max(1, math.ceil(WIDEN * (n + 1) ** ALPHA)))
        for i in range(allowed):
            if self.visits[i] == 0:
                return i
        spread = max(self.high - self.low, 1e-9)
        log_n = math.log(n)
        return max(range(allowed), key=lambda i: self.totals[i] / self.visits[i]
                   + EXPLORE * spread * math.sqrt(log_n / self.visits[i]))

    def update(self, i: int, value: float) -> None:
        """Back up `value` through child `i`."""
        self.visits[i] += 1
        self.totals[i] += value
        self.low, self.high = min(self.low, value), max(self.high, value)

    def best(self) -> int:
        """The most visited child (the better mean on a tie, then the planner's order)."""
        return max(range(len(self.actions)),
                   key=lambda i: (self.visits[i], self.totals[i] / max(self.visits[i], 1), -i))


@dataclass
class SearchBot:
    """The search player of Anasazi (see the module docstring)."""

    iterations: int = ITERATIONS
    seconds: float = SECONDS
    spec: str = "mcts"
    planner: pl.PlannerBot = field(default_factory=pl.PlannerBot)

    def choose(self, state: AnasaziState, player: int, rng: np.random.Generator) -> Action:
        """The root action most visited by the search (a follow-up: the planner's)."""
        if state.phase != "play" or state.pending:
            return pl.follow_up(self.planner, state, player, rng)
        root = _Node()
        self._make(root, state, player, rng, ROOT_CHOICES)
        if len(root.actions) <= 1:
            return root.actions[0] if root.actions else self.planner.choose(state, player, rng)
        deadline = time.perf_counter() + self.seconds
        for _ in range(self.iterations):
            self._iterate(root, state.determinize(player, rng), player, rng)
            if time.perf_counter() > deadline:
                break
        return root.actions[root.best()]

    def _make(self, node: _Node, state: AnasaziState, player: int, rng: np.random.Generator,
              k: int) -> None:
        """Give `node` the planner's `k` best candidates in `state`."""
        found = pl.main_choices(self.planner, state, player, rng, k)
        node.actions = [a for a, _ in found]
        node.priors = [v for _, v in found]
        node.visits, node.totals = [0] * len(found), [0.0] * len(found)
        node.made = True

    def _iterate(self, root: _Node, state: AnasaziState, player: int,
                 rng: np.random.Generator) -> None:
        """One iteration on the determinization `state` (consumed): down the turn's tree,
        then the planner's valuation of where the turn ends."""
        path: list[tuple[_Node, int]] = []
        node: _Node | None = root
        while node is not None:
            i = node.select()
            try:
                state.apply(node.actions[i], player)
            except IllegalAction:  # legal in truth (the board is public): never expected
                node.visits[i] += 1
                node.totals[i] -= 1e6
                return
            path.append((node, i))
            self._follow_ups(state, player, rng)
            if state.is_over() or state.to_move() != (player,):
                break
            child = node.children.get(i)
            if child is None:
                child = node.children[i] = _Node()
                self._make(child, state, player, rng, CHOICES)
                if not child.actions:
                    break
            node = child
        value = pl.turn_value(self.planner, state, player, rng)
        for visited, i in path:
            visited.update(i, value)

    def _follow_ups(self, state: AnasaziState, player: int, rng: np.random.Generator) -> None:
        """The searcher's open decisions of the turn (a look, a take), by the planner."""
        while not state.is_over() and state.to_move() == (player,) and state.pending:
            state.apply(pl.follow_up(self.planner, state, player, rng), player)


def make_search(arg: str | None) -> SearchBot:
    """The bot of spec ``mcts`` or ``mcts:iterations=N,seconds=T`` (either or both)."""
    if not arg:
        return SearchBot()
    options: dict[str, float | int] = {}
    for part in arg.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in ("iterations", "seconds") or key in options:
            raise ValueError(f"bot {cut(f'mcts:{arg}', 60)}: expected iterations=N and/or "
                             f"seconds=T, not {cut(repr(part), 40)}")
        if key == "iterations":
            options[key] = positive_int(value.strip(), "mcts", "iterations", arg, MAX_ITERATIONS)
        else:
            options[key] = positive_float(value.strip(), "mcts", "seconds", arg, MAX_SECONDS)
    return SearchBot(iterations=int(options.get("iterations", ITERATIONS)),
                     seconds=float(options.get("seconds", SECONDS)), spec=f"mcts:{arg}")


BOTS = {"mcts": (make_search, "mcts[:iterations=N,seconds=T] (Anasazi: searches its turn over "
                              f"the planner's candidates in determinizations; default {ITERATIONS} "
                              f"iterations (at most {MAX_ITERATIONS:,}), stopped after {SECONDS:g} s "
                              f"(at most {MAX_SECONDS:g}))")}

# The game's players: the planner's and this one's (the package's `bots` part points here).
PLAYERS = {**pl.BOTS, **BOTS}
