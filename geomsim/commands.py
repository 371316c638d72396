"""A game's own command of the command line, declared as data: `Command` and its `Option`s.

A game registers a `Command` under the entry point group ``geomsim.commands``; `geomsim.cli`
alone turns it into a click command, so that neither the engine nor a game imports click. The
command's `run` receives the options by their parameter names, prints with `echo`, and raises
`geomsim.errors.InputError` for bad input (one line, exit code 2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

# What an option takes: text; a whole number (within `range`); a flag; a seed (0 to
# `geomsim.reading.MAX_SEED`); an existing file to read; a drawing to write (PNG, SVG or PDF);
# a JSON file to write ('-': standard output).
Kind = Literal["text", "int", "flag", "seed", "read", "diagram", "json"]


@dataclass(frozen=True)
class Option:
    """One option: `decls` as on the command line (``"--max-markers", "-n"``), ending with the
    parameter's name when it differs from the long option's (``"--pueblo", "-p", "target"``)."""

    decls: tuple[str, ...]
    kind: Kind = "text"
    help: str = ""
    default: Any = None
    required: bool = False
    show_default: bool = False
    range: tuple[int, int] | None = None  # the least and the greatest whole number ("int")


@dataclass(frozen=True)
class Command:
    """A command `name` with its `help` (first line: the summary `geomsim --help` shows), the
    function that runs it and its options."""

    name: str
    help: str
    run: Callable[..., None]
    options: tuple[Option, ...] = ()


def echo(text: str, nl: bool = True) -> None:
    """Print `text` on standard output as a command's result (flushed, like click's echo)."""
    print(text, end="\n" if nl else "", flush=True)
