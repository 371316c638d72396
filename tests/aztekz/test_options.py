"""Aztekz's options (games.aztekz.rules.OPTIONS): each changes play, as its rule id says; the
compiled player and the encoding honour them; JSON and setups carry them."""

from __future__ import annotations

import json

import pytest

from games.aztekz import GAME
from geomsim.rules import IllegalAction
from geomsim.testing import check_playouts, check_playouts_options
from tests.aztekz.builders import legal_texts, make, play, row, rules_of
from tests.aztekz.test_playout import window_with_every_kind


def test_grid_size_bounds_the_pyramid():
    """aztekz/place/bound, option grid_size."""
    cells = row(5, "NESW")
    assert rules_of(make(cells, [["0,0"] * 3, ["4,0"] * 3], phase="place"), "place 5,0 r0") == (
        "aztekz/place/bound",)
    big = make(cells, [["0,0"] * 3, ["4,0"] * 3], phase="place", options={"grid_size": 6})
    assert rules_of(big, "place 5,0 r0") == () and big.comp.grid_size == 6
    assert big.options["grid_size"] == 6


def test_a_components_override_is_the_option_in_force():
    state = GAME.new_state(2, seed=0, setup={"components": {"grid_size": 4}})
    assert state.options["grid_size"] == 4
    assert GAME.state_from_json(state.to_json()).options == state.options


def test_heroes_per_card_bounds_a_card():
    """aztekz/move/capacity, option heroes_per_card."""
    heroes = [["0,0", "1,0", "0,0"], ["1,0"] * 3]
    assert rules_of(make(row(2), heroes, hero="chief"), "chief E") == ("aztekz/move/capacity",)
    assert rules_of(make(row(2), heroes, hero="chief", options={"heroes_per_card": 5}), "chief E") == ()


def test_slave_steps_bounds_a_slave_move():
    """aztekz/move/slave-three-steps, option slave_steps."""
    state = make(row(6), [["0,0"] * 3, ["5,0"] * 3], options={"slave_steps": 4})
    play(state, "slave1", "slave1 E", "slave1 E", "slave1 E")
    assert rules_of(state, "slave1 E") == ()
    play(state, "slave1 E")
    assert rules_of(state, "slave1 E") == ("aztekz/move/slave-three-steps",)


@pytest.mark.parametrize("curve,points", [("size-1", [4.0, 2.0]), ("size", [6.0, 3.0]),
                                          ("triangular", [7.0, 3.0]), ("square", [10.0, 4.0])])
def test_pile_scoring_curves(curve, points):
    """aztekz/score/piles, option pile_scoring: piles of 2 and 4 souls, and of 3."""
    state = make(row(2), [["0,0"] * 3, ["1,0"] * 3], piles=[[("sun", 2), ("moon", 4)], [("eagle", 3)]],
                 options={"pile_scoring": curve})
    assert state.scores() == points


def test_placement_not_mandatory_lets_a_placeable_card_return():
    """aztekz/place/compulsory, option placement_mandatory."""
    board = make(row(2), [["0,0"] * 3, ["1,0"] * 3], phase="place", soul="moon")
    with pytest.raises(IllegalAction, match="placing is compulsory until 5 x 5 cards show$"):
        play(board, "return")
    free = make(row(2), [["0,0"] * 3, ["1,0"] * 3], phase="place", soul="moon",
                options={"placement_mandatory": False})
    assert "return" in legal_texts(free) and len(legal_texts(free)) > 1
    small = make(row(2), [["0,0"] * 3, ["1,0"] * 3], phase="place", soul="moon", options={"grid_size": 4})
    with pytest.raises(IllegalAction, match=r"until 4 x 4 cards show \(option grid_size=4\)"):
        play(small, "return")


def test_options_round_trip_in_state_json_and_absent_is_official():
    state = GAME.new_state(3, seed=2, options={"pile_scoring": "square", "slave_steps": 2})
    data = json.loads(state.to_json())
    assert data["options"] == {"pile_scoring": "square"} and data["components"]["slave_steps"] == 2
    assert GAME.state_from_json(state.to_json()).to_json() == state.to_json()
    assert GAME.new_state(3, seed=2, setup=GAME.make_setup(3, 2, {"pile_scoring": "square"})
                          ).options["pile_scoring"] == "square"
    del data["options"]
    assert GAME.state_from_json(json.dumps(data)).options["pile_scoring"] == "size-1"


@pytest.mark.parametrize("players", [2, 4])
def test_the_compiled_player_honours_random_option_draws(players):
    draws = check_playouts_options(GAME, players, draws=3, games=2, seed=players)
    assert len({json.dumps(d, sort_keys=True) for d in draws}) > 1


@pytest.mark.parametrize("options", [{"placement_mandatory": False}, {"grid_size": 7},
                                     {"grid_size": 3}, {"slave_steps": 1}, {"heroes_per_card": 3}])
def test_the_compiled_player_honours_each_option(options):
    check_playouts(GAME, 3, games=3, seed=11, options=options)


@pytest.mark.parametrize("curve", ["size", "triangular", "square"])
def test_the_compiled_player_scores_piles_by_the_curve(curve):
    """Piles are rare in random play (a gift or a theft in about one game of 25): a window of
    games that makes some, whose kernel scores must be the rules'."""
    seed = window_with_every_kind(2, 12)
    playouts = check_playouts(GAME, 2, games=12, seed=seed, options={"pile_scoring": curve})
    assert playouts.scores.max() >= 1  # some pile was made


def test_the_encoding_follows_the_grid_size():
    small, big = GAME.new_state(2, seed=0), GAME.new_state(2, seed=0, options={"grid_size": 7})
    assert big.encoding.num_distinct_actions > small.encoding.num_distinct_actions
    assert big.observation_tensor(0).shape == big.encoding.observation_shape != small.encoding.observation_shape
