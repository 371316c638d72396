"""Bots: the time of one ISMCTS decision with rollouts in the rules interface and by the game's
compiled random player (`Game.random_playouts`), for the games that have one.

    .venv/bin/python benchmarks/bench_bots.py [--iterations 100] [--repeat 3]

The state is a random game's first decision, after 20 random actions, where the player to move
has at least 3 legal actions. CPU time of this process; the kernel is compiled (or loaded from
numba's cache) before the clock starts.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from geomsim.bots import ISMCTSBot
from geomsim.registry import load_game
from geomsim.rules import State

GAMES = (("cibola", 4), ("aztekz", 3))


def decision_state(name: str, players: int) -> State:
    """A state with a real choice to make, early in a random game."""
    state = load_game(name).new_state(players, seed=3)
    rng = random.Random(1)
    played = 0
    while played < 20 or len(state.legal_actions(state.to_move()[0])) < 3:
        player = state.to_move()[0]
        actions = state.legal_actions(player)
        state.apply(actions[rng.randrange(len(actions))], player)
        played += 1
    return state


def decision_seconds(bot: ISMCTSBot, state: State, repeat: int, compiled: bool) -> float:
    """CPU seconds of one decision, rollouts compiled or not."""
    game = state.game
    game.has_random_playouts = lambda: compiled  # this instance only, for the measurement
    try:
        player = state.to_move()[0]
        start = time.process_time()
        for seed in range(repeat):
            bot.choose(state, player, np.random.default_rng(seed))
        return (time.process_time() - start) / repeat
    finally:
        del game.has_random_playouts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true",
                        help="a few iterations, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.iterations, args.repeat = 2, 1
    bot = ISMCTSBot(iterations=args.iterations)
    print(f"| game | players | ismcts:{args.iterations}, interface rollouts ms | compiled rollouts ms | speed-up |")
    print("|---|---:|---:|---:|---:|")
    for name, players in GAMES:
        state = decision_state(name, players)
        state.game.random_playouts([state])  # compile, or load numba's cache
        slow = decision_seconds(bot, state, args.repeat, compiled=False)
        fast = decision_seconds(bot, state, args.repeat, compiled=True)
        print(f"| {name} | {players} | {slow * 1e3:,.0f} | {fast * 1e3:,.1f} | {slow / fast:.1f} |")


if __name__ == "__main__":
    main()
