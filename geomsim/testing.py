"""A reusable random-simulation test for any geomsim game, like OpenSpiel's.

`check_random_games(game, players, games=N)` plays N random games from seeds to the end through
the rules interface alone and checks, at every step, the contract of DESIGN.md. A broken
property raises `HarnessFailure` naming the property, the seed and the step.
`check_setup_mutants(game, players)` checks that every setup the game accepts, among mutants of
a random one, gives a state whose JSON reads back, and that the others are refused with a
`DataError` naming the field.
"""

from __future__ import annotations

import copy
import json
import math
import pickle
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import numpy as np

from geomsim.reading import DataError, join, short
from geomsim.rules import (
    JSON, Action, FiniteActionSpace, Game, IllegalAction, Player, Playouts, State, new_state_under,
)

if TYPE_CHECKING:
    from geomsim.encoding import Encoding

PROPERTIES = (
    "legal-passes-check", "illegal-raises", "illegal-unchanged", "clone-independent",
    "json-round-trip", "copy-round-trip", "action-round-trip", "replay", "observe-hidden",
    "view-hidden", "determinize-varies", "determinize-blind", "scores-finite", "terminates", "playout-replay",
)


T = TypeVar("T")
Fail = Callable[[str, str], NoReturn]  # raises the HarnessFailure of a property, with a message


class HarnessFailure(AssertionError):
    """A game broke a property of the rules interface."""

    def __init__(self, prop: str, message: str, seed: int | None = None, step: int | None = None):
        self.property = prop
        where = "" if seed is None else f" (seed {seed}" + ("" if step is None else f", step {step}") + ")"
        super().__init__(f"[{prop}] {message}{where}")


@dataclass
class HarnessReport:
    """What a run of `check_random_games` covered."""

    games: int = 0
    steps: int = 0
    actions_checked: int = 0
    illegal_checked: int = 0
    determinized: int = 0
    determinize_varied: int = 0  # 1 once a determinization differed from the true state


