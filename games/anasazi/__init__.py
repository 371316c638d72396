"""Anasazi (Phalanx Games, 2006): expeditions of markers across a table of mesas."""

from games.anasazi.rules import AnasaziGame, AnasaziState

GAME = AnasaziGame()

__all__ = ["GAME", "AnasaziGame", "AnasaziState"]
