"""Every geomsim game as a PettingZoo AEC environment: ``env("cibola", players=4)``.

Agents are ``player_0`` ... ``player_{n-1}``. An observation is
``{"observation": state.observation_tensor(p), "action_mask": int8 mask over the action ids}``;
an action is an id of the game's `Encoding` (``game.action_from_id``). Simultaneous decisions
(Cibola's sealed sends) are taken one agent at a time, lowest player first; each agent's
observation comes from `observe`, so no later sender sees an earlier sender's number.

Rewards are `State.returns()` (1/k to each of k winners), given when the game ends; the raw
points are in ``infos[agent]["scores"]`` then. The games always end (`max_game_length`), so
nothing is truncated. For Anasazi, whose actions are continuous, the ids are its documented
discretisation plus one last id, "a legal action the rules sample", offered (masked in) only when
no listed action is legal. An illegal id, a masked-out one (that last id included), raises
`geomsim.IllegalAction` naming the rule, and the game is unchanged.

PettingZoo's parallel API does not apply: apart from Cibola's sends, one player decides at a
time, and the sends are the only simultaneous decisions (docs/ecosystem.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from geomsim.registry import load_game
from geomsim.rules import (ENGINE_FORM_RULE, ENGINE_TURN_RULE, Action, Game, IllegalAction, Player,
                           State, Verdict, Violation, new_state_under)

__all__ = ["env", "raw_env", "GeomsimEnv"]


def env(game: str, players: int | None = None, render_mode: str | None = None,
        rules: Mapping[str, Any] | None = None) -> AECEnv:
    """The AEC environment of `game` (a name, e.g. ``"cibola"``) for `players` (default: the
    fewest) under the rule options `rules` (`Game.options`), wrapped in PettingZoo's order
    enforcing."""
    return wrappers.OrderEnforcingWrapper(raw_env(game, players, render_mode, rules))


def raw_env(game: str, players: int | None = None, render_mode: str | None = None,
            rules: Mapping[str, Any] | None = None) -> GeomsimEnv:
    """The unwrapped environment."""
    return GeomsimEnv(load_game(game), players, render_mode, rules)


class GeomsimEnv(AECEnv):
    """A geomsim game as a PettingZoo AEC environment (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi", "rgb_array"],
                                "is_parallelizable": False}
    state: State  # the game now (set by `reset`)

    def __init__(self, game: Game, players: int | None = None, render_mode: str | None = None,
                 rules: Mapping[str, Any] | None = None):
        super().__init__()
        players = game.min_players if players is None else players
        game.check_players(players)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, "
                             f"not {render_mode!r}")
        self.game, self.players, self.render_mode = game, players, render_mode
        self.metadata = {**self.metadata, "name": f"geomsim_{game.name}_v0"}
        # Rule options (named `rules`: `reset` takes PettingZoo's own `options`); the spaces
        # are those of a game under them (their sizes: ids, tensor), checked here in one line.
        self.rules = dict(rules or {})
        encoding = (new_state_under(game, players, 0, None, self.rules).encoding if self.rules
                    else game.encoding(players))
        # A continuous game's discretisation may list no legal action: one more id lets the
        # rules sample one.
        self.sampled_id = None if encoding.exhaustive else encoding.num_distinct_actions
        n = encoding.num_distinct_actions + (self.sampled_id is not None)
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self.agent_ids = {a: p for p, a in enumerate(self.possible_agents)}
        shape = encoding.observation_shape
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, shape, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
        }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._seeds = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- the game -------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; `seed` fixes it and the games after it."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        self.state = new_state_under(self.game, self.players, int(self._seeds.integers(2**31)),
                                     None, self.rules)
        self._sampler = np.random.default_rng(int(self._seeds.integers(2**31)))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self._selected()

    def _selected(self) -> str:
        movers = self.state.to_move()
        return self.possible_agents[min(movers)] if movers else self.agent_selection

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The tensor and the action mask of `agent` (the mask is all zero when not to move)."""
        player = self.agent_ids[agent]
        return {"observation": self.state.observation_tensor(player),
                "action_mask": self._mask(player)}

    def _mask(self, player: Player) -> np.ndarray:
        mask = np.zeros(self.action_spaces[self.possible_agents[player]].n, dtype=np.int8)
        ids = self.state.legal_action_ids(player)
        mask[ids] = 1
        if self.sampled_id is not None and not ids and player in self.state.to_move():
            mask[self.sampled_id] = 1
        return mask

    def step(self, action: int | None) -> None:
        """Apply the action id of the selected agent."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        player = self.agent_ids[agent]
        self.state.apply(self._action(action, player), player)
        self._cumulative_rewards[agent] = 0.0
        if self.state.is_over():
            returns, scores = self.state.returns(), self.state.scores()
            for a, p in self.agent_ids.items():
                self.rewards[a] = float(returns[p])
                self.terminations[a] = True
                self.infos[a] = {"scores": list(scores), "winners": list(self.state.winners())}
        self.agent_selection = self._selected()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _action(self, action: int | None, player: Player) -> Action:
        if action is None:
            raise ValueError(f"player {player} is to move: give an action id, not None")
        if self.sampled_id is not None and action == self.sampled_id:
            listed = self.state.legal_action_ids(player)
            if listed:  # masked out: the rules sample only when no listed id is legal
                raise IllegalAction(Verdict((Violation(
                    ENGINE_FORM_RULE, f"id {action} (a legal action the rules sample) is masked "
                    f"out: {len(listed)} listed id(s) are legal for player {player}, "
                    f"such as {listed[0]}", {"legal_ids": listed[:10]}),)))
            found = self.state.legal_actions(player).sample(self._sampler, 1)
            if not found:
                raise IllegalAction(Verdict((Violation(
                    ENGINE_TURN_RULE, f"player {player} has no legal action to sample"),)))
            return found[0]
        return self.state.encoding.action_from_id(int(action))

    # -- rendering ------------------------------------------------------------------------------
    def render(self) -> Any:
        """``ansi``: the text board; ``rgb_array``: the drawing; ``human``: the text printed."""
        if self.render_mode is None or not hasattr(self, "state"):
            return None
        if self.render_mode == "ansi":
            return str(self.state)
        if self.render_mode == "human":
            print(self.state)
            return None
        return _rgb(self.state)

    def close(self) -> None:
        """Nothing to release (figures are closed once rendered)."""


def _rgb(state: State) -> np.ndarray:
    """The drawing of `state` as an (h, w, 3) uint8 array."""
    ax = state.draw()
    fig = ax.figure
    fig.set_dpi(50)  # small and quick: an observation picture, not a diagram
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[:, :, :3].copy()
