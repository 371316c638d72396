"""Options and variants: what a designer may change in a game's rules, declared by the game as data.

An `Option` names one rule parameter: its type, its default (the rulebook's), the values it
allows (a range or a list), one line of description and the rule ids it changes. A `Variant`
is a named preset of option values (``official``, every default, always exists). A game lists
both at the top of its rules module (`declare`); `Game.options` and `Game.variants` hold them,
`Game.resolve_options` turns what a user gave into the options in force: a plain dict of every
option, which a state keeps as `State.options` and writes into its setup and state JSON (only
the values that differ from the defaults: old JSON without them is the official game).

A bad value is one `DataError` line naming the option and its allowed values:
``options.towers_to_end: must be a whole number 1 to 4, not 7``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from geomsim.reading import DataError, short

OFFICIAL = "official"
OptionValue = bool | int | float | str
_TYPES: dict[type, str] = {bool: "true or false", int: "a whole number", float: "a number",
                           str: "a word"}


@dataclass(frozen=True)
class Option:
    """One changeable rule parameter of a game.

    `choices` lists the allowed values (any type); else `low`/`high` bound a number (both
    included); a bool allows true and false."""

    name: str
    type: type
    default: OptionValue
    description: str
    rules: tuple[str, ...] = ()
    choices: tuple[OptionValue, ...] = ()
    low: float | None = None
    high: float | None = None

    def __post_init__(self) -> None:
        if self.type not in _TYPES:
            raise TypeError(f"option {self.name}: type must be bool, int, float or str")
        self.check(self.default)  # a declaration whose default it refuses is a bug

    def allowed(self) -> str:
        """The values this option allows, in words: ``a whole number 1 to 4``, ``one of a, b``."""
        if self.choices:
            return "one of " + ", ".join(_text(c) for c in self.choices)
        words = _TYPES[self.type]
        if self.low is not None and self.high is not None:
            return f"{words} {_text(self.low)} to {_text(self.high)}"
        if self.low is not None:
            return f"{words} >= {_text(self.low)}"
        if self.high is not None:
            return f"{words} <= {_text(self.high)}"
        return words

    def check(self, value: Any) -> OptionValue:
        """`value` when this option allows it (an int for a float option becomes a float);
        otherwise a `DataError` at ``options.NAME`` saying what is allowed."""
        found = self._typed(value)
        if found is None or (self.choices and found not in self.choices) or not self._in_range(found):
            raise DataError(f"options.{self.name}", f"must be {self.allowed()}, not {short(value)}")
        return found

    def parse(self, text: str) -> OptionValue:
        """The value written as command-line text (``3``, ``true``, ``equal``), checked."""
        word = text.strip()
        value: Any = word
        if self.type is bool:
            value = {"true": True, "false": False, "yes": True, "no": False, "on": True,
                     "off": False, "1": True, "0": False}.get(word.lower(), word)
        elif self.type in (int, float):
            try:
                value = int(word) if self.type is int else float(word)
            except ValueError:
                value = word
        return self.check(value)

    def to_json(self) -> dict[str, Any]:
        """The declaration as JSON-able data (for listings and reports)."""
        return {"name": self.name, "type": self.type.__name__, "default": self.default,
                "allowed": self.allowed(), "description": self.description,
                "rules": list(self.rules)}

    def _typed(self, value: Any) -> OptionValue | None:
        if self.type is bool:
            return value if isinstance(value, bool) else None
        if isinstance(value, bool):
            return None
        if self.type is int:
            return int(value) if isinstance(value, int) else None
        if self.type is float:
            ok = isinstance(value, (int, float)) and math.isfinite(value)
            return float(value) if ok else None
        return value if isinstance(value, str) else None

    def _in_range(self, value: OptionValue) -> bool:
        if self.type not in (int, float):
            return True
        assert isinstance(value, (int, float))
        return ((self.low is None or value >= self.low)
                and (self.high is None or value <= self.high))


def _text(value: object) -> str:
    """A value as the user writes it: ``true``, ``3``, ``0.5``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@dataclass(frozen=True)
class Variant:
    """A named preset of option values; the options it leaves out keep their defaults."""

    name: str
    values: Mapping[str, OptionValue] = field(default_factory=dict)
    description: str = ""


def declare(options: Sequence[Option], variants: Sequence[Variant] = ()
            ) -> tuple[Mapping[str, Option], Mapping[str, Variant]]:
    """A game's options and variants by name, as `Game.options` and `Game.variants` hold them:
    ``official`` (every default) first; each variant checked against the options."""
    by_name = {o.name: o for o in options}
    if len(by_name) != len(options):
        raise ValueError("two options share a name")
    found = {OFFICIAL: Variant(OFFICIAL, {}, "the rules as the rulebook writes them")}
    for v in variants:
        if v.name in found:
            raise ValueError(f"variant {v.name} is declared twice")
        resolve(by_name, v.values)
        found[v.name] = v
    return MappingProxyType(by_name), MappingProxyType(found)


