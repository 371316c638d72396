"""What the RL interface costs: random games through `apply` (which undo must not slow),
`state_from_json` and `determinize` (which now remember an origin for undo), an undo, and the
per-decision cost of masks and observation tensors.

Run with this worktree's code and with another's (e.g. main, which has no undo) on PYTHONPATH,
alternately, and compare medians:

    python benchmarks/bench_ecosystem.py --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import geomsim
from geomsim.bots import RandomBot


def _moments(game: geomsim.Game, players: int, seed: int) -> tuple[list, list]:
    """The decisions of one random game, and its states' JSON texts (every 10th)."""
    state, rng, bot, moves, texts = game.new_state(players, seed=seed), np.random.default_rng(seed), RandomBot(), [], []
    while not state.is_over():
        p = state.to_move()[0]
        a = bot.choose(state, p, rng)
        if len(moves) % 10 == 0:
            texts.append(state.to_json())
        moves.append((p, a))
        state.apply(a, p)
    return moves, texts


def _cpu(f, *args) -> float:
    t = time.process_time()
    f(*args)
    return time.process_time() - t


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    rows = []
    for name in ("cibola", "aztekz", "anasazi"):
        game = geomsim.load_game(name)
        played = [_moments(game, 3, s) for s in range(args.games)]
        starts = [game.new_state(3, seed=s) for s in range(args.games)]
        decisions = sum(len(m) for m, _ in played)
        texts = [t for _, ts in played for t in ts]

        def replay():
            for start, (moves, _) in zip(starts, played):
                state = start.clone()
                for p, a in moves:
                    state.apply(a, p)

        def read():
            for t in texts:
                game.state_from_json(t)

        def draw():
            rng = np.random.default_rng(0)
            for t in texts[:20]:
                game.state_from_json(t).determinize(0, rng)

        found = {"apply µs/decision": [], "state_from_json µs": [], "read+determinize µs": []}
        for _ in range(args.rounds):
            found["apply µs/decision"].append(_cpu(replay) / decisions * 1e6)
            found["state_from_json µs"].append(_cpu(read) / len(texts) * 1e6)
            found["read+determinize µs"].append(_cpu(draw) / min(20, len(texts)) * 1e6)
        late = game.new_state(3, seed=0)
        for p, a in played[0][0][:len(played[0][0]) // 2]:
            late.apply(a, p)
        if hasattr(late, "undo"):
            def undo_redo():
                p, a, _ = late.undo()
                late.apply(a, p)
            found["undo mid-game ms"] = [_cpu(undo_redo) * 1e3 for _ in range(args.rounds)]
            found["mask+tensor µs"] = [_cpu(lambda: (late.legal_action_mask(late.to_move()[0]),
                                                     late.observation_tensor(0))) * 1e6
                                       for _ in range(args.rounds)]
        for what, values in found.items():
            rows.append((name, what, statistics.median(values)))
    print(f"{'game':8s} {'what':24s} {'median':>10s}")
    for name, what, value in rows:
        print(f"{name:8s} {what:24s} {value:10.1f}")


if __name__ == "__main__":
    main()
