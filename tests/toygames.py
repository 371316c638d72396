"""Tiny games that exercise the rules interface: sequential moves on a grid, a sealed-bid game
with simultaneous choices and hidden information, and a continuous placement game.

They test the engine and its harness; other tests may use them as stand-ins for real games.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

import numpy as np

from geomsim.reading import convert
from geomsim.rules import (
    Action,
    ActionSpace,
    ContinuousActionSpace,
    Event,
    FiniteActionSpace,
    Game,
    Playouts,
    Rule,
    State,
    Violation,
    read_state_json,
)

# -- a 3x3 grid game (tic-tac-toe) ------------------------------------------------------------
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


@dataclass(frozen=True)
class Mark(Action):
    """Mark a cell 0-8, text ``mark 4``."""

    kind = "mark"
    cell: int

    def __str__(self) -> str:
        return f"mark {self.cell}"


class GridGame(Game):
    """Tic-tac-toe: two players mark cells in turn; three in a line wins."""

    name = "toy-grid"
    min_players = max_players = 2
    action_types = (Mark,)
    rules = {
        "toy/grid/on-board": Rule("toy/grid/on-board", "1", "Mark one of the nine cells."),
        "toy/grid/empty": Rule("toy/grid/empty", "1", "Mark only an empty cell."),
    }

    def new_state(self, players: int = 2, seed: int | None = None, setup=None) -> GridState:
        self.check_players(players)
        first = 0 if seed is None else int(np.random.default_rng(seed).integers(2))
        return GridState(self, [None] * 9, first)

    def parse_action(self, text: str) -> Mark:
        m = re.fullmatch(r"mark (\d+)", text.strip())
        if not m:
            raise ValueError(f"expected 'mark N', got {text!r}")
        return Mark(int(m.group(1)))

    def state_from_json(self, text: str) -> GridState:
        data, history = read_state_json(text)
        state = GridState(self, data["board"], data["turn"])
        state._history_from_json(data, history)
        return state

    def random_playouts(self, states, seed: int = 0) -> Playouts:
        """Plain-Python stand-in for a compiled kernel: action code = cell."""
        rng = np.random.default_rng(seed)
        rows, offsets, scores, winners = [], [0], [], []
        for start in states:
            board, turn = list(start.board), start.turn
            while not _grid_over(board):
                empty = [i for i, v in enumerate(board) if v is None]
                cell = self.playout_choice(empty, rng)
                rows.append((turn, cell, len(empty)))
                board[cell], turn = turn, 1 - turn
            end = GridState(self, board, turn)
            scores.append(end.scores())
            winners.append([p in end.winners() for p in range(2)])
            offsets.append(len(rows))
        return Playouts(np.array(scores, float), np.array(winners, bool),
                        np.array(rows, int).reshape(-1, 3), np.array(offsets), Mark)


    def playout_choice(self, empty: list[int], rng: np.random.Generator) -> int:
        """The cell the playouts mark: uniform among the empty ones."""
        return empty[int(rng.integers(len(empty)))]


def _grid_over(board: list) -> bool:
    return None not in board or any(
        board[a] is not None and board[a] == board[b] == board[c] for a, b, c in LINES)


class GridState(State):
    def __init__(self, game: GridGame, board: list, turn: int):
        self.game, self.num_players, self.history = game, 2, []
        self.board, self.turn = board, turn

    def winner_mark(self) -> int | None:
        for a, b, c in LINES:
            if self.board[a] is not None and self.board[a] == self.board[b] == self.board[c]:
                return self.board[a]
        return None

    def to_move(self) -> tuple[int, ...]:
        if self.winner_mark() is not None or None not in self.board:
            return ()
        return (self.turn,)

    def _legal_actions(self, player: int) -> ActionSpace:
        return FiniteActionSpace(Mark(i) for i, v in enumerate(self.board) if v is None)

    def _violations(self, action: Mark, player: int) -> list[Violation]:
        if not 0 <= action.cell < 9:
            return [Violation("toy/grid/on-board", f"cell {action.cell} is not on the board")]
        if self.board[action.cell] is not None:
            return [Violation("toy/grid/empty", f"cell {action.cell} is taken")]
        return []

    def _apply(self, action: Mark, player: int) -> list[Event]:
        self.board[action.cell] = player
        self.turn = 1 - player
        return [Event("marked", player, {"cell": action.cell})]

    def scores(self) -> list[float]:
        w = self.winner_mark()
        return [0.0, 0.0] if w is None else [1.0 if p == w else -1.0 for p in range(2)]

    def winners(self) -> list[int]:
        if not self.is_over():
            return []
        w = self.winner_mark()
        return [0, 1] if w is None else [w]

    def to_dict(self) -> dict:
        return {"board": list(self.board), "turn": self.turn}

    def observe(self, player: int) -> dict:
        return self.to_dict()

    def determinize(self, player: int, rng: np.random.Generator) -> GridState:
        return self.clone()

    def arbitrary_actions(self, player: int, rng: np.random.Generator, k: int) -> list[Action]:
        return [Mark(int(c)) for c in rng.integers(-1, 10, size=k)]


# -- a two-player sealed-bid game -------------------------------------------------------------
@dataclass(frozen=True)
class Bid(Action):
    """Bid some coins, text ``bid 3``."""

    kind = "bid"
    coins: int

    def __str__(self) -> str:
        return f"bid {self.coins}"


class BidGame(Game):
    """Three rounds; both players bid secretly from 6 coins; the higher bid wins the round's prize
    (a secret value dealt from the seed, seen only once won); ties win nothing. Bids are spent."""

    name = "toy-bid"
    min_players = max_players = 2
    rounds = 3
    action_types = (Bid,)
    hidden_information = True
    rules = {
        "toy/bid/afford": Rule("toy/bid/afford", "1", "Bid no more coins than you have."),
        "toy/bid/once": Rule("toy/bid/once", "1", "Bid once a round."),
    }

    def new_state(self, players: int = 2, seed: int | None = None, setup=None) -> BidState:
        self.check_players(players)
        prizes = [int(v) for v in np.random.default_rng(seed).integers(1, 10, size=self.rounds)]
        return BidState(self, prizes, [6, 6], [0, 0], {}, 0)

    def parse_action(self, text: str) -> Bid:
        m = re.fullmatch(r"bid (-?\d+)", text.strip())
        if not m:
            raise ValueError(f"expected 'bid N', got {text!r}")
        return Bid(int(m.group(1)))

    def state_from_json(self, text: str) -> BidState:
        d = json.loads(text)
        state = BidState(self, d["prizes"], d["coins"], d["won"],
                         {int(k): v for k, v in d["sealed"].items()}, d["round"])
        state._history_from_json(d)
        return state


class BidState(State):
    def __init__(self, game: BidGame, prizes: list[int], coins: list[int], won: list[int],
                 sealed: dict[int, int], round_: int):
        self.game, self.num_players, self.history = game, 2, []
        self.prizes, self.coins, self.won, self.sealed, self.round = prizes, coins, won, sealed, round_

    def to_move(self) -> tuple[int, ...]:
        if self.round >= self.game.rounds:
            return ()
        return tuple(p for p in (0, 1) if p not in self.sealed)

    def _legal_actions(self, player: int) -> ActionSpace:
        return FiniteActionSpace(Bid(c) for c in range(self.coins[player] + 1))

    def _violations(self, action: Bid, player: int) -> list[Violation]:
        if not 0 <= action.coins <= self.coins[player]:
            return [Violation("toy/bid/afford", f"bid {action.coins} but has {self.coins[player]}",
                              {"coins": self.coins[player]})]
        return []

    def _apply(self, action: Bid, player: int) -> list[Event]:
        self.sealed[player] = action.coins
        if len(self.sealed) < 2:
            return [Event("sealed", player)]
        bids = [self.sealed[0], self.sealed[1]]
        for p in (0, 1):
            self.coins[p] -= bids[p]
        winner = None if bids[0] == bids[1] else int(bids[1] > bids[0])
        if winner is not None:
            self.won[winner] += self.prizes[self.round]
        self.sealed, self.round = {}, self.round + 1
        return [Event("revealed", None, {"bids": bids, "winner": winner})]

    def scores(self) -> list[float]:
        return [float(w) for w in self.won]

    def winners(self) -> list[int]:
        if not self.is_over():
            return []
        best = max(self.won)
        return [p for p in (0, 1) if self.won[p] == best]

    def to_dict(self) -> dict:
        return {"prizes": self.prizes, "coins": self.coins, "won": self.won,
                "sealed": {str(k): v for k, v in self.sealed.items()}, "round": self.round}

    def observe(self, player: int) -> dict:
        # Prizes to come are unknown; the other's sealed bid is unknown until the reveal.
        # A bid can be inferred afterwards from the coins left, as at the table.
        return {"coins": self.coins, "won": self.won, "round": self.round,
                "prizes_won": self.prizes[: self.round],
                "own_bid": self.sealed.get(player), "decided": sorted(self.sealed)}

    def determinize(self, player: int, rng: np.random.Generator) -> BidState:
        other = self.clone()
        future = rng.integers(1, 10, size=len(self.prizes) - self.round)
        other.prizes = self.prizes[: self.round] + [int(v) for v in future]
        opponent = 1 - player
        if opponent in self.sealed:
            other.sealed[opponent] = int(rng.integers(self.coins[opponent] + 1))
        return other

    def arbitrary_actions(self, player: int, rng: np.random.Generator, k: int) -> list[Action]:
        return [Bid(int(c)) for c in rng.integers(-2, 9, size=k)]


# -- a continuous placement game ---------------------------------------------------------------
@dataclass(frozen=True)
class Place(Action):
    """Place a point in the unit square, text ``place 0.25,0.5``."""

    kind = "place"
    x: float
    y: float

    def __str__(self) -> str:
        return f"place {self.x!r},{self.y!r}"


class DiscGame(Game):
    """Two players place points in turn, each at least 0.2 from every other point, four each;
    a player scores the sum of their points' x coordinates."""

    name = "toy-discs"
    min_players = max_players = 2
    per_player = 4
    spacing = 0.2
    action_types = (Place,)
    rules = {
        "toy/discs/inside": Rule("toy/discs/inside", "1", "Place inside the unit square."),
        "toy/discs/apart": Rule("toy/discs/apart", "1", "Place at least 0.2 from every point."),
    }

    def new_state(self, players: int = 2, seed: int | None = None, setup=None) -> DiscState:
        self.check_players(players)
        return DiscState(self, [])

    def parse_action(self, text: str) -> Place:
        m = re.fullmatch(r"place (\S+),(\S+)", text.strip())
        if not m:
            raise ValueError(f"expected 'place X,Y', got {text!r}")
        return Place(float(m.group(1)), float(m.group(2)))

    def state_from_json(self, text: str) -> DiscState:
        d, history = read_state_json(text)
        points = convert(d.get("points"), list[tuple[int, float, float]], "points")
        state = DiscState(self, [tuple(p) for p in points])
        state._history_from_json(d, history)
        return state


