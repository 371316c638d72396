"""The course of a round: discover, send (sealed, simultaneous), obtain; torch; the end."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from games.cibola import GAME
from games.cibola.components import default_data
from games.cibola.rules import obtain_order, share_camp
from geomsim.rules import IllegalAction
from tests.cibola.helpers import (
    COMPONENTS, DECK_I, card_ids, deck_with_top, new, play, sends,
)


def _finish_round(state, rng=None) -> None:
    """Play the current round's remaining decisions with the first legal action."""
    start = state.round
    while state.round == start and not state.is_over():
        p = state.to_move()[0]
        state.apply(state.legal_actions(p)[0], p)


def test_round_stages():
    """cibola/round/stages: 8 rounds, each discover, send (sealed), obtain, in that order."""
    rng = random.Random(3)
    for players in (2, 3, 4):
        state = GAME.new_state(players, seed=players)
        stages = ["discovered"]  # round 1 is discovered by the setup
        while not state.is_over():
            movers = state.to_move()
            p = movers[rng.randrange(len(movers))]
            actions = state.legal_actions(p)
            for event in state.apply(actions[rng.randrange(len(actions))], p):
                stages.append(event.kind)
        rounds = [k for k in stages if k == "discovered"]
        assert len(rounds) == 8 and state.round == 8
        per_round = " ".join(stages).split("discovered")[1:]
        for text in per_round:
            assert text.startswith(" sealed") and text.index("sends revealed") < text.index("took")
    state = GAME.new_state(2, seed=1)
    with pytest.raises(IllegalAction) as err:
        play(state, "0: take A")
    assert err.value.rule == "cibola/round/stages"
    sends(state, 1, 0)
    with pytest.raises(IllegalAction) as err:
        play(state, "0: send 1")
    assert err.value.rule == "cibola/round/stages"


def test_discover_four_cards():
    """cibola/discover/four-cards: each round reveals the next 4 cards from the top, in a row."""
    state = GAME.new_state(4, seed=9)
    order = list(state.row) + list(state.deck)
    for r in range(8):
        assert state.round == r + 1
        assert state.row == order[4 * r: 4 * r + 4]
        assert len(state.deck) == 32 - 4 * (r + 1)
        sends(state, 0, 0, 0, 0)
        _finish_round(state)


def test_send_sealed():
    """cibola/send/sealed: all players choose at once; no observation shows another's number
    before all have chosen (the history is not observable); then all are revealed together."""
    state = GAME.new_state(3, seed=2)
    assert state.to_move() == (0, 1, 2)
    low, high = state.clone(), state.clone()
    play(low, "0: send 0")
    play(high, "0: send 5")
    assert low.to_move() == high.to_move() == (1, 2)
    for p in (1, 2):
        assert json.dumps(low.observe(p), sort_keys=True) == json.dumps(high.observe(p), sort_keys=True)
    assert high.observe(0)["sealed"]["own"] == 5
    assert "history" not in high.observe(1)
    # A determinization for player 1 re-draws player 0's number, history included.
    drawn = {high.determinize(1, np.random.default_rng(s)).sealed.choices[0] for s in range(30)}
    assert len(drawn) > 1 and drawn <= set(range(high.explorers[0] + 1))
    other = high.determinize(1, np.random.default_rng(0))
    assert other.history[-1][1].explorers == other.sealed.choices[0]
    with pytest.raises(IllegalAction) as err:
        play(high, "0: send 2")
    assert err.value.rule == "engine/turn"
    play(high, "1: send 1", "2: send 2")
    assert high.sent == [5, 1, 2] and high.observe(1)["sent"] == [5, 1, 2]


def test_send_count():
    """cibola/send/count: any number of one's own explorers, from none to all."""
    state = GAME.new_state(4, seed=0)
    for bad in (7, -1):
        with pytest.raises(IllegalAction) as err:
            play(state, f"1: send {bad}")
        assert err.value.rule == "cibola/send/count"
        assert err.value.verdict.violations[0].details["explorers"] == 6
    assert [a.explorers for a in state.legal_actions(1)] == list(range(7))
    play(state, "1: send 6", "0: send 0")


