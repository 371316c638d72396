"""Anasazi's options (games.anasazi.components.OPTIONS): each changes play, as its rule id says,
on the lab table (tests/anasazi/conftest.py); the compiled player honours them; JSON carries them."""

from __future__ import annotations

import json
import math

import pytest

from games.anasazi import GAME
from games.anasazi import legality as lg
from games.anasazi.actions import TakeTreasure, extend
from geomsim.rules import IllegalAction
from geomsim.testing import check_playouts, check_playouts_options

from .conftest import SETUP_CAMPS, in_play, lab_setup, play


def lab_under(options, players=2, first_player=0, camps=None):
    """A lab game under `options` after its setup (the options' setup camps and looks each),
    player `first_player` to move."""
    state = GAME.new_state(players, setup=lab_setup(players, first_player), options=options,
                           check_setup=False)
    camps = {p: list(SETUP_CAMPS[p]) for p in range(players)} | (camps or {})
    while state.phase == "camps":
        x, y = camps[state.current].pop(0)
        play(state, f"camp {x},{y}")
    while state.phase == "looks":
        play(state, f"look {state.legal_actions()[0].sector}")
    return state


def walk(state, expedition, heading, n=1):
    return [e for _ in range(n) for e in play(state, str(extend(state, expedition, heading)))]


def test_markers_is_the_supply_and_its_end():
    """anasazi/5.0/end-markers, option markers (the supply is `Sizes.markers`: one value)."""
    state = lab_under({"markers": 3})
    assert state.sizes.markers == 3 and state.options["markers"] == 3
    walk(state, "E1", 0.0, 2)
    assert not state.is_over()
    walk(state, "E1", 0.0)
    assert state.is_over() and state.ended == "markers"
    official = in_play()
    walk(official, "E1", 0.0, 3)
    assert not official.is_over() and official.markers_left() == 51


def test_marker_length_moves_the_explorer_and_the_cover_rule_names_the_option():
    """anasazi/4.2/cover-explorer, option marker_length: the explorer lies 9 mm from the far end."""
    official, longer = in_play(), lab_under({"marker_length": 90.0})
    walk(official, "E1", 0.0)
    walk(longer, "E1", 0.0)
    x70, x90 = lg.expedition_end(official.board(), "E1")[0], lg.expedition_end(longer.board(), "E1")[0]
    assert math.isclose(x90 - x70, 20.0, abs_tol=1e-6)  # 20 mm longer: the explorer 20 mm on
    short = extend(official, "E1", 180.0)  # back west: covers the explorer of a 70 mm marker only
    with pytest.raises(IllegalAction, match=r"anasazi/4\.2/cover-explorer: .*\(option marker_length=90\)"):
        longer.apply(short)


def test_marker_width_lets_a_marker_cover_further_across():
    """anasazi/4.2/cover-explorer, option marker_width: the start mark 7 mm off the axis lies
    inside a 24 mm marker, not a 16 mm one."""
    wide, official = lab_under({"marker_width": 24.0}), in_play()
    across = extend(wide, "E1", 0.0, across=7.0)
    assert wide.check(across).ok
    assert "anasazi/4.2/cover-explorer" in official.check(across).rules


def test_towers_to_end():
    """anasazi/5.0/end-towers, option towers_to_end: three towers of a colour end the game."""
    for towers, ends in ((3, True), (4, False)):
        state = lab_under({"towers_to_end": towers})
        state.track["white"] = 3
        state._check_end()
        assert bool(state.ended) == ends


def test_objective_multiplier():
    """anasazi/5.1/objective-double, option objective_multiplier."""
    for times in (1, 2, 3):
        state = lab_under({"objective_multiplier": times, "bonus_treasures": False})
        state.hands[0]["red"] = 2  # player 0's objective card is red; a red treasure is worth 5
        state.phase = "over"
        assert state.scores()[0] == 2 * 5 * times


def test_bonus_treasures_off_gives_no_bonus():
    """anasazi/5.1/bonus, option bonus_treasures."""
    for on in (True, False):
        state = lab_under({"bonus_treasures": on})
        walk(state, "E2", 180.0)  # player 0 takes the four yellow treasures; four red towers end it
        assert state.is_over() and state.bonus["yellow"] == (0 if on else None)


def test_base_camps_bounds_the_camps_and_says_so():
    """anasazi/4.1/camps-left, option base_camps."""
    state = lab_under({"base_camps": 2})
    assert state.camps_left(0) == 0
    with pytest.raises(IllegalAction, match=r"camps-left: .*all 2 base camps \(option base_camps=2\)"):
        play(state, "camp 100.0,100.0")
    with pytest.raises(ValueError, match="options.setup_camps: must be at most base_camps"):
        GAME.new_state(2, setup=lab_setup(2), options={"base_camps": 1}, check_setup=False)


