"""Fair setups: the most even of several setups' estimates, and the commands that make them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from geomsim.cli import main
from geomsim.fair import fairest, setup_estimate


def _rows(wins: list[int]) -> list[dict[str, object]]:
    return [{"game": "toy", "seed": i, "players": 2, "bots": ["random"] * 2, "scores": [0, 0],
             "winners": [w], "length": 5, "finished": True} for i, w in enumerate(wins)]


def test_fairest_picks_the_most_even_of_hand_made_estimates() -> None:
    lopsided = setup_estimate(0, _rows([0] * 18 + [1] * 2))
    even = setup_estimate(1, _rows([0, 1] * 10))
    leaning = setup_estimate(2, _rows([0] * 13 + [1] * 7))
    for by in ("balance", "chisq"):
        found = fairest([lopsided, even, leaning], by)
        assert found["chosen"]["setup"] == 1 and found["least_even"]["setup"] == 0
        assert found["ranking"] == [1, 2, 0]
    diff = fairest([lopsided, even, leaning])["difference"]
    assert diff["balance"] == pytest.approx(0.8) and 0 < diff["ci95"][0] < 0.8 < diff["ci95"][1]
    assert even["positions"][0]["win_rate"] == 0.5 and even["chisq_p"] == pytest.approx(1.0)


def test_analyze_per_setup_and_setup_fair(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "per"
    assert main(["analyze", "aztekz", "--compiled", "-n", "24", "--per-setup", "8", "-w", "1",
                 "-o", str(out)]) == 0
    found = json.loads((out / "setups.json").read_text())
    assert [e["setup"] for e in found["setups"]] == [0, 1, 2]
    assert all(e["games"] == 8 for e in found["setups"])
    rows = [json.loads(line) for line in (out / "setup-1" / "games.jsonl").read_text().splitlines()]
    assert len({json.dumps(r["scores"]) for r in rows}) > 1  # one table, different games
    capsys.readouterr()
    assert main(["setup", "aztekz", "--fair", "3", "--fair-games", "8",
                 "--json", str(tmp_path / "s.json")]) == 0
    said = capsys.readouterr().out
    assert "Most even by balance: the setup of seed" in said and "fresh bot seeds" in said
