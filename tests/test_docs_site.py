"""docs/ builds as one site (mkdocs-material, the API reference from the docstrings by
mkdocstrings) without a warning: a link to a page or an anchor that is not there, a docstring
mkdocstrings cannot read, a page left out (issue 31). mkdocs comes with the ``test`` extra, so
this test runs (not skips) wherever the tests do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build(tmp_path: Path) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` of the repository's mkdocs.yml into `tmp_path`."""
    # Not --quiet: it hides the warnings from the count that --strict fails on.
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                          capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


def test_the_docs_site_builds_without_warnings(tmp_path):
    done = build(tmp_path)
    warnings = [line for line in done.stderr.splitlines() if "WARNING" in line]
    assert done.returncode == 0 and not warnings, "\n".join(warnings) or done.stderr[-3000:]
    site = tmp_path / "site"
    assert (site / "index.html").exists() and (site / "design" / "index.html").exists()
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    # the rules interface, from its docstrings
    assert "geomsim.rules.Game.new_state" in api and "IllegalAction" in api