def _rngs(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """Separate streams: one chooses the moves, one probes, so probing never changes the game."""
    moves, probe = np.random.SeedSequence(seed).spawn(2)
    return np.random.default_rng(moves), np.random.default_rng(probe)


def _choose(state: State, rng: np.random.Generator, sample_k: int) -> tuple[Player, list[Action]]:
    movers = state.to_move()
    # One mover: `integers(1)` would draw no random number (the stream is the same without
    # it), and asking costs about a microsecond.
    player = movers[0] if len(movers) == 1 else movers[int(rng.integers(len(movers)))]
    return player, state.legal_actions(player).sample(rng, sample_k)


def random_playout(game: Game, players: int, seed: int, max_steps: int = 100_000,
                   sample_k: int = 4, start: State | None = None) -> State:
    """The game `check_random_games` plays from `seed`, without the checks (from a copy of
    `start` when given: the state `seed` sets up, made once by the caller)."""
    moves, _ = _rngs(seed)
    state = game.new_state(players=players, seed=seed) if start is None else start.clone()
    for _ in range(max_steps):
        if state.is_over():
            break
        player, actions = _choose(state, moves, sample_k)
        if not actions:
            break
        state.apply(actions[0], player)
    return state


def check_random_games(game: Game, players: int, games: int = 10, seed: int = 0,
                       max_steps: int = 100_000, sample_k: int = 4, illegal_k: int = 4,
                       thorough_every: int = 1) -> HarnessReport:
    """Play `games` random games from seeds `seed`, `seed + 1`, ... and check every property.

    Every step checks that sampled legal actions pass `check` and round trip as text and JSON.
    The costlier checks (JSON round trip of the state, observations and determinization, illegal
    actions, the player not to move, clone independence) run every `thorough_every` steps
    (1: always; a number prime to a game's turn length reaches every phase) and on the final state;
    copies by `copy.deepcopy` and `pickle` at the 1st, 2nd, 4th, 8th, ... of those and the last.
    """
    report = HarnessReport()
    for game_seed in range(seed, seed + games):
        final = _check_one_game(game, players, game_seed, max_steps, sample_k, illegal_k,
                                thorough_every, report)
        _check_replay(game, players, game_seed, final, max_steps, sample_k)
        report.games += 1
    if getattr(game, "hidden_information", False) and report.determinized and not report.determinize_varied:
        raise HarnessFailure("determinize-varies",
                             f"{game.name} declares hidden information, but determinize never "
                             "changed a hidden part of the state")
    return report


def _check_one_game(game: Game, players: int, seed: int, max_steps: int, sample_k: int,
                    illegal_k: int, thorough_every: int, report: HarnessReport) -> State:
    state = game.new_state(players=players, seed=seed)
    return _play_checked(state, seed, max_steps, max_steps, sample_k, illegal_k, thorough_every, report)


def check_from_state(state: State, seed: int = 0, checked_steps: int = 20, max_steps: int = 100_000,
                     sample_k: int = 4, illegal_k: int = 4) -> HarnessReport:
    """Play a copy of `state` (one read from a file, say) on at random: its first
    `checked_steps` decisions with every check of `check_random_games` at every step, the rest
    unchecked to the end; then the final scores and winners are checked. `HarnessFailure`
    when the state does not play as a state of its game must."""
    report = HarnessReport()
    _play_checked(state.clone(), seed, checked_steps, max_steps, sample_k, illegal_k, 1, report)
    report.games += 1
    return report


def _play_checked(state: State, seed: int, checked_steps: int, max_steps: int, sample_k: int,
                  illegal_k: int, thorough_every: int, report: HarnessReport) -> State:
    """Play `state` on at random, checking every property for `checked_steps` steps."""
    game, players = state.game, state.num_players
    moves, probe = _rngs(seed)
    seen: list[tuple[Player, Action]] = []
    thorough_checks = 0  # copies are checked at the 1st, 2nd, 4th, 8th, ... and at the end
    for step in range(max_steps):
        fail = _failer(seed, step)
        checked = step < checked_steps
        thorough = checked and step % thorough_every == 0
        if thorough or (checked and state.is_over()):
            _check_json(game, state, fail)
            thorough_checks += 1
            if thorough_checks & (thorough_checks - 1) == 0 or state.is_over():
                _check_copies(state, fail)
        if state.is_over():
            break
        if thorough:
            _check_observations(state, players, probe, report, fail)
        player, actions = _choose(state, moves, sample_k if checked else 1)
        if not actions:
            fail("terminates", f"player {player} is to move but has no legal action")
        if checked:
            for action in actions:
                _check_legal(game, state, action, player, fail)
            report.actions_checked += len(actions)
        if thorough:
            candidates = state.arbitrary_actions(player, probe, illegal_k)
            candidates += [a for _, a in _sample(seen, probe, illegal_k)]
            report.illegal_checked += _check_illegal_batch(state, candidates, player, fail)
            _check_not_to_move(state, actions[0], players, fail)
            _check_clone(state, actions[0], player, fail)
        state.apply(actions[0], player)
        seen.append((player, actions[0]))
        report.steps += 1
    else:
        raise HarnessFailure("terminates", f"game not over after {max_steps} steps", seed)
    scores = state.scores()
    if len(scores) != players or not state.returns_finite():
        raise HarnessFailure("scores-finite", f"final scores {scores} are not {players} finite numbers", seed)
    if not set(state.winners()) <= set(range(players)) or not state.winners():
        raise HarnessFailure("scores-finite", f"winners {state.winners()} are not players", seed)
    return state


def _failer(seed: int, step: int) -> Fail:
    def fail(prop: str, message: str) -> NoReturn:
        raise HarnessFailure(prop, message, seed, step)
    return fail


def _sample(items: list[T], rng: np.random.Generator, k: int) -> list[T]:
    if not items:
        return []
    return [items[i] for i in rng.choice(len(items), size=min(k, len(items)), replace=False)]


def _check_json(game: Game, state: State, fail: Fail) -> None:
    text = state.to_json()
    restored = game.state_from_json(text)
    if restored.to_json() != text:
        fail("json-round-trip", "state_from_json(to_json()) writes different JSON")
    if restored.to_move() != state.to_move():
        fail("json-round-trip", "the restored state has other players to move")
    for player in state.to_move():
        space, again = state.legal_actions(player), restored.legal_actions(player)
        if isinstance(space, FiniteActionSpace) and (
                not isinstance(again, FiniteActionSpace) or list(space) != list(again)):
            fail("json-round-trip", f"the restored state lists player {player}'s legal actions "
                 "otherwise (a random player would play on differently)")


def _check_copies(state: State, fail: Fail) -> None:
    """`copy.deepcopy` and `pickle` (what peers such as OpenSpiel's tests use) give states that
    write the same JSON, compare equal and hash alike."""
    text = state.to_json()
    for how, other in (("deepcopy", copy.deepcopy(state)),
                       ("pickle", pickle.loads(pickle.dumps(state)))):
        if other.to_json() != text:
            fail("copy-round-trip", f"a {how} of the state writes different JSON")
        if other != state or hash(other) != hash(state):
            fail("copy-round-trip", f"a {how} of the state is not equal to it or hashes otherwise")


def _check_legal(game: Game, state: State, action: Action, player: Player, fail: Fail) -> None:
    verdict = state.check(action, player)
    if not verdict.ok:
        fail("legal-passes-check", f"sampled legal action {action} fails check: {verdict}")
    try:
        parsed = game.parse_action(str(action))
    except ValueError as e:
        fail("action-round-trip", f"text {str(action)!r} does not parse: {e}")
    if parsed != action:
        fail("action-round-trip", f"text {str(action)!r} parses to {parsed!r}, not {action!r}")
    data = json.loads(json.dumps(action.to_json()))
    if game.action_from_json(data) != action:
        fail("action-round-trip", f"JSON of {action!r} does not round trip")


def _check_illegal_batch(state: State, candidates: list[Action], player: Player, fail: Fail) -> int:
    """Check and try to apply every illegal candidate; the state must not change. The state is
    written once for the batch and action by action only to name the culprit of a change."""
    before = state.to_json()
    illegal = 0
    for action in candidates:
        if not state.check(action, player).ok:
            illegal += 1
            try:
                state.apply(action, player)
            except IllegalAction:
                continue
            fail("illegal-raises", f"apply of illegal {action} did not raise IllegalAction")
    if state.to_json() != before:
        restored = state.game.state_from_json(before)
        for action in candidates:
            unchanged = restored.to_json()
            legal = restored.check(action, player).ok
            if restored.to_json() != unchanged:
                fail("illegal-unchanged", f"check of {action} changed the state")
            if not legal:
                _check_illegal(restored, action, player, fail)
        fail("illegal-unchanged", "checking or applying illegal actions changed the state")
    return illegal


def _check_illegal(state: State, action: Action, player: Player, fail: Fail) -> None:
    before = state.to_json()
    try:
        state.apply(action, player)
    except IllegalAction:
        pass
    else:
        fail("illegal-raises", f"apply of illegal {action} did not raise IllegalAction")
    if state.to_json() != before:
        fail("illegal-unchanged", f"apply of illegal {action} changed the state")


def _check_not_to_move(state: State, action: Action, players: int, fail: Fail) -> None:
    others = [p for p in range(players) if p not in state.to_move()]
    if others:
        _check_illegal(state, action, others[0], fail)


def _check_clone(state: State, action: Action, player: Player, fail: Fail) -> None:
    before = state.to_json()
    copy = state.clone()
    copy.apply(action, player)
    if state.to_json() != before:
        fail("clone-independent", "applying an action to a clone changed the original")


def _dump(data: object) -> str:
    return json.dumps(data, sort_keys=True, default=str)


def _check_observations(state: State, players: int, rng: np.random.Generator,
                        report: HarnessReport, fail: Fail) -> None:
    """Every view a player may call for their own (`State.player_views`: observe, scores, ...)
    is the same in the state and in a determinization for that player."""
    full = state.to_json()
    for p in range(players):
        views = state.player_views(p)
        other = state.determinize(p, rng)
        report.determinized += 1
        for name, seen in other.player_views(p).items():
            # Equal as data (fast), or as JSON (lists and tuples alike, as a player gets them).
            if seen == views.get(name) or _dump(seen) == _dump(views.get(name)):
                continue
            if name == "observe":
                fail("observe-hidden", f"observe({p}) differs between the state and a "
                     "determinization for that player: it shows what the player may not know, "
                     "or determinize changes what the player knows")
            fail("view-hidden", f"{name} for player {p} differs between the state and a "
                 "determinization for that player: it shows what the player may not know "
                 "(or, if it is meant to show the whole truth, it must not be a player's view)")
        # Writing every determinization is costly; one that varies is proof enough.
        if not report.determinize_varied and other.to_json() != full:
            report.determinize_varied += 1
        _check_determinize_blind(state, other, p, rng, fail)
    if state.to_json() != full:
        fail("observe-hidden", "determinize changed the original state")


def _check_determinize_blind(state: State, other: State, player: Player, rng: np.random.Generator,
                             fail: Fail) -> None:
    """A determinization for `player` is drawn from what `player` may know and the rng alone.

    `other`, a determinization of `state` for `player`, is a truth the player cannot tell from
    `state`'s: determinizing either with the same rng must write the same JSON, every member of
    it (history included). Otherwise a determinization shows something of the true state it was
    drawn from. What `determinize` copies unchanged is the same in both and escapes this check;
    the setup's seed, which deals the hidden parts again, is checked by name
    (`_check_no_true_seed`)."""
    draw = int(rng.integers(2**63))
    mine = state.determinize(player, np.random.default_rng(draw)).to_json()
    theirs = other.determinize(player, np.random.default_rng(draw)).to_json()
    if mine != theirs:
        where = _first_difference(json.loads(mine), json.loads(theirs), "")
        fail("determinize-blind", f"determinize({player}) of two states player {player} cannot "
             f"tell apart differs at {where or 'the JSON text'} with the same rng: a "
             "determinization depends on the hidden parts of the true state")
    _check_no_true_seed(state, other, player, fail)


def _check_no_true_seed(state: State, other: State, player: Player, fail: Fail) -> None:
    """No member named "seed" of a determinization's JSON holds a seed of the true state's JSON
    (`make_setup` on it would deal the true hidden parts again)."""
    drawn = set(_SEED.findall(other.to_json())) - {"null"}
    kept = drawn & set(_SEED.findall(state.to_json()))
    if kept:
        fail("determinize-blind", f"a determinization for player {player} keeps the true "
             f"seed {min(kept)} (a member named seed): the setup made from it deals the hidden "
             "parts again")


# A member named "seed" in JSON text, and its value (a number, text or null).
_SEED = re.compile(r'"seed"\s*:\s*(-?[0-9.eE+-]+|null|"(?:[^"\\]|\\.)*")')


def _first_difference(a: object, b: object, path: str) -> str | None:
    """The path of the first member where JSON data `a` and `b` differ (None: equal)."""
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        for key in a:
            found = _first_difference(a[key], b[key], f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            found = _first_difference(x, y, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    return None if a == b else (path or "the top")


def _check_replay(game: Game, players: int, seed: int, final: State, max_steps: int,
                  sample_k: int) -> None:
    again = random_playout(game, players, seed, max_steps, sample_k)
    if again.to_json() != final.to_json():
        raise HarnessFailure("replay", "the same seed and choices gave a different game", seed)
    replayed = game.new_state(players=players, seed=seed)
    for player, action, _ in final.history:
        replayed.apply(action, player)
    if replayed.to_json() != final.to_json():
        raise HarnessFailure("replay", "re-applying the history to a new state gave another state", seed)


def check_playouts(game: Game, players: int, games: int = 20, seed: int = 0,
                   options: Mapping[str, Any] | None = None) -> Playouts:
    """Check a game's compiled random player against its rules interface, from the setups of
    seeds `seed`, `seed + 1`, ... under `options` (see `check_playouts_from`)."""
    starts = [new_state_under(game, players, s, None, options) for s in range(seed, seed + games)]
    return check_playouts_from(game, starts, seed)


def draw_options(game: Game, rng: np.random.Generator) -> dict[str, Any]:
    """A random value of every option of `game`: uniform over its choices, a coin for a bool,
    uniform over its range for a number (the default where a number has no range)."""
    found: dict[str, Any] = {}
    for name, option in game.options.items():
        if option.choices:
            found[name] = option.choices[int(rng.integers(len(option.choices)))]
        elif option.type is bool:
            found[name] = bool(rng.integers(2))
        elif option.low is None or option.high is None:
            found[name] = option.default
        elif option.type is int:
            found[name] = int(rng.integers(int(option.low), int(option.high) + 1))
        else:
            found[name] = float(rng.uniform(option.low, option.high))
    return found


def playable_options(game: Game, players: int, rng: np.random.Generator, seed: int,
                     tries: int = 50) -> dict[str, Any]:
    """A draw of `draw_options` that the game accepts for `players` from `seed` (a game may
    refuse a combination, as Anasazi's more setup camps than base camps, in one line): the
    first of `tries`."""
    for _ in range(tries):
        options = draw_options(game, rng)
        try:
            new_state_under(game, players, seed, None, options)
        except DataError:
            continue
        return options
    raise HarnessFailure("playout-replay", f"no option draw of {tries} that {game.name} accepts")


def check_playouts_options(game: Game, players: int, draws: int = 3, games: int = 4,
                           seed: int = 0) -> list[dict[str, Any]]:
    """`check_playouts` under `draws` random option draws (`draw_options`, from `seed`), each
    `games` games: the compiled random player honours every option, or the failure names the
    draw. The draws, as checked."""
    rng = np.random.default_rng([seed, 29])
    done = []
    for i in range(draws):
        options = playable_options(game, players, rng, seed + i * games)
        try:
            check_playouts(game, players, games, seed + i * games, options)
        except HarnessFailure as e:
            raise HarnessFailure(e.property, f"under options {options}: {e}") from None
        done.append(options)
    return done


def check_playouts_from(game: Game, starts: Sequence[State], seed: int = 0) -> Playouts:
    """Check a game's compiled random player against its rules interface, from any states.

    Plays `game.random_playouts(starts, seed)`, then replays every decision through
    `State.apply` on a copy of its start: each must be legal, by a player the state has to move,
    chosen among as many actions as `legal_actions` lists (so that the kernel's choice is uniform
    over the same set; a continuous space is logged with 0 options, and then the rules' space
    must be continuous too), and the end must come exactly where the kernel stopped, with the
    kernel's scores and winners. The starts must be left unchanged, and the same seed must give
    the same games.
    """
    copies = [s.clone() for s in starts]
    before = [s.to_json() for s in starts]
    playouts = game.random_playouts(starts, seed=seed)
    if [s.to_json() for s in starts] != before:
        raise HarnessFailure("playout-replay", "random_playouts changed the states it was given")
    if len(playouts) != len(starts):
        raise HarnessFailure("playout-replay", f"{len(playouts)} playouts for {len(starts)} states")
    for i, state in enumerate(copies):
        _replay_playout(playouts, i, state.clone(), seed + i)
    again = game.random_playouts(copies, seed=seed)
    if not (np.array_equal(again.log, playouts.log) and np.array_equal(again.offsets, playouts.offsets)):
        raise HarnessFailure("replay", "the same seed gave different playouts", seed)
    return playouts


def _replay_playout(playouts: Playouts, i: int, state: State, seed: int) -> None:
    options = playouts.log[playouts.offsets[i]:playouts.offsets[i + 1], 2]
    for step, (player, action) in enumerate(playouts.actions(i)):
        if player not in state.to_move():
            raise HarnessFailure("playout-replay", f"the kernel moved player {player}; "
                                 f"to move: {state.to_move()}", seed, step)
        legal = state.legal_actions(player)
        if legal.finite != (options[step] > 0):
            raise HarnessFailure("playout-replay", f"the kernel chose among {options[step]} "
                                 "actions (0: a continuous space), the rules offer a "
                                 f"{'finite' if legal.finite else 'continuous'} space",
                                 seed, step)
        if isinstance(legal, FiniteActionSpace) and len(legal) != options[step]:
            raise HarnessFailure("playout-replay", f"the kernel chose among {options[step]} "
                                 f"actions, the rules list {len(legal)}", seed, step)
        try:
            state.apply(action, player)
        except IllegalAction as err:
            raise HarnessFailure("playout-replay", f"the kernel chose {action}: {err}", seed, step)
    if not state.is_over():
        raise HarnessFailure("playout-replay", f"the kernel stopped after {playouts.decisions[i]} "
                             f"decisions, but players {state.to_move()} are still to move", seed)
    scores = np.asarray(state.scores(), dtype=float)
    if not np.allclose(scores, playouts.scores[i]):
        raise HarnessFailure("playout-replay", f"kernel scores {playouts.scores[i].tolist()} != "
                             f"rules scores {scores.tolist()}", seed)
    winners = sorted(np.flatnonzero(playouts.winners[i]).tolist())
    if winners != sorted(state.winners()):
        raise HarnessFailure("playout-replay", f"kernel winners {winners} != rules winners "
                             f"{sorted(state.winners())}", seed)


def playout_length_gap(game: Game, players: int, games: int = 200, seed: int = 0) -> float:
    """How many standard errors apart the mean numbers of decisions are in `games` compiled
    random playouts and in `games` random games through the interface, from the setups of the
    same seeds. The interface's games are the random bot's (`random_playout` taking the one
    action `legal_actions(player).sample(rng, 1)` offers, which for a continuous space may
    follow another law than the first of a larger sample). One law of play gives a gap below 3
    almost always; a kernel that chooses among other actions (more, fewer, or with other
    weights) shows a larger one."""
    seeds = range(seed, seed + games)
    starts = [game.new_state(players=players, seed=s) for s in seeds]
    compiled = game.random_playouts(starts, seed=seed).decisions.astype(float)
    interface = np.array([len(random_playout(game, players, s, sample_k=1, start=start).history)
                          for s, start in zip(seeds, starts)], float)
    error = math.sqrt(compiled.var(ddof=1) / games + interface.var(ddof=1) / games)
    return abs(compiled.mean() - interface.mean()) / error if error else 0.0


# -- the interface RL libraries use (docs/ecosystem.md) -----------------------------------------
ENCODING_PROPERTIES = ("ids-round-trip", "mask-is-legal", "tensor-hides", "length-bound",
                       "returns", "undo")


def check_encoding(game: Game, players: int, games: int = 2, seed: int = 0, every: int = 7,
                   unlisted_k: int = 32) -> int:
    """Check a game's action ids, masks, observation tensors, returns, length bound and undo
    over `games` random games from seeds `seed`, ...; the costlier checks on every `every`-th
    state. Returns the number of states checked; a broken property raises `HarnessFailure`.

    - ids-round-trip: each id names an action whose id it is and whose text reads back.
    - mask-is-legal: the mask's ids are the legal actions (an exhaustive encoding), or, for a
      discretisation, exactly those of its actions that `check` accepts (`unlisted_k` of the
      others sampled).
    - tensor-hides: the tensor has the declared shape, and every determinization for the
      player gives the same tensor.
    - length-bound: no game takes more decisions than `max_game_length`.
    - returns: 0 for all before the end, the win shares at the end.
    - undo: applying an action and undoing it gives the same JSON.
    """
    from geomsim.rules import win_shares

    encoding = game.encoding(players)
    _check_ids(game, players, encoding)
    checked = 0
    for game_seed in range(seed, seed + games):
        moves, probe = _rngs(game_seed)
        state, step = game.new_state(players=players, seed=game_seed), 0
        while not state.is_over():
            fail = _failer(game_seed, step)
            if step % every == 0:
                for p in range(players):
                    _check_mask(state, p, encoding, probe, unlisted_k, fail)
                    _check_tensor(state, p, encoding, probe, fail)
                _check_undo(state, probe, fail)
                if state.returns() != [0.0] * players:
                    fail("returns", f"returns {state.returns()} before the end")
                checked += 1
            player, actions = _choose(state, moves, 1)
            state.apply(actions[0], player)
            step += 1
            if step > encoding.max_game_length:
                fail("length-bound", f"more than max_game_length = {encoding.max_game_length} "
                                     "decisions")
        if state.returns() != win_shares(players, state.winners()):
            _failer(game_seed, step)("returns", f"returns {state.returns()} at the end, winners "
                                                f"{state.winners()}")
    return checked


def _check_ids(game: Game, players: int, encoding: Encoding) -> None:
    for i in range(encoding.num_distinct_actions):
        action = encoding.action_from_id(i)
        if encoding.action_id(action) != i or game.parse_action(str(action)) != action:
            raise HarnessFailure("ids-round-trip", f"id {i} names {action}, whose id is "
                                 f"{encoding.action_id(action)} or whose text reads otherwise")


def _check_mask(state: State, player: Player, encoding: Encoding, rng: np.random.Generator,
                unlisted_k: int, fail: Fail) -> None:
    ids = state.legal_action_ids(player)
    if ids != sorted(set(ids)):
        fail("mask-is-legal", f"legal ids {ids} are not ascending and distinct")
    space = state.legal_actions(player)
    if encoding.exhaustive and isinstance(space, FiniteActionSpace):
        listed = sorted(encoding.action_id(a) for a in space)
        if ids != listed:
            fail("mask-is-legal", f"player {player}: mask ids {ids} but legal actions {listed}")
        return
    others = sorted(set(range(encoding.num_distinct_actions)) - set(ids))
    for i in ids + _sample(others, rng, unlisted_k):
        if state.check(encoding.action_from_id(i), player).ok != (i in ids):
            fail("mask-is-legal", f"player {player}: id {i} ({encoding.action_from_id(i)}) is "
                                  f"{'' if i in ids else 'not '}in the mask, but check says "
                                  f"{state.check(encoding.action_from_id(i), player)}")


def _check_tensor(state: State, player: Player, encoding: Encoding, rng: np.random.Generator,
                  fail: Fail) -> None:
    tensor = state.observation_tensor(player)
    if tensor.shape != tuple(encoding.observation_shape) or tensor.dtype != np.float32:
        fail("tensor-hides", f"tensor {tensor.dtype} {tensor.shape}, declared float32 "
                             f"{encoding.observation_shape}")
    if not np.array_equal(state.determinize(player, rng).observation_tensor(player), tensor):
        fail("tensor-hides", f"player {player}'s tensor differs in a determinization for them: "
                             "it shows hidden information")


def _check_undo(state: State, rng: np.random.Generator, fail: Fail) -> None:
    before = state.to_json()
    other = state.clone()
    player, actions = _choose(other, rng, 1)
    other.apply(actions[0], player)
    other.undo()
    if other.to_json() != before:
        fail("undo", f"undo of {actions[0]} by player {player} does not restore the state")


# -- setups: every setup a game accepts reads back ----------------------------------------------
SETUP_PROPERTIES = ("setup-refused-clearly", "setup-round-trip")

# A number far beyond any count or size in a box, still a JSON integer.
HUGE = 10**18
_DESCEND = 0.75  # the chance of going one level deeper when picking the place to change


def setup_mutants(setup: JSON, seed: int = 0, count: int = 80) -> list[tuple[str, JSON]]:
    """`count` copies of `setup`, each changed at one place drawn with `seed`: a number +-1,
    -1, 0 or huge; a list cut, emptied, reversed or extended with a copy of an item; a key
    dropped or added; a value of another type. Each comes with what was changed
    (``boxed_totems[1]: -1``). The place is found by going down from the top at random, so
    short top-level fields are changed as often as long lists of coordinates."""
    rng = np.random.default_rng(seed)
    mutants = []
    for _ in range(count):
        mutant = copy.deepcopy(setup)
        parent: Any = None
        key: Any = None
        path, value = "", mutant
        while isinstance(value, (dict, list)) and value and (parent is None or rng.random() < _DESCEND):
            keys = list(value) if isinstance(value, dict) else list(range(len(value)))
            parent, key = value, keys[int(rng.integers(len(keys)))]
            path = join(path, f"[{key}]" if isinstance(key, int) else str(key))
            value = value[key]
        options = [(name, changed) for name, change in _changes(value)
                   if not _same(changed := change(value), value)]
        name, changed = options[int(rng.integers(len(options)))]
        if parent is None:
            mutant = changed
        else:
            parent[key] = changed
        mutants.append((f"{path or 'setup'}: {name}", mutant))
    return mutants


def _changes(value: Any) -> list[tuple[str, Callable[[Any], Any]]]:
    """The changes `setup_mutants` may make to `value`, by name."""
    found: list[tuple[str, Callable[[Any], Any]]] = [
        ("null", lambda v: None), ("a string", lambda v: "x"), ("a list", lambda v: [v])]
    if isinstance(value, bool):
        found += [("negated", lambda v: not v), ("0", lambda v: 0)]
    elif isinstance(value, int):
        found += [("+1", lambda v: v + 1), ("-1", lambda v: v - 1), ("set to -1", lambda v: -1),
                  ("set to 0", lambda v: 0), ("huge", lambda v: HUGE), ("negated", lambda v: -v)]
    elif isinstance(value, float):
        found += [("+1", lambda v: v + 1), ("-1", lambda v: v - 1), ("negated", lambda v: -v),
                  ("huge", lambda v: 1e300), ("set to 0", lambda v: 0.0), ("halved", lambda v: v / 2)]
    elif isinstance(value, str):
        found += [("emptied", lambda v: ""), ("extended", lambda v: v + "x"), ("long", lambda v: v * 10_000)]
    elif isinstance(value, list):
        found += [("last item dropped", lambda v: v[:-1]), ("first item dropped", lambda v: v[1:]),
                  ("emptied", lambda v: []), ("reversed", lambda v: v[::-1]),
                  ("extended by a copy of its last item", lambda v: v + copy.deepcopy(v[-1:])),
                  ("extended by a copy of its first item", lambda v: v + copy.deepcopy(v[:1]))]
    elif isinstance(value, dict):
        keys = sorted(value, key=str)
        found += [(f"key {short(k, 30)} dropped", _dropping(k)) for k in keys[:8]]
        found += [("key 'extra' added", lambda v: {**v, "extra": 1})]
    return found


def _dropping(key: Any) -> Callable[[dict[Any, Any]], dict[Any, Any]]:
    """A change that drops `key` from a mapping."""
    return lambda v: {k: x for k, x in v.items() if k != key}


def _same(a: Any, b: Any) -> bool:
    """Equal and of one type (``0`` is not ``False``): a change that changes nothing is no mutant."""
    return type(a) is type(b) and a == b


@dataclass
class SetupReport:
    """What a run of `check_setup_mutants` found: setups refused, setups accepted."""

    refused: int = 0
    accepted: int = 0


def check_setup_mutants(game: Game, players: int, setup: JSON | None = None, seed: int = 0,
                        count: int = 80) -> SetupReport:
    """`setup` (by default `game.make_setup(players, seed)`) and `count` of its mutants
    (`setup_mutants`): `new_state(setup=...)` refuses each with a `DataError` naming a field
    (setup-refused-clearly), or its state's JSON reads back as an equal state that writes the
    same JSON (setup-round-trip): what `geomsim run` writes of a state it accepted, it reads."""
    setup = game.make_setup(players, seed) if setup is None else setup
    report = SetupReport()
    for what, mutant in [("the setup unchanged", copy.deepcopy(setup)),
                         *setup_mutants(setup, seed, count)]:
        try:
            state = game.new_state(players=players, setup=mutant)
        except DataError as e:
            if not e.path:
                raise HarnessFailure("setup-refused-clearly", f"{what}: new_state refused it "
                                     f"without naming a field: {e}", seed) from None
            report.refused += 1
            continue
        except Exception as e:  # any other refusal is what this property is about
            raise HarnessFailure("setup-refused-clearly", f"{what}: new_state raised "
                                 f"{type(e).__name__} ({short(str(e), 120)}), not a DataError "
                                 "naming the field", seed) from None
        _check_setup_state(game, state, what, seed)
        report.accepted += 1
    return report


def _check_setup_state(game: Game, state: State, what: str, seed: int) -> None:
    text = state.to_json()
    try:
        restored = game.state_from_json(text)
    except DataError as e:
        raise HarnessFailure("setup-round-trip", f"{what}: new_state accepted it, but its "
                             f"state's JSON does not read back: {e}", seed) from None
    if restored != state or restored.to_json() != text:
        raise HarnessFailure("setup-round-trip", f"{what}: new_state accepted it, but its "
                             "state's JSON reads back as another state", seed)


# -- actions: the text form and the JSON accept the same actions --------------------------------
ACTION_FORM_PROPERTIES = ("action-forms-agree",)


def check_action_json(game: Game, obj: Any) -> Action | None:
    """`obj` read by `game.action_from_json`: refused with a `DataError`, or read as an action
    whose text form parses back to it and whose JSON (through a JSON text) reads back to it.
    The action read, or None when refused."""
    try:
        action = game.action_from_json(obj)
    except DataError:
        return None
    _check_action_forms(game, action, f"the JSON {short(obj, 80)}")
    return action


def check_action_text(game: Game, text: str) -> Action | None:
    """`text` read by `game.parse_action`: refused with a `ValueError`, or read as an action
    whose JSON reads back to it and whose own text parses back to it. The action read, or None
    when refused."""
    try:
        action = game.parse_action(text)
    except ValueError:
        return None
    _check_action_forms(game, action, f"the text {short(text, 80)}")
    return action


def _check_action_forms(game: Game, action: Action, read: str) -> None:
    """The text and the JSON of `action` (read from `read`) read back as it."""
    shown = short(action, 80)
    try:
        again = game.parse_action(str(action))
    except ValueError as e:
        raise HarnessFailure("action-forms-agree", f"{read} reads as {shown}, whose text "
                             f"{short(str(action), 80)} does not parse: {e}") from None
    if again != action:
        raise HarnessFailure("action-forms-agree", f"{read} reads as {shown}, whose text "
                             f"parses as {short(again, 80)}")
    try:
        data = json.loads(json.dumps(action.to_json(), allow_nan=False))
        back = game.action_from_json(data)
    except (ValueError, TypeError) as e:
        raise HarnessFailure("action-forms-agree", f"{read} reads as {shown}, whose JSON "
                             f"does not read back: {e}") from None
    if back != action:
        raise HarnessFailure("action-forms-agree", f"{read} reads as {shown}, whose JSON "
                             f"reads back as {short(back, 80)}")
