"""Treasures of Cibola for RL libraries: fixed action ids and the observation tensor.

Action ids (103 with the default components, the same for 2 to 4 players), in this order:

====================  ===========================================================
ids (default)         actions
====================  ===========================================================
0-24                  ``send 0`` ... ``send 24`` (up to every explorer of the box)
25-28                 ``take A`` ... ``take D``
29-46                 ``rock COLUMN CHAMBER``: columns in temple order, chambers top first
47-56                 ``totem ID`` for the totem ids in ascending order
57-92                 ``move COLUMN CHAMBER down``, then ``... up``, for each chamber in order
93-102                ``copy ID`` for the totem ids in ascending order
====================  ===========================================================

The observation tensor is a flat float32 vector, the sections of `CibolaEncoding.layout` (listed
in docs/ecosystem.md); it is made from `state.observe(player)` alone, so it hides what
`observe` hides: the deck order, the boxed totems' order and the other players' sealed numbers.
"""

from __future__ import annotations

import functools
import math
import numpy as np

from games.cibola.components import TREASURES, Components, default_components
from games.cibola.rules import (
    CARDS_PER_ROUND,
    SLOTS,
    ChooseTotem,
    CibolaState,
    CopyTotem,
    MoveRock,
    PlaceRock,
    Send,
    Take,
)
from geomsim.encoding import Layout, ListedEncoding, made_once, one_hot
from geomsim.rules import Action, Player, State

STAGES = ("send", "obtain", "round-end", "final", "over")
DECISIONS = ("take", "rock", "totem", "move", "copy")


def actions(components: Components, explorers: int | None = None) -> list[Action]:
    """Every action with an id, in id order (see the module docstring); `explorers`: all the
    explorers of the game (the option explorers), by default the components'."""
    chambers = [(c.treasure, k + 1) for c in components.columns for k in range(len(c.values))]
    totems = sorted(t.id for t in components.totems)
    explorers = components.explorers if explorers is None else explorers
    return ([Send(n) for n in range(explorers + 1)] + [Take(s) for s in SLOTS]
            + [PlaceRock(col, k) for col, k in chambers] + [ChooseTotem(t) for t in totems]
            + [MoveRock(col, k, d) for d in ("down", "up") for col, k in chambers]
            + [CopyTotem(t) for t in totems])


