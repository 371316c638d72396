"""Cibola, Aztekz and Anasazi as OpenSpiel Python games, registered with pyspiel on import:
``pyspiel.load_game("python_geomsim_cibola", {"players": 4})`` (also ``python_geomsim_aztekz``,
``python_geomsim_anasazi``).

- Chance: one chance node at the start deals the game: outcome k (one of `DEALS`, equally
  likely) is the setup that ``game.new_state(players, seed=k)`` draws (deck order, totems,
  torch keeper; Aztekz: deck, souls, first player). The shuffles of the deck are in that setup.
- Decisions: sequential. Cibola's simultaneous sealed sends are taken one player at a time,
  lowest player first; no observation reveals a sealed number, so it is a game of imperfect
  information like any other.
- Actions: the game's fixed ids (`geomsim.encoding`); ``num_distinct_actions`` is
  ``game.num_distinct_actions(players)``, ``max_game_length`` the game's bound. A game whose
  ids do not cover every legal action (Anasazi's discretisation of a continuous table) has one
  more id, `PICKED`: "one legal action the rules pick", legal only where no listed id is. The
  action it stands for is drawn from the legal actions by a generator seeded with the state
  itself (`picked_action`), so a history of ids replays to the same game.
- Observation: the string is ``observe(player)`` as sorted JSON, the tensor
  `State.observation_tensor`. Information state: the observation, the move number and the
  player's own past actions (string); the tensor is the observation tensor followed by how often
  the player took each action id.
- Returns: `State.returns()` (1/k to each of k winners, so the game is constant-sum 1), at the end.
- `resample_from_infostate` (used by OpenSpiel's ISMCTS) draws a state consistent with what the
  player knows with `State.determinize`; its pyspiel history stays that of the true state (for
  search, not for replaying).
"""

from __future__ import annotations

import json
import zlib
from typing import Any

import numpy as np
import pyspiel

from geomsim.registry import load_game
from geomsim.rules import Game, State

DEALS = 4096  # outcomes of the chance node that deals the game (seeds 0 .. DEALS - 1)


def short_name(game: str) -> str:
    """The name pyspiel knows `game` by."""
    return f"python_geomsim_{game}"


def _game_type(game: Game) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=short_name(game.name), long_name=f"geomsim {game.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players, min_num_players=game.min_players,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification={"players": game.min_players})


PICKED = "one legal action the rules pick"


def picked_id(game: Game, players: int) -> int | None:
    """The id of `PICKED` for `game` (its last id), or None where the fixed ids are exhaustive."""
    encoding = game.encoding(players)
    return None if encoding.exhaustive else int(encoding.num_distinct_actions)


def picked_action(state: State, player: int) -> Any:
    """The action `PICKED` stands for in `state`: one of `player`'s legal actions, drawn by a
    generator seeded with the state's JSON, so the same state always gives the same action;
    `ValueError` where the player has none."""
    seed = zlib.crc32(state.to_json().encode("utf-8"))
    found = state.legal_actions(player).sample(np.random.default_rng([seed, player]), 1)
    if not found:
        raise ValueError(f"player {player} has no legal action")
    return found[0]


