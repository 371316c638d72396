"""geomsim: exact models of tabletop games under one rules interface."""

from geomsim.errors import InputError
from geomsim.reading import DataError
from geomsim.registry import UnknownGame, list_games, load_game
from geomsim.rules import (
    Action,
    ActionSpace,
    ContinuousActionSpace,
    Event,
    FiniteActionSpace,
    Game,
    IllegalAction,
    Playouts,
    Rule,
    State,
    Verdict,
    Violation,
)

__version__ = "0.2.0"

__all__ = [
    "Action", "ActionSpace", "ContinuousActionSpace", "DataError", "Event", "FiniteActionSpace", "Game",
    "IllegalAction", "InputError", "Playouts", "Rule", "State", "UnknownGame", "Verdict", "Violation",
    "list_games", "load_game", "__version__",
]
