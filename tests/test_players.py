"""Every game answers an unknown or wrong-typed player alike, in every method that takes one
(issue 25, item 4): the one-line `ValueError` that `check` gives, naming the player and the
players there are; never a raw IndexError or TypeError, never another player's view."""

from __future__ import annotations

import numpy as np
import pytest

import geomsim

GAMES = ("anasazi", "cibola", "aztekz")
BAD_PLAYERS = [2, 4, -1, "0", 1.0, True, None, [0]]
CALLS = {
    "observe": lambda s, p: s.observe(p),
    "determinize": lambda s, p: s.determinize(p, np.random.default_rng(0)),
    "player_views": lambda s, p: s.player_views(p),
    "evaluate": lambda s, p: s.evaluate(p),
}
# These take None for "the one player to move" (a state with one to move is used below).
CALLS_WITH_DEFAULT = {
    "legal_actions": lambda s, p: s.legal_actions(p),
    "check": lambda s, p: s.check(s.legal_actions().sample(np.random.default_rng(0))[0], p),
    "apply": lambda s, p: s.apply(s.legal_actions().sample(np.random.default_rng(0))[0], p),
    "legal_action_ids": lambda s, p: s.legal_action_ids(p),
    "observation_tensor": lambda s, p: s.observation_tensor(p),
}


def _state(name: str):
    """A 2-player state with exactly one player to move."""
    state = geomsim.load_game(name).new_state(2, seed=3)
    rng = np.random.default_rng(0)
    while len(state.to_move()) != 1:
        player = state.to_move()[0]
        state.apply(state.legal_actions(player).sample(rng)[0], player)
    return state


@pytest.mark.parametrize("player", BAD_PLAYERS, ids=repr)
@pytest.mark.parametrize("method", [*CALLS, *CALLS_WITH_DEFAULT])
@pytest.mark.parametrize("name", GAMES)
def test_an_unknown_player_gets_the_same_one_line_everywhere(name, method, player):
    if player is None and method in CALLS_WITH_DEFAULT:
        pytest.skip("None names the one player to move")
    state = _state(name)
    before = state.to_json()
    with pytest.raises(ValueError) as refused:
        {**CALLS, **CALLS_WITH_DEFAULT}[method](state, player)
    assert type(refused.value) is ValueError
    assert str(refused.value) == f"unknown player {player!r}: players are 0 to 1"
    assert state.to_json() == before


@pytest.mark.parametrize("name", GAMES)
def test_a_numpy_integer_is_a_player(name):
    state = _state(name)
    for method in CALLS:
        CALLS[method](state, np.int64(1))  # no error
    assert state.observe(np.int64(1)) == state.observe(1)
