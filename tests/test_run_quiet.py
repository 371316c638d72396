"""`geomsim run -q` shows only the scenarios that fail and a one-line total (issue 31: 29 passing
scenarios printed 174 lines)."""

from __future__ import annotations

import shutil
from pathlib import Path

from geomsim import cli

ROOT = Path(__file__).resolve().parents[1]
PASSING = ("shared-win.yaml", "tie-break.yaml")


def test_quiet_shows_failures_and_a_total_only(tmp_path, capsys):
    for name in PASSING:
        shutil.copy(ROOT / "scenarios" / "cibola" / name, tmp_path / name)
    good = (ROOT / "scenarios" / "cibola" / "shared-win.yaml").read_text()
    (tmp_path / "wrong.yaml").write_text(good.replace("scores: [23, 23]", "scores: [23, 24]"))
    assert cli.main(["run", str(tmp_path), "--no-outputs", "-q"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{tmp_path / 'wrong.yaml'}: cibola, 2 players")
    assert not any(name in line for line in lines for name in PASSING)
    assert [line for line in lines if "FAIL" in line] == [
        line for line in lines if line.startswith("  FAIL")] != []
    assert lines[-1] == "3 scenarios: 2 passed, 1 failed"


def test_quiet_with_everything_passing_is_one_line(tmp_path, capsys):
    for name in PASSING:
        shutil.copy(ROOT / "scenarios" / "cibola" / name, tmp_path / name)
    assert cli.main(["run", str(tmp_path), "--no-outputs", "-q"]) == 0
    assert capsys.readouterr().out == "2 scenarios: 2 passed, 0 failed\n"
    assert cli.main(["run", str(tmp_path / PASSING[0]), "--no-outputs", "-q"]) == 0
    assert capsys.readouterr().out == "1 scenario: 1 passed, 0 failed\n"
