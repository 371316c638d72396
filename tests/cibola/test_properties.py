"""Properties of random games: invariants at every step, JSON round trips, the shared harness."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.cibola import GAME, validation
from games.cibola.rules import totem_pool
from geomsim.testing import check_random_games
from tests.breadth import fixed_games, harness_over_drawn_seeds
from tests.cibola.helpers import COMPONENTS

# 12 games per player count (0.2-0.3 s of CPU each), and games of drawn seeds (tests/breadth.py);
# the compiled player's games replayed through the rules add thousands (test_playout.py);
# the harness's costlier checks run every 3rd decision, which reaches every phase of a round
# (CIBOLA_HARNESS_THOROUGH_EVERY=1 checks every decision).
HARNESS_GAMES = fixed_games(12)
THOROUGH_EVERY = int(os.environ.get("CIBOLA_HARNESS_THOROUGH_EVERY", "3"))


def _invariants(state) -> None:
    """What no legal play can break: the checks a state read back must pass (explorers, cards
    and totems conserved; rocks <= 13, no column fully covered; the stage and decisions agree)."""
    pool = totem_pool(COMPONENTS, state.options)
    validation.check_items(state.to_dict(), COMPONENTS, pool, state.explorers_in_game)
    validation.check_stage(state)


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_random_games_keep_invariants(players, seed, data):
    """Explorers (24), cards (32), totems (10) are conserved; rocks <= 13; no column fully covered;
    the JSON of any moment reads back to the same state."""
    state = GAME.new_state(players, seed=seed)
    picks = data.draw(st.lists(st.integers(0, 10**6), min_size=120, max_size=120))
    for step, pick in enumerate(picks):
        _invariants(state)
        if state.is_over():
            break
        movers = state.to_move()
        player = movers[pick % len(movers)]
        actions = state.legal_actions(player)
        state.apply(actions[(pick // 7) % len(actions)], player)
        if step % 17 == 0:
            assert GAME.state_from_json(state.to_json()).to_json() == state.to_json()
    assert state.is_over() and len(state.scores()) == players
    assert GAME.state_from_json(state.to_json()).scores() == state.scores()
    assert json.loads(state.to_json())["stage"] == "over"


@settings(max_examples=30, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_setup_json_round_trip(players, seed):
    """make_setup is JSON that gives back the seeded state."""
    setup = json.loads(json.dumps(GAME.make_setup(players, seed)))
    assert GAME.new_state(players, setup=setup).to_json() == GAME.new_state(players, seed=seed).to_json()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_harness_random_games(players):
    """geomsim.testing.check_random_games: the rules-interface contract over random games."""
    report = check_random_games(GAME, players=players, games=HARNESS_GAMES, seed=1000 * players,
                                thorough_every=THOROUGH_EVERY)
    assert report.games == HARNESS_GAMES and report.illegal_checked > 0
    assert report.determinize_varied > 0


test_harness_over_drawn_seeds = harness_over_drawn_seeds(GAME, THOROUGH_EVERY)
