"""Anasazi (Phalanx Games, 2006): expeditions of markers across a table of mesas."""

from games.anasazi.rules import AnasaziGame, AnasaziState
from geomsim.rules import Parts

# The faces beside the rules, each loaded when first asked for (numba, matplotlib, the players).
GAME = AnasaziGame(parts=Parts(
    random_playouts="games.anasazi.playout:game_random_playouts",
    encoding="games.anasazi.encoding:default_encoding",
    state_encoding="games.anasazi.encoding:state_encoding",
    draw="games.anasazi.draw:draw_state",
    text="games.anasazi.text:summary_text",
    choice_figures="games.anasazi.choice:choice_figures",
    bots="games.anasazi.search:PLAYERS",
    expectations="games.anasazi.reach:EXPECTATIONS",
    outputs="games.anasazi.reach:OUTPUTS",
    web="games.anasazi.web:WEB",
))

__all__ = ["GAME", "AnasaziGame", "AnasaziState"]
