"""What an Aztekz state read back must be: the schema of its JSON (field names, types, ranges,
lengths) and the invariants no legal play breaks (48 cards and 48 souls conserved, heroes on
cards, ...). A state that passes both plays on; anything else is a `DataError` naming the field.
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any, Literal, Protocol, TypedDict

import msgspec
from msgspec import UNSET, Meta, UnsetType

from games.aztekz.components import SLAVES, Components
from geomsim.discrete import BoundedGrid, Cell, Deck
from geomsim.reading import convert, index, require, same_items

CellKey = Annotated[str, Meta(pattern=r"^-?[0-9]{1,3},-?[0-9]{1,3}$")]
Count = Annotated[int, Meta(ge=0, le=10_000)]
Small = Annotated[int, Meta(ge=0, le=1_000_000)]
Kind = Annotated[str, Meta(max_length=40)]
Pile = tuple[Kind, Count]


class GridDoc(TypedDict):
    size: Annotated[int, Meta(ge=1, le=100)]
    cells: Annotated[dict[CellKey, Annotated[str, Meta(pattern="^[NESW-]{1,4}$")]], Meta(max_length=10_000)]


class StateDoc(msgspec.Struct, forbid_unknown_fields=True):
    """The JSON of an Aztekz state (`AztekzState.to_dict` and the history)."""

    components: dict[str, Any]
    players: Annotated[int, Meta(ge=2, le=4)]
    first: Annotated[int, Meta(ge=0, le=3)]
    grid: GridDoc
    stacks: Annotated[dict[CellKey, Annotated[list[Count], Meta(min_length=1, max_length=10_000)]],
                      Meta(max_length=10_000)]
    loose: Annotated[dict[CellKey, Annotated[list[Kind], Meta(min_length=1, max_length=10_000)]],
                     Meta(max_length=10_000)]
    heroes: Annotated[list[Annotated[list[CellKey | None], Meta(min_length=3, max_length=3)]],
                      Meta(max_length=4)]
    carry: Annotated[list[Annotated[list[Pile | None], Meta(min_length=3, max_length=3)]],
                     Meta(max_length=4)]
    piles: Annotated[list[Annotated[list[Pile], Meta(max_length=10_000)]], Meta(max_length=4)]
    deck: Annotated[list[Count], Meta(max_length=10_000)]
    deck_known: Count
    supply: Annotated[list[Kind], Meta(max_length=10_000)]
    supply_known: Count
    turn: Annotated[int, Meta(ge=0, le=3)]
    phase: Literal["setup", "move", "place", "over"]
    start_cards: Annotated[int, Meta(ge=0, le=4)]
    card: Count | None
    soul: Kind | None
    hero: Annotated[int, Meta(ge=0, le=2)] | None
    steps: Small
    thefts: Small
    scare: CellKey | None
    dropped: Annotated[list[tuple[CellKey, Kind]], Meta(max_length=10_000)]  # (card, soul kind)
    stall: Small
    # The options that are not the rulebook's, component options aside (`games.aztekz.rules.OPTIONS`).
    options: Annotated[dict[Annotated[str, Meta(max_length=100)], Any], Meta(max_length=100)] = {}
    history: msgspec.Raw = msgspec.Raw(b"[]")


class SetupDoc(msgspec.Struct, forbid_unknown_fields=True):
    """An Aztekz setup (`AztekzGame.make_setup`): every field may be left out (then drawn from
    the seed); each has the type of the state's field it becomes."""

    players: Annotated[int, Meta(ge=2, le=4)] | UnsetType = UNSET
    first: Annotated[int, Meta(ge=0, le=3)] | UnsetType = UNSET
    deck: Annotated[list[Count], Meta(max_length=10_000)] | UnsetType = UNSET
    souls: Annotated[list[Kind], Meta(max_length=10_000)] | UnsetType = UNSET
    components: dict[str, Any] | None = None
    options: Annotated[dict[Annotated[str, Meta(max_length=100)], Any], Meta(max_length=100)] | None = None


def check_counts(data: dict[str, Any]) -> None:
    """One row per player in ``heroes``, ``carry`` and ``piles``; `first` and `turn` players."""
    players = data["players"]
    for name in ("heroes", "carry", "piles"):
        require(len(data[name]) == players, name, f"{len(data[name])} rows for {players} players")
    for name in ("first", "turn"):
        index(data[name], players, name, "player")


class Checked(Protocol):
    """The fields of an Aztekz state that `check_state` and `check_made` read (the rules' `AztekzState` has them;
    naming it here would make the rules and their checks import each other)."""

    comp: Components
    num_players: int
    grid: BoundedGrid
    stacks: dict[Cell, list[int]]
    loose: dict[Cell, list[str]]
    pos: list[list[Cell | None]]
    carry: list[list[tuple[str, int] | None]]
    piles: list[list[tuple[str, int]]]
    deck: Deck[int]
    supply: Deck[str]
    deck_known: int
    supply_known: int
    phase: str
    start_cards: int
    card: int | None
    soul: str | None
    hero: int | None
    steps: int
    thefts: int
    scare: Cell | None
    dropped: list[tuple[Cell, str]]
    stall: int

    def to_dict(self) -> Any: ...


