"""`geomsim setup`: a game's setup, drawn and saved."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from geomsim.batch import Batch
from geomsim.rules import Game

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
@click.option("--fair", type=click.IntRange(min=2), default=None, metavar="K",
              help="Pick, among the setups of seeds SEED to SEED+K-1, the one whose turn positions "
                   "win most evenly when random players play it (see --fair-games, --by).")
@click.option("--fair-games", type=click.IntRange(min=2), default=40, show_default=True,
              help="With --fair: games played on each candidate setup.")
@click.option("--by", type=click.Choice(["balance", "chisq"]), default="balance", show_default=True,
              help="With --fair: most even by Balance or by the chi-square p-value.")
@option_flags
def setup_command(game_name: str, players: int | None, seed: int, source: Path | None,
                  json_out: Path | None, output: Path | None, reveal: bool, fair: int | None,
                  fair_games: int, by: str, option_texts: tuple[str, ...],
                  variant: str | None) -> None:
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
    if fair is not None:
        if source is not None:
            raise UserError("--fair with --from: the file is one setup already")
        seed = _fairest_seed(game, players, seed, fair, fair_games, by, options)
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


def _fairest_seed(game: Game, players: int, seed: int, k: int, games: int, by: str,
                  options: dict[str, Any]) -> int:
    """The seed, among SEED to SEED+K-1, of the setup most even for random players (compiled
    where the game has them), said with its interval and re-measured on fresh bot seeds."""
    from geomsim import fair as fairness
    from geomsim.analysis import run_games

    try:
        game.require_playouts()
        compiled = True
    except NotImplementedError:
        compiled = False
    base = Batch(game.name, players, ("random",) * players, 0, games, True, compiled=compiled,
                 options=options)

    def play(batch: Batch, name: str) -> list[dict[str, Any]]:
        return run_games(batch.game, batch.players, [(s, batch.lineup(s)) for s in batch.seeds()],
                         batch.start, batch.max_steps, batch.compiled, batch.rotate,
                         dict(batch.options) or None)

    try:
        estimates = fairness.play_setups(game, base, range(seed, seed + k), games, play)
        found = fairness.fairest(estimates, by)
        chosen = found["chosen"]["setup"]
        again = fairness.play_setups(game, replace(base, seed=games), [chosen], games, play)[0]
    except ValueError as e:
        raise UserError(str(e)) from None
    click.echo("\n".join(fairness.estimate_lines(estimates) + [""]
                         + fairness.choice_lines(found, again)))
    return int(chosen)
