"""geomsim tune: a small study recovers a planted optimum, resumes, and judges on fresh seeds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from geomsim.analysis import run_games
from geomsim.batch import Batch
from geomsim.reading import DataError
from geomsim.registry import load_game
from geomsim.tune import Objective, parse_objective, parse_search, remeasure, report, tune

pytest.importorskip("optuna")


def _play(batch: Batch, folder: Path) -> list[dict[str, Any]]:
    return run_games(batch.game, batch.players, [(s, batch.lineup(s)) for s in batch.seeds()],
                     None, batch.max_steps, True, options=dict(batch.options))


def test_objectives_parse_and_score() -> None:
    assert parse_objective("Duration Moves in 20..30") == Objective("Duration Moves", 20, 30)
    assert parse_objective("Balance>=0.95") == Objective("Balance", 0.95, None)
    o = parse_objective("Duration Moves<=30")
    assert (o.distance(30), o.distance(45)) == (0.0, 0.5)
    assert o.verdict([20, 29]) == "holds" and o.verdict([31, 40]) == "fails"
    assert o.verdict([25, 35]) == "undecided"
    with pytest.raises(DataError, match="METRIC in LO..HI"):
        parse_objective("Balance = 1")
    with pytest.raises(DataError, match="rounds"):
        parse_search(load_game("cibola"), "rounds=0:4")  # outside the option's range


def test_tune_recovers_the_one_round_count_that_fits(tmp_path: Path) -> None:
    # Cibola's compiled games last about 10.5 actions a round: only rounds=4 lands in 38..46.
    game = load_game("cibola")
    batch = Batch("cibola", 4, ("random",) * 4, 0, 12, compiled=True)
    objectives = [parse_objective("Duration Moves in 38..46")]
    searches = [parse_search(game, "rounds=1:8")]
    study = tune(game, batch, objectives, searches, 8, tmp_path, _play)
    best = min((t for t in study.trials), key=lambda t: t.value)
    assert best.params == {"rounds": 4} and best.value == 0
    assert sorted(t.value == 0 for t in study.trials).count(True) == 1
    again = tune(game, batch, objectives, searches, 8, tmp_path, _play)  # resumed from SQLite
    assert len(again.trials) == 8
    fresh = remeasure(batch, best.user_attrs["options"], _play, tmp_path)
    found = report("cibola", objectives, again, fresh)
    assert found["best"][0]["options"] == {"rounds": 4}
    assert found["fresh"]["verdicts"]["Duration Moves in 38..46"] == "holds"
