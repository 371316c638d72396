"""The actions of Anasazi: frozen dataclasses with a one-line text form and JSON.

=====================================  ==========================================================
text                                    meaning
=====================================  ==========================================================
``camp 120.5,-33.0``                   build a base camp centred at (120.5, -33.0) (4.1; also the
                                       two base camps each player places at setup, 3.0)
``marker E3 at 10.0,250.0 heading 90.0``  lead expedition E3: lay a marker centred at (10, 250),
                                       its explorer end pointing at 90° (4.2); on a free
                                       expedition base camp this starts its expedition
``extend E3 heading 90.0``             lead expedition E3 with a marker heading 90° placed from
                                       its end: the longest step that covers its explorer (or
                                       start mark), centred on the marker's axis; with
                                       ``along 12.5 across -2.0`` appended the old explorer lies
                                       12.5 mm further up the marker (a shorter step) and 2 mm
                                       right of its axis (left is positive)
``look P7s``                           look at the tower on sector P7s (4.3, and the three looks
                                       of setup)
``take red from 2``                    take a red treasure from player 2 (after covering one of
                                       one's own base camps for the first time, 4.2)
``pass``                               decline an optional follow-up (a look, a take)
=====================================  ==========================================================

Numbers are written with Python's shortest exact float form, so ``parse_action(str(a)) == a``.

The ``extend`` form spares users and scenario writers the computing of poses: it is resolved
against the table at the moment it is checked or applied (`ExtendMarker.resolve`, by `extend`
and `pose_covering`) into the ``marker`` action with the exact pose, and judged as that action
(the same violations, e.g. ``anasazi/4.2/cover-explorer`` when ``along`` or ``across`` leave the
explorer uncovered). ``along`` runs from 0 (the longest step: the old explorer just inside the
new marker's tail) to ``L - 2r`` (62 mm with the default sizes: the shortest step); ``across``
from ``-(W/2 - r)`` to ``W/2 - r`` (±4 mm). Both are 0 when left out. The history keeps the
action as written; the ``marker-laid`` event gives the pose laid.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from games.anasazi.components import COLOURS
from games.anasazi.legality import Board, expedition_end, pose_covering
from geomsim.geometry import Pose
from geomsim.notation import Form, Notation
from geomsim.reading import short
from geomsim.rules import Action


# Beyond a million mm (a kilometre) a number is a mistake, and squaring it stays finite.
NUMBER_LIMIT = 1e6


def _number(value: Any, name: str) -> float:
    """`value` as a float within `NUMBER_LIMIT`, or a ValueError naming the field."""
    if type(value) is float and -NUMBER_LIMIT <= value <= NUMBER_LIMIT:  # the common case, made cheap
        return value + 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(value)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{name} must be a number, not {short(value)}") from None
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not -NUMBER_LIMIT <= number <= NUMBER_LIMIT:  # also refuses NaN
        raise ValueError(f"{name} must be a number from {-NUMBER_LIMIT:g} to {NUMBER_LIMIT:g}, "
                         f"not {short(value)}")
    return number + 0.0  # -0.0 -> 0.0: equal numbers have one text form


_SPACE = re.compile(r"\s")


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value or _SPACE.search(value):
        raise ValueError(f"{name} must be a name without spaces, not {short(value)}")
    return value


@dataclass(frozen=True)
class BuildCamp(Action):
    """Build a base camp centred at (x, y) mm: ``camp 120.5,-33.0``."""

    kind: ClassVar[str] = "camp"
    text: ClassVar[str] = "camp {x!r},{y!r}"
    x: float
    y: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "x", _number(self.x, "camp x"))
        object.__setattr__(self, "y", _number(self.y, "camp y"))


@dataclass(frozen=True)
class PlaceMarker(Action):
    """Lay a marker of `expedition` centred at (x, y), heading in degrees:
    ``marker E3 at 10.0,250.0 heading 90.0``."""

    kind: ClassVar[str] = "marker"
    text: ClassVar[str] = "marker {expedition} at {x!r},{y!r} heading {heading!r}"
    expedition: str
    x: float
    y: float
    heading: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "expedition", _text(self.expedition, "marker expedition"))
        for name in ("x", "y", "heading"):
            object.__setattr__(self, name, _number(getattr(self, name), f"marker {name}"))

    @functools.cached_property
    def pose(self) -> Pose:
        """The marker's pose (its centre and heading)."""
        return Pose(self.x, self.y, self.heading)

    @classmethod
    def at(cls, expedition: str, pose: Pose) -> PlaceMarker:
        """The action laying a marker of `expedition` at `pose`."""
        return cls(expedition, pose.x, pose.y, pose.heading)


