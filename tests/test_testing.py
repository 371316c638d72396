"""The harness passes sound games and catches a game that breaks each property it checks."""

from __future__ import annotations

import dataclasses
import itertools
import json

import pytest

from geomsim.reading import DataError, require
from geomsim.rules import ContinuousActionSpace, FiniteActionSpace, read_state_json
from geomsim.testing import (
    HarnessFailure,
    check_playouts,
    check_playouts_from,
    check_random_games,
    check_setup_mutants,
    playout_length_gap,
    setup_mutants,
)
from tests.toygames import (
    BID,
    DISCS,
    GRID,
    BidGame,
    BidState,
    GridGame,
    GridState,
    Mark,
)


@pytest.mark.parametrize("game", [GRID, BID, DISCS], ids=lambda g: g.name)
def test_sound_toy_games_pass(game):
    report = check_random_games(game, 2, games=30, seed=1)
    assert report.games == 30
    assert report.actions_checked > report.steps
    assert report.illegal_checked > 0


def test_simultaneous_game_varies_hidden_parts():
    report = check_random_games(BID, 2, games=5)
    assert report.determinize_varied > 0


_BROKEN = itertools.count()


def broken_class(base: type, overrides: dict) -> type:
    """A subclass of `base` with methods replaced, findable by name so that pickle copies its
    states (the harness pickles states)."""
    name = f"Broken{base.__name__}{next(_BROKEN)}"
    cls = type(name, (base,), {**overrides, "__module__": __name__, "__qualname__": name})
    globals()[name] = cls
    return cls


def broken_grid(**overrides) -> GridGame:
    """A grid game whose states have the given methods replaced."""
    state_cls = broken_class(GridState, overrides)

    def new_state(self, players=2, seed=None, setup=None):
        return state_cls(self, [None] * 9, 0)

    def from_json(self, text):
        d = json.loads(text)
        s = state_cls(self, d["board"], d["turn"])
        s._history_from_json(d)
        return s

    return broken_class(GridGame, {"new_state": new_state, "state_from_json": from_json})()


def expect_failure(game, prop: str) -> None:
    with pytest.raises(HarnessFailure) as caught:
        check_random_games(game, 2, games=5)
    assert caught.value.property == prop, str(caught.value)


def test_catches_legal_actions_that_fail_check():
    game = broken_grid(_legal_actions=lambda self, p: FiniteActionSpace(Mark(i) for i in range(9)))
    expect_failure(game, "legal-passes-check")


def test_catches_illegal_action_applied():
    def apply_anything(self, action, player=None):
        player = self._resolve_player(player)
        events = self._apply(action, player)
        self.history.append((player, action, events))
        return events
    expect_failure(broken_grid(apply=apply_anything), "illegal-raises")


def test_catches_check_that_changes_the_state():
    def meddling(self, action, player):
        found = GridState._violations(self, action, player)
        if found:
            self.turn = 1 - self.turn
        return found
    expect_failure(broken_grid(_violations=meddling), "illegal-unchanged")


def test_catches_shared_clone():
    expect_failure(broken_grid(clone=lambda self: self), "clone-independent")


def test_catches_lossy_json():
    expect_failure(broken_grid(to_dict=lambda self: {"board": list(self.board), "turn": 0}),
                   "json-round-trip")


def lost_in_json(legal) -> GridGame:
    """A grid game whose legal actions are `legal(state, player, made)`: `made` is True for
    states from `new_state` and their copies, False once written to JSON and read back."""
    game = broken_grid(_legal_actions=lambda self, p: legal(self, p, getattr(self, "made", False)))
    made = type(game).new_state

    def new_state(self, players=2, seed=None, setup=None):
        state = made(self, players, seed, setup)
        state.made = True
        return state

    return broken_class(type(game), {"new_state": new_state})()


