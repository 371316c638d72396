"""Helpers for the Cibola tests: explicit setups, playing text actions, editing a state's data."""

from __future__ import annotations

import json
from typing import Any

from games.cibola import GAME
from games.cibola.components import default_components
from games.cibola.rules import CibolaState

COMPONENTS = default_components()
DECK_I = COMPONENTS.deck_ids(1)
DECK_II = COMPONENTS.deck_ids(2)


def card_ids(symbol: str | None = None, deck: int | None = None) -> list[int]:
    """Ids of the default cards with that top symbol (None: no symbol), optionally of one deck."""
    return [c.id for c in COMPONENTS.cards
            if c.symbol == symbol and (deck is None or c.deck == deck)]


def deck_with_top(top: list[int]) -> list[int]:
    """A legal deck order (deck I above deck II) whose first cards are `top` (deck I cards)."""
    rest_i = [c for c in DECK_I if c not in top]
    return list(top) + rest_i + list(DECK_II)


def new(players: int, **setup: Any) -> CibolaState:
    """A new state from seed 0 with the given setup fields."""
    return GAME.new_state(players, seed=0, setup=setup or None)


def play(state: CibolaState, *moves: str) -> list:
    """Apply moves written as ``"2: send 3"`` (player: action text); return all events."""
    events = []
    for move in moves:
        who, text = move.split(":", 1)
        events += state.apply(GAME.parse_action(text.strip()), int(who))
    return events


def sends(state: CibolaState, *numbers: int) -> list:
    """Every player seals their number (player order), which reveals them."""
    return play(state, *(f"{p}: send {n}" for p, n in enumerate(numbers)))


def edited(state: CibolaState, **changes: Any) -> CibolaState:
    """The state with top-level data fields replaced, through its JSON (a state file)."""
    data = json.loads(state.to_json())
    data.update(changes)
    return GAME.state_from_json(json.dumps(data))


def slot_of(state: CibolaState, card_id: int) -> str:
    """The slot letter of a revealed card."""
    return "ABCD"[state.row.index(card_id)]
