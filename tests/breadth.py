"""The random-game harness over seeds that hypothesis draws (issue 30, item 5).

A game's harness test plays a few games from fixed seeds, with every check, so that a failure
is the same on every run; breadth comes from `harness_over_drawn_seeds`, whose seeds and player
counts hypothesis draws afresh on every run (a failure prints the seed to replay). A deep run
plays more of both: ``GEOMSIM_HARNESS_GAMES=200`` (fixed seeds per player count) and
``GEOMSIM_HARNESS_DRAWN=50`` (drawn games).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomsim.rules import Game
from geomsim.testing import check_random_games

DRAWN_GAMES = int(os.environ.get("GEOMSIM_HARNESS_DRAWN", "2"))


def fixed_games(default: int) -> int:
    """How many fixed-seed games a harness test plays per player count."""
    return int(os.environ.get("GEOMSIM_HARNESS_GAMES", default))


def harness_over_drawn_seeds(game: Game, thorough_every: int) -> Callable[[], None]:
    """A test that runs the harness on games whose seed and player count hypothesis draws."""
    @settings(max_examples=DRAWN_GAMES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(players=st.integers(game.min_players, game.max_players),
           seed=st.integers(0, 2**32 - 1))
    def test(players: int, seed: int) -> None:
        report = check_random_games(game, players, games=1, seed=seed, thorough_every=thorough_every)
        assert report.games == 1 and report.actions_checked > 0

    test.__doc__ = (f"The {game.name} harness on {DRAWN_GAMES} games of seeds and player counts "
                    "drawn afresh each run.")
    return test
