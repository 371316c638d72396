"""The `geomsim` command line.

Commands load lazily: `geomsim --help` imports no game and no matplotlib. Commands of the engine
live in their modules (scenario, analysis); a game adds its own through the entry point group
``geomsim.commands``. Any error is one line on stderr and exit code 2 (a traceback with --debug).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import click

import geomsim
from geomsim.files import DIAGRAM_SUFFIXES, WriteError
from geomsim.registry import load_game

# Engine commands kept in other modules: name -> "module:attribute".
LAZY_COMMANDS = {
    "run": "geomsim.scenario.commands:run_command",
    "check": "geomsim.scenario.commands:check_command",
    "replay": "geomsim.scenario.commands:replay_command",
    "analyze": "geomsim.analysis:analyze_command",
    "report": "geomsim.report:report_command",
    "serve": "geomsim.web.serve:serve_command",
}


class UserError(click.ClickException):
    """A problem with the user's input: reported as one line, exit code 2."""

    exit_code = 2


class OutputPath(click.ParamType):
    """A file or folder a command will write, checked as the command line is read (before any
    work): not empty, not a folder where a file is meant, and a suffix the writer knows.

    `suffixes`: the formats of a file (by its suffix). With `folder`, a name without a suffix
    is a folder (with no `suffixes`, any name is). `stdout`: ``-`` means standard output.
    """

    name = "path"

    def __init__(self, suffixes: tuple[str, ...] = (), folder: bool = False, stdout: bool = False):
        self.suffixes, self.folder, self.stdout = suffixes, folder, stdout

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        text = str(value)
        if self.stdout and text == "-":
            return Path(text)
        if not text.strip():
            self.fail("give a name, not an empty one", param, ctx)
        path = Path(text)
        suffix = path.suffix.lower()
        if self.folder and not (suffix and self.suffixes):
            if path.exists() and not path.is_dir():
                self.fail(f"{text} is a file, not a folder", param, ctx)
            return path
        if suffix not in self.suffixes:
            also = " (or a folder name without a suffix)" if self.folder else ""
            self.fail(f"{text}: give a name ending in {', '.join(self.suffixes)}{also}", param, ctx)
        if path.is_dir():
            self.fail(f"{text} is a folder, not a file", param, ctx)
        return path


DIAGRAM = OutputPath(DIAGRAM_SUFFIXES)
JSON_FILE = OutputPath((".json",))
# Every command's --seed: the seeds a game's compiled random player takes (numba's generators
# keep only 32 bits), so that one seed means one game everywhere; a negative seed is refused
# here in one line, not by numpy deep inside a command (or a page served for ever after).
MAX_SEED = 2**32 - 1
SEED = click.IntRange(0, MAX_SEED)


class LazyGroup(click.Group):
    """A group whose commands are imported only when they are run or listed in help."""

    def _lazy(self) -> dict[str, str]:
        found = dict(LAZY_COMMANDS)
        found.update({ep.name: ep.value for ep in entry_points(group="geomsim.commands")})
        return found

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self._available(ctx)))

    def _available(self, ctx: click.Context) -> dict[str, str]:
        available = {}
        for name, target in self._lazy().items():
            try:
                if importlib.util.find_spec(target.split(":")[0]) is not None:
                    available[name] = target
            except ImportError:  # the package that would hold it is missing
                continue
        return available

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is not None:
            return command
        target = self._lazy().get(name)
        if target is None:
            return None
        module, attribute = target.split(":")
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name and module.startswith(e.name):
                return None  # the package that would hold it is not installed
            raise  # the command's module is there but broken: say so, not "no such command"
        found = getattr(loaded, attribute)
        if not isinstance(found, click.Command):
            raise UserError(f"command {name}: {target} is not a click command")
        return found


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(geomsim.__version__, prog_name="geomsim")
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """geomsim: exact models of the tabletop games Anasazi, Treasures of Cibola and Aztekz."""
    ctx.obj = {"debug": debug}


