"""Random Aztekz games per second on one core, through the rules interface and compiled.

A random game chooses uniformly among the legal actions at every decision from the setup to the
end: through the interface (`legal_actions`, then `apply`, which checks the action again), or in
the compiled kernel of games/aztekz/playout.py (`GAME.random_playouts`, batches of 100 games).
The "compiled" rows count everything from seeds to final scores: `new_state` for each seed,
encoding, the kernel; the "kernel" rows the kernel alone (states encoded beforehand). CPU time.
Run by hand:

    .venv/bin/python benchmarks/bench_aztekz.py [--games N] [--compiled-games M]

and record the table in benchmarks/README.md (section "Aztekz").
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from games.aztekz import GAME, playout


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


def measure_compiled(players: int, games: int, batch: int = 100) -> tuple[float, float, float, float]:
    """(games per second from seeds, games per second of the kernel alone, decisions per game,
    turns per game) over `games` seeds, played in batches of `batch` games."""
    elapsed = kernel = 0.0
    decisions = turns = 0
    for first in range(0, games, batch):
        start = time.process_time()
        states = [GAME.new_state(players, seed=seed) for seed in range(first, min(first + batch, games))]
        playouts = GAME.random_playouts(states, seed=first)
        elapsed += time.process_time() - start
        inputs = playout.kernel_inputs(states)
        start = time.process_time()
        playout.play_batch(*inputs, np.int64(first))
        kernel += time.process_time() - start
        codes = playouts.log[:, 1]
        decisions += len(codes)
        turns += np.count_nonzero((codes >= playout.A_PLACE) | (codes == playout.A_RETURN))
    return games / elapsed, games / kernel, decisions / games, turns / games


def main() -> None:
    """Print a table: players, chooser, games/s, decisions/game, decisions/s, turns/game."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per interface row")
    parser.add_argument("--compiled-games", type=int, default=2000, help="games per compiled row")
    parser.add_argument("--smoke", action="store_true",
                        help="a few iterations, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.games, args.compiled_games = 1, 2
    GAME.random_playouts([GAME.new_state(2, seed=0)])  # compile (or load the cache) untimed
    print(f"{'players':>7} {'chooser':>8} {'games/s':>8} {'decisions/game':>14} "
          f"{'decisions/s':>11} {'turns/game':>10}")

    def row(players: int, name: str, rate: float, decisions: float, turns: float) -> None:
        print(f"{players:>7} {name:>8} {rate:>8.1f} {decisions:>14.0f} "
              f"{rate * decisions:>11.0f} {turns:>10.0f}")

    for players in (2, 3, 4):
        for name, play in (("uniform", play_uniform), ("sample", play_sampled)):
            row(players, name, *measure(play, players, args.games))
        rate, kernel, decisions, turns = measure_compiled(players, args.compiled_games)
        row(players, "compiled", rate, decisions, turns)
        row(players, "kernel", kernel, decisions, turns)


if __name__ == "__main__":
    main()