@dataclass(frozen=True)
class ExtendMarker(Action):
    """Lay the next marker of `expedition` heading `heading` (degrees), placed from the
    expedition's end: its old explorer (or start mark) lies `along` mm up the marker from the
    rearmost place that covers it and `across` mm left of the marker's axis:
    ``extend E3 heading 90.0 along 12.5 across -2.0`` (`along`, `across` default to 0)."""

    kind: ClassVar[str] = "extend"
    expedition: str
    heading: float
    along: float = 0.0
    across: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "expedition", _text(self.expedition, "extend expedition"))
        for name in ("heading", "along", "across"):
            object.__setattr__(self, name, _number(getattr(self, name), f"extend {name}"))

    def resolve(self, state: HasBoard | Board) -> PlaceMarker:
        """The marker this action lays on the table as it lies now (`KeyError` for an unknown
        expedition; offsets out of range give a pose that the rules refuse)."""
        return extend(state, self.expedition, self.heading, self.along, self.across, strict=False)

    def __str__(self) -> str:
        text = f"extend {self.expedition} heading {self.heading!r}"
        if self.along:
            text += f" along {self.along!r}"
        if self.across:
            text += f" across {self.across!r}"
        return text


@dataclass(frozen=True)
class LookTower(Action):
    """Look at the tower on a (small) sector: ``look P7s``."""

    kind: ClassVar[str] = "look"
    text: ClassVar[str] = "look {sector}"
    sector: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "sector", _text(self.sector, "look sector"))


@dataclass(frozen=True)
class TakeTreasure(Action):
    """Take a treasure of `colour` from player `source`: ``take red from 2``."""

    kind: ClassVar[str] = "take"
    text: ClassVar[str] = "take {colour} from {source}"
    colour: str
    source: int

    def __post_init__(self) -> None:
        if self.colour not in COLOURS:
            raise ValueError(f"take colour must be one of {', '.join(COLOURS)}, not {self.colour!r}")
        if isinstance(self.source, bool) or not isinstance(self.source, int) or self.source < 0:
            raise ValueError(f"take source must be a player number, not {self.source!r}")


@dataclass(frozen=True)
class Pass(Action):
    """Decline the optional decision at hand (a look or a take): ``pass``."""

    kind: ClassVar[str] = "pass"
    text: ClassVar[str] = "pass"


ACTION_TYPES: tuple[type[Action], ...] = (BuildCamp, PlaceMarker, ExtendMarker, LookTower,
                                          TakeTreasure, Pass)

_NUM = r"([^\s,]+)"
def _player(word: str) -> int:
    if not re.fullmatch(r"\d+", word):
        raise ValueError(f"take: player must be a number, not {word!r}")
    return int(word)


def _optional(word: str | None, name: str) -> float:
    return 0.0 if word is None else _parsed(word, name)


NOTATION = Notation("anasazi", {
    "camp": Form("camp X,Y", rf"camp\s+{_NUM}\s*,\s*{_NUM}",
                 lambda m: BuildCamp(_parsed(m[1], "camp x"), _parsed(m[2], "camp y"))),
    "marker": Form("marker E1 at X,Y heading DEGREES",
                   rf"marker\s+(\S+)\s+at\s+{_NUM}\s*,\s*{_NUM}\s+heading\s+{_NUM}",
                   lambda m: PlaceMarker(m[1], _parsed(m[2], "marker x"), _parsed(m[3], "marker y"),
                                         _parsed(m[4], "marker heading"))),
    "extend": Form("extend E1 heading DEGREES [along MM] [across MM]",
                   rf"extend\s+(\S+)\s+heading\s+{_NUM}(?:\s+along\s+{_NUM})?"
                   rf"(?:\s+across\s+{_NUM})?",
                   lambda m: ExtendMarker(m[1], _parsed(m[2], "extend heading"),
                                          _optional(m[3], "extend along"),
                                          _optional(m[4], "extend across"))),
    "look": Form("look SECTOR", r"look\s+(\S+)", lambda m: LookTower(m[1])),
    "take": Form("take COLOUR from PLAYER", r"take\s+(\S+)\s+from\s+(\S+)",
                 lambda m: TakeTreasure(m[1], _player(m[2]))),
    "pass": Form("pass", r"pass", lambda m: Pass()),
})


def parse_action(text: str) -> Action:
    """The action written as `text`; `ValueError` naming what is wrong otherwise."""
    return NOTATION.parse(text)


def _parsed(word: str, name: str) -> float:
    try:
        value = float(word)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {word!r}") from None
    return _number(value, name)


# -- making marker poses ------------------------------------------------------------------------
class HasBoard(Protocol):
    """Anything that can tell what lies on the table (an `AnasaziState`)."""

    def board(self) -> Board: ...


def extend(state: HasBoard | Board, expedition: str, heading: float, along: float = 0.0,
           across: float = 0.0, strict: bool = True) -> PlaceMarker:
    """The marker that continues `expedition` (or starts it from its base camp) heading
    `heading`, covering its current end explorer (or start mark).

    `along` = 0 makes the longest step (the old explorer just inside the new marker's tail),
    larger values shorter steps; `across` puts the old explorer left of the marker's axis (see
    `pose_covering`, and its `strict` for offsets out of range).
    """
    board = state if isinstance(state, Board) else state.board()
    x, y, r = expedition_end(board, expedition)
    return PlaceMarker.at(expedition, pose_covering((x, y), heading, board.sizes, along=along,
                                                    across=across, radius=r, strict=strict))
