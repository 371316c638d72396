"""The Anasazi planner: the time of its decisions in 4-player games against three greedy players.

    python benchmarks/bench_planner.py [--games 4] [--seed 500]

Every decision of the planner is timed (CPU time of this process and wall time), main decisions
(a marker or a base camp) apart from the follow-ups (a look, a take). The target: a decision in
under 1 s on 2 cores.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from geomsim.bots import make_bot, play_game
from geomsim.registry import load_game


class Timed:
    """The planner, timing each of its decisions."""

    spec = "planner"

    def __init__(self, game):
        self.bot = make_bot("planner", game)
        self.main: list[tuple[float, float]] = []
        self.follow: list[tuple[float, float]] = []

    def choose(self, state, player, rng):
        kind = self.follow if state.pending or state.phase == "looks" else self.main
        wall, cpu = time.perf_counter(), time.process_time()
        action = self.bot.choose(state, player, rng)
        kind.append((time.perf_counter() - wall, time.process_time() - cpu))
        return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=500)
    args = parser.parse_args()
    game = load_game("anasazi")
    timed = Timed(game)
    for seed in range(args.seed, args.seed + args.games):
        bots = ["greedy"] * 4
        bots[seed % 4] = timed
        play_game(game, 4, bots, seed)
    print(f"| decisions | n | median wall s | p90 wall s | max wall s | median CPU s | max CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, found in (("main (marker or camp)", timed.main), ("follow-up (look, take)", timed.follow)):
        a = np.array(found)
        print(f"| {name} | {len(a)} | {np.median(a[:, 0]):.3f} | {np.percentile(a[:, 0], 90):.3f} | "
              f"{a[:, 0].max():.3f} | {np.median(a[:, 1]):.3f} | {a[:, 1].max():.3f} |")


if __name__ == "__main__":
    main()
