"""Treasures of Cibola as a geomsim game: `GAME`, its rules (`rules.py`, components in
`components.py` / `components.json`) with its parts: drawing (`draw.py`), text board
(`text.py`), action ids and observation tensor (`encoding.py`), compiled random player
(`playout.py`, numba), each loaded when first asked for."""

from collections.abc import Mapping
from typing import Any

from games.cibola.rules import Cibola
from geomsim.rules import Parts

GAME = Cibola(parts=Parts(
    random_playouts="games.cibola.playout:game_playouts",
    encoding="games.cibola.encoding:game_encoding",
    state_encoding="games.cibola.encoding:state_encoding",
    draw="games.cibola.draw:draw_state",
    text="games.cibola.text:board_text",
))


def make_setup(players: int, seed: int, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The explicit setup (deck order, totems, torch keeper, explorers) that `seed` gives under
    `options`, as JSON-able data that `GAME.new_state(players, setup=...)` accepts."""
    return GAME.make_setup(players, seed, options)


__all__ = ["GAME", "make_setup"]
