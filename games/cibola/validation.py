"""What a Treasures of Cibola state read back must be: the schema of its JSON (field names,
types, ranges, lengths) and the invariants no legal play breaks (cards, explorers and totems
conserved; rocks counted; the decision at hand one that can be made). A state that passes both
plays on; anything else is a `DataError` naming the field.

A setup is held to the same: its fields have the types of the state's fields they become, its
items are conserved by the same checks (`check_cards`, `check_totems`, `check_explorers`), and
the state made from it passes the reader's checks (`check_made`) before `new_state` returns it,
so that every state `new_state` makes reads back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple, Protocol, TypedDict

import msgspec
from msgspec import UNSET, Meta, UnsetType

from games.cibola.components import MAX_ID, TREASURES, Components
from geomsim.reading import DataError, convert, index, require, same_items, short

if TYPE_CHECKING:
    from geomsim.discrete import SealedChoices

Id = Annotated[int, Meta(ge=0, le=MAX_ID)]
Count = Annotated[int, Meta(ge=0, le=MAX_ID)]
Player = Annotated[int, Meta(ge=0, le=3)]
Ids = Annotated[list[Id], Meta(max_length=10_000)]
PerPlayer = Annotated[list[Count], Meta(min_length=2, max_length=4)]
Decision = tuple[Literal["take", "rock", "totem", "move", "copy"], Annotated[int, Meta(ge=0, le=3)], Id | None]


class SealedDoc(TypedDict):
    players: Annotated[list[Annotated[int, Meta(ge=0, le=3)]], Meta(max_length=4)]
    choices: Annotated[dict[Annotated[str, Meta(pattern="^[0-3]$")], Count], Meta(max_length=4)]


# The options that differ from the rulebook's, by name (`games.cibola.rules.OPTIONS` checks each).
OptionsDoc = Annotated[dict[Annotated[str, Meta(max_length=100)], Any], Meta(max_length=100)]


class Limits(NamedTuple):
    """What the options in force make of a setup's counts: all the explorers of the game, the
    totems revealed, the cards in play (None: every card of the components)."""

    explorers: int
    totems_revealed: int
    cards: int | None


class StateDoc(msgspec.Struct, forbid_unknown_fields=True):
    """The JSON of a Cibola state (`CibolaState.to_dict` and the history)."""

    round: Count
    stage: Literal["send", "obtain", "round-end", "final", "over"]
    torch: Annotated[int, Meta(ge=0, le=3)]
    explorers: PerPlayer
    camp: Count
    in_temple: PerPlayer
    row: Annotated[list[Id | None], Meta(min_length=4, max_length=4)]
    box: Ids
    sent: PerPlayer | None
    order: Annotated[list[Annotated[int, Meta(ge=0, le=3)]], Meta(max_length=4)]
    pending: Annotated[list[Decision], Meta(max_length=1_000)]
    last_taker: Annotated[int, Meta(ge=0, le=3)] | None
    hands: Annotated[list[Ids], Meta(max_length=4)]
    totems: Annotated[list[Ids], Meta(max_length=4)]
    copies: Annotated[list[Ids], Meta(max_length=4)]
    offer: Ids
    used: Ids
    temple: dict[Literal[TREASURES], Annotated[list[bool], Meta(max_length=1_000)]]  # type: ignore[valid-type]
    rocks_placed: Count
    deck: Ids
    boxed_totems: Ids
    sealed: SealedDoc | None
    components: dict[str, Any] | None
    options: OptionsDoc = {}  # absent in a state written before options: the rulebook's
    history: msgspec.Raw = msgspec.Raw(b"[]")


class SetupDoc(msgspec.Struct, forbid_unknown_fields=True):
    """A Cibola setup (`Cibola.new_state`): every field may be left out. Each field has the type
    of the state's field it becomes (``totems``: ``offer``), so that no setup holds a value the
    state's reader refuses; `check_setup` says what is wrong with a value of the right type."""

    # Left out, a field is drawn from the seed; null is not a value of any of these.
    players: Annotated[int, Meta(ge=2, le=4)] | UnsetType = UNSET
    deck: Ids | UnsetType = UNSET
    totems: Ids | UnsetType = UNSET
    boxed_totems: Ids | UnsetType = UNSET
    torch: Count | UnsetType = UNSET  # below the number of players: `check_setup`
    explorers: PerPlayer | UnsetType = UNSET
    camp: Count | UnsetType = UNSET
    box: Ids | UnsetType = UNSET  # cards out of play (with fewer rounds)
    options: OptionsDoc | None = None
    components: dict[str, Any] | None = None
    data: str | None = None