def test_send_camp_share():
    """cibola/send/camp-share: zero-senders share the camp equally, the remainder stays; none in
    the camp in round 1."""
    assert share_camp(7, [4, 2, 0, 0]) == ([0, 0, 3, 3], 1)
    assert share_camp(5, [0, 3]) == ([5, 0], 0)
    assert share_camp(5, [1, 3]) == ([0, 0], 5)
    state = GAME.new_state(3, seed=4)
    sends(state, 0, 0, 2)
    assert state.explorers == [8, 8, 6] and state.camp == 0
    state = new(3, explorers=[4, 8, 2], camp=10)
    sends(state, 0, 3, 0)
    assert state.explorers == [4 + 5, 8 - 3, 2 + 5] and state.camp == 0
    state = new(4, explorers=[2, 8, 2, 2], camp=10)
    sends(state, 0, 0, 0, 1)
    assert state.explorers == [2 + 3, 8 + 3, 2 + 3, 1] and state.camp == 1


def test_obtain_order():
    """cibola/obtain/order: most explorers first; ties: the torch keeper, then clockwise from his
    left (seat p + 1 sits on p's left)."""
    assert obtain_order([2, 3, 3, 1], torch=2) == [2, 1, 0, 3]
    assert obtain_order([2, 3, 3, 1], torch=3) == [1, 2, 0, 3]
    assert obtain_order([1, 1, 1], torch=1) == [1, 2, 0]
    state = new(4, torch=3)
    sends(state, 2, 3, 3, 1)
    assert state.order == [1, 2, 0, 3]
    seen = []
    while state.round == 1:
        p = state.to_move()[0]
        if state.decision[0] == "take":
            seen.append(p)
        state.apply(state.legal_actions(p)[0], p)
    assert seen == [1, 2, 0, 3]


def test_obtain_zero_last():
    """cibola/obtain/zero-last: zero-senders take last, from the torch keeper clockwise."""
    assert obtain_order([0, 1, 0, 0], torch=2) == [1, 2, 3, 0]
    assert obtain_order([0, 0, 0, 5], torch=1) == [3, 1, 2, 0]
    state = new(4, torch=2)
    sends(state, 0, 1, 0, 0)
    assert state.order == [1, 2, 3, 0]


def test_obtain_explorers_to_camp():
    """cibola/obtain/explorers-to-camp: on their turn a player's sent explorers go to the camp."""
    state = new(4, torch=0, deck=deck_with_top(card_ids(None, deck=1)[:4]))
    sends(state, 3, 2, 0, 1)
    assert state.camp == 0 and state.in_temple == [3, 2, 0, 1]
    play(state, "0: take A")
    assert state.camp == 3 and state.in_temple == [0, 2, 0, 1]
    play(state, "1: take B")
    assert state.camp == 5
    play(state, "3: take C", "2: take D")
    assert state.camp == 6 and sum(state.explorers) + state.camp == COMPONENTS.explorers


def test_obtain_one_card():
    """cibola/obtain/one-card: a player takes 1 of the revealed cards, face up in front of them."""
    top = card_ids(None, deck=1)[:4]
    state = new(4, torch=0, deck=deck_with_top(top))
    sends(state, 1, 0, 0, 0)
    with pytest.raises(IllegalAction) as err:
        play(state, "0: take E")
    assert err.value.rule == "cibola/obtain/one-card"
    play(state, "0: take C")
    assert state.hands[0] == [top[2]] and state.to_move() == (1,)
    assert state.counts[0] == list(COMPONENTS.card(top[2]).counts)


def test_obtain_no_refill():
    """cibola/obtain/no-refill: a taken card's place stays empty for the rest of the round."""
    top = card_ids(None, deck=1)[:4]
    state = new(4, torch=0, deck=deck_with_top(top))
    sends(state, 1, 0, 0, 0)
    deck_size = len(state.deck)
    play(state, "0: take B")
    assert state.row[1] is None and len(state.deck) == deck_size
    with pytest.raises(IllegalAction) as err:
        play(state, "1: take B")
    assert err.value.rule == "cibola/obtain/no-refill"
    assert [a.slot for a in state.legal_actions(1)] == ["A", "C", "D"]


