"""The planner values a game by the options in force, not by the rulebook's numbers."""

from __future__ import annotations

import numpy as np

from games.anasazi import GAME
from games.anasazi.planner import Belief

HANDS = np.array([[2.0, 0, 0, 0], [0, 0, 0, 0]])  # player 0 holds the majority of one colour
TRACK = np.zeros(4)


def belief(**options: object) -> Belief:
    return Belief.of(GAME.new_state(2, seed=3, options=options or None), 0)


def test_without_bonus_treasures_a_majority_earns_nothing_more():
    """anasazi/5.1/bonus under the option bonus_treasures=false."""
    assert belief().scores(HANDS, TRACK)[0] > belief(bonus_treasures=False).scores(HANDS, TRACK)[0]


def test_the_objective_multiplier_weighs_the_expected_objective():
    """anasazi/5.1/objective-double under the option objective_multiplier=3."""
    assert (belief(objective_multiplier=3).scores(HANDS, TRACK)[0]
            > belief().scores(HANDS, TRACK)[0])


def test_the_towers_that_end_the_game_come_from_the_option():
    """anasazi/5.0/end-towers (the option towers_to_end): a look-ahead ends the game there."""
    assert belief().towers_to_end == 4 and belief(towers_to_end=2).towers_to_end == 2
    short = belief(towers_to_end=1)
    tower = next(iter(short.towers))  # the table's towers, their colours unseen
    # under towers_to_end=1 taking any tower ends the game: the end's prize or penalty counts
    assert short.gain([tower], False, False) != belief().gain([tower], False, False)
