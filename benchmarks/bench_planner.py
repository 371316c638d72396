"""The Anasazi planner: the time of its decisions, side by side with greedy's in the same games.

    python benchmarks/bench_planner.py [--games 4] [--seed 500] [--bot planner]

4-player games, the measured bot (default ``planner``) in seat ``seed % 4`` and three greedy
players in the others. Every decision is timed (CPU time of this process and wall time): the
measured bot's and greedy's main decisions (a marker or a base camp), apart from the follow-ups
(a look, a take). Greedy, timed in the same run on the same positions' kind, is the anchor: the
table gives each median and the measured bot's median as a multiple of greedy's. The targets:
a planner decision at most 10 ms median (CPU) on this 2-core machine; a search player's (e.g.
``--bot mcts``) under 1 s.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from geomsim.bots import make_bot, play_game
from geomsim.registry import load_game


class Timed:
    """A bot, timing each of its decisions (main ones and follow-ups apart)."""

    def __init__(self, bot: Any):
        self.bot, self.spec = bot, bot.spec
        self.main: list[tuple[float, float]] = []
        self.follow: list[tuple[float, float]] = []

    def choose(self, state: Any, player: int, rng: np.random.Generator) -> Any:
        """The bot's choice, timed."""
        kind = self.follow if state.pending or state.phase == "looks" else self.main
        wall, cpu = time.perf_counter(), time.process_time()
        action = self.bot.choose(state, player, rng)
        kind.append((time.perf_counter() - wall, time.process_time() - cpu))
        return action


def row(name: str, found: list[tuple[float, float]], anchor: float | None) -> str:
    """One line of the table (times in ms; the median CPU time as a multiple of `anchor`'s)."""
    a = np.array(found) * 1000.0
    cpu = float(np.median(a[:, 1]))
    ratio = "-" if anchor is None else f"{cpu / anchor:.2f}"
    return (f"| {name} | {len(a)} | {cpu:.1f} | {np.percentile(a[:, 1], 90):.1f} | "
            f"{a[:, 1].max():.1f} | {np.median(a[:, 0]):.1f} | {ratio} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--bot", default="planner", help="the measured bot's spec")
    parser.add_argument("--max-steps", type=int, default=100_000, help="decisions per game at most")
    parser.add_argument("--smoke", action="store_true",
                        help="a few decisions, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.games, args.max_steps = 1, 40
    game = load_game("anasazi")
    timed, greedy = Timed(make_bot(args.bot, game)), Timed(make_bot("greedy", game))
    for seed in range(args.seed, args.seed + args.games):
        bots: list[Any] = [greedy] * 4
        bots[seed % 4] = timed
        play_game(game, 4, bots, seed, max_steps=args.max_steps)
    print(f"{args.games} games from seed {args.seed}; CPU ms of this process, wall ms as got")
    print("| decisions | n | median CPU ms | p90 CPU ms | max CPU ms | median wall ms | x greedy |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    anchor = float(np.median(np.array(greedy.main)[:, 1])) * 1000.0 if greedy.main else None
    if greedy.main:
        print(row("greedy, main (marker or camp)", greedy.main, anchor))
    for name, found in ((f"{timed.spec}, main (marker or camp)", timed.main),
                        (f"{timed.spec}, follow-up (look, take)", timed.follow)):
        if found:
            print(row(name, found, anchor if "main" in name else None))


if __name__ == "__main__":
    main()