class CibolaEncoding(ListedEncoding):
    """Action ids and observation tensor of Cibola for one player count, set of components and
    number of explorers in the game (the option explorers changes the ``send`` ids)."""

    def __init__(self, components: Components, players: int, explorers: int | None = None):
        super().__init__(actions(components, explorers))
        self.components, self.players = components, players
        self.explorers = components.explorers if explorers is None else explorers
        cards = sorted(c.id for c in components.cards)
        totems = sorted(t.id for t in components.totems)
        self.card_index = {c: i for i, c in enumerate(cards)}
        self.totem_index = {t: i for i, t in enumerate(totems)}
        n, k, t = players, len(cards), len(totems)
        chambers = sum(len(c.values) for c in components.columns)
        self.layout = Layout([
            ("observer", n), ("round", 1), ("stage", len(STAGES)), ("torch", n),
            ("explorers", n), ("camp", 1), ("in_temple", n), ("sent", n), ("order", (n, n)),
            ("row", (CARDS_PER_ROUND, k)), ("box", k), ("hands", (n, k)), ("totems", (n, t)),
            ("copies", (n, t)), ("offer", t), ("used", t), ("boxed_totems", t),
            ("covered", chambers), ("rocks_placed", 1), ("deck", 2),
            ("decision", len(DECISIONS)), ("decider", n), ("decision_card", k),
            ("decision_totem", t), ("sealed", n), ("own_sealed", 1), ("last_taker", n),
        ])
        self.observation_shape = (self.layout.size,)
        self.rounds = math.ceil(len(cards) / CARDS_PER_ROUND)
        # Per round a send each; per card a take and its symbol's decision (a rock, or a totem
        # and the rock it may move); per totem card a copy and the move it may make.
        self.max_game_length = self.rounds * players + 3 * len(cards) + 2 * len(totems)

    def observation_tensor(self, state: State, player: Player) -> np.ndarray:
        seen = state.observe(player)
        lay, out = self.layout, self.layout.empty()
        view = functools.partial(lay.view, out)
        scale = 1.0 / max(self.explorers, 1)
        one_hot(view("observer"), player)
        view("round")[0] = seen["round"] / self.rounds
        one_hot(view("stage"), STAGES.index(seen["stage"]))
        one_hot(view("torch"), seen["torch"])
        view("explorers")[:] = np.array(seen["explorers"]) * scale
        view("camp")[0] = seen["camp"] * scale
        view("in_temple")[:] = np.array(seen["in_temple"]) * scale
        if seen["sent"] is not None:
            view("sent")[:] = np.array(seen["sent"]) * scale
        for rank, p in enumerate(seen["order"]):
            view("order")[rank, p] = 1.0
        self._cards(view("row"), [[c] if c is not None else [] for c in seen["row"]])
        self._cards(view("box")[None], [seen["box"]])
        self._cards(view("hands"), seen["hands"])
        for name in ("totems", "copies"):
            self._totems(view(name), seen[name])
        for name in ("offer", "used", "boxed_totems"):
            self._totems(view(name)[None], [seen[name]])
        view("covered")[:] = [c for name in TREASURES for c in seen["temple"][name]]
        view("rocks_placed")[0] = seen["rocks_placed"] / max(self.components.rocks, 1)
        view("deck")[:] = [seen["deck"]["size"] / len(self.card_index),
                           seen["deck"]["deck_I"] / len(self.card_index)]
        if seen["pending"] and seen["stage"] != "send":
            kind, who, arg = seen["pending"][0]
            one_hot(view("decision"), DECISIONS.index(kind))
            one_hot(view("decider"), who)
            if kind in ("rock", "totem"):
                one_hot(view("decision_card"), self.card_index.get(arg))
            elif arg is not None:
                one_hot(view("decision_totem"), self.totem_index.get(arg))
        if seen["sealed"]:
            view("sealed")[seen["sealed"]["decided"]] = 1.0
            own = seen["sealed"]["own"]
            view("own_sealed")[0] = -1.0 if own is None else own * scale
        one_hot(view("last_taker"), seen["last_taker"])
        return out

    def _cards(self, out: np.ndarray, lists: list[list[int]]) -> None:
        for row, cards in zip(out, lists):
            row[[self.card_index[c] for c in cards]] = 1.0

    def _totems(self, out: np.ndarray, lists: list[list[int]]) -> None:
        for row, totems in zip(out, lists):
            row[[self.totem_index[t] for t in totems]] = 1.0


def encoding(components: Components, players: int) -> CibolaEncoding:
    """The encoding of games of `players` players with `components` (made once per pair)."""
    return made_once(components, players, lambda: CibolaEncoding(components, players))  # type: ignore[return-value]


def game_encoding(players: int) -> CibolaEncoding:
    """The encoding of games of `players` players with the default components (the part
    `Game.encoding` asks for)."""
    return encoding(default_components(), players)


def state_encoding(state: CibolaState) -> CibolaEncoding:
    """The encoding of `state`'s own components, player count and explorers (the part
    `State.encoding` asks for: a state read with other components or options has other ids)."""
    explorers = state.explorers_in_game
    if explorers == state.components.explorers:
        return encoding(state.components, state.num_players)
    return _with_explorers(state.components, state.num_players, explorers)


@functools.lru_cache(maxsize=16)
def _with_explorers(components: Components, players: int, explorers: int) -> CibolaEncoding:
    """The encoding of a game whose option explorers deals `explorers` in all (made once)."""
    return CibolaEncoding(components, players, explorers)
