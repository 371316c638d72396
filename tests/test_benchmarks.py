"""Every benchmark script runs: its smoke mode (a few iterations), so a renamed function or a
broken import fails the suite instead of rotting until someone measures.

A script runs in the test's process, as ``python benchmarks/bench_x.py --smoke`` would run it
(as ``__main__``, its folder first on sys.path, from the repository's root): a process of its
own would pay a second or more of imports (numpy, scipy, matplotlib, the games) that this
process has done already, 19 times over (issue 30, item 5). What a script changes of the
process (sys.path, sys.argv, the environment, the working folder) is put back afterwards."""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "benchmarks").glob("bench_*.py"))


def test_benchmarks_are_found() -> None:
    assert len(SCRIPTS) >= 7, SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_benchmark_smoke(script: Path, monkeypatch: pytest.MonkeyPatch,
                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "argv", [str(script), "--smoke"])
    monkeypatch.setattr(sys, "path", [str(script.parent), *sys.path])
    monkeypatch.setenv("MPLBACKEND", "Agg")
    environ = dict(os.environ)
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as e:
        assert e.code in (None, 0), f"{script.name} --smoke exited with {e.code!r}"
    finally:
        os.environ.clear()
        os.environ.update(environ)
    assert capsys.readouterr().out.strip(), f"{script.name} --smoke printed nothing"
