"""Properties of random Aztekz games: invariants at every step, exact JSON round trips, hidden
information, and the shared random-simulation harness."""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from games.aztekz import GAME
from games.aztekz import validation
from games.aztekz.rules import AztekzState
from geomsim.rules import State
from geomsim.testing import check_random_games
from tests.aztekz.builders import random_game
from tests.breadth import fixed_games, harness_over_drawn_seeds

# A random Aztekz game is long (about 700 decisions, most after the 5 x 5 grid is full): the
# harness checks every decision's legal actions, and runs its costlier checks (JSON round trip,
# observations, illegal actions, clones) every 7th decision, which reaches every phase of a turn.
# Two fixed seeds per player count (about 1-2 s of CPU a game), and games of drawn seeds
# (tests/breadth.py); the compiled player's games replayed through the rules add the breadth
# of thousands (tests/aztekz/test_playout.py).
HARNESS_GAMES = fixed_games(2)
THOROUGH_EVERY = int(os.environ.get("AZTEKZ_HARNESS_THOROUGH_EVERY", "7"))


def check_invariants(state: AztekzState) -> None:
    """What no sequence of legal actions may break: the checks a state read back must pass
    (48 cards and 48 souls conserved, heroes on cards and within reach, piles of two or more)."""
    validation.check_state(state)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), seed=st.integers(0, 2**31 - 1))
def test_random_games_keep_invariants(players, seed):
    """Souls and cards conserved, at most 4 heroes a card, 5 x 5, every chief reaches a slave."""
    final = random_game(players, seed, every=check_invariants)
    assert final.is_over() and len(final.scores()) == players
    assert final.winners() and all(np.isfinite(final.scores()))


@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**31 - 1), steps=st.integers(0, 400))
@example(players=2, seed=9852310, steps=132)  # covered cards listed in the grid's order once
@example(players=2, seed=383, steps=340)  # the game over before the last step
def test_json_round_trip_and_replay(players, seed, steps):
    """A state restored from its JSON writes the same JSON, and plays on exactly as the original."""
    state = random_game(players, seed, max_steps=steps)
    text = state.to_json()
    assert text == State.to_json(state)  # the fast writer writes what the engine would
    restored = GAME.state_from_json(text)
    assert restored.to_json() == text
    for player in state.to_move():  # none once the game is over
        assert list(restored.legal_actions(player)) == list(state.legal_actions(player))
    rng = np.random.default_rng(seed)
    for _ in range(30):
        if state.is_over():
            break
        actions = list(state.legal_actions())
        action = actions[int(rng.integers(len(actions)))]
        assert state.apply(action) == restored.apply(action)
    assert restored.to_json() == state.to_json()


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), steps=st.integers(20, 500))
def test_observe_hides_the_face_down_order(seed, steps):
    """Observations show the piles' sizes and the publicly returned bottoms, never their order."""
    state = random_game(3, seed, max_steps=steps)
    rng = np.random.default_rng(seed)
    for player in range(3):
        seen = state.observe(player)
        assert seen["deck"]["size"] == len(state.deck)
        other = state.determinize(player, rng)
        assert other.observe(player) == seen
        assert Counter(other.deck) == Counter(state.deck)
        assert Counter(other.supply) == Counter(state.supply)
        hidden = len(state.deck) - state.deck_known
        assert other.deck.cards[hidden:] == state.deck.cards[hidden:]  # the returned bottom stays


def test_determinize_varies_the_unseen_deck():
    """Determinizations shuffle the unseen deck and souls (and so the next card drawn)."""
    state = GAME.new_state(2, seed=11)
    rng = np.random.default_rng(0)
    tops = {state.determinize(0, rng).deck.peek(3)[0] for _ in range(20)}
    souls = {tuple(state.determinize(1, rng).supply.peek(3)) for _ in range(20)}
    assert len(tops) > 1 and len(souls) > 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_harness(players):
    """The shared random-simulation harness passes every property of the rules interface."""
    report = check_random_games(GAME, players=players, games=HARNESS_GAMES, seed=100 * players,
                                thorough_every=THOROUGH_EVERY)
    assert report.games == HARNESS_GAMES and report.illegal_checked > 0


test_harness_over_drawn_seeds = harness_over_drawn_seeds(GAME, THOROUGH_EVERY)
