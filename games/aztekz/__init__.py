"""Aztekz (Yun Games, 2008) for geomsim: a labyrinth of pyramid cards on a bounded grid.

`GAME` is the game; `GAME.make_setup(players, seed)` gives setup data that
`GAME.new_state(players, setup=...)` accepts. The rules are in `games.aztekz.rules`, the
components in `games.aztekz.components`, the drawing in `games.aztekz.draw`.
"""

from games.aztekz.rules import GAME, AztekzGame, AztekzState

__all__ = ["GAME", "AztekzGame", "AztekzState"]
