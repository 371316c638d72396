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
    """The state with top-level data fields replaced, through its JSON (a state file). The
    fields not named are rebalanced so that cards, explorers and totems stay conserved (the
    reader refuses a state that loses or doubles one): a card put in a hand leaves the deck,
    the row or the box, a card no longer anywhere goes to the box; the camp makes up the
    explorers; a totem given to a player leaves the offer or the box, a lost one goes back to
    the box."""
    data = json.loads(state.to_json())
    data.update(changes)
    _rebalance(data, changes, [c.id for c in COMPONENTS.cards], ("hands", "row"), ("deck", "box"),
               "box")
    _rebalance(data, changes, [t.id for t in COMPONENTS.totems], ("totems",), ("offer", "boxed_totems"),
               "boxed_totems")
    if "camp" not in changes:
        data["camp"] = COMPONENTS.explorers - sum(data["explorers"]) - sum(data["in_temple"])
    return GAME.state_from_json(json.dumps(data))


def _rebalance(data: dict, changes: dict, ids: list[int], fixed: tuple[str, ...],
               loose: tuple[str, ...], rest: str) -> None:
    """Take the ids held in the `fixed` fields out of the `loose` ones that were not changed;
    put ids held nowhere in `rest`."""
    def held(name: str) -> list[int]:
        value = data[name]
        return [i for x in value for i in (x if isinstance(x, list) else [x]) if i is not None]

    taken = {i for name in fixed for i in held(name)}
    for name in loose:
        if name not in changes:
            data[name] = [i for i in data[name] if i not in taken]
    everywhere = {i for name in fixed + loose for i in held(name)}
    data[rest] += [i for i in ids if i not in everywhere]


def slot_of(state: CibolaState, card_id: int) -> str:
    """The slot letter of a revealed card."""
    return "ABCD"[state.row.index(card_id)]
