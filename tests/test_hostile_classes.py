"""Hostile input by class (issue 25): tests/hostile2's generator, new operators from a fixed
seed, one test per class of weakness, so a failure names its class.

Each class runs in a subprocess under the limits of tests/test_hostile.py (`MEMORY_LIMIT` of
address space, CPU time) with a wall-clock budget of `SECONDS` per case; /dev/stdin of that
process is a pipe this test holds open, as a terminal would be. A case holds when the reader
refuses it in one line naming the file, line or field (exit 2 for the command line, `DataError`
for the library, a 4xx with a JSON error for the web app), or accepts it and still works (a
setup's state reads back, an action's text parses back). The classes and their operators are
described in tests/hostile2/generate.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.hostile2.generate import CLASSES, cases
from tests.test_hostile import MEMORY_LIMIT, ROOT, SECONDS, _limited


def run_class(cls: str, tmp: os.PathLike[str]) -> tuple[list[str], list[dict[str, Any]]]:
    """tests/hostile2/run.py for `cls` under the limits: the plan and one result per case run."""
    # Two malloc arenas: each thread's own arena reserves 64 MB of address space, which the
    # web app's threads would spend out of `MEMORY_LIMIT` without using it.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg", "MALLOC_ARENA_MAX": "2"}
    read, write = os.pipe()  # the child's stdin: never written, never closed while it runs
    try:
        done = subprocess.run([sys.executable, "-m", "tests.hostile2.run", cls, str(tmp), str(SECONDS)],
                              stdin=read, capture_output=True, text=True, cwd=ROOT, env=env,
                              preexec_fn=_limited, timeout=150)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else e.stdout or ""
        done = subprocess.CompletedProcess(e.cmd, -9, out, "killed after 150 s")
    finally:
        os.close(read)
        os.close(write)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines and "plan" in lines[0], f"{cls}: the runner did not start: {done.stderr[-2000:]}"
    plan, results = lines[0]["plan"], [r for r in lines[1:] if "name" in r]
    if len(results) < len(plan):  # killed (memory, CPU, the 150 s): name the case it was on
        pytest.fail(f"{cls}: the run stopped at case {plan[len(results)]!r} (exit {done.returncode}): "
                    f"{done.stderr[-1000:]}")
    peak = [r["peak_kb"] for r in lines if "peak_kb" in r]
    assert peak and peak[0] * 1024 < MEMORY_LIMIT, f"{cls}: a process reached {peak} kB"
    return plan, results


def test_every_class_has_a_few_dozen_cases_and_controls() -> None:
    """The corpus is the same on every run, small, and each class has controls (valid inputs
    that must be accepted: a harness that refuses everything would pass nothing)."""
    for cls in CLASSES:
        found = cases(cls)
        assert [c["name"] for c in found] == [c["name"] for c in cases(cls)], cls
        assert 15 <= len(found) <= 120, (cls, len(found))
        assert len({c["name"] for c in found}) == len(found), cls
        assert any(c.get("control") for c in found) or cls == "hidden", cls


@pytest.mark.parametrize("cls", CLASSES)
def test_hostile_class(cls: str, tmp_path: Path) -> None:
    """Every case of the class holds, each within `SECONDS`."""
    plan, results = run_class(cls, tmp_path)
    failures = [f"{r['name']}: {r['problem']}" for r in results if r["problem"]]
    failures += [f"{r['name']}: took {r['seconds']:.1f} s" for r in results
                 if not r["problem"] and r["seconds"] >= SECONDS]
    assert not failures, f"{len(failures)} of {len(plan)} {cls} cases fail:\n" + "\n".join(failures)