def test_catches_legal_actions_listed_otherwise_after_json():
    """A state that lists its cells backwards until written and read back (an order JSON loses)."""
    def legal(self, player, made):
        cells = sorted((i for i, v in enumerate(self.board) if v is None), reverse=made)
        return FiniteActionSpace(Mark(i) for i in cells)

    expect_failure(lost_in_json(legal), "json-round-trip")


def test_catches_a_finite_space_read_back_as_continuous():
    """A state read back offers its legal marks as a continuous space: a failure of the
    round trip, not a crash of the harness (a continuous space cannot be listed)."""
    def legal(self, player, made):
        cells = [Mark(i) for i, v in enumerate(self.board) if v is None]
        return FiniteActionSpace(cells) if made else ContinuousActionSpace(lambda rng, k: cells[:k])

    expect_failure(lost_in_json(legal), "json-round-trip")


def test_catches_bad_action_text():
    def parse_action(self, text):
        return Mark(int(text.split()[1]) % 8)
    expect_failure(broken_class(GridGame, {"parse_action": parse_action})(), "action-round-trip")


def test_catches_unrepeatable_games():
    counter = iter(range(10**6))

    def new_state(self, players=2, seed=None, setup=None):
        return GridState(self, [None] * 9, next(counter) % 2)
    expect_failure(broken_class(GridGame, {"new_state": new_state})(), "replay")


def broken_bid(**overrides) -> BidGame:
    """A sealed-bid game whose states have the given methods replaced."""
    state_cls = broken_class(BidState, overrides)

    def new_state(self, players=2, seed=None, setup=None):
        state = BidGame.new_state(self, players, seed)
        state.__class__ = state_cls
        return state

    def state_from_json(self, text):
        state = BidGame.state_from_json(self, text)
        state.__class__ = state_cls
        return state

    return broken_class(BidGame, {"new_state": new_state, "state_from_json": state_from_json})()


def test_catches_observation_leaks():
    leaky = broken_bid(observe=lambda self, p: {**BidState.observe(self, p), "sealed": dict(self.sealed)})
    expect_failure(leaky, "observe-hidden")


def test_catches_scores_that_leak_hidden_parts():
    """A side channel beside observe (issue 13: Anasazi's scores doubled secret objectives):
    scores during play that count the prize of the round still to come."""
    def scores(self):
        ahead = self.prizes[self.round] if self.round < len(self.prizes) else 0
        return [float(w + ahead * (p == 0)) for p, w in enumerate(self.won)]
    expect_failure(broken_bid(scores=scores), "view-hidden")


def test_catches_a_game_view_that_leaks():
    """A game's own view (Anasazi: `view(player)`) that shows the sealed bids."""
    def player_views(self, player):
        return {**BidState.player_views(self, player), "table": dict(self.sealed)}
    expect_failure(broken_bid(player_views=player_views), "view-hidden")


def test_catches_determinize_that_hides_nothing():
    expect_failure(broken_bid(determinize=lambda self, p, rng: self.clone()), "determinize-varies")


def test_catches_infinite_scores():
    expect_failure(broken_grid(scores=lambda self: [float("inf"), 0.0]), "scores-finite")


def test_catches_games_that_never_end():
    game = broken_grid(to_move=lambda self: (self.turn,) if None in self.board else (0,),
                       _legal_actions=lambda self, p: FiniteActionSpace(
                           [Mark(i) for i, v in enumerate(self.board) if v is None]))
    with pytest.raises(HarnessFailure) as caught:
        check_random_games(game, 2, games=1, max_steps=50)
    assert caught.value.property == "terminates"


def test_failure_names_seed_and_step():
    game = broken_grid(clone=lambda self: self)
    with pytest.raises(HarnessFailure, match=r"seed 7, step 0"):
        check_random_games(game, 2, games=1, seed=7)


