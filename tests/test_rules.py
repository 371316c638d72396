"""The rules interface contract that the base State keeps for every game."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geomsim.rules import (
    ENGINE_TURN_RULE,
    ContinuousActionSpace,
    DataError,
    Event,
    FiniteActionSpace,
    IllegalAction,
    Verdict,
    Violation,
    read_state_json,
)
from tests.toygames import BID, DISCS, GRID, Bid, GridGame, Mark, Place


def test_verdict_is_truthy_only_without_violations():
    assert Verdict().ok and bool(Verdict())
    bad = Verdict((Violation("x/1/a", "no"), Violation("x/1/b", "never")))
    assert not bad.ok and not bad
    assert bad.rules == ("x/1/a", "x/1/b")
    assert str(bad) == "x/1/a: no; x/1/b: never"


def test_illegal_action_names_the_rule_and_leaves_state_unchanged():
    state = GRID.new_state(seed=0)
    player = state.to_move()[0]
    state.apply(Mark(4), player)
    before = state.to_json()
    with pytest.raises(IllegalAction) as caught:
        state.apply(Mark(4))
    assert caught.value.rule == "toy/grid/empty"
    assert "cell 4 is taken" in str(caught.value)
    assert state.to_json() == before


def test_player_not_to_move_breaks_the_turn_rule():
    state = GRID.new_state(seed=0)
    idle = 1 - state.to_move()[0]
    verdict = state.check(Mark(0), idle)
    assert verdict.rules == (ENGINE_TURN_RULE,)
    assert state.legal_actions(idle).is_empty()


def test_unknown_player_is_a_clear_error():
    state = GRID.new_state(seed=0)
    with pytest.raises(ValueError, match="unknown player 5"):
        state.check(Mark(0), 5)
    with pytest.raises(ValueError, match="unknown player"):
        state.check(Mark(0), True)


def test_player_must_be_named_when_several_are_to_move():
    state = BID.new_state(seed=0)
    assert state.to_move() == (0, 1)
    with pytest.raises(ValueError, match="players 0, 1 are to move"):
        state.apply(Bid(1))


def test_simultaneous_choices_resolve_when_all_have_decided():
    state = BID.new_state(seed=3)
    state.apply(Bid(2), 0)
    assert state.to_move() == (1,)
    assert "sealed" not in json.dumps(state.observe(1)) or state.observe(1)["own_bid"] is None
    assert state.observe(1)["decided"] == [0] and state.observe(1)["own_bid"] is None
    events = state.apply(Bid(1), 1)
    assert events[0].data == {"bids": [2, 1], "winner": 0}
    assert state.to_move() == (0, 1)


def test_history_and_json_round_trip():
    state = GRID.new_state(seed=1)
    for cell in (0, 4, 8):
        state.apply(Mark(cell))
    again = GRID.state_from_json(state.to_json())
    assert again.to_json() == state.to_json()
    assert [str(a) for _, a, _ in again.history] == ["mark 0", "mark 4", "mark 8"]
    assert again.history[0][2] == [Event("marked", again.history[0][0], {"cell": 0})]


def test_clone_is_independent():
    state = GRID.new_state(seed=1)
    copy = state.clone()
    copy.apply(Mark(0))
    assert state.board[0] is None and not state.history


def test_states_compare_and_hash_by_their_json():
    """Equal positions (same JSON, history included) are equal and hash alike, in every process
    (the hash is a digest of the JSON, not Python's salted str hash); a state played on changes
    its hash, and states of other games or other positions differ."""
    state, same = GRID.new_state(seed=1), GRID.new_state(seed=1)
    assert state == same and hash(state) == hash(same) and len({state, same}) == 1
    before = hash(state)
    state.apply(Mark(4))
    assert state != same and hash(state) != before
    same.apply(Mark(4))
    assert state == same and state != BID.new_state(2, seed=1) and state != state.to_json()
    script = ("from tests.toygames import GRID, Mark; s = GRID.new_state(seed=1); "
              "s.apply(Mark(4)); print(hash(s))")
    other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": "123"})
    assert int(other.stdout) == hash(state)


def test_a_nan_that_got_in_is_refused_when_read_back():
    """orjson writes NaN as null: the reader's type check refuses it, naming the field."""
    state = DISCS.new_state()
    state.points.append((0, float("nan"), 0.5))
    with pytest.raises(DataError, match=r"^points\[0\]\[1\]: expected `float`, got `null`"):
        DISCS.state_from_json(state.to_json())


def test_action_json_and_text():
    action = Place(0.1, 0.7)
    assert DISCS.action_from_json(json.loads(json.dumps(action.to_json()))) == action
    assert DISCS.parse_action(str(action)) == action
    with pytest.raises(ValueError, match="unknown toy-discs action kind 'fly'"):
        DISCS.action_from_json({"kind": "fly"})


def test_finite_space_samples_without_repeats():
    space = FiniteActionSpace([Mark(i) for i in range(5)])
    picks = space.sample(np.random.default_rng(0), 10)
    assert sorted(a.cell for a in picks) == [0, 1, 2, 3, 4]
    assert len(space) == 5 and Mark(3) in space and space.finite


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**32 - 1))
def test_finite_space_samples_one_as_choice_does(n, seed):
    """A sample of one draws what `choice(n, 1, replace=False)` draws: the same action, and the
    random numbers after it are the same (so games replay as before)."""
    space = FiniteActionSpace([Mark(i) for i in range(n)])
    ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    assert space.sample(ours, 1) == [space[int(theirs.choice(n, size=1, replace=False)[0])]]
    assert ours.random() == theirs.random()


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_harness_chooses_as_when_it_drew_the_only_mover(seed):
    """With one player to move, the harness does not ask the generator for the mover: the
    action and the random numbers after it are those of asking it (`integers(1)` draws none)."""
    from geomsim.testing import _choose

    state = GRID.new_state(players=2, seed=0)
    ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    movers = state.to_move()
    assert len(movers) == 1
    player = movers[int(theirs.integers(len(movers)))]
    assert _choose(state, ours, 2) == (player, state.legal_actions(player).sample(theirs, 2))
    assert ours.random() == theirs.random()


