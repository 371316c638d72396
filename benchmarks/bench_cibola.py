"""Treasures of Cibola: random games per second per core, and where the time goes.

Run by hand on a quiet machine (figures go to benchmarks/README.md, section "Cibola"):

    .venv/bin/python benchmarks/bench_cibola.py [--games 1000] [--profile]

Rows:
- "random games": new_state from a seed, then until the end: to_move, legal_actions, a uniform
  choice with Python's `random`, apply (through the rules interface, checks included).
- "harness-style": the same with `ActionSpace.sample(numpy rng)` as geomsim.testing plays.
- per-step costs: new_state, legal_actions, apply (the engine's wrapper: player resolution,
  turn check, history; and the game's own hooks), clone, to_json, observe, determinize.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

import numpy as np

from games.cibola import GAME
from geomsim.rules import State
from geomsim.testing import random_playout


def random_games(players: int, games: int, seed: int = 0) -> tuple[float, int]:
    """CPU seconds for `games` random games, and the number of actions applied."""
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
    for g in range(games):
        state = GAME.new_state(players, seed=seed + g)
        while True:
            movers = state.to_move()
            if not movers:
                break
            player = movers[0]
            actions = state.legal_actions(player)
            state.apply(actions[rng.randrange(len(actions))], player)
            steps += 1
    return time.process_time() - start, steps


def harness_games(players: int, games: int) -> float:
    """CPU seconds for `games` games as geomsim.testing.random_playout plays them."""
    start = time.process_time()
    for g in range(games):
        random_playout(GAME, players, g)
    return time.process_time() - start


def per_call(fn, repeat: int) -> float:
    """Microseconds per call of `fn` (CPU time)."""
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - start) / repeat * 1e6


def mid_game(players: int) -> State:
    """A state in the middle of a random game (round 5, someone to move)."""
    rng = random.Random(1)
    state = GAME.new_state(players, seed=3)
    while state.round < 5 or state.stage == "send":
        p = state.to_move()[0]
        actions = state.legal_actions(p)
        state.apply(actions[rng.randrange(len(actions))], p)
    return state


def step_costs(players: int) -> dict[str, float]:
    """Microseconds for each operation of the interface at a mid-game state."""
    state = mid_game(players)
    p = state.to_move()[0]
    action = state.legal_actions(p)[0]
    rng = np.random.default_rng(0)

    def apply_once() -> None:
        state.clone().apply(action, p)

    clone_cost = per_call(state.clone, 3000)
    return {
        "new_state": per_call(lambda: GAME.new_state(players, seed=1), 1000),
        "legal_actions": per_call(lambda: state.legal_actions(p), 20000),
        "check": per_call(lambda: state.check(action, p), 20000),
        "apply (on a clone)": per_call(apply_once, 5000) - clone_cost,
        "clone": clone_cost,
        "to_json": per_call(state.to_json, 2000),
        "observe": per_call(lambda: state.observe(p), 5000),
        "determinize": per_call(lambda: state.determinize(p, rng), 2000),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--profile", action="store_true", help="profile 4-player random games")
    args = parser.parse_args()
    print(f"{'players':>7} {'random games/s':>15} {'actions/game':>13} {'actions/s':>10} "
          f"{'harness-style games/s':>22}")
    for players in (2, 3, 4):
        seconds, steps = random_games(players, args.games)
        harness = harness_games(players, max(50, args.games // 5))
        print(f"{players:>7} {args.games / seconds:>15,.0f} {steps / args.games:>13.1f} "
              f"{steps / seconds:>10,.0f} {max(50, args.games // 5) / harness:>22,.0f}")
    print()
    costs = {n: step_costs(n) for n in (2, 3, 4)}
    print(f"{'operation (µs)':<20}" + "".join(f"{n:>9}p" for n in (2, 3, 4)))
    for op in costs[2]:
        print(f"{op:<20}" + "".join(f"{costs[n][op]:>10.1f}" for n in (2, 3, 4)))
    if args.profile:
        print()
        profiler = cProfile.Profile()
        profiler.enable()
        random_games(4, max(100, args.games // 5))
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
