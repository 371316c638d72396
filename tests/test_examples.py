"""The example scripts run."""

from __future__ import annotations

import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_moments_example_draws_each_discrete_game(tmp_path):
    module = runpy.run_path(str(ROOT / "examples" / "moments.py"))
    module["main"](tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["aztekz-moment.png", "cibola-moment.png"]
