"""Treasures of Cibola (Romaric Galonnier, 2019) for 2 to 4 players, on geomsim's discrete adapters.

A round reveals 4 cards (`Deck`), the players send explorers secretly and simultaneously
(`SealedChoices`), then take cards in the order of explorers sent (`rank_by` over `seat_order`
from the torch keeper). Cards may carry a rock (cover a temple chamber) or a totem (take a totem
card, acting at once or at the end). The game ends at the end of the round in which the deck
runs out; a copy totem acts before scoring.

Who decides (`to_move()`): every player who has not sealed a number while sending (simultaneous),
otherwise the one player whose decision is at hand: taking a card, placing a rock, choosing a
totem, resolving a totem, copying a totem.

Actions and their text forms:

- ``send 3``            seal 3 of your explorers for the temple (0 up to all you have)
- ``take B``            take the revealed card in slot B (slots A-D, left to right)
- ``rock sundial 2``    place a rock on chamber 2 of the sundial column (chambers count from 1
                        at the top; columns: sundial, shield, snake, statuette, skull)
- ``totem 4``           take totem card 4 from those lying above the temple
- ``move snake 1 down`` resolve a move-rock totem: the rock on snake chamber 1 goes one chamber down
- ``copy 3``            (copy totem, before scoring) perform the action of used totem card 3

Seats are numbered clockwise: player ``p + 1`` sits on player ``p``'s left. The rulebook's
"the torch keeper begins, or the player sitting closer to his left side" is therefore the
clockwise `seat_order` from the torch keeper.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from games.cibola import validation
from games.cibola.components import (
    TREASURES,
    Column,
    Components,
    Totem,
    default_components,
    load_components,
)
from geomsim.discrete import Deck, SealedChoices, rank_by, seat_order
from geomsim.notation import Form, Notation, one_of, whole
from geomsim.options import Option, Variant, declare, resolve
from geomsim.reading import DataError, convert, short
from geomsim.rules import (
    EMPTY_SPACE,
    Action,
    ActionSpace,
    Event,
    FiniteActionSpace,
    Game,
    Rule,
    State,
    Violation,
    read_state_json,
)

CARDS_PER_ROUND = 4
SLOTS = "ABCD"
_M = "games.cibola.rules"

# Stages of play; a decision at hand is a (kind, player, arg) triple on `pending`.
SEND, OBTAIN, ROUND_END, FINAL, OVER = "send", "obtain", "round-end", "final", "over"
TAKE, ROCK, TOTEM, MOVE, COPY = "take", "rock", "totem", "move", "copy"


def _rule(rule_id: str, section: str, text: str, enforced_by: str) -> tuple[str, Rule]:
    return rule_id, Rule(rule_id, section, text, f"{_M}:{enforced_by}")


RULES: dict[str, Rule] = dict([
    _rule("cibola/setup/decks", "Setup C", "Shuffle deck II and place it face down; shuffle deck I "
          "and place it on top of deck II.", "make_setup"),
    _rule("cibola/setup/explorers", "Setup D", "Divide the explorers equally among the players: "
          "2 players: 12 each; 3 players: 8 each; 4 players: 6 each.", "make_setup"),
    _rule("cibola/setup/totems", "Setup F", "Shuffle the totem cards, reveal 5 in a row above the "
          "temple and put the remaining 5 back in the box; they take no part in the game.",
          "make_setup"),
    _rule("cibola/setup/torch", "Setup G", "Toss the torch: the player its handle points at starts "
          "the game as the torch keeper.", "make_setup"),
    _rule("cibola/round/stages", "Course of Play", "The game lasts 8 rounds, each of 3 stages: "
          "discovering treasures, sending explorers, obtaining treasures.",
          "CibolaState._stage_violation"),
    _rule("cibola/discover/four-cards", "1", "Reveal 4 cards from the top of the treasure deck and "
          "place them in a row.", "CibolaState._start_round"),
    _rule("cibola/send/sealed", "2", "Each player secretly chooses any number of their explorers "
          "(they may choose none), so that rivals do not know how many; all reveal simultaneously.",
          "CibolaState.observe"),
    _rule("cibola/send/count", "2", "A player sends any number of their own explorers, from none "
          "to all they have.", "CibolaState._send_violations"),
    _rule("cibola/send/camp-share", "2", "A player who sent no explorers takes all the explorers "
          "from the camp; several such players share them equally.", "share_camp"),
    _rule("cibola/obtain/order", "3", "The player who sent the most explorers begins, then the "
          "others by the number sent. In case of a tie, the torch keeper begins, or the player "
          "sitting closer to his left side.", "obtain_order"),
    _rule("cibola/obtain/zero-last", "3", "The players who sent no explorers take 1 card each last "
          "(the torch keeper begins, or the player sitting closer to his left side).",
          "obtain_order"),
    _rule("cibola/obtain/explorers-to-camp", "3", "On their turn a player puts all the explorers "
          "they sent to the temple into the camp.", "CibolaState._take"),
    _rule("cibola/obtain/one-card", "3", "Then they take 1 of the revealed treasure cards and place "
          "it face up in front of them.", "CibolaState._take_violations"),
    _rule("cibola/obtain/no-refill", "3", "Empty spaces left by taken cards are not refilled.",
          "CibolaState._take_violations"),
    _rule("cibola/obtain/two-players", "3 (2 players)", "In a two-player game the players choose "
          "1 treasure card each in turn, starting with the one who sent more explorers.",
          "takes_queue"),
    _rule("cibola/obtain/three-players", "3 (3 players)", "In a three-player game 1 revealed card "
          "is not chosen: put it in the box. If it has a rock symbol, the player who sent the most "
          "explorers that round places the rock.", "CibolaState._discard_leftovers"),
    _rule("cibola/symbol/rock", "Symbols", "Rock: take 1 rock and place it on any chamber; that "
          "chamber is excluded from the game.", "CibolaState._rock_violations"),
    _rule("cibola/symbol/last-chamber", "Symbols", "If only 1 uncollapsed chamber remains in a "
          "given colour, it cannot be covered with a rock.", "CibolaState._cover_violation"),
    _rule("cibola/symbol/totem", "Symbols", "Totem: choose 1 totem card from those lying above the "
          "temple and place it face up in front of you.", "CibolaState._totem_violations"),
    _rule("cibola/totem/timing", "Symbols", "The symbol at the bottom of a totem card shows when it "
          "is used: immediately, or at the end of the game (when counting points).",
          "CibolaState._perform"),
    _rule("cibola/round/torch", "End of the Round", "After the round ends, the torch is taken by "
          "the player who took a treasure card last in that round; they begin the new round.",
          "CibolaState._end_round"),
    _rule("cibola/end/deck-out", "End of the Game", "The game ends at the end of the round in which "
          "the treasure card deck runs out.", "CibolaState._end_round"),
    _rule("cibola/totem/copy", "End of the Game", "Before the players count points, the holder of "
          "'Perform the action of another totem card used during the game' points to 1 totem card "
          "used during the game and performs its action.", "CibolaState._copy_violations"),
    _rule("cibola/totem/copy-variant", "End of the Game", "If you value greater control of the "
          "game, play without this card and skip the above rule.", "make_setup"),
    _rule("cibola/totem/move-rock-down", "Components", "Totem: 'Move 1 rock down by 1 chamber.'",
          "CibolaState._move_violations"),
    _rule("cibola/totem/explorer-points", "Points for Explorers", "Totem: 'Each explorer left to "
          "you at the end of the game is worth 1 point.' (in addition to the pairs)", "CibolaState.score_sheet"),
    _rule("cibola/totem/sundial-bonus", "Sundial", "Totem: 'Each of your sundials is worth 1 point "
          "more.'", "CibolaState.score_sheet"),
    _rule("cibola/totem/shield-bonus", "Feathered Shield", "Totem: 'Each of your feathered shields "
          "is worth 3 points more.'", "CibolaState.score_sheet"),
    _rule("cibola/totem/snake-three", "Snake", "Totem: if a player has this card, they get 3 points "
          "for each snake.", "CibolaState.score_sheet"),
    _rule("cibola/totem/cancel-skulls", "Skull", "Totem: 'Cancel 2 of your skulls.' The player "
          "reduces their number of skulls by 2.", "CibolaState.score_sheet"),
    _rule("cibola/totem/move-rock-up", "Assumption (docs/assumptions/cibola.md)", "Totem (assumed): "
          "'Move 1 rock up by 1 chamber.'", "CibolaState._move_violations"),
    _rule("cibola/totem/take-explorers", "Assumption (docs/assumptions/cibola.md)", "Totem "
          "(assumed): 'Take 2 explorers from the camp.' (all there are, if fewer)",
          "CibolaState._perform"),
    _rule("cibola/totem/statuette-points", "Assumption (docs/assumptions/cibola.md)", "Totem "
          "(assumed): 'Each of your statuettes is worth 1 point.' (besides the majority)",
          "CibolaState.score_sheet"),
    _rule("cibola/score/explorers", "Points for Explorers", "Each pair of explorers left to a "
          "player at the end of the game = 1 point.", "CibolaState.score_sheet"),
    _rule("cibola/score/visible-value", "Points for Treasure Cards", "When counting points for a "
          "kind of treasure, players check the value visible on the temple (its first uncovered "
          "chamber from the top).", "CibolaState.visible_value"),
    _rule("cibola/score/statuette", "Statuette", "The player with the most statuettes earns the "
          "value visible on the orange column; in a tie all tied players earn it.", "CibolaState.score_sheet"),
    _rule("cibola/score/sundial", "Sundial", "Every player earns the value visible on the blue "
          "column for each sundial.", "CibolaState.score_sheet"),
    _rule("cibola/score/shield", "Feathered Shield", "Every player earns the value visible on the "
          "pink column for each feathered shield.", "CibolaState.score_sheet"),
    _rule("cibola/score/snake", "Snake", "Every player earns the value visible on the green column "
          "for each snake.", "CibolaState.score_sheet"),
    _rule("cibola/score/skull", "Skull", "The player with the most skulls earns the (negative) value "
          "visible on the brown column; in a tie all tied players earn it.", "CibolaState.score_sheet"),
    _rule("cibola/end/winner", "End of the Game", "The winner is the player who earned the most "
          "points. In case of a tie, the player with more explorers left wins.",
          "CibolaState.winners"),
])


# -- options: what a designer may change (geomsim.options) ---------------------------------------
# Chamber values of the temple's columns (top first, in TREASURES order) that the option
# `temple` offers beside the components' own: the earlier proposal of FACTS.md.
TEMPLES: dict[str, tuple[tuple[int, ...], ...] | None] = {
    "default": None,
    "earlier": ((6, 4, 2, 1), (5, 3, 2, 0), (4, 3, 1, -2), (12, 8, 4), (-4, -8, -12)),
}
CAMP_SHARES = ("equal", "first", "none")
ROUNDS = 8  # the rulebook's rounds: the whole deck

OPTIONS, VARIANTS = declare([
    Option("explorers", int, 0, "explorers each player receives (0: the rulebook's 24 shared "
           "equally, 12 / 8 / 6 for 2 / 3 / 4 players)", ("cibola/setup/explorers",),
           low=0, high=30),
    Option("rounds", int, ROUNDS, "rounds of play: each deck gives 2 cards a round, the rest stay "
           "in the box (8: the whole deck)", ("cibola/round/stages", "cibola/setup/decks",
                                            "cibola/end/deck-out"), low=1, high=ROUNDS),
    Option("totems_revealed", int, 5, "totem cards revealed above the temple (the rest stay in "
           "the box)", ("cibola/setup/totems",), low=1, high=10),
    Option("temple", str, "default", "chamber values of the temple's columns: the components' "
           "(default) or FACTS.md's earlier proposal (earlier: 6/4/2/1, 5/3/2/0, 4/3/1/-2, "
           "12/8/4, -4/-8/-12)", ("cibola/score/visible-value",), choices=tuple(TEMPLES)),
    Option("copy_totem", bool, True, "the totem card 'perform the action of another totem card' "
           "is in play", ("cibola/totem/copy-variant", "cibola/totem/copy")),
    Option("camp_share", str, "equal", "how players who sent no explorers share the camp: "
           "equally (the rest stays), all to the first of them clockwise from the torch keeper, "
           "or none (the camp keeps them)", ("cibola/send/camp-share",), choices=CAMP_SHARES),
], [
    Variant("no-copy-totem", {"copy_totem": False}, "the rulebook's variant for greater control: "
            "play without the copy totem card"),
])


# -- actions ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Send(Action):
    """Seal a number of explorers for the temple: ``send 3``."""

    kind = "send"
    text = "send {explorers}"
    explorers: int

    def __post_init__(self) -> None:
        whole(self.explorers, "explorers")  # a negative count is read, and refused by the rules


@dataclass(frozen=True)
class Take(Action):
    """Take the revealed card in a slot (A-D): ``take B``."""

    kind = "take"
    text = "take {slot}"
    slot: str

    def __post_init__(self) -> None:
        one_of(self.slot, _LETTERS, "slot")  # any letter is read; the rules name the slots A-D


@dataclass(frozen=True)
class PlaceRock(Action):
    """Place a rock on a chamber (1 = top) of a column: ``rock sundial 2``."""

    kind = "rock"
    text = "rock {column} {chamber}"
    column: str
    chamber: int

    def __post_init__(self) -> None:
        one_of(self.column, TREASURES, "column")
        whole(self.chamber, "chamber")


@dataclass(frozen=True)
class ChooseTotem(Action):
    """Take a revealed totem card by its id: ``totem 4``."""

    kind = "totem"
    text = "totem {totem}"
    totem: int

    def __post_init__(self) -> None:
        whole(self.totem, "totem")


@dataclass(frozen=True)
class MoveRock(Action):
    """Move the rock on a chamber one chamber down or up: ``move snake 1 down``."""

    kind = "move"
    text = "move {column} {chamber} {direction}"
    column: str
    chamber: int
    direction: str  # "down" or "up"

    def __post_init__(self) -> None:
        one_of(self.column, TREASURES, "column")
        whole(self.chamber, "chamber")
        one_of(self.direction, tuple(DIRECTIONS), "direction")


@dataclass(frozen=True)
class CopyTotem(Action):
    """Perform the action of a used totem card (the copy totem, before scoring): ``copy 3``."""

    kind = "copy"
    text = "copy {totem}"
    totem: int

    def __post_init__(self) -> None:
        whole(self.totem, "totem")


ACTION_TYPES = (Send, Take, PlaceRock, ChooseTotem, MoveRock, CopyTotem)
_LETTERS = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")  # a slot as the text writes it, upper case


DIRECTIONS = {"down": 1, "up": -1}

NOTATION = Notation("cibola", {
    "send": Form("send N (a number of explorers)", r"send (-?\d{1,12})", lambda m: Send(int(m[1]))),
    "take": Form("take SLOT (a letter A-D)", r"take ([a-z])", lambda m: Take(m[1].upper())),
    "rock": Form("rock COLUMN CHAMBER, e.g. 'rock sundial 2'", r"rock (\w+) (-?\d{1,12})",
                 lambda m: PlaceRock(m[1], int(m[2]))),
    "totem": Form("totem ID, e.g. 'totem 4'", r"totem (-?\d{1,12})", lambda m: ChooseTotem(int(m[1]))),
    "move": Form("move COLUMN CHAMBER down|up", r"move (\w+) (-?\d{1,12}) (\w+)",
                 lambda m: MoveRock(m[1], int(m[2]), m[3])),
    "copy": Form("copy ID, e.g. 'copy 3'", r"copy (-?\d{1,12})", lambda m: CopyTotem(int(m[1]))),
}, lowercase=True)


# Actions are immutable: share one object per value (faster legal-action lists).
_SENDS = [Send(n) for n in range(64)]
_TAKES = [Take(s) for s in SLOTS]
_ROCKS = [[PlaceRock(name, i + 1) for i in range(8)] for name in TREASURES]


def parse_action(text: str) -> Action:
    """The action written in text form; `ValueError` naming what is wrong otherwise."""
    return NOTATION.parse(text)


# -- pure rules over numbers ---------------------------------------------------------------
def share_camp(camp: int, sent: list[int], mode: str = "equal", torch: int = 0
               ) -> tuple[list[int], int]:
    """What each zero-sender takes from the camp, and what stays there (`cibola/send/camp-share`;
    `mode` the option camp_share: equal shares, all to the first zero-sender clockwise from the
    torch keeper `torch`, or none)."""
    zero = [p for p, n in enumerate(sent) if n == 0]
    if not zero or mode == "none":
        return [0] * len(sent), camp
    if mode == "first":
        first = next(p for p in seat_order(torch, len(sent)) if sent[p] == 0)
        return [camp if p == first else 0 for p in range(len(sent))], 0
    each = camp // len(zero)
    return [each if n == 0 else 0 for n in sent], camp - each * len(zero)


def obtain_order(sent: list[int], torch: int) -> list[int]:
    """Players by explorers sent, most first; ties (zero-senders too) clockwise from the torch
    keeper, who begins (`cibola/obtain/order`, `cibola/obtain/zero-last`)."""
    return rank_by(sent, seat_order(torch, len(sent)))


def takes_queue(order: list[int], cards: int) -> list[int]:
    """Who takes each card this round: with 2 players they alternate until the row is empty
    (`cibola/obtain/two-players`); with more, one card each in order."""
    if len(order) == 2:
        return [order[i % 2] for i in range(cards)]
    return order[:cards]


def make_setup(components: Components, players: int, seed: int | None,
               options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A random setup from `seed` under `options` (all of them, `Cibola.resolve_options`):
    deck order (deck I shuffled on top of deck II shuffled; with fewer rounds, 2 cards of each
    deck a round, the rest in the box), the revealed totems (the rest boxed), the torch keeper,
    explorers dealt equally."""
    options = options or Cibola.options_in_force()
    rng = np.random.default_rng(seed)
    deck, box = [], []
    for d in (1, 2):
        ids = components.deck_ids(d)
        shuffled = [ids[i] for i in rng.permutation(len(ids))]
        keep = len(ids) if options["rounds"] == ROUNDS else 2 * options["rounds"]
        deck += shuffled[:keep]
        box += shuffled[keep:]
    pool = totem_pool(components, options)
    shuffled = [pool[i] for i in rng.permutation(len(pool))]
    revealed = revealed_totems(options, pool)
    setup = {
        "players": players,
        "deck": deck,
        "totems": shuffled[:revealed],
        "boxed_totems": shuffled[revealed:],
        "torch": int(rng.integers(players)),
        "explorers": [explorers_each(components, options, players)] * players,
        "camp": 0,
        "options": {k: v for k, v in options.items() if v != OPTIONS[k].default},
    }
    if box:
        setup["box"] = sorted(box)
    return setup


