"""The pieces of Anasazi as data, in millimetres in the table's frame (centre (0, 0)).

The rulebook gives counts, not sizes: every size here is a default (see
docs/assumptions/anasazi.md) kept in `Sizes`, which a user may override. A `Table` is the fixed
geometry of one game (mesas, pueblos with their sectors, expedition base camps); a `Setup` adds
what setup deals at random (towers, treasures, objective cards, first player) and is plain,
human-readable JSON with an exact round trip. A `TableView` is what lies on the table at one
moment of play, for drawing.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import shapely

from geomsim.geometry import Pose, discs, polygon_coords, polygon_from_coords

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
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"sizes.{f.name} must be a number, not {value!r}")
            if not math.isfinite(value) or value <= 0:
                raise ValueError(f"sizes.{f.name} must be a positive finite number, not {value!r}")
            if f.type in ("int", int) and value != int(value):
                raise ValueError(f"sizes.{f.name} must be a whole number, not {value!r}")
        if self.explorer_offset + self.explorer_radius > self.marker_length:
            raise ValueError("sizes.explorer_offset puts the explorer off its marker")
        if 2 * self.explorer_radius > self.marker_width:
            raise ValueError("sizes.explorer_radius is wider than the marker")

    def to_json(self) -> dict[str, float]:
        """The sizes as a JSON dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Sizes:
        """Sizes from a (possibly partial) dict; unknown keys are an error."""
        data = dict(data or {})
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"sizes: unknown field(s) {', '.join(unknown)}")
        return cls(**data)


def rounded(geom: shapely.Polygon) -> shapely.Polygon:
    """The polygon with coordinates rounded to `DECIMALS` (what JSON keeps)."""
    return shapely.transform(geom, lambda xy: xy.round(DECIMALS))


def _point(p: Sequence[float], name: str) -> tuple[float, float]:
    if len(p) != 2:
        raise ValueError(f"{name} must be a point [x, y]")
    x, y = (float(v) for v in p)
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ValueError(f"{name} must be finite, not {list(p)!r}")
    return round(x, DECIMALS), round(y, DECIMALS)


