"""Random Aztekz games per second on one core, through the rules interface.

A random game chooses uniformly among the legal actions at every decision (`legal_actions`,
then `apply`, which checks the action again) from the setup to the end. Run by hand:

    .venv/bin/python benchmarks/bench_aztekz.py [--games N]

and record the table in benchmarks/README.md (section "Aztekz").
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from games.aztekz import GAME


def play_uniform(players: int, seed: int) -> tuple[int, int]:
    """One random game with a cheap uniform choice (Python's `random`); (decisions, turns)."""
    pick = random.Random(seed)
    state = GAME.new_state(players, seed=seed)
    decisions = 0
    while not state.is_over():
        actions = state.legal_actions()
        state.apply(actions[pick.randrange(len(actions))])
        decisions += 1
    return decisions, sum(1 for _, a, _ in state.history if a.kind in ("place", "return"))


def play_sampled(players: int, seed: int) -> tuple[int, int]:
    """One random game choosing with `ActionSpace.sample` (numpy), as bots and the harness do."""
    rng = np.random.default_rng(seed)
    state = GAME.new_state(players, seed=seed)
    decisions = 0
    while not state.is_over():
        state.apply(state.legal_actions().sample(rng, 1)[0])
        decisions += 1
    return decisions, sum(1 for _, a, _ in state.history if a.kind in ("place", "return"))


def measure(play, players: int, games: int) -> tuple[float, float, float]:
    """(games per second, decisions per game, turns per game) over `games` seeds."""
    start = time.process_time()
    totals = [play(players, seed) for seed in range(games)]
    elapsed = time.process_time() - start
    return (games / elapsed, sum(d for d, _ in totals) / games, sum(t for _, t in totals) / games)


def main() -> None:
    """Print a table: players, chooser, games/s, decisions/game, decisions/s, turns/game."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per row")
    games = parser.parse_args().games
    print(f"{'players':>7} {'chooser':>8} {'games/s':>8} {'decisions/game':>14} "
          f"{'decisions/s':>11} {'turns/game':>10}")
    for players in (2, 3, 4):
        for name, play in (("uniform", play_uniform), ("sample", play_sampled)):
            rate, decisions, turns = measure(play, players, games)
            print(f"{players:>7} {name:>8} {rate:>8.1f} {decisions:>14.0f} "
                  f"{rate * decisions:>11.0f} {turns:>10.0f}")


if __name__ == "__main__":
    main()
