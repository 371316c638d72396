"""`geomsim ladder` (issue 28, item 3): the balanced rotation, paired deals, the Bradley-Terry
fit on hand-made results with known answers, resuming, decision times and bots from outside."""

from __future__ import annotations

import json
import math
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geomsim import cli
from geomsim.analysis import local_pool, read_rows
from geomsim.batch import Batch
from geomsim.bots import make_bot, play_game, play_out
from geomsim.ladder import (
    deals_played,
    fit_ratings,
    ladder_batch,
    ladder_summary,
    pairwise_by_deal,
    rotation,
    run_ladder,
)
from geomsim.rules import Action, FiniteActionSpace, Player, State
from tests.toygames import GRID

TOY = "tests.toygames:GRID"
THINK = {"greedy": 0.002}  # seconds a decision of the hand-made rows (others: a millisecond)


# -- a bot from outside geomsim, seated as tests.test_ladder:make_first_legal ------------------


class FirstLegal:
    """Plays the first legal action (a bot written outside geomsim)."""

    spec = "first-legal"

    def choose(self, state: State, player: Player, rng: np.random.Generator) -> Action:
        space = state.legal_actions(player)
        assert isinstance(space, FiniteActionSpace)
        return space[0]


def make_first_legal() -> FirstLegal:
    return FirstLegal()


def make_nothing() -> int:
    return 3


# -- the rotation ----------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(k=st.integers(1, 9), players=st.integers(2, 5))
def test_every_bot_sits_in_every_turn_position_equally_often(k: int, players: int) -> None:
    bots = [f"bot{i}" for i in range(k)]
    lineups = rotation(bots, players)
    seats = Counter((position, bot) for lineup in lineups for position, bot in enumerate(lineup))
    assert all(len(lineup) == players for lineup in lineups)
    assert len(set(seats.values())) == 1 and len(seats) == k * players
    if k >= players:  # no bot plays against itself when there are seats enough
        assert all(len(set(lineup)) == players for lineup in lineups)
    met = {frozenset(p) for lineup in lineups for p in combinations(set(lineup), 2)}
    assert met == {frozenset(p) for p in combinations(bots, 2)}


def test_a_round_plays_one_deal_and_the_next_round_another() -> None:
    batch = ladder_batch(TOY, 2, ["random", "greedy", "ismcts:4"], seed=10, deals=3)
    assert len(batch.lineups) == 3 and deals_played(batch) == 3
    assert [batch.deal(s) for s in batch.seeds()] == [10] * 3 + [13] * 3 + [16] * 3
    assert [batch.lineup(s) for s in (10, 11, 12)] == [list(x) for x in batch.lineups]
    # A batch without line-ups keeps its seeds, its rotation and its batch.json.
    plain = Batch(TOY, 2, ("greedy", "random"), 5, 4)
    assert plain.deal(7) == 7 and "lineups" not in plain.record()


def test_a_deal_is_the_setup_of_its_seed_and_decisions_are_timed() -> None:
    from tests.toygames import BID

    assert BID.new_state(2, seed=0).prizes != BID.new_state(2, seed=5).prizes
    end, dealt = play_out(BID, 2, ["random", "greedy"], seed=5, deal=0, timed=True)
    assert getattr(end, "prizes") == BID.new_state(2, seed=0).prizes and dealt.deal == 0
    assert sum(len(s) for s in dealt.decision_seconds) == dealt.length
    assert all(t >= 0 for s in dealt.decision_seconds for t in s)
    row = play_game(BID, 2, ["random", "greedy"], seed=5).to_row()
    assert "deal" not in row and "decision_seconds" not in row  # other rows are as before


# -- the fit, on hand-made results -----------------------------------------------------------------


def _rows(batch: Batch, winner_of: Any) -> list[dict[str, Any]]:
    """Rows of 2-player games of `batch` where `winner_of(lineup, seed)` is the turn position
    that wins (None: a tie)."""
    rows = []
    for seed in batch.seeds():
        lineup = batch.lineup(seed)
        order = [1, 0] if seed % 2 else [0, 1]  # who moves first changes: the fit must follow it
        win = winner_of(lineup, seed)
        scores = [0.0, 0.0]
        winners = [0, 1] if win is None else [order[win]]
        for w in winners:
            scores[w] = 1.0
        rows.append({"game": "toy-grid", "seed": seed, "players": 2, "finished": True,
                     "bots": ["?", "?"], "scores": scores, "winners": winners,
                     "turn_order": order, "length": 5,
                     "decision_seconds": [[THINK.get(lineup[order.index(s)], 0.001)] * 3
                                          for s in range(2)]})
    return rows


def _by_bot(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["bot"]: e for e in summary["ratings"]}


