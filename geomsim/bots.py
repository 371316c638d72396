"""Players that use only the rules interface, so they play every game.

A bot is anything with ``choose(state, player, rng) -> Action`` (the `Bot` protocol). Bots look
at the state only through what the interface lets a player know: `legal_actions(player)`,
`determinize(player, rng)` (a full state consistent with `observe(player)`) and `evaluate`.

- `RandomBot`: a uniformly sampled legal action.
- `GreedyBot`: one-step lookahead on `state.evaluate(player)` in a determinization.
- `ISMCTSBot`: single-observer information-set Monte Carlo tree search, with decoupled
  selection for simultaneous moves and progressive widening for continuous action spaces.

Bots are named by a spec string (``"random"``, ``"greedy:32"``, ``"ismcts:200"``,
``"ismcts:0.5s"``) through `make_bot`; `play_game` plays one game and returns a `GameResult`.

A game may define ``State.figures() -> dict`` (numbers worth reporting per game, e.g. treasures
taken or markers laid); `play_game` copies it into the result when present. It may define
``State.legality_key(player)``: a value, compared with ``==``, such that two states of one game
with equal keys hold the same actions of `player` legal, or None where it cannot say;
`ISMCTSBot` then checks each sampled action of a node once per key, not at every visit.
"""

from __future__ import annotations

import importlib
import itertools
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from geomsim.reading import cut
from geomsim.rules import (
    Action, ActionSpace, FiniteActionSpace, Game, IllegalAction, Player, State, new_state_under,
    win_shares,
)

# -- the protocol ----------------------------------------------------------------------------------


@runtime_checkable
class Bot(Protocol):
    """A player: picks a legal action for `player`, who is to move in `state`."""

    spec: str

    def choose(self, state: State, player: Player, rng: np.random.Generator) -> Action:
        """A legal action of `player` now; all randomness from `rng`."""
        ...


class NoLegalAction(RuntimeError):
    """A player is to move but the game offers no legal action (a bug of the game)."""


def _candidates(space: ActionSpace, rng: np.random.Generator, limit: int) -> list[Action]:
    """Every action of a finite space up to `limit` of them, else `limit` sampled ones."""
    if isinstance(space, FiniteActionSpace) and len(space) <= limit:
        return list(space)
    return space.sample(rng, limit)


T = TypeVar("T")
Value = TypeVar("Value", float, tuple[float, float])  # a value, or (visits, mean) compared in order


def _pick_best(actions: Sequence[Action], values: Sequence[Value],
               rng: np.random.Generator) -> Action:
    """The action of highest value, ties broken with `rng`."""
    best = max(values)
    tied = [a for a, v in zip(actions, values) if v == best]
    return tied[int(rng.integers(len(tied)))] if len(tied) > 1 else tied[0]


# -- random and greedy -----------------------------------------------------------------------------


@dataclass
class RandomBot:
    """Plays a uniformly sampled legal action."""

    spec: str = "random"

    def choose(self, state: State, player: Player, rng: np.random.Generator) -> Action:
        """A legal action of `player` drawn with `rng`."""
        space = state.legal_actions(player)
        if isinstance(space, FiniteActionSpace):  # direct indexing: a third of sample()'s cost
            if len(space):
                return space[int(rng.integers(len(space)))]
            found = []
        else:
            found = space.sample(rng, 1)
        if not found:
            raise NoLegalAction(f"player {player} is to move in {state!r} but has no legal action")
        return found[0]