def test_continuous_space_adds_discrete_actions_when_short():
    space = ContinuousActionSpace(lambda rng, k: [], discrete=[Mark(1)])
    assert space.sample(np.random.default_rng(0), 3) == [Mark(1)]
    assert not space.finite and not space.is_empty()


def test_player_count_is_checked():
    with pytest.raises(ValueError, match="played by 2 to 2 players, not 3"):
        GRID.new_state(players=3)


def test_winners_empty_before_the_end_and_scores_finite_after():
    state = GRID.new_state(seed=0)
    assert state.winners() == []
    for cell in (0, 3, 1, 4, 2):
        state.apply(Mark(cell))
    assert state.is_over() and state.winners() == [state.history[0][0]]
    assert state.returns_finite()


class CountingGrid(GridGame):
    """Tic-tac-toe that counts the actions it reads from JSON."""

    def __init__(self):
        self.read = 0

    def action_from_json(self, obj):
        self.read += 1
        return super().action_from_json(obj)


def played_grid(game, cells=(4, 0, 8)):
    state = game.new_state(seed=2)
    for cell in cells:
        state.apply(Mark(cell))
    return state


def test_history_entries_read_back_are_parsed_once_per_text():
    game = CountingGrid()
    text = played_grid(game).to_json()
    data, history = read_state_json(text)
    assert "history" not in data and json.loads(history) == json.loads(text)["history"]
    state = game.state_from_json(text)
    assert state.to_json() == text and state.clone().to_json() == text and game.read == 3
    assert [str(a) for _, a, _ in state.history] == ["mark 4", "mark 0", "mark 8"]
    assert game.state_from_json(text).to_json() == text and game.read == 3  # texts seen before
    state.apply(Mark(1))
    longer = state.to_json()
    assert longer == played_grid(game, (4, 0, 8, 1)).to_json()
    assert game.state_from_json(longer).to_json() == longer and game.read == 4  # the new entry only


