"""What an Anasazi state or setup read back must be: the schema of its JSON (field names,
types, ranges, lengths; every coordinate within `COORDINATE_LIMIT` mm of the table's centre)
and the invariants no legal play breaks (the treasures in hands and the towers on the track are
those taken off the table; markers within the supply; the decision at hand one with options).
A state that passes both plays on; anything else is a `DataError` naming the field.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired, Protocol, TypedDict

import msgspec
from msgspec import Meta

from games.anasazi.components import COLOURS, TOWERS_PER_COLOUR, Table
from geomsim.reading import DataError, convert, index, require

if TYPE_CHECKING:
    from games.anasazi.legality import Camp
    from geomsim.geometry import Pose


class CheckedState(Protocol):
    """The fields of a state `check_state` reads (a protocol: the rules' `AnasaziState`, which
    reads its JSON through this module, is one)."""

    num_players: int
    table: Table
    phase: str
    step: int
    first_player: int
    current: int
    ended: str
    pending: list[str]
    fresh: list[int]
    camps: list[Camp]
    covered: list[bool]
    expeditions: dict[str, list[Pose]]
    contents: dict[str, tuple[str, str]]
    towers: dict[str, str]
    initial_treasures: dict[str, str]
    objectives: tuple[str, ...]
    track: dict[str, int]
    hands: list[dict[str, int]]
    seen: list[set[str]]
    setup_looked: list[str]
    visited: set[str]
    bonus: dict[str, int | None]
    options: dict[str, Any]

    def markers_left(self) -> int: ...

    def _has_options(self, decision: str) -> bool: ...

# The play area is a disc of about 800 mm: a coordinate 10 m out is a mistake, and a bound keeps
# shapely and the kernels away from overflow (1e308 squared is inf).
COORDINATE_LIMIT = 10_000.0
Coordinate = Annotated[float, Meta(ge=-COORDINATE_LIMIT, le=COORDINATE_LIMIT)]
Heading = Annotated[float, Meta(ge=-1e6, le=1e6)]
Colour = Literal[COLOURS]  # type: ignore[valid-type]
Id = Annotated[str, Meta(pattern=r"^\S{1,40}$")]
Ids = Annotated[list[Id], Meta(max_length=1_000)]
Player = Annotated[int, Meta(ge=0, le=3)]
Count = Annotated[int, Meta(ge=0, le=10_000)]
Point = tuple[Coordinate, Coordinate]
Ring = Annotated[list[Point], Meta(min_length=3, max_length=10_000)]


class PolygonDoc(TypedDict):
    shell: Ring
    holes: Annotated[list[Ring], Meta(max_length=100)]


Polygon = PolygonDoc | Ring  # a bare list of points is a shell without holes


class MesaDoc(TypedDict):
    id: Id
    ring: str
    polygon: Polygon


class SectorDoc(TypedDict):
    id: Id
    kind: str
    polygon: Polygon


class PuebloDoc(TypedDict):
    id: Id
    mesa: Id
    sectors: Annotated[list[SectorDoc], Meta(min_length=1, max_length=10)]


class CampDoc(TypedDict):
    id: Id
    polygon: Polygon
    start: Point


Size = Annotated[float, Meta(gt=0, le=COORDINATE_LIMIT)]


class SizesDoc(TypedDict, total=False):
    marker_length: Size
    marker_width: Size
    explorer_radius: Size
    explorer_offset: Size
    base_camp_radius: Size
    expedition_camp_size: Size
    start_mark_radius: Size
    play_area_radius: Size
    markers: Annotated[int, Meta(ge=1, le=1_000)]
    base_camps_per_player: Annotated[int, Meta(ge=1, le=100)]
    valley_gap: Size
    tower_radius: Size
    treasure_size: Size


class TableDoc(msgspec.Struct, forbid_unknown_fields=True):
    """The table's JSON (`Table.to_json`)."""

    mesas: Annotated[list[MesaDoc], Meta(max_length=200)]
    pueblos: Annotated[list[PuebloDoc], Meta(max_length=1_000)]
    expedition_camps: Annotated[list[CampDoc], Meta(max_length=100)]
    sizes: SizesDoc = {}


