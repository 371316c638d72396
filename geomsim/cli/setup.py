"""`geomsim setup`: a game's setup, drawn and saved."""

from __future__ import annotations

import json
from pathlib import Path

import click

from geomsim.cli.common import (
    DIAGRAM, IN_FILE, JSON_FILE, SEED, UserError, chosen_options, command, game_option, option_flags,
    read_json,
)


@command("setup")
@click.argument("game_name", metavar="GAME")
@click.option("--players", "-p", type=int, default=None, help="Number of players.")
@click.option("--seed", "-s", type=SEED, default=0, show_default=True, help="Seed of the random setup.")
@click.option("--from", "source", type=IN_FILE,
              help="Draw the setup in this JSON file instead of a random one.")
@click.option("--json", "json_out", type=JSON_FILE, help="Write the setup data to this JSON file.")
@click.option("-o", "--output", type=DIAGRAM, help="Write the diagram to this PNG, SVG or PDF file.")
@click.option("--reveal", is_flag=True, help="Show hidden information (e.g. tower colours).")
@option_flags
def setup_command(game_name: str, players: int | None, seed: int, source: Path | None,
                  json_out: Path | None, output: Path | None, reveal: bool,
                  option_texts: tuple[str, ...], variant: str | None) -> None:
    """Make a setup of GAME (random from a seed, or from a file), draw it and save its data.

    Without -o and --json, writes GAME-setup-SEED.png and GAME-setup-SEED.json here (with
    --from, only the diagram, named after the file).
    """
    from geomsim.files import write_text
    from geomsim.reading import short

    from geomsim.options import with_options

    game = game_option(game_name)
    options = chosen_options(game, option_texts, variant)
    setup = read_json(source) if source is not None else None
    if players is None and isinstance(setup, dict):
        found = setup.get("players")
        if isinstance(found, bool) or not isinstance(found, int):
            problem = f"expected the number of players, got {short(found)}" if "players" in setup else "missing"
            raise UserError(f"{source}: players: {problem}; give it in the file or with --players")
        players = found
    elif players is None:
        players = game.max_players
    if not (json_out or output):
        output = Path(f"{source.stem}.png" if source else f"{game.name}-setup-{seed}.png")
        json_out = None if source else output.with_suffix(".json")
    try:
        if setup is None:
            # Options passed only when chosen: a plugin game's make_setup may not take them.
            setup = game.make_setup(players, seed, options) if options else game.make_setup(players, seed)
        else:
            setup = with_options(setup, options)
        state = game.new_state(players=players, setup=setup)
    except (ValueError, KeyError, TypeError) as e:
        raise UserError(f"{source or 'setup'}: {e}") from None
    if json_out:
        write_text(json_out, json.dumps(setup, indent=1) + "\n")
        click.echo(f"wrote {json_out}")
    if output:
        from geomsim.plotting import save

        save(state.draw(reveal=reveal), output)
        click.echo(f"wrote {output}")
