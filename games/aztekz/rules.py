"""The rules of Aztekz (rulebooks/aztekz.txt) as functions over a state.

Players are numbered 0 to N-1 clockwise. Each has three heroes: ``chief``, ``slave1`` and
``slave2``. Cards lie on an unbounded plane of cells ``x,y`` (north is +y) whose extent may not
exceed 5 x 5; the first card lies at ``0,0``.

A turn is a sequence of decisions, each an action with a one-line text form:

==================  =================================================================
``chief``           choose the hero to move this turn (also ``slave1``, ``slave2``)
``slave1 E``        the chosen hero steps one card across side N, E, S or W
``take sun``        the chosen slave takes one soul of that kind lying on its card
``drop``            the chosen slave leaves its whole pile on its card
``scare``           the chosen slave scares away every soul on its card; it must move on
                    and the drawn card must then be placed on that card
``give``            the chosen slave gives its pile (2 or more) to its chief, on the same card
``steal 2.slave1``  the chosen chief steals the pile of player 2's slave1 on his card
``end``             end the move phase (also without choosing a hero: no hero moves)
``place 1,-2 r1``   place the drawn card at cell 1,-2 turned 1 quarter turn clockwise
``return``          put the drawn card and soul at the bottom of their piles, face down
==================  =================================================================

The draw phase needs no decision: a turn starts with the card and soul drawn. During setup each
player in turn places a drawn card (``place``; the first at ``0,0``) with their three heroes on it.
Interpretations of the rulebook are listed in docs/assumptions/aztekz.md.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar, TypeVar

import numpy as np
import orjson

from games.aztekz import validation
from games.aztekz.components import CHIEF, HEROES, Components, load_components
from geomsim.discrete import (
    OPPOSITE,
    SIDE_NAMES,
    SIDES,
    BoundedGrid,
    Cell,
    Deck,
    neighbour,
)
from geomsim.notation import Form, Notation, one_of, whole, word
from geomsim.options import Option, Variant, declare, resolve
from geomsim.reading import DataError, convert, dumps, index, require, short
from geomsim.rules import (
    ENGINE_FORM_RULE,
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

SETUP, MOVE, PLACE, OVER = "setup", "move", "place", "over"
SIDE_OF = {name: side for side, name in SIDE_NAMES.items()}
MIDDLE: Cell = (0, 0)
T = TypeVar("T")
Moved = dict[tuple[int, int], Cell]  # (player, hero) -> a cell other than where it stands


# -- actions ------------------------------------------------------------------------------------
class AztekzAction(Action):
    """Base of the Aztekz actions: plain fields, so JSON is the fields' dict (no deep copy)."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.__dict__}


@dataclass(frozen=True)
class Select(AztekzAction):
    """Choose the hero who moves this turn, text ``slave1``."""

    kind: ClassVar[str] = "select"
    text: ClassVar[str] = "{hero}"
    hero: str

    def __post_init__(self) -> None:
        one_of(self.hero, HEROES, "hero")


@dataclass(frozen=True)
class Step(AztekzAction):
    """The chosen hero steps across a side of its card, text ``slave1 E``."""

    kind: ClassVar[str] = "step"
    text: ClassVar[str] = "{hero} {side}"
    hero: str
    side: str

    def __post_init__(self) -> None:
        one_of(self.hero, HEROES, "hero")
        one_of(self.side, _SIDE_LETTERS, "side")


@dataclass(frozen=True)
class Take(AztekzAction):
    """The chosen slave takes one soul of a kind lying on its card, text ``take sun``."""

    kind: ClassVar[str] = "take"
    text: ClassVar[str] = "take {soul}"
    soul: str

    def __post_init__(self) -> None:
        word(self.soul, "soul")


@dataclass(frozen=True)
class Drop(AztekzAction):
    """The chosen slave leaves its whole pile on its card, text ``drop``."""

    kind: ClassVar[str] = "drop"
    text: ClassVar[str] = "drop"


@dataclass(frozen=True)
class Scare(AztekzAction):
    """The chosen slave scares away every soul on its card, text ``scare``."""

    kind: ClassVar[str] = "scare"
    text: ClassVar[str] = "scare"


@dataclass(frozen=True)
class Give(AztekzAction):
    """The chosen slave gives its pile to its chief, text ``give``."""

    kind: ClassVar[str] = "give"
    text: ClassVar[str] = "give"


@dataclass(frozen=True)
class Steal(AztekzAction):
    """The chosen chief steals the pile of another player's slave, text ``steal 2.slave1``."""

    kind: ClassVar[str] = "steal"
    text: ClassVar[str] = "steal {player}.{slave}"
    player: int
    slave: str

    def __post_init__(self) -> None:
        whole(self.player, "player", 0, 3)
        one_of(self.slave, HEROES[1:], "slave")


@dataclass(frozen=True)
class End(AztekzAction):
    """End the move phase, text ``end``."""

    kind: ClassVar[str] = "end"
    text: ClassVar[str] = "end"


@dataclass(frozen=True)
class Place(AztekzAction):
    """Place the drawn card at a cell, turned clockwise by quarter turns, text ``place 1,-2 r1``."""

    kind: ClassVar[str] = "place"
    x: int
    y: int
    rotation: int

    def __post_init__(self) -> None:
        whole(self.x, "x")
        whole(self.y, "y")
        whole(self.rotation, "rotation", 0, 3)

    @property
    def cell(self) -> Cell:
        """The cell as an (x, y) tuple."""
        return (self.x, self.y)

    def __str__(self) -> str:
        return f"place {self.x},{self.y} r{self.rotation}"


@dataclass(frozen=True)
class Return(AztekzAction):
    """Put the drawn card and soul at the bottom of their piles, text ``return``."""

    kind: ClassVar[str] = "return"
    text: ClassVar[str] = "return"


_SIDE_LETTERS = tuple(SIDE_NAMES[side] for side in SIDES)  # N E S W, as the text writes them
ACTION_TYPES = (Select, Step, Take, Drop, Scare, Give, Steal, End, Place, Return)
ACTION_OF_KIND = {a.kind: a for a in ACTION_TYPES}
_HERO_FORM = Form("chief | slave1 | slave2 [N|E|S|W]", r"(chief|slave1|slave2)(?: ([NESW]))?",
                  lambda m: Step(m[1], m[2]) if m[2] else Select(m[1]))
NOTATION = Notation("aztekz", {
    "chief": _HERO_FORM, "slave1": _HERO_FORM, "slave2": _HERO_FORM,
    "take": Form("take KIND", r"take (\S+)", lambda m: Take(m[1])),
    "drop": Form("drop", r"drop", lambda m: Drop()),
    "scare": Form("scare", r"scare", lambda m: Scare()),
    "give": Form("give", r"give", lambda m: Give()),
    "steal": Form("steal P.slave1|slave2", r"steal (\d{1,12})\.(slave1|slave2)",
                  lambda m: Steal(int(m[1]), m[2])),
    "end": Form("end", r"end", lambda m: End()),
    "place": Form("place X,Y rR (R 0-3)", r"place (-?\d{1,12}),(-?\d{1,12}) r([0-3])",
                  lambda m: Place(int(m[1]), int(m[2]), int(m[3]))),
    "return": Form("return", r"return", lambda m: Return()),
})