def check_counts(data: dict[str, Any]) -> int:
    """The number of players (that of ``explorers``), the same in every per-player field."""
    players = len(data["explorers"])
    for name in ("in_temple", "hands", "totems", "copies", "sent"):
        if data[name] is not None:
            require(len(data[name]) == players, name, f"{len(data[name])} entries for {players} players")
    for name in ("torch", "last_taker"):
        if data[name] is not None:
            index(data[name], players, name, "player")
    for i, p in enumerate(data["order"]):
        index(p, players, f"order[{i}]", "player")
    for i, (_, p, _) in enumerate(data["pending"]):
        index(p, players, f"pending[{i}][1]", "player")
    return players


def check_cards(cards: list[int], comp: Components, path: str) -> None:
    """Every card of the components once among `cards` (those of the deck and wherever else
    cards lie): `DataError` at `path` otherwise."""
    same_items(cards, [c.id for c in comp.cards], path, "cards")


def check_explorers(explorers: int, total: int, path: str, where: str = "in the game",
                    rule: str = "") -> None:
    """`explorers` (players', camp's, temple's) are the game's `total` explorers, all of them."""
    require(explorers == total, path, f"{explorers} explorers {where}, not the "
            f"game's {total}" + (f" ({rule})" if rule else ""))


def check_totems(totems: list[int], pool: list[int], path: str) -> None:
    """Every totem of `pool` (those in play) once among `totems` (revealed, boxed, taken)."""
    same_items(totems, pool, path, "totems")


def check_setup(comp: Components, players: int, setup: dict[str, Any], pool: list[int],
                limits: Limits) -> None:
    """`DataError` naming the field unless `setup` (every field given, of the types of
    `SetupDoc`) is a legal start of play with `pool` the totem ids in play, under the options'
    `limits`."""
    deck = setup["deck"]
    check_cards(deck + setup["box"], comp, "deck")
    decks = [comp.card(c).deck for c in deck]
    require(decks == sorted(decks), "deck", "deck II cards must lie under every deck I card "
            "(cibola/setup/decks)")
    if limits.cards is not None:
        for d in (1, 2):
            found = decks.count(d)
            require(found == min(limits.cards, len(comp.deck_ids(d))), "deck",
                    f"{found} cards of deck {'I' * d}, not {limits.cards} (2 a round: option "
                    f"rounds={limits.cards // 2})")
    totems, revealed = setup["totems"], limits.totems_revealed
    require(len(totems) == revealed and len(set(totems)) == len(totems) and set(totems) <= set(pool),
            "totems", f"expected {revealed} distinct ids of {pool}, got {short(totems)} (cibola/setup/totems)")
    check_totems(totems + setup["boxed_totems"], pool, "boxed_totems")
    require(setup["torch"] < players, "torch", f"expected a player 0 to {players - 1}, got "
            f"{setup['torch']} (cibola/setup/torch)")
    explorers, camp = setup["explorers"], setup["camp"]
    require(len(explorers) == players, "explorers", f"expected {players} counts, got {short(explorers)} "
            "(cibola/setup/explorers)")
    check_explorers(sum(explorers) + camp, limits.explorers, "explorers",
                    "with the players and in the camp", "cibola/setup/explorers")


def check_data(data: dict[str, Any], comp: Components, pool: list[int], explorers: int) -> int:
    """The checks of a state's data (of the types of `StateDoc`) that `Cibola.state_from_json`
    makes before it builds the state, and `check_made` of a state made from a setup (`pool`:
    the totem ids in play, `explorers`: all the explorers of the game); the number of players."""
    players = check_counts(data)
    check_items(data, comp, pool, explorers)
    return players


def check_made(state: Staged, pool: list[int], explorers: int) -> None:
    """What `Cibola.state_from_json` checks of a state read back (the schema, `check_data`,
    `check_stage`), checked of a state made otherwise (from a setup): a state that passes
    reads back."""
    data = state.to_dict()
    convert(data, StateDoc)
    check_data(data, state.components, pool, explorers)
    check_stage(state)