def totem_pool(components: Components, options: Mapping[str, Any]) -> list[int]:
    """The totem ids in play: all, or all but the copy card (`cibola/totem/copy-variant`)."""
    return [t.id for t in components.totems if options["copy_totem"] or t.kind != "copy"]


def revealed_totems(options: Mapping[str, Any], pool: list[int]) -> int:
    """How many totems are revealed above the temple (`cibola/setup/totems`, option
    totems_revealed): as many as the option says, or all in play if fewer."""
    return min(int(options["totems_revealed"]), len(pool))


def explorers_each(components: Components, options: Mapping[str, Any], players: int) -> int:
    """The explorers each player receives (`cibola/setup/explorers`, option explorers)."""
    return int(options["explorers"]) or components.explorers_per_player[players]


def under_options(components: Components, temple: str) -> Components:
    """`components` with the temple's columns the option temple names (itself for "default");
    one object for equal arguments, so that compiled tables and encodings are made once."""
    return components if TEMPLES[temple] is None else _with_temple(components, temple)


@functools.lru_cache(maxsize=32)
def _with_temple(components: Components, temple: str) -> Components:
    values = TEMPLES[temple]
    assert values is not None, "the default temple is the components' own"
    columns = tuple(Column(c.treasure, c.colour, c.scoring, v) for c, v in zip(components.columns, values))
    data = {**components.data, "columns": [
        {"treasure": c.treasure, "colour": c.colour, "scoring": c.scoring, "values": list(c.values)}
        for c in columns]}
    return dataclasses.replace(components, columns=columns, data=data)


