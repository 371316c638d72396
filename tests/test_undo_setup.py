"""A state keeps its own copy of the setup it was made from: changing the caller's setup dict
afterwards changes neither the game nor what `undo` rebuilds (issue 25: an Aztekz straight card
came back as crossroads 47)."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

import geomsim

PLAYERS = {"anasazi": 2, "cibola": 3, "aztekz": 2}


def scramble(data: Any) -> None:
    """Change JSON data in place, everywhere: lists reversed, numbers and texts altered."""
    items = data.items() if isinstance(data, dict) else enumerate(data)
    for key, value in list(items):
        if isinstance(value, (dict, list)):
            scramble(value)
        elif isinstance(value, bool):
            data[key] = not value
        elif isinstance(value, (int, float)):
            data[key] = value + 1
        elif isinstance(value, str):
            data[key] = value + "x"
    if isinstance(data, list):
        data.reverse()


@pytest.mark.parametrize("seed", [None, 5])
@pytest.mark.parametrize("game_name", sorted(PLAYERS))
def test_changing_the_setup_dict_after_new_state_changes_nothing(game_name, seed):
    game, players = geomsim.load_game(game_name), PLAYERS[game_name]
    setup = game.make_setup(players, 5)
    state = game.new_state(players, seed=seed, setup=setup)
    fresh = game.new_state(players, seed=seed, setup=copy.deepcopy(setup))
    scramble(setup)
    assert setup != game.make_setup(players, 5)
    rng = np.random.default_rng(0)
    for _ in range(6):
        player = fresh.to_move()[0]
        action = fresh.legal_actions(player).sample(rng, 1)[0]
        fresh.apply(action, player)
        state.apply(action, player)
        assert state.to_json() == fresh.to_json()
    while fresh.history:
        assert state.undo() == fresh.undo()
        assert state.to_json() == fresh.to_json()
