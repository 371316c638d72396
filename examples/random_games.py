"""Thousands of random games in seconds: the compiled random player of Treasures of Cibola.

    python examples/random_games.py [GAMES]

Every decision is uniform among the legal actions, as the interface's random bot plays, and
any game can be replayed through the rules (`Playouts.actions`).
"""

from __future__ import annotations

import sys
import time

import geomsim


def seat_table(players: int, games: int) -> str:
    """Win share and mean score of each seat over `games` random games from seeds 0, 1, ..."""
    game = geomsim.load_game("cibola")
    start = time.perf_counter()
    played = game.random_playouts([game.new_state(players, seed=s) for s in range(games)])
    seconds = time.perf_counter() - start
    shares = played.winners / played.winners.sum(axis=1, keepdims=True)  # a shared win is split
    lines = [f"{games} random {players}-player games in {seconds:.2f} s, "
             f"{played.decisions.mean():.1f} decisions a game", "seat  win share  mean score"]
    for seat in range(players):
        lines.append(f"{seat:4d}  {shares[:, seat].mean():9.1%}  {played.scores[:, seat].mean():10.1f}")
    first = ", ".join(f"{p}: {a}" for p, a in played.actions(0)[:6])
    lines.append(f"game 0 begins {first}, ...")
    return "\n".join(lines)


def main(games: int = 20_000) -> None:
    game = geomsim.load_game("cibola")
    game.random_playouts([game.new_state(4, seed=0)])  # compiles once, or loads numba's cache
    print(seat_table(4, games))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
