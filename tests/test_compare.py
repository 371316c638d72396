"""geomsim compare: paired differences with intervals between variants on the same seeds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from geomsim.cli import main
from geomsim.compare import Arm, arms_of, comparison, paired_difference, parse_sweep
from geomsim.reading import DataError
from geomsim.registry import load_game


def _row(seed: int, length: int, winners: list[int]) -> dict[str, object]:
    return {"game": "toy", "seed": seed, "players": 2, "bots": ["random", "random"],
            "scores": [0.0, 0.0], "winners": winners, "length": length, "finished": True,
            "first": [0]}


def test_paired_difference_uses_the_seed_pairs() -> None:
    # Lengths differ by exactly 3 in every seed although they vary a lot from seed to seed:
    # pairing gives a tight interval around 3 (unpaired, the spread would swamp it).
    first = {s: 10.0 * s for s in range(20)}
    other = {s: 10.0 * s + 3 + (0.1 if s % 2 else -0.1) for s in range(20)}
    d = paired_difference(first, other)
    assert d["n"] == 20 and d["mean"] == pytest.approx(3.0)
    assert 2.9 < d["ci95"][0] < 3.0 < d["ci95"][1] < 3.1 and d["p"] < 1e-10


def test_comparison_table_holm_and_balance() -> None:
    a = [_row(s, 10 + s % 3, [s % 2]) for s in range(40)]
    b = [_row(s, 20 + s % 3, [0]) for s in range(40)]  # longer, and seat 0 always wins
    found = comparison([Arm("a"), Arm("b")], [a, b])
    by = {m["metric"]: m for m in found["metrics"]}
    length = by["Duration Moves"]["differences"][1]
    assert length["mean"] == pytest.approx(10.0) and length["p_holm"] < 0.05
    balance = by["Balance"]
    assert balance["arms"][0]["value"] == pytest.approx(1.0)
    assert balance["arms"][1]["value"] == pytest.approx(0.0)
    assert balance["differences"][1]["ci95"][1] < 0  # b is clearly less balanced
    ps = [d for m in found["metrics"] for d in m["differences"][1:] if "p_holm" in d]
    assert all(d["p_holm"] >= d["p"] for d in ps)


def test_sweep_and_arms_are_checked() -> None:
    game = load_game("cibola")
    assert parse_sweep(game, "rounds=2:6:2") == ("rounds", [2, 4, 6])
    with pytest.raises(DataError, match="rounds"):
        parse_sweep(game, "rounds=0:3")  # 0 rounds is not allowed
    with pytest.raises(DataError, match="same rules"):
        arms_of(game, ["official"], ["rounds=8"])  # rounds=8 is the rulebook's
    with pytest.raises(DataError, match="at least two"):
        arms_of(game, ["official"])


def test_fewer_rounds_give_shorter_cibola_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                ) -> None:
    out = tmp_path / "cmp"
    argv = ["compare", "cibola", "--sweep", "rounds=3:4", "--compiled", "-w", "1", "-o", str(out)]
    assert main([*argv, "-n", "12"]) == 0
    found = json.loads((out / "compare.json").read_text())
    length = next(m for m in found["metrics"] if m["metric"] == "Duration Moves")
    diff = length["differences"][1]
    assert diff["mean"] > 0 and diff["ci95"][0] > 0  # 4 rounds are longer, surely
    assert [a["options"] for a in found["arms"]] == [{"rounds": 3}, {"rounds": 4}]
    for name in ("compare.md", "compare.png", "report.html", "rounds=3/games.jsonl"):
        assert (out / name).stat().st_size > 0
    assert (out / "report.pdf").read_bytes().startswith(b"%PDF")
    capsys.readouterr()
    assert main([*argv, "-n", "12"]) == 2  # never overwrites rows unasked
    assert "--resume" in capsys.readouterr().err
    assert main([*argv, "-n", "14", "--resume", "--no-plot"]) == 0
    assert json.loads((out / "compare.json").read_text())["arms"][0]["games"] == 14


SCENARIO = """game: cibola
players: 4
expect:
"""
CLAIM = """  - analysis: {{bots: random, games: 10, options: {{rounds: 3}}}}
    less_than: {{analysis: {{bots: random, games: 10, options: {{rounds: 4}}}}}}
    metric: Duration Moves
    by: {by}
"""


def test_scenario_compares_variants(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Three rounds play about 75% of four rounds' actions: 20% shorter surely holds, 30%
    # shorter surely fails, 26% shorter is too close to tell in 10 games.
    path = tmp_path / "variants.yaml"
    path.write_text(SCENARIO + "".join(CLAIM.format(by=b) for b in ("20%", "30%", "26%")))
    assert main(["run", "--no-outputs", str(path)]) == 1
    lines = [line for line in capsys.readouterr().out.splitlines() if "Duration Moves" in line]
    verdicts = [next(w for w in ("holds", "fails", "undecided") if f": {w}" in line)
                for line in lines]
    assert verdicts == ["holds", "fails", "undecided"]
    assert lines[0].split()[0] == "pass" and "paired by game" in lines[0]


def test_scenario_variant_errors_name_the_field(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(SCENARIO + CLAIM.format(by="20%").replace("rounds: 4", "rounds: 40"))
    assert main(["run", "--no-outputs", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "bad.yaml:5:" in err and "options.rounds" in err and "1 to 8" in err


def test_arms_of_other_rules_versions_do_not_mix() -> None:
    from geomsim.compare import Arm, comparison

    def rows(rules: str) -> list[dict[str, Any]]:
        return [{"game": "cibola", "players": 2, "seed": s, "bots": ["random"] * 2,
                 "scores": [1.0, 0.0], "winners": [0], "length": 5, "finished": True,
                 "turn_order": [0, 1], "versions": {"rows": 2, "rules": rules}, "trace": {},
                 "options": {}} for s in range(3)]

    arms = [Arm("a", {}), Arm("b", {"rounds": 3})]
    comparison(arms, [rows("cibola/1"), rows("cibola/1")])
    with pytest.raises(ValueError, match="incompatible batches.*cibola/0.*cibola/1"):
        comparison(arms, [rows("cibola/1"), rows("cibola/0")])
