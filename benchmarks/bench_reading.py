"""Reading states back: the harness of each game, and to_json / state_from_json alone.

Run by hand (figures go to benchmarks/README.md, section "Reading state JSON"); to compare two
versions of the code in one run, alternate them through PYTHONPATH:

    .venv/bin/python benchmarks/bench_reading.py --compare OLD_TREE NEW_TREE --rounds 3

Rows, CPU seconds of one process (medians over the rounds):
- "harness": `check_random_games(game, 3 players, --games, thorough_every as the tests use)`:
  every step writes states, and the thorough ones read them back (`state_from_json`).
- "to_json" / "state_from_json": one state late in a random 3-player game, written and read
  `--repeat` times (the caches of what was read before make repeats of one text cheap, as in
  the harness).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

GAMES = {"cibola": (20, 3, 60), "aztekz": (4, 7, 500), "anasazi": (3, 1, 80)}  # games, every, steps


def measure(games_scale: float, repeat: int) -> dict[str, float]:
    """The figures of the code on sys.path, as {row: seconds}."""
    from geomsim.registry import load_game
    from geomsim.testing import check_random_games, random_playout

    found = {}
    for name, (games, every, steps) in GAMES.items():
        game = load_game(name)
        check_random_games(game, 3, games=1, thorough_every=every)  # warm the caches and imports
        start = time.process_time()
        check_random_games(game, 3, games=max(1, round(games * games_scale)), seed=100, thorough_every=every)
        found[f"{name} harness"] = time.process_time() - start
        state = random_playout(game, 3, 5, max_steps=steps)
        start = time.process_time()
        for _ in range(repeat):
            text = state.to_json()
        found[f"{name} to_json (µs)"] = (time.process_time() - start) / repeat * 1e6
        start = time.process_time()
        for _ in range(repeat):
            game.state_from_json(text)
        found[f"{name} state_from_json (µs)"] = (time.process_time() - start) / repeat * 1e6
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), help="two source trees")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the harness games")
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--smoke", action="store_true",
                        help="a few iterations, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.scale, args.repeat, args.rounds = 0.05, 2, 1
    if args.json or not args.compare:
        figures = measure(args.scale, args.repeat)
        print(json.dumps(figures) if args.json else "\n".join(f"{k:32} {v:10.3f}" for k, v in figures.items()))
        return
    runs: dict[str, list[dict[str, float]]] = {tree: [] for tree in args.compare}
    for _ in range(args.rounds):
        for tree in args.compare:  # alternate: the machine's load affects both alike
            env = {**os.environ, "PYTHONPATH": tree, "MPLBACKEND": "Agg"}
            done = subprocess.run([sys.executable, __file__, "--json", "--scale", str(args.scale),
                                   "--repeat", str(args.repeat)], env=env, capture_output=True,
                                  text=True, check=True)
            runs[tree].append(json.loads(done.stdout))
    old, new = args.compare
    print(f"{'':32} {'before':>10} {'after':>10} {'after/before':>13}")
    for row in runs[old][0]:
        a = statistics.median(r[row] for r in runs[old])
        b = statistics.median(r[row] for r in runs[new])
        print(f"{row:32} {a:10.3f} {b:10.3f} {b / a:13.2f}")


if __name__ == "__main__":
    main()