def test_a_bot_that_always_wins_is_rated_above_with_a_separated_interval() -> None:
    batch = ladder_batch(TOY, 2, ["random", "strong", "weak"], 0, deals=20)
    rank = {"strong": 0, "random": 1, "weak": 1}

    def winner(lineup: list[str], seed: int) -> int | None:
        a, b = (rank[x] for x in lineup)
        return None if a == b else 0 if a < b else 1

    summary = ladder_summary(batch, _rows(batch, winner))
    found = _by_bot(summary)
    assert [e["bot"] for e in summary["ratings"]][0] == "strong"
    assert found["strong"]["ci95"][0] > max(found["random"]["ci95"][1], found["weak"]["ci95"][1])
    assert found["strong"]["win_rate"] == 1.0 and found["strong"]["games"] == 40
    assert found["random"]["rating"] == 0 and found["random"]["ci95"] == [0, 0]
    assert not summary["separated"]  # random and weak always tie: never separated


def test_two_equal_bots_overlap_and_random_is_at_zero() -> None:
    batch = ladder_batch(TOY, 2, ["random", "a", "b"], 0, deals=30)
    rng = np.random.default_rng(4)

    def winner(lineup: list[str], seed: int) -> int:
        if "random" in lineup:  # a and b beat random three times in four
            return lineup.index("random") ^ int(rng.random() < 0.75)
        return int(rng.integers(2))

    found = _by_bot(ladder_summary(batch, _rows(batch, winner)))
    a, b = found["a"], found["b"]
    assert a["ci95"][0] < b["ci95"][1] and b["ci95"][0] < a["ci95"][1]
    assert found["random"]["rating"] == 0
    # 3 to 1 is log10(3) * 400 = 191 Elo points; each interval holds it.
    for e in (a, b):
        assert e["ci95"][0] < 191 < e["ci95"][1] and e["ci95"][0] > 0


def test_without_random_the_lowest_bot_is_anchored_and_the_table_says_so() -> None:
    batch = ladder_batch(TOY, 2, ["x", "y"], 0, deals=10)
    summary = ladder_summary(batch, _rows(batch, lambda lineup, seed: lineup.index("y")))
    assert _by_bot(summary)["x"]["rating"] == 0 and _by_bot(summary)["y"]["rating"] > 0
    assert "no random bot" in summary["anchor_note"] and "x" in summary["anchor_note"]
    assert summary["separated"]


def test_an_incomplete_deal_is_left_out_of_the_fit() -> None:
    batch = ladder_batch(TOY, 2, ["random", "a"], 0, deals=3)
    rows = _rows(batch, lambda lineup, seed: 0)
    assert pairwise_by_deal(batch, rows[:-1]).shape[0] == 2
    fit = fit_ratings(batch.bots, pairwise_by_deal(batch, rows))
    assert fit.deals == 3 and np.allclose(fit.ratings, 0)  # first to move always wins: equal


def test_decision_times_stand_beside_the_ratings() -> None:
    batch = ladder_batch(TOY, 2, ["random", "greedy"], 0, deals=4)
    found = _by_bot(ladder_summary(batch, _rows(batch, lambda lineup, seed: 0)))
    assert found["greedy"]["decision_median"] == pytest.approx(0.002)
    assert found["random"]["decision_median"] == pytest.approx(0.001)
    assert found["random"]["decisions"] == 3 * 8


# -- running ---------------------------------------------------------------------------------------


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_command_writes_the_ladder_and_resume_keeps_the_rows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ladder"
    argv = ["ladder", TOY, "--bots", "random,greedy,tests.test_ladder:make_first_legal",
            "-w", "1", "-o", str(out), "--no-progress"]
    assert run(argv + ["-n", "2"], capsys)[0] == 0
    first = read_rows(out / "games.jsonl")
    code, stdout, _ = run(argv + ["-n", "3", "--resume"], capsys)
    assert code == 0 and "| first-legal" not in stdout  # rated under the name it was given
    rows = read_rows(out / "games.jsonl")
    assert len(first) == 6 and len(rows) == 9
    assert rows[:6] == first  # kept as they were (their timings too), not played again
    ladder = json.loads((out / "ladder.json").read_text())
    assert ladder["deals"] == 3 and ladder["games"] == 9
    assert {e["bot"] for e in ladder["ratings"]} == {"random", "greedy",
                                                     "tests.test_ladder:make_first_legal"}
    assert all(e["decision_median"] is not None for e in ladder["ratings"])
    assert "first-legal" in {b for r in rows for b in r["bots"]}  # the outside bot played
    assert (out / "ladder.png").stat().st_size > 0
    assert "| bot | rating" in (out / "ladder.md").read_text()
    code, _, err = run(argv + ["-n", "2", "--resume"], capsys)
    assert code == 2 and err.count("\n") == 1 and "-n 3 or more" in err


