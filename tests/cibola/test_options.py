"""Treasures of Cibola's options (games.cibola.rules.OPTIONS): each changes play, as its rule
id says; the compiled player and the encoding honour them; JSON and setups carry them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from games.cibola import GAME
from games.cibola.rules import TEMPLES, share_camp
from geomsim.rules import IllegalAction
from geomsim.testing import check_playouts, check_playouts_options



def play_to_end(state, rng):
    while not state.is_over():
        for p in state.to_move():
            if p in state.to_move():
                state.apply(state.legal_actions(p).sample(rng, 1)[0], p)
    return state


def test_explorers_deals_that_many_and_a_send_beyond_them_names_the_option():
    """cibola/setup/explorers, option explorers."""
    assert GAME.new_state(3, seed=1).explorers == [8, 8, 8]
    state = GAME.new_state(3, seed=1, options={"explorers": 10})
    assert state.explorers == [10, 10, 10]
    with pytest.raises(IllegalAction, match=r"cibola/send/count: .*send 0 to 10, not 11 \(option explorers=10\)"):
        state.apply(GAME.parse_action("send 11"), 0)


def test_rounds_ends_the_game_after_that_many_rounds():
    """cibola/round/stages and cibola/end/deck-out, option rounds: 2 cards of each deck a round."""
    for rounds in (2, 5):
        state = play_to_end(GAME.new_state(2, seed=3, options={"rounds": rounds}), np.random.default_rng(0))
        assert state.round == rounds
        assert sorted(state.box + [c for h in state.hands for c in h]) == list(range(1, 33))
    assert play_to_end(GAME.new_state(2, seed=3), np.random.default_rng(0)).round == 8


def test_totems_revealed_lays_that_many_above_the_temple():
    """cibola/setup/totems, option totems_revealed."""
    assert len(GAME.new_state(2, seed=0).offer) == 5
    state = GAME.new_state(2, seed=0, options={"totems_revealed": 2})
    assert len(state.offer) == 2 and len(state.boxed_totems) == 8


def test_temple_gives_the_columns_the_earlier_values():
    """cibola/score/visible-value, option temple."""
    state = GAME.new_state(2, seed=0, options={"temple": "earlier"})
    assert [state.visible_value(c) for c in range(5)] == [v[0] for v in TEMPLES["earlier"]]  # type: ignore[index]
    assert [GAME.new_state(2, seed=0).visible_value(c) for c in range(5)] == [5, 8, 4, 12, -5]
    again = GAME.state_from_json(state.to_json())
    assert again.components == state.components and again.to_json() == state.to_json()


def test_copy_totem_false_is_the_no_copy_totem_variant():
    """cibola/totem/copy-variant, option copy_totem (the variant no-copy-totem)."""
    copy_id = next(t.id for t in GAME.new_state(2, seed=0).components.totems if t.kind == "copy")
    for seed in range(10):
        state = GAME.new_state(2, seed=seed, options=GAME.resolve_options(variant="no-copy-totem"))
        assert copy_id not in state.offer + state.boxed_totems
    assert any(copy_id in GAME.new_state(2, seed=s).offer for s in range(10))


def test_camp_share_modes():
    """cibola/send/camp-share, option camp_share."""
    assert share_camp(7, [4, 0, 0], "equal", 0) == ([0, 3, 3], 1)
    assert share_camp(7, [4, 0, 0], "first", 2) == ([0, 0, 7], 0)  # clockwise from the torch: 2
    assert share_camp(7, [4, 0, 0], "first", 0) == ([0, 7, 0], 0)
    assert share_camp(7, [4, 0, 0], "none", 0) == ([0, 0, 0], 7)
    state = GAME.new_state(2, seed=0, options={"camp_share": "none"})
    state.camp, state.explorers = 4, [10, 10]  # a camp to share, explorers conserved
    state.apply(GAME.parse_action("send 0"), 0)
    state.apply(GAME.parse_action("send 2"), 1)
    assert state.explorers[0] == 10 and state.camp == 4


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_compiled_player_honours_random_option_draws(players):
    draws = check_playouts_options(GAME, players, draws=3, games=2, seed=players)
    assert len({json.dumps(d, sort_keys=True) for d in draws}) > 1


def test_the_compiled_player_shares_the_camp_as_the_option_says():
    """The kernel's camp share (tables[T_SHARE]) against the rules, for each mode."""
    for mode in ("equal", "first", "none"):
        check_playouts(GAME, 4, games=4, seed=7, options={"camp_share": mode})


def test_the_encoding_follows_the_explorers_in_the_game():
    state = GAME.new_state(4, seed=0, options={"explorers": 20})
    assert state.encoding.num_distinct_actions == GAME.encoding(4).num_distinct_actions + 80 - 24
    assert state.legal_action_ids(0)[-1] == state.encoding.action_id(GAME.parse_action("send 20"))
