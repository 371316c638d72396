"""What Cibola loads reads back (issue 25, item 4): every setup `new_state` accepts makes a state
whose JSON `state_from_json` reads as an equal state; every other setup is a `DataError`
naming the field."""

from __future__ import annotations

import pytest

from games.cibola import GAME, make_setup
from games.cibola.rules import NOTATION
from geomsim.reading import DataError
from geomsim.testing import check_setup_mutants
from tests.actionforms import action_form_tests


def _setup(**changes):
    return {**make_setup(4, 3), **changes}


@pytest.mark.parametrize("field, change", [
    ("boxed_totems[1]", lambda s: {"boxed_totems": [s["boxed_totems"][0], -1, *s["boxed_totems"][2:]]}),
    ("boxed_totems", lambda s: {"boxed_totems": s["boxed_totems"] + s["boxed_totems"][:1]}),
    ("boxed_totems", lambda s: {"boxed_totems": s["boxed_totems"][1:]}),
    ("boxed_totems", lambda s: {"boxed_totems": s["boxed_totems"] + s["totems"][:1]}),
    ("boxed_totems", lambda s: {"boxed_totems": [t + 1 for t in s["boxed_totems"]]}),
    ("deck[0]", lambda s: {"deck": [10**9, *s["deck"][1:]]}),
    ("camp", lambda s: {"camp": None}),
    ("torch", lambda s: {"torch": -1}),
])
def test_a_setup_whose_state_would_not_read_back_is_refused(field, change):
    setup = _setup()
    with pytest.raises(DataError) as refused:
        GAME.new_state(4, setup={**setup, **change(setup)})
    assert refused.value.path == field


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_setup_accepted_reads_back(players):
    report = check_setup_mutants(GAME, players, seed=players, count=400)
    assert report.accepted and report.refused  # both sides of the property were exercised


def test_components_whose_ids_a_state_cannot_hold_are_refused():
    from games.cibola.components import default_data

    cards = [dict(c) for c in default_data()["cards"]]
    cards[0]["id"] = 10**6
    with pytest.raises(DataError, match=r"components\.cards\[0\]\.id"):
        GAME.new_state(2, seed=1, setup={"components": {"cards": cards}})


# -- actions: the text form and the JSON accept the same actions ------------------------------
WORDS = ["A", "a", "E", "sundial", "skull", "down", "up", "AB"]

(test_every_action_json_read_has_a_text_that_reads_back,
 test_every_action_text_read_has_a_json_that_reads_back) = action_form_tests(GAME, NOTATION, WORDS)


@pytest.mark.parametrize("slot", ["A" * 100_000, "AB", "a", "", "1"])
def test_a_slot_the_text_refuses_is_refused_in_json(slot):
    with pytest.raises(DataError, match="slot"):
        GAME.action_from_json({"kind": "take", "slot": slot})
