"""Random games through the rules interface alone: 100 seeded games each of 2, 3 and 4 players
pass every property of `geomsim.testing.check_random_games` (sampled legal actions pass `check`,
illegal ones raise and change nothing, JSON and action round trips, replay, observations and
determinization, finite scores)."""

from __future__ import annotations

import pytest

from games.anasazi import GAME
from geomsim.testing import check_random_games


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games(players):
    report = check_random_games(GAME, players, games=100, seed=1000 * players)
    assert report.games == 100 and report.illegal_checked > report.games
    assert report.determinize_varied > 0
