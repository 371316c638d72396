"""The components of Treasures of Cibola as data: treasure cards, temple columns, totems, counts.

The defaults live in `components.json` beside this module (see docs/assumptions/cibola.md for
what the rulebook does not say and why each default was chosen). A user replaces any top-level
key with `load_components(overrides)` or a whole file with `load_components(path=...)`;
`new_state(setup={"components": {...}})` and `setup={"data": "file.json"}` do the same.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, NoReturn

from geomsim.reading import DataError, short

DEFAULT_PATH = Path(__file__).with_name("components.json")

# The five kinds of treasure, in the order of the temple's columns.
TREASURES = ("sundial", "shield", "snake", "statuette", "skull")
SYMBOLS = (None, "rock", "totem")
TIMINGS = ("immediate", "end", "before-scoring")
TOTEMS_REVEALED = 5  # "reveal 5 totem cards": the rest stay in the box
# The largest id or count a state's JSON holds (games.cibola.validation): components beyond it
# would make states that do not read back.
MAX_ID = 100_000
# Each totem effect, the timing it needs and the fields it takes.
EFFECTS = {
    "treasure-bonus": ("end", ("treasure", "points")),
    "treasure-value": ("end", ("treasure", "points")),
    "cancel": ("end", ("treasure", "count")),
    "explorer-points": ("end", ("points",)),
    "move-rock": ("immediate", ("step",)),
    "take-explorers": ("immediate", ("count",)),
    "copy": ("before-scoring", ()),
}


@dataclass(frozen=True)
class Card:
    """A treasure card: its id, deck (1 or 2), treasures and top symbol (None, rock, totem)."""

    id: int
    deck: int
    treasures: tuple[str, ...]
    symbol: str | None
    counts: tuple[int, ...]  # how many of each kind, in TREASURES order

    def label(self) -> str:
        """A short text: ``#7 I sundial+shield (rock)``."""
        mark = f" ({self.symbol})" if self.symbol else ""
        return f"#{self.id} {'I' * self.deck} {'+'.join(self.treasures)}{mark}"


@dataclass(frozen=True)
class Column:
    """A temple column: the treasure it prices, its colour, how it scores, chamber values top first."""

    treasure: str
    colour: str
    scoring: str  # "each": every treasure scores; "majority": only the players with the most
    values: tuple[int, ...]


@dataclass(frozen=True)
class Totem:
    """A totem card: its text, when it acts, and its effect as data."""

    id: int
    text: str
    timing: str
    effect: Mapping[str, Any]
    source: str  # "rulebook" or "assumption"
    rule: str = "cibola/totem/timing"  # the rule id that cites this card

    @property
    def kind(self) -> str:
        """The effect's kind, e.g. ``move-rock``."""
        kind: str = self.effect["kind"]  # one of EFFECTS, as `build_components` checked
        return kind


@dataclass(frozen=True, eq=False)
class Components:
    """Everything in the box, as validated data. Two are equal when their data are (a copied
    or unpickled set equals the one it came from)."""

    cards: tuple[Card, ...]
    columns: tuple[Column, ...]
    totems: tuple[Totem, ...]
    explorers: int
    explorers_per_player: Mapping[int, int]
    rocks: int
    data: Mapping[str, Any]  # the JSON-able source, for state files
    # Derived in __post_init__: lookups by id and the canonical text that equality compares.
    _cards: Mapping[int, Card] = field(init=False, repr=False)
    _totems: Mapping[int, Totem] = field(init=False, repr=False)
    json_text: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_cards", {c.id: c for c in self.cards})
        object.__setattr__(self, "_totems", {t.id: t for t in self.totems})
        object.__setattr__(self, "json_text", json.dumps(self.data, sort_keys=True, allow_nan=False))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Components):
            return NotImplemented
        return self is other or self.json_text == other.json_text

    def __hash__(self) -> int:
        return hash(self.json_text)

    def card(self, card_id: int) -> Card:
        """The card with `card_id`."""
        return self._cards[card_id]

    def totem(self, totem_id: int) -> Totem:
        """The totem with `totem_id`."""
        return self._totems[totem_id]

    def deck_ids(self, deck: int) -> list[int]:
        """The ids of the cards of deck `deck` (1 or 2), in data order."""
        return [c.id for c in self.cards if c.deck == deck]

    def coverable(self) -> int:
        """How many chambers rocks may cover: all but one per column."""
        return sum(len(c.values) - 1 for c in self.columns)


def _fail(field: str, message: str) -> NoReturn:
    raise DataError(f"components.{field}", message)


