"""Card symbols (rocks, totems) and the totem cards: immediate ones, end ones, the copy."""

from __future__ import annotations

import pytest

from games.cibola.components import default_data
from geomsim.rules import IllegalAction
from tests.cibola.helpers import COMPONENTS, card_ids, deck_with_top, edited, new, play, sends

ROCK = card_ids("rock", deck=1)
TOTEM = card_ids("totem", deck=1)
PLAIN = card_ids(None, deck=1)


def _after_takes(top: list[int], totems: list[int], *moves: str, camp: int = 0, **setup):
    """4 players, torch 0, sends 4-3-2-1 (so players take in seat order), then the moves."""
    explorers = [6, 6, 6, 6 - camp]
    state = new(4, torch=0, deck=deck_with_top(top), totems=totems, explorers=explorers,
                camp=camp, **setup)
    sends(state, 4, 3, 2, 1)
    play(state, *moves)
    return state


def test_symbol_rock():
    """cibola/symbol/rock: a rock card's taker places 1 rock on any uncovered chamber."""
    state = _after_takes([ROCK[0]] + PLAIN[:3], [1, 2, 5, 6, 7], "0: take A")
    assert state.decision == ("rock", 0, ROCK[0]) and state.to_move() == (0,)
    every = {(c.treasure, i + 1) for c in COMPONENTS.columns for i in range(len(c.values))}
    assert {(a.column, a.chamber) for a in state.legal_actions(0)} == every
    with pytest.raises(IllegalAction) as err:
        play(state, "0: take B")
    assert err.value.rule == "cibola/symbol/rock"
    play(state, "0: rock snake 3")  # any chamber, not only the top one
    assert state.covered[2] == [False, False, True, False] and state.rocks_left == 12
    assert state.visible_value(2) == COMPONENTS.columns[2].values[0]
    state = edited(state, pending=[["rock", 1, ROCK[0]]])
    with pytest.raises(IllegalAction) as err:
        play(state, "1: rock snake 3")
    assert err.value.rule == "cibola/symbol/rock" and "already covered" in str(err.value)
    with pytest.raises(IllegalAction) as err:
        play(state, "1: rock snake 9")
    assert err.value.rule == "cibola/symbol/rock"
    # With no rock left beside the temple, the symbol does nothing.
    scarce = _after_takes(ROCK[:2] + PLAIN[:2], [1, 2, 5, 6, 7], "0: take A", "0: rock skull 1",
                          components={"rocks": 1})
    events = play(scarce, "1: take B")
    assert scarce.to_move() == (2,) and any(e.kind == "nothing to do" for e in events)


def test_symbol_last_chamber():
    """cibola/symbol/last-chamber: a column's last uncovered chamber can never be covered."""
    state = _after_takes([ROCK[0]] + PLAIN[:3], [1, 2, 5, 6, 7], "0: take A")
    temple = {c.treasure: [False] * len(c.values) for c in COMPONENTS.columns}
    temple["statuette"] = [True, False, True]
    state = edited(state, temple=temple, rocks_placed=2)
    assert all(a.column != "statuette" for a in state.legal_actions(0))
    with pytest.raises(IllegalAction) as err:
        play(state, "0: rock statuette 2")
    assert err.value.rule == "cibola/symbol/last-chamber"
    assert err.value.verdict.violations[0].details["open"] == 1


def test_symbol_totem():
    """cibola/symbol/totem: a totem card's taker chooses 1 of the totems above the temple."""
    state = _after_takes([TOTEM[0]] + PLAIN[:3], [1, 2, 5, 6, 7], "0: take A")
    assert state.decision == ("totem", 0, TOTEM[0])
    assert sorted(a.totem for a in state.legal_actions(0)) == [1, 2, 5, 6, 7]
    with pytest.raises(IllegalAction) as err:
        play(state, "0: totem 3")
    assert err.value.rule == "cibola/symbol/totem"
    play(state, "0: totem 5")
    assert state.totems[0] == [5] and 5 not in state.offer and state.to_move() == (1,)
    bare = edited(_after_takes(TOTEM[:2] + PLAIN[:2], [1, 2, 5, 6, 7]), offer=[])
    events = play(bare, "0: take A")
    assert bare.to_move() == (1,) and events[-1].kind == "nothing to do"


def test_totem_timing():
    """cibola/totem/timing: an immediate totem acts at once, an end totem only at scoring."""
    state = _after_takes([TOTEM[0]] + PLAIN[:3], [1, 9, 5, 6, 7], "0: take A")
    before = state.clone()
    play(state, "0: totem 1")  # end: nothing happens now
    assert state.explorers == before.explorers and state.covered == before.covered
    assert state.score_sheet()[0]["sundial"] == before.score_sheet()[0]["sundial"]  # no sundial yet
    state = _after_takes([TOTEM[0]] + PLAIN[:3], [1, 9, 5, 6, 7], "0: take A", camp=3)
    play(state, "0: totem 9")  # immediate: 2 explorers from the camp at once
    assert state.explorers[0] == 6 - 4 + 2


