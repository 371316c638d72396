"""Game metrics of a batch (geomsim.metrics), each checked on hand-made rows with known answers,
and on the rows of real games (the trace that play_game records)."""

from __future__ import annotations

import json

import pytest

from geomsim import metrics as mt
from geomsim.bots import play_game
from geomsim.registry import load_game


def row(seed: int, winners: list[int], length: int = 10, finished: bool = True,
        leaders: list | None = None, choices: list | None = None, first: list | None = None,
        figures: dict | None = None, trace_figures: dict | None = None, seconds: float = 1.0,
        players: int = 2) -> dict:
    """A row as GameResult.to_row writes it, with what a test sets."""
    trace = {"leaders": leaders or [], "choices": choices or [], "figures": trace_figures or {}}
    return {"game": "toy", "seed": seed, "players": players, "bots": ["a", "b"][:players] or [],
            "scores": [0.0] * players, "winners": winners if finished else [], "length": length,
            "finished": finished, "first": first if first is not None else [0],
            "figures": figures or {}, "seconds": seconds, "trace": trace,
            "winner": winners[0] if finished and len(winners) == 1 else None}


def test_completion_counts_games_played_to_the_end():
    rows = [row(0, [0]), row(1, [1]), row(2, [], finished=False), row(3, [0])]
    assert mt.completion(rows) == 0.75


def test_drawishness_is_the_share_of_shared_wins_among_finished_games():
    rows = [row(0, [0, 1]), row(1, [1]), row(2, [0]), row(3, [0, 1]), row(4, [], finished=False)]
    assert mt.drawishness(rows) == 0.5


def test_balance_is_one_less_the_largest_gap_between_seats():
    # seat 0 wins 3 games and half of one (3.5 / 5), seat 1 one and a half (1.5 / 5)
    rows = [row(0, [0]), row(1, [0]), row(2, [0]), row(3, [0, 1]), row(4, [1])]
    assert mt.seat_rates(rows) == pytest.approx([0.7, 0.3])
    assert mt.balance(rows) == pytest.approx(0.6)
    dev = mt.seat_deviation(rows)
    assert dev["seat"] == 0 and dev["deviation"] == pytest.approx(0.2)
    assert dev["ci95"][0] < 0.7 < dev["ci95"][1]


def test_a_balanced_batch_has_balance_one():
    rows = [row(0, [0]), row(1, [1])]
    assert mt.balance(rows) == 1.0
    assert mt.seat_deviation(rows)["deviation"] == 0.0


def test_advantage_p1_is_the_win_rate_of_whoever_moved_first():
    rows = [row(0, [0], first=[0]), row(1, [0], first=[1]), row(2, [1], first=[1]),
            row(3, [0, 1], first=[0]), row(4, [0], first=[0, 1])]  # simultaneous: left out
    first = mt.advantage_first(rows)
    assert first["games"] == 4 and first["win_rate"] == pytest.approx((1 + 0 + 1 + 0.5) / 4)


def test_endings_share_the_games_by_the_figure_ending():
    rows = [row(0, [0], figures={"ending": "markers"}), row(1, [0], figures={"ending": "towers"}),
            row(2, [0], figures={"ending": "markers"}), row(3, [], finished=False),
            row(4, [1])]
    found = mt.endings(rows)
    assert {k: v["games"] for k, v in found.items()} == {"markers": 2, "towers": 1,
                                                          "unfinished": 1, "unknown": 1}
    assert found["markers"]["share"] == 0.4


def test_lead_change_counts_changes_of_the_leading_seats_per_action():
    a = row(0, [1], length=10, leaders=[[0, [0, 1]], [2, [0]], [5, [1]], [10, [1]]])
    b = row(1, [0], length=20, leaders=[[0, [0, 1]], [3, [0]]])
    assert mt.lead_changes(a) == 3 and mt.lead_changes(b) == 1
    assert mt.lead_change([a, b]) == pytest.approx((3 / 10 + 1 / 20) / 2)


