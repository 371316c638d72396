"""The pieces of Anasazi as data, in millimetres in the table's frame (centre (0, 0)).

The rulebook gives counts, not sizes: every size here is a default (see
docs/assumptions/anasazi.md) kept in `Sizes`, which a user may override. A `Table` is the fixed
geometry of one game (mesas, pueblos with their sectors, expedition base camps); a `Setup` adds
what setup deals at random (towers, treasures, objective cards, first player) and is plain,
human-readable JSON with an exact round trip. A `TableView` is what lies on the table at one
moment of play, for drawing. Data that is not a table or a setup is a `DataError` naming its
field path (``pueblos[3].sectors[0].id``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, cast

import shapely

from geomsim.geometry import Pose, discs, polygon_coords, polygon_from_coords
from geomsim.options import Option, Variant, declare, resolve
from geomsim.reading import DataError, cut, join, short

COLOURS: tuple[str, ...] = ("red", "blue", "white", "yellow")
TRACK_SPACES = 5
TOWERS_PER_COLOUR = 4
TREASURES_PER_COLOUR = 12
BONUS_PER_COLOUR = 1
# Two objective cards per colour; each player is dealt one at random.
OBJECTIVES: tuple[str, ...] = tuple(c for c in COLOURS for _ in range(2))

MESA_COUNTS = {"centre": 1, "inner": 12, "outer": 15}
MESAS = sum(MESA_COUNTS.values())  # 28
PUEBLOS = 44
DIVIDED_PUEBLOS = 16  # one per tower
SINGLE_PUEBLOS = PUEBLOS - DIVIDED_PUEBLOS  # 28
EXPEDITION_CAMPS = 6
MIN_PLAYERS, MAX_PLAYERS = 2, 4

RING_NAMES = ("centre", "inner", "outer")
SECTOR_KINDS = ("small", "large", "single")

Ring = Literal["centre", "inner", "outer"]
SectorKind = Literal["small", "large", "single"]

# Rounding of every coordinate (mm): 1e-6 keeps JSON readable and makes the round trip exact.
DECIMALS = 6

# -- options: what a designer may change (geomsim.options) ---------------------------------------
# Options that are piece sizes and supplies (`Sizes` fields): an option sets the size, and a
# size a setup's table gives is the option in force. The other options travel in the setup.
SIZE_OPTIONS = {"markers": "markers", "marker_length": "marker_length",
                "marker_width": "marker_width", "base_camps": "base_camps_per_player"}

OPTIONS, VARIANTS = declare([
    Option("markers", int, 54, "expedition markers in the supply (the game ends when they run "
           "out)", ("anasazi/5.0/end-markers",), low=1, high=120),
    Option("marker_length", float, 70.0, "an expedition marker's length in mm (the explorer "
           "stays 9 mm from its far end)", ("anasazi/4.2/cover-explorer", "anasazi/3.0/table"),
           low=55.0, high=90.0),
    Option("marker_width", float, 16.0, "an expedition marker's width in mm",
           ("anasazi/4.2/cover-explorer", "anasazi/4.2/touch-pueblo"), low=10.0, high=24.0),
    Option("towers_to_end", int, 4, "towers of one colour on the score tile that end the game",
           ("anasazi/5.0/end-towers",), low=1, high=4),
    Option("objective_multiplier", int, 2, "what the objective card multiplies the value of "
           "the treasures of its colour by", ("anasazi/5.1/objective-double",), low=1, high=4),
    Option("bonus_treasures", bool, True, "the four bonus treasures go to each colour's sole "
           "majority at the end", ("anasazi/5.1/bonus",)),
    Option("base_camps", int, 7, "base camp markers each player receives",
           ("anasazi/4.1/camps-left", "anasazi/3.0/setup-camps"), low=1, high=12),
    Option("setup_camps", int, 2, "base camps each player places in setup (at most base_camps)",
           ("anasazi/3.0/setup-camps",), low=1, high=4),
    Option("setup_looks", int, 3, "towers each player looks at in setup", ("anasazi/3.0/setup-looks",),
           low=1, high=6),
    Option("camp_theft", bool, True, "covering one's own base camp for the first time lets one "
           "take a treasure from another player", ("anasazi/4.2/own-camp-treasure",)),
    Option("actions_per_turn", int, 2, "actions of a turn (build a base camp or lead an "
           "expedition)", ("anasazi/4.0/turn",), low=1, high=4),
], [
    Variant("short-supply", {"markers": 44}, "ten markers fewer: shorter games"),
    Variant("three-towers", {"towers_to_end": 3}, "three towers of a colour end the game"),
    Variant("no-theft", {"camp_theft": False}, "covering one's own base camp takes nothing"),
])


def options_in_force(sizes: Sizes, chosen: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every option's value: `chosen` over the defaults (checked), the size options as `sizes`
    has them; a `DataError` naming the option when setup_camps exceeds base_camps."""
    values: dict[str, Any] = resolve(OPTIONS, chosen)
    values.update({n: getattr(sizes, f) for n, f in SIZE_OPTIONS.items()})
    if values["setup_camps"] > values["base_camps"]:
        raise DataError("options.setup_camps", f"must be at most base_camps ({values['base_camps']}), "
                        f"not {values['setup_camps']}")
    return values


