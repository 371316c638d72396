"""Anasazi's compiled random player (games/anasazi/playout.py): games a second, ISMCTS decisions
and ISMCTS strength with compiled and interface rollouts.

    python benchmarks/bench_anasazi_playout.py [--games 200] [--repeat 5] [--iterations 30]
                                              [--strength 40] [--strength-iterations 10]
                                              [--smoke]

Prints three tables (CPU time of this process, medians of `--repeat` runs; the kernel is
compiled, or loaded from numba's cache, before any clock starts):

1. random 4-player games a second: the compiled player from ready tables (states made on 50
   tables, the kernel's table arrays made before or in the run), from seeds (`play_compiled`:
   the layout included), and the interface's random bot from the same ready tables;
2. one ISMCTS decision (`--iterations`) early in play, rollouts in the interface and compiled,
   each run on a fresh copy of the position (read from JSON: no board derived data kept);
3. the win rate of ISMCTS (`--strength-iterations`) against greedy over `--strength` 2-player
   games (seats alternating), rollouts in the interface and compiled, with 95% Wilson
   intervals: the same strength means overlapping intervals.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from games.anasazi import GAME, playout
from geomsim.stats import wilson
from geomsim.bots import ISMCTSBot, play_compiled, play_game
from geomsim.rules import State
from geomsim.testing import random_playout


def cpu(run: Callable[[], object], repeat: int) -> float:
    """The median CPU seconds of `run()`."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return statistics.median(times)


def speeds(games: int, repeat: int) -> None:
    """Table 1: games a second per core."""
    tables = [GAME.new_state(4, seed=s) for s in range(min(games, 50))]  # within the caches
    starts = [tables[i % len(tables)] for i in range(games)]
    GAME.random_playouts(tables)  # compile (or load numba's cache), make the table arrays
    fresh = iter(range(10**6, 2 * 10**6))  # seeds never set up before: no cached layouts

    def new_tables() -> None:
        playout._TABLES.clear()
        GAME.random_playouts(starts, seed=1)

    rows = [
        ("compiled, ready tables (table arrays made)", lambda: GAME.random_playouts(starts, seed=1),
         games),
        ("compiled, ready tables (table arrays made in the run)", new_tables, games),
        ("compiled, from seeds (layout included)",
         lambda: [play_compiled(GAME, 4, next(fresh)) for _ in range(max(games // 10, 1))],
         max(games // 10, 1)),
        ("interface random bot, ready tables",
         lambda: [random_playout(GAME, 4, s, sample_k=1, start=tables[s % len(tables)])
                  for s in range(max(games // 20, 1))], max(games // 20, 1)),
    ]
    print("| random 4-player games | games a second per core | ms a game |")
    print("|---|---:|---:|")
    for name, run, n in rows:
        seconds = cpu(run, repeat) / n
        print(f"| {name} | {1 / seconds:,.0f} | {seconds * 1e3:.2f} |")


def decision_state(seed: int = 3) -> State:
    """A state early in play with a placement to choose (no decision open)."""
    state = GAME.new_state(2, seed=seed)
    rng = np.random.default_rng(1)
    while state.phase != "play" or len(state.history) < 30 or state.pending:
        state.apply(state.legal_actions().sample(rng, 1)[0])
    return state


def with_rollouts(compiled: bool, run: Callable[[], object]) -> object:
    """`run()` with ISMCTS rolling out compiled or in the interface."""
    GAME.has_random_playouts = lambda: compiled  # this instance only, for the measurement
    try:
        return run()
    finally:
        del GAME.has_random_playouts


def decision_cpu(state: State, bot: ISMCTSBot, repeat: int) -> float:
    """The median CPU seconds of `bot`'s decision in `state`, each run on a fresh copy read
    from JSON (nothing derived from the board in an earlier run is kept: a game's position
    is met once)."""
    times = []
    for _ in range(repeat):
        fresh = GAME.state_from_json(state.to_json())
        start = time.process_time()
        bot.choose(fresh, fresh.current, np.random.default_rng(0))
        times.append(time.process_time() - start)
    return statistics.median(times)


def decisions(iterations: int, repeat: int) -> None:
    """Table 2: one ISMCTS decision."""
    state, bot = decision_state(), ISMCTSBot(iterations=iterations)
    slow = with_rollouts(False, lambda: decision_cpu(state, bot, repeat))
    fast = with_rollouts(True, lambda: decision_cpu(state, bot, repeat))
    print(f"| ismcts:{iterations}, 2 players | interface rollouts ms | compiled rollouts ms | "
          "speed-up |")
    print("|---|---:|---:|---:|")
    print(f"| decision early in play | {slow * 1e3:,.0f} | {fast * 1e3:,.1f} | {slow / fast:.1f} |")


def strength(games: int, iterations: int) -> None:
    """Table 3: ISMCTS against greedy."""
    print(f"| ismcts:{iterations} against greedy, 2 players | games | wins | win rate | 95% CI "
          "| CPU s a game |")
    print("|---|---:|---:|---:|---|---:|")
    for compiled in (False, True):
        wins = 0.0
        start = time.process_time()
        for seed in range(games):
            seats = ["greedy", f"ismcts:{iterations}"]
            seat = seed % 2  # the searcher's seat alternates
            if seat == 0:
                seats.reverse()
            result = with_rollouts(compiled, lambda: play_game(GAME, 2, seats, seed))
            wins += (seat in result.winners) / len(result.winners)
        seconds = (time.process_time() - start) / games
        low, high = wilson(wins, games)
        label = "compiled rollouts" if compiled else "interface rollouts"
        print(f"| {label} | {games} | {wins:g} | {wins / games:.0%} | {low:.0%}-{high:.0%} "
              f"| {seconds:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--strength", type=int, default=40, help="games per rollout kind (0: skip)")
    parser.add_argument("--strength-iterations", type=int, default=10)
    parser.add_argument("--smoke", action="store_true",
                        help="a few iterations, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.games, args.repeat, args.iterations, args.strength = 20, 1, 2, 1
        args.strength_iterations = 2
    speeds(args.games, args.repeat)
    print()
    decisions(args.iterations, args.repeat)
    if args.strength:
        print()
        strength(args.strength, args.strength_iterations)


if __name__ == "__main__":
    main()
