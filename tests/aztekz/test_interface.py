"""Aztekz through the rules interface: action text and JSON, setup data, bad input, drawing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import geomsim
from games.aztekz import GAME
from games.aztekz.rules import ACTION_TYPES, Place, Step
from geomsim.plotting import save
from tests.aztekz.builders import make, random_game, row

TEXTS = ["chief", "slave1", "slave2", "chief N", "slave1 E", "slave2 W", "take sun", "drop",
         "scare", "give", "steal 2.slave1", "steal 0.slave2", "end", "place 1,-2 r1",
         "place 0,0 r0", "place -4,3 r3", "return"]


@pytest.mark.parametrize("text", TEXTS)
def test_action_text_and_json_round_trip(text):
    action = GAME.parse_action(text)
    assert str(action) == text and type(action) in ACTION_TYPES
    assert GAME.parse_action(f"  {text.replace(' ', '   ')} ") == action
    assert GAME.action_from_json(json.loads(json.dumps(action.to_json()))) == action


@pytest.mark.parametrize("text", ["", "king", "chief NE", "slave3 E", "take", "take 3x",
                                  "steal 1.chief", "place 1,2", "place 1,2 r4", "place a,b r0"])
def test_bad_action_text_names_the_forms(text):
    """An unknown verb lists every form; a known verb written wrong names its own form."""
    with pytest.raises(ValueError) as caught:
        GAME.parse_action(text)
    verb = text.split()[0] if text else ""
    if verb in ("chief", "take", "steal", "place"):
        assert any(words in str(caught.value) for words in (
            f"expected {verb}", "expected chief | slave1", "soul must be one word"))
    else:
        assert "expected one of: chief | slave1 | slave2" in str(caught.value)


def test_malformed_fields_are_refused_where_the_action_is_made():
    """Actions built in code with impossible fields are refused as they are made, in one line
    naming the field: the same check the text form and JSON go through (issue 25)."""
    for make, words in ((lambda: Step("king", "E"), "hero must be one of chief, slave1, slave2"),
                        (lambda: Step("chief", "X"), "must be one of"),
                        (lambda: Place(0, 1, 7), "rotation must be")):
        with pytest.raises(ValueError, match=words):
            make()
    with pytest.raises(ValueError, match="unknown aztekz action kind"):
        GAME.action_from_json({"kind": "fly"})


def test_registry_and_setup_data():
    """`make_setup` gives JSON that `new_state(setup=...)` accepts: the same game as the seed."""
    assert geomsim.load_game("aztekz") is GAME
    setup = json.loads(json.dumps(GAME.make_setup(3, seed=5)))
    assert set(setup) == {"players", "first", "deck", "souls"}
    assert sorted(setup["deck"]) == list(range(48)) and len(setup["souls"]) == 48
    from_data = GAME.new_state(3, setup=setup)
    assert from_data.to_json() == GAME.new_state(3, seed=5).to_json()
    assert from_data.turn == setup["first"] and from_data.card == setup["deck"][0]
    assert GAME.make_setup(3, seed=5) == setup and GAME.make_setup(3, seed=6) != setup


@pytest.mark.parametrize("setup,field", [
    ({"first": 3}, "first"),
    ({"first": "0"}, "first"),
    ({"players": 2}, "players"),
    ({"deck": [48]}, "deck"),
    ({"deck": "0 1 2"}, "deck"),
    ({"deck": [0] * 48}, "deck"),
    ({"souls": ["sun"] * 48}, "souls"),
    ({"components": {"grid": 5}}, "grid"),
    ({"components": {"grid_size": 0}}, "grid_size"),
    ({"components": {"max_heroes_per_card": 2}}, "max_heroes_per_card"),
    ({"components": {"cards": [{"type": "x", "sides": "NQ", "count": 48}]}}, "cards"),
    ({"components": {"souls": {"kinds": ["a b"], "per_kind": 8}}}, "souls.kinds"),
    ({"components": {"stall_limit": 0}}, "stall_limit"),
])
def test_bad_setup_names_the_field(setup, field):
    with pytest.raises(ValueError, match=field):
        GAME.new_state(3, setup=setup)


def test_partial_setup_draws_the_rest_from_the_seed():
    """A setup may fix the top of the deck and of the souls; the rest follows the seed."""
    seeded = GAME.make_setup(3, seed=9)
    state = GAME.new_state(3, seed=9, setup={"deck": [7, 3], "souls": ["sun"]})
    rest = [c for c in seeded["deck"] if c not in (7, 3)]
    assert state.card == 7 and state.deck.cards == [3] + rest
    assert state.turn == seeded["first"]
    assert sorted(state.supply.cards) == sorted(seeded["souls"])


def test_components_override_plays():
    """Overridden components (a 4 x 4 area, 2 kinds of 12 souls, 24 crossroads) play to the end."""
    components = {"grid_size": 4, "cards": [{"type": "crossroads", "sides": "NESW", "count": 24}],
                  "souls": {"kinds": ["gold", "jade"], "per_kind": 12}}
    setup = GAME.make_setup(2, seed=1, components=components)
    state = GAME.new_state(2, setup=setup)
    rng = np.random.default_rng(1)
    while not state.is_over():
        actions = list(state.legal_actions())
        state.apply(actions[int(rng.integers(len(actions)))])
    x0, y0, x1, y1 = state.grid.bounds()
    assert x1 - x0 <= 3 and y1 - y0 <= 3 and set(state.comp.soul_kinds) == {"gold", "jade"}
    assert GAME.state_from_json(state.to_json()).comp.grid_size == 4


def test_arbitrary_actions_are_well_formed():
    state = random_game(3, seed=2, max_steps=40)
    actions = state.arbitrary_actions(state.turn, np.random.default_rng(0), 60)
    assert len({a.kind for a in actions}) >= 8
    for action in actions:
        assert GAME.parse_action(str(action)) == action
        state.check(action)  # never raises


@pytest.mark.parametrize("steps", [0, 3, 60, 400, 100_000])
def test_draw(tmp_path: Path, steps: int):
    """A diagram of any moment: setup, a turn, game over; with and without the hidden order."""
    state = random_game(4, seed=3, max_steps=steps)
    ax = state.draw(reveal=steps == 60)
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "player 3" in texts and ("next:" in texts) == (steps == 60)
    if state.card is not None:
        assert "drawn by player" in texts
    assert len(ax.collections) >= 3
    out = save(ax, tmp_path / f"aztekz-{steps}.png")
    assert out.stat().st_size > 10_000
    source = (Path(__file__).parents[2] / "games" / "aztekz" / "draw.py").read_text()
    assert "pyplot" not in source.replace("(no pyplot)", "")


@pytest.mark.parametrize("steps", [0, 30])
def test_the_board_keeps_the_labyrinths_room_from_the_first_card(steps: int):
    """The picture gives the labyrinth its full 5 x 5 room beside the panel, also before the
    first card lies (the setup picture was once a lone dotted square and white space)."""
    state = random_game(3, seed=3, max_steps=steps)
    ax = state.draw()
    ax.figure.canvas.draw()
    panel = min(t.get_position()[0] for t in ax.texts if t.get_text().startswith("player "))
    (x0, _), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    size = state.comp.grid_size
    assert panel - x0 >= size and y1 - y0 >= size