def _setup_error(field: str, message: str, rule: str | None = None) -> DataError:
    return DataError(field, message + (f" ({rule})" if rule else ""))


# -- the game ---------------------------------------------------------------------------------
class Cibola(Game):
    """Treasures of Cibola: 8 rounds of discovering, sending and obtaining treasures."""

    name = "cibola"
    min_players = 2
    max_players = 4
    rules = RULES
    action_types = ACTION_TYPES
    hidden_information = True
    playout_requires = ("numba",)

    options, variants = OPTIONS, VARIANTS

    @classmethod
    def options_in_force(cls, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Every option's value: the defaults, then `given` (each checked)."""
        return resolve(OPTIONS, given)

    def new_state(self, players: int, seed: int | None = None,
                  setup: Mapping[str, Any] | None = None,
                  options: Mapping[str, Any] | None = None) -> CibolaState:
        """A state at the start of play. `setup` may give any of: ``deck`` (card ids, top first),
        ``totems`` (the revealed ids), ``torch``, ``explorers`` (per player) and ``camp``,
        ``box`` (cards out of play), ``options`` (see `OPTIONS`; `options` are laid over
        them), ``components`` (overrides of components.json keys) or ``data`` (a components
        file); what it leaves out is drawn from `seed`."""
        self.check_players(players)
        if setup is not None and not isinstance(setup, Mapping):
            raise _setup_error("setup", f"expected a mapping, got {type(setup).__name__}")
        setup = dict(setup or {})
        convert(setup, validation.SetupDoc)
        if setup.get("players", players) != players:
            raise _setup_error("players", f"setup is for {setup['players']} players, not {players}")
        in_force = self.options_in_force({**(setup.get("options") or {}), **(options or {})})
        components = under_options(_components(setup), in_force["temple"])
        drawn = make_setup(components, players, seed, in_force)
        full = {**drawn, **setup, "options": in_force}
        pool = totem_pool(components, in_force)
        if "totems" in setup and "boxed_totems" not in setup:
            full["boxed_totems"] = [t for t in pool if t not in setup["totems"]]
        if "deck" in setup and "box" not in setup:
            full["box"] = sorted(c.id for c in components.cards if c.id not in setup["deck"]) \
                if in_force["rounds"] != ROUNDS else []
        full.setdefault("box", [])
        validation.check_setup(components, players, full, pool, _limits(components, in_force, players))
        state = CibolaState.from_setup(self, components, players, full)
        validation.check_made(state, pool, state.explorers_in_game)  # what is accepted reads back
        return state

    def make_setup(self, players: int, seed: int, options: Mapping[str, Any] | None = None
                   ) -> dict[str, Any]:
        """A random setup from `seed` (under `options`) as JSON-able data that
        `new_state(setup=...)` accepts."""
        self.check_players(players)
        in_force = self.options_in_force(options)
        return make_setup(under_options(default_components(), in_force["temple"]), players, seed,
                          in_force)

    def parse_action(self, text: str) -> Action:
        """The action written in text form (see the module docstring)."""
        return parse_action(text)

    def state_from_json(self, text: str) -> CibolaState:
        """The state that `CibolaState.to_json` wrote (without ``options``: the rulebook's)."""
        data, history = read_state_json(text, validation.StateDoc, "cibola state")
        in_force = self.options_in_force(data["options"])
        components = _components({"components": data["components"]} if data["components"] else {})
        components = under_options(components, in_force["temple"])
        players = len(data["explorers"])
        pool = totem_pool(components, in_force)
        validation.check_data(data, components, pool, explorers_in_game(components, in_force, players))
        state = CibolaState(self, components, players)
        state._load(data)
        state.options = in_force
        validation.check_stage(state)
        state._history_from_json(data, history)
        return state


def explorers_in_game(components: Components, options: Mapping[str, Any], players: int) -> int:
    """All the explorers of a game (with the players, in the temple and in the camp)."""
    return explorers_each(components, options, players) * players if options["explorers"] \
        else components.explorers


def _limits(components: Components, options: Mapping[str, Any], players: int) -> validation.Limits:
    """What the options make of a setup's counts, for `validation.check_setup`."""
    pool = totem_pool(components, options)
    cards = None if options["rounds"] == ROUNDS else 2 * options["rounds"]
    return validation.Limits(explorers_in_game(components, options, players),
                             revealed_totems(options, pool), cards)


def _components(setup: Mapping[str, Any]) -> Components:
    """The components a setup asks for: defaults, a data file, overrides."""
    if setup.get("components") is None and setup.get("data") is None:
        return default_components()
    return load_components(setup.get("components"), setup.get("data"))


# -- the state --------------------------------------------------------------------------------
# A decision at hand: (kind, player, arg); arg is the card (rock, totem), the totem card (move,
# copy) or None (take).
Decision = tuple[str, int, int | None]


class CibolaState(State):
    """A moment of a game of Treasures of Cibola."""

    game: Cibola
    components: Components
    deck: Deck[int]
    row: list[int | None]  # the revealed cards by slot, None where taken
    box: list[int]
    explorers: list[int]
    camp: int
    sent: list[int]
    in_temple: list[int]
    sealed: SealedChoices | None  # the send under way (stage SEND only)
    torch: int
    round: int
    stage: str
    order: list[int]
    pending: list[Decision]
    last_taker: int | None
    hands: list[list[int]]
    counts: list[list[int]]  # treasures held by kind, in TREASURES order
    totems: list[list[int]]
    copies: list[list[int]]
    offer: list[int]
    boxed_totems: list[int]
    used: list[int]
    covered: list[list[bool]]
    rocks_placed: int
    _movers: tuple[int, ...]

    def __init__(self, game: Cibola, components: Components, players: int):
        self.game, self.components, self.num_players, self.history = game, components, players, []
        self._columns = components.columns

    @classmethod
    def from_setup(cls, game: Cibola, components: Components, players: int,
                   setup: Mapping[str, Any]) -> CibolaState:
        """The state at the start of play from a validated full setup; the first round revealed."""
        s = cls(game, components, players)
        s.options = dict(setup["options"])
        s.deck = Deck(list(setup["deck"]))
        s.row, s.box = [None] * CARDS_PER_ROUND, list(setup["box"])
        s.explorers, s.camp = list(setup["explorers"]), setup["camp"]
        s.sent, s.in_temple = [0] * players, [0] * players
        s.sealed = None
        s.torch, s.round, s.stage = setup["torch"], 0, SEND
        s.order, s.pending, s.last_taker = [], [], None
        s.hands = [[] for _ in range(players)]
        s.counts = [[0] * len(TREASURES) for _ in range(players)]
        s.totems = [[] for _ in range(players)]
        s.copies = [[] for _ in range(players)]
        s.offer, s.boxed_totems, s.used = list(setup["totems"]), list(setup["boxed_totems"]), []
        s.covered = [[False] * len(c.values) for c in components.columns]
        s.rocks_placed = 0
        s._start_round()
        return s

    # -- who decides ----------------------------------------------------------------------------
    def to_move(self) -> tuple[int, ...]:
        """Every player yet to seal a number while sending; else the player whose decision is at hand."""
        return self._movers

    def _set_movers(self) -> None:
        if self.stage == SEND:
            # None only in a state read back without its send, which `check_stage` then refuses.
            self._movers = self.sealed.waiting() if self.sealed else ()
        elif self.pending:
            self._movers = (self.pending[0][1],)
        else:
            self._movers = ()

    @property
    def decision(self) -> Decision | None:
        """The decision at hand outside the send: (kind, player, card or totem id), or None."""
        return self.pending[0] if self.stage != SEND and self.pending else None

    # -- the temple -----------------------------------------------------------------------------
    def visible_value(self, column: int) -> int:
        """The value of a column's first uncovered chamber from the top (`cibola/score/visible-value`)."""
        return self._columns[column].values[self.covered[column].index(False)]

    @property
    def explorers_in_game(self) -> int:
        """All the explorers of this game (the option explorers, else the components')."""
        return explorers_in_game(self.components, self.options, self.num_players)

    @property
    def rocks_left(self) -> int:
        """Rocks still beside the temple."""
        return self.components.rocks - self.rocks_placed

    def _cover_violation(self, column: int, chamber: int, rule: str) -> Violation | None:
        """Why a rock may not come onto (column, chamber), or None (`cibola/symbol/last-chamber`)."""
        name = TREASURES[column]
        chambers = self.covered[column]
        if not 0 <= chamber < len(chambers):
            return Violation(rule, f"the {name} column has chambers 1 to {len(chambers)}, "
                             f"not {chamber + 1}", {"chamber": chamber + 1, "chambers": len(chambers)})
        if chambers[chamber]:
            return Violation(rule, f"{name} chamber {chamber + 1} is already covered by a rock",
                             {"chamber": chamber + 1})
        if chambers.count(False) < 2:
            return Violation("cibola/symbol/last-chamber", f"{name} chamber {chamber + 1} is the "
                             "column's last uncovered chamber: it can never be covered",
                             {"open": 1, "chamber": chamber + 1})
        return None

    def _column_index(self, name: str, rule: str) -> int | Violation:
        """The index of the column `name`, or why there is none."""
        if name not in TREASURES:
            return Violation(rule, f"no column {name!r} (columns: {', '.join(TREASURES)})")
        return TREASURES.index(name)

    def _move_totem(self, arg: int | None) -> Totem:
        """The move-rock totem card that a move decision's `arg` names."""
        assert arg is not None, "a move decision names its totem card"
        return self.components.totem(arg)

    def _send_under_way(self) -> SealedChoices:
        """The sealed send (there is one in stage SEND)."""
        assert self.sealed is not None, "no send is under way"
        return self.sealed

    # -- legal actions --------------------------------------------------------------------------
    def _legal_actions(self, player: int) -> ActionSpace:
        if self.stage == SEND:
            n = self.explorers[player]
            return FiniteActionSpace(_SENDS[: n + 1] if n < len(_SENDS) else map(Send, range(n + 1)))
        kind, _, arg = self.pending[0]
        if kind == TAKE:
            return FiniteActionSpace([_TAKES[i] for i, c in enumerate(self.row) if c is not None])
        if kind == ROCK:
            return FiniteActionSpace(self._rock_actions())
        if kind == TOTEM:
            return FiniteActionSpace([ChooseTotem(t) for t in self.offer])
        if kind == MOVE:
            return FiniteActionSpace(self._move_actions(self._move_totem(arg).effect["step"]))
        if kind == COPY:
            return FiniteActionSpace([CopyTotem(t) for t in self._copyable()])
        return EMPTY_SPACE

    def _rock_actions(self) -> list[PlaceRock]:
        if self.rocks_left <= 0:
            return []
        return [_rock_action(c, i) for c, chambers in enumerate(self.covered)
                if chambers.count(False) >= 2 for i, cov in enumerate(chambers) if not cov]

    def _can_place_rock(self) -> bool:
        """True when a rock is left and some column has 2 or more uncovered chambers."""
        return self.rocks_left > 0 and any(c.count(False) >= 2 for c in self.covered)

    def _move_actions(self, step: int) -> list[MoveRock]:
        direction = "down" if step > 0 else "up"
        found = []
        for c, chambers in enumerate(self.covered):
            if chambers.count(False) < 2:
                continue
            for i, cov in enumerate(chambers):
                if cov and 0 <= i + step < len(chambers) and not chambers[i + step]:
                    found.append(MoveRock(TREASURES[c], i + 1, direction))
        return found

    def _copyable(self) -> list[int]:
        """Totem cards used during the game that the copy totem may point to (not itself)."""
        return [t for t in self.used if self.components.totem(t).kind != "copy"]

    def arbitrary_actions(self, player: int, rng: np.random.Generator, k: int) -> list[Action]:
        """Up to `k` well-formed actions of every kind, mostly illegal: test input for `check`."""
        ints = [int(v) for v in rng.integers(-2, 14, size=3 * k)]
        makers = [
            lambda i: Send(ints[i]),
            lambda i: Take("ABCDE"[ints[i] % 5]),
            lambda i: PlaceRock(TREASURES[ints[i] % 5], ints[i + 1] % 6),
            lambda i: ChooseTotem(ints[i]),
            lambda i: MoveRock(TREASURES[ints[i] % 5], ints[i + 1] % 6, ("down", "up")[ints[i] % 2]),
            lambda i: CopyTotem(ints[i]),
        ]
        picks = rng.integers(len(makers), size=k)
        return [makers[int(m)](i) for i, m in enumerate(picks)]

    # -- violations -----------------------------------------------------------------------------
    def _violations(self, action: Action, player: int) -> list[Violation]:
        wrong = self._stage_violation(action)
        if wrong:
            return [wrong]
        if isinstance(action, Send):
            return self._send_violations(action, player)
        if isinstance(action, Take):
            return self._take_violations(action)
        if isinstance(action, PlaceRock):
            return self._rock_violations(action)
        if isinstance(action, ChooseTotem):
            return self._totem_violations(action)
        if isinstance(action, MoveRock):
            return self._move_violations(action)
        assert isinstance(action, CopyTotem)  # `check` admits only ACTION_TYPES
        return self._copy_violations(action)

    def _stage_violation(self, action: Action) -> Violation | None:
        """The action must answer the decision at hand (`cibola/round/stages` and the rule of
        that decision)."""
        if self.stage == SEND:
            if action.kind == "send":
                return None
            return Violation("cibola/round/stages", f"round {self.round}: the players are sending "
                             f"explorers now, not '{action.kind}'", {"round": self.round})
        want, who, arg = self.pending[0]
        if action.kind == want:
            return None
        rule, doing = self._decision_rule(want, arg)
        if action.kind == "send":
            rule = "cibola/round/stages"
        return Violation(rule, f"player {who} must {doing} now, not '{action.kind}'",
                         {"decision": want})

    def _decision_rule(self, kind: str, arg: int | None) -> tuple[str, str]:
        """The rule behind a decision at hand, and what it asks for, in words."""
        if kind == TAKE:
            return "cibola/obtain/one-card", "take a revealed card"
        if kind == ROCK:
            return "cibola/symbol/rock", f"place the rock of card #{arg}"
        if kind == TOTEM:
            return "cibola/symbol/totem", f"choose a totem for card #{arg}"
        if kind == MOVE:
            return self._move_totem(arg).rule, f"move a rock for totem {arg}"
        return "cibola/totem/copy", "point to a used totem to copy"

    def _send_violations(self, action: Send, player: int) -> list[Violation]:
        have = self.explorers[player]
        n = action.explorers
        if not _is_int(n) or not 0 <= n <= have:
            return [Violation("cibola/send/count", f"player {player} has {have} explorers: send 0 "
                              f"to {have}, not {n!r}" + self.option_note("explorers"),
                              {"sent": n, "explorers": have})]
        return []

    def _take_violations(self, action: Take) -> list[Violation]:
        slot = action.slot
        if not isinstance(slot, str) or len(slot) != 1 or slot not in SLOTS:
            return [Violation("cibola/obtain/one-card", f"no slot {slot!r}: the revealed cards lie "
                              f"in slots {SLOTS[0]}-{SLOTS[-1]}")]
        if self.row[SLOTS.index(slot)] is None:
            left = "".join(SLOTS[i] for i, c in enumerate(self.row) if c is not None)
            return [Violation("cibola/obtain/no-refill", f"slot {slot} is empty: taken cards are "
                              f"not replaced (cards left in {left or 'no slot'})",
                              {"slot": slot, "left": left})]
        return []

    def _rock_violations(self, action: PlaceRock) -> list[Violation]:
        column = self._column_index(action.column, "cibola/symbol/rock")
        if isinstance(column, Violation):
            return [column]
        if self.rocks_left <= 0:
            return [Violation("cibola/symbol/rock", "no rock is left beside the temple")]
        wrong = self._cover_violation(column, _chamber(action.chamber), "cibola/symbol/rock")
        return [wrong] if wrong else []

    def _totem_violations(self, action: ChooseTotem) -> list[Violation]:
        if not _is_int(action.totem) or action.totem not in self.offer:
            return [Violation("cibola/symbol/totem", f"totem {action.totem!r} does not lie above the "
                              f"temple (there: {self.offer})"
                              + self.option_note("totems_revealed", "copy_totem"),
                              {"offer": list(self.offer)})]
        return []

    def _move_violations(self, action: MoveRock) -> list[Violation]:
        totem = self._move_totem(self.pending[0][2])
        rule = totem.rule
        step = totem.effect["step"]
        if DIRECTIONS.get(action.direction) != step:
            return [Violation(rule, f"totem {totem.id} moves a rock {'down' if step > 0 else 'up'}, "
                              f"not {action.direction!r}")]
        column = self._column_index(action.column, rule)
        if isinstance(column, Violation):
            return [column]
        chambers, here = self.covered[column], _chamber(action.chamber)
        if not (0 <= here < len(chambers) and chambers[here]):
            return [Violation(rule, f"no rock lies on {action.column} chamber {action.chamber}",
                              {"chamber": action.chamber})]
        wrong = self._cover_violation(column, here + step, rule)
        return [wrong] if wrong else []

    def _copy_violations(self, action: CopyTotem) -> list[Violation]:
        if not _is_int(action.totem) or action.totem not in self._copyable():
            return [Violation("cibola/totem/copy", f"totem {action.totem!r} is not another totem "
                              f"card used during the game (used: {self._copyable()})"
                              + self.option_note("copy_totem"),
                              {"used": self._copyable()})]
        return []

    # -- applying -------------------------------------------------------------------------------
    def _apply(self, action: Action, player: int) -> list[Event]:
        if isinstance(action, Send):
            events = self._send(player, action.explorers)
        else:
            self.pending.pop(0)
            if isinstance(action, Take):
                events = self._take(player, SLOTS.index(action.slot))
            elif isinstance(action, PlaceRock):
                events = self._place_rock(player, TREASURES.index(action.column),
                                          _chamber(action.chamber))
            elif isinstance(action, ChooseTotem):
                events = self._choose_totem(player, action.totem)
            elif isinstance(action, MoveRock):
                events = self._move_rock(player, action)
            else:
                assert isinstance(action, CopyTotem)  # `check` admits only ACTION_TYPES
                events = self._copy(player, action.totem)
            events += self._advance()
        self._set_movers()
        return events

    def _start_round(self) -> list[Event]:
        """Reveal up to 4 cards (`cibola/discover/four-cards`) and open the sealed send."""
        self.round += 1
        cards = self.deck.draw(min(CARDS_PER_ROUND, len(self.deck)))
        self.row = cards + [None] * (CARDS_PER_ROUND - len(cards))
        self.stage, self.order, self.last_taker = SEND, [], None
        self.sent = [0] * self.num_players
        self.sealed = SealedChoices(tuple(range(self.num_players)))
        self._set_movers()
        return [Event("discovered", None, {"round": self.round, "cards": cards})]

    def _send(self, player: int, n: int) -> list[Event]:
        sealed = self._send_under_way()
        sealed.submit(player, n)
        if not sealed.complete:
            return [Event("sealed", player)]  # the number stays secret (`cibola/send/sealed`)
        return self._reveal_sends()

    def _reveal_sends(self) -> list[Event]:
        """All reveal at once; zero-senders share the camp; the order of taking is fixed."""
        sent = [self._send_under_way().reveal()[p] for p in range(self.num_players)]
        self.sealed, self.sent = None, sent
        for p, n in enumerate(sent):
            self.explorers[p] -= n
            self.in_temple[p] = n
        shares, self.camp = share_camp(self.camp, sent, self.options["camp_share"], self.torch)
        for p, n in enumerate(shares):
            self.explorers[p] += n
        self.order = obtain_order(sent, self.torch)
        cards = sum(c is not None for c in self.row)
        self.pending = [(TAKE, p, None) for p in takes_queue(self.order, cards)]
        self.stage = OBTAIN
        events = [Event("sends revealed", None, {"sent": sent, "shares": shares, "camp": self.camp,
                                                  "order": list(self.order)})]
        return events + self._advance()

    def _take(self, player: int, slot: int) -> list[Event]:
        """Sent explorers go to the camp, then the card is taken; its symbol becomes a decision."""
        self.camp += self.in_temple[player]  # `cibola/obtain/explorers-to-camp`
        self.in_temple[player] = 0
        card_id = self.row[slot]
        assert card_id is not None, "the take was checked: the slot holds a card"
        self.row[slot] = None
        card = self.components.card(card_id)
        self.hands[player].append(card_id)
        counts = self.counts[player]
        for i, n in enumerate(card.counts):
            counts[i] += n
        self.last_taker = player
        if card.symbol == "rock":
            self.pending.insert(0, (ROCK, player, card_id))
        elif card.symbol == "totem":
            self.pending.insert(0, (TOTEM, player, card_id))
        return [Event("took", player, {"card": card_id, "slot": SLOTS[slot]})]

    def _place_rock(self, player: int, column: int, chamber: int) -> list[Event]:
        self.covered[column][chamber] = True
        self.rocks_placed += 1
        return [Event("rock", player, {"column": TREASURES[column], "chamber": chamber + 1})]

    def _choose_totem(self, player: int, totem_id: int) -> list[Event]:
        self.offer.remove(totem_id)
        self.totems[player].append(totem_id)
        self.used.append(totem_id)
        return [Event("totem", player, {"totem": totem_id})] + self._perform(player, totem_id)

    def _perform(self, player: int, totem_id: int) -> list[Event]:
        """Carry out an immediate totem at once (`cibola/totem/timing`); end totems act in scoring."""
        totem = self.components.totem(totem_id)
        if totem.kind == "move-rock":
            self.pending.insert(0, (MOVE, player, totem_id))
        elif totem.kind == "take-explorers":
            n = min(totem.effect["count"], self.camp)
            self.camp -= n
            self.explorers[player] += n
            return [Event("explorers from camp", player, {"totem": totem_id, "explorers": n})]
        return []

    def _move_rock(self, player: int, action: MoveRock) -> list[Event]:
        column, here = TREASURES.index(action.column), _chamber(action.chamber)
        there = here + DIRECTIONS[action.direction]
        self.covered[column][here], self.covered[column][there] = False, True
        return [Event("rock moved", player, {"column": action.column, "from": here + 1,
                                             "to": there + 1})]

    def _copy(self, player: int, totem_id: int) -> list[Event]:
        self.copies[player].append(totem_id)
        return [Event("copied", player, {"totem": totem_id})] + self._perform(player, totem_id)

    def _possible(self, kind: str, arg: int | None) -> bool:
        """True when a decision can be made at all (else it is skipped: nothing to do)."""
        if kind == TAKE:
            return any(c is not None for c in self.row)
        if kind == ROCK:
            return self._can_place_rock()
        if kind == TOTEM:
            return bool(self.offer)
        if kind == MOVE:
            return bool(self._move_actions(self._move_totem(arg).effect["step"]))
        return bool(self._copyable())

    def _advance(self) -> list[Event]:
        """Skip impossible decisions and move through the ends of stages until someone decides."""
        events: list[Event] = []
        while True:
            if self.pending:
                kind, player, arg = self.pending[0]
                if self._possible(kind, arg):
                    return events
                self.pending.pop(0)
                events.append(Event("nothing to do", player, {"decision": kind, "of": arg}))
            elif self.stage == OBTAIN:
                events += self._discard_leftovers()
                self.stage = ROUND_END
            elif self.stage == ROUND_END:
                more = self._end_round()
                events += more
                if self.stage == SEND:
                    return events
            elif self.stage == FINAL:
                self.stage = OVER
                return events + [Event("game over", None, {"scores": self.scores()})]
            else:
                return events

    def _discard_leftovers(self) -> list[Event]:
        """Cards nobody took go to the box; a rock on one is placed by the top sender
        (`cibola/obtain/three-players`). Explorers of a player who took nothing go to the camp."""
        for p, n in enumerate(self.in_temple):
            self.camp += n
            self.in_temple[p] = 0
        left = [c for c in self.row if c is not None]
        if not left:
            return []
        self.row = [None] * CARDS_PER_ROUND
        self.box += left
        top = self.order[0]
        for c in left:
            if self.components.card(c).symbol == "rock":
                self.pending.append((ROCK, top, c))
        return [Event("to the box", None, {"cards": left, "rock by": top})]

    def _end_round(self) -> list[Event]:
        """The last taker takes the torch (`cibola/round/torch`); the game ends when the deck has
        run out (`cibola/end/deck-out`), else the next round begins."""
        if self.last_taker is not None:
            self.torch = self.last_taker
        events = [Event("torch", self.torch, {"round": self.round})]
        if len(self.deck):
            return events + self._start_round()
        self.stage = FINAL
        for p in range(self.num_players):
            for t in self.totems[p]:
                if self.components.totem(t).kind == "copy":
                    self.pending.append((COPY, p, t))
        return events

    # -- scoring --------------------------------------------------------------------------------
    def _effects(self, player: int) -> list[Totem]:
        """The player's totems and copied totems, as cards."""
        return [self.components.totem(t) for t in self.totems[player] + self.copies[player]]

    def score_sheet(self) -> list[dict[str, int]]:
        """Each player's points by heading: explorers, the five treasures, total."""
        effects = [self._effects(p) for p in range(self.num_players)]
        counts = [list(c) for c in self.counts]
        for p, es in enumerate(effects):
            for t in es:
                if t.kind == "cancel":
                    i = TREASURES.index(t.effect["treasure"])
                    counts[p][i] = max(0, counts[p][i] - t.effect["count"])
        # What is the same for every player, once (a greedy bot scores every option it weighs).
        visible = [self.visible_value(i) for i in range(len(TREASURES))]
        best = [max(column) for column in zip(*counts)]
        each = [column.scoring == "each" for column in self._columns]
        sheets = []
        for p, es in enumerate(effects):
            n = self.explorers[p]
            sheet = {"explorers": n // 2 + n * sum(t.effect["points"] for t in es
                                                     if t.kind == "explorer-points")}
            value, bonus = self._treasure_effects(visible, es)
            for i, name in enumerate(TREASURES):
                have = counts[p][i]
                if each[i]:
                    sheet[name] = have * (value[i] + bonus[i])
                else:
                    sheet[name] = (value[i] if have == best[i] and have > 0 else 0) + have * bonus[i]
            sheet["total"] = sum(sheet.values())
            sheets.append(sheet)
        return sheets

    @staticmethod
    def _treasure_effects(visible: list[int], effects: list[Totem]) -> tuple[list[int], list[int]]:
        """A player's value of each treasure (the visible chamber's, unless a totem sets it: the
        last such totem) and bonus per treasure (totems add up)."""
        value, bonus = list(visible), [0] * len(visible)
        for t in effects:
            if t.kind == "treasure-value":
                value[TREASURES.index(t.effect["treasure"])] = t.effect["points"]
            elif t.kind == "treasure-bonus":
                bonus[TREASURES.index(t.effect["treasure"])] += t.effect["points"]
        return value, bonus

    def figures(self) -> dict[str, Any]:
        """Numbers for batch analysis: treasures taken by kind, rocks placed, explorers left;
        how the game ended, once over."""
        found: dict[str, int | str] = {f"{name} taken": sum(c[i] for c in self.counts)
                                       for i, name in enumerate(TREASURES)}
        found["rocks placed"] = sum(sum(chambers) for chambers in self.covered)
        found["explorers left"] = sum(self.explorers)
        if self.is_over():
            found["ending"] = "deck"  # the only way a game ends: the last round's cards
        return found

    def scores(self) -> list[float]:
        """Points per player as the temple and hands stand now (final once the game is over)."""
        return [float(s["total"]) for s in self.score_sheet()]

    def turn_order(self) -> list[int]:
        """Turn positions of the round now: clockwise from the torch keeper, who begins on a
        tie (`cibola/setup/torch`); the send is simultaneous, so this is the order ties break."""
        return seat_order(self.torch, self.num_players)

    def winners(self) -> list[int]:
        """The most points; a tie goes to more explorers left (`cibola/end/winner`); still tied: all."""
        if not self.is_over():
            return []
        scores = self.scores()
        keys = [(scores[p], self.explorers[p]) for p in range(self.num_players)]
        best = max(keys)
        return [p for p in range(self.num_players) if keys[p] == best]

    # -- information ----------------------------------------------------------------------------
    def _public(self) -> dict[str, Any]:
        return {
            "round": self.round, "stage": self.stage, "torch": self.torch,
            "explorers": list(self.explorers), "camp": self.camp, "in_temple": list(self.in_temple),
            "row": list(self.row), "box": list(self.box),
            "sent": list(self.sent) if self.stage != SEND else None,
            "order": list(self.order), "pending": [list(d) for d in self.pending],
            "last_taker": self.last_taker,
            "hands": [list(h) for h in self.hands], "totems": [list(t) for t in self.totems],
            "copies": [list(c) for c in self.copies], "offer": list(self.offer),
            "used": list(self.used),
            "temple": {TREASURES[i]: list(c) for i, c in enumerate(self.covered)},
            "rocks_placed": self.rocks_placed, "options": self.changed_options(),
        }

    def observe(self, player: int) -> dict[str, Any]:
        """What `player` may know: everything but the deck order, the boxed totems' order and the
        other players' sealed numbers (`cibola/send/sealed`); no history (it holds sealed sends)."""
        seen = self._public()
        seen["deck"] = {"size": len(self.deck),
                        "deck_I": sum(self.components.card(c).deck == 1 for c in self.deck)}
        seen["boxed_totems"] = sorted(self.boxed_totems)
        seen["sealed"] = self.sealed.observe(player) if self.sealed else None
        return seen

    def to_dict(self) -> dict[str, Any]:
        """The whole state (hidden parts included) as JSON-able data."""
        data = self._public()
        data["deck"] = self.deck.to_json()
        data["boxed_totems"] = list(self.boxed_totems)
        data["sealed"] = self.sealed.to_json() if self.sealed else None
        # By value: a deep-copied or unpickled state holds equal components, not the same object.
        default = self.components == under_options(default_components(), self.options["temple"])
        data["components"] = None if default else self.components.data
        return data

    def _load(self, d: Mapping[str, Any]) -> None:
        """Restore the fields `to_dict` wrote."""
        self.round, self.stage, self.torch = d["round"], d["stage"], d["torch"]
        self.explorers, self.camp, self.in_temple = list(d["explorers"]), d["camp"], list(d["in_temple"])
        self.row, self.box = list(d["row"]), list(d["box"])
        self.sent = list(d["sent"]) if d["sent"] is not None else [0] * self.num_players
        self.order, self.last_taker = list(d["order"]), d["last_taker"]
        self.pending = [tuple(p) for p in d["pending"]]
        self.hands = [list(h) for h in d["hands"]]
        self.counts = [[0] * len(TREASURES) for _ in range(self.num_players)]
        for p, hand in enumerate(self.hands):
            for c in hand:
                for i, n in enumerate(self.components.card(c).counts):
                    self.counts[p][i] += n
        self.totems, self.copies = [list(t) for t in d["totems"]], [list(c) for c in d["copies"]]
        self.offer, self.used = list(d["offer"]), list(d["used"])
        self.boxed_totems = list(d["boxed_totems"])
        self.covered = [list(d["temple"][name]) for name in TREASURES]
        self.rocks_placed = d["rocks_placed"]
        self.deck = Deck.from_json(d["deck"])
        self.sealed = SealedChoices.from_json(d["sealed"]) if d["sealed"] else None
        self._set_movers()

    def clone(self) -> CibolaState:
        """An independent copy (faster than a deep copy: components are shared, immutable)."""
        c = CibolaState.__new__(CibolaState)
        c.__dict__.update(self.__dict__)
        c.deck = Deck(list(self.deck.cards))
        c.row, c.box, c.explorers = list(self.row), list(self.box), list(self.explorers)
        c.sent, c.in_temple, c.order = list(self.sent), list(self.in_temple), list(self.order)
        c.pending = list(self.pending)
        c.hands = [list(h) for h in self.hands]
        c.counts = [list(x) for x in self.counts]
        c.totems, c.copies = [list(t) for t in self.totems], [list(x) for x in self.copies]
        c.offer, c.used, c.boxed_totems = list(self.offer), list(self.used), list(self.boxed_totems)
        c.covered = [list(x) for x in self.covered]
        c.options = dict(self.options)
        c.sealed = (SealedChoices(self.sealed.players, dict(self.sealed.choices))
                    if self.sealed else None)
        c.history = list(self.history)
        return c

    def determinize(self, player: int, rng: np.random.Generator) -> CibolaState:
        """A full state consistent with `observe(player)`: each deck's unseen cards reshuffled in
        place (deck I still above deck II), other players' sealed numbers re-drawn within what
        they could send (their history entries rewritten to match)."""
        other = self.clone()
        cards = other.deck.cards
        for d in (1, 2):
            where = [i for i, c in enumerate(cards) if self.components.card(c).deck == d]
            # Sorted: what is drawn depends on the cards left, not on their true order.
            left = sorted(cards[i] for i in where)
            mixed = [left[i] for i in rng.permutation(len(where))]
            for i, c in zip(where, mixed):
                cards[i] = c
        if other.sealed:
            for q in list(other.sealed.choices):
                if q != player:
                    other._reseal(q, int(rng.integers(self.explorers[q] + 1)))
        return other

    def _reseal(self, player: int, n: int) -> None:
        """Replace `player`'s sealed number, in the sealed choices and in the history."""
        self._send_under_way().choices[player] = n
        for i in range(len(self.history) - 1, -1, -1):
            who, action, events = self.history[i]
            if who == player and action.kind == "send":
                self.history[i] = (who, _send_action(n), events)
                return


def _is_int(value: Any) -> bool:
    """True for a plain integer (not a bool, which Python counts as one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _chamber(number: Any) -> int:
    """A chamber number as written (1 = top) to an index; -1 for anything not an integer."""
    return number - 1 if _is_int(number) else -1


def _rock_action(column: int, index: int) -> PlaceRock:
    """The (shared) action placing a rock on chamber `index` (0 = top) of `column`."""
    row = _ROCKS[column]
    return row[index] if index < len(row) else PlaceRock(TREASURES[column], index + 1)


def _send_action(n: int) -> Send:
    return _SENDS[n] if 0 <= n < len(_SENDS) else Send(n)