def test_the_lead_is_taken_for_good_where_the_winner_leads_alone_to_the_end():
    came_back = row(0, [1], length=10, leaders=[[0, [0, 1]], [2, [1]], [4, [0]], [7, [1]]])
    assert mt.lead_for_good(came_back) == 7
    at_once = row(1, [0], length=10, leaders=[[0, [0, 1]], [1, [0]]])
    assert mt.lead_for_good(at_once) == 1
    # tied on points at the end, won on the tie-break: decided only by the end
    tie_break = row(2, [0], length=10, leaders=[[0, [0, 1]], [3, [1]], [10, [0, 1]]])
    assert mt.lead_for_good(tie_break) == 10
    last_action = row(3, [1], length=10, leaders=[[0, [0, 1]], [4, [0]], [10, [1]]])
    assert mt.lead_for_good(last_action) == 10
    assert mt.lead_for_good(row(4, [0, 1], leaders=[[0, [0, 1]]])) is None
    found = mt.decisiveness([came_back, at_once, tie_break, last_action])
    assert found["Decisiveness Moves"] == pytest.approx((0.7 + 0.1 + 1.0 + 1.0) / 4)
    assert found["Decided At End"] == 0.5
    assert found["action"]["max"] == 10 and found["sole winners"] == 4


def test_branching_factor_averages_the_finite_decisions():
    a = row(0, [0], choices=[3, 1, None, 4])
    b = row(1, [1], choices=[2, None], trace_figures={"legal share": {"mean": 0.5, "n": 2}})
    c = row(2, [1], trace_figures={"legal share": {"mean": 0.3, "n": 1}})
    found = mt.branching([a, b, c])
    assert found["Branching Factor"] == pytest.approx((3 + 1 + 4 + 2) / 4)
    assert found["Decision Moves"] == 0.75
    assert found["choice figures"]["legal share"]["mean"] == pytest.approx(0.4)


def test_metrics_name_ludii_metrics_and_write_files(tmp_path):
    rows = [row(1, [0], length=4, leaders=[[0, [0, 1]], [1, [0]]], choices=[2, 2, 1, 3],
                figures={"ending": "deck", "rocks": 3}, seconds=0.5),
            row(0, [1], length=6, leaders=[[0, [0, 1]], [6, [1]]], choices=[1],
                figures={"ending": "deck", "rocks": 5}, seconds=1.5)]
    found = mt.write_metrics(tmp_path, rows)
    assert found["games"] == 2 and found["sole winners"] == 2
    for name in ("Completion", "Drawishness", "Balance", "AdvantageP1", "Duration Moves",
                 "Lead Change", "Decisiveness Moves", "Branching Factor", "Decision Moves"):
        assert name in found
    assert found["Duration Moves"]["mean"] == 5 and found["Duration Seconds"]["max"] == 1.5
    assert found["figures"]["rocks"]["mean"] == 4 and "ending" not in found["figures"]
    assert json.loads((tmp_path / "metrics.json").read_text()) == found
    text = (tmp_path / "metrics.md").read_text()
    assert "| Balance | 1.000 |" in text and "| Ending | deck 100.0%" in text


def test_rows_of_real_games_carry_a_trace_the_metrics_read():
    """play_game records the leaders and the legal actions of every decision: the final
    leaders are the winners (Cibola, no tie), and there is one count per action."""
    result = play_game(load_game("cibola"), 3, ["greedy", "random", "random"], seed=4)
    trace = result.to_row()["trace"]
    assert len(trace["choices"]) == result.length
    assert trace["leaders"][0][0] == 0 and trace["leaders"][-1][1] == result.winners
    assert all(c is not None and c >= 1 for c in trace["choices"])
    assert result.figures["ending"] == "deck"
    assert mt.lead_for_good(result.to_row()) <= result.length
