"""What Aztekz loads reads back (issue 25, item 4): every setup `new_state` accepts makes a state
whose JSON `state_from_json` reads as an equal state; every other setup is a `DataError`
naming the field."""

from __future__ import annotations

import pytest

from games.aztekz import GAME
from games.aztekz.rules import NOTATION
from geomsim.reading import DataError
from geomsim.testing import check_setup_mutants
from tests.actionforms import action_form_tests


@pytest.mark.parametrize("change, field", [
    ({"deck": [3, 3]}, "deck[1]"),
    ({"deck": [48]}, "deck[0]"),
    ({"souls": ["sun"] * 9}, "souls[8]"),
    ({"souls": [""]}, "souls[0]"),
    ({"first": 2}, "first"),
    ({"players": 3}, "players"),
    ({"deck": None}, "deck"),
])
def test_a_broken_setup_is_a_data_error_naming_the_field(change, field):
    with pytest.raises(DataError) as refused:
        GAME.new_state(2, seed=1, setup={**GAME.make_setup(2, 1), **change})
    assert refused.value.path == field


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_setup_accepted_reads_back(players):
    report = check_setup_mutants(GAME, players, seed=players, count=400)
    assert report.accepted and report.refused


# -- actions: the text form and the JSON accept the same actions ------------------------------
WORDS = ["chief", "slave1", "slave2", "N", "E", "Q", "sun", "skull", "moon"]

(test_every_action_json_read_has_a_text_that_reads_back,
 test_every_action_text_read_has_a_json_that_reads_back) = action_form_tests(GAME, NOTATION, WORDS)


@pytest.mark.parametrize("rotation", [-1, 4, 10**9])
def test_a_rotation_the_text_refuses_is_refused_in_json(rotation):
    with pytest.raises(DataError, match="rotation"):
        GAME.action_from_json({"kind": "place", "x": 0, "y": 0, "rotation": rotation})