def test_stop_when_separated_stops_after_the_round_that_separates(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    batch = ladder_batch(TOY, 2, ["random", "tests.test_ladder:make_first_legal"], 0, deals=8)
    looks: list[int] = []

    def separated(self: Any) -> bool:
        looks.append(self.deals)
        return len(looks) == 2

    monkeypatch.setattr("geomsim.ladder.Fit.separated", separated)
    rows, played, early = run_ladder(batch, tmp_path, local_pool(1), stop_when_separated=True,
                                     every=3, progress=False)
    assert early and looks == [3, 6] and deals_played(played) == 6 and len(rows) == 12
    looks.clear()
    monkeypatch.setattr("geomsim.ladder.Fit.separated", lambda self: False)
    rows, played, early = run_ladder(batch, tmp_path, local_pool(1), resume=True,
                                     stop_when_separated=True, every=3, progress=False)
    assert not early and len(rows) == 16  # bounded by -n


@pytest.mark.parametrize("spec, says", [
    ("no.such.module:make", "cannot import no.such.module"),
    ("tests.test_ladder:missing", "has no callable missing"),
    ("tests.test_ladder:make_nothing", "returned int, not a bot"),
    ("bogus", "unknown bot 'bogus'"),
    ("greedy:0", "greedy:0"),
])
def test_a_bad_bot_spec_is_one_clear_line(spec: str, says: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["ladder", TOY, "--bots", f"random,{spec}", "-n", "1", "-w", "1",
                        "-o", str(tmp_path)], capsys)
    assert code == 2 and err.count("\n") == 1 and says in err
    assert not (tmp_path / "games.jsonl").exists()


def test_known_bots_win_over_modules_and_an_outside_bot_seats() -> None:
    assert make_bot("ismcts:20").spec == "ismcts:20"  # a spec with ':' that is not a module
    bot = make_bot("tests.test_ladder:make_first_legal", GRID, outside=True)
    assert play_game(GRID, 2, [bot, "random"], 0).bots == ["first-legal", "random"]
    # Elsewhere (a scenario, a rows file, a web page) a spec never imports a module.
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("tests.test_ladder:make_first_legal", GRID)


def test_analyze_seats_an_outside_bot_from_the_command_line(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    """`analyze -b` takes ``package.module:callable`` as `ladder --bots` does (the command line
    names it: no file makes geomsim import a module)."""
    out = tmp_path / "out"
    argv = ["analyze", TOY, "-b", "tests.test_ladder:make_first_legal,random", "-n", "2",
            "-w", "1", "-o", str(out), "--no-progress"]
    assert run(argv, capsys)[0] == 0
    rows = read_rows(out / "games.jsonl")
    assert len(rows) == 2 and all("first-legal" in r["bots"] for r in rows)


def _binomial_profile(wins: float, losses: float, prior: float = 0.5) -> tuple[float, float]:
    """By hand: the 95% likelihood interval (Elo) of one bot's rating against the anchor from
    `wins` and `losses` between them, with `prior` virtual wins each way (two bots: the
    Bradley-Terry likelihood is the binomial's in the chance p of a win)."""
    from scipy.optimize import brentq

    a, b = wins + prior, losses + prior

    def loglik(p: float) -> float:
        return a * math.log(p) + b * math.log(1 - p)

    top = a / (a + b)

    def below(p: float) -> float:
        return loglik(top) - loglik(p) - 3.841458820694124 / 2

    low, high = brentq(below, 1e-12, top), brentq(below, top, 1 - 1e-15)
    return tuple(400 * math.log10(p / (1 - p)) for p in (low, high))  # type: ignore[return-value]


def test_a_bot_that_won_every_game_has_an_interval_with_width() -> None:
    """Every resample of the deals of a bot that won every game is the same: its bootstrap
    interval had no width (+559 to +559 after 12 games). The interval is the likelihood's,
    the same as the binomial's by hand, and its lower bound rises with more games."""
    batch = ladder_batch(TOY, 2, ["random", "x"], 0, deals=6)
    found = _by_bot(ladder_summary(batch, _rows(batch, lambda lineup, seed: lineup.index("x"))))
    low, high = found["x"]["ci95"]
    assert low < found["x"]["rating"] < high
    assert (low, high) == pytest.approx(_binomial_profile(12, 0), abs=1.0)
    more = ladder_batch(TOY, 2, ["random", "x"], 0, deals=24)
    bigger = _by_bot(ladder_summary(more, _rows(more, lambda lineup, seed: lineup.index("x"))))
    assert bigger["x"]["ci95"][0] > low + 100