# -- compiled playouts, checked against the interface ----------------------------------------
def test_sound_playouts_replay():
    playouts = check_playouts(GRID, 2, games=20, seed=3)
    assert len(playouts) == 20 and playouts.decisions.min() >= 5
    assert playouts.actions(0)[0][1] == Mark(int(playouts.log[0, 1]))


def tampered_grid(change) -> GridGame:
    """A grid game whose playouts are altered by `change(playouts) -> Playouts`."""
    game = GridGame()
    sound = game.random_playouts
    game.random_playouts = lambda states, seed=0: change(sound(states, seed))
    return game


def expect_playout_failure(change, prop: str = "playout-replay") -> None:
    with pytest.raises(HarnessFailure) as caught:
        check_playouts(tampered_grid(change), 2, games=10)
    assert caught.value.property == prop, str(caught.value)


def with_log(playouts, edit):
    log = playouts.log.copy()
    edit(log)
    return dataclasses.replace(playouts, log=log)


def test_playouts_catch_an_illegal_choice():
    expect_playout_failure(lambda p: with_log(p, lambda log: log.__setitem__((1, 1), log[0, 1])))


def test_playouts_catch_a_choice_among_other_options():
    expect_playout_failure(lambda p: with_log(p, lambda log: log.__setitem__((0, 2), 8)))


def test_playouts_catch_a_finite_choice_logged_as_continuous():
    expect_playout_failure(lambda p: with_log(p, lambda log: log.__setitem__((0, 2), 0)))


def test_playouts_catch_the_wrong_player():
    expect_playout_failure(lambda p: with_log(p, lambda log: log.__setitem__((0, 0), 1 - log[0, 0])))


def test_playouts_catch_wrong_scores():
    expect_playout_failure(lambda p: dataclasses.replace(p, scores=p.scores + 1))


def test_playouts_catch_wrong_winners():
    expect_playout_failure(lambda p: dataclasses.replace(p, winners=~p.winners))


def test_playouts_catch_an_early_stop():
    def drop_last(p):
        offsets = p.offsets.copy()
        offsets[1] -= 1
        return dataclasses.replace(p, offsets=offsets)
    expect_playout_failure(drop_last)


def test_playouts_catch_unrepeatable_games():
    game = GridGame()
    sound, calls = game.random_playouts, []
    def vary(states, seed=0):
        calls.append(1)
        return sound(states, seed + len(calls))
    game.random_playouts = vary
    with pytest.raises(HarnessFailure) as caught:
        check_playouts(game, 2, games=10)
    assert caught.value.property == "replay"


def test_playouts_from_mid_game_states():
    starts = []
    for seed in range(6):
        state = GRID.new_state(2, seed=seed)
        for cell in (4, 0, 8)[: seed % 4]:
            state.apply(Mark(cell))
        starts.append(state)
    playouts = check_playouts_from(GRID, starts, seed=1)
    assert all(d <= 9 - seed % 4 for seed, d in enumerate(playouts.decisions))  # from the starts


def test_playouts_catch_a_kernel_that_changes_its_states():
    game = GridGame()
    sound = game.random_playouts
    def mark_first(states, seed=0):
        out = sound(states, seed)
        states[0].board[0] = states[0].board[0] if states[0].board[0] is not None else 0
        return out
    game.random_playouts = mark_first
    with pytest.raises(HarnessFailure, match="changed the states"):
        check_playouts(game, 2, games=3)


class CornerGrid(GridGame):
    """Playouts that prefer corners: every choice legal and counted right, another law."""

    def playout_choice(self, empty, rng):
        corners = [i for i in empty if i in (0, 2, 6, 8)] or empty
        return corners[int(rng.integers(len(corners)))]


def test_playout_length_gap_tells_one_law_from_another():
    assert playout_length_gap(GRID, 2, games=1000, seed=5) < 3
    check_playouts(CornerGrid(), 2, games=10)  # passes: only the law differs
    assert playout_length_gap(CornerGrid(), 2, games=1000, seed=5) > 4


