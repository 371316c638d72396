"""Treasures of Cibola: random games per second per core, and where the time goes.

Run by hand on a quiet machine (figures go to benchmarks/README.md, section "Cibola"):

    .venv/bin/python benchmarks/bench_cibola.py [--games 1000] [--profile]

Rows:
- "random games": new_state from a seed, then until the end: to_move, legal_actions, a uniform
  choice with Python's `random`, apply (through the rules interface, checks included).
- "harness-style": the same with `ActionSpace.sample(numpy rng)` as geomsim.testing plays.
- "compiled": `GAME.random_playouts` (games/cibola/playout.py, numba): new_state for each seed,
  then encode + the kernel, in batches of `--batch` states, from seeds to final scores; and the
  kernel alone on states encoded beforehand (compiled once before timing).
- per-step costs: new_state, legal_actions, apply (the engine's wrapper: player resolution,
  turn check, history; and the game's own hooks), clone, to_json, observe, determinize.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
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


def compiled_games(players: int, games: int, batch: int) -> tuple[float, float, int]:
    """CPU seconds for `games` compiled random games from seeds (new_state included), of which
    the seconds spent in new_state, and the number of decisions."""
    GAME.random_playouts([GAME.new_state(players, seed=0)])  # compile (or load the cache)
    decisions = 0
    in_new_state = 0.0
    start = time.process_time()
    for first in range(0, games, batch):
        made = time.process_time()
        states = [GAME.new_state(players, seed=s) for s in range(first, min(first + batch, games))]
        in_new_state += time.process_time() - made
        decisions += len(GAME.random_playouts(states, seed=first).log)
    return time.process_time() - start, in_new_state, decisions


def kernel_alone(players: int, games: int) -> float:
    """CPU seconds of the kernel for `games` games encoded beforehand (no Python per game)."""
    from games.cibola import playout

    states = [GAME.new_state(players, seed=s) for s in range(games)]
    records: list[int] = []
    starts = []
    for state in states:
        starts.append(len(records))
        records += playout._record(state)
    args = (np.array(records, np.int64), np.array(starts, np.int64),
            playout._tables_of(states[0].components), 0, np.empty((games * 200, 3), np.int64),
            np.empty(games + 1, np.int64), np.zeros((games, players)),
            np.zeros((games, players), bool))
    playout.play_batch(*args)  # compile (or load the cache)
    start = time.process_time()
    playout.play_batch(*args)
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
    parser.add_argument("--compiled-games", type=int, default=20000,
                        help="games of the compiled rows")
    parser.add_argument("--batch", type=int, default=100, help="states per random_playouts call")
    parser.add_argument("--gc-freeze", action="store_true",
                        help="gc.freeze() before the compiled rows (numba's import leaves about "
                             "100,000 objects that Python's cyclic collector walks again and again)")
    parser.add_argument("--smoke", action="store_true",
                        help="a few iterations, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.games, args.compiled_games, args.batch = 2, 4, 2
    print(f"{'players':>7} {'random games/s':>15} {'actions/game':>13} {'actions/s':>10} "
          f"{'harness-style games/s':>22}")
    for players in (2, 3, 4):
        seconds, steps = random_games(players, args.games)
        harness = harness_games(players, max(50, args.games // 5))
        print(f"{players:>7} {args.games / seconds:>15,.0f} {steps / args.games:>13.1f} "
              f"{steps / seconds:>10,.0f} {max(50, args.games // 5) / harness:>22,.0f}")
    print()
    n = args.compiled_games
    if args.gc_freeze:
        GAME.random_playouts([GAME.new_state(2, seed=0)])  # import numba, load the kernel
        gc.freeze()
    print(f"compiled, {n} games, batches of {args.batch}" + (", gc frozen" if args.gc_freeze else ""))
    print(f"{'players':>7} {'games/s':>10} {'new_state µs':>13} {'rest µs':>8} "
          f"{'decisions/game':>15} {'kernel alone games/s':>21} {'kernel decisions/s':>19}")
    for players in (2, 3, 4):
        seconds, in_new_state, decisions = compiled_games(players, n, args.batch)
        kernel = kernel_alone(players, n)
        print(f"{players:>7} {n / seconds:>10,.0f} {in_new_state / n * 1e6:>13.1f} "
              f"{(seconds - in_new_state) / n * 1e6:>8.1f} {decisions / n:>15.1f} "
              f"{n / kernel:>21,.0f} {decisions / kernel:>19,.0f}")
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
