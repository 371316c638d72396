"""Game metrics of a batch (geomsim.metrics), each checked on hand-made rows against the answer
its source's definition gives (Ludii's `metrics.single.*` for the Ludii names, worked by hand
here), and on the rows of real games (the trace that play_game records)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geomsim import metrics as mt
from geomsim.bots import play_game
from geomsim.registry import load_game
from geomsim.stats import partial_wins, ranks


def row(seed: int, winners: list[int], length: int = 10, finished: bool = True,
        scores: list[float] | None = None, trace_scores: list | None = None,
        choices: list | None = None, turn_order: list[int] | None = None,
        figures: dict | None = None, trace_figures: dict | None = None, seconds: float = 1.0,
        players: int = 2) -> dict:
    """A row as GameResult.to_row writes it, with what a test sets."""
    trace = {"choices": choices or [], "figures": trace_figures or {}}
    if trace_scores is not None:
        trace["scores"] = trace_scores
    return {"game": "toy", "seed": seed, "players": players, "bots": ["a", "b", "c", "d"][:players],
            "scores": scores or [0.0] * players, "winners": winners if finished else [],
            "length": length, "finished": finished, "first": [0],
            "turn_order": turn_order if turn_order is not None else list(range(players)),
            "figures": figures or {}, "seconds": seconds, "trace": trace,
            "winner": winners[0] if finished and len(winners) == 1 else None}


# -- ranks and partial wins (Ludii's RankUtils) ----------------------------------------------------
def test_ranks_share_the_mean_of_tied_places_and_winners_come_first():
    assert ranks(row(0, [0], scores=[10, 7, 7, 3], players=4)) == [1, 2.5, 2.5, 4]
    # a tie-break winner ranks above an equal score
    assert ranks(row(0, [1], scores=[5, 5, 2], players=3)) == [2, 1, 3]
    assert ranks(row(0, [0, 1], scores=[5, 5, 2], players=3)) == [1.5, 1.5, 3]
    assert ranks(row(0, [], finished=False, players=4)) == [2.5] * 4


def test_partial_wins_are_ludiis_utilities_mapped_to_0_1():
    # utility = 1 - (rank - 1) * 2 / (n - 1); partial win = (utility + 1) / 2
    assert partial_wins(row(0, [0], scores=[10, 7, 7, 3], players=4)) == [1, 0.5, 0.5, 0]
    assert partial_wins(row(0, [0, 1], scores=[4, 4, 1], players=3)) == [0.75, 0.75, 0]


# -- outcomes ---------------------------------------------------------------------------------------
def test_completion_is_the_share_of_games_with_a_sole_winner():
    rows = [row(0, [0]), row(1, [1]), row(2, [], finished=False), row(3, [0, 1])]
    found = mt.metrics(rows)
    assert found["Completion"]["value"] == 0.5  # Ludii: status().winner() != 0
    assert found["Finished"]["value"] == 0.75  # geomsim's own: played to the end


def test_drawishness_counts_only_games_where_every_player_ties():
    rows = [row(0, [0, 1, 2], scores=[3, 3, 3], players=3),  # all tied: a draw
            row(1, [0, 1], scores=[3, 3, 1], players=3),  # a shared win, not a draw
            row(2, [], finished=False, players=3),  # cut short: not a natural draw
            row(3, [2], scores=[1, 2, 3], players=3)]
    found = mt.metrics(rows)
    assert found["Drawishness"]["value"] == 0.25
    assert found["Shared Wins"]["value"] == pytest.approx(2 / 3)  # of the finished games


def two_turn_rows() -> list[dict]:
    a = row(0, [1], scores=[3, 9, 5], turn_order=[1, 2, 0], players=3)  # first mover wins alone
    b = row(1, [0, 1], scores=[4, 4, 1], turn_order=[0, 1, 2], players=3)  # first mover shares
    return [a, b]


def test_advantage_p1_is_the_first_movers_mean_partial_win():
    found = mt.metrics(two_turn_rows())
    assert found["AdvantageP1"]["value"] == pytest.approx((1 + 0.75) / 2)
    assert found["First-Mover Win Rate"]["value"] == pytest.approx((1 + 0.5) / 2)


def test_balance_compares_turn_positions_by_partial_wins():
    # turn position means: 1st (1 + .75)/2, 2nd (.5 + .75)/2, 3rd 0
    found = mt.metrics(two_turn_rows())
    assert found["Balance"]["value"] == pytest.approx(1 - 0.875)
    assert found["Balance"]["by_turn"] == pytest.approx([0.875, 0.625, 0])


def test_turn_positions_are_not_player_numbers():
    """Player 0 wins every game, but moves first, second and third in turn: the turn positions
    are even and the player numbers are not."""
    rows = [row(s, [0], scores=[9, 1, 1], players=3, turn_order=[(s + i) % 3 for i in range(3)])
            for s in range(3)]
    found = mt.metrics(rows)
    assert [t["win_rate"] for t in found["by_turn"]] == pytest.approx([1 / 3] * 3)
    assert [s["win_rate"] for s in found["by_seat"]] == [1, 0, 0]
    assert found["Turn-Order Effect"]["p_equal"] == pytest.approx(1.0)


# -- the course of play (outcome-score traces) ------------------------------------------------------
TRACE = [[0, [0, 0]], [1, [2, 0]], [3, [2, 3]], [4, [2, 5]]]  # before actions 0..3, then the end


def test_lead_change_counts_the_starting_leaders_and_not_the_end():
    # leaders before each action: {0,1} {0} {0} {1}: Ludii counts 3 changes (the first from no
    # leader), the end's {1} is not a state before an action
    assert mt.lead_change(row(0, [1], length=4, trace_scores=TRACE)) == pytest.approx(3 / 4)


def test_decisiveness_is_when_a_winner_passes_the_best_score_a_loser_reached():
    game = row(0, [1], length=4, trace_scores=TRACE)
    assert mt.decisiveness_threshold(game) == 2  # player 0 reached 2 before an action
    assert mt.decisiveness_moves(game) == pytest.approx(3 / 4)  # player 1 is above 2 before action 3
    never = row(1, [1], length=4, trace_scores=[[0, [0, 0]], [1, [2, 0]], [4, [2, 5]]])
    assert mt.decisiveness_moves(never) == 1.0
    assert mt.decided_at_end(never) == 1.0 and mt.decided_at_end(game) == 0.0


def test_rows_without_an_outcome_trace_have_no_lead_metrics():
    found = mt.metrics([row(0, [0]), row(1, [1])])
    assert "Lead Change" not in found and "Decisiveness Moves" not in found


# -- decisions ---------------------------------------------------------------------------------------
def test_branching_factor_and_decision_moves_average_games_as_ludii_does():
    rows = [row(0, [0], length=4, choices=[2, 2, 1, 3]), row(1, [1], length=1, choices=[1])]
    found = mt.metrics(rows)
    assert found["Branching Factor"]["value"] == pytest.approx((2 + 1) / 2)  # not 9 / 5 pooled
    assert found["Decision Moves"]["value"] == pytest.approx((3 / 4 + 0) / 2)
    assert "Finite Branching Factor" not in found and "Continuous Decisions" not in found


def test_continuous_decisions_are_named_apart_from_the_branching_factor():
    rows = [row(0, [0], length=4, choices=[None, 3, None, 1])]
    found = mt.metrics(rows)
    assert "Branching Factor" not in found
    assert found["Finite Branching Factor"]["value"] == 2
    assert found["Continuous Decisions"]["value"] == 0.5
    assert found["Decision Moves"]["value"] == 0.75  # a continuum is more than one action


# -- intervals and files -----------------------------------------------------------------------------
def test_every_metric_carries_its_interval_around_its_value():
    rows = [row(s, [s % 2], length=5 + s, choices=[2] * (5 + s), seconds=0.1 * s,
                trace_scores=[[0, [0, 0]], [2, [s % 2 == 0, s % 2 == 1]]]) for s in range(40)]
    found = mt.metrics(rows)
    for m in mt.METRICS:
        if m.name in found:
            low, high = found[m.name]["ci95"]
            assert low <= found[m.name]["value"] <= high, m.name
    d = found["Duration Moves"]
    assert d["ci95"][0] < d["value"] < d["ci95"][1]  # lengths vary: a real interval
    assert mt.metrics(rows)["Duration Moves"]["ci95"] == d["ci95"]  # reproducible
    narrow = mt.metrics(rows * 4)["Duration Moves"]["ci95"]
    assert narrow[1] - narrow[0] < d["ci95"][1] - d["ci95"][0]


def test_metrics_write_files_that_name_their_definitions(tmp_path):
    rows = [row(1, [0], length=4, choices=[2, 2, 1, 3], figures={"ending": "deck", "rocks": 3},
                seconds=0.5),
            row(0, [1], length=6, choices=[1], figures={"ending": "deck", "rocks": 5},
                seconds=1.5)]
    found = mt.write_metrics(tmp_path, rows, {"geomsim": "x", "rules": "toy/1"})
    assert found["Duration Moves"]["value"] == 5 and found["versions"]["rules"] == "toy/1"
    assert found["figures"]["rocks"]["mean"] == 4 and "ending" not in found["figures"]
    assert json.loads((tmp_path / "metrics.json").read_text()) == found
    text = (tmp_path / "metrics.md").read_text()
    assert "docs/metrics.md" in text and "| Ending | deck 100.0%" in text
    assert "| Balance | 1.000 (95% CI" in text  # each turn position won one game


def test_every_metric_is_defined_in_the_docs():
    from pathlib import Path

    doc = (Path(__file__).parents[1] / "docs" / "metrics.md").read_text()
    for name in [m.name for m in mt.METRICS] + ["Balance", "Turn-Order Effect"]:
        assert f"### {name}" in doc, name


# -- real games --------------------------------------------------------------------------------------
def test_rows_of_real_games_carry_the_trace_the_metrics_read():
    """play_game records the outcome scores and the legal actions of every decision: the last
    scores are the final ones, and there is one count per action."""
    result = play_game(load_game("cibola"), 3, ["greedy", "random", "random"], seed=4)
    found = result.to_row()
    assert len(found["trace"]["choices"]) == result.length
    assert found["trace"]["scores"][0][0] == 0 and found["trace"]["scores"][-1][1] == result.scores
    assert sorted(found["turn_order"]) == [0, 1, 2]
    assert found["versions"]["rules"] == "cibola/1" and found["versions"]["rows"] == 2
    assert mt.lead_for_good(found) <= result.length


def test_anasazi_traces_the_lead_with_the_objectives_revealed():
    """anasazi/5.1/objective-double: the public score leaves the secret objective cards out;
    the outcome score doubles them, as the end of the game will."""
    game = load_game("anasazi")
    result = play_game(game, 2, ["greedy", "greedy"], seed=1, max_steps=40)
    state = game.new_state(2, seed=1)
    row_ = result.to_row()
    assert row_["turn_order"] == state.turn_order() == state.seat_order()
    traced = [s for _, s in row_["trace"]["scores"]]
    assert any(sum(s) > 0 for s in traced)
    # the last traced scores are what the rules would give now: objectives doubled
    from geomsim.bots import play_out

    end, _ = play_out(game, 2, ["greedy", "greedy"], 1, max_steps=40)
    assert traced[-1] == end.outcome_scores()
    assert end.outcome_scores() >= end.revealed_scores()
    assert any(a > b for a, b in zip(end.outcome_scores(), end.scores())) or not any(end.scores())


def test_every_metric_has_a_one_line_definition_for_reports():
    names = [m.name for m in mt.METRICS] + ["Balance", "Turn-Order Effect", "Ending"]
    assert set(names) <= set(mt.DEFINITIONS)
    assert all(d.split(":")[0] in ("Ludii", "geomsim") for d in mt.DEFINITIONS.values())
    assert all(mt.DEFINITIONS[m.name].startswith(m.source) for m in mt.METRICS)


def _positions_batch(rng, chances, games: int):
    """Per-game partial wins by turn position (one column per position) of a batch in which
    position i wins with chance chances[i] (one sole winner a game)."""
    won = rng.choice(len(chances), size=games, p=chances)
    columns = np.zeros((len(chances), games))
    columns[won, np.arange(games)] = 1.0
    return columns


def test_balance_interval_covers_a_fair_games_one():
    """A perfectly fair game has Balance 1, and its estimate on any finite batch lies below 1
    (the largest of noisy gaps): the interval must still reach 1 in about 95% of batches. A
    percentile bootstrap of Balance covered it in none of 60 batches."""
    rng = np.random.default_rng(7)
    found = [mt.balance_of_columns(_positions_batch(rng, [0.25] * 4, 60)) for _ in range(60)]
    covered = sum(f["ci95"][1] >= 1.0 for f in found)
    assert covered >= 52, covered  # 95% of 60 is 57
    assert all(f["value"] < 1.0 for f in found)


def test_balance_interval_covers_an_unfair_games_balance_and_excludes_one():
    """Positions winning 55%, 15%, 15%, 15%: Balance 0.6. Over 40 batches of 200 games the
    interval holds 0.6 at least as often as it claims and never reaches 1."""
    rng = np.random.default_rng(8)
    found = [mt.balance_of_columns(_positions_batch(rng, [0.55, 0.15, 0.15, 0.15], 200))
             for _ in range(40)]
    assert sum(f["ci95"][0] <= 0.6 <= f["ci95"][1] for f in found) >= 36
    assert all(f["ci95"][1] < 1.0 for f in found)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.integers(2, 40), st.integers(0, 2**32 - 1))
def test_balance_interval_holds_its_estimate_within_0_and_1(positions, games, seed):
    rng = np.random.default_rng(seed)
    found = mt.balance_of_columns(_positions_batch(rng, [1 / positions] * positions, games))
    low, high = found["ci95"]
    assert 0.0 <= low <= found["value"] <= high <= 1.0


def test_the_farthest_turn_positions_interval_covers_a_fair_game_as_a_95_interval_should():
    """The farthest of four positions is picked for being far: in fair batches its interval
    must still cover the even chance about 95% of the time (the position's own Wilson interval
    covered it in only about 82% of 100-game batches)."""
    rng = np.random.default_rng(7)
    covered, batches = 0, 400
    for _ in range(batches):
        winners = rng.integers(4, size=100)
        rows = [row(s, [int(w)], scores=[0, 0, 0, 0], players=4) for s, w in enumerate(winners)]
        low, high = mt.turn_order_effect(rows)["ci95"]
        covered += low <= 0.25 <= high
    assert covered / batches >= 0.91
