"""The engine and the games type-check clean under mypy with the project's configuration
(``[tool.mypy]`` in pyproject.toml): CI runs it through the README's test command (issue 17)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# mypy's worker processes (mypy 2's `--num-workers`): a cold cache (a fresh clone) costs about
# 40 s of CPU, more than the 30 s a test may take; two workers check modules that do not
# depend on each other at once, for about 1.08x the CPU of one process (issue 30, item 5).
WORKERS = 2


def test_mypy_is_clean_on_every_module_of_the_engine_and_the_games():
    done = subprocess.run([sys.executable, "-m", "mypy", "--num-workers", str(WORKERS)], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, f"mypy found problems:\n{done.stdout[-4000:]}{done.stderr[-2000:]}"
    found = re.search(r"^Success: no issues found in (\d+) source files?$", done.stdout, re.M)
    assert found, done.stdout
    modules = [*(ROOT / "geomsim").rglob("*.py"), *(ROOT / "games").rglob("*.py")]
    assert int(found.group(1)) == len(modules), "mypy checks every module of geomsim/ and " \
        "games/, no fewer"