# -- rules ----------------------------------------------------------------------------------------
def _rule(rid: str, section: str, text: str, enforcer: str) -> Rule:
    return Rule(f"aztekz/{rid}", section, " ".join(text.split()), f"games.aztekz.rules:{enforcer}")


RULES: dict[str, Rule] = {r.id: r for r in (
    _rule("setup/first-middle", "Setting Up", "The first player draws a pyramid card and places it in "
          "the middle of the play area.", "AztekzState._place_problems"),
    _rule("setup/heroes", "Setting Up", "He places his three heroes on it. Each other player does "
          "the same, but the cards must be placed according to the rules.", "AztekzState._place"),
    _rule("turn/clockwise", "Setting Up", "Players take turns in clockwise order.",
          "AztekzState._next_turn"),
    _rule("turn/phases", "Playing the Game", "A player's turn always consists of three phases: "
          "draw, move a hero, place a pyramid card.", "AztekzState._phase_problems"),
    _rule("draw/card-and-soul", "1. Draw", "The player draws a pyramid card and a soul piece. He "
          "places them face up in front of him, with the soul piece on the pyramid card.",
          "AztekzState._draw"),
    _rule("move/one-hero", "2. Move a Hero", "The player may move one of his three heroes: either "
          "the chief or one of the slaves.", "AztekzState._hero_problems"),
    _rule("move/walls", "2. Move a Hero", "Each hero may only move along the paths inside the "
          "labyrinth. It may not cross a wall, even if there is a passage on the other side.",
          "AztekzState._step_problems"),
    _rule("move/capacity", "2. Move a Hero", "Up to four heroes (or heroes carrying soul pieces "
          "underneath them) may stand on one pyramid card.", "AztekzState._step_problems"),
    _rule("move/chief-one-step", "The chief", "May only move one step (up to the next pyramid "
          "card).", "AztekzState._step_problems"),
    _rule("move/slave-three-steps", "A slave", "May move up to three steps, but may move fewer if "
          "desired.", "AztekzState._step_problems"),
    _rule("steal/chief-only", "The chief", "Before or after his move, he may steal souls.",
          "AztekzState._steal_problems"),
    _rule("steal/once", "The chief", "Before or after his move, he may steal souls (read as: "
          "once a turn; the number is thefts_per_turn).", "AztekzState._steal_problems"),
    _rule("steal/where", "The chief", "He must stand on a pyramid card with a slave (of another "
          "colour).", "AztekzState._steal_problems"),
    _rule("steal/chief-away", "The chief", "... whose chief is elsewhere (i.e. not on the same "
          "pyramid card).", "AztekzState._steal_problems"),
    _rule("steal/two-or-more", "The chief", "... and which carries at least two souls.",
          "AztekzState._steal_problems"),
    _rule("piles/never-merge", "The chief", "Stealing souls means taking the souls from the other "
          "slave and placing them in front of you in a pile. Piles may not be merged, even if the "
          "same type of soul is collected later.", "AztekzState._bank"),
    _rule("slave/actions", "A slave", "At the start, during, or at the end of its move, it may take "
          "souls, drop souls, scare souls away, or give souls to its chief.",
          "AztekzState._slave_problems"),
    _rule("take/from-card", "A slave", "It may take the soul piece on this pyramid card (placing it "
          "under itself and moving with it).", "AztekzState._take_problems"),
    _rule("take/same-kind", "A slave", "If it wants to carry more than one piece, they must be of "
          "the same type.", "AztekzState._take_problems"),
    _rule("take/not-dropped", "Assumption", "Souls of a kind a slave dropped on a card this turn "
          "stay on that card until the turn ends (so that a move cannot loop forever); other "
          "souls there may be taken (dropping is useful for taking another type of soul).",
          "AztekzState._take_problems"),
    _rule("drop/whole-pile", "A slave", "The slave simply leaves the entire pile of souls on the "
          "pyramid card and moves on.", "AztekzState._drop_problems"),
    _rule("scare/all-souls", "A slave", "Scaring souls away: remove all souls on this pyramid card, "
          "even the souls you are carrying. Turn them face down with the others.",
          "AztekzState._scare_problems"),
    _rule("scare/move-on-and-cover", "A slave", "This is only allowed when you continue your move "
          "to another pyramid card and then place a new pyramid card on the one from which you "
          "removed the souls.", "AztekzState._commitment_problems"),
    _rule("give/same-card", "A slave", "When your chief stands on the same pyramid card as your "
          "slave, you may give him your pile of souls.", "AztekzState._give_problems"),
    _rule("give/two-or-more", "A slave", "You must obviously be carrying at least two soul pieces.",
          "AztekzState._give_problems"),
    _rule("place/connect", "3. Place a Pyramid Card", "When placing a pyramid card, at least one "
          "of its paths must connect to an adjacent card.", "AztekzState._place_problems"),
    _rule("place/bound", "3. Place a Pyramid Card", "The complete pyramid area may not exceed 5 x 5 "
          "cards.", "AztekzState._place_problems"),
    _rule("place/cover-empty", "3. Place a Pyramid Card", "You may place a pyramid card on top of "
          "another card provided that it is empty, i.e. it contains no souls and no heroes.",
          "AztekzState._place_problems"),
    _rule("place/chiefs", "3. Place a Pyramid Card", "When placing a pyramid card, you may not cut "
          "a chief off from its two slaves. At least one path must lead each chief to at least "
          "one of its slaves.", "AztekzState._cut_off"),
    _rule("place/soul", "3. Place a Pyramid Card", "When placing the pyramid card, you place the "
          "soul piece you drew on it.", "AztekzState._place"),
    _rule("place/compulsory", "3. Place a Pyramid Card", "If the pyramid card cannot be placed, it "
          "is returned face down to the bottom of the draw pile; the same goes for the soul piece. "
          "Placing cards is only mandatory as long as the 5 x 5 grid is not complete.",
          "AztekzState._return_problems"),
    _rule("end/last-card", "End of the Game", "The game ends as soon as the last pyramid card is "
          "placed. Immediately.", "AztekzState._next_turn"),
    _rule("end/stall", "Assumption", "The game also ends after stall_limit turns in a row in which "
          "no card was placed (the rulebook is silent on a game that cannot end).",
          "AztekzState._next_turn"),
    _rule("score/piles", "End of the Game", "A pile of two identical soul pieces scores 1 point, "
          "three 2, four 3: the number of soul pieces minus one.", "AztekzState.scores"),
    _rule("score/tie", "End of the Game", "The player with the most points wins the game. In case "
          "of a tie, the tied player with the most soul pieces collected wins.",
          "AztekzState.winners"),
)}


# -- options: what a designer may change (geomsim.options) ---------------------------------------
# How a pile of n identical souls scores (`aztekz/score/piles`): the rulebook's n - 1, or others.
PILE_SCORINGS: dict[str, Callable[[int], int]] = {
    "size-1": lambda n: n - 1,
    "size": lambda n: n,
    "triangular": lambda n: n * (n - 1) // 2,
    "square": lambda n: (n - 1) ** 2,
}
# Options that are component numbers (components.json): an option sets the component, and a
# component set by a setup's ``components`` is the option in force.
COMPONENT_OPTIONS = {"grid_size": "grid_size", "heroes_per_card": "max_heroes_per_card",
                     "slave_steps": "slave_steps"}