def test_setup_camps_and_setup_looks():
    """anasazi/3.0/setup-camps and anasazi/3.0/setup-looks, options setup_camps, setup_looks."""
    state = GAME.new_state(2, setup=lab_setup(2), options={"setup_camps": 1, "setup_looks": 2},
                           check_setup=False)
    play(state, "camp 0.0,200.0", "camp 0.0,-200.0")
    assert state.phase == "looks" and len(state.camps) == 2
    with pytest.raises(IllegalAction, match=r"2 look\(s\) to go\) \(option setup_looks=2\)"):
        play(state, "camp 40.0,200.0")
    play(state, "look F0s", "look F1s")
    assert state.current == 1 and state.step == 1


def test_camp_theft_off_takes_nothing():
    """anasazi/4.2/own-camp-treasure, option camp_theft (as the rules test covers the theft)."""
    for theft in (True, False):
        state = lab_under({"camp_theft": theft}, first_player=1,
                          camps={0: [(-320.0, 12.0), (40.0, 200.0)]})
        walk(state, "E3", 270.0, 2)  # player 1 takes P7
        play(state, str(extend(state, "E1", 0)))  # player 0 covers its own camp
        assert state.covered[1] and state.camps[1].owner == 0
        assert state.pending == (["take"] if theft else [])
        verdict = state.check(TakeTreasure("white", 1))  # without a take open: not a turn's action
        assert verdict.ok == theft and (theft or verdict.rules == ("anasazi/4.0/turn",))


def test_actions_per_turn():
    """anasazi/4.0/turn, option actions_per_turn."""
    state = lab_under({"actions_per_turn": 3})
    assert state.actions_left == 3
    walk(state, "E1", 0.0, 2)
    assert state.current == 0 and state.actions_left == 1
    play(state, "camp 100.0,100.0", "pass")  # the third action, and the look it offers declined
    assert state.current == 1 and state.actions_left == 3


def test_options_round_trip_in_setup_and_state_json():
    state = GAME.new_state(2, seed=5, options={"markers": 44, "towers_to_end": 3})
    data = json.loads(state.to_json())
    assert data["deal"]["options"] == {"towers_to_end": 3} and data["table"]["sizes"]["markers"] == 44
    assert GAME.state_from_json(state.to_json()).to_json() == state.to_json()
    setup = GAME.make_setup(2, 5, {"markers": 44, "towers_to_end": 3})
    assert setup["options"] == {"towers_to_end": 3} and setup["sizes"]["markers"] == 44
    assert GAME.new_state(2, setup=setup).options == state.options
    del data["deal"]["options"]
    assert GAME.state_from_json(json.dumps(data)).options["towers_to_end"] == 4


def test_the_compiled_player_honours_random_option_draws():
    draws = check_playouts_options(GAME, 2, draws=2, games=2, seed=3)
    assert draws[0] != draws[1]


@pytest.mark.parametrize("options", [
    {"towers_to_end": 1, "objective_multiplier": 3},
    {"bonus_treasures": False, "camp_theft": False, "actions_per_turn": 1},
    {"setup_camps": 1, "setup_looks": 1, "base_camps": 3, "marker_length": 80.0},
])
def test_the_compiled_player_honours_each_option(options):
    check_playouts(GAME, 3, games=3, seed=21, options=options)


def test_a_smaller_supply_gives_shorter_games():
    """44 markers against 54, the same setups and kernel seed: games are shorter, by a paired
    interval that excludes no difference."""
    def lengths(markers):
        states = [GAME.new_state(2, seed=s, options={"markers": markers}) for s in range(20)]
        return GAME.random_playouts(states, seed=1).decisions.astype(float)

    diff = lengths(54) - lengths(44)
    low = diff.mean() - 1.96 * diff.std(ddof=1) / math.sqrt(len(diff))
    assert low > 0, (diff.mean(), low)


def test_the_encoding_follows_the_options_sizes_and_bounds():
    base = GAME.new_state(2, seed=0)
    state = GAME.new_state(2, seed=0, options={"markers": 30, "base_camps": 3, "setup_looks": 6,
                                               "actions_per_turn": 4})
    enc, official = state.encoding, base.encoding
    assert enc.max_game_length == official.max_game_length - 24 - 3 * 4 * 2 + 3 * 2
    assert enc.observation_shape != official.observation_shape  # 3 camps a player, not 7
    assert state.observation_tensor(0).shape == enc.observation_shape
    # Four actions left of four: the scale is the option's (two would make it 2.0).
    assert enc.layout.view(state.observation_tensor(0), "actions_left")[0] == 1.0
