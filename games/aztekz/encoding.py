"""Aztekz for RL libraries: fixed action ids and the observation tensor.

Cells are numbered from the first card (``0,0``); a labyrinth at most G x G (G = 5 by default)
keeps every card within ``-(G-1)..G-1`` on both axes, so placements have ``(2G-1)**2 * 4`` ids.
Action ids (350 + 2 per player with the default components: 354, 356, 358 for 2-4 players), in
this order; a player count's ids are those of fewer players and two more for the new seat:

================  ==============================================================
ids (default)     actions
================  ==============================================================
0-2               ``chief``, ``slave1``, ``slave2`` (choose the hero)
3-14              ``HERO SIDE``: for each hero in that order, sides N, E, S, W
15-20             ``take KIND`` for the soul kinds in components order
21-25             ``drop``, ``scare``, ``give``, ``end``, ``return``
26-349            ``place X,Y rR``: X from -4 to 4, then Y from -4 to 4, then R 0-3
350-              ``steal P.slave1``, ``steal P.slave2`` for P = 0, 1, ...
================  ==============================================================

The observation tensor is a flat float32 vector, the sections of `AztekzEncoding.layout` (listed
in docs/ecosystem.md), with the labyrinth as planes over the ``(2G-1) x (2G-1)`` cells (x
along the last axis, from -(G-1)). It is made from `state.observe(player)` alone, so it hides what
`observe` hides: the order of the face-down cards and souls.
"""

from __future__ import annotations

import functools

import numpy as np

from games.aztekz.components import HEROES, Components, load_components
from games.aztekz.rules import (
    AztekzState,
    Drop,
    End,
    Give,
    Place,
    Return,
    Scare,
    Select,
    Steal,
    Step,
    Take,
    cell_of,
)
from geomsim.discrete import SIDE_NAMES, SIDES, parse_sides
from geomsim.encoding import Layout, ListedEncoding, made_once, one_hot
from geomsim.rules import Action, Player, State

PHASES = ("setup", "move", "place", "over")


def actions(components: Components, players: int) -> list[Action]:
    """Every action with an id in games of `players` players, in id order."""
    reach = components.grid_size - 1
    span = range(-reach, reach + 1)
    found: list[Action] = [Select(h) for h in HEROES]
    found += [Step(h, SIDE_NAMES[s]) for h in HEROES for s in SIDES]
    found += [Take(k) for k in components.soul_kinds]
    found += [Drop(), Scare(), Give(), End(), Return()]
    found += [Place(x, y, r) for x in span for y in span for r in range(4)]
    return found + [Steal(p, s) for p in range(players) for s in HEROES[1:]]