OPTIONS, VARIANTS = declare([
    Option("grid_size", int, 5, "the pyramid's bound: at most N x N cards (7 at most: the "
           "compiled player's action codes)", ("aztekz/place/bound", "aztekz/place/compulsory"),
           low=2, high=7),
    Option("heroes_per_card", int, 4, "heroes that may stand on one pyramid card (a player's "
           "three start together)", ("aztekz/move/capacity",), low=3, high=12),
    Option("slave_steps", int, 3, "steps a slave may move in a turn", ("aztekz/move/slave-three-steps",),
           low=1, high=8),
    Option("pile_scoring", str, "size-1", "points of a pile of n souls: n - 1 (the rulebook), n, "
           "n(n - 1)/2 (triangular) or (n - 1)^2 (square)", ("aztekz/score/piles",),
           choices=tuple(PILE_SCORINGS)),
    Option("placement_mandatory", bool, True, "a card that can be placed must be placed while "
           "the N x N grid is not complete (false: a player may always return it)",
           ("aztekz/place/compulsory",)),
], [
    Variant("big-pyramid", {"grid_size": 6}, "a 6 x 6 pyramid"),
    Variant("free-placement", {"placement_mandatory": False}, "placing a card is never compulsory"),
])


def pile_points(n: int, scoring: str) -> int:
    """The points of a pile of `n` identical souls (`aztekz/score/piles`, option pile_scoring)."""
    return PILE_SCORINGS[scoring](n)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _v(rule: str, message: str, **details: Any) -> Violation:
    return Violation(f"aztekz/{rule}", message, details)


@cache
def key(cell: Cell) -> str:
    """A cell as text ``x,y``."""
    return f"{cell[0]},{cell[1]}"


def cell_of(text: str) -> Cell:
    """The cell written by `key`."""
    x, y = text.split(",")
    return (int(x), int(y))


# -- the game -------------------------------------------------------------------------------------
def _pile_on_top(given: Any, drawn: list[T], field: str, problem: str) -> list[T]:
    """`given` on top of the rest of `drawn` (the seeded order): a setup may fix only the top
    of a pile. `DataError` naming the item of `field` that is not part of the pile."""
    if given is None:
        return list(drawn)
    rest = list(drawn)
    for i, item in enumerate(given):
        if isinstance(item, bool) or item not in rest:
            raise DataError(f"{field}[{i}]", f"{problem}; {short(item)} is not left to place")
        rest.remove(item)
    return list(given) + rest


def _with_component_options(components: Any, chosen: Mapping[str, Any]) -> Any:
    """A setup's component overrides with the component options of `chosen` (each checked:
    `DataError` naming the option and its allowed values) laid over them."""
    values = resolve(OPTIONS, chosen)
    found = {COMPONENT_OPTIONS[n]: values[n] for n in chosen if n in COMPONENT_OPTIONS}
    if not found:
        return components
    if components is not None and not isinstance(components, Mapping):
        raise DataError("components", f"expected an object of overrides, got {short(components)}")
    return {**(components or {}), **found}


def options_in_force(comp: Components, chosen: Mapping[str, Any]) -> dict[str, Any]:
    """Every option's value: `chosen` over the defaults, the component options as `comp` has them."""
    values = resolve(OPTIONS, chosen)
    values.update({n: getattr(comp, c) for n, c in COMPONENT_OPTIONS.items()})
    return values


class AztekzGame(Game):
    """Aztekz: 2 to 4 players lead their heroes through a labyrinth of pyramid cards to collect souls."""

    name = "aztekz"
    min_players = 2
    max_players = 4
    rules = RULES
    action_types = ACTION_TYPES
    hidden_information = True  # the order of the draw pile and of the face-down souls
    playout_requires = ("numba",)

    options, variants = OPTIONS, VARIANTS

    def make_setup(self, players: int, seed: int, options: Mapping[str, Any] | None = None,
                   components: dict[str, Any] | None = None) -> dict[str, Any]:
        """A random setup: shuffled deck (card ids, top first), shuffled souls, first player;
        `options` (checked) written with it."""
        self.check_players(players)
        chosen = dict(options or {})
        resolve(OPTIONS, chosen)
        comp = load_components(components)
        rng = np.random.default_rng(seed)
        souls = comp.souls()
        setup = {
            "players": players,
            "first": int(rng.integers(players)),
            "deck": [int(i) for i in rng.permutation(comp.cards)],
            "souls": [souls[i] for i in rng.permutation(len(souls))],
        }
        if components is not None:
            setup["components"] = components
        if chosen:
            setup["options"] = chosen
        return setup

    def new_state(self, players: int, seed: int | None = None, setup: Any = None,
                  options: Mapping[str, Any] | None = None) -> AztekzState:
        """A state at the start of setup, from `seed` or an explicit `setup` (see `make_setup`),
        under `options` laid over the setup's."""
        self.check_players(players)
        seed = 0 if seed is None else seed
        given = setup is not None
        setup = setup if given else self.make_setup(players, seed)
        if not isinstance(setup, dict):
            raise DataError("setup", f"expected an object, got {type(setup).__name__}")
        if given:
            convert(setup, validation.SetupDoc)
        chosen = {**(setup.get("options") or {}), **(options or {})}
        comp = load_components(_with_component_options(setup.get("components"), chosen))
        require(setup.get("players", players) == players, "players",
                f"the setup is for {short(setup.get('players'))} players, not {players}")
        # What a given setup leaves out comes from the seeded random setup.
        drawn = self.make_setup(players, seed, components=setup.get("components")) if given else setup
        first = setup.get("first", drawn["first"])
        index(first, players, "first", "player")
        deck = _pile_on_top(setup.get("deck"), drawn["deck"], "deck",
                            f"card ids 0 to {comp.cards - 1}, each at most once")
        souls = _pile_on_top(setup.get("souls"), drawn["souls"], "souls",
                             f"soul pieces, at most {comp.souls_per_kind} of each of "
                             f"{', '.join(comp.soul_kinds)}")
        state = AztekzState(self, comp, players, first)
        state.options = options_in_force(comp, chosen)
        state.deck = Deck(list(deck))
        state.supply = Deck(list(souls))
        state._draw(soul=False)
        validation.check_made(state)  # what is accepted reads back
        return state

    def parse_action(self, text: str) -> Action:
        """The action written in text form (see the module docstring)."""
        return NOTATION.parse(text)

    def action_from_json(self, obj: Any) -> Action:
        """The action that `Action.to_json` wrote; `DataError` naming the field otherwise."""
        kind = obj.get("kind") if isinstance(obj, dict) else None
        kind = ACTION_OF_KIND.get(kind) if isinstance(kind, str) else None
        return super().action_from_json(obj) if kind is None else kind.from_json(obj)

    def state_from_json(self, text: str) -> AztekzState:
        """The state that `AztekzState.to_json` wrote (the history read when first used)."""
        data, history = read_state_json(text, validation.StateDoc, "aztekz state")
        validation.check_counts(data)
        comp = load_components(_with_component_options(data["components"], data["options"]))
        state = AztekzState.from_dict(self, data, comp)
        validation.check_state(state)
        state._history_from_json(data, history)
        return state


