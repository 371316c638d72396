"""geomsim's games in the RL ecosystem (``pip install 'geomsim[rl]'``).

- `geomsim.envs.pettingzoo`: ``env("cibola", players=4)``, a PettingZoo AEC environment for every
  game: observations ``{"observation": float32 tensor, "action_mask": int8}``, actions the game's
  fixed ids (`geomsim.encoding`).
- `geomsim.envs.openspiel`: every game as an OpenSpiel Python game, registered with pyspiel as
  ``python_geomsim_cibola``, ``python_geomsim_aztekz`` and ``python_geomsim_anasazi`` when the
  module is imported.
- `anasazi_pose_space`: Anasazi's continuous poses as a gymnasium ``Box``, with the rules'
  verdict on any pose (`pose_action`).

The adapters use only the rules interface; docs/ecosystem.md says what each maps to what.
"""

from __future__ import annotations

from typing import Any

from geomsim.rules import Action, Player, State, Verdict

__all__ = ["anasazi_pose_space", "pose_action"]


def anasazi_pose_space(state: State) -> Any:
    """The continuous poses of Anasazi as a gymnasium ``Box``: ``(x, y, heading)``, x and y in mm
    within the play area's square, heading in degrees [0, 360) (a base camp ignores the heading)."""
    table = getattr(state.encoding, "table", None)  # Anasazi's encoding holds its table
    if table is None:
        raise ValueError(f"{state.game.name} has no continuous poses: the pose space is Anasazi's")
    import numpy as np
    from gymnasium.spaces import Box

    radius = table.sizes.play_area_radius
    return Box(low=np.array([-radius, -radius, 0.0], dtype=np.float32),
               high=np.array([radius, radius, 360.0], dtype=np.float32), dtype=np.float32)


def pose_action(state: State, pose: Any, expedition: str | None = None,
                player: Player | None = None) -> tuple[Action, Verdict]:
    """The Anasazi action that lays a marker of `expedition` at `pose` (x, y, heading), or builds
    a base camp at (x, y) when `expedition` is None, and the rules' verdict on it (`State.check`:
    the rule ids broken and by how much), for agents that act in the continuous space."""
    x, y, heading = (float(v) for v in pose)
    text = f"camp {x!r},{y!r}" if expedition is None else (
        f"marker {expedition} at {x!r},{y!r} heading {heading % 360.0!r}")
    action = state.game.parse_action(text)
    return action, state.check(action, player)
