"""Setup rules: explorers by player count, decks, totems, torch, the copy variant, data files."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from games.cibola import GAME, make_setup
from games.cibola.components import default_data, load_components
from tests.cibola.helpers import COMPONENTS, DECK_I, DECK_II, new, play

COPY_ID = next(t.id for t in COMPONENTS.totems if t.kind == "copy")


def _deck_order(state) -> list[int]:
    """The cards from the top at the start: the revealed row, then the deck."""
    return [c for c in state.row if c is not None] + list(state.deck)


def test_setup_explorers():
    """cibola/setup/explorers: 2 players 12 each, 3 players 8 each, 4 players 6 each."""
    for players, each in ((2, 12), (3, 8), (4, 6)):
        state = GAME.new_state(players, seed=5)
        assert state.explorers == [each] * players and state.camp == 0
    with pytest.raises(ValueError, match="cibola/setup/explorers"):
        new(3, explorers=[8, 8, 7])


def test_setup_decks():
    """cibola/setup/decks: deck I shuffled on top of deck II shuffled."""
    orders = set()
    for seed in range(6):
        order = _deck_order(GAME.new_state(4, seed=seed))
        assert sorted(order[:16]) == sorted(DECK_I) and sorted(order[16:]) == sorted(DECK_II)
        orders.add((tuple(order[:16]), tuple(order[16:])))
    firsts, seconds = zip(*orders)
    assert len(set(firsts)) == 6 and len(set(seconds)) == 6  # both decks are shuffled
    with pytest.raises(ValueError, match="cibola/setup/decks"):
        new(4, deck=[DECK_II[0]] + DECK_I + DECK_II[1:])
    with pytest.raises(ValueError, match="deck"):
        new(4, deck=DECK_I + DECK_II[:-1])


def test_setup_totems():
    """cibola/setup/totems: 5 of the 10 totems revealed above the temple, 5 in the box."""
    offers = set()
    for seed in range(8):
        state = GAME.new_state(2, seed=seed)
        assert len(state.offer) == 5 and len(state.boxed_totems) == 5
        assert sorted(state.offer + state.boxed_totems) == sorted(t.id for t in COMPONENTS.totems)
        offers.add(tuple(sorted(state.offer)))
    assert len(offers) > 1
    with pytest.raises(ValueError, match="cibola/setup/totems"):
        new(2, totems=[1, 2, 3, 4])
    assert sorted(new(2, totems=[1, 2, 3, 5, 6]).boxed_totems) == [4, 7, 8, 9, 10]


def test_setup_torch():
    """cibola/setup/torch: the torch keeper is drawn from the seed (the toss), the same each time."""
    keepers = {seed: GAME.new_state(4, seed=seed).torch for seed in range(40)}
    assert set(keepers.values()) == {0, 1, 2, 3}
    assert all(GAME.new_state(4, seed=s).torch == t for s, t in list(keepers.items())[:5])
    assert new(3, torch=2).torch == 2
    with pytest.raises(ValueError, match="cibola/setup/torch"):
        new(3, torch=3)


def test_totem_copy_variant():
    """cibola/totem/copy-variant: the setup option copy_totem=False plays without the copy card."""
    for seed in range(10):
        state = GAME.new_state(4, seed=seed, setup={"options": {"copy_totem": False}})
        assert COPY_ID not in state.offer + state.boxed_totems
        assert len(state.offer) == 5 and len(state.boxed_totems) == 4
    with pytest.raises(ValueError, match="cibola/setup/totems"):
        new(4, options={"copy_totem": False}, totems=[COPY_ID, 1, 2, 3, 5])
    with pytest.raises(ValueError, match="options"):
        new(4, options={"copy": False})


def test_make_setup_is_the_seeded_setup():
    """make_setup(players, seed) is JSON that new_state(setup=...) turns into the seeded state."""
    for players in (2, 3, 4):
        setup = json.loads(json.dumps(make_setup(players, 11)))
        assert GAME.new_state(players, setup=setup).to_json() == \
            GAME.new_state(players, seed=11).to_json()


def test_setup_fields_are_checked():
    """Unknown fields and a wrong player count are refused, naming the field."""
    with pytest.raises(ValueError, match="colour"):
        new(2, colour="red")
    with pytest.raises(ValueError, match="players"):
        GAME.new_state(2, setup=make_setup(3, 0))
    with pytest.raises(ValueError, match="5"):
        GAME.new_state(5)


def test_components_replaced_by_data(tmp_path):
    """A user's components (a setup key or a data file) replace the defaults, and survive JSON."""
    columns = [dict(c) for c in default_data()["columns"]]
    columns[0] = {**columns[0], "values": [9, 7, 5, 3]}
    state = new(2, components={"columns": columns})
    assert state.visible_value(0) == 9
    assert GAME.state_from_json(state.to_json()).visible_value(0) == 9
    path = tmp_path / "cibola.json"
    path.write_text(json.dumps({"columns": columns}))
    assert new(2, data=str(path)).visible_value(0) == 9
    bad = [dict(c) for c in columns]
    bad[1] = {**bad[1], "treasure": "coin"}
    with pytest.raises(ValueError, match=r"columns\[1\]\.treasure"):
        new(2, components={"columns": bad})
    with pytest.raises(ValueError, match="data"):
        new(2, data=str(tmp_path / "missing.json"))


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copied_state_writes_the_same_json(how):
    """cibola/setup/decks: the components of a copied state (deepcopy, pickle: how peers such as
    OpenSpiel's tests copy states) equal the defaults by value, so the copy writes the same short
    JSON (``"components": null``), compares equal and hashes alike; custom components too."""
    copier = copy.deepcopy if how == "deepcopy" else lambda s: pickle.loads(pickle.dumps(s))
    for state in (new(3), GAME.new_state(2, seed=1, setup={"components": {"rocks": 12}})):
        play(state, "0: send 1", "1: send 0")
        other = copier(state)
        assert other.components == state.components
        assert copier(state.components) == state.components
        assert other.to_json() == state.to_json()
        assert other == state and hash(other) == hash(state)
    assert json.loads(copier(new(3)).to_json())["components"] is None
    # Components equal to the defaults but another object (an override with the default value,
    # a copy) are the defaults: the state writes them as null, the same JSON as the default's.
    same = GAME.new_state(3, seed=0, setup={"components": {"rocks": COMPONENTS.rocks}})
    assert same.components is not COMPONENTS and same.to_json() == new(3).to_json() == copier(same).to_json()
    same.components = copy.deepcopy(COMPONENTS)
    assert same == new(3) and hash(same) == hash(new(3))
    assert load_components({"rocks": 12}) != COMPONENTS == load_components({"rocks": COMPONENTS.rocks})