# -- setups: every setup a game accepts reads back ----------------------------------------------
def setup_grid(accept, read_turn=lambda turn: turn) -> GridGame:
    """A grid game taking a setup {"board": [...9 cells], "turn": 0|1}: `accept(setup)` checks
    it (raising as the game would), `read_turn` checks the turn read back from JSON."""

    def new_state(self, players=2, seed=None, setup=None):
        setup = setup if setup is not None else {"board": [None] * 9, "turn": 0}
        accept(setup)
        return GridState(self, list(setup["board"]), setup["turn"])

    def from_json(self, text):
        data, history = read_state_json(text)
        state = GridState(self, data["board"], read_turn(data["turn"]))
        state._history_from_json(data, history)
        return state

    def make_setup(self, players, seed):
        return {"board": [None] * 9, "turn": seed % 2}

    return broken_class(GridGame, {"new_state": new_state, "state_from_json": from_json,
                                   "make_setup": make_setup})()


def _sound_setup(setup) -> None:
    if not isinstance(setup, dict) or set(setup) != {"board", "turn"}:
        raise DataError("setup", "expected {board, turn}")
    require(setup["turn"] in (0, 1) and type(setup["turn"]) is int, "turn", "a player 0 or 1")
    board = setup["board"]
    require(isinstance(board, list) and len(board) == 9 and board == [None] * 9, "board", "9 empty cells")


def test_setup_mutants_are_repeatable_and_change_one_place():
    setup = {"board": [None] * 9, "turn": 1, "name": "x", "size": 2.5, "nested": {"a": [1, 2]}}
    original = json.dumps(setup)
    mutants = setup_mutants(setup, seed=4, count=200)
    assert mutants == setup_mutants(setup, seed=4, count=200)
    assert mutants != setup_mutants(setup, seed=5, count=200)
    assert json.dumps(setup) == original  # the setup given is left alone
    assert all(m != setup for _, m in mutants)
    assert any(what.startswith("turn: ") for what, _ in mutants)
    assert any(what.startswith("nested.a[") for what, _ in mutants)
    assert any(what.startswith("board: ") for what, _ in mutants)


def test_sound_setups_pass():
    report = check_setup_mutants(setup_grid(_sound_setup), 2, seed=3, count=150)
    assert report.refused > 0 and report.accepted > 0


def expect_setup_failure(game, prop: str) -> None:
    with pytest.raises(HarnessFailure) as caught:
        check_setup_mutants(game, 2, seed=3, count=150)
    assert caught.value.property == prop, str(caught.value)


def test_catches_an_accepted_setup_whose_state_does_not_read_back():
    def accept_any_turn(setup):
        _sound_setup({**setup, "turn": 0} if isinstance(setup, dict) and type(setup.get("turn")) is int else setup)

    def read_turn(turn):
        require(turn in (0, 1), "turn", "a player 0 or 1")
        return turn

    expect_setup_failure(setup_grid(accept_any_turn, read_turn), "setup-round-trip")


def test_catches_an_accepted_setup_read_back_otherwise():
    expect_setup_failure(setup_grid(lambda setup: _sound_setup({**setup, "turn": 0})
                                    if isinstance(setup, dict) and setup.get("turn") in (0, 1, 2) else _sound_setup(setup),
                                    read_turn=lambda turn: turn % 2), "setup-round-trip")


def test_catches_a_setup_refused_with_a_raw_exception():
    def raw(setup):
        if setup.get("turn") not in (0, 1):
            raise ValueError("bad turn")
        _sound_setup(setup)

    expect_setup_failure(setup_grid(raw), "setup-refused-clearly")


def test_catches_a_setup_refused_without_a_field():
    def pathless(setup):
        try:
            _sound_setup(setup)
        except DataError as e:
            raise DataError("", e.problem) from None

    expect_setup_failure(setup_grid(pathless), "setup-refused-clearly")