def _polygon(data: Any, name: str) -> shapely.Polygon:
    try:
        poly = polygon_from_coords(data)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{name}: {e}") from None
    if poly.is_empty or poly.area <= 0:
        raise ValueError(f"{name}: the polygon is empty")
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
        mid = _field(data, "id", "mesa", str)
        ring = _field(data, "ring", f"mesa {mid}", str)
        if ring not in RING_NAMES:
            raise ValueError(f"mesa {mid}: ring must be one of {RING_NAMES}, not {ring!r}")
        return cls(mid, ring, _polygon(_field(data, "polygon", f"mesa {mid}"), f"mesa {mid} polygon"))


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
        pid = _field(data, "id", "pueblo", str)
        mesa = _field(data, "mesa", f"pueblo {pid}", str)
        raw = _field(data, "sectors", f"pueblo {pid}", list)
        sectors = []
        for i, s in enumerate(raw):
            where = f"pueblo {pid} sector {i}"
            sid = _field(s, "id", where, str)
            kind = _field(s, "kind", where, str)
            sectors.append(Sector(sid, pid, kind, _polygon(_field(s, "polygon", where),
                                                           f"sector {sid} polygon")))
        pueblo = cls(pid, mesa, tuple(sectors))
        pueblo.validate_names()
        return pueblo

    def validate_names(self) -> None:
        """Raise ValueError unless the sectors are "P7" (single) or "P7s" + "P7l"."""
        kinds = tuple(s.kind for s in self.sectors)
        ids = tuple(s.id for s in self.sectors)
        if kinds == ("single",) and ids == (self.id,):
            return
        if kinds == ("small", "large") and ids == (self.id + "s", self.id + "l"):
            return
        raise ValueError(f"pueblo {self.id}: sectors must be [{self.id} single] or "
                         f"[{self.id}s small, {self.id}l large], not {list(zip(ids, kinds))}")


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
        eid = _field(data, "id", "expedition camp", str)
        return cls(eid, _polygon(_field(data, "polygon", f"expedition camp {eid}"),
                                 f"expedition camp {eid} polygon"),
                   _point(_field(data, "start", f"expedition camp {eid}", list),
                          f"expedition camp {eid} start"))


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
                    raise ValueError(f"{kind} id {item.id} is used twice")
                index[key] = item
        for p in self.pueblos:
            if ("mesa", p.mesa) not in index:
                raise ValueError(f"pueblo {p.id} lies on unknown mesa {p.mesa!r}")
        self._index.update(index)

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
            raise ValueError("table must be a JSON object")
        return cls(
            tuple(Mesa.from_json(m) for m in _field(data, "mesas", "table", list)),
            tuple(Pueblo.from_json(p) for p in _field(data, "pueblos", "table", list)),
            tuple(ExpeditionCamp.from_json(e)
                  for e in _field(data, "expedition_camps", "table", list)),
            Sizes.from_json(data.get("sizes")),
        )


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "towers", dict(self.towers))
        object.__setattr__(self, "treasures", dict(self.treasures))
        object.__setattr__(self, "objectives", tuple(self.objectives))
        self.validate()

    def validate(self) -> None:
        """Raise ValueError naming the field if the dealt pieces break the component counts."""
        if isinstance(self.players, bool) or not isinstance(self.players, int) \
                or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ValueError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {self.players!r}")
        if isinstance(self.first_player, bool) or not isinstance(self.first_player, int) \
                or not 0 <= self.first_player < self.players:
            raise ValueError(f"first_player must be 0 to {self.players - 1}, "
                             f"not {self.first_player!r}")
        if self.seed is not None and (isinstance(self.seed, bool) or not isinstance(self.seed, int)):
            raise ValueError(f"seed must be a whole number or null, not {self.seed!r}")
        _check_deal("towers", self.towers, {s.id for s in self.table.small_sectors},
                    {c: TOWERS_PER_COLOUR for c in COLOURS})
        _check_deal("treasures", self.treasures, {s.id for s in self.table.treasure_sectors},
                    {c: TREASURES_PER_COLOUR - BONUS_PER_COLOUR for c in COLOURS})
        if len(self.objectives) != self.players:
            raise ValueError(f"objectives must hold one card per player ({self.players}), "
                             f"not {len(self.objectives)}")
        for c in self.objectives:
            if c not in COLOURS:
                raise ValueError(f"objectives: unknown colour {c!r}")
            if self.objectives.count(c) > OBJECTIVES.count(c):
                raise ValueError(f"objectives: only {OBJECTIVES.count(c)} {c} cards exist")

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
            **self.table.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Setup:
        """A setup from the dict `to_json` wrote; ValueError names a malformed field."""
        if not isinstance(data, Mapping):
            raise ValueError("setup must be a JSON object")
        if data.get("game", "anasazi") != "anasazi":
            raise ValueError(f"setup game must be 'anasazi', not {data.get('game')!r}")
        unknown = sorted(map(str, set(data) - SETUP_FIELDS))
        if unknown:  # as the other games' setups: a misspelt field is not silently dropped
            raise ValueError(f"setup: unknown field(s) {', '.join(unknown)}")
        return cls(
            table=Table.from_json(data),
            players=_field(data, "players", "setup", int),
            towers=_field(data, "towers", "setup", Mapping),
            treasures=_field(data, "treasures", "setup", Mapping),
            objectives=tuple(_field(data, "objectives", "setup", list)),
            first_player=_field(data, "first_player", "setup", int),
            seed=data.get("seed"),
        )


SETUP_FIELDS = frozenset({"game", "players", "seed", "first_player", "objectives", "towers",
                          "treasures", "mesas", "pueblos", "expedition_camps", "sizes"})


def _check_deal(name: str, deal: Mapping[str, str], places: set[str],
                per_colour: Mapping[str, int]) -> None:
    """Raise ValueError unless `deal` puts exactly one piece on each place, `per_colour` each."""
    missing, extra = sorted(places - set(deal)), sorted(set(deal) - places)
    if missing:
        raise ValueError(f"{name}: no piece on sector(s) {', '.join(missing)}")
    if extra:
        raise ValueError(f"{name}: sector(s) {', '.join(extra)} cannot hold one")
    for sid, colour in deal.items():
        if colour not in COLOURS:
            raise ValueError(f"{name}: sector {sid} has unknown colour {colour!r}")
    for colour, n in per_colour.items():
        count = sum(1 for c in deal.values() if c == colour)
        if count != n:
            raise ValueError(f"{name}: {count} {colour} on the board, the game has {n}")


def _field(data: Any, key: str, where: str, kind: type | None = None) -> Any:
    """data[key], or a ValueError naming the missing or mistyped field."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{where} must be a JSON object")
    if key not in data:
        raise ValueError(f"{where}: missing field {key!r}")
    value = data[key]
    if kind is not None and (not isinstance(value, kind)
                             or (kind is int and isinstance(value, bool))):
        raise ValueError(f"{where}: field {key!r} must be {kind.__name__}, not {value!r}")
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
