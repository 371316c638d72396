"""Build Aztekz states for tests: a labyrinth, heroes, souls and a turn, written as plain data."""

from __future__ import annotations

from typing import Any

import numpy as np

from games.aztekz import GAME
from games.aztekz.rules import AztekzState, cell_of
from geomsim.discrete import BoundedGrid, Deck, parse_sides

# Card ids of the default components (see components.json): the unrotated sides of each kind.
STRAIGHT, CORNER, TEE, CROSS = 0, 12, 28, 42   # NS, NE, ESW, NESW
HERO_INDEX = {"chief": 0, "slave1": 1, "slave2": 2}


def make(cells: dict[str, str], heroes: list[list[str]], *, loose: dict[str, list[str]] | None = None,
         carry: dict[str, tuple[str, int]] | None = None, card: int = CROSS, soul: str | None = "sun",
         phase: str = "move", turn: int = 0, hero: str | None = None, steps: int = 0,
         piles: list[list[tuple[str, int]]] | None = None,
         components: dict[str, Any] | None = None,
         options: dict[str, Any] | None = None) -> AztekzState:
    """A state in play: `cells` maps "x,y" to open sides ("NE"); `heroes` lists per player the
    cells of chief, slave1, slave2; `carry` maps "player.hero" to (kind, count)."""
    setup: dict[str, Any] = {"first": turn}
    if components:
        setup["components"] = components
    state = GAME.new_state(len(heroes), setup=setup, options=options)
    state.grid = BoundedGrid(state.comp.grid_size, {cell_of(k): parse_sides(v) for k, v in cells.items()})
    # One card per cell, of the cell's shape, out of the deck: the state keeps its 48 cards (a
    # state read back must, and the compiled player's checks read states back).
    free = [c for c in range(state.comp.cards) if c != card]
    state.stacks = {}
    for cell, sides in state.grid.cells.items():
        fits = [c for c in free if sides in {m for _, m in state.comp.orientations[c]}] or free
        state.stacks[cell] = [fits[0]]
        free.remove(fits[0])
    state.pos = [[cell_of(c) for c in row] for row in heroes]
    state.loose = {cell_of(k): list(v) for k, v in (loose or {}).items() if v}
    for who, pile in (carry or {}).items():
        p, name = who.split(".")
        state.carry[int(p)][HERO_INDEX[name]] = tuple(pile)
    state.piles = [list(map(tuple, row)) for row in piles] if piles else state.piles
    state.phase, state.turn, state.card, state.soul = phase, turn, card, soul
    state.hero = None if hero is None else HERO_INDEX[hero]
    state.steps = steps
    state.start_cards = len(heroes)
    state.deck = Deck(free)
    state._cache = {}
    return state


def row(n: int, sides: str = "EW", y: int = 0, x0: int = 0) -> dict[str, str]:
    """`n` cards in a row from x0 eastwards, all with the same open sides."""
    return {f"{x0 + i},{y}": sides for i in range(n)}


def play(state: AztekzState, *texts: str) -> AztekzState:
    """Apply actions written as text by the player to move; return the state."""
    for text in texts:
        state.apply(GAME.parse_action(text))
    return state


def rules_of(state: AztekzState, text: str) -> tuple[str, ...]:
    """The rule ids that the action written as `text` breaks now (empty when legal)."""
    return state.check(GAME.parse_action(text)).rules


def legal_texts(state: AztekzState) -> set[str]:
    """The legal actions now, as text."""
    return {str(a) for a in state.legal_actions()}


def random_game(players: int, seed: int, max_steps: int = 100_000, every=None) -> AztekzState:
    """Play a uniformly random game through the rules interface; call `every(state)` each step."""
    rng = np.random.default_rng(seed)
    state = GAME.new_state(players, seed=seed)
    for _ in range(max_steps):
        if every is not None:
            every(state)
        if state.is_over():
            break
        actions = list(state.legal_actions())
        state.apply(actions[int(rng.integers(len(actions)))])
    return state