def resolve(options: Mapping[str, Option], given: Mapping[str, Any] | None = None,
            variants: Mapping[str, Variant] | None = None, variant: str | None = None
            ) -> dict[str, OptionValue]:
    """Every option's value in force: the defaults, then `variant`'s values, then `given`.
    `DataError` (one line) for an unknown option or variant, or a value not allowed."""
    values: dict[str, OptionValue] = {name: o.default for name, o in options.items()}
    if variant is not None:
        known = variants or {}
        if variant not in known:
            names = ", ".join(known) or "none"
            raise DataError("variant", f"unknown variant {short(variant)} (variants: {names})")
        values.update(known[variant].values)
    if given is not None and not isinstance(given, Mapping):
        raise DataError("options", f"expected a mapping of option names to values, got {short(given)}")
    for name, value in (given or {}).items():
        if name not in options:
            names = ", ".join(options) or "none"
            raise DataError(f"options.{str(name)[:40]}", f"unknown option (options: {names})")
        values[name] = options[name].check(value)
    return values


def changed(options: Mapping[str, Option], values: Mapping[str, Any]) -> dict[str, Any]:
    """The values of `values` that differ from their option's default, in declaration order:
    what a setup or state JSON writes, and what a diagram's caption shows."""
    return {n: values[n] for n, o in options.items() if n in values and values[n] != o.default}


def parse_assignments(options: Mapping[str, Option], texts: Iterable[str]) -> dict[str, OptionValue]:
    """``NAME=VALUE`` texts (the command line's ``--option``) as option values, each checked;
    `DataError` naming the option and its allowed values otherwise."""
    found: dict[str, OptionValue] = {}
    for text in texts:
        name, sep, value = text.partition("=")
        name = name.strip()
        if not sep or not name:
            raise DataError("--option", f"expected NAME=VALUE, got {short(text)}")
        if name not in options:
            raise DataError(f"options.{str(name)[:40]}",
                            f"unknown option (options: {', '.join(options) or 'none'})")
        found[name] = options[name].parse(value)
    return found


def chosen(options: Mapping[str, Option], variants: Mapping[str, Variant], variant: str | None,
           texts: Iterable[str]) -> dict[str, OptionValue]:
    """The option values a user chose (the command line's ``--variant NAME`` and ``--option
    NAME=VALUE``, the latter winning), only those: what is laid over a setup's own options."""
    found: dict[str, OptionValue] = {}
    if variant is not None:
        if variant not in variants:
            raise DataError("--variant", f"unknown variant {short(variant)} (variants: "
                            f"{', '.join(variants) or 'none'})")
        found.update(variants[variant].values)
    found.update(parse_assignments(options, texts))
    return found


def with_options(setup: Any, values: Mapping[str, Any]) -> Any:
    """The setup data `setup` (a mapping) with `values` laid over its ``options``."""
    if not values:
        return setup
    if not isinstance(setup, Mapping):
        raise DataError("setup", f"expected a mapping to hold options, got {short(setup)}")
    given = setup.get("options") or {}
    if not isinstance(given, Mapping):
        raise DataError("options", f"expected a mapping of option names to values, got {short(given)}")
    return {**setup, "options": {**given, **values}}


def caption(options: Mapping[str, Option], values: Mapping[str, Any]) -> str:
    """One line naming the options in force that are not the rulebook's (``""`` when none):
    ``options: towers_to_end=3, markers=44``."""
    diff = changed(options, values)
    return "options: " + ", ".join(f"{n}={_text(v)}" for n, v in diff.items()) if diff else ""


def note(options: Mapping[str, Option], values: Mapping[str, Any], *names: str) -> str:
    """`` (option towers_to_end=3)`` for those of `names` not at their default, to end the
    message of a violation of a rule that an option changed; ``""`` when all are official."""
    diff = [f"option {n}={_text(values[n])}" for n in names
            if n in options and n in values and values[n] != options[n].default]
    return f" ({', '.join(diff)})" if diff else ""


def listing(options: Mapping[str, Option], variants: Mapping[str, Variant]) -> list[str]:
    """The lines of ``geomsim rules GAME --options``: each option, then each variant."""
    lines = []
    for o in options.values():
        lines.append(f"{o.name:20s} {_text(o.default):>8s}  {o.allowed()}: {o.description}"
                     + (f" [{', '.join(o.rules)}]" if o.rules else ""))
    for v in variants.values():
        values = ", ".join(f"{n}={_text(x)}" for n, x in v.values.items()) or "every default"
        lines.append(f"variant {v.name}: {values}" + (f" ({v.description})" if v.description else ""))
    return lines
