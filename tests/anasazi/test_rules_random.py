"""Random games through the rules interface alone: seeded games of 2, 3 and 4 players pass
every property of `geomsim.testing.check_random_games` (sampled legal actions pass `check`,
illegal ones raise and change nothing, JSON and action round trips, replay, observations and
determinization, finite scores); games of drawn seeds add breadth on every run (tests/breadth.py),
and the compiled player's games replayed through the rules add thousands more
(tests/anasazi/test_playout.py)."""

from __future__ import annotations

import pytest

from games.anasazi import GAME
from geomsim.testing import check_random_games
from tests.breadth import fixed_games, harness_over_drawn_seeds

GAMES = fixed_games(5)  # 0.6-1.5 s of CPU a game
# The costlier checks (observations and determinization above all: a state's JSON, history
# included, for every player and every determinization) every third decision of the fixed-seed
# games: turns are two actions plus the looks and thefts they open, so the sample falls on every
# kind of decision and every phase over the 15 games; the drawn-seed games check every decision.
THOROUGH_EVERY = 3


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games(players):
    report = check_random_games(GAME, players, games=GAMES, seed=1000 * players,
                                thorough_every=THOROUGH_EVERY)
    assert report.games == GAMES and report.illegal_checked > report.games
    assert report.determinize_varied > 0


test_random_games_over_drawn_seeds = harness_over_drawn_seeds(GAME, thorough_every=1)