def test_no_layout_of_the_text_misleads_the_reader():
    """A key named history inside an entry, other spacing, other key order: the same state."""
    text = '{"board": [], "turn": 0, "history": [{"events": [{"data": {"x": 1, "history": [2]}}]}]}'
    data, history = read_state_json(text)
    assert data == {"board": [], "turn": 0} and len(json.loads(history)) == 1
    state = played_grid(GRID)
    loose = json.dumps({"history": json.loads(state.to_json())["history"], **state.to_dict()}, indent=3)
    assert GRID.state_from_json(loose).to_json() == state.to_json()


def test_a_broken_history_entry_is_refused_when_the_state_is_read():
    state = played_grid(GRID)
    data = json.loads(state.to_json())
    data["history"][1]["action"]["cell"] = "four"
    with pytest.raises(DataError, match=r"^history\[1\]\.action\.cell: expected `int`, got `str`"):
        GRID.state_from_json(json.dumps(data))
    data["history"][1] = {"player": 7, "action": {"kind": "mark", "cell": 4}, "events": []}
    with pytest.raises(DataError, match=r"^history\[1\]\.player: player 7 is not 0 to 1"):
        GRID.state_from_json(json.dumps(data))


def test_history_changed_in_place_is_written_again():
    state = played_grid(GRID)
    state.history_json()
    state.history[-1] = state.history[0]
    assert json.loads(state.history_json())[-1] == json.loads(state.history_json())[0]
    assert json.loads(state.history_json())[-1]["action"] == {"kind": "mark", "cell": 4}


def test_history_texts_handed_in_are_used_as_written():
    state = GRID.new_state(seed=1)
    state.apply(Mark(0))
    entry = state.history[0]
    state.set_history([entry], ['{"marker": "from the text as read"}'])
    assert state.history_json() == '[{"marker": "from the text as read"}]'
    state.apply(Mark(1))
    assert state.history_json().startswith('[{"marker": "from the text as read"},{"action"')
    with pytest.raises(ValueError, match="2 texts for 1 history entries"):
        state.set_history([entry], ["a", "b"])


def test_a_shallow_copy_shares_the_attributes_without_writing_json(monkeypatch):
    """`copy.copy` of a state is the plain shallow copy (games' `clone` start from it), not a
    JSON round trip through `__reduce__` (pickling's path, far costlier)."""
    import copy

    state = GRID.new_state(2, seed=0)
    state.apply(Mark(4))
    monkeypatch.setattr(type(state), "to_json", lambda self: pytest.fail("wrote JSON"))
    other = copy.copy(state)
    assert type(other) is type(state) and other is not state
    assert other.__dict__ == state.__dict__ and other.board is state.board


def test_a_games_parts_load_on_first_use_and_only_known_roles_are_taken(tmp_path, monkeypatch):
    """`Parts` (issue 26): a game's faces are imported the first time they are asked for, so that
    its rules module need not import them; a role the engine does not know is refused."""
    import sys

    from geomsim.rules import Parts

    (tmp_path / "face_of_a_toy.py").write_text("def text(state):\n    return 'the board'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    parts = Parts(text="face_of_a_toy:text")
    assert "text" in parts and "draw" not in parts
    assert "face_of_a_toy" not in sys.modules  # asking whether it is there imports nothing
    assert parts["text"](None) == "the board"
    assert "face_of_a_toy" in sys.modules
    with pytest.raises(ValueError, match="unknown part roles drawing"):
        Parts(drawing="face_of_a_toy:text")
