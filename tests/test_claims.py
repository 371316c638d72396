"""Batch claims of scenarios (geomsim.scenario.claims): figures with their intervals, claims
decided holds / fails / undecided, Holm's adjustment over the claims of a scenario, and
comparisons of two figures paired by game."""

from __future__ import annotations

import random
import re

import pytest
from click.testing import CliRunner

from geomsim.cli import cli
from geomsim.scenario import load_scenario
from geomsim.scenario.claims import claim, settle
from geomsim.stats import holm


def game(seed: int, winner_turn: int, players: int = 4) -> dict:
    """A finished game whose sole winner moved `winner_turn`-th (from 0); turn order rotates."""
    order = [(seed + i) % players for i in range(players)]
    winner = order[winner_turn]
    scores = [1.0] * players
    scores[winner] = 5.0
    return {"game": "toy", "seed": seed, "players": players, "bots": ["a"] * players,
            "scores": scores, "winners": [winner], "length": 10, "finished": True,
            "turn_order": order, "trace": {}}


def test_holm_adjusts_in_order_and_keeps_each_claims_place():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5]


def decide(rows, spec, n_claims=1):
    c = claim(rows, spec, None, "in the games")
    return settle([c] * n_claims)[0]


def test_the_fourth_to_move_winning_more_than_the_first_holds_fails_or_is_undecided():
    later = [game(s, 3 if s % 5 else 0) for s in range(200)]  # 4th wins 80%, 1st 20%
    status, text = decide(later, {"turn": 3, "more_than": {"turn": 0}})
    assert status == "pass" and "paired by game" in text and "95% CI" in text
    status, _ = decide([game(s, 0 if s % 5 else 3) for s in range(200)],
                       {"turn": 3, "more_than": {"turn": 0}})
    assert status == "fail"
    status, text = decide([game(s, [3, 0, 1, 2][s % 4]) for s in range(8)],
                          {"turn": 3, "more_than": {"turn": 0}})
    assert status == "undecided" and "games" in text


def test_an_estimate_on_its_bound_does_not_pass():
    """Balance 0.700 against "at least 0.7" passed before: the estimate on the bound says
    nothing either way."""
    rows = [game(s, s % 2) for s in range(40)]  # 1st and 2nd each win half
    status, text = decide(rows, {"turn": 0, "at_least": 0.5})
    assert status == "undecided"
    assert "sits on the bound" in text


def test_undecided_says_how_many_more_games_would_decide():
    rows = [game(s, 0 if s % 3 == 0 else 1) for s in range(30)]  # 1st to move wins 1/3
    status, text = decide(rows, {"turn": 0, "at_most": 0.45})
    assert status == "undecided"
    more = int(text.split("about ")[1].split(" more")[0].replace(",", ""))
    bigger = [game(s, 0 if s % 3 == 0 else 1) for s in range(30 + more * 2)]
    assert decide(bigger, {"turn": 0, "at_most": 0.45})[0] == "pass"


def test_claims_tested_together_need_stronger_evidence():
    rows = [game(s, 0 if s % 10 < 4 else 1 + s % 3) for s in range(100)]  # 1st wins 40%
    alone = decide(rows, {"turn": 0, "at_least": 0.3})
    together = decide(rows, {"turn": 0, "at_least": 0.3}, n_claims=4)
    assert alone[0] == "pass" and together[0] == "undecided"
    assert "Holm, 4 claims" not in alone[1]


def test_a_scenario_asks_whether_the_fourth_to_move_wins_more(tmp_path):
    path = tmp_path / "turns.yaml"
    path.write_text("game: cibola\nplayers: 4\nexpect:\n"
                    "  - analysis: {bots: random, games: 16}\n"
                    "    turn: 3\n"
                    "    more_than: {turn: 0}\n")
    result = CliRunner().invoke(cli, ["run", str(path), "--no-outputs"])
    line = next(s for s in result.output.splitlines() if "4th to move" in s)
    assert "(95% CI" in line and "1st to move" in line
    verdict = "holds" if "holds" in line else "fails" if "fails" in line else "undecided"
    assert result.exit_code == {"holds": 0, "fails": 1, "undecided": 3}[verdict]


@pytest.mark.parametrize("extra, message", [
    ("    turn: 4\n    at_least: 0.1\n", "turn positions are 0 to 3"),
    ("    turn: 1\n    seat: 1\n    at_least: 0.1\n", "one of turn, seat, bot or metric"),
    ("    turn: 1\n    at_least: 0.1\n    margin: 0.1\n", "margin goes with more_than"),
    ("    turn: 1\n    more_than: {bot: greedy}\n", "'greedy' is not in the line-up"),
    ("    turn: 1\n    at_least: 0.1\n    less_than: {turn: 2}\n", "give one of"),
])
def test_malformed_claims_are_one_line_naming_the_field(tmp_path, extra, message):
    path = tmp_path / "bad.yaml"
    path.write_text("game: cibola\nplayers: 4\nexpect:\n  - analysis: {bots: random, games: 4}\n"
                    + extra)
    with pytest.raises(Exception, match=message) as info:
        load_scenario(path)
    assert re.match(rf"{re.escape(str(path))}:\d+: expect\[0\]", str(info.value))
    assert "\n" not in str(info.value)


def test_a_fair_games_balance_is_never_claimed_below_its_bound():
    """Every turn position wins a quarter of 80 games: the estimate is below 1, and a percentile
    bootstrap of it 'proved' Balance below 0.95 for a perfectly even game. The claim must stay
    undecided (the interval reaches 1), while a lopsided batch fails "at least 0.95"."""
    rng = random.Random(4)
    even = [game(s, rng.randrange(4)) for s in range(80)]  # each a quarter, by chance not exactly
    status, text = decide(even, {"metric": "Balance", "at_least": 0.95})
    assert status != "fail", text
    lopsided = [game(s, 0 if s % 10 < 7 else 1 + s % 3) for s in range(120)]  # 1st wins 70%
    assert decide(lopsided, {"metric": "Balance", "at_least": 0.95})[0] == "fail"
