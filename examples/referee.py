"""A rules referee at an Anasazi table: is this placement legal, and if not, why? Can this
expedition reach that pueblo, in how many markers, with what margin?

    python examples/referee.py [SEED]
"""

from __future__ import annotations

import math
import sys

import numpy as np

import geomsim
from games.anasazi.reach import reach


def table_in_play(seed: int) -> geomsim.State:
    """A 3-player game after its setup (base camps and tower looks chosen at random)."""
    game = geomsim.load_game("anasazi")
    state = game.new_state(players=3, seed=seed)
    rng = np.random.default_rng(seed)
    while state.phase != "play":
        state.apply(state.legal_actions().sample(rng, 1)[0])
    return state


def referee(state: geomsim.State, proposal: str) -> str:
    """The verdict on a proposed action, in words."""
    verdict = state.check(state.game.parse_action(proposal))
    return f"{proposal}: " + ("legal" if verdict.ok else "; ".join(map(str, verdict.violations)))


def main(seed: int = 7) -> None:
    state = table_in_play(seed)
    camp = state.table.expedition_camps[0]
    x, y = camp.start
    inward = math.degrees(math.atan2(-y, -x))  # towards the table's centre
    print(f"player {state.to_move()[0]} to move; expedition {camp.id} starts at ({x:.1f}, {y:.1f})")
    for proposal in (f"extend {camp.id} heading {inward:.1f}",
                     f"extend {camp.id} heading {inward + 180:.1f}",
                     f"marker {camp.id} at 0,0 heading 0"):
        print(" ", referee(state, proposal))
    for sector in state.table.sectors:
        answer = reach(state, camp.id, sector.id, max_markers=3)
        if answer.status == "reachable":
            print(f"{camp.id} reaches {sector.id} in {answer.markers} marker(s), margin "
                  f"{answer.margin}: {'; '.join(answer.actions)}")
            break
    else:
        print(f"{camp.id} reaches no sector within 3 markers")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
