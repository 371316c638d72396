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


@pytest.mark.parametrize("text, words", [
    ("fly 3", "unknown verb 'fly'"),
    ("send many", "send N"),
    ("take", "take SLOT"),
    ("rock sundial", "rock COLUMN CHAMBER"),
    ("rock coin 2", "unknown column 'coin'"),
    ("move snake 1 sideways", "'down' or 'up'"),
    ("totem", "totem ID"),
    ("", "unknown verb ''"),
])
def test_bad_action_text_names_the_problem(text, words):
    """A clear ValueError for text that is not a Cibola action."""
    with pytest.raises(ValueError) as err:
        GAME.parse_action(text)
    assert words in str(err.value)