def test_totem_move_rock_down():
    """cibola/totem/move-rock-down: 'Move 1 rock down by 1 chamber.'"""
    state = _after_takes([ROCK[0], TOTEM[0]] + PLAIN[:2], [3, 1, 2, 5, 6],
                         "0: take A", "0: rock sundial 1", "1: take B", "1: totem 3")
    assert state.visible_value(0) == COMPONENTS.columns[0].values[1]
    assert state.decision == ("move", 1, 3)
    assert [str(a) for a in state.legal_actions(1)] == ["move sundial 1 down"]
    for bad in ("move sundial 1 up", "move shield 1 down", "move sundial 2 down"):
        with pytest.raises(IllegalAction) as err:
            play(state, f"1: {bad}")
        assert err.value.rule == "cibola/totem/move-rock-down"
    play(state, "1: move sundial 1 down")
    assert state.covered[0] == [False, True, False, False]
    assert state.visible_value(0) == COMPONENTS.columns[0].values[0]
    # Moving onto a column's last open chamber would cover it: that is never allowed.
    temple = {c.treasure: [False] * len(c.values) for c in COMPONENTS.columns}
    temple["sundial"] = [True, True, True, False]
    blocked = edited(_after_takes([TOTEM[0]] + PLAIN[:3], [3, 1, 2, 5, 6], "0: take A"),
                     temple=temple, rocks_placed=3)
    events = play(blocked, "0: totem 3")
    assert blocked.to_move() == (1,) and events[-1].kind == "nothing to do"


def test_totem_move_rock_up():
    """cibola/totem/move-rock-up (assumed totem): 'Move 1 rock up by 1 chamber.'"""
    state = _after_takes([ROCK[0], TOTEM[0]] + PLAIN[:2], [8, 1, 2, 5, 6],
                         "0: take A", "0: rock shield 2", "1: take B", "1: totem 8")
    assert [str(a) for a in state.legal_actions(1)] == ["move shield 2 up"]
    with pytest.raises(IllegalAction) as err:
        play(state, "1: move shield 2 down")
    assert err.value.rule == "cibola/totem/move-rock-up"
    play(state, "1: move shield 2 up")
    assert state.covered[1] == [True, False, False, False]
    assert state.visible_value(1) == COMPONENTS.columns[1].values[1]


def test_totem_take_explorers():
    """cibola/totem/take-explorers (assumed totem): take 2 explorers from the camp (all, if fewer)."""
    state = _after_takes([TOTEM[0]] + PLAIN[:3], [9, 1, 2, 5, 6], "0: take A", "0: totem 9",
                         camp=0)
    # The camp held only the 4 explorers player 0 had just put there.
    assert state.explorers[0] == 6 - 4 + 2 and state.camp == 4 - 2
    poor = _after_takes([TOTEM[0]] + PLAIN[:3], [9, 1, 2, 5, 6], camp=1)
    # Player 0's explorers do not reach the camp (they went home; the others' make up the count).
    explorers = list(poor.explorers)
    explorers[3] += sum(poor.in_temple) - 6
    poor = edited(poor, in_temple=[0, 3, 2, 1], camp=1, explorers=explorers)
    play(poor, "0: take A", "0: totem 9")
    assert poor.explorers[0] == 2 + 1 and poor.camp == 0


def _one_round_game(cards: list[int], totems: list[int], *moves: str):
    """A game whose deck is just `cards` (4 cards: one round), 4 players, sends 4-3-2-1."""
    data = [c for c in default_data()["cards"] if c["id"] in cards]
    state = new(4, torch=0, deck=list(cards), totems=totems,
                components={"cards": data})
    sends(state, 4, 3, 2, 1)
    play(state, *moves)
    return state


def test_totem_copy():
    """cibola/totem/copy: before scoring, the copy totem's holder points to another used totem and
    performs its action (an end bonus, or an immediate action now)."""
    cards = [ROCK[0], TOTEM[0], TOTEM[1], card_ids("totem", deck=2)[0]]
    state = _one_round_game(cards, [4, 1, 3, 9, 2], "0: take A", "0: rock sundial 1",
                            "1: take B", "1: totem 4", "2: take C", "2: totem 1",
                            "3: take D", "3: totem 2")
    assert state.stage == "final" and state.decision == ("copy", 1, 4)
    assert sorted(a.totem for a in state.legal_actions(1)) == [1, 2]  # not itself, not unused 3
    for bad in (4, 3):
        with pytest.raises(IllegalAction) as err:
            play(state, f"1: copy {bad}")
        assert err.value.rule == "cibola/totem/copy"
    end_bonus = state.clone()
    play(end_bonus, "1: copy 2")  # each of player 1's explorers scores 1 more
    assert end_bonus.is_over()
    n = end_bonus.explorers[1]
    assert end_bonus.score_sheet()[1]["explorers"] == n // 2 + n
    # Copying an immediate totem performs it now: a rock to move.
    state = _one_round_game(cards, [4, 3, 1, 9, 2], "0: take A", "0: rock sundial 1",
                            "1: take B", "1: totem 3", "1: move sundial 1 down",
                            "2: take C", "2: totem 4", "3: take D", "3: totem 1")
    play(state, "2: copy 3")
    assert state.decision == ("move", 2, 3)
    play(state, "2: move sundial 2 down")
    assert state.covered[0] == [False, False, True, False] and state.is_over()