@dataclass
class GreedyBot:
    """One-step lookahead: the action whose result `evaluate`s best for the player.

    The lookahead runs on one determinization, so the bot never uses hidden information.
    Finite spaces of at most `samples` actions are tried whole; larger or continuous ones are
    sampled (`samples` candidates).
    """

    samples: int = 32
    spec: str = "greedy"

    def choose(self, state: State, player: Player, rng: np.random.Generator) -> Action:
        """The candidate action of best one-step value for `player`."""
        candidates = _candidates(state.legal_actions(player), rng, self.samples)
        if not candidates:
            raise NoLegalAction(f"player {player} is to move in {state!r} but has no legal action")
        if len(candidates) == 1:
            return candidates[0]
        seen = state.determinize(player, rng)
        values = [self._value(seen, action, player) for action in candidates]
        return _pick_best(candidates, values, rng)

    @staticmethod
    def _value(state: State, action: Action, player: Player) -> float:
        child = state.clone()
        try:
            child.apply(action, player)
        except IllegalAction:  # legal in truth but not in this determinization: never prefer it
            return -math.inf
        return child.evaluate(player)


# -- information-set Monte Carlo tree search -------------------------------------------------------


@dataclass
class _Edge:
    """Statistics of one action of one player at one node."""

    visits: int = 0
    total: float = 0.0
    available: int = 0  # how often it was legal when its node was visited (SO-ISMCTS)

    def ucb(self, c: float) -> float:
        if self.visits == 0:
            return math.inf
        return self.total / self.visits + c * math.sqrt(math.log(max(self.available, 1)) / self.visits)


@dataclass
class _Node:
    """A node of the searcher's tree: per mover, statistics of their actions (decoupled)."""

    edges: dict[Player, dict[Action, _Edge]] = field(default_factory=dict)
    children: dict[tuple[tuple[Player, Action], ...], _Node] = field(default_factory=dict)
    # Per mover, the verdicts under each legality key met here.
    legal: dict[Player, list[_Verdicts]] = field(default_factory=dict)

    def verdicts(self, player: Player, key: Any) -> _Verdicts | None:
        """The verdicts kept of `player`'s edges here under legality key `key`, if any."""
        return next((v for v in self.legal.get(player, ()) if v.key == key), None)

    def kept_verdicts(self, player: Player, key: Any) -> _Verdicts:
        """The verdicts of `player`'s edges here under `key`, kept from now on if not yet."""
        found = self.verdicts(player, key)
        if found is None:
            found = _Verdicts(key)
            self.legal.setdefault(player, []).append(found)
        return found


@dataclass
class _Verdicts:
    """The edges of a node judged under one legality key: the first `judged` of them (in the
    edges' order) and the legal ones among those."""

    key: Any
    judged: int = 0
    legal: list[Action] = field(default_factory=list)


def rewards(values: Sequence[float], winners: Sequence[Player]) -> list[float]:
    """Each player's reward in [0, 1]: half a share of the win, half the opponents beaten.

    A win shared by k players gives each 1/k of the first half; the second half is the fraction
    of opponents with a lower value (ties count half). Used at the end of a game (scores and the
    rulebook's winners) and at a cut-off (`evaluate` and its leaders).
    """
    n = len(values)
    out = []
    for p, (v, share) in enumerate(zip(values, win_shares(n, winners))):
        beaten = sum((w < v) + 0.5 * (w == v) for q, w in enumerate(values) if q != p)
        out.append(0.5 * share + 0.5 * (beaten / (n - 1) if n > 1 else 1.0))
    return out


def _outcome(state: State) -> list[float]:
    """Rewards at the end of a game, or from `evaluate` when cut off before it."""
    if state.is_over():
        return rewards(state.scores(), state.winners())
    values = [state.evaluate(p) for p in range(state.num_players)]
    best = max(values)
    return rewards(values, [p for p, v in enumerate(values) if v == best])