def _int(value: Any, field: str, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(field, f"expected an integer, got {short(value)}")
    if low is not None and value < low:
        _fail(field, f"must be at least {low}, got {value}")
    if high is not None and value > high:
        _fail(field, f"must be at most {high:,}, got {short(value)}")
    return value


def _card(data: Mapping[str, Any], i: int) -> Card:
    where = f"cards[{i}]"
    treasures = data.get("treasures")
    if not isinstance(treasures, list) or not 1 <= len(treasures) <= 3:
        _fail(f"{where}.treasures", f"expected a list of 1 to 3 treasures, got {short(treasures)}")
    for t in treasures:
        if t not in TREASURES:
            _fail(f"{where}.treasures", f"unknown treasure {short(t)} (known: {', '.join(TREASURES)})")
    if data.get("deck") not in (1, 2):
        _fail(f"{where}.deck", f"expected 1 or 2, got {short(data.get('deck'))}")
    if data.get("symbol") not in SYMBOLS:
        _fail(f"{where}.symbol", f"expected null, 'rock' or 'totem', got {short(data.get('symbol'))}")
    counts = tuple(treasures.count(t) for t in TREASURES)
    return Card(_int(data.get("id"), f"{where}.id", 1, MAX_ID), data["deck"], tuple(treasures),
                data["symbol"], counts)


def _column(data: Mapping[str, Any], i: int) -> Column:
    where = f"columns[{i}]"
    if data.get("treasure") != TREASURES[i]:
        _fail(f"{where}.treasure", f"expected {TREASURES[i]!r} (columns follow {TREASURES})")
    if data.get("scoring") not in ("each", "majority"):
        _fail(f"{where}.scoring", f"expected 'each' or 'majority', got {short(data.get('scoring'))}")
    values = data.get("values")
    if not isinstance(values, list) or not 1 <= len(values) <= MAX_ITEMS:
        _fail(f"{where}.values", f"expected a list of chamber values, got {short(values)}")
    return Column(data["treasure"], str(data.get("colour", "#888888")), data["scoring"],
                  tuple(_int(v, f"{where}.values") for v in values))


def _totem(data: Mapping[str, Any], i: int) -> Totem:
    where = f"totems[{i}]"
    effect = data.get("effect")
    if not isinstance(effect, Mapping) or effect.get("kind") not in EFFECTS:
        _fail(f"{where}.effect", f"expected an effect with kind in {sorted(EFFECTS)}, got {short(effect)}")
    timing, fields = EFFECTS[effect["kind"]]
    if data.get("timing") != timing:
        _fail(f"{where}.timing", f"a {effect['kind']} totem acts {short(timing)}, not {short(data.get('timing'))}")
    for name in fields:
        if name == "treasure":
            if effect.get(name) not in TREASURES:
                _fail(f"{where}.effect.treasure", f"unknown treasure {short(effect.get(name))}")
        else:
            _int(effect.get(name), f"{where}.effect.{name}")
    if effect["kind"] == "move-rock" and effect["step"] not in (-1, 1):
        _fail(f"{where}.effect.step", "expected 1 (down) or -1 (up)")
    return Totem(_int(data.get("id"), f"{where}.id", 1, MAX_ID), str(data.get("text", "")), timing,
                 dict(effect), str(data.get("source", "user")),
                 str(data.get("rule", "cibola/totem/timing")))


def _unique_ids(items: tuple[Card, ...] | tuple[Totem, ...], field: str) -> None:
    ids = [x.id for x in items]
    if len(set(ids)) != len(ids):
        _fail(field, f"ids repeat: {sorted(i for i in set(ids) if ids.count(i) > 1)}")


MAX_ITEMS = 1_000  # cards, columns, totems or chambers: a box, not an allocation by count


def _mappings(data: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    """`data[key]` as a list of mappings (at most `MAX_ITEMS`)."""
    items = data[key]
    if not isinstance(items, list) or len(items) > MAX_ITEMS:
        _fail(key, f"expected a list of at most {MAX_ITEMS} objects, got {short(items)}")
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            _fail(f"{key}[{i}]", f"expected an object, got {short(item)}")
    return items


def build_components(data: Mapping[str, Any]) -> Components:
    """Validate component data (the format of components.json) into `Components`."""
    for key in ("cards", "columns", "totems", "explorers", "explorers_per_player", "rocks"):
        if key not in data:
            _fail(key, "missing")
    cards = tuple(_card(c, i) for i, c in enumerate(_mappings(data, "cards")))
    columns = tuple(_column(c, i) for i, c in enumerate(_mappings(data, "columns")))
    totems = tuple(_totem(t, i) for i, t in enumerate(_mappings(data, "totems")))
    if len(columns) != len(TREASURES):
        _fail("columns", f"expected {len(TREASURES)} columns, one per treasure, got {len(columns)}")
    _unique_ids(cards, "cards")
    _unique_ids(totems, "totems")
    per = data["explorers_per_player"]
    if not isinstance(per, Mapping) or set(per) != {"2", "3", "4"}:
        _fail("explorers_per_player", 'expected counts for "2", "3" and "4" players')
    explorers = _int(data["explorers"], "explorers", 0, MAX_ID)
    for n, count in per.items():
        # "Divide the explorers equally among the players": all of them are dealt.
        if _int(count, f"explorers_per_player.{n}", 0) * int(n) != explorers:
            _fail(f"explorers_per_player.{n}", f"{n} x {count} does not deal all {explorers} explorers")
    return Components(
        cards, columns, totems, explorers, {int(n): c for n, c in per.items()},
        _int(data["rocks"], "rocks", 0, MAX_ID), dict(data),
    )


@cache
def default_data() -> Mapping[str, Any]:
    """The default component data, read once from components.json."""
    data: Mapping[str, Any] = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
    return data


@cache
def default_components() -> Components:
    """The default components (validated once)."""
    return build_components(default_data())


def load_components(overrides: Mapping[str, Any] | None = None,
                    path: str | Path | None = None) -> Components:
    """The default components with top-level keys replaced by a file's and then by `overrides`."""
    if overrides is None and path is None:
        return default_components()
    data = dict(default_data())
    if path is not None:
        try:
            data.update(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError) as e:
            raise ValueError(f"cibola components: data: cannot read {path}: {e}") from e
    if overrides is not None:
        if not isinstance(overrides, Mapping):
            _fail("components", f"expected a mapping of component keys, got {type(overrides).__name__}")
        data.update(overrides)
    return build_components(data)