class GeomsimGame(pyspiel.Game):
    """A geomsim game for OpenSpiel (see the module docstring)."""

    geomsim_game: Game

    def __init__(self, params: dict[str, Any] | None = None):
        game = self.geomsim_game
        players = int((params or {}).get("players", game.min_players))
        game.check_players(players)
        encoding = game.encoding(players)
        extra = picked_id(game, players) is not None
        info = pyspiel.GameInfo(
            num_distinct_actions=encoding.num_distinct_actions + extra, max_chance_outcomes=DEALS,
            num_players=players, min_utility=0.0, max_utility=1.0, utility_sum=1.0,
            max_game_length=encoding.max_game_length)
        super().__init__(_game_type(game), info, {"players": players})

    # Properties, not attributes: pyspiel remakes games (pickling, loading) without __init__.
    @property
    def players(self) -> int:
        """The number of players."""
        return int(self.num_players())

    @property
    def encoding(self) -> Any:
        """The geomsim game's action ids and tensors for this many players."""
        return self.geomsim_game.encoding(self.num_players())

    @property
    def picked(self) -> int | None:
        """The id of `PICKED`, or None where the game's ids are exhaustive."""
        return picked_id(self.geomsim_game, self.num_players())

    def new_initial_state(self) -> GeomsimState:
        """The state before the deal (a chance node)."""
        return GeomsimState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        """The observer of observations, or of information states for perfect recall."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        recall = bool(iig_obs_type and iig_obs_type.perfect_recall)
        return Observer(self.encoding, recall)


class _Held:
    """The geomsim state inside a pyspiel state, each player's past action ids and the legal
    ids of the state by player (OpenSpiel asks several times a state; Anasazi's take about
    50 ms); deep copies are `State.clone`s and list copies (pyspiel clones states by deep copy);
    pickles hold the state as its JSON (`State.__reduce__`)."""

    def __init__(self, state: State | None, own: list[list[int]],
                 legal: dict[int, list[int]] | None = None):
        self.state, self.own, self.legal = state, own, {} if legal is None else legal

    def __deepcopy__(self, memo: dict[int, Any]) -> _Held:
        return _Held(None if self.state is None else self.state.clone(), [list(o) for o in self.own],
                     {p: list(ids) for p, ids in self.legal.items()})


class GeomsimState(pyspiel.State):
    """A pyspiel state over a geomsim state (None until the deal)."""

    def __init__(self, game: GeomsimGame):
        super().__init__(game)
        self._game = game
        self._held = _Held(None, [[] for _ in range(game.players)])

    @property
    def own_actions(self) -> list[list[int]]:
        """Each player's past action ids."""
        return self._held.own

    @property
    def inner(self) -> State | None:
        """The geomsim state (None before the deal)."""
        return self._held.state

    def current_player(self) -> int:
        inner = self.inner
        if inner is None:
            return int(pyspiel.PlayerId.CHANCE)
        movers = inner.to_move()
        return min(movers) if movers else int(pyspiel.PlayerId.TERMINAL)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(k, 1.0 / DEALS) for k in range(DEALS)]

    @property
    def dealt(self) -> State:
        """The geomsim state; `ValueError` before the deal."""
        if self._held.state is None:
            raise ValueError("the game is not dealt yet (a chance node)")
        return self._held.state

    def _legal_actions(self, player: int) -> list[int]:
        if player not in self._held.legal:
            ids = self.dealt.legal_action_ids(player)
            picked = self._game.picked
            if not ids and picked is not None and player in self.dealt.to_move():
                ids = [picked]  # OpenSpiel wants a legal action wherever a player is to move
            self._held.legal[player] = ids
        return list(self._held.legal[player])

    def _apply_action(self, action: int) -> None:
        if self.inner is None:
            self._held.state = self._game.geomsim_game.new_state(self._game.players, seed=int(action))
            return
        player = self.current_player()
        if action == self._game.picked:
            if self._legal_actions(player) != [action]:
                raise ValueError(f"id {action} ({PICKED}) is not legal: listed ids are")
            chosen = picked_action(self.dealt, player)
        else:
            chosen = self._game.encoding.action_from_id(int(action))
        self.dealt.apply(chosen, player)
        self._held.own[player].append(int(action))
        self._held.legal.clear()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        if action == self._game.picked:
            return PICKED
        return str(self._game.encoding.action_from_id(int(action)))

    def is_terminal(self) -> bool:
        return self.inner is not None and self.inner.is_over()

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._game.players
        return [float(r) for r in self.dealt.returns()]

    def resample_from_infostate(self, player: int, probability_sampler: Any = None) -> GeomsimState:
        """A copy whose hidden parts are drawn anew, consistent with what `player` knows; the
        draw's random numbers come from `probability_sampler` (uniform in [0, 1)) when given."""
        other: GeomsimState = self.clone()
        if self.inner is not None:
            words = ([int(probability_sampler() * 2**32) for _ in range(4)]
                     if probability_sampler is not None else None)
            other._held.state = self.inner.determinize(player, np.random.default_rng(words))
            other._held.legal.clear()
        return other

    def __str__(self) -> str:
        return "(not dealt)" if self.inner is None else str(self.inner)


class Observer:
    """OpenSpiel's PyObserver: `tensor`, `dict`, `set_from`, `string_from`."""

    def __init__(self, encoding: Any, perfect_recall: bool):
        self.encoding, self.perfect_recall = encoding, perfect_recall
        size = encoding.observation_shape[0]
        extra = encoding.num_distinct_actions if perfect_recall else 0
        self.tensor = np.zeros(size + extra, np.float32)
        self.dict = {"observation": self.tensor[:size]}
        if perfect_recall:
            self.dict["own_actions"] = self.tensor[size:]

    def set_from(self, state: GeomsimState, player: int) -> None:
        """Fill `tensor` with what `player` knows of `state`."""
        self.tensor.fill(0)
        if state.inner is None:
            return
        self.dict["observation"][:] = state.inner.observation_tensor(player)
        if self.perfect_recall:
            np.add.at(self.dict["own_actions"], state.own_actions[player], 1.0)

    def string_from(self, state: GeomsimState, player: int) -> str:
        """What `player` knows of `state`, as text."""
        if state.inner is None:
            return "not dealt"
        seen = json.dumps(state.inner.observe(player), sort_keys=True)
        if not self.perfect_recall:
            return seen
        return f"move {state.move_number()}; own actions {state.own_actions[player]}; {seen}"


class CibolaGame(GeomsimGame):
    """Treasures of Cibola for OpenSpiel: ``python_geomsim_cibola``."""

    geomsim_game = load_game("cibola")


class AztekzGame(GeomsimGame):
    """Aztekz for OpenSpiel: ``python_geomsim_aztekz``."""

    geomsim_game = load_game("aztekz")


class AnasaziGame(GeomsimGame):
    """Anasazi for OpenSpiel: ``python_geomsim_anasazi``; its ids are the discretisation of
    docs/ecosystem.md, plus `PICKED`."""

    geomsim_game = load_game("anasazi")


for _cls in (CibolaGame, AztekzGame, AnasaziGame):
    if short_name(_cls.geomsim_game.name) not in pyspiel.registered_names():
        pyspiel.register_game(_game_type(_cls.geomsim_game), _cls)
