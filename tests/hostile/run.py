"""Feed the hostile corpus to the readers, one input at a time, and print one JSON line per
input: what came out and how long it took. tests/test_hostile.py runs this in a subprocess
under resource limits (address space, CPU time) and judges the lines.

    python -m tests.hostile.run scenarios FILE...   # `geomsim --debug check FILE` for each
    python -m tests.hostile.run states CORPUS.xz    # game.state_from_json, then play it on
"""

from __future__ import annotations

import contextlib
import io
import json
import lzma
import sys
import time
import traceback
from pathlib import Path


def run_scenarios(files: list[str]) -> None:
    from geomsim import cli

    for name in files:
        err, out = io.StringIO(), io.StringIO()
        start = time.perf_counter()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                code = cli.main(["--debug", "check", name])
            crash = None
        except BaseException:  # --debug lets what the command did not handle through
            code, crash = None, traceback.format_exc(limit=3)
        emit(file=name, code=code, stderr=err.getvalue(), crash=crash,
             seconds=time.perf_counter() - start)


def run_states(corpus: str) -> None:
    from geomsim.reading import DataError
    from geomsim.registry import load_game
    from geomsim.testing import HarnessFailure, check_from_state

    for line in lzma.decompress(open(corpus, "rb").read()).decode("utf-8").splitlines():
        case = json.loads(line)
        game = load_game(case["game"])
        start = time.perf_counter()
        result: dict = {"what": case["what"]}
        try:
            state = game.state_from_json(case["text"])
        except DataError as e:
            result.update(outcome="refused", message=str(e))
        except BaseException:
            result.update(outcome="crash", message=traceback.format_exc(limit=4))
        else:
            try:
                check_from_state(state, checked_steps=3)
                result.update(outcome="plays")
            except HarnessFailure as e:
                result.update(outcome="broken", message=str(e))
            except BaseException:
                result.update(outcome="broken", message=traceback.format_exc(limit=4))
        emit(**result, seconds=time.perf_counter() - start)


def emit(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def peak_kb() -> int:
    """This process's peak resident memory since its exec (VmHWM; ``ru_maxrss`` would count
    the pages of the parent it was forked from)."""
    status = Path("/proc/self/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))


if __name__ == "__main__":
    mode, *args = sys.argv[1:]
    run_scenarios(args) if mode == "scenarios" else run_states(args[0])
    emit(peak_kb=peak_kb())
