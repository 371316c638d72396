"""A determinization is drawn from what its player may know and the rng alone (issue 25):
nothing in it, the setup's seed included, lets the true hidden parts be computed again."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geomsim
from games.anasazi import GAME as ANASAZI
from games.anasazi.rules import AnasaziState
from geomsim.rules import State
from geomsim.testing import HarnessFailure, check_from_state
from tests.test_testing import broken_bid, expect_failure

PLAYERS = {"anasazi": 2, "cibola": 3, "aztekz": 2}


def _played(game: str, seed: int, steps: int) -> State:
    """A state `steps` random decisions into the game of `seed` (fewer if it ends before)."""
    state = geomsim.load_game(game).new_state(PLAYERS[game], seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_over():
            break
        player = state.to_move()[int(rng.integers(len(state.to_move())))]
        state.apply(state.legal_actions(player).sample(rng, 1)[0], player)
    return state


@pytest.mark.parametrize("game", sorted(PLAYERS))
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 50), steps=st.integers(0, 60), draw=st.integers(0, 2**32))
def test_determinization_depends_on_the_view_only(game, seed, steps, draw):
    """Two states a player cannot tell apart (the true one, and one of its determinizations
    taken as the truth) give the same determinization for the same rng, JSON member for
    member: what is drawn does not depend on the hidden parts of the state it is drawn from."""
    truth = _played(game, seed, steps)
    for p in range(truth.num_players):
        other = truth.determinize(p, np.random.default_rng(draw))
        assert other.observe(p) == truth.observe(p)
        for s in (draw + 1, draw + 2):
            assert (truth.determinize(p, np.random.default_rng(s)).to_json()
                    == other.determinize(p, np.random.default_rng(s)).to_json())


@pytest.mark.parametrize("steps", [0, 8, 30])  # before and after the objective cards are dealt
def test_anasazi_determinization_has_no_seed_to_deal_the_truth_again(steps):
    truth = _played("anasazi", 4, steps)
    assert isinstance(truth, AnasaziState) and truth.seed == 4
    dealt = ANASAZI.make_setup(2, 4)
    assert dealt["towers"] == truth.setup.towers  # the seed deals the true towers again
    for p in range(2):
        for s in range(5):
            other = truth.determinize(p, np.random.default_rng(s))
            assert isinstance(other, AnasaziState)
            assert other.seed is None and other.setup.seed is None
            text = other.to_json()
            assert json.loads(text)["deal"]["seed"] is None
            assert ANASAZI.state_from_json(text).to_json() == text


def test_harness_catches_a_determinization_that_keeps_the_seed(monkeypatch):
    drawn = AnasaziState.determinize

    def keeps_seed(self, player, rng):
        other = drawn(self, player, rng)
        other.seed, other._setup, other._deal_text = self.seed, None, None
        return other

    monkeypatch.setattr(AnasaziState, "determinize", keeps_seed)
    with pytest.raises(HarnessFailure) as caught:
        check_from_state(ANASAZI.new_state(2, seed=4), checked_steps=1)
    assert caught.value.property == "determinize-blind" and "true seed 4" in str(caught.value)


def test_harness_catches_a_determinization_that_shuffles_the_truth():
    """The prizes to come, hidden, drawn as a shuffle of the true ones: each determinization
    agrees with the observation, but together they give the true prizes away."""
    def determinize(self, player, rng):
        other = self.clone()
        future = self.prizes[self.round:]
        other.prizes = self.prizes[:self.round] + [future[i] for i in rng.permutation(len(future))]
        return other

    expect_failure(broken_bid(determinize=determinize), "determinize-blind")


def test_harness_passes_the_games():
    """The harness's check of determinizations holds for the three games (a short game each;
    their own tests play more)."""
    for game in PLAYERS:
        report = check_from_state(_played(game, 1, 4), checked_steps=6)
        assert report.determinized >= 6