@dataclass
class ISMCTSBot:
    """Single-observer information-set MCTS (Cowling, Powley, Whitehouse 2012).

    Each iteration draws a determinization of the searcher's information set, descends one
    tree shared by all determinizations (UCB1 with availability counts over the actions legal
    in that determinization), adds one node, plays random moves to the end (or `rollout_depth`
    decisions, then scores with `evaluate`) and backs up rewards in [0, 1] (see `rewards`).
    Rollouts to the end go to the game's compiled random player when it has one
    (`Game.random_playouts`). Where the game gives legality keys (`State.legality_key`), a
    node judges each of its sampled actions once per key it meets, not at every visit: the
    same search, fewer exact checks.

    Simultaneous moves: every player in `to_move()` selects from their own statistics at the
    node (decoupled UCT), so no one's choice depends on another's sealed choice.
    Continuous spaces: progressive widening, a node holds at most ``widen_c * visits**widen_alpha``
    sampled actions of a player.

    Budget: `iterations`, or `seconds` of search per decision when set (then results depend on
    the machine's speed and are not reproducible).
    """

    iterations: int = 200
    seconds: float | None = None
    exploration: float = 0.7
    widen_c: float = 1.0
    widen_alpha: float = 0.5
    rollout_depth: int | None = None
    max_rollout: int = 10_000
    spec: str = "ismcts"

    def choose(self, state: State, player: Player, rng: np.random.Generator) -> Action:
        """The action of `player` most visited at the root after the search."""
        space = state.legal_actions(player)
        if isinstance(space, FiniteActionSpace) and len(space) == 1:
            return space[0]
        return self._best(self.search(state, player, rng), state, player, rng)

    def search(self, state: State, player: Player, rng: np.random.Generator) -> _Node:
        """The search tree grown from `player`'s information set within the budget."""
        root = _Node()
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        compiled = self.rollout_depth is None and state.game.has_random_playouts()
        done = 0
        while done == 0 or (done < self.iterations if deadline is None
                            else time.perf_counter() < deadline):
            self._iterate(root, state.determinize(player, rng), rng, compiled)
            done += 1
        return root

    def _best(self, root: _Node, state: State, player: Player, rng: np.random.Generator) -> Action:
        found = root.edges.get(player, {})
        legal = self._legal_edges(root, state, player, found, legality_key_of(state, player))
        edges = [(a, found[a]) for a in legal]
        if not edges:
            return RandomBot().choose(state, player, rng)
        keys = [(e.visits, e.total / max(e.visits, 1)) for _, e in edges]
        return _pick_best([a for a, _ in edges], keys, rng)

    def _iterate(self, root: _Node, state: State, rng: np.random.Generator,
                 compiled: bool = False) -> None:
        """One iteration on the determinization `state` (consumed); rollouts by the game's
        compiled random player when `compiled`."""
        node, path = root, []
        while not state.is_over():
            joint = []
            for p in state.to_move():
                if p not in state.to_move():  # resolved by an earlier sealed choice
                    continue
                action = self._select(node, state, p, rng)
                state.apply(action, p)
                joint.append((p, action))
            path.append((node, joint))
            child = node.children.get(key := tuple(joint))
            if child is None:
                node.children[key] = _Node()
                break
            node = child
        reward = self._rollout(state, rng, compiled)
        for node, joint in path:
            for p, action in joint:
                edge = node.edges[p][action]
                edge.visits += 1
                edge.total += reward[p]

    def _select(self, node: _Node, state: State, player: Player, rng: np.random.Generator) -> Action:
        """An untried legal action if any (widening allowing), else the best by UCB."""
        space = state.legal_actions(player)
        edges = node.edges.setdefault(player, {})
        new, key = None, None
        if isinstance(space, FiniteActionSpace):
            legal = list(space)
            untried = [a for a in legal if a not in edges]
            if untried:
                new = untried[int(rng.integers(len(untried)))]
        else:
            key = legality_key_of(state, player)
            legal = self._legal_edges(node, state, player, edges, key)
            visits = sum(e.visits for e in edges.values())
            if not legal or len(edges) < self.widen_c * (visits + 1) ** self.widen_alpha:
                sampled = space.sample(rng, 1)
                new = sampled[0] if sampled else None
        for a in legal:
            if a in edges:
                edges[a].available += 1
        if new is not None:
            if new not in edges:
                edges[new] = _Edge(available=1)
                if not isinstance(space, FiniteActionSpace):
                    self._legal_edge_added(node, player, key, edges)
            return new
        if not legal:
            raise NoLegalAction(f"player {player} is to move in {state!r} but has no legal action")
        return max(legal, key=lambda a: edges[a].ucb(self.exploration))

    @staticmethod
    def _legal_edges(node: _Node, state: State, player: Player, edges: dict[Action, _Edge],
                     key: Any) -> list[Action]:
        """The actions of `edges` legal for `player` in `state`, in the edges' order: with the
        game's legality key `key` (`legality_key_of`), each checked exactly once per key met at
        `node` (an edge checked under an equal key keeps its verdict); with None, each checked
        at every visit."""
        if key is None:
            return [a for a in edges if state.check(a, player).ok]
        kept = node.kept_verdicts(player, key)
        if kept.judged < len(edges):
            kept.legal += [a for a in itertools.islice(edges, kept.judged, None)
                           if state.check(a, player).ok]
            kept.judged = len(edges)
        return list(kept.legal)

    @staticmethod
    def _legal_edge_added(node: _Node, player: Player, key: Any,
                          edges: dict[Action, _Edge]) -> None:
        """Note the edge just added last to `edges`, drawn from the legal actions of a state
        of legality key `key`, as legal under that key (when every edge before it is judged
        there already), so that it is not checked again."""
        kept = node.verdicts(player, key) if key is not None else None
        if kept is not None and kept.judged == len(edges) - 1:
            kept.legal.append(next(reversed(edges)))
            kept.judged = len(edges)

    def _rollout(self, state: State, rng: np.random.Generator, compiled: bool = False
                 ) -> list[float]:
        """The rewards after random moves until the end, or until `rollout_depth` decisions
        (then from `evaluate`). Played to the end by the game's compiled random player when
        `compiled` (`search` asks the game once whether it has one): the same uniform choices,
        without the interface's cost per decision."""
        if compiled and not state.is_over():
            end = state.game.random_playouts([state], seed=int(rng.integers(2**31)))
            return rewards(end.scores[0].tolist(), np.flatnonzero(end.winners[0]).tolist())
        limit = self.max_rollout if self.rollout_depth is None else self.rollout_depth
        random = RandomBot()
        play_rounds(state, lambda p: random.choose(state, p, rng), limit)
        return _outcome(state)