# -- the state ------------------------------------------------------------------------------------
class AztekzState(State):
    """A moment of Aztekz: labyrinth, heroes, souls, piles, the hidden draw piles and the turn."""

    def __init__(self, game: AztekzGame, comp: Components, players: int, first: int):
        self.game, self.comp, self.num_players, self.first = game, comp, players, first
        self.history = []
        self.grid = BoundedGrid(comp.grid_size)
        self.stacks: dict[Cell, list[int]] = {}     # card ids per cell, the visible one last
        self.loose: dict[Cell, list[str]] = {}      # souls lying on a card (no empty lists)
        self.pos: list[list[Cell | None]] = [[None] * 3 for _ in range(players)]
        self.carry: list[list[tuple[str, int] | None]] = [[None] * 3 for _ in range(players)]
        self.piles: list[list[tuple[str, int]]] = [[] for _ in range(players)]
        self.deck: Deck[int] = Deck()
        self.supply: Deck[str] = Deck()
        self.deck_known = 0    # cards at the bottom of the deck that everyone saw returned
        self.supply_known = 0  # souls at the bottom of the supply that everyone saw go there
        self.turn = first
        self.phase = SETUP
        self.start_cards = 0   # start cards placed so far
        self.card: int | None = None
        self.soul: str | None = None
        self.hero: int | None = None
        self.steps = 0
        self.thefts = 0
        self.scare: Cell | None = None
        self.dropped: list[tuple[Cell, str]] = []  # (card, soul kind) dropped this turn
        self.stall = 0         # turns in a row without a placed card
        # Facts about the labyrinth alone (frontier, components), dropped whenever a card is
        # placed; clones may share it because it is replaced, never cleared, on a change.
        self._cache: dict[Any, Any] = {}

    # -- simple queries ---------------------------------------------------------------------
    def heroes_at(self, cell: Cell) -> list[tuple[int, int]]:
        """The (player, hero) pairs standing on `cell`."""
        return [(p, h) for p, row in enumerate(self.pos) for h, c in enumerate(row) if c == cell]

    def hero_counts(self) -> dict[Cell, int]:
        """How many heroes stand on each card that holds any."""
        found: dict[Cell, int] = {}
        for row in self.pos:
            for c in row:
                if c is not None:
                    found[c] = found.get(c, 0) + 1
        return found

    def souls_on(self, cell: Cell) -> int:
        """How many souls are on a card: lying there or carried by heroes there."""
        carried = sum(c[1] for p, h in self.heroes_at(cell) if (c := self.carry[p][h]))
        return len(self.loose.get(cell, ())) + carried

    def _facing(self, cell: Cell) -> int:
        """The sides of `cell` beyond which a placed card has an open side facing it."""
        cells, found = self.grid.cells, 0
        for side in SIDES:
            other = cells.get(neighbour(cell, side))
            if other is not None and other & OPPOSITE[side]:
                found |= side
        return found

    def _mover(self, player: int) -> tuple[int, Cell]:
        """The hero of `player` chosen this turn and the card it stands on: asked only once a
        hero is chosen, in play, where every hero stands on a card."""
        hero = self.hero
        assert hero is not None, "no hero is chosen"
        here = self.pos[player][hero]
        assert here is not None, "every hero stands on a card in play"
        return hero, here

    def _drawn(self) -> int:
        """The drawn card: every phase but the end of the game has one."""
        assert self.card is not None, "no card is drawn"
        return self.card

    # -- the turn -----------------------------------------------------------------------------
    def to_move(self) -> tuple[int, ...]:
        return () if self.phase == OVER else (self.turn,)

    def _draw(self, soul: bool = True) -> list[Event]:
        """Rule ``aztekz/draw/card-and-soul``: the mover draws a card and (in play) a soul."""
        self.card = self.deck.draw_one()
        self.deck_known = min(self.deck_known, len(self.deck))
        self.soul = None
        if soul and len(self.supply):  # an empty supply gives no soul (assumption)
            self.soul = self.supply.draw_one()
            self.supply_known = min(self.supply_known, len(self.supply))
        return [Event("drew", self.turn, {"card": self.card, "soul": self.soul})]

    def _next_turn(self, placed: bool) -> list[Event]:
        """Rules ``aztekz/end/last-card``, ``aztekz/end/stall``, ``aztekz/turn/clockwise``."""
        self.stall = 0 if placed else self.stall + 1
        self.card = self.soul = self.hero = self.scare = None
        self.steps = self.thefts = 0
        self.dropped = []
        limit = self.comp.stall_limit
        if (placed and not len(self.deck)) or (limit is not None and self.stall >= limit):
            self.phase = OVER
            return [Event("game-over", None, {"scores": self.scores(), "winners": self.winners()})]
        if self.phase == SETUP:
            if placed:
                self.start_cards += 1
                self.turn = (self.turn + 1) % self.num_players
            if self.start_cards < self.num_players:
                return self._draw(soul=False)
        else:
            self.turn = (self.turn + 1) % self.num_players
        self.phase = MOVE
        return self._draw()

    # -- legal actions ------------------------------------------------------------------------
    def _legal_actions(self, player: int) -> ActionSpace:
        if self.phase == MOVE:
            return FiniteActionSpace(a for a in self._move_candidates(player)
                                     if not self._violations(a, player))
        places = self.placements()
        free = self.grid.is_full() or not self.options["placement_mandatory"]
        if not places or (self.phase == PLACE and free and self.scare is None):
            places.append(Return())
        return FiniteActionSpace(places)

    def _move_candidates(self, player: int) -> list[Action]:
        """Well-formed move-phase actions worth checking (a superset of the legal ones)."""
        if self.hero is None:
            return [Select(h) for h in HEROES] + [End()]
        hero, here = self._mover(player)
        name = HEROES[hero]
        found: list[Action] = [Step(name, SIDE_NAMES[s]) for s in SIDES
                               if self.grid.open_between(here, s)]
        if hero == CHIEF:
            found += [Steal(p, HEROES[h]) for p, h in self.heroes_at(here) if h != CHIEF]
        else:
            found += [Take(k) for k in sorted(set(self.loose.get(here, ())))]
            found += [Drop(), Scare(), Give()]
        return found + [End()]

    def placements(self) -> list[Action]:
        """The legal placements of the drawn card, one per distinct orientation of each cell."""
        if self.phase == SETUP and not self.grid.cells:
            return [Place(0, 0, r) for r, _ in self.comp.orientations[self._drawn()]]
        if self.scare is not None:
            cells = [self.scare]
        else:
            # Only an empty card may be covered: skip the others before checking them. Cells in
            # sorted order, not the grid's (a state read from JSON holds them in another).
            occupied = self.hero_counts()
            cells = self._frontier() + [c for c in sorted(self.grid.cells)
                                            if c not in self.loose and c not in occupied]
        return [Place(cell[0], cell[1], r) for cell in cells for r in self._rotations_at(cell)]

    def _frontier(self) -> list[Cell]:
        """The empty cells next to a card within the 5 x 5 bound (cached per labyrinth)."""
        found: list[Cell] | None = self._cache.get("frontier")
        if found is None:
            found = self._cache["frontier"] = self.grid.frontier()
        return found

    def _bounds(self) -> tuple[int, int, int, int] | None:
        """`grid.bounds()`, cached per labyrinth."""
        if "bounds" not in self._cache:
            self._cache["bounds"] = self.grid.bounds()
        bounds: tuple[int, int, int, int] | None = self._cache["bounds"]
        return bounds

    def _labels(self, cell: Cell, mask: int) -> dict[Cell, Cell]:
        """Each card's connected component (named by one of its cells) with `mask` at `cell`."""
        found: dict[Cell, Cell] | None = self._cache.get((cell, mask))
        if found is None:
            cells = self.grid.with_cell(cell, mask)
            found = self._cache[(cell, mask)] = {}
            for start in cells:
                if start not in found:
                    found.update(dict.fromkeys(self.grid.distances(start, cells=cells), start))
        return found

    def _rotations_at(self, cell: Cell, moved: Moved | None = None, scared: bool = False) -> list[int]:
        """The rotations of the drawn card that may be placed at `cell` (distinct orientations)."""
        facing = self._facing(cell)
        options = [(r, m) for r, m in self.comp.orientations[self._drawn()] if m & facing]
        if not options:
            return []
        # With every side walled the card cuts the most paths: if no chief is cut off then,
        # no orientation cuts one, and the per-orientation search is skipped.
        safe = cell not in self.grid.cells or not self._cut_off(cell, 0, moved or {})
        return [r for r, m in options if not self._place_problems(cell, m, moved, scared, safe)]

    # -- violations ---------------------------------------------------------------------------
    def _violations(self, action: Action, player: int) -> list[Violation]:
        found = self._phase_problems(action)
        if found:
            return found
        return _CHECKS[type(action)](self, action, player)

    def _phase_problems(self, action: Action) -> list[Violation]:
        """Rule ``aztekz/turn/phases``: move actions in the move phase, placing in the place phase."""
        placing = isinstance(action, (Place, Return))
        if placing == (self.phase == MOVE):
            return [_v("turn/phases", f"{action.kind} is not allowed in the {self.phase} phase",
                       phase=self.phase)]
        return []

    def _hero_problems(self, action: Select, player: int) -> list[Violation]:
        """Rule ``aztekz/move/one-hero``: one hero is chosen, once a turn."""
        if action.hero not in HEROES:
            return [Violation(ENGINE_FORM_RULE, f"unknown hero {action.hero!r} (chief, slave1, slave2)")]
        if self.hero is not None:
            return [_v("move/one-hero", f"{HEROES[self.hero]} already moves this turn; only one "
                       "hero moves", chosen=HEROES[self.hero])]
        return []

    def _chosen(self, hero: str | None = None) -> list[Violation]:
        """Rule ``aztekz/move/one-hero``: an action of a hero needs that hero chosen."""
        if self.hero is None:
            return [_v("move/one-hero", "choose a hero first (chief, slave1 or slave2)")]
        if hero is not None and hero != HEROES[self.hero]:
            return [_v("move/one-hero", f"{HEROES[self.hero]} moves this turn, not {hero}",
                       chosen=HEROES[self.hero])]
        return []

    def _step_problems(self, action: Step, player: int) -> list[Violation]:
        """Rules ``aztekz/move/walls``, ``capacity``, ``chief-one-step``, ``slave-three-steps``."""
        if action.hero not in HEROES or action.side not in SIDE_NAMES.values():
            return [Violation(ENGINE_FORM_RULE, f"malformed step {action}")]
        found = self._chosen(action.hero)
        if found:
            return found
        _, here = self._mover(player)
        side = SIDE_OF[action.side]
        there = neighbour(here, side)
        if self.hero == CHIEF and self.steps >= self.comp.chief_steps:
            found.append(_v("move/chief-one-step", f"the chief has made his "
                            f"{self.comp.chief_steps} step(s)", steps=self.steps))
        if self.hero != CHIEF and self.steps >= self.comp.slave_steps:
            found.append(_v("move/slave-three-steps", f"the slave has made its "
                            f"{self.comp.slave_steps} steps", steps=self.steps))
        if not self.grid.open_between(here, side):
            why = "no card there" if there not in self.grid else "a wall is in the way"
            found.append(_v("move/walls", f"no open path from {key(here)} to the {action.side}: "
                            f"{why}", cell=key(here), side=action.side))
        elif len(self.heroes_at(there)) >= self.comp.max_heroes_per_card:
            found.append(_v("move/capacity", f"card {key(there)} already holds "
                            f"{self.comp.max_heroes_per_card} heroes", cell=key(there)))
        if not found and self.scare is not None:
            found += self._commitment_problems(player, there, self.steps + 1, self.scare)
        return found

    def _slave_problems(self, action: Action) -> list[Violation]:
        """Rule ``aztekz/slave/actions``: soul actions belong to a chosen slave."""
        found = self._chosen()
        if not found and self.hero == CHIEF:
            found.append(_v("slave/actions", f"only a slave may {action.kind}; the chief moves"))
        return found

    def _take_problems(self, action: Take, player: int) -> list[Violation]:
        """Rules ``aztekz/take/from-card``, ``take/same-kind``, ``take/not-dropped``."""
        found = self._slave_problems(action)
        if found:
            return found
        hero, here = self._mover(player)
        carried = self.carry[player][hero]
        if action.soul not in self.loose.get(here, ()):
            found.append(_v("take/from-card", f"no {action.soul} soul lies on card {key(here)}",
                            lying=list(self.loose.get(here, ()))))
        if carried and carried[0] != action.soul:
            found.append(_v("take/same-kind", f"the slave carries {carried[0]}, not {action.soul}",
                            carried=carried[0]))
        if (here, action.soul) in self.dropped:
            found.append(_v("take/not-dropped", f"{action.soul} souls were dropped on {key(here)} "
                            "this turn", cell=key(here), soul=action.soul))
        return found

    def _drop_problems(self, action: Drop, player: int) -> list[Violation]:
        """Rule ``aztekz/drop/whole-pile``: only a slave that carries souls drops them."""
        found = self._slave_problems(action)
        if found:
            return found
        hero, here = self._mover(player)
        if not self.carry[player][hero]:
            return [_v("drop/whole-pile", "the slave carries no souls")]
        if self.scare == here:
            found.append(_v("scare/move-on-and-cover", "the scared card must stay empty for the "
                            "card to be placed on it", cell=key(self.scare)))
        return found

    def _scare_problems(self, action: Scare, player: int) -> list[Violation]:
        """Rules ``aztekz/scare/all-souls`` and ``aztekz/scare/move-on-and-cover``."""
        found = self._slave_problems(action)
        if found:
            return found
        hero, here = self._mover(player)
        if self.scare is not None:
            return [_v("scare/move-on-and-cover", f"souls were already scared from "
                       f"{key(self.scare)}; the card goes there", cell=key(self.scare))]
        if not self.souls_on(here):
            return [_v("scare/all-souls", f"no souls on card {key(here)} to scare away")]
        others = [f"{p}.{HEROES[h]}" for p, h in self.heroes_at(here) if (p, h) != (player, hero)]
        if others:
            return [_v("scare/move-on-and-cover", f"{', '.join(others)} stand on {key(here)}: "
                       "the card could not be placed on it", heroes=others)]
        return self._commitment_problems(player, here, self.steps, here)

    def _give_problems(self, action: Give, player: int) -> list[Violation]:
        """Rules ``aztekz/give/same-card`` and ``aztekz/give/two-or-more``."""
        found = self._slave_problems(action)
        if found:
            return found
        hero, here = self._mover(player)
        if self.pos[player][CHIEF] != here:
            found.append(_v("give/same-card", f"the chief is on {key(self.pos[player][CHIEF])}, "
                            f"not on {key(here)}"))
        carried = self.carry[player][hero]
        if not carried or carried[1] < 2:
            found.append(_v("give/two-or-more", "the slave must carry at least two souls",
                            carried=carried[1] if carried else 0))
        return found

    def _steal_problems(self, action: Steal, player: int) -> list[Violation]:
        """Rules ``aztekz/steal/*``: a chief robs another colour's slave whose chief is away."""
        if (action.slave not in ("slave1", "slave2") or not _is_int(action.player)
                or not 0 <= action.player < self.num_players):
            return [Violation(ENGINE_FORM_RULE, f"no slave {action.player}.{action.slave}")]
        found = self._chosen("chief")
        if found:
            return [_v("steal/chief-only", "only the chosen chief steals souls")]
        victim, slave = action.player, HEROES.index(action.slave)
        here = self.pos[player][CHIEF]
        if self.thefts >= self.comp.thefts_per_turn:
            found.append(_v("steal/once", f"the chief has stolen {self.thefts} time(s) this turn",
                            limit=self.comp.thefts_per_turn))
        if victim == player:
            found.append(_v("steal/where", "a chief steals only from a slave of another colour"))
        elif self.pos[victim][slave] != here:
            found.append(_v("steal/where", f"{action.player}.{action.slave} is not on {key(here)}",
                            slave_at=key(self.pos[victim][slave])))
        elif self.pos[victim][CHIEF] == here:
            found.append(_v("steal/chief-away", f"the chief of player {victim} is on the same card"))
        carried = self.carry[victim][slave]
        if not carried or carried[1] < 2:
            found.append(_v("steal/two-or-more", "the slave must carry at least two souls",
                            carried=carried[1] if carried else 0))
        return found

    def _end_problems(self, action: End, player: int) -> list[Violation]:
        """Rule ``aztekz/scare/move-on-and-cover``: after a scare the slave must have moved on."""
        if self.scare is None:
            return []
        return self._commitment_problems(player, self._mover(player)[1], None, self.scare)

    def _commitment_problems(self, player: int, at: Cell, steps: int | None,
                             target: Cell) -> list[Violation]:
        """Rule ``aztekz/scare/move-on-and-cover`` for a slave that is (or will be) at `at`.

        After a scare the slave must end its move on another card and the drawn card must then be
        placed on the scared one, `target`. `steps` is how many steps the slave will have made at
        `at` (None: the move ends there). Legal when some way to finish the move keeps that possible.
        """
        hero, _ = self._mover(player)
        left = 0 if steps is None else self.comp.slave_steps - steps
        moved = False
        for end in self._reachable(player, at, left):
            if end != target:
                moved = True
                if self._rotations_at(target, {(player, hero): end}, scared=True):
                    return []
        if not moved:
            why = f"the slave cannot move on from {key(target)}"
        else:
            why = f"the drawn card could then not be placed on {key(target)}"
        return [_v("scare/move-on-and-cover", why, cell=key(target))]

    def _reachable(self, player: int, start: Cell, steps: int) -> Iterator[Cell]:
        """The cards the chosen hero could reach from `start` in up to `steps` steps, nearest
        first (lazily: callers stop at the first that suits), never through a full card."""
        counts = self.hero_counts()
        counts[self._mover(player)[1]] -= 1  # the hero itself moves on
        full = self.comp.max_heroes_per_card
        dist, queue = {start: 0}, deque([start])
        while queue:
            here = queue.popleft()
            yield here
            if dist[here] < steps:
                for there in self.grid.steps(here):
                    if there not in dist and counts.get(there, 0) < full:
                        dist[there] = dist[here] + 1
                        queue.append(there)

    def _placement_problems(self, action: Place, player: int) -> list[Violation]:
        """Rules of placing, for a Place action (see `_place_problems`)."""
        if not all(_is_int(v) for v in (action.x, action.y, action.rotation)):
            return [Violation(ENGINE_FORM_RULE, f"place needs whole numbers, not {action!r}")]
        if not 0 <= action.rotation <= 3:
            return [Violation(ENGINE_FORM_RULE, f"rotation must be 0 to 3, not {action.rotation}")]
        cell = action.cell
        if self.scare is not None and cell != self.scare:
            return [_v("scare/move-on-and-cover", f"souls were scared from {key(self.scare)}: the "
                       f"card must be placed there, not on {key(cell)}", cell=key(self.scare))]
        return self._place_problems(cell, self.comp.sides(self._drawn(), action.rotation))

    def _place_problems(self, cell: Cell, mask: int, moved: Moved | None = None,
                        scared: bool = False, chiefs_safe: bool = False) -> list[Violation]:
        """Every placing rule that the drawn card with open sides `mask` at `cell` breaks.

        `moved` maps (player, hero) to a position other than the current one (for looking ahead
        after a scare); `scared` treats `cell` as emptied of its souls; `chiefs_safe` says the
        caller knows that no chief is cut off.
        """
        if self.phase == SETUP and not self.grid.cells:
            if cell != MIDDLE:
                return [_v("setup/first-middle", f"the first card goes in the middle, {key(MIDDLE)}",
                           cell=key(cell))]
            return []
        found = []
        if not self.grid.within_bound(cell, self._bounds()):
            found.append(_v("place/bound", f"a card at {key(cell)} would make the pyramid area "
                            f"larger than {self.comp.grid_size} x {self.comp.grid_size}",
                            cell=key(cell), bounds=self.grid.bounds()))
        covering = cell in self.grid.cells
        if covering:
            heroes = [ph for ph in self.heroes_at(cell) if not moved or ph not in moved]
            heroes += [ph for ph, c in (moved or {}).items() if c == cell]
            souls = 0 if scared else len(self.loose.get(cell, ()))
            if heroes or souls:
                found.append(_v("place/cover-empty", f"card {key(cell)} holds {len(heroes)} "
                                f"hero(es) and {souls} soul(s)", heroes=len(heroes), souls=souls))
        if not mask & self._facing(cell):
            found.append(_v("place/connect", f"no path of the card at {key(cell)} meets an open "
                            "side of an adjacent card", cell=key(cell)))
        # A new card only adds paths: only covering a card can cut a chief off.
        if covering and not found and not chiefs_safe:
            cut = self._cut_off(cell, mask, moved or {})
            if cut:
                found.append(_v("place/chiefs", f"the chief of player(s) {cut} would be cut off "
                                "from both slaves", players=cut))
        return found

    def _cut_off(self, cell: Cell, mask: int, moved: Moved) -> list[int]:
        """Rule ``aztekz/place/chiefs``: players whose chief reaches neither slave with `mask` at `cell`."""
        where = [[moved.get((p, h), self.pos[p][h]) for h in range(3)] for p in range(self.num_players)]
        # A chief on a slave's card is never cut off; if every chief is, skip the search.
        apart = [p for p, (chief, *slaves) in enumerate(where) if chief not in slaves]
        if not apart:
            return []
        labels = self._labels(cell, mask)
        # Heroes not placed yet (all three of a player: None) are never apart.
        return [p for p in apart if (chief := where[p][0]) is not None
                and labels[chief] not in {labels[c] for c in where[p][1:] if c is not None}]

    def _return_problems(self, action: Return, player: int) -> list[Violation]:
        """Rule ``aztekz/place/compulsory``: return only an unplaceable card, or any once 5 x 5 show."""
        if self.scare is not None:
            return [_v("scare/move-on-and-cover", f"souls were scared from {key(self.scare)}: the "
                       "card must be placed there", cell=key(self.scare))]
        if self.phase == PLACE and (self.grid.is_full() or not self.options["placement_mandatory"]):
            return []
        options = self.placements()
        if options:
            return [_v("place/compulsory", f"the card can be placed ({len(options)} ways, e.g. "
                       f"{options[0]}); placing is compulsory until {self.comp.grid_size} x "
                       f"{self.comp.grid_size} cards show"
                       + self.option_note("grid_size", "placement_mandatory"), ways=len(options))]
        return []

    # -- applying -----------------------------------------------------------------------------
    def _apply(self, action: Action, player: int) -> list[Event]:
        name = "_do_" + action.kind
        events: list[Event] = getattr(self, name)(action, player)
        return events

    def _do_select(self, action: Select, player: int) -> list[Event]:
        self.hero = HEROES.index(action.hero)
        return [Event("chose", player, {"hero": action.hero})]

    def _do_step(self, action: Step, player: int) -> list[Event]:
        hero, here = self._mover(player)
        there = neighbour(here, SIDE_OF[action.side])
        self.pos[player][hero] = there
        self.steps += 1
        return [Event("stepped", player, {"hero": action.hero, "from": key(here), "to": key(there)})]

    def _do_take(self, action: Take, player: int) -> list[Event]:
        hero, here = self._mover(player)
        lying = self.loose[here]
        lying.remove(action.soul)
        if not lying:
            del self.loose[here]
        carried = self.carry[player][hero]
        self.carry[player][hero] = (action.soul, (carried[1] if carried else 0) + 1)
        return [Event("took", player, {"soul": action.soul, "cell": key(here)})]

    def _do_drop(self, action: Drop, player: int) -> list[Event]:
        hero, here = self._mover(player)
        carried = self.carry[player][hero]
        assert carried is not None, "the checks let only a slave that carries souls drop them"
        soul, n = carried
        self.carry[player][hero] = None
        self.loose.setdefault(here, []).extend([soul] * n)
        if (here, soul) not in self.dropped:
            self.dropped.append((here, soul))
        return [Event("dropped", player, {"soul": soul, "count": n, "cell": key(here)})]

    def _do_scare(self, action: Scare, player: int) -> list[Event]:
        _, here = self._mover(player)
        gone = self.loose.pop(here, [])
        for p, h in self.heroes_at(here):
            if carried := self.carry[p][h]:
                soul, n = carried
                gone += [soul] * n
                self.carry[p][h] = None
        # Face down at the bottom of the supply, where everyone saw them go (assumption).
        self.supply.put_bottom(*gone)
        self.supply_known += len(gone)
        self.scare = here
        return [Event("scared", player, {"cell": key(here), "souls": gone})]

    def _do_give(self, action: Give, player: int) -> list[Event]:
        return self._bank(player, player, self._mover(player)[0], "gave")

    def _do_steal(self, action: Steal, player: int) -> list[Event]:
        self.thefts += 1
        return self._bank(player, action.player, HEROES.index(action.slave), "stole")

    def _bank(self, player: int, owner: int, hero: int, what: str) -> list[Event]:
        """Rule ``aztekz/piles/never-merge``: a slave's pile becomes a new pile of `player`."""
        carried = self.carry[owner][hero]
        assert carried is not None, "the checks let only a pile of two or more go"
        soul, n = carried
        self.carry[owner][hero] = None
        self.piles[player].append((soul, n))
        return [Event(what, player, {"from": f"{owner}.{HEROES[hero]}", "soul": soul, "count": n})]

    def _do_end(self, action: End, player: int) -> list[Event]:
        self.phase = PLACE
        return [Event("ended-move", player)]

    def _do_place(self, action: Place, player: int) -> list[Event]:
        return self._place(action.cell, action.rotation, player)

    def _place(self, cell: Cell, rotation: int, player: int) -> list[Event]:
        """Rules ``aztekz/place/soul`` and ``aztekz/setup/heroes``: the card, then what goes on it."""
        card = self._drawn()
        self.grid.place(cell, self.comp.sides(card, rotation))
        self._cache = {}
        self.stacks.setdefault(cell, []).append(card)
        if self.phase == SETUP:
            self.pos[player] = [cell, cell, cell]
        elif self.soul is not None:
            self.loose[cell] = [self.soul]
        events = [Event("placed", player, {"card": self.card, "cell": key(cell),
                                           "rotation": rotation, "soul": self.soul})]
        return events + self._next_turn(placed=True)

    def _do_return(self, action: Return, player: int) -> list[Event]:
        self.deck.put_bottom(self._drawn())
        self.deck_known += 1
        if self.soul is not None:
            self.supply.put_bottom(self.soul)
            self.supply_known += 1
        events = [Event("returned", player, {"card": self.card, "soul": self.soul})]
        return events + self._next_turn(placed=False)

    # -- scores -------------------------------------------------------------------------------
    def scores(self) -> list[float]:
        """Rule ``aztekz/score/piles``: each pile scores its size minus one (option pile_scoring)."""
        curve = PILE_SCORINGS[self.options["pile_scoring"]]
        return [float(sum(curve(n) for _, n in piles)) for piles in self.piles]

    def figures(self) -> dict[str, Any]:
        """Numbers for batch analysis: cards showing, piles made and the souls in them; how the
        game ended, once over."""
        found: dict[str, Any] = {"cards showing": len(self.grid),
                                 "piles": sum(len(p) for p in self.piles),
                                 "souls in piles": sum(self.souls_collected())}
        if self.phase == OVER:  # aztekz/end/last-card or aztekz/end/stall
            limit = self.comp.stall_limit
            found["ending"] = "stall" if limit is not None and self.stall >= limit else "last card"
        return found

    def evaluate(self, player: int) -> float:
        """The score, plus half a point for each soul a slave carries beyond the first: a pile
        in hand is a pile nearly made (so greedy players collect)."""
        carried = sum(max(0, c[1] - 1) for c in self.carry[player] if c)
        return self.scores()[player] + 0.5 * carried

    def souls_collected(self) -> list[int]:
        """How many souls each player holds in piles (the tie-break)."""
        return [sum(n for _, n in piles) for piles in self.piles]

    def winners(self) -> list[int]:
        """Rule ``aztekz/score/tie``: most points, then most souls collected; still tied share."""
        if self.phase != OVER:
            return []
        keys = list(zip(self.scores(), self.souls_collected()))
        best = max(keys)
        return [p for p in range(self.num_players) if keys[p] == best]

    # -- data ---------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-able data (the options only where not the rulebook's)."""
        changed = {n: v for n, v in self.changed_options().items() if n not in COMPONENT_OPTIONS}
        return {
            **({"options": changed} if changed else {}),
            "components": self.comp.data,
            "players": self.num_players,
            "first": self.first,
            "grid": self._grid_json(),
            "stacks": {key(c): list(s) for c, s in self.stacks.items()},
            "loose": {key(c): list(s) for c, s in self.loose.items()},
            "heroes": [[None if c is None else key(c) for c in row] for row in self.pos],
            "carry": [[None if c is None else list(c) for c in row] for row in self.carry],
            "piles": [[list(p) for p in row] for row in self.piles],
            "deck": self.deck.to_json(),
            "deck_known": self.deck_known,
            "supply": self.supply.to_json(),
            "supply_known": self.supply_known,
            "turn": self.turn,
            "phase": self.phase,
            "start_cards": self.start_cards,
            "card": self.card,
            "soul": self.soul,
            "hero": self.hero,
            "steps": self.steps,
            "thefts": self.thefts,
            "scare": None if self.scare is None else key(self.scare),
            "dropped": [[key(c), soul] for c, soul in self.dropped],
            "stall": self.stall,
        }

    @classmethod
    def from_dict(cls, game: AztekzGame, d: dict[str, Any], comp: Components | None = None) -> AztekzState:
        """The state that `to_dict` wrote (history aside; `game.state_from_json` checks it)."""
        comp = load_components(d["components"]) if comp is None else comp
        state = cls(game, comp, d["players"], d["first"])
        state.options = options_in_force(comp, d.get("options") or {})
        state.grid = BoundedGrid.from_json(d["grid"])
        state.stacks = {cell_of(k): list(v) for k, v in d["stacks"].items()}
        state.loose = {cell_of(k): list(v) for k, v in d["loose"].items()}
        state.pos = [[None if c is None else cell_of(c) for c in row] for row in d["heroes"]]
        state.carry = [[None if c is None else (c[0], c[1]) for c in row] for row in d["carry"]]
        state.piles = [[(p[0], p[1]) for p in row] for row in d["piles"]]
        state.deck, state.supply = Deck(list(d["deck"])), Deck(list(d["supply"]))
        for name in ("deck_known", "supply_known", "turn", "phase", "start_cards", "card", "soul",
                     "hero", "steps", "thefts", "stall"):
            setattr(state, name, d[name])
        state.scare = None if d["scare"] is None else cell_of(d["scare"])
        state.dropped = [(cell_of(c), soul) for c, soul in d["dropped"]]
        return state

    def clone(self) -> AztekzState:
        """An independent copy (components, game and past events are shared: never changed)."""
        other = copy.copy(self)
        other.grid = BoundedGrid(self.grid.size, dict(self.grid.cells))
        other.stacks = {c: list(s) for c, s in self.stacks.items()}
        other.loose = {c: list(s) for c, s in self.loose.items()}
        other.pos = [list(row) for row in self.pos]
        other.carry = [list(row) for row in self.carry]
        other.piles = [list(row) for row in self.piles]
        other.deck, other.supply = Deck(list(self.deck.cards)), Deck(list(self.supply.cards))
        other.dropped = list(self.dropped)
        self._copy_history(other)
        return other

    def _grid_json(self) -> dict[str, Any]:
        """`grid.to_json()`, kept until the next card is placed (a copy: callers may change it)."""
        found = self._cache.get("grid")
        if found is None:
            found = self._cache["grid"] = self.grid.to_json()
        return {"size": found["size"], "cells": dict(found["cells"])}

    def to_json(self) -> str:
        """The same text as `State.to_json` (sorted keys, then the history), written faster:
        past entries keep their JSON text, the components and the labyrinth theirs while unchanged."""
        data = self.to_dict()
        del data["components"], data["grid"]
        grid = self._cache.get("grid-text")
        if grid is None:
            grid = self._cache["grid-text"] = orjson.Fragment(dumps(self._grid_json()))
        data.update(components=self.comp.json_fragment, grid=grid,
                    history=orjson.Fragment(self.history_json()))
        return dumps(data)

    def observe(self, player: int) -> dict[str, Any]:
        """Everything but the order of the face-down cards and souls nobody has seen go there."""
        data = self.to_dict()
        for pile, known in (("deck", self.deck_known), ("supply", self.supply_known)):
            items = data.pop(pile)
            data.pop(f"{pile}_known")
            data[pile] = {"size": len(items), "known_bottom": items[len(items) - known:] if known else []}
        return data

    def determinize(self, player: int, rng: np.random.Generator) -> AztekzState:
        """A copy with the unseen part of the deck and of the soul supply reshuffled."""
        other = self.clone()
        for pile, known in ((other.deck, self.deck_known), (other.supply, self.supply_known)):
            hidden = len(pile) - known
            # Sorted: what is drawn depends on the pieces left, not on their true order.
            left = sorted(pile.cards[:hidden])
            pile.cards[:hidden] = [left[i] for i in rng.permutation(hidden)]
        return other

    def arbitrary_actions(self, player: int, rng: np.random.Generator, k: int) -> list[Action]:
        """Well-formed actions of every kind with random fields, legal or not."""
        kinds = self.comp.soul_kinds
        makers = (
            lambda: Select(HEROES[rng.integers(3)]),
            lambda: Step(HEROES[rng.integers(3)], "NESW"[rng.integers(4)]),
            lambda: Take(kinds[rng.integers(len(kinds))]),
            Drop, Scare, Give, End, Return,
            lambda: Steal(int(rng.integers(self.num_players)), HEROES[1 + rng.integers(2)]),
            lambda: Place(int(rng.integers(-5, 6)), int(rng.integers(-5, 6)), int(rng.integers(4))),
        )
        return [makers[rng.integers(len(makers))]() for _ in range(k)]


# Each check takes its own action class (the table is keyed by it), hence Any for the action.
_CHECKS: dict[type[Action], Callable[[AztekzState, Any, int], list[Violation]]] = {
    Select: AztekzState._hero_problems, Step: AztekzState._step_problems,
    Take: AztekzState._take_problems, Drop: AztekzState._drop_problems,
    Scare: AztekzState._scare_problems, Give: AztekzState._give_problems,
    Steal: AztekzState._steal_problems, End: AztekzState._end_problems,
    Place: AztekzState._placement_problems, Return: AztekzState._return_problems,
}
