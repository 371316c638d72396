"""Aztekz (Yun Games, 2008) for geomsim: a labyrinth of pyramid cards on a bounded grid.

`GAME` is the game; `GAME.make_setup(players, seed)` gives setup data that
`GAME.new_state(players, setup=...)` accepts. The rules are in `games.aztekz.rules`, the
components in `games.aztekz.components`; the faces below are imported on first use (numba and
matplotlib load only then).
"""

from games.aztekz.rules import AztekzGame, AztekzState
from geomsim.rules import Parts

GAME = AztekzGame(parts=Parts(
    random_playouts="games.aztekz.playout:game_random_playouts",
    encoding="games.aztekz.encoding:default_encoding",
    state_encoding="games.aztekz.encoding:state_encoding",
    draw="games.aztekz.draw:draw_state",
    text="games.aztekz.text:board_text",
    web="games.aztekz.web:WEB",
))

__all__ = ["GAME", "AztekzGame", "AztekzState"]
