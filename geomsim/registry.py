"""Finding games by name through the entry point group ``geomsim.games``."""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points

from geomsim.rules import Game

GROUP = "geomsim.games"


class UnknownGame(LookupError):
    """Raised for a game name that no installed package provides."""


def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def list_games() -> list[str]:
    """The names of the installed games, sorted."""
    return sorted(_entry_points())


@cache
def load_game(name: str) -> Game:
    """The game registered under `name`; `UnknownGame` lists the known names otherwise."""
    found = _entry_points().get(name)
    if found is None:
        raise UnknownGame(f"unknown game {name!r}; known games: {', '.join(list_games()) or 'none'}")
    game = found.load()
    if not isinstance(game, Game):
        raise TypeError(f"entry point {name!r} ({found.value}) is not a geomsim Game")
    return game
