"""What every command of the command line shares: `UserError`, `Command` (the one place engine
errors become a `UserError`), the types of its paths and seeds, `game_option`, `read_json`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

import geomsim
from geomsim.errors import InputError
from geomsim.files import DIAGRAM_SUFFIXES, WriteError
from geomsim.reading import MAX_SEED
from geomsim.registry import load_game

F = TypeVar("F", bound=Callable[..., Any])


class UserError(click.ClickException):
    """A problem with the user's input: reported as one line, exit code 2."""

    exit_code = 2


class Command(click.Command):
    """A command whose engine errors (`InputError`: a file, an option, a spec the user gave)
    are reported as a `UserError`: one line, exit code 2."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command, turning an `InputError` into a `UserError`."""
        try:
            return super().invoke(ctx)
        except InputError as e:
            raise UserError(str(e)) from None


def command(name: str) -> Callable[[F], Command]:
    """`click.command(name)` making a `Command`."""
    return click.command(name, cls=Command)


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
        """The path of `value`, or a usage error saying what is wrong with it."""
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
# An existing file to read (a setup, a state, a scenario).
IN_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)
# Every command's --seed (`geomsim.reading.MAX_SEED`): a negative seed is refused here in one
# line, not by numpy deep inside a command (or a page served for ever after).
SEED = click.IntRange(0, MAX_SEED)


def game_option(name: str) -> geomsim.Game:
    """The game called `name`, or a `UserError` listing the known games."""
    try:
        return load_game(name)
    except geomsim.UnknownGame as e:
        raise UserError(str(e)) from None


def option_flags(f: F) -> F:
    """The ``--option NAME=VALUE`` (repeatable) and ``--variant NAME`` flags of a command that
    starts games (`chosen_options` reads them)."""
    f = click.option("--option", "option_texts", multiple=True, metavar="NAME=VALUE",
                     help="Change a rule option (repeatable; `geomsim rules GAME --options` "
                          "lists them).")(f)
    return click.option("--variant", metavar="NAME",
                        help="Play a named variant of the rules (default: official).")(f)


def chosen_options(game: geomsim.Game, option_texts: Sequence[str], variant: str | None
                   ) -> dict[str, Any]:
    """The options `--variant` and `--option` chose for `game` (only those), each checked:
    a `UserError` naming the option and its allowed values otherwise."""
    from geomsim.options import chosen

    return chosen(game.options, game.variants, variant, option_texts)


def read_json(path: Path) -> Any:
    """The JSON data in `path`, or a `UserError` naming the line and column of the problem
    (or the size limit, `geomsim.reading.MAX_JSON_BYTES`)."""
    from geomsim.reading import read_input

    try:
        return read_input(path)
    except InputError as e:
        raise UserError(str(e)) from None


def os_error(e: OSError) -> str:
    """An OS error in one line: the file and the reason, without ``[Errno N]``."""
    if isinstance(e, WriteError) or not e.strerror:
        return str(e)
    return f"{e.filename}: {e.strerror}" if e.filename else e.strerror