# -- registry --------------------------------------------------------------------------------------


# Caps on what a bot spec may ask for: a spec comes from a command line, a scenario or a web
# page, and a budget without a cap (``ismcts:1e300s``) passes every check and then never ends.
# Each is far above any setting that plays well here (ismcts:200 takes about a second a move).
ROW_FORMAT = 2  # 2: rows record turn_order, versions, options and the outcome-score trace
MAX_SECONDS = 60.0  # seconds of search per decision
MAX_ITERATIONS = 100_000  # search iterations per decision
MAX_SAMPLES = 10_000  # candidate actions drawn per decision (greedy, Anasazi's planner)
MAX_ROLLOUT_DEPTH = 10_000  # decisions of one rollout (ISMCTSBot.max_rollout)


def _random(arg: str | None) -> Bot:
    if arg:
        raise ValueError("the random bot takes no argument")
    return RandomBot()


def _greedy(arg: str | None) -> Bot:
    if not arg:
        return GreedyBot()
    samples = positive_int(arg, "greedy", "candidate samples", most=MAX_SAMPLES)
    return GreedyBot(samples=samples, spec=f"greedy:{arg}")


def _ismcts(arg: str | None) -> Bot:
    if not arg:
        return ISMCTSBot()
    budget, _, depth = arg.partition(":")
    options: dict[str, Any] = {"spec": f"ismcts:{arg}"}
    if depth:
        options["rollout_depth"] = positive_int(depth, "ismcts", "rollout depth", arg, MAX_ROLLOUT_DEPTH)
    if budget.endswith("s"):
        options["seconds"] = positive_float(budget[:-1], "ismcts", "seconds", arg, MAX_SECONDS)
    else:
        options["iterations"] = positive_int(budget, "ismcts", "iterations", arg, MAX_ITERATIONS)
    return ISMCTSBot(**options)


