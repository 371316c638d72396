"""Old and new reach answers side by side: reach maps of the same positions by the code of an
older commit and by this checkout, their verdicts compared cell by cell, and their times.

    .venv/bin/python benchmarks/bench_anasazi_reach_answers.py --rev 164f3b8 [--tables 100]
        [--markers 3] [--steps 24]

Each table is a random 4-player setup (this checkout's layout, from seeds 0, 1, ...) after the
setup and `--steps` random actions; both codes read the same setup JSON and replay the same
actions as text, then make `reach_map(state, --markers)` (seed 0). The old code runs from
`git archive REV` in a subprocess. Prints, over every (expedition, sector) cell: how many
verdicts agree, how many turned from unreachable to reachable or back (must be none: a flip
means one of the two is wrong, as "reachable" comes with an exactly checked chain and
"unreachable" with a proof), how many moved between reachable and undecided (a search
finding or missing a chain), how many cells give the very same chain (markers and actions,
to the last digit), and the CPU time of the maps. Exits 1 on a flip.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

# Run by both codes: positions from a JSON file of (setup, actions), a reach map of each.
MAPS = """
import json, sys, time
from games.anasazi import GAME
from games.anasazi.reach import reach_map
positions, markers = json.load(open(sys.argv[1])), int(sys.argv[2])
out = []
for setup, actions in positions:
    state = GAME.new_state(setup["players"], setup=setup)
    for text in actions:
        state.apply(GAME.parse_action(text))
    start = time.process_time()
    rmap = reach_map(state, markers)
    spent = time.process_time() - start
    out.append({"cpu": spent, "cells": {e: {s: r.status for s, r in row.items()}
                                        for e, row in rmap.results.items()},
                "chains": {e: {s: [r.markers, r.actions] for s, r in row.items()}
                           for e, row in rmap.results.items()}})
json.dump({"code": __import__("games").__file__, "maps": out}, open(sys.argv[3], "w"))
"""


def positions(tables: int, steps: int) -> list[tuple[dict, list[str]]]:
    """(setup JSON, action texts) of each table: after setup and `steps` random actions,
    markers preferred (as benchmarks/bench_anasazi_reach.py plays them)."""
    from games.anasazi import GAME
    from games.anasazi.actions import PlaceMarker
    from games.anasazi.layout import random_setup

    out = []
    for seed in range(tables):
        setup = random_setup(4, seed)
        state = GAME.new_state(4, setup=setup)
        rng = np.random.default_rng(seed)
        texts = []
        while not state.is_over() and len(texts) < 8 + 12 + steps:
            acts = state.legal_actions().sample(rng, 4)
            markers = [a for a in acts if isinstance(a, PlaceMarker)]
            action = (markers or acts)[0]
            texts.append(str(action))
            state.apply(action)
        out.append((setup.to_json(), texts))
    return out


def run_maps(code_root: Path, data: Path, markers: int, out: Path) -> list[dict]:
    """The reach maps made by the code at `code_root`, in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(code_root), MPLBACKEND="Agg")
    # -P: the working directory must not come before PYTHONPATH (it may be another checkout).
    subprocess.run([sys.executable, "-P", "-c", MAPS, str(data), str(markers), str(out)],
                   check=True, env=env, cwd=code_root)
    done = json.loads(out.read_text())
    assert done["code"].startswith(str(code_root)), f"ran {done['code']}, not {code_root}"
    return done["maps"]


def archive(rev: str, into: Path) -> Path:
    """The tree of commit `rev` unpacked under `into`."""
    tar = into / "old.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(tar), rev], check=True)
    with tarfile.open(tar) as t:
        t.extractall(into / "old", filter="data")
    return into / "old"


def compare(old: list[dict], new: list[dict]) -> Counter[str]:
    """Counts of cell comparisons: same, flip (unreachable <-> reachable), other changes; and
    of the cells whose chains (markers and actions) are the very same."""
    counts: Counter[str] = Counter()
    for a, b in zip(old, new):
        for e, row in a["cells"].items():
            for s, was in row.items():
                now = b["cells"][e][s]
                if "chains" in a and a["chains"][e][s] == b["chains"][e][s]:
                    counts["same chain (markers, actions)"] += 1
                if was == now:
                    counts["same"] += 1
                elif {was, now} == {"reachable", "unreachable"}:
                    counts["flip"] += 1
                    print(f"FLIP: {e} -> {s}: {was} before, {now} now")
                else:
                    counts[f"{was} -> {now}"] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="the older commit to compare with")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--markers", type=int, default=3, help="max_markers of the maps")
    parser.add_argument("--steps", type=int, default=24, help="random actions after setup")
    parser.add_argument("--smoke", action="store_true",
                        help="a few iterations, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.tables, args.markers, args.steps = 1, 1, 4
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        data = tmp_path / "positions.json"
        data.write_text(json.dumps(positions(args.tables, args.steps)))
        old = run_maps(archive(args.rev, tmp_path), data, args.markers, tmp_path / "old.json")
        new = run_maps(ROOT, data, args.markers, tmp_path / "new.json")
    counts = compare(old, new)
    cells = sum(n for what, n in counts.items() if not what.startswith("same chain"))
    cpu_old = [m["cpu"] * 1000 for m in old]
    cpu_new = [m["cpu"] * 1000 for m in new]
    print(f"{args.tables} tables, reach maps up to {args.markers} markers, {cells} cells "
          f"(old: {args.rev}, new: this checkout)")
    for what, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"  {what:28s} {n:7d}")
    print(f"  map CPU ms, median: old {np.median(cpu_old):.0f}, new {np.median(cpu_new):.0f} "
          f"({np.median(cpu_old) / max(np.median(cpu_new), 1e-9):.2f}x)")
    if counts["flip"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
