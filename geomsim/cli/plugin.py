"""A game's `geomsim.commands.Command` (data) made into a click command."""

from __future__ import annotations

from typing import Any

import click

from geomsim.cli.common import DIAGRAM, IN_FILE, SEED, Command, OutputPath
from geomsim.commands import Command as CommandData
from geomsim.commands import Option

_TYPES: dict[str, Any] = {"text": None, "int": int, "seed": SEED, "read": IN_FILE,
                          "diagram": DIAGRAM, "json": OutputPath((".json",), stdout=True)}


def to_click(data: CommandData) -> click.Command:
    """The click command of `data`: its options in order, its errors one line (exit code 2)."""
    return Command(data.name, callback=data.run, help=data.help,
                   params=[_option(o) for o in data.options])


def _option(option: Option) -> click.Option:
    if option.kind == "flag":
        return click.Option(list(option.decls), is_flag=True, help=option.help or None)
    kind = click.IntRange(*option.range) if option.range else _TYPES[option.kind]
    # No default is not a default of None: click takes an explicit None as a value given, and a
    # required option would then be satisfied without being given.
    default = {} if option.default is None else {"default": option.default}
    return click.Option(list(option.decls), type=kind, required=option.required,
                        show_default=option.show_default, help=option.help or None, **default)