def sizes_under(sizes: Sizes, chosen: Mapping[str, Any]) -> Sizes:
    """`sizes` with the size options of `chosen` (each checked) laid over them."""
    values = resolve(OPTIONS, {n: v for n, v in chosen.items() if n in SIZE_OPTIONS})
    found: dict[str, Any] = {f: values[n] for n, f in SIZE_OPTIONS.items() if n in chosen}
    return dataclasses.replace(sizes, **found) if found else sizes


def rule_options(chosen: Mapping[str, Any]) -> dict[str, Any]:
    """The options of `chosen` that are not sizes and differ from the rulebook (what a setup's
    and a state's JSON write under ``options``)."""
    return {n: v for n, v in chosen.items() if n not in SIZE_OPTIONS and v != OPTIONS[n].default}


@dataclass(frozen=True)
class Sizes:
    """Piece sizes in mm and supply counts; defaults from FACTS.md, each overridable."""

    marker_length: float = 70.0
    marker_width: float = 16.0
    explorer_radius: float = 4.0
    explorer_offset: float = 9.0  # explorer centre from the marker's far (heading) end
    base_camp_radius: float = 8.0
    expedition_camp_size: float = 40.0
    start_mark_radius: float = 4.0
    play_area_radius: float = 400.0
    markers: int = 54
    base_camps_per_player: int = 7
    valley_gap: float = 16.0  # least distance between two mesas: one base camp across
    tower_radius: float = 6.0
    treasure_size: float = 8.0

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            where = f"sizes.{f.name}"
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise DataError(where, f"must be a number, not {short(value)}")
            if not math.isfinite(value) or value <= 0:
                raise DataError(where, f"must be a positive finite number, not {short(value)}")
            if f.type in ("int", int) and value != int(value):
                raise DataError(where, f"must be a whole number, not {short(value)}")
        if self.explorer_offset + self.explorer_radius > self.marker_length:
            raise DataError("sizes.explorer_offset", "puts the explorer off its marker")
        if 2 * self.explorer_radius > self.marker_width:
            raise DataError("sizes.explorer_radius", "is wider than the marker")

    def to_json(self) -> dict[str, float]:
        """The sizes as a JSON dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Sizes:
        """Sizes from a (possibly partial) dict; unknown keys are an error."""
        if data is not None and not isinstance(data, Mapping):
            raise DataError("sizes", f"expected an object, got {short(data)}")
        data = dict(data or {})
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(map(str, set(data) - names))
        if unknown:
            raise DataError(f"sizes.{unknown[0]}", "unknown field")
        return cls(**data)


def rounded(geom: shapely.Polygon) -> shapely.Polygon:
    """The polygon with coordinates rounded to `DECIMALS` (what JSON keeps)."""
    return shapely.transform(geom, lambda xy: xy.round(DECIMALS))


def _point(p: Sequence[float], path: str) -> tuple[float, float]:
    if len(p) != 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in p):
        raise DataError(path, f"must be a point [x, y], not {short(p)}")
    x, y = (float(v) for v in p)
    if not (math.isfinite(x) and math.isfinite(y)):
        raise DataError(path, f"must be finite, not {short(list(p))}")
    return round(x, DECIMALS), round(y, DECIMALS)


def _polygon(data: Any, path: str) -> shapely.Polygon:
    try:
        poly = polygon_from_coords(data)
    except (KeyError, TypeError, ValueError, shapely.errors.ShapelyError) as e:
        raise DataError(path, f"not a polygon: {e}") from None
    if poly.is_empty or poly.area <= 0:
        raise DataError(path, "the polygon is empty")
    return rounded(poly)


@dataclass(frozen=True)
class Mesa:
    """A mesa tile: id "M0".."M27", its ring and its outline."""

    id: str
    ring: Ring
    polygon: shapely.Polygon

    def to_json(self) -> dict[str, Any]:
        """The mesa as JSON."""
        return {"id": self.id, "ring": self.ring, "polygon": polygon_coords(self.polygon)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Mesa:
        """A mesa from JSON, naming the field that is wrong."""
        mid = _field(data, "id", "", str)
        ring = _field(data, "ring", "", str)
        if ring not in RING_NAMES:
            raise DataError("ring", f"mesa {mid}: ring must be one of {RING_NAMES}, not {short(ring)}")
        return cls(mid, ring, _polygon(_field(data, "polygon", ""), "polygon"))


@dataclass(frozen=True)
class Sector:
    """A pueblo space: "P7" (single), or "P7s" (small, holds a tower) and "P7l" (large)."""

    id: str
    pueblo: str
    kind: SectorKind
    polygon: shapely.Polygon

    def to_json(self) -> dict[str, Any]:
        """The sector as JSON (its pueblo is implied by where it is written)."""
        return {"id": self.id, "kind": self.kind, "polygon": polygon_coords(self.polygon)}


@dataclass(frozen=True)
class Pueblo:
    """A pueblo on a mesa: one single sector, or a small and a large sector."""

    id: str
    mesa: str
    sectors: tuple[Sector, ...]

    @property
    def divided(self) -> bool:
        """True for a pueblo of two sectors."""
        return len(self.sectors) == 2

    @property
    def polygon(self) -> shapely.Polygon:
        """The whole pueblo's outline."""
        # The two sectors of a divided pueblo share their cut: their union is one polygon.
        return cast(shapely.Polygon, shapely.union_all([s.polygon for s in self.sectors]))

    def to_json(self) -> dict[str, Any]:
        """The pueblo as JSON."""
        return {"id": self.id, "mesa": self.mesa, "sectors": [s.to_json() for s in self.sectors]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Pueblo:
        """A pueblo from JSON; its sector ids and kinds must follow the naming rule."""
        pid = _field(data, "id", "", str)
        mesa = _field(data, "mesa", "", str)
        raw = _field(data, "sectors", "", list)
        sectors = []
        for i, s in enumerate(raw):
            where = f"sectors[{i}]"
            sid = _field(s, "id", where, str)
            kind = _field(s, "kind", where, str)
            sectors.append(Sector(sid, pid, kind, _polygon(_field(s, "polygon", where), f"{where}.polygon")))
        pueblo = cls(pid, mesa, tuple(sectors))
        pueblo.validate_names()
        return pueblo

    def validate_names(self) -> None:
        """Raise `DataError` (at ``sectors``) unless the sectors are "P7" (single) or "P7s" + "P7l"."""
        kinds = tuple(s.kind for s in self.sectors)
        ids = tuple(s.id for s in self.sectors)
        if kinds == ("single",) and ids == (self.id,):
            return
        if kinds == ("small", "large") and ids == (self.id + "s", self.id + "l"):
            return
        raise DataError("sectors", f"pueblo {short(self.id, 40)}: sectors must be [{self.id} single] "
                        f"or [{self.id}s small, {self.id}l large], not {short(list(zip(ids, kinds)))}")


@dataclass(frozen=True)
class ExpeditionCamp:
    """An expedition base camp tile "E1".."E6" with its start mark (a disc at `start`)."""

    id: str
    polygon: shapely.Polygon
    start: tuple[float, float]

    def to_json(self) -> dict[str, Any]:
        """The camp as JSON."""
        return {"id": self.id, "start": list(self.start), "polygon": polygon_coords(self.polygon)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ExpeditionCamp:
        """A camp from JSON."""
        eid = _field(data, "id", "", str)
        return cls(eid, _polygon(_field(data, "polygon", ""), "polygon"),
                   _point(_field(data, "start", "", list), "start"))


# What a table's index holds, by (kind, id).
Component = Mesa | Pueblo | Sector | ExpeditionCamp


@dataclass(frozen=True)
class Table:
    """The fixed geometry of one game: mesas, pueblos and expedition base camps."""

    mesas: tuple[Mesa, ...]
    pueblos: tuple[Pueblo, ...]
    expedition_camps: tuple[ExpeditionCamp, ...]
    sizes: Sizes = field(default_factory=Sizes)
    _index: dict[tuple[str, str], Component] = field(default_factory=dict, init=False,
                                                     repr=False, compare=False)
    _sectors: tuple[Sector, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("mesas", "pueblos", "expedition_camps"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "_sectors", tuple(s for p in self.pueblos for s in p.sectors))
        index: dict[tuple[str, str], Component] = {}
        for kind, items in (("mesa", self.mesas), ("pueblo", self.pueblos),
                            ("expedition camp", self.expedition_camps),
                            ("sector", self._sectors)):
            for item in items:
                key = (kind, item.id)
                if key in index:
                    raise DataError(f"{self.path_of(kind, item.id, last=True)}.id",
                                    f"{kind} id {short(item.id, 40)} is used twice")
                index[key] = item
        for i, p in enumerate(self.pueblos):
            if ("mesa", p.mesa) not in index:
                raise DataError(f"pueblos[{i}].mesa", f"pueblo {short(p.id, 40)} lies on unknown "
                                f"mesa {short(p.mesa, 40)}")
        self._index.update(index)

    def path_of(self, kind: str, id: str, last: bool = False) -> str:
        """The field path of the piece `id` of `kind` (mesa, pueblo, sector, expedition camp)
        in the table's JSON, ``pueblos[3].sectors[1]`` (its last, not first, by that id when
        `last`); the list's path when none has that id."""
        lists = {"mesa": "mesas", "pueblo": "pueblos", "expedition camp": "expedition_camps"}
        found = ""
        if kind == "sector":
            for i, p in enumerate(self.pueblos):
                for j, s in enumerate(p.sectors):
                    if s.id == id and (last or not found):
                        found = f"pueblos[{i}].sectors[{j}]"
            return found or "pueblos"
        items: tuple[Mesa | Pueblo | ExpeditionCamp, ...] = getattr(self, lists[kind])
        for i, item in enumerate(items):
            if item.id == id and (last or not found):
                found = f"{lists[kind]}[{i}]"
        return found or lists[kind]

    def _get(self, kind: str, id: str) -> Component:
        try:
            return self._index[(kind, id)]
        except KeyError:
            raise KeyError(f"no {kind} {id!r} on this table") from None

    def mesa(self, id: str) -> Mesa:
        """The mesa called `id`."""
        return cast(Mesa, self._get("mesa", id))

    def pueblo(self, id: str) -> Pueblo:
        """The pueblo called `id`."""
        return cast(Pueblo, self._get("pueblo", id))

    def sector(self, id: str) -> Sector:
        """The sector called `id`."""
        return cast(Sector, self._get("sector", id))

    def expedition_camp(self, id: str) -> ExpeditionCamp:
        """The expedition base camp called `id`."""
        return cast(ExpeditionCamp, self._get("expedition camp", id))

    @property
    def sectors(self) -> tuple[Sector, ...]:
        """Every sector, pueblo by pueblo."""
        return self._sectors

    def pueblo_of(self, sector_id: str) -> Pueblo:
        """The pueblo a sector belongs to."""
        return self.pueblo(self.sector(sector_id).pueblo)

    def mesa_of(self, sector_id: str) -> Mesa:
        """The mesa a sector lies on."""
        return self.mesa(self.pueblo_of(sector_id).mesa)

    def pueblos_on(self, mesa_id: str) -> tuple[Pueblo, ...]:
        """The pueblos on one mesa."""
        self.mesa(mesa_id)
        return tuple(p for p in self.pueblos if p.mesa == mesa_id)

    @property
    def small_sectors(self) -> tuple[Sector, ...]:
        """The sectors that hold towers at setup."""
        return tuple(s for s in self.sectors if s.kind == "small")

    @property
    def treasure_sectors(self) -> tuple[Sector, ...]:
        """The sectors that hold treasures at setup (large and single)."""
        return tuple(s for s in self.sectors if s.kind != "small")

    @property
    def play_area(self) -> shapely.Polygon:
        """The play area as a polygon, for drawing (exact tests use `sizes.play_area_radius`)."""
        area: shapely.Polygon = discs([0.0], [0.0], self.sizes.play_area_radius, quad_segs=64)[0]
        return area

    def to_json(self) -> dict[str, Any]:
        """The table as JSON: sizes, mesas, pueblos, expedition camps."""
        return {
            "sizes": self.sizes.to_json(),
            "mesas": [m.to_json() for m in self.mesas],
            "pueblos": [p.to_json() for p in self.pueblos],
            "expedition_camps": [e.to_json() for e in self.expedition_camps],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Table:
        """A table from JSON (shape only: `layout.check_table` judges the setup rules)."""
        if not isinstance(data, Mapping):
            raise DataError("", f"a table must be a JSON object, not {type(data).__name__}")
        return cls(
            _items(Mesa.from_json, _field(data, "mesas", "", list), "mesas"),
            _items(Pueblo.from_json, _field(data, "pueblos", "", list), "pueblos"),
            _items(ExpeditionCamp.from_json, _field(data, "expedition_camps", "", list), "expedition_camps"),
            Sizes.from_json(data.get("sizes")),
        )


P = TypeVar("P")


def _items(read: Callable[[Mapping[str, Any]], P], items: list[Any], path: str) -> tuple[P, ...]:
    """Each of `items` read by `read`; a `DataError` names the item (``mesas[3].ring``)."""
    found = []
    for i, item in enumerate(items):
        try:
            found.append(read(item))
        except DataError as e:
            raise e.within(f"{path}[{i}]") from None
    return tuple(found)


@dataclass(frozen=True)
class Setup:
    """A complete random (or given) setup: the table and what setup deals onto it.

    `towers` maps small sectors to tower colours (hidden in play), `treasures` maps large and
    single sectors to treasure colours; the 4 bonus treasures (one per colour) are implied.
    `objectives` holds one card colour per player; `first_player` is a player index.
    """

    table: Table
    players: int
    towers: Mapping[str, str]
    treasures: Mapping[str, str]
    objectives: tuple[str, ...]
    first_player: int
    seed: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)  # rule options (`rule_options`)

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", rule_options(resolve(OPTIONS, self.options)))
        object.__setattr__(self, "towers", dict(self.towers))
        object.__setattr__(self, "treasures", dict(self.treasures))
        object.__setattr__(self, "objectives", tuple(self.objectives))
        self.validate()

    def validate(self) -> None:
        """Raise `DataError` naming the field if the dealt pieces break the component counts."""
        if isinstance(self.players, bool) or not isinstance(self.players, int) \
                or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise DataError("players", f"must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {short(self.players)}")
        if isinstance(self.first_player, bool) or not isinstance(self.first_player, int) \
                or not 0 <= self.first_player < self.players:
            raise DataError("first_player", f"must be 0 to {self.players - 1}, not {short(self.first_player)}")
        if self.seed is not None and (isinstance(self.seed, bool) or not isinstance(self.seed, int)
                                      or not 0 <= self.seed < MAX_SEED):
            raise DataError("seed", f"must be a whole number 0 to 2**63 - 1 or null, not {short(self.seed)}")
        _check_deal("towers", self.towers, {s.id for s in self.table.small_sectors},
                    {c: TOWERS_PER_COLOUR for c in COLOURS})
        _check_deal("treasures", self.treasures, {s.id for s in self.table.treasure_sectors},
                    {c: TREASURES_PER_COLOUR - BONUS_PER_COLOUR for c in COLOURS})
        if len(self.objectives) != self.players:
            raise DataError("objectives", f"must hold one card per player ({self.players}), "
                            f"not {len(self.objectives)}")
        for i, c in enumerate(self.objectives):
            if c not in COLOURS:
                raise DataError(f"objectives[{i}]", f"unknown colour {short(c)}")
            if self.objectives.count(c) > OBJECTIVES.count(c):
                raise DataError(f"objectives[{i}]", f"only {OBJECTIVES.count(c)} {c} cards exist")

    def to_json(self) -> dict[str, Any]:
        """The setup as a JSON dict (coordinates in mm); `from_json` gives it back exactly."""
        return {
            "game": "anasazi",
            "players": self.players,
            "seed": self.seed,
            "first_player": self.first_player,
            "objectives": list(self.objectives),
            "towers": {s.id: self.towers[s.id] for s in self.table.small_sectors},
            "treasures": {s.id: self.treasures[s.id] for s in self.table.treasure_sectors},
            **({"options": dict(self.options)} if self.options else {}),
            **self.table.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Setup:
        """A setup from the dict `to_json` wrote; `DataError` naming a malformed field."""
        if not isinstance(data, Mapping):
            raise DataError("setup", f"expected a JSON object, not {type(data).__name__}")
        if data.get("game", "anasazi") != "anasazi":
            raise DataError("game", f"must be 'anasazi', not {short(data.get('game'))}")
        unknown = sorted(map(str, set(data) - SETUP_FIELDS))
        if unknown:  # as the other games' setups: a misspelt field is not silently dropped
            raise DataError(unknown[0], "unknown field of an anasazi setup")
        options = _options_field(data)
        table = Table.from_json(data)
        # A size option written beside the table (``--option markers=44`` over a setup file)
        # sets that size: the setup then writes it in its table's sizes.
        sized = sizes_under(table.sizes, options)
        if sized is not table.sizes:
            table = dataclasses.replace(table, sizes=sized)
        return cls(
            table=table,
            players=_field(data, "players", "", int),
            towers=_field(data, "towers", "", Mapping),
            treasures=_field(data, "treasures", "", Mapping),
            objectives=tuple(_field(data, "objectives", "", list)),
            first_player=_field(data, "first_player", "", int),
            seed=data.get("seed"),
            options=options,
        )


MAX_SEED = 2**63  # a seed a state's JSON holds as an integer
SETUP_FIELDS = frozenset({"game", "players", "seed", "first_player", "objectives", "towers",
                          "treasures", "mesas", "pueblos", "expedition_camps", "sizes", "options"})


def _options_field(data: Mapping[str, Any]) -> dict[str, Any]:
    """A setup's ``options`` (absent: the rulebook's), each checked."""
    given = data.get("options") or {}
    if not isinstance(given, Mapping):
        raise DataError("options", f"expected a mapping of option names to values, got {short(given)}")
    resolve(OPTIONS, given)
    return dict(given)


def _check_deal(name: str, deal: Mapping[str, str], places: set[str],
                per_colour: Mapping[str, int]) -> None:
    """Raise `DataError` (at `name`) unless `deal` puts exactly one piece on each place,
    `per_colour` each."""
    missing, extra = sorted(places - set(deal)), sorted(map(str, set(deal) - places))
    if missing:
        raise DataError(name, cut(f"no piece on sector(s) {', '.join(missing)}"))
    if extra:
        raise DataError(join(name, extra[0]), "no such sector holds one")
    for sid, colour in deal.items():
        if colour not in COLOURS:
            raise DataError(join(name, sid), f"unknown colour {short(colour)}")
    for colour, n in per_colour.items():
        count = sum(1 for c in deal.values() if c == colour)
        if count != n:
            raise DataError(name, f"{count} {colour} on the board, the game has {n}")


def _field(data: Any, key: str, where: str, kind: type | None = None) -> Any:
    """data[key] (`data` found at the path `where`), or a `DataError` naming the missing or
    mistyped field."""
    if not isinstance(data, Mapping):
        raise DataError(where, f"expected a JSON object, not {short(data)}")
    if key not in data:
        raise DataError(join(where, key), "missing field")
    value = data[key]
    if kind is not None and (not isinstance(value, kind)
                             or (kind is int and isinstance(value, bool))):
        raise DataError(join(where, key), f"must be {kind.__name__}, not {short(value)}")
    return value


@dataclass
class TableView:
    """What lies on the table at one moment, for drawing.

    `base_camps` are (player, x, y); `expeditions` maps an expedition camp id to the poses
    (marker centres) of its markers in the order laid; `contents` maps a sector id to what still
    lies there ("tower"|"treasure", colour; None for a tower whose colour the viewer does not
    know); `track` counts the filled spaces of each colour;
    `bonus` lists the bonus treasures still on the score tile; `known_towers` are tower colours
    to draw revealed even when the drawing hides towers.
    """

    base_camps: list[tuple[int, float, float]] = field(default_factory=list)
    expeditions: dict[str, list[Pose]] = field(default_factory=dict)
    contents: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    track: dict[str, int] = field(default_factory=lambda: {c: 0 for c in COLOURS})
    bonus: tuple[str, ...] = COLOURS
    known_towers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def initial(cls, setup: Setup) -> TableView:
        """The table right after setup: every tower and treasure in place, nothing else."""
        contents = {sid: ("tower", c) for sid, c in setup.towers.items()}
        contents.update({sid: ("treasure", c) for sid, c in setup.treasures.items()})
        order = {s.id: i for i, s in enumerate(setup.table.sectors)}
        return cls(contents=dict(sorted(contents.items(), key=lambda kv: order[kv[0]])))
