"""`geomsim rules`: a game's rules, or the rules coverage page."""

from __future__ import annotations

from pathlib import Path

import click

import geomsim
from geomsim.cli.common import OutputPath, command, game_option


@command("rules")
@click.argument("game_name", metavar="[GAME]", required=False)
@click.option("--coverage", type=OutputPath((".md",)),
              help="Write the rules coverage page of all games (rule, text, enforcer, tests).")
@click.option("--tests", "tests_dir", default="tests", show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="Where the tests are.")
@click.option("--options", "show_options", is_flag=True,
              help="List the options of GAME (name, default, allowed values, rules changed) "
                   "and its variants, instead of its rules.")
def rules_command(game_name: str | None, coverage: Path | None, tests_dir: Path,
                  show_options: bool) -> None:
    """List the rules of GAME with their ids and rulebook text, or its options, or write the
    coverage page."""
    names = [game_name] if game_name else geomsim.list_games()
    games = [game_option(n) for n in names]
    if show_options:
        from geomsim.options import listing

        for game in games:
            if len(games) > 1:
                click.echo(f"{game.name}:")
            for line in listing(game.options, game.variants):
                click.echo(line)
        return
    if coverage:
        from geomsim.coverage import coverage_markdown
        from geomsim.files import write_text

        write_text(coverage, coverage_markdown(games, tests_dir))
        click.echo(f"wrote {coverage}")
        return
    for game in games:
        for rule in game.rules.values():
            click.echo(f"{rule.id:45s} {rule.section:6s} {' '.join(rule.text.split())}")
