"""Random games a second per core, compiled and through the rules interface, as ratios to an
anchor measured in the same run: a random tic-tac-toe game in plain Python (written here).

    python benchmarks/bench_compiled_games.py [--games 2000] [--interface 20] [--rounds 3]

Each game from ready tables (up to 100 `new_state`s of `--players` players, not timed), CPU time of this
process; the anchor is timed between the games' rows in every round, and each ratio is the
game's rate over the anchor's rate of its own round (the median over rounds is printed). These
are the README's figures (issue 30, item 6): quote the ratios, not the rates, which follow the
load of the machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from geomsim.registry import load_game
from geomsim.testing import random_playout

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def tic_tac_toe(rng: random.Random) -> int:
    """One random tic-tac-toe game in plain Python; the winner (0 for a draw)."""
    board = [0] * 9
    free = list(range(9))
    player = 1
    while free:
        cell = free.pop(rng.randrange(len(free)))
        board[cell] = player
        if any(board[a] == board[b] == board[c] == player for a, b, c in LINES):
            return player
        player = 3 - player
    return 0


def rate(fn, n: int) -> float:
    """Calls a CPU second of `fn(i)` for i in range(n)."""
    start = time.process_time()
    for i in range(n):
        fn(i)
    return n / max(time.process_time() - start, 1e-9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="compiled games per round")
    parser.add_argument("--interface", type=int, default=20,
                        help="games through the rules interface per round")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--smoke", action="store_true",
                        help="a few iterations, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.games, args.interface, args.rounds = 4, 1, 1
    rng = random.Random(0)
    anchor_games = max(20 * args.games, 2000)
    names = ["cibola", "aztekz", "anasazi"]
    games = {name: load_game(name) for name in names}
    # Up to 100 tables a game, repeated (a table costs Anasazi 12 ms to lay out).
    made = {name: [g.new_state(args.players, seed=s) for s in range(min(100, args.games))]
            for name, g in games.items()}
    tables = {name: [t[i % len(t)] for i in range(max(args.games, args.interface))]
              for name, t in made.items()}
    for name, g in games.items():
        g.random_playouts(tables[name][:1], seed=0)  # compiled, or loaded from numba's cache
    ratios: dict[tuple[str, str], list[float]] = {}
    rates: dict[tuple[str, str], list[float]] = {}
    for r in range(args.rounds):
        anchor = [rate(lambda i: tic_tac_toe(rng), anchor_games)]
        for name, g in games.items():
            ready = tables[name]
            found = {
                "compiled": args.games / _cpu(lambda: g.random_playouts(ready[:args.games], seed=r)),
                "interface": rate(lambda i: random_playout(g, args.players, i, start=ready[i]),
                                  args.interface),
            }
            anchor.append(rate(lambda i: tic_tac_toe(rng), anchor_games))
            for kind, value in found.items():
                rates.setdefault((name, kind), []).append(value)
                ratios.setdefault((name, kind), []).append(value / statistics.mean(anchor[-2:]))
        rates.setdefault(("anchor", "tic-tac-toe"), []).extend(anchor)
    print(f"{'what':34s}  {'games/s (CPU)':>14s}  {'/ anchor':>9s}")
    a = statistics.median(rates[("anchor", "tic-tac-toe")])
    print(f"{'anchor: plain Python tic-tac-toe':34s}  {a:14.0f}  {1.0:9.3g}")
    for (name, kind), values in ratios.items():
        label = f"{name} {args.players}p, {kind}"
        print(f"{label:34s}  {statistics.median(rates[(name, kind)]):14.1f}  "
              f"{statistics.median(values):9.3g}")


def _cpu(fn) -> float:
    start = time.process_time()
    fn()
    return max(time.process_time() - start, 1e-9)


if __name__ == "__main__":
    main()
