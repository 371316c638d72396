"""Play a few random moves of each game and draw the moment: the pictures in the README.

    python examples/moments.py [OUT_DIR]     (default out/moments; docs/make-images.sh writes
                                              the README's copies into docs/images)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import geomsim
from geomsim.plotting import save

MOVES = {"cibola": 40, "aztekz": 120}


def moment(name: str, players: int, moves: int, seed: int = 2) -> geomsim.State:
    """The state after `moves` random legal actions from the seeded setup."""
    rng = np.random.default_rng(seed)
    state = geomsim.load_game(name).new_state(players=players, seed=seed)
    for _ in range(moves):
        if state.is_over():
            break
        player = state.to_move()[int(rng.integers(len(state.to_move())))]
        state.apply(state.legal_actions(player).sample(rng, 1)[0], player)
    return state


def main(out: Path) -> None:
    for name, moves in MOVES.items():
        path = save(moment(name, 3, moves).draw(), out / f"{name}-moment.png")
        print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "out/moments"))
