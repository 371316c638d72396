"""Discrete adapters for card and grid games: a deck, a track, sealed simultaneous choices and a
bounded square grid of four-sided cells with path connectivity.

Each adapter is plain data with `to_json`/`from_json` so that a game state built from them
serialises exactly.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import numpy as np

T = TypeVar("T")
Cell = tuple[int, int]

# Sides of a grid cell as bits of a mask; "north" is +y.
NORTH, EAST, SOUTH, WEST = 1, 2, 4, 8
SIDES = (NORTH, EAST, SOUTH, WEST)
SIDE_NAMES = {NORTH: "N", EAST: "E", SOUTH: "S", WEST: "W"}
STEP = {NORTH: (0, 1), EAST: (1, 0), SOUTH: (0, -1), WEST: (-1, 0)}
OPPOSITE = {NORTH: SOUTH, EAST: WEST, SOUTH: NORTH, WEST: EAST}


# -- deck -----------------------------------------------------------------------------------
@dataclass
class Deck(Generic[T]):
    """An ordered pile of face-down cards; `cards[0]` is the top."""

    cards: list[T] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[T]:
        return iter(self.cards)

    def shuffle(self, rng: np.random.Generator) -> None:
        """Shuffle in place with `rng`."""
        order = rng.permutation(len(self.cards))
        self.cards = [self.cards[i] for i in order]

    def draw(self, n: int = 1) -> list[T]:
        """Take the top `n` cards; `IndexError` if fewer remain."""
        if n > len(self.cards):
            raise IndexError(f"cannot draw {n} cards from a deck of {len(self.cards)}")
        drawn, self.cards = self.cards[:n], self.cards[n:]
        return drawn

    def draw_one(self) -> T:
        """Take the top card."""
        return self.draw(1)[0]

    def peek(self, n: int = 1) -> list[T]:
        """The top `n` cards, left in place."""
        return self.cards[:n]

    def put_bottom(self, *cards: T) -> None:
        """Put cards under the deck, the first given nearest the top."""
        self.cards.extend(cards)

    def put_top(self, *cards: T) -> None:
        """Put cards on the deck, the first given on top."""
        self.cards[:0] = cards

    def observe(self) -> dict[str, int]:
        """What a player sees of a face-down deck: its size."""
        return {"size": len(self.cards)}

    def to_json(self) -> list[Any]:
        """The cards top first."""
        return list(self.cards)

    @classmethod
    def from_json(cls, data: Iterable[Any]) -> Deck[Any]:
        """The deck `to_json` wrote."""
        return cls(list(data))


# -- track ----------------------------------------------------------------------------------
@dataclass
class Track:
    """A row of spaces filled from the first: a score track, a temple column.

    `values[i]` is what space `i` shows; `filled` spaces are covered from the start of the row.
    """

    values: tuple[float, ...]
    filled: int = 0

    def __post_init__(self) -> None:
        self.values = tuple(self.values)
        if not 0 <= self.filled <= len(self.values):
            raise ValueError(f"a track of {len(self.values)} spaces cannot have {self.filled} filled")

    @property
    def free(self) -> int:
        """How many spaces are still empty."""
        return len(self.values) - self.filled

    @property
    def first_free(self) -> int | None:
        """The index of the first empty space, or None when full."""
        return self.filled if self.free else None

    @property
    def current(self) -> float | None:
        """The value of the first empty space, or None when full."""
        return self.values[self.filled] if self.free else None

    def fill(self, n: int = 1) -> int:
        """Fill the next `n` spaces; return the index of the last one filled."""
        if n > self.free:
            raise ValueError(f"only {self.free} free spaces, cannot fill {n}")
        self.filled += n
        return self.filled - 1

    def unfill(self, n: int = 1) -> None:
        """Empty the last `n` filled spaces."""
        if n > self.filled:
            raise ValueError(f"only {self.filled} filled spaces, cannot empty {n}")
        self.filled -= n

    def to_json(self) -> dict[str, Any]:
        """Values and filled count."""
        return {"values": list(self.values), "filled": self.filled}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Track:
        """The track `to_json` wrote."""
        return cls(tuple(data["values"]), data["filled"])


# -- sealed simultaneous choices ----------------------------------------------------------------
@dataclass
class SealedChoices:
    """Choices made in secret by several players and revealed together when all have chosen."""

    players: tuple[int, ...]
    choices: dict[int, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.players = tuple(self.players)

    def waiting(self) -> tuple[int, ...]:
        """The players who have not chosen yet."""
        return tuple(p for p in self.players if p not in self.choices)

    def submit(self, player: int, choice: Any) -> None:
        """Seal `player`'s choice; `ValueError` if not expected or already chosen."""
        if player not in self.players:
            raise ValueError(f"player {player} takes no part in this choice")
        if player in self.choices:
            raise ValueError(f"player {player} has already chosen")
        self.choices[player] = choice

    @property
    def complete(self) -> bool:
        """True when every player has chosen."""
        return not self.waiting()

    def reveal(self) -> dict[int, Any]:
        """Every choice, once all are made; `RuntimeError` before."""
        if not self.complete:
            raise RuntimeError(f"choices are sealed until players {self.waiting()} have chosen")
        return dict(self.choices)

    def observe(self, player: int | None) -> dict[str, Any]:
        """What `player` sees: their own choice, and only whether the others have chosen."""
        return {
            "decided": sorted(self.choices),
            "own": self.choices.get(player) if player is not None else None,
        }

    def to_json(self) -> dict[str, Any]:
        """Players and sealed choices (hidden information included)."""
        return {"players": list(self.players),
                "choices": {str(p): c for p, c in sorted(self.choices.items())}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SealedChoices:
        """The choices `to_json` wrote."""
        return cls(tuple(data["players"]), {int(p): c for p, c in data["choices"].items()})


# -- bounded square grid --------------------------------------------------------------------------
def rotate_sides(sides: int, quarter_turns: int) -> int:
    """The side mask of a cell turned clockwise by `quarter_turns` (N -> E -> S -> W)."""
    k = quarter_turns % 4
    return ((sides << k) | (sides >> (4 - k))) & 0b1111


def sides_text(sides: int) -> str:
    """The open sides of a mask as letters, e.g. ``NE``; ``-`` when all are walled."""
    return "".join(SIDE_NAMES[s] for s in SIDES if sides & s) or "-"


def parse_sides(text: str) -> int:
    """The mask written by `sides_text`."""
    mask = 0
    for letter in text.strip().upper():
        if letter == "-":
            continue
        matches = [s for s, n in SIDE_NAMES.items() if n == letter]
        if not matches:
            raise ValueError(f"unknown side {letter!r} in {text!r} (use N, E, S, W)")
        mask |= matches[0]
    return mask


def neighbour(cell: Cell, side: int) -> Cell:
    """The cell beyond `side` of `cell`."""
    dx, dy = STEP[side]
    return (cell[0] + dx, cell[1] + dy)


@dataclass
class BoundedGrid:
    """Four-sided cells placed on an unbounded plane, whose extent may not exceed `size` x `size`.

    The extent is not fixed in advance: it is the bounding box of the cells placed so far, and a
    cell may go anywhere that keeps both the width and the height at most `size`.
    `cells[(x, y)]` is the side mask of the cell there (open sides set).
    """

    size: int
    cells: dict[Cell, int] = field(default_factory=dict)

    def __contains__(self, cell: object) -> bool:
        return cell in self.cells

    def __len__(self) -> int:
        return len(self.cells)

    def bounds(self) -> tuple[int, int, int, int] | None:
        """(min x, min y, max x, max y) of the placed cells, or None when empty."""
        if not self.cells:
            return None
        xs = [c[0] for c in self.cells]
        ys = [c[1] for c in self.cells]
        return min(xs), min(ys), max(xs), max(ys)

    def within_bound(self, cell: Cell, bounds: tuple[int, int, int, int] | None = None) -> bool:
        """True when a cell at `cell` keeps the extent within `size` x `size` (`bounds`: if known)."""
        b = self.bounds() if bounds is None else bounds
        if b is None:
            return True
        x0, y0, x1, y1 = b
        width = max(x1, cell[0]) - min(x0, cell[0]) + 1
        height = max(y1, cell[1]) - min(y0, cell[1]) + 1
        return width <= self.size and height <= self.size

    def is_full(self) -> bool:
        """True when `size` x `size` cells are placed."""
        return len(self.cells) >= self.size * self.size

    def frontier(self) -> list[Cell]:
        """Empty cells next to a placed cell that stay within the bound, sorted."""
        found = {
            neighbour(c, s) for c in self.cells for s in SIDES if neighbour(c, s) not in self.cells
        }
        b = self.bounds()
        return sorted(c for c in found if self.within_bound(c, b))

    def open_between(self, a: Cell, side: int, cells: dict[Cell, int] | None = None) -> bool:
        """True when a hero may step from `a` across `side`: both facing sides are open."""
        cells = self.cells if cells is None else cells
        b = neighbour(a, side)
        return (
            a in cells and b in cells
            and bool(cells[a] & side) and bool(cells[b] & OPPOSITE[side])
        )

    def connects(self, cell: Cell, sides: int) -> bool:
        """True when a cell with `sides` at `cell` would have an open path into a placed neighbour."""
        trial = {**self.cells, cell: sides}
        return any(self.open_between(cell, s, trial) for s in SIDES)

    def steps(self, cell: Cell, cells: dict[Cell, int] | None = None) -> list[Cell]:
        """The cells one open step away from `cell`."""
        cells = self.cells if cells is None else cells
        return [neighbour(cell, s) for s in SIDES if self.open_between(cell, s, cells)]

    def distances(
        self, start: Cell, max_steps: int | None = None, cells: dict[Cell, int] | None = None
    ) -> dict[Cell, int]:
        """Breadth-first search: the fewest steps from `start` to every cell reachable from it."""
        cells = self.cells if cells is None else cells
        dist = {start: 0}
        queue = deque([start])
        # `steps` inlined: this loop is the hot path of path-connectivity rules.
        links = [(side, OPPOSITE[side], dx, dy) for side, (dx, dy) in STEP.items()]
        while queue:
            here = queue.popleft()
            d = dist[here]
            if max_steps is not None and d >= max_steps:
                continue
            sides, (x, y) = cells.get(here, 0), here
            for side, facing, dx, dy in links:
                if sides & side:
                    nxt = (x + dx, y + dy)
                    if nxt not in dist and cells.get(nxt, 0) & facing:
                        dist[nxt] = d + 1
                        queue.append(nxt)
        return dist

    def connected(self, a: Cell, b: Cell, cells: dict[Cell, int] | None = None) -> bool:
        """True when an open path leads from `a` to `b`."""
        return b in self.distances(a, cells=cells)

    def with_cell(self, cell: Cell, sides: int) -> dict[Cell, int]:
        """The cells as they would be with `sides` placed at `cell` (the grid is unchanged)."""
        return {**self.cells, cell: sides}

    def place(self, cell: Cell, sides: int) -> None:
        """Put a cell with `sides` at `cell` (over any cell there); `ValueError` beyond the bound."""
        if not self.within_bound(cell):
            raise ValueError(f"cell {cell} would make the grid larger than {self.size} x {self.size}")
        self.cells[cell] = sides

    def to_json(self) -> dict[str, Any]:
        """Size and cells as ``"x,y": "NESW"`` text."""
        return {"size": self.size,
                "cells": {f"{x},{y}": sides_text(s) for (x, y), s in sorted(self.cells.items())}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BoundedGrid:
        """The grid `to_json` wrote."""
        cells = {}
        for key, text in data["cells"].items():
            x, y = (int(v) for v in key.split(","))
            cells[(x, y)] = parse_sides(text)
        return cls(int(data["size"]), cells)


def seat_order(first: int, players: int) -> list[int]:
    """Players clockwise starting with `first` (seats are numbered clockwise)."""
    return [(first + i) % players for i in range(players)]


def rank_by(keys: Sequence[float], tie_order: Sequence[int]) -> list[int]:
    """Players sorted by `keys` descending, ties broken by their position in `tie_order`."""
    position = {p: i for i, p in enumerate(tie_order)}
    return sorted(tie_order, key=lambda p: (-keys[p], position[p]))