def positive_int(text: str, bot: str, what: str, arg: str | None = None, most: int = MAX_SAMPLES) -> int:
    """`text` as an integer from 1 to `most`, else a one-line `ValueError` naming the bot spec,
    what it sets and the range allowed."""
    try:
        value = int(text)
    except ValueError:  # not a whole number (or one of over 4,300 digits)
        value = 0
    if not 1 <= value <= most:
        raise ValueError(f"bot {cut(f'{bot}:{arg or text}', 60)}: {what} must be a positive integer at most {most:,}, "
                         f"not {cut(repr(text), 40)}")
    return value


def positive_float(text: str, bot: str, what: str, arg: str, most: float) -> float:
    """`text` as a number more than 0 and at most `most` (a bot spec's budget), else one line."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= most):
        raise ValueError(f"bot {cut(f'{bot}:{arg}', 60)}: {what} must be a positive number at most {most:g}, "
                         f"not {cut(repr(text), 40)}")
    return value


BOTS: dict[str, Callable[[str | None], Bot]] = {"random": _random, "greedy": _greedy, "ismcts": _ismcts}
BOT_HELP = {
    "random": "random (a uniformly sampled legal action)",
    "greedy": f"greedy[:K] (one-step lookahead on evaluate, K candidates, default 32, at most {MAX_SAMPLES:,})",
    "ismcts": f"ismcts[:N | :Ts][:D] (tree search: N iterations (default 200, at most {MAX_ITERATIONS:,}) "
              f"or T seconds a move (at most {MAX_SECONDS:g}); rollouts cut after D decisions (at most "
              f"{MAX_ROLLOUT_DEPTH:,}) and scored by evaluate)",
}


def register_bot(name: str, factory: Callable[[str | None], Bot], help: str = "") -> None:
    """Make `factory(arg)` available as bot spec ``name`` or ``name:arg``."""
    BOTS[name] = factory
    BOT_HELP[name] = help or name


def game_bots(game: Game | None) -> dict[str, tuple[Callable[[str | None], Bot], str]]:
    """The bots `game` provides (`Game.bots`: name -> (factory, help)), {} for None."""
    return {} if game is None else dict(game.bots())


def bot_help(game: Game | None = None) -> list[str]:
    """One line per bot that can play `game`: the engine's, then the game's own."""
    return [BOT_HELP[n] for n in BOTS] + [h for _, h in game_bots(game).values()]


def split_bots(text: str) -> list[str]:
    """The bot specs of a comma-separated list: ``"mcts:iterations=20,seconds=1.8,planner"`` is
    ``["mcts:iterations=20,seconds=1.8", "planner"]``. A piece ``key=value`` after a bot's
    argument continues that argument (a bot's name never holds ``=``)."""
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if "=" in piece and ":" not in piece and specs and ":" in specs[-1]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def make_bot(spec: str | Bot, game: Game | None = None, outside: bool = False) -> Bot:
    """The bot named by `spec` (``"greedy"``, ``"ismcts:200"``), among the engine's bots and
    those `game` provides (``"planner"`` for Anasazi), or with `outside` from outside geomsim
    (``"mypkg.players:make_player"``, see `outside_bot`); a `Bot` is returned as is.

    `outside` imports code named by the spec: only for specs of the command line (a scenario, a
    rows file or a web page must not make geomsim import and call a module)."""
    if not isinstance(spec, str):
        return spec
    name, _, arg = spec.strip().partition(":")
    factory = BOTS.get(name) or game_bots(game).get(name, (None, ""))[0]
    if factory is None and outside and _OUTSIDE.fullmatch(spec.strip()):
        return outside_bot(spec.strip())
    if factory is None:
        also = "; or package.module:callable for a bot from outside geomsim" if outside else ""
        raise ValueError(f"unknown bot {cut(repr(spec), 60)}; known bots: "
                         f"{', '.join(bot_help(game))}{also}")
    return factory(arg or None)


# A bot from outside geomsim: ``package.module:callable`` (a dotted module path, so it is never
# a known bot's ``name:argument``; a known bot's name wins over a module of the same name).
_OUTSIDE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+:[A-Za-z_]\w*")


def outside_bot(spec: str) -> Bot:
    """The bot that ``module.path:callable`` returns when called without arguments, or a
    one-line `ValueError` saying what is wrong (the module, the name, what it returned)."""
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as e:  # a missing module, or one that fails as it loads
        raise ValueError(f"bot {cut(spec, 80)}: cannot import {module_name}: "
                         f"{type(e).__name__}: {cut(str(e), 80)}") from None
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise ValueError(f"bot {cut(spec, 80)}: {module_name} has no callable {attribute}")
    try:
        bot = factory()
    except Exception as e:
        raise ValueError(f"bot {cut(spec, 80)}: {attribute}() failed: "
                         f"{type(e).__name__}: {cut(str(e), 80)}") from None
    if not isinstance(bot, Bot) or not isinstance(bot.spec, str):
        raise ValueError(f"bot {cut(spec, 80)}: {attribute}() returned {type(bot).__name__}, not a "
                         "bot (an object with a text `spec` and choose(state, player, rng))")
    return bot


# -- playing one game ------------------------------------------------------------------------------


@dataclass
class GameResult:
    """The outcome of one game: who sat where, scores, winners, length and game figures.

    `bots[p]` is the spec of the bot in seat `p` (seat = player number); `first` lists the
    players to move at the start; `turn_order` the players by turn position at the start
    (`State.turn_order`: turn_order[0] moved first); `length` counts the actions applied in
    this game (not those of a starting scenario); `finished` is False when `max_steps` cut the
    game short; `trace` is what `Trace.to_json` records of the course of play (for
    `geomsim.metrics`); `versions` and `options` say which rules were played (`versions_of`).
    `deal`: the seed the setup came from when not `seed` (a ladder plays one deal with several
    line-ups); `decision_seconds[p]`: the seconds of each decision of seat `p`, when timed
    (both left out of the row when unset, so rows of other batches are unchanged).
    """

    game: str
    seed: int
    players: int
    bots: list[str]
    scores: list[float]
    winners: list[Player]
    length: int
    finished: bool
    first: list[Player]
    turn_order: list[Player] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    trace: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    deal: int | None = None
    decision_seconds: list[list[float]] = field(default_factory=list)

    @property
    def winner(self) -> Player | None:
        """The sole winner, or None for a shared win or an unfinished game."""
        return self.winners[0] if len(self.winners) == 1 else None

    def to_row(self) -> dict[str, Any]:
        """This result as a JSON-able row (`winner` included)."""
        # Shallow (`asdict` deep-copies): rows are written out at once, one per game.
        row = {**{f.name: getattr(self, f.name) for f in fields(self)}, "winner": self.winner}
        for name in _UNSET_LEFT_OUT:
            if not row[name] and row[name] != 0:
                del row[name]
        return row


_UNSET_LEFT_OUT = ("deal", "decision_seconds")  # fields a row holds only when they are set


def versions_of(game: Game) -> dict[str, Any]:
    """What a row records of the code that played it: geomsim's version, the row format and the
    game's rules version (`Game.rules_version`). Rows whose versions differ do not mix."""
    from geomsim import __version__

    return {"geomsim": __version__, "rows": ROW_FORMAT, "rules": f"{game.name}/{game.rules_version}"}


def options_of(state: State) -> dict[str, Any]:
    """The options in force in a state that are not the rulebook's ({} for the official rules)."""
    from geomsim.options import changed

    return changed(state.game.options, state.options)


def bot_rngs(seed: int, players: int) -> list[np.random.Generator]:
    """One random stream per seat, derived from the game's seed (independent of scheduling)."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(players)]


def figures_of(state: State) -> dict[str, Any]:
    """The game's own figures of this state (`state.figures()`), or {} when it has none."""
    hook = getattr(state, "figures", None)
    if not callable(hook):
        return {}
    found = hook()
    if not isinstance(found, Mapping):
        raise TypeError(f"{state.game.name}: State.figures() must return a dict, "
                        f"not {type(found).__name__}")
    return {str(k): v for k, v in found.items()}


def legality_key_of(state: State, player: Player) -> Any:
    """`state.legality_key(player)` (see the module docstring), or None when the game has none."""
    hook = getattr(state, "legality_key", None)
    return hook(player) if callable(hook) else None


def choice_figures_of(state: State, player: Player) -> dict[str, float]:
    """The game's figures of the choice `player` faces now (`state.choice_figures(player)`,
    e.g. Anasazi's legal share of sampled poses), or {} when it has none."""
    hook = getattr(state, "choice_figures", None)
    return dict(hook(player)) if callable(hook) else {}


@dataclass
class Trace:
    """The course of one game as `geomsim.metrics` reads it, recorded before every decision.

    - `scores`: ``[decision, scores]`` each time `State.outcome_scores` (the scores if the game
      ended now, everything hidden revealed) changes; decision = actions applied before it, so
      the first entry is the start and an entry at the game's length is its end;
    - `choices`: per decision, how many legal actions the player chose among (None where the
      space is continuous);
    - `figures`: per name of the game's choice figures (`choice_figures_of`), the mean and the
      number of decisions that reported it.
    """

    scores: list[list[Any]] = field(default_factory=list)
    choices: list[int | None] = field(default_factory=list)
    sums: dict[str, list[float]] = field(default_factory=dict)

    def record(self, state: State, player: Player) -> None:
        """Note the position before `player` decides."""
        self.note(state)
        space = state.legal_actions(player)
        self.choices.append(len(space) if isinstance(space, FiniteActionSpace) else None)
        for name, value in choice_figures_of(state, player).items():
            total = self.sums.setdefault(name, [0.0, 0])
            total[0] += float(value)
            total[1] += 1

    def note(self, state: State) -> None:
        """Note the outcome scores now, if they changed."""
        scores = [float(s) for s in state.outcome_scores()]
        if not self.scores or self.scores[-1][1] != scores:
            self.scores.append([len(self.choices), scores])

    def to_json(self) -> dict[str, Any]:
        """The trace as JSON-able data (a row's ``trace``)."""
        return {"scores": self.scores, "choices": self.choices,
                "figures": {k: {"mean": t / n, "n": n} for k, (t, n) in sorted(self.sums.items())}}


def play_rounds(state: State, choose: Callable[[Player], Action], rounds: int) -> None:
    """Apply `choose(player)` for each player to move, in seat order, for up to `rounds` rounds
    or until the end (a player no longer to move after an earlier choice of the round is skipped)."""
    for _ in range(rounds):
        movers = state.to_move()
        if not movers:
            return
        for p in movers:
            if p in state.to_move():
                state.apply(choose(p), p)


def play_game(game: Game, players: int, bots: Sequence[str | Bot], seed: int,
              start: State | None = None, max_steps: int = 100_000, by_turn: bool = False,
              options: Mapping[str, Any] | None = None, deal: int | None = None,
              timed: bool = False) -> GameResult:
    """Play one game: `bots[p]` in seat `p` (with `by_turn`, `bots[k]` for the player in turn
    position k, see `State.turn_order`), setup from `seed` under `options` (or from `deal`
    when given, or a copy of `start`); with `timed`, the result holds the seconds of each
    decision.

    Each seat draws from its own stream `bot_rngs(seed, players)[p]`, so the same seed and bots
    give the same game in any process. Players to move together choose in seat order, each
    seeing the state through the interface only (earlier sealed choices stay hidden).
    """
    return play_out(game, players, bots, seed, start, max_steps, by_turn, options, deal, timed)[1]


def seated_by_turn(bots: Sequence[T], order: Sequence[Player]) -> list[T]:
    """Bots listed by turn position, listed by seat instead (`order`: `State.turn_order`)."""
    seated = list(bots)
    for k, p in enumerate(order):
        seated[p] = bots[k]
    return seated


def play_out(game: Game, players: int, bots: Sequence[str | Bot], seed: int,
             start: State | None = None, max_steps: int = 100_000, by_turn: bool = False,
             options: Mapping[str, Any] | None = None, deal: int | None = None,
             timed: bool = False) -> tuple[State, GameResult]:
    """`play_game`, and the state it ended in (to draw or replay a row's game: the same seed
    and bots give the same game, unless a bot's budget is time)."""
    if len(bots) != players:
        raise ValueError(f"{len(bots)} bots for {players} players: give one bot per seat")
    state = (new_state_under(game, players, seed if deal is None else deal, None, options)
             if start is None else start.clone())
    if state.num_players != players:
        raise ValueError(f"the starting state has {state.num_players} players, not {players}")
    seats = [make_bot(b, game) for b in (seated_by_turn(bots, state.turn_order()) if by_turn
                                         else bots)]
    rngs = bot_rngs(seed, players)
    began, clock = len(state.history), time.perf_counter()
    first, order = list(state.to_move()), state.turn_order()
    trace = Trace()
    spent: list[list[float]] = [[] for _ in range(players)]

    def choose(p: Player) -> Action:
        trace.record(state, p)
        if not timed:
            return seats[p].choose(state, p, rngs[p])
        began_choice = time.perf_counter()
        action = seats[p].choose(state, p, rngs[p])
        spent[p].append(round(time.perf_counter() - began_choice, 6))  # a microsecond is plenty
        return action

    play_rounds(state, choose, max_steps)
    trace.note(state)
    over = state.is_over()
    return state, GameResult(
        game=game.name, seed=seed, players=players, bots=[b.spec for b in seats],
        scores=[float(s) for s in state.scores()], winners=list(state.winners()) if over else [],
        length=len(state.history) - began, finished=over, first=first, turn_order=order,
        figures=figures_of(state),
        seconds=time.perf_counter() - clock, trace=trace.to_json(), versions=versions_of(game),
        options=options_of(state), deal=deal, decision_seconds=spent if timed else [],
    )


COMPILED_ENDING = "not recorded by the compiled player"


def play_compiled(game: Game, players: int, seed: int, start: State | None = None,
                  options: Mapping[str, Any] | None = None) -> GameResult:
    """One game of random players, from the setup of `seed` (or from `start`, left unchanged),
    played by the game's compiled random player (`Game.random_playouts`) with the stream of `seed`.

    The games follow the same law as `play_game` with every seat ``random`` (a uniform choice
    among the legal actions at every decision), not the same games; no game figures (the ending
    is `COMPILED_ENDING`).
    """
    state = new_state_under(game, players, seed, None, options) if start is None else start
    if state.num_players != players:
        raise ValueError(f"the starting state has {state.num_players} players, not {players}")
    clock = time.perf_counter()
    played = game.random_playouts([state], seed=seed)
    return GameResult(
        game=game.name, seed=seed, players=players, bots=["random"] * players,
        scores=played.scores[0].tolist(), winners=np.flatnonzero(played.winners[0]).tolist(),
        length=int(played.decisions[0]), finished=True, first=list(state.to_move()),
        turn_order=state.turn_order(),
        # The kernels return scores and decisions only: say so rather than "unknown".
        figures={"ending": COMPILED_ENDING}, seconds=time.perf_counter() - clock,
        trace={"choices": played.log[:, 2].tolist()},  # the kernel logs no scores: no lead
        versions=versions_of(game), options=options_of(state),
    )