def game_option(name: str) -> geomsim.Game:
    """The game called `name`, or a `UserError` listing the known games."""
    try:
        return load_game(name)
    except geomsim.UnknownGame as e:
        raise UserError(str(e)) from None


@cli.command("games")
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


@cli.command("setup")
@click.argument("game_name", metavar="GAME")
@click.option("--players", "-p", type=int, default=None, help="Number of players.")
@click.option("--seed", "-s", type=SEED, default=0, show_default=True, help="Seed of the random setup.")
@click.option("--from", "source", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Draw the setup in this JSON file instead of a random one.")
@click.option("--json", "json_out", type=JSON_FILE, help="Write the setup data to this JSON file.")
@click.option("-o", "--output", type=DIAGRAM, help="Write the diagram to this PNG, SVG or PDF file.")
@click.option("--reveal", is_flag=True, help="Show hidden information (e.g. tower colours).")
def setup_command(game_name: str, players: int | None, seed: int, source: Path | None,
                  json_out: Path | None, output: Path | None, reveal: bool) -> None:
    """Make a setup of GAME (random from a seed, or from a file), draw it and save its data.

    Without -o and --json, writes GAME-setup-SEED.png and GAME-setup-SEED.json here (with
    --from, only the diagram, named after the file).
    """
    from geomsim.files import write_text
    from geomsim.reading import short

    game = game_option(game_name)
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
            setup = game.make_setup(players, seed)
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


@cli.command("rules")
@click.argument("game_name", metavar="[GAME]", required=False)
@click.option("--coverage", type=OutputPath((".md",)),
              help="Write the rules coverage page of all games (rule, text, enforcer, tests).")
@click.option("--tests", "tests_dir", default="tests", show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="Where the tests are.")
def rules_command(game_name: str | None, coverage: Path | None, tests_dir: Path) -> None:
    """List the rules of GAME with their ids and rulebook text, or write the coverage page."""
    names = [game_name] if game_name else geomsim.list_games()
    games = [game_option(n) for n in names]
    if coverage:
        from geomsim.coverage import coverage_markdown
        from geomsim.files import write_text

        write_text(coverage, coverage_markdown(games, tests_dir))
        click.echo(f"wrote {coverage}")
        return
    for game in games:
        for rule in game.rules.values():
            click.echo(f"{rule.id:45s} {rule.section:6s} {' '.join(rule.text.split())}")


def read_json(path: Path) -> Any:
    """The JSON data in `path`, or a `UserError` naming the line and column of the problem
    (or the size limit, `geomsim.reading.MAX_JSON_BYTES`)."""
    from geomsim.reading import DataError, read_file

    try:
        return read_file(path)
    except DataError as e:
        raise UserError(str(e)) from None
    except OSError as e:
        raise UserError(f"{path}: {e.strerror}") from None


def os_error(e: OSError) -> str:
    """An OS error in one line: the file and the reason, without ``[Errno N]``."""
    if isinstance(e, WriteError) or not e.strerror:
        return str(e)
    return f"{e.filename}: {e.strerror}" if e.filename else e.strerror


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    debug = "--debug" in (sys.argv[1:] if argv is None else argv)
    try:
        code = cli.main(args=argv, prog_name="geomsim", standalone_mode=False)
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.Abort:
        click.echo("geomsim: interrupted", err=True)
        return 130
    except click.ClickException as e:
        if isinstance(e, click.UsageError) and e.ctx is not None:
            click.echo(e.ctx.get_usage(), err=True)
        click.echo(f"geomsim: error: {e.format_message()}", err=True)
        return 2
    except KeyboardInterrupt:
        click.echo("geomsim: interrupted", err=True)
        return 130
    except OSError as e:
        if debug:
            raise
        click.echo(f"geomsim: error: {os_error(e)}", err=True)
        return 2
    except Exception as e:
        if debug:
            raise
        click.echo(f"geomsim: error: {type(e).__name__}: {e}", err=True)
        return 2
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
