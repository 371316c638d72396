"""Action text forms: each kind parses back to itself; bad text names what is wrong."""

from __future__ import annotations

import pytest

from games.cibola import GAME
from games.cibola.rules import ChooseTotem, CopyTotem, MoveRock, PlaceRock, Send, Take


@pytest.mark.parametrize("action", [
    Send(0), Send(12), Take("A"), Take("D"), PlaceRock("sundial", 2), PlaceRock("skull", 1),
    ChooseTotem(4), MoveRock("snake", 1, "down"), MoveRock("shield", 3, "up"), CopyTotem(3),
])
def test_action_text_and_json_round_trip(action):
    """str(action) parses back to the action, and its JSON reads back through the game."""
    assert GAME.parse_action(str(action)) == action
    assert GAME.action_from_json(action.to_json()) == action


def test_action_text_is_forgiving_about_spaces_and_case():
    """Extra spaces, a lower-case slot and an upper-case verb are read as meant."""
    assert GAME.parse_action("  take   b ") == Take("B")
    assert GAME.parse_action("SEND 3") == Send(3)
    assert GAME.parse_action("Rock Sundial 2") == PlaceRock("sundial", 2)


@pytest.mark.parametrize("text, words", [
    ("fly 3", "unknown verb 'fly'"),
    ("send many", "send N"),
    ("take", "take SLOT"),
    ("rock sundial", "rock COLUMN CHAMBER"),
    ("rock coin 2", "column must be one of sundial, shield, snake, statuette, skull, not 'coin'"),
    ("move snake 1 sideways", "direction must be one of down, up, not 'sideways'"),
    ("totem", "totem ID"),
    ("", "unknown verb ''"),
])
def test_bad_action_text_names_the_problem(text, words):
    """A clear ValueError for text that is not a Cibola action."""
    with pytest.raises(ValueError) as err:
        GAME.parse_action(text)
    assert words in str(err.value)


def test_every_rule_names_a_real_function():
    """Each rule's enforced_by resolves to a function of games.cibola.rules."""
    import importlib

    for rule in GAME.rules.values():
        module, path = rule.enforced_by.split(":")
        target = importlib.import_module(module)
        for part in path.split("."):
            target = getattr(target, part)
        assert callable(target), rule.id


def test_malformed_fields_are_refused_where_the_action_is_made_well_formed_ones_by_check():
    """Actions built in code with fields of the wrong type or out of every range are refused as
    they are made (the check the text form and JSON share, issue 25: both forms take the same
    actions); well-formed ones that break a rule are refused by `check` with that rule."""
    from geomsim.rules import IllegalAction
    from tests.cibola.helpers import card_ids, deck_with_top, new

    for make, words in ((lambda: Send(True), "explorers must be a whole number"),
                        (lambda: Send("3"), "explorers must be a whole number"),
                        (lambda: Take("AB"), "slot must be"), (lambda: Take(1), "slot must be"),
                        (lambda: ChooseTotem(True), "must be")):
        with pytest.raises(ValueError, match=words):
            make()
    state = new(2, torch=0, deck=deck_with_top(card_ids("totem", deck=1)[:1] + card_ids(None)[:3]),
                totems=[1, 2, 3, 5, 6])
    assert state.check(Send(-1), 0).rules == ("cibola/send/count",)
    state.apply(Send(1), 0)
    state.apply(Send(0), 1)
    with pytest.raises(IllegalAction) as err:
        state.apply(PlaceRock("sundial", 1), 0)
    assert err.value.rule == "cibola/obtain/one-card"
    state.apply(Take("A"), 0)
    assert state.check(ChooseTotem(1), 0).ok