class ScalarsDoc(TypedDict):
    players: Annotated[int, Meta(ge=2, le=4)]
    first_player: Player
    phase: Literal["camps", "looks", "play", "over"]
    current: Player
    step: Annotated[int, Meta(ge=0, le=100)]
    actions_left: Annotated[int, Meta(ge=0, le=4)]  # the option actions_per_turn: at most 4
    pending: Annotated[list[Annotated[str, Meta(pattern=r"^(take|look|look:\S{1,40})$")]], Meta(max_length=100)]
    fresh: Annotated[list[Count], Meta(max_length=2)]
    covered: Annotated[list[bool], Meta(max_length=1_000)]
    track: dict[Colour, Annotated[int, Meta(ge=0, le=TOWERS_PER_COLOUR)]]
    hands: Annotated[list[dict[Colour, Count]], Meta(max_length=4)]
    looked: Annotated[list[Ids], Meta(max_length=4)]
    setup_looked: Annotated[list[Id], Meta(max_length=6)]  # the option setup_looks: at most 6
    visited: Ids
    ended: Annotated[str, Meta(pattern=r"^(|markers|towers:(red|blue|white|yellow))$")]
    bonus: dict[Colour, Player | None]
    removed: Ids


class DealDoc(TypedDict):
    seed: Annotated[int, Meta(ge=0)] | None
    objectives: Annotated[list[Colour], Meta(max_length=4)]
    towers: Annotated[list[Colour], Meta(max_length=1_000)]
    treasures: Annotated[list[Colour], Meta(max_length=1_000)]
    # The rule options not the rulebook's (`games.anasazi.components.OPTIONS` checks each).
    options: NotRequired[Annotated[dict[Annotated[str, Meta(max_length=100)], Any], Meta(max_length=100)]]


class StateDoc(msgspec.Struct, forbid_unknown_fields=True):
    """The JSON of an Anasazi state (`AnasaziState.to_json`): the laid pieces, the history and
    the table kept raw for the caches of what was read before."""

    state: ScalarsDoc
    deal: DealDoc
    camps: msgspec.Raw
    expeditions: msgspec.Raw
    history: msgspec.Raw
    table: msgspec.Raw


CampsDoc = Annotated[list[tuple[Player, Coordinate, Coordinate]], Meta(max_length=1_000)]
ExpeditionsDoc = Annotated[dict[Id, Annotated[list[tuple[Coordinate, Coordinate, Heading]],
                                              Meta(max_length=1_000)]], Meta(max_length=100)]


def check_table_data(data: Any, path: str = "table") -> None:
    """Refuse table data (of a state or a setup) beyond the schema: unknown fields, coordinates
    beyond `COORDINATE_LIMIT`, too many pieces."""
    convert({k: data[k] for k in ("mesas", "pueblos", "expedition_camps", "sizes") if k in data}
            if isinstance(data, dict) else data, TableDoc, path)


# A piece a setup-rule problem names first (layout.check_table words them so): its kind, its id.
_PIECE = re.compile(r"\b(expedition camps?|mesas?|sectors of pueblo|sector|pueblos?) ([^\s:,;()]+)")
_KINDS = {"expedition camp": "expedition camp", "expedition camps": "expedition camp", "mesa": "mesa",
          "mesas": "mesa", "sectors of pueblo": "pueblo", "sector": "sector", "pueblo": "pueblo",
          "pueblos": "pueblo"}
_LISTS = (("expedition", "expedition_camps"), ("mesa", "mesas"), ("pueblo", "pueblos"), ("sector", "pueblos"))


def table_error(table: Table, problems: list[str], message: str) -> DataError:
    """The setup rules `problems` (`layout.check_table`'s, which `message` sums up) as one
    `DataError` naming the field of the first piece at fault: ``mesas[3].polygon`` for a mesa
    that overlaps another or leaves the play area, ``expedition_camps[1].start`` for a start
    mark off its tile, the list (``pueblos``) for a count."""
    first = problems[0] if problems else message
    found = _PIECE.search(first)
    path = ""
    if found:
        kind = _KINDS[found.group(1)]
        path = table.path_of(kind, found.group(2))
        if path.endswith("]"):
            part = "sectors" if kind == "pueblo" else "start" if "start mark" in first else "polygon"
            path = f"{path}.{part}"
    if not path or not path.endswith(("polygon", "start", "sectors")):
        path = next((field for word, field in _LISTS if word in first), "mesas")
    return DataError(path, message.removeprefix("table breaks the setup rules: "))


