"""Treasures of Cibola as a geomsim game: `GAME` (rules in `rules.py`, components in
`components.py` / `components.json`, drawing in `draw.py`)."""

from typing import Any

from games.cibola.rules import Cibola

GAME = Cibola()


def make_setup(players: int, seed: int, copy_totem: bool = True) -> dict[str, Any]:
    """The explicit setup (deck order, totems, torch keeper, explorers) that `seed` gives, as
    JSON-able data that `GAME.new_state(players, setup=...)` accepts."""
    return GAME.make_setup(players, seed, copy_totem)


__all__ = ["GAME", "make_setup"]
