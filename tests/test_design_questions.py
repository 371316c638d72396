"""docs/design-questions.md: its three commands run at small sizes and say what the doc reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from geomsim.cli import main

pytest.importorskip("optuna")


def test_anasazi_markers_compare(tmp_path: Path) -> None:
    out = tmp_path / "markers"
    assert main(["compare", "anasazi", "--options", "markers=44", "--options", "markers=54",
                 "--compiled", "-n", "8", "-w", "1", "--no-plot", "-o", str(out)]) == 0
    found = json.loads((out / "compare.json").read_text())
    length = next(m for m in found["metrics"] if m["metric"] == "Duration Moves")
    assert length["differences"][1]["ci95"][0] > 0  # 54 markers: longer games


def test_cibola_rounds_tune(tmp_path: Path) -> None:
    out = tmp_path / "rounds"
    assert main(["tune", "cibola", "--compiled", "--objective", "Duration Moves in 50..55",
                 "--objective", "Balance>=0.9", "--search", "rounds=4:6", "-k", "3", "-n", "8",
                 "-o", str(out)]) == 0
    found = json.loads((out / "tune.json").read_text())
    # Balance in 8 games is noise; the length alone says which round count fits
    inside = [b["options"]["rounds"] for b in found["best"]
              if 50 <= b["metrics"]["Duration Moves"]["value"] <= 55]
    assert inside == [5]
    assert set(found["fresh"]["verdicts"].values()) <= {"holds", "fails", "undecided"}


def test_aztekz_fair_setup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["setup", "aztekz", "--fair", "2", "--fair-games", "6", "--json",
                 str(tmp_path / "fair.json"), "-o", str(tmp_path / "fair.png")]) == 0
    assert "Most even by balance" in capsys.readouterr().out
    assert (tmp_path / "fair.png").stat().st_size > 0
