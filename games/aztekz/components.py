"""The components of Aztekz as data: pyramid cards, soul pieces, heroes, and the numbers the rules use.

The defaults live in `components.json` beside this module (docs/assumptions/aztekz.md says what
the rulebook does not and why each default was chosen). A user replaces any top-level key with
`load_components(overrides)`; `new_state(setup={"components": {...}})` does the same.

A pyramid card is a square whose four sides are open (a path leaves) or walled, kept as a side
mask of `geomsim.discrete` (N=1, E=2, S=4, W=8); a card is placed in any of four rotations.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, NoReturn

import orjson

from geomsim.discrete import parse_sides, rotate_sides, sides_text
from geomsim.reading import DataError, dumps, short

DEFAULT_PATH = Path(__file__).with_name("components.json")

# A player's three heroes, in index order: the chief and the two slaves.
HEROES = ("chief", "slave1", "slave2")
CHIEF = 0
SLAVES = (1, 2)


@dataclass(frozen=True)
class CardType:
    """A kind of pyramid card: its name, open sides (unrotated) and how many are in the box."""

    name: str
    sides: int
    count: int


@dataclass(frozen=True)
class Components:
    """Everything in the box and the numbers of the rules, as validated data."""

    card_types: tuple[CardType, ...]
    soul_kinds: tuple[str, ...]
    souls_per_kind: int
    grid_size: int
    max_heroes_per_card: int
    chief_steps: int
    slave_steps: int
    thefts_per_turn: int
    stall_limit: int | None  # turns in a row without a placed card that end the game; None: never
    data: Mapping[str, Any]  # the JSON-able source, for state files
    # Derived in __post_init__ (no arguments; equality, hash and repr leave them out).
    card_sides: tuple[int, ...] = field(init=False, repr=False, compare=False)
    card_type: tuple[str, ...] = field(init=False, repr=False, compare=False)
    orientations: tuple[tuple[tuple[int, int], ...], ...] = field(init=False, repr=False, compare=False)
    json_text: str = field(init=False, repr=False, compare=False)
    json_fragment: orjson.Fragment = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        sides, types = [], []
        for t in self.card_types:
            sides += [t.sides] * t.count
            types += [t.name] * t.count
        # Card ids are positions in this expansion: card i has sides card_sides[i].
        object.__setattr__(self, "card_sides", tuple(sides))
        object.__setattr__(self, "card_type", tuple(types))
        object.__setattr__(self, "orientations", tuple(orientations(s) for s in sides))
        # Written into every state's JSON as it is (states are written at every harness step).
        object.__setattr__(self, "json_text", dumps(self.data))
        object.__setattr__(self, "json_fragment", orjson.Fragment(self.json_text))

    @property
    def cards(self) -> int:
        """How many pyramid cards are in the box."""
        return len(self.card_sides)

    def souls(self) -> list[str]:
        """Every soul piece by kind, in kind order (the unshuffled supply)."""
        return [k for k in self.soul_kinds for _ in range(self.souls_per_kind)]

    def sides(self, card: int, rotation: int) -> int:
        """The open sides of card `card` turned clockwise `rotation` quarter turns."""
        return rotate_sides(self.card_sides[card], rotation)


def orientations(sides: int) -> tuple[tuple[int, int], ...]:
    """The distinct (rotation, side mask) pairs of a card, the smallest rotation of each mask."""
    seen: dict[int, int] = {}
    for r in range(4):
        seen.setdefault(rotate_sides(sides, r), r)
    return tuple((r, m) for m, r in seen.items())


def _fail(field: str, message: str) -> NoReturn:
    raise DataError(f"components.{field}", message)


MAX_COUNT = 1_000  # of any one number in component data: a box, not an allocation by count


def _int(value: Any, field: str, low: int, high: int = MAX_COUNT) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(field, f"expected an integer, got {short(value)}")
    if not low <= value <= high:
        _fail(field, f"must be {low} to {high}, got {short(value)}")
    return value


def _card_type(data: Any, i: int) -> CardType:
    where = f"cards[{i}]"
    if not isinstance(data, Mapping):
        _fail(where, f"expected an object with type, sides and count, got {short(data)}")
    name = data.get("type")
    if not isinstance(name, str) or not name:
        _fail(f"{where}.type", f"expected a name, got {short(name)}")
    text = data.get("sides")
    if not isinstance(text, str):
        _fail(f"{where}.sides", f"expected open sides as letters like 'NES', got {short(text)}")
    try:
        sides = parse_sides(text)
    except ValueError as e:
        _fail(f"{where}.sides", str(e))
    return CardType(name, sides, _int(data.get("count"), f"{where}.count", 0))


def build_components(data: Mapping[str, Any]) -> Components:
    """Validate component data (the format of components.json) into `Components`."""
    for key in ("cards", "souls", "grid_size", "max_heroes_per_card", "chief_steps",
                "slave_steps", "thefts_per_turn", "stall_limit"):
        if key not in data:
            _fail(key, "missing")
    if not isinstance(data["cards"], list) or not 0 < len(data["cards"]) <= MAX_COUNT:
        _fail("cards", "expected a non-empty list of card types")
    types = tuple(_card_type(c, i) for i, c in enumerate(data["cards"]))
    souls = data["souls"]
    if not isinstance(souls, Mapping):
        _fail("souls", f"expected an object with kinds and per_kind, got {short(souls)}")
    kinds = souls.get("kinds")
    if (not isinstance(kinds, list) or not kinds
            or not all(isinstance(k, str) and k.isidentifier() for k in kinds)
            or len(set(kinds)) != len(kinds)):
        _fail("souls.kinds", f"expected distinct one-word names, got {short(kinds)}")
    stall = data["stall_limit"]
    comp = Components(
        card_types=types,
        soul_kinds=tuple(kinds),
        souls_per_kind=_int(souls.get("per_kind"), "souls.per_kind", 0),
        grid_size=_int(data["grid_size"], "grid_size", 1),
        max_heroes_per_card=_int(data["max_heroes_per_card"], "max_heroes_per_card", 3),
        chief_steps=_int(data["chief_steps"], "chief_steps", 0),
        slave_steps=_int(data["slave_steps"], "slave_steps", 0),
        thefts_per_turn=_int(data["thefts_per_turn"], "thefts_per_turn", 0),
        stall_limit=None if stall is None else _int(stall, "stall_limit", 1),
        data=json.loads(json.dumps(dict(data))),
    )
    if len(comp.souls()) > MAX_COUNT or comp.cards > MAX_COUNT:
        _fail("cards", f"{comp.cards} cards and {len(comp.souls())} souls: at most {MAX_COUNT} of each")
    if comp.cards < 5:
        _fail("cards", f"expected at least 5 cards (4 start cards and one to play), got {comp.cards}")
    return comp


@cache
def _default_data() -> str:
    return DEFAULT_PATH.read_text(encoding="utf-8")


def default_data() -> dict[str, Any]:
    """A fresh copy of the default component data."""
    data: dict[str, Any] = json.loads(_default_data())
    return data


def load_components(overrides: object = None) -> Components:
    """The default components with top-level keys replaced by `overrides` (a mapping, or None
    for none; `DataError` for anything else, as data read from a file may hold)."""
    data = default_data()
    if overrides is not None:
        if not isinstance(overrides, Mapping):
            _fail("components", f"expected an object of overrides, got {short(overrides)}")
        unknown = set(overrides) - set(data)
        if unknown:
            _fail(", ".join(sorted(unknown)), f"unknown key (known: {', '.join(sorted(data))})")
        data.update(overrides)
    return _cached(json.dumps(data, sort_keys=True))


@lru_cache(maxsize=32)
def _cached(text: str) -> Components:
    # States of one game share one Components object: it is immutable.
    return build_components(json.loads(text))


def card_label(comp: Components, card: int) -> str:
    """A short text for a card: ``#7 corner NE``."""
    return f"#{card} {comp.card_type[card]} {sides_text(comp.card_sides[card])}"
