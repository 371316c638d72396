"""`geomsim games`: the installed games."""

from __future__ import annotations

import click

import geomsim
from geomsim.cli.common import command
from geomsim.registry import load_game


@command("games")
def games_command() -> None:
    """List the installed games: player counts, rule counts, a compiled random player."""
    for name in geomsim.list_games():
        try:
            game = load_game(name)
        except Exception as e:  # a broken plugin should not hide the others
            click.echo(f"{name:10s} (cannot load: {e})")
            continue
        compiled = ", compiled random player" if game.has_random_playouts() else ""
        click.echo(f"{name:10s} {game.min_players}-{game.max_players} players, "
                   f"{len(game.rules)} rules{compiled}")