class AztekzEncoding(ListedEncoding):
    """Action ids and observation tensor of Aztekz for one player count and set of components."""

    def __init__(self, components: Components, players: int):
        super().__init__(actions(components, players))
        self.components, self.players = components, players
        self.reach = components.grid_size - 1
        width = 2 * self.reach + 1
        n, kinds = players, len(components.soul_kinds)
        self.kind_index = {k: i for i, k in enumerate(components.soul_kinds)}
        self.souls = kinds * components.souls_per_kind
        self.layout = Layout([
            ("observer", n), ("turn", n), ("phase", len(PHASES)),
            ("card", (width, width)), ("open_sides", (4, width, width)),
            ("stack", (width, width)), ("loose", (kinds, width, width)),
            ("heroes", (n, 3, width, width)), ("scared", (width, width)),
            ("dropped", (kinds, width, width)), ("carry", (n, 3, kinds)), ("piles", (n, kinds)),
            ("pile_count", n), ("drawn_sides", 4), ("drawn_soul", kinds), ("hero", 3),
            ("steps", 1), ("thefts", 1), ("deck", 1), ("supply", 1),
            ("supply_known", kinds), ("stall", 1),
        ])
        self.observation_shape = (self.layout.size,)
        self.max_game_length = self._max_game_length()

    def _max_game_length(self) -> int:
        """Turns: each places a card or not, and at most `stall_limit` turns in a row place none;
        decisions of a turn: the hero, its steps, a take per soul in the game, as many drops
        and gives, a scare, the end and the placing (a loose but true bound)."""
        comp = self.components
        if comp.stall_limit is None:
            raise NotImplementedError("aztekz without a stall limit has no bound on its length")
        turns = comp.cards + (comp.cards + 1) * comp.stall_limit
        per_turn = 1 + max(comp.chief_steps + comp.thefts_per_turn,
                           comp.slave_steps + 3 * self.souls + 1) + 2
        return turns * per_turn

    def observation_tensor(self, state: State, player: Player) -> np.ndarray:
        seen = state.observe(player)
        out = self.layout.empty()
        view = functools.partial(self.layout.view, out)
        one_hot(view("observer"), player)
        one_hot(view("turn"), seen["turn"])
        one_hot(view("phase"), PHASES.index(seen["phase"]))
        sides = view("open_sides")
        for text, mask in seen["grid"]["cells"].items():
            y, x = self._at(text)
            view("card")[y, x] = 1.0
            opened = parse_sides(mask)
            for i, s in enumerate(SIDES):
                sides[i, y, x] = float(bool(opened & s))
        for text, stack in seen["stacks"].items():
            view("stack")[self._at(text)] = len(stack)
        for text, souls in seen["loose"].items():
            y, x = self._at(text)
            for soul in souls:
                view("loose")[self.kind_index[soul], y, x] += 1.0
        for p, row in enumerate(seen["heroes"]):
            for h, text in enumerate(row):
                if text is not None:
                    view("heroes")[(p, h, *self._at(text))] = 1.0
        if seen["scare"] is not None:
            view("scared")[self._at(seen["scare"])] = 1.0
        for text, soul in seen["dropped"]:  # a kind dropped on a card is not taken there again
            view("dropped")[(self.kind_index[soul], *self._at(text))] = 1.0
        for p, row in enumerate(seen["carry"]):
            for h, carried in enumerate(row):
                if carried:
                    view("carry")[p, h, self.kind_index[carried[0]]] = carried[1]
        for p, piles in enumerate(seen["piles"]):
            view("pile_count")[p] = len(piles)
            for kind, n in piles:
                view("piles")[p, self.kind_index[kind]] += n
        if seen["card"] is not None:
            mask = self.components.card_sides[seen["card"]]
            view("drawn_sides")[:] = [float(bool(mask & s)) for s in SIDES]
        if seen["soul"] is not None:
            one_hot(view("drawn_soul"), self.kind_index[seen["soul"]])
        one_hot(view("hero"), seen["hero"])
        view("steps")[0] = seen["steps"]
        view("thefts")[0] = seen["thefts"]
        view("deck")[0] = seen["deck"]["size"] / max(self.components.cards, 1)
        view("supply")[0] = seen["supply"]["size"] / max(self.souls, 1)
        for soul in seen["supply"]["known_bottom"]:
            view("supply_known")[self.kind_index[soul]] += 1.0
        limit = self.components.stall_limit
        view("stall")[0] = seen["stall"] / limit if limit else 0.0
        return out

    def _at(self, text: str) -> tuple[int, int]:
        """The (row, column) of cell ``"x,y"`` in the planes."""
        x, y = cell_of(text)
        return y + self.reach, x + self.reach


def encoding(components: Components, players: int) -> AztekzEncoding:
    """The encoding of games of `players` players with `components` (made once per pair)."""
    return made_once(components, players, lambda: AztekzEncoding(components, players))  # type: ignore[return-value]


def default_encoding(players: int) -> AztekzEncoding:
    """`AztekzGame.encoding`: the encoding with the default components."""
    return encoding(load_components(), players)


def state_encoding(state: AztekzState) -> AztekzEncoding:
    """`AztekzState.encoding`: the encoding of the state's own components and player count."""
    return encoding(state.comp, state.num_players)