def check_items(data: dict[str, Any], comp: Components, pool: list[int], explorers: int) -> None:
    """Cards, explorers and totems conserved, rocks counted (`pool`: the totem ids in play,
    `explorers`: all the explorers of the game): `DataError` naming the field that breaks one."""
    found = data["deck"] + [c for c in data["row"] if c is not None] + data["box"]
    check_cards(found + [c for hand in data["hands"] for c in hand], comp, "deck")
    check_explorers(sum(data["explorers"]) + data["camp"] + sum(data["in_temple"]), explorers,
                    "explorers")
    taken = [t for ts in data["totems"] for t in ts]
    check_totems(data["offer"] + data["boxed_totems"] + taken, pool, "offer")
    require(set(data["used"]) <= set(taken), "used", "only totems a player took are used")
    require(all(t in pool for ts in data["copies"] for t in ts), "copies", "a copy is of a totem in play")
    temple = data["temple"]
    require(set(temple) == set(TREASURES), "temple", f"one column per treasure: {', '.join(TREASURES)}")
    for column, name in zip(comp.columns, TREASURES):
        chambers = temple[name]
        require(len(chambers) == len(column.values), f"temple.{name}",
                f"{len(chambers)} chambers, not the {len(column.values)} of the components")
        require(not all(chambers), f"temple.{name}", "the last chamber of a column is never covered")
    covered = sum(map(sum, temple.values()))
    rocks = data["rocks_placed"]
    require(covered == rocks <= comp.rocks, "rocks_placed",
            f"{rocks} rocks placed, {covered} chambers covered, {comp.rocks} rocks in the box")
    for i, (kind, _, arg) in enumerate(data["pending"]):
        _check_decision(comp, kind, arg, f"pending[{i}]")


class Staged(Protocol):
    """What `check_stage` and `check_made` read of a state (`games.cibola.rules.CibolaState`),
    named here because the rules import this module: the checks must not import them back."""

    @property
    def components(self) -> Components: ...
    def to_dict(self) -> Any: ...

    @property
    def num_players(self) -> int: ...
    @property
    def stage(self) -> str: ...
    @property
    def sealed(self) -> SealedChoices | None: ...
    @property
    def explorers(self) -> Sequence[int]: ...
    @property
    def pending(self) -> Sequence[tuple[str, int, int | None]]: ...
    def to_move(self) -> tuple[int, ...]: ...
    def _possible(self, kind: str, arg: int | None) -> bool: ...


def check_stage(state: Staged) -> None:
    """The stage, the sealed send and the decision at hand agree: `DataError` otherwise."""
    _check_stage(state, state.num_players)


def _check_stage(state: Staged, players: int) -> None:
    """The stage, the sealed send and the decisions at hand agree."""
    stage = state.stage
    if stage == "send":
        if state.sealed is None:
            raise DataError("sealed", "the send is sealed while sending")
        require(state.sealed.players == tuple(range(players)), "sealed.players", "every player sends")
        for p, n in state.sealed.choices.items():
            index(p, players, "sealed.choices", "player")
            require(n <= state.explorers[p], f"sealed.choices.{p}", f"{n} explorers sent of {state.explorers[p]}")
        require(not state.pending and bool(state.to_move()), "pending", "no decision at hand while sending")
    else:
        require(state.sealed is None, "sealed", f"no sealed send in stage {stage}")
    if stage in ("obtain", "round-end", "final"):  # these stages pass at once without one
        require(bool(state.pending), "pending", f"a decision is at hand in stage {stage}")
    if stage == "over":
        require(not state.pending, "pending", "no decision at hand once the game is over")
    if state.pending:
        kind, _, arg = state.pending[0]
        require(state._possible(kind, arg), "pending[0]", f"the {kind} decision at hand cannot be made")


def _check_decision(comp: Components, kind: str, arg: Any, path: str) -> None:
    if kind == "take":
        require(arg is None, path, "a take names no card")
    elif kind in ("rock", "totem"):
        require(arg in comp._cards and comp.card(arg).symbol == kind, path,
                f"the {kind} decision names a card with a {kind} symbol")
    else:
        wanted = "move-rock" if kind == "move" else "copy"
        require(arg in comp._totems and comp.totem(arg).kind == wanted, path,
                f"the {kind} decision names a {wanted} totem")