class DiscState(State):
    def __init__(self, game: DiscGame, points: list[tuple[int, float, float]]):
        self.game, self.num_players, self.history = game, 2, []
        self.points = points

    def to_move(self) -> tuple[int, ...]:
        if len(self.points) >= 2 * self.game.per_player:
            return ()
        return (len(self.points) % 2,)

    def _mask(self, xy: np.ndarray) -> np.ndarray:
        ok = np.all((xy >= 0) & (xy <= 1), axis=1)
        if self.points:
            placed = np.array([(x, y) for _, x, y in self.points])
            d = np.hypot(xy[:, None, 0] - placed[None, :, 0], xy[:, None, 1] - placed[None, :, 1])
            ok &= np.all(d >= self.game.spacing, axis=1)
        return ok

    def _legal_actions(self, player: int) -> ActionSpace:
        def sampler(rng: np.random.Generator, k: int) -> list[Action]:
            xy = rng.random((max(64, 8 * k), 2))
            good = xy[self._mask(xy)][:k]
            return [Place(float(x), float(y)) for x, y in good]
        return ContinuousActionSpace(sampler)

    def _violations(self, action: Place, player: int) -> list[Violation]:
        found = []
        if not (0 <= action.x <= 1 and 0 <= action.y <= 1):
            found.append(Violation("toy/discs/inside", f"({action.x}, {action.y}) is off the square"))
        near = [math.hypot(action.x - x, action.y - y) for _, x, y in self.points]
        if near and min(near) < self.game.spacing:
            found.append(Violation("toy/discs/apart", f"only {min(near):.3f} from a point",
                                   {"distance": min(near)}))
        return found

    def _apply(self, action: Place, player: int) -> list[Event]:
        self.points.append((player, action.x, action.y))
        return [Event("placed", player, {"x": action.x, "y": action.y})]

    def scores(self) -> list[float]:
        return [sum(x for p, x, _ in self.points if p == q) for q in range(2)]

    def winners(self) -> list[int]:
        if not self.is_over():
            return []
        s = self.scores()
        return [p for p in range(2) if s[p] == max(s)]

    def to_dict(self) -> dict:
        return {"points": [list(p) for p in self.points]}

    def observe(self, player: int) -> dict:
        return self.to_dict()

    def determinize(self, player: int, rng: np.random.Generator) -> DiscState:
        return self.clone()

    def arbitrary_actions(self, player: int, rng: np.random.Generator, k: int) -> list[Action]:
        return [Place(float(x), float(y)) for x, y in rng.uniform(-0.2, 1.2, size=(k, 2))]


GRID, BID, DISCS = GridGame(), BidGame(), DiscGame()
TOY_GAMES = (GRID, BID, DISCS)