def test_obtain_two_players():
    """cibola/obtain/two-players: two players take 1 card each in turn, the bigger sender first,
    until the 4 cards are gone."""
    state = new(2, torch=1, deck=deck_with_top(card_ids(None, deck=1)[:4]))
    sends(state, 1, 3)
    takers = []
    while state.round == 1:
        takers.append(state.to_move()[0])
        play(state, f"{takers[-1]}: {state.legal_actions(takers[-1])[0]}")
    assert takers == [1, 0, 1, 0]
    assert [len(h) for h in state.hands] == [2, 2]


def test_obtain_three_players():
    """cibola/obtain/three-players: the card nobody takes goes to the box; its rock is placed by
    the player who sent the most explorers."""
    rock = card_ids("rock", deck=1)[0]
    plain = card_ids(None, deck=1)[:3]
    state = new(3, torch=0, deck=deck_with_top(plain + [rock]))
    sends(state, 0, 4, 1)
    play(state, "1: take A", "2: take B", "0: take C")
    assert state.box == [rock] and state.row == [None] * 4
    assert state.decision == ("rock", 1, rock) and state.to_move() == (1,)
    play(state, "1: rock skull 1")
    assert state.covered[4][0] and state.round == 2
    assert state.torch == 0  # the last taker, not the rock placer
    plain_end = new(3, torch=0, deck=deck_with_top(plain + card_ids(None, deck=1)[3:4]))
    sends(plain_end, 0, 4, 1)
    play(plain_end, "1: take A", "2: take B", "0: take C")
    assert plain_end.round == 2 and len(plain_end.box) == 1


def test_round_torch():
    """cibola/round/torch: the player who took the last card of the round takes the torch."""
    for players, sent in ((2, [2, 1]), (3, [1, 0, 3]), (4, [0, 2, 1, 0])):
        state = new(players, torch=0, deck=deck_with_top(card_ids(None, deck=1)[:4]))
        sends(state, *sent)
        order, last = list(state.order), None
        while state.round == 1:
            last = state.to_move()[0]
            play(state, f"{last}: {state.legal_actions(last)[0]}")
        assert state.torch == last == order[-1] != 0


def test_end_deck_out():
    """cibola/end/deck-out: the game ends at the end of the round in which the deck runs out
    (a 30-card deck: 8 rounds, the last of 2 cards)."""
    data = default_data()
    cards = [c for c in data["cards"] if c["id"] not in (DECK_I[0], DECK_I[1])]
    state = GAME.new_state(4, seed=1, setup={"components": {"cards": cards}})
    while state.round < 8:
        assert not state.is_over()
        sends(state, 0, 0, 0, 0)
        _finish_round(state)
    assert sum(c is not None for c in state.row) == 2 and len(state.deck) == 0
    sends(state, 1, 1, 0, 0)
    _finish_round(state)
    assert state.is_over() and state.to_move() == ()
    assert sum(map(len, state.hands)) == 30
    full = GAME.new_state(2, seed=1)
    while not full.is_over():
        sends(full, 0, 0)
        _finish_round(full)
    assert full.round == 8 and len(full.deck) == 0


def test_a_state_in_the_send_stage_without_its_send_is_refused_by_name():
    """cibola/send/sealed: a state read back while sending must hold the sealed send; without
    it the reading fails with a `DataError` naming the field (it raised AttributeError)."""
    from geomsim.reading import DataError

    data = json.loads(GAME.new_state(2, seed=1).to_json())
    assert data["stage"] == "send" and data["sealed"] is not None
    data["sealed"] = None
    with pytest.raises(DataError, match=r"^sealed: the send is sealed while sending"):
        GAME.state_from_json(json.dumps(data))