def check_made(state: Checked) -> None:
    """What `AztekzGame.state_from_json` checks of a state read back (the schema,
    `check_counts`, `check_state`), checked of a state made otherwise (from a setup): a state
    that passes reads back."""
    data = state.to_dict()
    convert(data, StateDoc)
    check_counts(data)
    check_state(state)


def check_state(state: Checked) -> None:
    """The invariants of an Aztekz state: `DataError` naming the field that breaks one."""
    comp, cells = state.comp, state.grid.cells
    require(state.grid.size == comp.grid_size, "grid.size",
            f"{state.grid.size} is not the components' grid size {comp.grid_size}")
    bounds = state.grid.bounds()  # None: no card yet
    if bounds is not None:
        x0, y0, x1, y1 = bounds
        require(x1 - x0 < comp.grid_size and y1 - y0 < comp.grid_size, "grid.cells",
                f"the labyrinth spans more than {comp.grid_size} x {comp.grid_size}")
    require(set(state.stacks) == set(cells), "stacks", "a stack for every card of the grid, no other")
    for cell, stack in state.stacks.items():
        where = f"stacks.{cell[0]},{cell[1]}"
        for card in stack:
            index(card, comp.cards, where, "card")
        require(cells[cell] in {m for _, m in comp.orientations[stack[-1]]}, f"grid.cells.{cell[0]},{cell[1]}",
                "the open sides are not those of the card on top of the stack")
    cards = list(state.deck) + ([state.card] if state.card is not None else [])
    same_items(cards + [c for s in state.stacks.values() for c in s], range(comp.cards), "deck", "cards")
    kinds = set(comp.soul_kinds)
    for name, souls in (("supply", state.supply), ("soul", [state.soul] if state.soul else [])):
        for soul in souls:
            require(soul in kinds, name, f"unknown soul kind {soul!r}")
    souls = list(state.supply) + ([state.soul] if state.soul else [])
    souls += [s for lying in state.loose.values() for s in lying]
    souls += [k for row in state.carry for c in row if c for k in [c[0]] * min(c[1], 10_000)]
    souls += [k for row in state.piles for kind, n in row for k in [kind] * min(n, 10_000)]
    same_items(souls, comp.souls(), "supply", "souls")
    require(all(c in cells for c in state.loose), "loose", "souls lie on a card of the grid")
    _check_heroes(state)
    require(all(n >= 2 for row in state.piles for _, n in row), "piles", "a pile holds two souls or more")
    require(state.deck_known <= len(state.deck), "deck_known", "more known cards than the deck holds")
    require(state.supply_known <= len(state.supply), "supply_known", "more known souls than the supply holds")
    _check_turn(state)


def _check_heroes(state: Checked) -> None:
    cells, comp = state.grid.cells, state.comp
    for p, row in enumerate(state.pos):
        placed = [c is not None for c in row]
        require(all(placed) or not any(placed), f"heroes[{p}]", "all three heroes are placed or none")
        for h, cell in enumerate(row):
            require(cell is None or cell in cells, f"heroes[{p}][{h}]", "a hero stands on a card")
        chief, *slaves = row
        if chief is not None and state.phase != "setup":
            reach = state.grid.distances(chief)
            require(any(s in reach for s in slaves), f"heroes[{p}]", "the chief is cut off from both slaves")
        require(state.carry[p][0] is None, f"carry[{p}][0]", "the chief carries no souls")
        for h, carried in enumerate(state.carry[p]):
            require(carried is None or (carried[1] >= 1 and row[h] is not None), f"carry[{p}][{h}]",
                    "a placed hero carries one soul or more")
    counts = Counter(c for row in state.pos for c in row if c is not None)
    require(max(counts.values(), default=0) <= comp.max_heroes_per_card, "heroes",
            f"more than {comp.max_heroes_per_card} heroes on one card")


def _check_turn(state: Checked) -> None:
    """The fields of the turn agree with its phase."""
    phase, players = state.phase, state.num_players
    if phase == "over":
        return
    require(state.card is not None, "card", f"a card is drawn in phase {phase}")
    if phase == "setup":
        require(state.start_cards < players, "start_cards", f"{state.start_cards} start cards placed of {players}")
        require(state.hero is None and state.soul is None, "hero", "no hero moves in setup")
    else:
        require(all(c is not None for row in state.pos for c in row), "heroes", "every hero stands on a card in play")
    if state.scare is not None:
        require(state.scare in state.grid.cells, "scare", "the scared card is a card of the grid")
        require(state.hero in SLAVES, "scare", "souls are scared by the slave chosen this turn")
    for i, (cell, soul) in enumerate(state.dropped):
        require(cell in state.grid.cells, f"dropped[{i}][0]", "a card of the grid")
        require(soul in state.comp.soul_kinds, f"dropped[{i}][1]", f"unknown soul kind {soul!r}")
    limit = state.comp.stall_limit
    require(limit is None or state.stall < limit, "stall", f"{state.stall} turns without a card reach the stall limit")
    comp = state.comp
    require(state.steps <= max(comp.chief_steps, comp.slave_steps) and (state.hero is not None or not state.steps),
            "steps", f"{state.steps} steps this turn")
    require(state.thefts <= comp.thefts_per_turn, "thefts", f"more than {comp.thefts_per_turn} thefts this turn")