def check_state(state: CheckedState, table: Table) -> None:
    """The invariants of an Anasazi state: `DataError` naming the field that breaks one."""
    from games.anasazi import legality as lg

    geo, players = lg.table_geometry(table), state.num_players
    for name, counts in [("track", state.track)] + [(f"hands[{p}]", h) for p, h in enumerate(state.hands)]:
        require(set(counts) == set(COLOURS), f"state.{name}", f"one count per colour: {', '.join(COLOURS)}")
    for name in ("hands", "seen", "objectives"):
        field = {"seen": "state.looked", "objectives": "deal.objectives"}.get(name, f"state.{name}")
        require(len(getattr(state, name)) == players, field,
                f"{len(getattr(state, name))} entries for {players} players")
    for name in ("first_player", "current"):
        index(getattr(state, name), players, f"state.{name}", "player")
    for i, camp in enumerate(state.camps):
        index(camp.owner, players, f"camps[{i}][0]", "player")
    require(len(state.covered) == len(state.camps), "state.covered", "one flag per base camp")
    for i in state.fresh:
        index(i, len(state.camps), "state.fresh", "base camp")
    require(set(state.expeditions) == {c.id for c in table.expedition_camps}, "expeditions",
            "one expedition per expedition base camp of the table")
    small = set(geo.small_ids)
    for p, seen in enumerate(state.seen):
        require(seen <= small, f"state.looked[{p}]", "towers stand on small sectors of the table")
    require(set(state.setup_looked) <= small, "state.setup_looked", "towers stand on small sectors")
    mesas = {m.id for m in table.mesas}
    require(state.visited <= mesas, "state.visited", "mesas of the table")
    _check_pieces(state, geo)
    _check_phase(state, mesas)


def check_deal(deal: dict[str, Any], geo: Any) -> None:
    """One tower colour per small sector, one treasure colour per treasure sector."""
    for name, ids in (("towers", geo.small_ids), ("treasures", geo.treasure_ids)):
        require(len(deal[name]) == len(ids), f"deal.{name}", f"{len(deal[name])} colours for {len(ids)} sectors")


def _check_pieces(state: CheckedState, geo: Any) -> None:
    """What left the table is in the hands (treasures) and on the track (towers)."""
    present = set(state.contents)
    gone = [s for s in geo.sector_ids if s not in present]
    towers = Counter(state.towers[s] for s in gone if s in state.towers)
    treasures = Counter(state.initial_treasures[s] for s in gone if s in state.initial_treasures)
    for c in COLOURS:
        require(state.track.get(c) == towers[c], f"state.track.{c}",
                f"{state.track.get(c)} towers on the track, {towers[c]} {c} towers taken off the table")
        held = sum(h.get(c, 0) for h in state.hands)
        require(held == treasures[c], f"state.hands", f"{held} {c} treasures held, {treasures[c]} taken off the table")
    require(state.markers_left() >= 0, "expeditions", "more markers laid than the supply holds")
    per_player = Counter(c.owner for c in state.camps)
    most = state.table.sizes.base_camps_per_player
    require(max(per_player.values(), default=0) <= most, "camps", f"more than {most} base camps of one player")


def _check_phase(state: CheckedState, mesas: set[str]) -> None:
    """The phase, the step, the end and the decision at hand agree."""
    phase, players = state.phase, state.num_players
    if phase == "camps":
        require(state.step < state.options["setup_camps"] * players and len(state.camps) == state.step,
                "state.step",
                f"{len(state.camps)} base camps after {state.step} setup placements")
    if phase == "looks":
        require(state.step < players, "state.step", f"setup look turn {state.step} of {players} players")
    if phase in ("camps", "looks"):
        require(not any(state.expeditions.values()), "expeditions", "no marker is laid in setup")
    require((phase == "over") <= bool(state.ended), "state.ended", "a game over says why it ended")
    if state.ended and phase != "over":
        require(bool(state.pending) and all(d == "take" for d in state.pending), "state.pending",
                "once the game has ended only takes remain")
    require(phase == "over" or not state.bonus, "state.bonus", "bonus treasures go out at the end")
    for i, decision in enumerate(state.pending):
        scope = decision.split(":", 1)[1] if ":" in decision else None
        require(scope is None or scope in mesas, f"state.pending[{i}]", f"no mesa {scope!r} on the table")
    if phase == "over":
        require(not state.pending, "state.pending", "no decision at hand once the game is over")
    elif state.pending:
        require(state._has_options(state.pending[0]), "state.pending[0]",
                f"the decision at hand ({state.pending[0]}) has no options")
