"""The `geomsim` command line: the only part of geomsim that imports click.

Commands load lazily: `geomsim --help` imports no game and no matplotlib. Each command of the
engine lives in its module of this package (``games``, ``setup``, ``rules``, ``scenario``,
``analyze``, ``ladder``, ``report``, ``serve``); a game adds its own through the entry point group
``geomsim.commands``, as a `geomsim.commands.Command` (data, no click) that `to_click` turns into
a click command. Any error is one line on stderr and exit code 2 (a traceback with --debug).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from importlib.metadata import entry_points
from typing import Any

import click

import geomsim
from geomsim.cli import common
from geomsim.commands import Command as CommandData
from geomsim.moved import moved

# The engine's commands: name -> "module:attribute".
LAZY_COMMANDS = {
    "games": "geomsim.cli.games:games_command",
    "setup": "geomsim.cli.setup:setup_command",
    "rules": "geomsim.cli.rules:rules_command",
    "run": "geomsim.cli.scenario:run_command",
    "check": "geomsim.cli.scenario:check_command",
    "replay": "geomsim.cli.scenario:replay_command",
    "analyze": "geomsim.cli.analyze:analyze_command",
    "compare": "geomsim.cli.compare:compare_command",
    "ladder": "geomsim.cli.ladder:ladder_command",
    "tune": "geomsim.cli.tune:tune_command",
    "report": "geomsim.cli.report:report_command",
    "serve": "geomsim.cli.serve:serve_command",
}


class LazyGroup(click.Group):
    """A group whose commands are imported only when they are run or listed in help."""

    def _lazy(self) -> dict[str, str]:
        found = dict(LAZY_COMMANDS)
        found.update({ep.name: ep.value for ep in entry_points(group="geomsim.commands")})
        return found

    def list_commands(self, ctx: click.Context) -> list[str]:
        """The names of the commands whose module is installed, sorted."""
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
        """The command `name`, imported now: a click command, or a game's `Command` data."""
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
        if isinstance(found, CommandData):
            from geomsim.cli.plugin import to_click

            return to_click(found)
        if not isinstance(found, click.Command):
            raise common.UserError(f"command {name}: {target} is not a click command")
        return found


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(geomsim.__version__, prog_name="geomsim")
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """geomsim: exact models of the tabletop games Anasazi, Treasures of Cibola and Aztekz."""
    ctx.obj = {"debug": debug}


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
        click.echo(f"geomsim: error: {e.format_message()}{_help_hint(e)}", err=True)
        return 2
    except KeyboardInterrupt:
        click.echo("geomsim: interrupted", err=True)
        return 130
    except OSError as e:
        if debug:
            raise
        click.echo(f"geomsim: error: {common.os_error(e)}", err=True)
        return 2
    except Exception as e:
        if debug:
            raise
        click.echo(f"geomsim: error: {type(e).__name__}: {e}", err=True)
        return 2
    return code if isinstance(code, int) else 0


def _help_hint(e: click.ClickException) -> str:
    """Where a usage error's command explains itself, as the end of the error's one line
    (click would print a ``Usage:`` line before it)."""
    if not isinstance(e, click.UsageError) or e.ctx is None:
        return ""
    return f" (see {e.ctx.command_path} --help)"


# What geomsim/cli.py held before it became this package: old name -> its new module.
_MOVED = {
    "UserError": "common", "OutputPath": "common", "DIAGRAM": "common", "JSON_FILE": "common",
    "SEED": "common", "game_option": "common", "read_json": "common", "os_error": "common",
    "games_command": "games", "setup_command": "setup", "rules_command": "rules",
}


def __getattr__(name: str) -> Any:
    """The names of the former geomsim/cli.py that moved into this package's modules (and
    `MAX_SEED`, now `geomsim.reading.MAX_SEED`), still found here for one release."""
    if name == "MAX_SEED":
        from geomsim.reading import MAX_SEED

        return moved("geomsim.cli.MAX_SEED", "geomsim.reading.MAX_SEED", MAX_SEED)
    if name in _MOVED:
        module = importlib.import_module(f"geomsim.cli.{_MOVED[name]}")
        return moved(f"geomsim.cli.{name}", f"{module.__name__}.{name}", getattr(module, name))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


